// SPDX-License-Identifier: GPL-2.0
/* Up to 7.2: xor_blocks(count, bytes, dest, srcs), at most 4 sources a call. */
#include <linux/raid/xor.h>

void probe(void *dest, void **srcs);
void probe(void *dest, void **srcs)
{
	xor_blocks(MAX_XOR_BLOCKS, 4096, dest, srcs);
}
