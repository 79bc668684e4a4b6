// SPDX-License-Identifier: GPL-2.0
/* Linux 6.11: polling is a queue_limits feature, BLK_FEAT_POLL. */
#include <linux/blkdev.h>

void probe(struct queue_limits *lim);
void probe(struct queue_limits *lim)
{
	lim->features |= BLK_FEAT_POLL;
}
