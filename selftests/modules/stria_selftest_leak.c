// SPDX-License-Identifier: GPL-2.0
/*
 * A module that misbehaves on purpose, to prove the test harness fails a
 * test that leaks memory (kmemleak, selftests/broken/): it allocates a
 * buffer on load and forgets it. Never built into stria, never installed.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

/*
 * Not __init: the allocation's backtrace must name a function that stays
 * in the module's text (init text is freed once the module is loaded).
 */
static noinline int stria_selftest_leak_alloc(void)
{
	char *p = kmalloc(1024, GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	/* used, so the allocation stays; its address is kept nowhere */
	memset(p, 0x5a, 1024);
	pr_info("stria_selftest_leak: 1024 bytes allocated and forgotten (%d)\n",
		READ_ONCE(p[0]));
	return 0;
}

static int __init stria_selftest_leak_init(void)
{
	return stria_selftest_leak_alloc();
}

static void __exit stria_selftest_leak_exit(void)
{
}

module_init(stria_selftest_leak_init);
module_exit(stria_selftest_leak_exit);
MODULE_DESCRIPTION("stria harness self-test: leaks memory (kmemleak) on load");
MODULE_LICENSE("GPL");
