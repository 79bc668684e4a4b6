// SPDX-License-Identifier: GPL-2.0
/* Linux 6.17 (and Debian's 6.12.117): WQ_PERCPU names a CPU-bound workqueue. */
#include <linux/workqueue.h>

struct workqueue_struct *probe(void);
struct workqueue_struct *probe(void)
{
	return alloc_workqueue("probe", WQ_PERCPU, 0);
}
