/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Golden RAID10 layouts, shared by the KUnit suite (stria_kunit.c) and the
 * user-space test (selftests/unit/test_geom_raid10.c): md's near, far and
 * offset layouts as md(4) draws them, chunk by chunk, with 8-sector chunks
 * and members exactly as large as the drawing. They freeze the layout; a
 * stria array and an md array with the same layout word, chunk and member
 * order must agree on each.
 */
#ifndef _STRIA_GEOM_RAID10_VECTORS_H
#define _STRIA_GEOM_RAID10_VECTORS_H

#include "geom_raid10.h"

/**
 * struct stria_r10_drawing - a RAID10 layout as md(4) draws it
 * @name: what it shows
 * @layout: md's layout word
 * @n: members
 * @rows: member chunks drawn, the members' whole size
 * @cells: @rows rows of @n cells, each the array chunk held there,
 *	counted from 1 as md(4) does, 0 for none
 */
struct stria_r10_drawing {
	const char *name;
	u32 layout, n, rows;
	const unsigned char *cells;
};

/* md(4): 2 near copies over 3 drives */
static const unsigned char stria_r10_near2_3[] = {
	1, 1, 2,
	2, 3, 3,
	4, 4, 5,
	5, 6, 6,
};

/* the same over 3 member chunks: md leaves the last place unused */
static const unsigned char stria_r10_near2_3_tail[] = {
	1, 1, 2,
	2, 3, 3,
	4, 4, 0,
};

/* 2 near copies over 4 drives: RAID1+0 */
static const unsigned char stria_r10_near2_4[] = {
	1, 1, 2, 2,
	3, 3, 4, 4,
	5, 5, 6, 6,
};

/* 3 near copies over 4 drives */
static const unsigned char stria_r10_near3_4[] = {
	1, 1, 1, 2,
	2, 2, 3, 3,
	3, 4, 4, 4,
};

/* far 2 over 3 drives: RAID0 in the first half, moved by one in the second */
static const unsigned char stria_r10_far2_3[] = {
	1, 2, 3,
	4, 5, 6,
	3, 1, 2,
	6, 4, 5,
};

/* far 2 over 4 drives */
static const unsigned char stria_r10_far2_4[] = {
	1, 2, 3, 4,
	5, 6, 7, 8,
	4, 1, 2, 3,
	8, 5, 6, 7,
};

/* offset 2 over 3 drives: each row, then itself moved by one */
static const unsigned char stria_r10_offset2_3[] = {
	1, 2, 3,
	3, 1, 2,
	4, 5, 6,
	6, 4, 5,
};

/* RAID1 over 3 drives: near 3 */
static const unsigned char stria_r10_raid1_3[] = {
	1, 1, 1,
	2, 2, 2,
	3, 3, 3,
};

static const struct stria_r10_drawing stria_r10_drawings[] = {
	{ "near 2 over 3", 0x102, 3, 4, stria_r10_near2_3 },
	{ "near 2 over 3, a place left unused", 0x102, 3, 3, stria_r10_near2_3_tail },
	{ "near 2 over 4", 0x102, 4, 3, stria_r10_near2_4 },
	{ "near 3 over 4", 0x103, 4, 3, stria_r10_near3_4 },
	{ "far 2 over 3", 0x201, 3, 4, stria_r10_far2_3 },
	{ "far 2 over 4", 0x201, 4, 4, stria_r10_far2_4 },
	{ "offset 2 over 3", 0x10201, 3, 4, stria_r10_offset2_3 },
	{ "RAID1 over 3 (near 3)", 0x103, 3, 3, stria_r10_raid1_3 },
};

#endif /* _STRIA_GEOM_RAID10_VECTORS_H */
