// SPDX-License-Identifier: GPL-2.0
/* Linux 6.5 and 6.6: blkdev_get_by_path(path, blk_mode_t, holder, hops). */
#include <linux/blkdev.h>

struct block_device *probe(const char *path, void *holder);
struct block_device *probe(const char *path, void *holder)
{
	return blkdev_get_by_path(path, BLK_OPEN_READ | BLK_OPEN_WRITE, holder, NULL);
}
