// SPDX-License-Identifier: GPL-2.0
/*
 * A module that misbehaves on purpose, to prove the test harness fails a
 * test whose kernel log shows a KASAN report (selftests/broken/): it reads
 * one byte past a 16-byte allocation. Never built into stria, never
 * installed.
 */
#include <linux/module.h>
#include <linux/slab.h>

/* a parameter, so the compiler cannot see the read is out of bounds */
static unsigned int offset = 16;
module_param(offset, uint, 0444);
MODULE_PARM_DESC(offset, "byte of the 16-byte allocation to read (default 16: one past its end)");

static int __init stria_selftest_kasan_init(void)
{
	char *p = kmalloc(16, GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	pr_info("stria_selftest_kasan: byte %u reads %d\n", offset,
		READ_ONCE(p[offset]));
	kfree(p);
	return 0;
}

static void __exit stria_selftest_kasan_exit(void)
{
}

module_init(stria_selftest_kasan_init);
module_exit(stria_selftest_kasan_exit);
MODULE_DESCRIPTION("stria harness self-test: reads past an allocation (KASAN) on load");
MODULE_LICENSE("GPL");
