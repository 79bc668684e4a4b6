// SPDX-License-Identifier: GPL-2.0
/*
 * Linux 5.16: polled bios are REQ_POLLED, polled by bio_poll(), and
 * blk_mq_ops.poll takes the caller's completion batch; 5.18: a bio-based
 * disk polls its bios in block_device_operations.poll_bio. Polled I/O
 * through stria needs both (RAID0 is bio-based).
 */
#include <linux/blk-mq.h>
#include <linux/blkdev.h>

static int probe_poll(struct blk_mq_hw_ctx *hctx, struct io_comp_batch *iob)
{
	struct bio bio = { .bi_opf = REQ_POLLED };

	return bio_poll(&bio, iob, BLK_POLL_ONESHOT);
}

static int probe_poll_bio(struct bio *bio, struct io_comp_batch *iob,
			  unsigned int flags)
{
	return 0;
}

const struct blk_mq_ops probe_ops = { .poll = probe_poll };
const struct block_device_operations probe_fops = {
	.poll_bio = probe_poll_bio,
};
