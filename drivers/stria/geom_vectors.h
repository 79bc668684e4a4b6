/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Golden geometry vectors, shared by the KUnit suite (stria_kunit.c) and the
 * user-space tests (selftests/unit/test_geom.c, test_geom_raid56.c), and
 * printed in Documentation/stria/ondisk-format.rst. They freeze the layout:
 * if one of these fails, the code changed the on-disk layout.
 *
 * The RAID5/6 vectors are md's placement (raid5_compute_sector(), and
 * raid6_idx_to_slot() for the Q slot), computed by a transliteration of md's
 * code and checked by hand; a stria array and an md array with the same
 * level, layout, chunk and member order must agree on every one of them.
 */
#ifndef _STRIA_GEOM_VECTORS_H
#define _STRIA_GEOM_VECTORS_H

#include "geom.h"

/**
 * struct stria_geom_vector - one array sector and where it must live
 * @nr_members: member count
 * @chunk_sectors: chunk size in sectors
 * @sector: array sector
 * @member: expected member
 * @member_sector: expected sector in the member's data area
 */
struct stria_geom_vector {
	u32 nr_members;
	u32 chunk_sectors;
	u64 sector;
	u32 member;
	u64 member_sector;
};

/* RAID0, layout version 1. */
static const struct stria_geom_vector stria_raid0_vectors[] = {
	/* 2 members, 64 KiB chunks (128 sectors) */
	{ 2, 128, 0, 0, 0 },
	{ 2, 128, 127, 0, 127 },
	{ 2, 128, 128, 1, 0 },
	{ 2, 128, 255, 1, 127 },
	{ 2, 128, 256, 0, 128 },
	{ 2, 128, 1000, 1, 488 },
	/* 3 members, 4 KiB chunks (8 sectors) */
	{ 3, 8, 0, 0, 0 },
	{ 3, 8, 8, 1, 0 },
	{ 3, 8, 16, 2, 0 },
	{ 3, 8, 24, 0, 8 },
	{ 3, 8, 29, 0, 13 },
	{ 3, 8, 47, 2, 15 },
	/* 4 members, 1 MiB chunks (2048 sectors) */
	{ 4, 2048, 2047, 0, 2047 },
	{ 4, 2048, 2048, 1, 0 },
	{ 4, 2048, 8192, 0, 2048 },
	{ 4, 2048, 10000000, 2, 2500224 },
	/* 8 members, 64 KiB chunks, far into a large array */
	{ 8, 128, 1ULL << 40, 0, 1ULL << 37 },
	{ 8, 128, (1ULL << 40) + 1000, 7, (1ULL << 37) + 104 },
};

/**
 * struct stria_raid56_vector - a RAID5/6 array sector, where it and its
 *	parity must live
 * @level: 5 or 6
 * @layout: STRIA_LAYOUT_*
 * @nr_members: member count
 * @chunk_sectors: chunk size in sectors
 * @sector: array sector
 * @member: expected data member
 * @member_sector: expected sector in that member's data area; P and Q are
 *	at the same sector of their members
 * @p: expected P member
 * @q: expected Q member, STRIA_GEOM_NONE on RAID5
 * @index: expected data index of the chunk in its stripe
 * @slot: expected syndrome slot (Q coefficient g^@slot)
 */
struct stria_raid56_vector {
	u32 level;
	u32 layout;
	u32 nr_members;
	u32 chunk_sectors;
	u64 sector;
	u32 member;
	u64 member_sector;
	u32 p;
	u32 q;
	u32 index;
	u32 slot;
};

/*
 * RAID5 (3, 4, 5, 8 members) and RAID6 (4, 5, 8 members), every layout:
 * the last data chunk of stripe 2 (left layouts) or 1 (right) with 4 KiB
 * chunks, the first data chunk of stripe 3n - 1, and a chunk in the middle of
 * a stripe near array sector 2^40.
 */
