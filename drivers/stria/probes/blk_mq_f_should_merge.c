// SPDX-License-Identifier: GPL-2.0
/* Up to Linux 6.13: tag sets ask for merging with BLK_MQ_F_SHOULD_MERGE. */
#include <linux/blk-mq.h>

unsigned int probe(void);
unsigned int probe(void)
{
	return BLK_MQ_F_SHOULD_MERGE;
}
