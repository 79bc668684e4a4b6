// SPDX-License-Identifier: GPL-2.0
/* Linux 6.9: members are opened as a struct file. */
#include <linux/blkdev.h>
#include <linux/fs.h>

struct file *probe(const char *path, void *holder);
struct file *probe(const char *path, void *holder)
{
	return bdev_file_open_by_path(path, BLK_OPEN_READ | BLK_OPEN_WRITE, holder, NULL);
}
