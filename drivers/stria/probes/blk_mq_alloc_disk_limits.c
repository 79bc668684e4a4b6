// SPDX-License-Identifier: GPL-2.0
/* Linux 6.9: blk_mq_alloc_disk() takes a struct queue_limits argument. */
#include <linux/blk-mq.h>

struct gendisk *probe(struct blk_mq_tag_set *set);
struct gendisk *probe(struct blk_mq_tag_set *set)
{
	return blk_mq_alloc_disk(set, NULL, NULL);
}
