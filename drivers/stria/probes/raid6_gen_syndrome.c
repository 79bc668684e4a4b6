// SPDX-License-Identifier: GPL-2.0
/* 7.3: raid6_pq's entry points are plain functions (static calls inside). */
#include <linux/raid/pq.h>

void probe(void **ptrs);
void probe(void **ptrs)
{
	raid6_gen_syndrome(4, 4096, ptrs);
	if (raid6_can_xor_syndrome())
		raid6_xor_syndrome(4, 0, 1, 4096, ptrs);
	raid6_recov_2data(4, 4096, 0, 1, ptrs);
	raid6_recov_datap(4, 4096, 0, ptrs);
}
