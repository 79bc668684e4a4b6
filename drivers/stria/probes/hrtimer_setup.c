// SPDX-License-Identifier: GPL-2.0
/* Linux 6.13: hrtimer_setup() sets the callback with the clock and mode. */
#include <linux/hrtimer.h>

static enum hrtimer_restart fn(struct hrtimer *t)
{
	return HRTIMER_NORESTART;
}

void probe(struct hrtimer *t);
void probe(struct hrtimer *t)
{
	hrtimer_setup(t, fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
}
