// SPDX-License-Identifier: GPL-2.0
/*
 * Linux 5.18: a bio-based disk polls its bios in
 * block_device_operations.poll_bio.
 */
#include <linux/blkdev.h>

static int probe_poll_bio(struct bio *bio, struct io_comp_batch *iob,
			  unsigned int flags)
{
	return 0;
}

const struct block_device_operations probe_fops = {
	.poll_bio = probe_poll_bio,
};
