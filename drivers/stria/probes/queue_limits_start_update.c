// SPDX-License-Identifier: GPL-2.0
/*
 * Linux 6.9: a live queue's limits change by queue_limits_start_update()
 * and queue_limits_commit_update() (the blk_queue_*() setters go).
 */
#include <linux/blkdev.h>

int probe(struct request_queue *q);
int probe(struct request_queue *q)
{
	struct queue_limits lim = queue_limits_start_update(q);

	return queue_limits_commit_update(q, &lim);
}
