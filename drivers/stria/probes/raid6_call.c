// SPDX-License-Identifier: GPL-2.0
/* Up to 7.2: raid6_pq's call table, chosen at load. */
#include <linux/raid/pq.h>

void probe(void **ptrs);
void probe(void **ptrs)
{
	raid6_call.gen_syndrome(4, 4096, ptrs);
	raid6_2data_recov(4, 4096, 0, 1, ptrs);
}
