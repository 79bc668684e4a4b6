// SPDX-License-Identifier: GPL-2.0
/*
 * Linux 6.8: struct blk_holder_ops has ->sync (and ->freeze, ->thaw) beside
 * ->mark_dead(bdev, surprise), which is called with bd_holder_lock held and
 * releases it.
 */
#include <linux/blkdev.h>

static void probe_mark_dead(struct block_device *bdev, bool surprise)
{
}

static void probe_sync(struct block_device *bdev)
{
}

const struct blk_holder_ops probe_ops;
const struct blk_holder_ops probe_ops = {
	.mark_dead = probe_mark_dead,
	.sync = probe_sync,
};
