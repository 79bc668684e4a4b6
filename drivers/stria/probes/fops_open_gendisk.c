// SPDX-License-Identifier: GPL-2.0
/* Linux 6.5: block_device_operations.open takes the gendisk and a blk_mode_t. */
#include <linux/blkdev.h>

static int probe_open(struct gendisk *disk, blk_mode_t mode)
{
	return 0;
}

const struct block_device_operations probe_fops = { .open = probe_open };
