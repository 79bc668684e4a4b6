// SPDX-License-Identifier: GPL-2.0
/*
 * A module that misbehaves on purpose, to prove the test harness fails a
 * test whose kernel log shows a lockdep report (selftests/broken/): it
 * takes two mutexes in one order, then in the other. One thread never
 * deadlocks on that, but two could, and lockdep says so. Never built into
 * stria, never installed.
 */
#include <linux/module.h>
#include <linux/mutex.h>

static DEFINE_MUTEX(stria_selftest_a);
static DEFINE_MUTEX(stria_selftest_b);

static int __init stria_selftest_lockdep_init(void)
{
	mutex_lock(&stria_selftest_a);
	mutex_lock(&stria_selftest_b);
	mutex_unlock(&stria_selftest_b);
	mutex_unlock(&stria_selftest_a);

	mutex_lock(&stria_selftest_b);
	mutex_lock(&stria_selftest_a);
	mutex_unlock(&stria_selftest_a);
	mutex_unlock(&stria_selftest_b);
	return 0;
}

static void __exit stria_selftest_lockdep_exit(void)
{
}

module_init(stria_selftest_lockdep_init);
module_exit(stria_selftest_lockdep_exit);
MODULE_DESCRIPTION("stria harness self-test: takes two locks in both orders (lockdep) on load");
MODULE_LICENSE("GPL");
