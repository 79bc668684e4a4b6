// SPDX-License-Identifier: GPL-2.0
/*
 * Linux 6.9: a plug caches the time (cur_ktime) while the task has
 * PF_BLOCK_TS, and every context switch clears it through current->plug.
 */
#include <linux/blkdev.h>
#include <linux/sched.h>

void probe(struct blk_plug *plug);
void probe(struct blk_plug *plug)
{
	if (current->flags & PF_BLOCK_TS)
		plug->cur_ktime = 0;
}
