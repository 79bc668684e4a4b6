// SPDX-License-Identifier: GPL-2.0
/*
 * Linux 5.16: polled bios are REQ_POLLED, polled by bio_poll(), and
 * blk_mq_ops.poll takes the caller's completion batch.
 */
#include <linux/blk-mq.h>
#include <linux/blkdev.h>

static int probe_poll(struct blk_mq_hw_ctx *hctx, struct io_comp_batch *iob)
{
	struct bio bio = { .bi_opf = REQ_POLLED };

	return bio_poll(&bio, iob, BLK_POLL_ONESHOT);
}

const struct blk_mq_ops probe_ops = { .poll = probe_poll };
