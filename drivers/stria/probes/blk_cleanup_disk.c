// SPDX-License-Identifier: GPL-2.0
/* Linux 5.14 to 5.19: a blk-mq disk is released with blk_cleanup_disk(). */
#include <linux/blkdev.h>

void probe(struct gendisk *disk);
void probe(struct gendisk *disk)
{
	blk_cleanup_disk(disk);
}