static const struct stria_raid56_vector stria_raid56_vectors[] = {
	/* RAID5, 3 members, left-asymmetric (0) */
	{ 5, 0, 3, 8, 45, 2, 21, 0, STRIA_GEOM_NONE, 1, 1 },
	{ 5, 0, 3, 128, 2175, 1, 1151, 0, STRIA_GEOM_NONE, 0, 0 },
	{ 5, 0, 3, 2048, 1099511625805ULL, 1, 549755811917ULL, 2, STRIA_GEOM_NONE, 1, 1 },
	/* RAID5, 3 members, right-asymmetric (1) */
	{ 5, 1, 3, 8, 29, 2, 13, 1, STRIA_GEOM_NONE, 1, 1 },
	{ 5, 1, 3, 2048, 34815, 0, 18431, 2, STRIA_GEOM_NONE, 0, 0 },
	{ 5, 1, 3, 128, 1099511628493ULL, 2, 549755814221ULL, 0, STRIA_GEOM_NONE, 1, 1 },
	/* RAID5, 3 members, left-symmetric (2) */
	{ 5, 2, 3, 8, 45, 2, 21, 0, STRIA_GEOM_NONE, 1, 1 },
	{ 5, 2, 3, 128, 2175, 1, 1151, 0, STRIA_GEOM_NONE, 0, 0 },
	{ 5, 2, 3, 2048, 1099511650381ULL, 1, 549755824205ULL, 2, STRIA_GEOM_NONE, 1, 1 },
	/* RAID5, 3 members, right-symmetric (3) */
	{ 5, 3, 3, 8, 29, 0, 13, 1, STRIA_GEOM_NONE, 1, 1 },
	{ 5, 3, 3, 2048, 34815, 0, 18431, 2, STRIA_GEOM_NONE, 0, 0 },
	{ 5, 3, 3, 128, 1099511630029ULL, 2, 549755814989ULL, 0, STRIA_GEOM_NONE, 1, 1 },
	/* RAID5, 4 members, left-asymmetric (0) */
	{ 5, 0, 4, 8, 69, 3, 21, 1, STRIA_GEOM_NONE, 2, 2 },
	{ 5, 0, 4, 128, 4351, 1, 1535, 0, STRIA_GEOM_NONE, 0, 0 },
	{ 5, 0, 4, 2048, 1099511613517ULL, 1, 366503870541ULL, 3, STRIA_GEOM_NONE, 1, 1 },
	/* RAID5, 4 members, right-asymmetric (1) */
	{ 5, 1, 4, 8, 45, 3, 13, 1, STRIA_GEOM_NONE, 2, 2 },
	{ 5, 1, 4, 2048, 69631, 0, 24575, 3, STRIA_GEOM_NONE, 0, 0 },
	{ 5, 1, 4, 128, 1099511628493ULL, 2, 366503876173ULL, 0, STRIA_GEOM_NONE, 1, 1 },
	/* RAID5, 4 members, left-symmetric (2) */
	{ 5, 2, 4, 8, 69, 0, 21, 1, STRIA_GEOM_NONE, 2, 2 },
	{ 5, 2, 4, 128, 4351, 1, 1535, 0, STRIA_GEOM_NONE, 0, 0 },
	{ 5, 2, 4, 2048, 1099511662669ULL, 1, 366503886925ULL, 3, STRIA_GEOM_NONE, 1, 1 },
	/* RAID5, 4 members, right-symmetric (3) */
	{ 5, 3, 4, 8, 45, 0, 13, 1, STRIA_GEOM_NONE, 2, 2 },
	{ 5, 3, 4, 2048, 69631, 0, 24575, 3, STRIA_GEOM_NONE, 0, 0 },
	{ 5, 3, 4, 128, 1099511631565ULL, 2, 366503877197ULL, 0, STRIA_GEOM_NONE, 1, 1 },
	/* RAID5, 5 members, left-asymmetric (0) */
	{ 5, 0, 5, 8, 93, 4, 21, 2, STRIA_GEOM_NONE, 3, 3 },
	{ 5, 0, 5, 128, 7295, 1, 1919, 0, STRIA_GEOM_NONE, 0, 0 },
	{ 5, 0, 5, 2048, 1099511607373ULL, 2, 274877900877ULL, 4, STRIA_GEOM_NONE, 2, 2 },
	/* RAID5, 5 members, right-asymmetric (1) */
	{ 5, 1, 5, 8, 61, 4, 13, 1, STRIA_GEOM_NONE, 3, 3 },
	{ 5, 1, 5, 2048, 116735, 0, 30719, 4, STRIA_GEOM_NONE, 0, 0 },
	{ 5, 1, 5, 128, 1099511629133ULL, 3, 274877907277ULL, 0, STRIA_GEOM_NONE, 2, 2 },
	/* RAID5, 5 members, left-symmetric (2) */
	{ 5, 2, 5, 8, 93, 1, 21, 2, STRIA_GEOM_NONE, 3, 3 },
	{ 5, 2, 5, 128, 7295, 1, 1919, 0, STRIA_GEOM_NONE, 0, 0 },
	{ 5, 2, 5, 2048, 1099511689293ULL, 2, 274877921357ULL, 4, STRIA_GEOM_NONE, 2, 2 },
	/* RAID5, 5 members, right-symmetric (3) */
	{ 5, 3, 5, 8, 61, 0, 13, 1, STRIA_GEOM_NONE, 3, 3 },
	{ 5, 3, 5, 2048, 116735, 0, 30719, 4, STRIA_GEOM_NONE, 0, 0 },
	{ 5, 3, 5, 128, 1099511634253ULL, 3, 274877908557ULL, 0, STRIA_GEOM_NONE, 2, 2 },
	/* RAID5, 8 members, left-asymmetric (0) */
	{ 5, 0, 8, 8, 165, 7, 21, 5, STRIA_GEOM_NONE, 6, 6 },
	{ 5, 0, 8, 128, 20735, 1, 3071, 0, STRIA_GEOM_NONE, 0, 0 },
	{ 5, 0, 8, 2048, 1099511568461ULL, 3, 157073080397ULL, 7, STRIA_GEOM_NONE, 3, 3 },
	/* RAID5, 8 members, right-asymmetric (1) */
	{ 5, 1, 8, 8, 109, 7, 13, 1, STRIA_GEOM_NONE, 6, 6 },
	{ 5, 1, 8, 2048, 331775, 0, 49151, 7, STRIA_GEOM_NONE, 0, 0 },
	{ 5, 1, 8, 128, 1099511634381ULL, 4, 157073090637ULL, 0, STRIA_GEOM_NONE, 3, 3 },
	/* RAID5, 8 members, left-symmetric (2) */
	{ 5, 2, 8, 8, 165, 4, 21, 5, STRIA_GEOM_NONE, 6, 6 },
	{ 5, 2, 8, 128, 20735, 1, 3071, 0, STRIA_GEOM_NONE, 0, 0 },
	{ 5, 2, 8, 2048, 1099511797837ULL, 3, 157073113165ULL, 7, STRIA_GEOM_NONE, 3, 3 },
	/* RAID5, 8 members, right-symmetric (3) */
	{ 5, 3, 8, 8, 109, 0, 13, 1, STRIA_GEOM_NONE, 6, 6 },
	{ 5, 3, 8, 2048, 331775, 0, 49151, 7, STRIA_GEOM_NONE, 0, 0 },
	{ 5, 3, 8, 128, 1099511648717ULL, 4, 157073092685ULL, 0, STRIA_GEOM_NONE, 3, 3 },
	/* RAID6, 4 members, left-asymmetric (0) */
	{ 6, 0, 4, 8, 45, 3, 21, 1, 2, 1, 0 },
	{ 6, 0, 4, 128, 2943, 2, 1535, 0, 1, 0, 0 },
	{ 6, 0, 4, 2048, 1099511629901ULL, 2, 549755813965ULL, 3, 0, 1, 1 },
	/* RAID6, 4 members, right-asymmetric (1) */
	{ 6, 1, 4, 8, 29, 3, 13, 1, 2, 1, 0 },
	{ 6, 1, 4, 2048, 47103, 1, 24575, 3, 0, 0, 0 },
	{ 6, 1, 4, 128, 1099511629005ULL, 3, 549755814477ULL, 0, 1, 1, 1 },
	/* RAID6, 4 members, left-symmetric (2) */
	{ 6, 2, 4, 8, 45, 0, 21, 1, 2, 1, 1 },
	{ 6, 2, 4, 128, 2943, 2, 1535, 0, 1, 0, 0 },
	{ 6, 2, 4, 2048, 1099511662669ULL, 2, 549755830349ULL, 3, 0, 1, 1 },
	/* RAID6, 4 members, right-symmetric (3) */
	{ 6, 3, 4, 8, 29, 0, 13, 1, 2, 1, 1 },
	{ 6, 3, 4, 2048, 47103, 1, 24575, 3, 0, 0, 0 },
	{ 6, 3, 4, 128, 1099511631053ULL, 3, 549755815501ULL, 0, 1, 1, 1 },
	/* RAID6, 5 members, left-asymmetric (0) */
	{ 6, 0, 5, 8, 69, 4, 21, 2, 3, 2, 0 },
	{ 6, 0, 5, 128, 5503, 2, 1919, 0, 1, 0, 0 },
	{ 6, 0, 5, 2048, 1099511625805ULL, 2, 366503874637ULL, 4, 0, 1, 1 },
	/* RAID6, 5 members, right-asymmetric (1) */
	{ 6, 1, 5, 8, 45, 4, 13, 1, 2, 2, 1 },
	{ 6, 1, 5, 2048, 88063, 1, 30719, 4, 0, 0, 0 },
	{ 6, 1, 5, 128, 1099511629645ULL, 3, 366503876557ULL, 0, 1, 1, 1 },
	/* RAID6, 5 members, left-symmetric (2) */
	{ 6, 2, 5, 8, 69, 1, 21, 2, 3, 2, 2 },
	{ 6, 2, 5, 128, 5503, 2, 1919, 0, 1, 0, 0 },
	{ 6, 2, 5, 2048, 1099511687245ULL, 2, 366503895117ULL, 4, 0, 1, 1 },
	/* RAID6, 5 members, right-symmetric (3) */
	{ 6, 3, 5, 8, 45, 0, 13, 1, 2, 2, 2 },
	{ 6, 3, 5, 2048, 88063, 1, 30719, 4, 0, 0, 0 },
	{ 6, 3, 5, 128, 1099511633485ULL, 3, 366503877837ULL, 0, 1, 1, 1 },
	/* RAID6, 8 members, left-asymmetric (0) */
	{ 6, 0, 8, 8, 141, 7, 21, 5, 6, 5, 0 },
	{ 6, 0, 8, 128, 17791, 2, 3071, 0, 1, 0, 0 },
	{ 6, 0, 8, 2048, 1099511568461ULL, 4, 183251927117ULL, 7, 0, 3, 3 },
	/* RAID6, 8 members, right-asymmetric (1) */
	{ 6, 1, 8, 8, 93, 7, 13, 1, 2, 5, 4 },
	{ 6, 1, 8, 2048, 284671, 1, 49151, 7, 0, 0, 0 },
	{ 6, 1, 8, 128, 1099511630285ULL, 5, 183251938381ULL, 0, 1, 3, 3 },
	/* RAID6, 8 members, left-symmetric (2) */
	{ 6, 2, 8, 8, 141, 4, 21, 5, 6, 5, 5 },
	{ 6, 2, 8, 128, 17791, 2, 3071, 0, 1, 0, 0 },
	{ 6, 2, 8, 2048, 1099511765069ULL, 4, 183251959885ULL, 7, 0, 3, 3 },
	/* RAID6, 8 members, right-symmetric (3) */
	{ 6, 3, 8, 8, 93, 0, 13, 1, 2, 5, 5 },
	{ 6, 3, 8, 2048, 284671, 1, 49151, 7, 0, 0, 0 },
	{ 6, 3, 8, 128, 1099511642573ULL, 5, 183251940429ULL, 0, 1, 3, 3 },
};

static_assert(sizeof(stria_raid56_vectors) ==
	      84 * sizeof(struct stria_raid56_vector),
	      "28 level/member/layout combinations, 3 vectors each");

#endif /* _STRIA_GEOM_VECTORS_H */
