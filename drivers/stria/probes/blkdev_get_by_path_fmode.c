// SPDX-License-Identifier: GPL-2.0
/* Linux up to 6.4: blkdev_get_by_path(path, fmode_t, holder). */
#include <linux/blkdev.h>

struct block_device *probe(const char *path, void *holder);
struct block_device *probe(const char *path, void *holder)
{
	return blkdev_get_by_path(path, FMODE_READ | FMODE_WRITE | FMODE_EXCL, holder);
}
