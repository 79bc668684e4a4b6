// SPDX-License-Identifier: GPL-2.0
/* Linux 6.16: timer_container_of() replaces from_timer(). */
#include <linux/timer.h>

struct holder {
	struct timer_list timer;
};

struct holder *probe(struct timer_list *t);
struct holder *probe(struct timer_list *t)
{
	struct holder *h = timer_container_of(h, t, timer);

	return h;
}
