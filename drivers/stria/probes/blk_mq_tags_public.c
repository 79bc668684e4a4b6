// SPDX-License-Identifier: GPL-2.0
/* Linux 5.16: struct blk_mq_tags moved to <linux/blk-mq.h>. */
#include <linux/blk-mq.h>

struct request *probe(struct blk_mq_hw_ctx *hctx);
struct request *probe(struct blk_mq_hw_ctx *hctx)
{
	return hctx->tags->static_rqs[0];
}
