// SPDX-License-Identifier: GPL-2.0
/*
 * stria RAID5 and RAID6 (work in progress).
 */
#include <linux/blk-mq.h>

#include "stria.h"

static blk_status_t stria_raid56_queue_rq(struct stria_array *a,
					  struct request *rq)
{
	return BLK_STS_NOTSUPP;
}

const struct stria_level_ops stria_raid5_ops = {
	.level		= 5,
	.name		= "raid5",
	.queue_rq	= stria_raid56_queue_rq,
};

const struct stria_level_ops stria_raid6_ops = {
	.level		= 6,
	.name		= "raid6",
	.queue_rq	= stria_raid56_queue_rq,
};
