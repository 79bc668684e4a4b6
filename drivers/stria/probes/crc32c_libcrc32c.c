// SPDX-License-Identifier: GPL-2.0
/* Up to 6.14: crc32c() from libcrc32c (CONFIG_LIBCRC32C), when configured. */
#include <linux/crc32c.h>

#if !IS_ENABLED(CONFIG_LIBCRC32C)
#error "no CONFIG_LIBCRC32C"
#endif

u32 probe(const void *p);
u32 probe(const void *p)
{
	return crc32c(~0U, p, 512);
}
