/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Golden geometry vectors, shared by the KUnit suite (stria_kunit.c) and the
 * user-space test (selftests/unit/test_geom.c), and printed in
 * Documentation/stria/ondisk-format.rst. They freeze the layout: if one of
 * these fails, the code changed the on-disk layout.
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

#endif /* _STRIA_GEOM_VECTORS_H */
