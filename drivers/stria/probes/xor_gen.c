// SPDX-License-Identifier: GPL-2.0
/* 7.3: xor_gen(dest, srcs, count, bytes), any number of sources. */
#include <linux/raid/xor.h>

void probe(void *dest, void **srcs);
void probe(void *dest, void **srcs)
{
	xor_gen(dest, srcs, 5, 4096);
}
