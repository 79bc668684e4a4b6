// SPDX-License-Identifier: GPL-2.0
/*
 * Linux 6.1: a request's end_io returns enum rq_end_io_ret (RQ_END_IO_FREE
 * has blk-mq free the request), and blk_insert_cloned_request() takes the
 * request alone (since 5.16).
 */
#include <linux/blk-mq.h>

static enum rq_end_io_ret probe_end_io(struct request *rq, blk_status_t st)
{
	return RQ_END_IO_FREE;
}

blk_status_t probe(struct request *rq);
blk_status_t probe(struct request *rq)
{
	rq->end_io = probe_end_io;
	return blk_insert_cloned_request(rq);
}
