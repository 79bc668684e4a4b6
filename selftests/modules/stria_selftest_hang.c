// SPDX-License-Identifier: GPL-2.0
/*
 * A module that misbehaves on purpose, to prove the test harness ends a
 * guest whose kernel reports a hung task (selftests/broken/): its init
 * sleeps uninterruptibly, so insmod waits in the kernel for that long
 * without being scheduled again. Never built into stria, never installed.
 */
#include <linux/delay.h>
#include <linux/module.h>

static unsigned int seconds = 600;
module_param(seconds, uint, 0444);
MODULE_PARM_DESC(seconds, "how long the init sleeps uninterruptibly (default 600)");

static int __init stria_selftest_hang_init(void)
{
	ssleep(seconds);
	return 0;
}

static void __exit stria_selftest_hang_exit(void)
{
}

module_init(stria_selftest_hang_init);
module_exit(stria_selftest_hang_exit);
MODULE_DESCRIPTION("stria harness self-test: hangs insmod (hung task) on load");
MODULE_LICENSE("GPL");
