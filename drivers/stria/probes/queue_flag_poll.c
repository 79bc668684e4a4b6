// SPDX-License-Identifier: GPL-2.0
/* Linux 5.16 to 6.10: polling is the queue flag QUEUE_FLAG_POLL. */
#include <linux/blkdev.h>

void probe(struct request_queue *q);
void probe(struct request_queue *q)
{
	blk_queue_flag_set(QUEUE_FLAG_POLL, q);
}
