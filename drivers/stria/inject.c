// SPDX-License-Identifier: GPL-2.0
/*
 * stria test-only delays: widen a race window so a test hits it every time.
 *
 * A race between two contexts that depends on one of them being preempted
 * for a while at one spot is rare on a test machine. The module parameter
 * test_delay_at names spots (a mask of enum stria_delay_point) where the
 * code sleeps test_delay_ms (default 100) before going on, so the other
 * context surely runs in between; clearing the spot's bit ends a sleep
 * early. Off (0, the default), each spot costs one
 * static branch that is never taken. Only tests set it; a spot is only
 * where the caller may sleep and holds no lock another context needs.
 *
 * Layer: base, under everything that calls it
 * (Documentation/stria/layers.rst, drivers/stria/layers.map).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/jump_label.h>
#include <linux/moduleparam.h>

#include "stria.h"

DEFINE_STATIC_KEY_FALSE(stria_delay_key);

static unsigned int test_delay_at;
static unsigned int test_delay_ms = 100;
static DEFINE_MUTEX(stria_delay_lock);

static int stria_delay_at_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v;
	int ret;

	ret = kstrtouint(val, 0, &v);
	if (ret)
		return ret;
	if (v & ~STRIA_DELAY_ALL)
		return -EINVAL;
	mutex_lock(&stria_delay_lock);
	WRITE_ONCE(test_delay_at, v);
	if (v && !static_key_enabled(&stria_delay_key))
		static_branch_enable(&stria_delay_key);
	else if (!v && static_key_enabled(&stria_delay_key))
		static_branch_disable(&stria_delay_key);
	mutex_unlock(&stria_delay_lock);
	return 0;
}

static const struct kernel_param_ops stria_delay_at_ops = {
	.set = stria_delay_at_set,
	.get = param_get_uint,
};
module_param_cb(test_delay_at, &stria_delay_at_ops, &test_delay_at, 0644);
MODULE_PARM_DESC(test_delay_at,
		 "For tests only: sleep test_delay_ms at these spots, a mask: 1 = a RAID5/6 stripe operation just queued on a busy stripe, 2 = just merged into a parked one, 4 = just parked; 8 = the copy of a replace is over, before the replacement takes the role; 16 = queue_rq (RAID5/6) started a read or write and sent its member I/O, before it returns (default 0: never)");
module_param(test_delay_ms, uint, 0644);
MODULE_PARM_DESC(test_delay_ms,
		 "For tests only: how long test_delay_at sleeps (milliseconds; default 100)");

/**
 * __stria_test_delay() - sleep at @point when a test asked for it
 * @point: one STRIA_DELAY_* bit
 *
 * Process context, no spinlock held. Called through stria_test_delay()
 * only while test_delay_at is set.
 */
void __stria_test_delay(u32 point)
{
	unsigned int ms = READ_ONCE(test_delay_ms);
	unsigned long end = jiffies + msecs_to_jiffies(ms);

	if (!(READ_ONCE(test_delay_at) & point))
		return;
	pr_info_ratelimited("test delay %#x: %u ms\n", point, ms);
	/* a test that is done in the window ends it: test_delay_at=0 */
	while ((READ_ONCE(test_delay_at) & point) && time_before(jiffies, end))
		msleep(min(ms, 10U));
}
