// SPDX-License-Identifier: GPL-2.0
/* 6.15: crc32c() is part of the CRC32 library (CONFIG_CRC32), when configured. */
#include <linux/crc32.h>

#if !IS_ENABLED(CONFIG_CRC32)
#error "no CONFIG_CRC32"
#endif

u32 probe(const void *p);
u32 probe(const void *p)
{
	return crc32c(~0U, p, 512);
}
