// SPDX-License-Identifier: GPL-2.0
/* Linux 6.7 and 6.8: bdev_open_by_path() returns a struct bdev_handle. */
#include <linux/blkdev.h>

struct bdev_handle *probe(const char *path, void *holder);
struct bdev_handle *probe(const char *path, void *holder)
{
	return bdev_open_by_path(path, BLK_OPEN_READ | BLK_OPEN_WRITE, holder, NULL);
}
