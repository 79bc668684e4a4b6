// SPDX-License-Identifier: GPL-2.0
/*
 * A module that misbehaves on purpose, to prove the test harness fails a
 * test whose kernel log shows a WARNING (selftests/broken/). Never built
 * into stria, never installed.
 */
#include <linux/bug.h>
#include <linux/module.h>

static int __init stria_selftest_warn_init(void)
{
	WARN(1, "stria_selftest_warn: deliberate warning for the harness self-test\n");
	return 0;
}

static void __exit stria_selftest_warn_exit(void)
{
}

module_init(stria_selftest_warn_init);
module_exit(stria_selftest_warn_exit);
MODULE_DESCRIPTION("stria harness self-test: emits a WARNING on load");
MODULE_LICENSE("GPL");
