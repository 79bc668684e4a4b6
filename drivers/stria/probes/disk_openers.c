// SPDX-License-Identifier: GPL-2.0
/* Linux 5.19: disk_openers() counts the openers of a gendisk. */
#include <linux/blkdev.h>

unsigned int probe(struct gendisk *disk);
unsigned int probe(struct gendisk *disk)
{
	return disk_openers(disk);
}
