// SPDX-License-Identifier: GPL-2.0
/*
 * Prints the RAID5 and RAID6 layout figures of admin.rst from the driver's
 * own geometry (drivers/stria/geom.h): which member holds which data chunk
 * and the parity of each stripe.
 *
 *   gcc -I drivers/stria -I include/uapi -o /tmp/layout Documentation/stria/figures/layout.c && /tmp/layout
 */
#include <stdio.h>

#include "geom.h"

static void show(u32 level, u32 members, u32 stripes)
{
	struct stria_geom g;
	u32 s, m, nd;

	if (stria_geom_init(&g, level, STRIA_LAYOUT_LEFT_SYMMETRIC, members, 128, 1 << 20))
		return;
	nd = members - (level == 6 ? 2 : 1);
	printf("RAID%u, %u members, left-symmetric\n\n        ", level, members);
	for (m = 0; m < members; m++)
		printf("  member %-2u", m);
	printf("\n");
	for (s = 0; s < stripes; s++) {
		printf("stripe %u", s);
		for (m = 0; m < members; m++) {
			u32 i = stria_raid56_member_index(&g, s, m);

			if (i == STRIA_GEOM_P)
				printf("  %-9s", "P");
			else if (i == STRIA_GEOM_Q)
				printf("  %-9s", "Q");
			else
				printf("  D%-8u", s * nd + i);
		}
		printf("\n");
	}
	printf("\n");
}

int main(void)
{
	show(5, 4, 5);
	show(6, 5, 6);
	return 0;
}
