// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites for stria's pure code and the kernel parity library it
 * uses. They run when stria_kunit.ko loads, on a kernel with CONFIG_KUNIT
 * (the debug test kernel); the same golden vectors and plans run in user
 * space in selftests/unit/test_geom*.c and test_parity.c.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/raid/pq.h>
#include <linux/raid/xor.h>

#include "compat.h"
#include "geom.h"
#include "geom_raid10_vectors.h"
#include "geom_reshape.h"
#include "mirror_read.h"
#include "geom_vectors.h"
#include "ondisk.h"
#include "parity_plan.h"
#include "raid6_locate.h"

static void stria_vector_desc(const struct stria_geom_vector *v, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "n=%u chunk=%u sector=%llu",
		 v->nr_members, v->chunk_sectors, v->sector);
}

KUNIT_ARRAY_PARAM(stria_raid0, stria_raid0_vectors, stria_vector_desc);

/* Forward map hits the golden location, inverse map comes back. */
static void stria_raid0_golden(struct kunit *test)
{
	const struct stria_geom_vector *v = test->param_value;
	struct stria_geom g;
	struct stria_loc loc;

	KUNIT_ASSERT_EQ(test, 0, stria_geom_init(&g, 0, 0, v->nr_members,
						 v->chunk_sectors,
						 1ULL << 42));
	stria_raid0_map(&g, v->sector, &loc);
	KUNIT_EXPECT_EQ(test, loc.member, v->member);
	KUNIT_EXPECT_EQ(test, loc.sector, v->member_sector);
	KUNIT_EXPECT_EQ(test, stria_raid0_unmap(&g, &loc), v->sector);
}

/* Every sector of a small array round-trips, and every member sector is used once. */
static void stria_raid0_roundtrip(struct kunit *test)
{
	struct stria_geom g;
	struct stria_loc loc;
	u64 s;

	KUNIT_ASSERT_EQ(test, 0, stria_geom_init(&g, 0, 0, 3, 8, 64));
	KUNIT_ASSERT_EQ(test, stria_geom_array_sectors(&g), 192ULL);
	for (s = 0; s < stria_geom_array_sectors(&g); s++) {
		stria_raid0_map(&g, s, &loc);
		KUNIT_EXPECT_LT(test, loc.member, 3U);
		KUNIT_EXPECT_LT(test, loc.sector, 64ULL);
		KUNIT_EXPECT_EQ(test, stria_raid0_unmap(&g, &loc), s);
	}
}

/* Each member's part of a range is contiguous and matches the forward map. */
static void stria_raid0_member_range_brute(struct kunit *test)
{
	struct stria_geom g;
	struct stria_loc loc;
	u64 s, len, x, ms, ml, lo, cnt;
	u32 m;

	KUNIT_ASSERT_EQ(test, 0, stria_geom_init(&g, 0, 0, 3, 8, 40));
	for (s = 0; s < 120; s += 7) {
		for (len = 1; s + len <= 120; len += 11) {
			for (m = 0; m < 3; m++) {
				lo = U64_MAX;
				cnt = 0;
				for (x = s; x < s + len; x++) {
					stria_raid0_map(&g, x, &loc);
					if (loc.member != m)
						continue;
					cnt++;
					lo = min(lo, loc.sector);
				}
				ml = stria_raid0_member_range(&g, s, len, m, &ms);
				KUNIT_EXPECT_EQ(test, ml, cnt);
				if (cnt)
					KUNIT_EXPECT_EQ(test, ms, lo);
			}
		}
	}
}

static void stria_raid56_vector_desc(const struct stria_raid56_vector *v,
				     char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE,
		 "raid%u layout=%u n=%u chunk=%u sector=%llu", v->level,
		 v->layout, v->nr_members, v->chunk_sectors, v->sector);
}

KUNIT_ARRAY_PARAM(stria_raid56, stria_raid56_vectors, stria_raid56_vector_desc);

/* md's placement of data, P and Q, and the Q slot; the inverse comes back. */
static void stria_raid56_golden(struct kunit *test)
{
	const struct stria_raid56_vector *v = test->param_value;
	struct stria_geom g;
	struct stria_loc loc;
	struct stria_stripe st;
	u64 back = 0;

	KUNIT_ASSERT_EQ(test, 0, stria_geom_init(&g, v->level, v->layout,
						 v->nr_members,
						 v->chunk_sectors,
						 1ULL << 42));
	stria_raid56_map(&g, v->sector, &loc, &st);
	KUNIT_EXPECT_EQ(test, loc.member, v->member);
	KUNIT_EXPECT_EQ(test, loc.sector, v->member_sector);
	KUNIT_EXPECT_EQ(test, st.p, v->p);
	KUNIT_EXPECT_EQ(test, st.q, v->q);
	KUNIT_EXPECT_EQ(test, st.index, v->index);
	KUNIT_EXPECT_EQ(test, st.slot, v->slot);
	KUNIT_EXPECT_EQ(test, 0, stria_raid56_unmap(&g, &loc, &back));
	KUNIT_EXPECT_EQ(test, back, v->sector);
	KUNIT_EXPECT_EQ(test, stria_raid56_member_index(&g, st.stripe, v->p),
			STRIA_GEOM_P);
	loc.member = v->p;
	KUNIT_EXPECT_EQ(test, -ENODATA, stria_raid56_unmap(&g, &loc, &back));
}

/*
 * Every sector of small arrays of each level and layout round-trips; in
 * every stripe each member holds one thing: P, Q or one data index.
 */
static void stria_raid56_roundtrip(struct kunit *test)
{
	struct stria_geom g;
	struct stria_loc loc;
	struct stria_stripe st;
	u32 level, layout, m, idx, n;
	u64 s, stripe, back, seen;

	for (level = 5; level <= 6; level++) {
		for (layout = 0; layout <= STRIA_LAYOUT_RIGHT_SYMMETRIC;
		     layout++) {
			n = level == 5 ? 5 : 6;
			KUNIT_ASSERT_EQ(test, 0, stria_geom_init(&g, level,
								 layout, n, 8,
								 8 * 2 * n));
			for (s = 0; s < stria_geom_array_sectors(&g); s++) {
				stria_raid56_map(&g, s, &loc, &st);
				KUNIT_EXPECT_NE(test, loc.member, st.p);
				KUNIT_EXPECT_NE(test, loc.member, st.q);
				KUNIT_EXPECT_EQ(test, 0,
						stria_raid56_unmap(&g, &loc,
								   &back));
				KUNIT_EXPECT_EQ(test, back, s);
			}
			for (stripe = 0; stripe < 2 * n; stripe++) {
				seen = 0;
				for (m = 0; m < n; m++) {
					idx = stria_raid56_member_index(&g,
									stripe,
									m);
					if (idx == STRIA_GEOM_P)
						idx = 62;
					else if (idx == STRIA_GEOM_Q)
						idx = 63;
					KUNIT_EXPECT_FALSE(test,
							   seen & BIT_ULL(idx));
					seen |= BIT_ULL(idx);
				}
				KUNIT_EXPECT_EQ(test, (u32)hweight64(seen), n);
			}
		}
	}
}

static void stria_geom_rejects(struct kunit *test)
{
	struct stria_geom g = { .nr_members = 77 };

	KUNIT_EXPECT_EQ(test, -EINVAL, stria_geom_init(&g, 0, 0, 1, 128, 1024));
	KUNIT_EXPECT_EQ(test, -EINVAL, stria_geom_init(&g, 0, 0, 65, 128, 1024));
	KUNIT_EXPECT_EQ(test, -EINVAL, stria_geom_init(&g, 0, 0, 2, 96, 1024));
	KUNIT_EXPECT_EQ(test, -EINVAL, stria_geom_init(&g, 0, 0, 2, 4, 1024));
	KUNIT_EXPECT_EQ(test, -EINVAL, stria_geom_init(&g, 0, 0, 2, 4096, 8192));
	KUNIT_EXPECT_EQ(test, -EINVAL, stria_geom_init(&g, 0, 0, 2, 128, 127));
	KUNIT_EXPECT_EQ(test, -EINVAL, stria_geom_init(&g, 7, 0, 2, 128, 1024));
	KUNIT_EXPECT_EQ(test, -EINVAL, stria_geom_init(&g, 0, 2, 2, 128, 1024));
	KUNIT_EXPECT_EQ(test, -EINVAL, stria_geom_init(&g, 5, 2, 2, 128, 1024));
	KUNIT_EXPECT_EQ(test, -EINVAL, stria_geom_init(&g, 6, 2, 3, 128, 1024));
	KUNIT_EXPECT_EQ(test, -EINVAL, stria_geom_init(&g, 6, 4, 4, 128, 1024));
	/* the members' data areas together must fit a loff_t in bytes */
	KUNIT_EXPECT_EQ(test, -EINVAL,
			stria_geom_init(&g, 0, 0, 2, 128, 0ULL - 2048));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			stria_geom_init(&g, 6, 2, 64, 2048, 1ULL << 50));
	KUNIT_EXPECT_EQ(test, g.nr_members, 77U);
	KUNIT_EXPECT_EQ(test, 0, stria_geom_init(&g, 0, 0, 2, 128, 1ULL << 52));
}

/*
 * What a crafted superblock tries (ondisk.h), as selftests/unit/
 * test_superblock.c checks in user space: sums that wrap, names that are
 * not [A-Za-z0-9._-] in the kernel's ctype either.
 */
static void stria_hostile_helpers(struct kunit *test)
{
	char name[STRIA_SB_NAME_LEN] = "ok.name_1-x";

	KUNIT_EXPECT_FALSE(test, stria_range_fits(2048, 0ULL - 2048, 8192));
	KUNIT_EXPECT_TRUE(test, stria_range_fits(2048, 6144, 8192));
	KUNIT_EXPECT_FALSE(test, stria_range_fits(2048, 6145, 8192));
	KUNIT_EXPECT_EQ(test, (0ULL - 2048) / 2048,
			stria_bitmap_regions(0ULL - 2048, 2048));
	KUNIT_EXPECT_FALSE(test, stria_bitmap_chunk_ok(0ULL - 2048, 128,
						       1U << 31));
	KUNIT_EXPECT_FALSE(test, stria_bitmap_chunk_ok(0, 128, 1024));
	KUNIT_EXPECT_TRUE(test, stria_name_valid(name));
	name[2] = '\n';
	KUNIT_EXPECT_FALSE(test, stria_name_valid(name));
	name[2] = (char)0xe9;	/* a letter to the kernel's isalnum() */
	KUNIT_EXPECT_FALSE(test, stria_name_valid(name));
	name[2] = '\0';
	KUNIT_EXPECT_FALSE(test, stria_name_valid(name));
}

/*
 * The write-intent bitmap's region sizes (ondisk.h), the same checks as
 * selftests/unit/test_superblock.c runs in user space.
 */
static void stria_bitmap_sizes(struct kunit *test)
{
	u64 full = (u64)STRIA_SB_BITMAP_MAX_REGIONS * 128;

	KUNIT_EXPECT_EQ(test, 63ULL, stria_bitmap_regions(129024, 2048));
	KUNIT_EXPECT_EQ(test, 1ULL, stria_bitmap_regions(1, 2048));
	KUNIT_EXPECT_EQ(test, 2ULL, stria_bitmap_regions(2049, 2048));
	KUNIT_EXPECT_TRUE(test, stria_bitmap_chunk_ok(full, 128, 128));
	KUNIT_EXPECT_FALSE(test, stria_bitmap_chunk_ok(full + 1, 128, 128));
	KUNIT_EXPECT_TRUE(test, stria_bitmap_chunk_ok(full + 1, 128, 256));
	KUNIT_EXPECT_FALSE(test, stria_bitmap_chunk_ok(1024, 128, 64));
	KUNIT_EXPECT_FALSE(test, stria_bitmap_chunk_ok(1024, 128, 384));
	/* the default, raised to the chunk, then until it fits */
	KUNIT_EXPECT_EQ(test, STRIA_SB_BITMAP_DEFAULT_CHUNK,
			stria_bitmap_min_chunk(129024, 128, 0));
	KUNIT_EXPECT_EQ(test, 2048U, stria_bitmap_min_chunk(129024, 128, 2048));
	KUNIT_EXPECT_EQ(test, 128U, stria_bitmap_min_chunk(129024, 128, 8));
	KUNIT_EXPECT_EQ(test, 256U, stria_bitmap_min_chunk(full + 1, 128, 128));
}

static void stria_r10_drawing_desc(const struct stria_r10_drawing *d,
				   char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", d->name);
}

KUNIT_ARRAY_PARAM(stria_r10, stria_r10_drawings, stria_r10_drawing_desc);

/* Every chunk's copies land where md(4)'s drawing has them. */
static void stria_raid10_drawing(struct kunit *test)
{
	const struct stria_r10_drawing *d = test->param_value;
	struct stria_loc locs[STRIA_R10_MAX_COPIES];
	struct stria_r10_geom g;
	unsigned char got[64] = { 0 };
	u32 k, cell;
	u64 c;

	KUNIT_ASSERT_LE(test, d->rows * d->n, (u32)sizeof(got));
	KUNIT_ASSERT_EQ(test, 0, stria_r10_geom_init(&g, d->layout, d->n, 8,
						     d->rows * 8ULL));
	KUNIT_ASSERT_EQ(test, g.member_sectors, d->rows * 8ULL);
	for (c = 0; c < g.array_sectors / 8; c++) {
		stria_r10_map(&g, c * 8, locs);
		for (k = 0; k < stria_r10_copies(&g); k++) {
			cell = (u32)(locs[k].sector / 8) * d->n + locs[k].member;
			KUNIT_ASSERT_LT(test, cell, d->rows * d->n);
			KUNIT_EXPECT_EQ(test, got[cell], 0);
			got[cell] = (unsigned char)(c + 1);
		}
	}
	KUNIT_EXPECT_MEMEQ(test, got, d->cells, d->rows * d->n);
}

/* Every copy of every sector of small arrays maps back; bad layouts fail. */
static void stria_raid10_roundtrip(struct kunit *test)
{
	static const u32 shapes[][2] = {
		{ 0x102, 5 }, { 0x103, 3 }, { 0x201, 3 }, { 0x301, 4 },
		{ 0x10201, 5 }, { 0x10301, 3 },
	};
	struct stria_loc locs[STRIA_R10_MAX_COPIES];
	struct stria_r10_geom g;
	u64 s, back;
	u32 i, k;

	for (i = 0; i < ARRAY_SIZE(shapes); i++) {
		KUNIT_ASSERT_EQ(test, 0, stria_r10_geom_init(&g, shapes[i][0],
							     shapes[i][1], 8,
							     8 * 13 + 5));
		for (s = 0; s < g.array_sectors; s += 3) {
			stria_r10_map(&g, s, locs);
			for (k = 0; k < stria_r10_copies(&g); k++) {
				KUNIT_EXPECT_LT(test, locs[k].sector,
						g.member_sectors);
				KUNIT_EXPECT_EQ(test, 0,
						stria_r10_unmap(&g, &locs[k], &back));
				KUNIT_EXPECT_EQ(test, back, s);
			}
		}
	}
	KUNIT_EXPECT_EQ(test, -EINVAL, stria_r10_geom_init(&g, 0x202, 4, 8, 1024));
	KUNIT_EXPECT_EQ(test, -EINVAL, stria_r10_geom_init(&g, 0x103, 2, 8, 1024));
	KUNIT_EXPECT_EQ(test, -EINVAL, stria_r10_geom_init(&g, 0x40201, 4, 8, 1024));
	KUNIT_EXPECT_EQ(test, -EINVAL, stria_r10_geom_init(&g, 0x101, 4, 8, 1024));
}

/* Which failed members RAID10 n2 over 4 and RAID1 of 3 survive. */
static void stria_raid10_survives(struct kunit *test)
{
	struct stria_r10_geom g;

	KUNIT_ASSERT_EQ(test, 0, stria_r10_geom_init(&g, 0x102, 4, 128, 1 << 20));
	KUNIT_EXPECT_TRUE(test, stria_r10_survives(&g, 0x5));
	KUNIT_EXPECT_TRUE(test, stria_r10_survives(&g, 0xa));
	KUNIT_EXPECT_FALSE(test, stria_r10_survives(&g, 0x3));
	KUNIT_EXPECT_FALSE(test, stria_r10_survives(&g, 0x7));
	KUNIT_ASSERT_EQ(test, 0, stria_r10_geom_init(&g, 0x103, 3, 128, 1 << 20));
	KUNIT_EXPECT_TRUE(test, stria_r10_survives(&g, 0x3));
	KUNIT_EXPECT_FALSE(test, stria_r10_survives(&g, 0x7));
}

/*
 * The reshape plan as the module builds it: for every data count up to 16
 * and every larger one up to 20, the windows from the critical rows to
 * the end are safe, not empty and end on the new row count; the example
 * of sync.rst; a backup that does not fit is refused.
 */
static void stria_reshape_plan_windows(struct kunit *test)
{
	struct stria_reshape_plan p;
	u32 from, to;
	u64 w0, w;

	for (from = 1; from <= 16; from++) {
		for (to = from + 1; to <= 20; to++) {
			KUNIT_ASSERT_EQ(test, 0,
					stria_reshape_plan_init(&p, from, to,
								to - from, 997));
			for (w0 = p.critical; w0 < p.rows_new; w0 += w) {
				w = stria_reshape_window(&p, w0, 32);
				KUNIT_ASSERT_GT(test, w, 0ULL);
				KUNIT_EXPECT_TRUE(test,
						  stria_reshape_window_safe(&p, w0, w));
			}
			KUNIT_EXPECT_EQ(test, w0, p.rows_new);
		}
	}
	KUNIT_ASSERT_EQ(test, 0, stria_reshape_plan_init(&p, 3, 4, 1, 100));
	KUNIT_EXPECT_EQ(test, p.critical, 3ULL);
	KUNIT_EXPECT_EQ(test, p.rows_new, 75ULL);
	KUNIT_EXPECT_EQ(test, p.backup_row, 91ULL);
	KUNIT_EXPECT_EQ(test, -ENOSPC, stria_reshape_plan_init(&p, 20, 21, 1, 400));
}

/*
 * Mirror reads as the module builds them: ties over three idle copies go
 * to each in turn, a stream stays on its copy, two copies of three
 * outvote the third.
 */
static void stria_mirror_read_cases(struct kunit *test)
{
	struct stria_mirror_copy c[3];
	bool same[9] = { false }, usable[3] = { true, true, true }, maj;
	u32 count[3] = { 0 }, i;
	int k;

	for (i = 0; i < 3; i++)
		c[i] = (struct stria_mirror_copy){ true, STRIA_NO_NODE, 0,
						   U64_MAX, 64 };
	for (k = 0; k < 30; k++)
		count[stria_mirror_choose(c, 3, STRIA_NO_NODE, k, false)]++;
	KUNIT_EXPECT_EQ(test, count[0], 10U);
	KUNIT_EXPECT_EQ(test, count[1], 10U);
	KUNIT_EXPECT_EQ(test, count[2], 10U);
	c[2].last_end = 64;
	c[2].inflight = 9;
	KUNIT_EXPECT_EQ(test, 2, stria_mirror_choose(c, 3, STRIA_NO_NODE, 0, false));
	same[1 * 3 + 2] = true;	/* copies 1 and 2 agree, 0 differs */
	k = stria_mirror_vote(same, usable, 3, &maj);
	KUNIT_EXPECT_TRUE(test, maj);
	KUNIT_EXPECT_TRUE(test, k == 1 || k == 2);
}

static struct kunit_case stria_geom_cases[] = {
	KUNIT_CASE_PARAM(stria_raid0_golden, stria_raid0_gen_params),
	KUNIT_CASE(stria_raid0_roundtrip),
	KUNIT_CASE(stria_raid0_member_range_brute),
	KUNIT_CASE_PARAM(stria_raid56_golden, stria_raid56_gen_params),
	KUNIT_CASE(stria_raid56_roundtrip),
	KUNIT_CASE_PARAM(stria_raid10_drawing, stria_r10_gen_params),
	KUNIT_CASE(stria_raid10_roundtrip),
	KUNIT_CASE(stria_raid10_survives),
	KUNIT_CASE(stria_reshape_plan_windows),
	KUNIT_CASE(stria_mirror_read_cases),
	KUNIT_CASE(stria_geom_rejects),
	KUNIT_CASE(stria_bitmap_sizes),
	KUNIT_CASE(stria_hostile_helpers),
	{}
};

static struct kunit_suite stria_geom_suite = {
	.name = "stria-geom",
	.test_cases = stria_geom_cases,
};

kunit_test_suite(stria_geom_suite);

/* The cheaper method wins, a tie goes to reconstruct-write. */
static void stria_parity_choose_cases(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, STRIA_PARITY_FULL,
			stria_parity_choose(4, 1, 4, true));
	KUNIT_EXPECT_EQ(test, STRIA_PARITY_RMW,
			stria_parity_choose(4, 1, 1, true));
	KUNIT_EXPECT_EQ(test, STRIA_PARITY_RCW,
			stria_parity_choose(4, 1, 2, true));
	KUNIT_EXPECT_EQ(test, STRIA_PARITY_RCW,
			stria_parity_choose(3, 1, 1, true));
	KUNIT_EXPECT_EQ(test, STRIA_PARITY_RCW,
			stria_parity_choose(4, 2, 1, true));
	KUNIT_EXPECT_EQ(test, STRIA_PARITY_RMW,
			stria_parity_choose(6, 2, 1, true));
	KUNIT_EXPECT_EQ(test, STRIA_PARITY_RCW,
			stria_parity_choose(6, 2, 1, false));
	KUNIT_EXPECT_EQ(test, 3U,
			stria_parity_reads(6, 2, 1, STRIA_PARITY_RMW));
	KUNIT_EXPECT_EQ(test, 5U,
			stria_parity_reads(6, 2, 1, STRIA_PARITY_RCW));
	KUNIT_EXPECT_EQ(test, 0U,
			stria_parity_reads(6, 2, 6, STRIA_PARITY_FULL));
}

/*
 * A RAID5 of 5 with 8 KiB chunks, a write from sector 10 of data index 0
 * to sector 4 of data index 2 of stripe 3: three segments, RCW, RMW, RCW.
 */
static void stria_parity_plan_example(struct kunit *test)
{
	struct stria_parity_seg segs[STRIA_PARITY_ROW_SEGS];
	struct stria_range w[4];
	struct stria_geom g;

	KUNIT_ASSERT_EQ(test, 0, stria_geom_init(&g, 5, 2, 5, 16, 160));
	stria_raid56_row_ranges(&g, 3 * 64 + 10, 32 + 4 - 10, 3, w);
	KUNIT_EXPECT_EQ(test, w[0].start, 10U);
	KUNIT_EXPECT_EQ(test, w[0].end, 16U);
	KUNIT_EXPECT_EQ(test, w[1].end - w[1].start, 16U);
	KUNIT_EXPECT_EQ(test, w[2].end, 4U);
	KUNIT_EXPECT_EQ(test, w[3].end, w[3].start);
	KUNIT_ASSERT_EQ(test, 3U, stria_parity_plan(4, 1, true, w, segs, 3));
	KUNIT_EXPECT_EQ(test, segs[0].end, 4U);
	KUNIT_EXPECT_EQ(test, segs[0].method, STRIA_PARITY_RCW);
	KUNIT_EXPECT_EQ(test, segs[0].read, 0x9ULL);
	KUNIT_EXPECT_EQ(test, segs[1].end, 10U);
	KUNIT_EXPECT_EQ(test, segs[1].method, STRIA_PARITY_RMW);
	KUNIT_EXPECT_EQ(test, segs[1].read, 0x2ULL);
	KUNIT_EXPECT_EQ(test, segs[1].reads, 2U);
	KUNIT_EXPECT_EQ(test, segs[2].start, 10U);
	KUNIT_EXPECT_EQ(test, segs[2].end, 16U);
	KUNIT_EXPECT_EQ(test, segs[2].method, STRIA_PARITY_RCW);
	KUNIT_EXPECT_EQ(test, segs[2].read, 0xcULL);
}

/*
 * Parked writes merge when their union is one contiguous write of the
 * slice: the tail of a stripe with the head that fills it, not a write
 * that leaves a gap (as the user-space test checks by brute force).
 */
static void stria_parity_mergeable_cases(struct kunit *test)
{
	struct stria_range tail[3] = { { 0, 16 }, { 0, 0 }, { 0, 0 } };
	struct stria_range head[3] = { { 0, 0 }, { 0, 16 }, { 0, 8 } };
	struct stria_range gap[3] = { { 0, 0 }, { 0, 0 }, { 0, 8 } };
	struct stria_range part[3] = { { 0, 4 }, { 0, 0 }, { 0, 0 } };
	struct stria_range next[3] = { { 4, 12 }, { 0, 0 }, { 0, 0 } };

	KUNIT_EXPECT_TRUE(test, stria_parity_mergeable(3, tail, head, 0, 16));
	KUNIT_EXPECT_FALSE(test, stria_parity_mergeable(3, tail, gap, 0, 16));
	KUNIT_EXPECT_FALSE(test, stria_parity_mergeable(3, part, head, 0, 16));
	KUNIT_EXPECT_TRUE(test, stria_parity_mergeable(3, part, next, 0, 16));
	KUNIT_EXPECT_EQ(test, stria_range_union(&part[0], &next[0]).end, 12U);
}

#define STRIA_KUNIT_NDATA	8

/*
 * The kernel's raid6_pq and xor on random data: Q weighs slot z by g^z in
 * GF(2^8)/0x11d (the order stria_raid56_slot() feeds it), the xor gives
 * P, every pair of lost data blocks and every data block lost with P comes
 * back byte for byte, and xor_syndrome (when the CPU's routines have it)
 * updates P and Q as a full recomputation would.
 */
static void stria_parity_kernel_lib(struct kunit *test)
{
	static const u8 g_pow[STRIA_KUNIT_NDATA] = {
		0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80,
	};
	const int nd = STRIA_KUNIT_NDATA, disks = nd + 2;
	void *ptrs[STRIA_KUNIT_NDATA + 2], *orig[STRIA_KUNIT_NDATA + 2];
	int i, a, b;
	u8 *p, *q;

	for (i = 0; i < disks; i++) {
		ptrs[i] = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
		orig[i] = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ptrs[i]);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, orig[i]);
	}
	p = ptrs[nd];
	q = ptrs[nd + 1];

	/* a 1 in slot z alone: P = 1, Q = g^z; then 0x80 in slot 1: Q = 0x1d */
	for (i = 0; i < nd; i++) {
		*(u8 *)ptrs[i] = 1;
		stria_raid6_gen_syndrome(disks, PAGE_SIZE, ptrs);
		KUNIT_EXPECT_EQ(test, p[0], 1);
		KUNIT_EXPECT_EQ(test, q[0], g_pow[i]);
		KUNIT_EXPECT_EQ(test, q[1], 0);
		*(u8 *)ptrs[i] = 0;
	}
	*(u8 *)ptrs[1] = 0x80;
	stria_raid6_gen_syndrome(disks, PAGE_SIZE, ptrs);
	KUNIT_EXPECT_EQ(test, p[0], 0x80);
	KUNIT_EXPECT_EQ(test, q[0], 0x1d);

	for (i = 0; i < nd; i++)
		get_random_bytes(ptrs[i], PAGE_SIZE);
	stria_raid6_gen_syndrome(disks, PAGE_SIZE, ptrs);
	memset(orig[nd], 0, PAGE_SIZE);
	stria_xor_blocks(orig[nd], ptrs, nd, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, 0, memcmp(orig[nd], p, PAGE_SIZE));
	for (i = 0; i < disks; i++)
		memcpy(orig[i], ptrs[i], PAGE_SIZE);

	for (a = 0; a < nd; a++) {
		for (b = a + 1; b <= nd; b++) {
			memset(ptrs[a], 0x5a, PAGE_SIZE);
			memset(ptrs[b], 0xa5, PAGE_SIZE);
			if (b == nd)
				stria_raid6_recov_datap(disks, PAGE_SIZE, a, ptrs);
			else
				stria_raid6_recov_2data(disks, PAGE_SIZE, a, b,
							ptrs);
			for (i = 0; i < disks; i++)
				KUNIT_EXPECT_EQ_MSG(test, 0,
						    memcmp(ptrs[i], orig[i],
							   PAGE_SIZE),
						    "lost %d and %d, block %d",
						    a, b, i);
		}
	}

	if (stria_raid6_can_xor_syndrome()) {
		/* read-modify-write of slots 2..4: remove old, add new */
		stria_raid6_xor_syndrome(disks, 2, 4, PAGE_SIZE, ptrs);
		for (i = 2; i <= 4; i++)
			get_random_bytes(ptrs[i], PAGE_SIZE);
		stria_raid6_xor_syndrome(disks, 2, 4, PAGE_SIZE, ptrs);
		memcpy(orig[nd], p, PAGE_SIZE);
		memcpy(orig[nd + 1], q, PAGE_SIZE);
		stria_raid6_gen_syndrome(disks, PAGE_SIZE, ptrs);
		KUNIT_EXPECT_EQ(test, 0, memcmp(orig[nd], p, PAGE_SIZE));
		KUNIT_EXPECT_EQ(test, 0, memcmp(orig[nd + 1], q, PAGE_SIZE));
	}
}

/*
 * The evidence of a stripe in @ptrs (data slots, P, Q) against the P' and
 * Q' the kernel's gen_syndrome gives its data (in @calc, scratch: the
 * stripe's P and Q pointers are swapped for two scratch pages).
 */
static enum stria_locate_verdict stria_locate_kernel(void **ptrs, void **calc,
						     int nd, u32 *slot)
{
	void *p = ptrs[nd], *q = ptrs[nd + 1];
	struct stria_locate l;

	ptrs[nd] = calc[0];
	ptrs[nd + 1] = calc[1];
	stria_raid6_gen_syndrome(nd + 2, PAGE_SIZE, ptrs);
	ptrs[nd] = p;
	ptrs[nd + 1] = q;
	stria_locate_init(&l);
	stria_locate_add(&l, nd, p, calc[0], q, calc[1], PAGE_SIZE);
	return stria_locate_result(&l, slot);
}

/*
 * Location against the kernel's own RAID6 code: one wrong chunk (each data
 * slot, P, Q) of a stripe whose P and Q lib/raid6 computed is named, and
 * its fix gives the original bytes back; any two wrong chunks are not.
 */
static void stria_locate_kernel_lib(struct kunit *test)
{
	const int nd = STRIA_KUNIT_NDATA, disks = nd + 2;
	void *ptrs[STRIA_KUNIT_NDATA + 2], *orig[STRIA_KUNIT_NDATA + 2];
	void *calc[2];
	enum stria_locate_verdict v;
	int i, a, b;
	u32 slot;

	for (i = 0; i < disks; i++) {
		ptrs[i] = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
		orig[i] = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ptrs[i]);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, orig[i]);
	}
	for (i = 0; i < 2; i++) {
		calc[i] = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, calc[i]);
	}
	for (i = 0; i < nd; i++)
		get_random_bytes(ptrs[i], PAGE_SIZE);
	stria_raid6_gen_syndrome(disks, PAGE_SIZE, ptrs);
	for (i = 0; i < disks; i++)
		memcpy(orig[i], ptrs[i], PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, stria_locate_kernel(ptrs, calc, nd, &slot),
			STRIA_LOCATE_CLEAN);

	for (a = 0; a < disks; a++) {
		/* a sector's worth of wrong bytes, at a different place each */
		u8 *x = (u8 *)ptrs[a] + (a * 512) % PAGE_SIZE;

		for (i = 0; i < 512; i++)
			x[i] ^= 1 + (get_random_u32() % 255);
		v = stria_locate_kernel(ptrs, calc, nd, &slot);
		if (a < nd) {
			KUNIT_EXPECT_EQ_MSG(test, v, STRIA_LOCATE_DATA,
					    "slot %d", a);
			KUNIT_EXPECT_EQ(test, slot, (u32)a);
			stria_locate_fix_data(ptrs[a], ptrs[nd], calc[0],
					      PAGE_SIZE);
		} else {
			KUNIT_EXPECT_EQ(test, v, a == nd ? STRIA_LOCATE_P :
							   STRIA_LOCATE_Q);
			memcpy(ptrs[a], calc[a - nd], PAGE_SIZE);
		}
		for (i = 0; i < disks; i++)
			KUNIT_EXPECT_EQ_MSG(test, 0,
					    memcmp(ptrs[i], orig[i], PAGE_SIZE),
					    "wrong %d, block %d", a, i);
		for (i = 0; i < disks; i++)
			memcpy(ptrs[i], orig[i], PAGE_SIZE);
	}

	for (a = 0; a < disks; a++) {
		for (b = a + 1; b < disks; b++) {
			get_random_bytes((u8 *)ptrs[a] + 64, 512);
			get_random_bytes((u8 *)ptrs[b] + 128, 512);
			v = stria_locate_kernel(ptrs, calc, nd, &slot);
			KUNIT_EXPECT_EQ_MSG(test, v, STRIA_LOCATE_UNLOCATABLE,
					    "wrong %d and %d", a, b);
			memcpy(ptrs[a], orig[a], PAGE_SIZE);
			memcpy(ptrs[b], orig[b], PAGE_SIZE);
		}
	}
}

static struct kunit_case stria_parity_cases[] = {
	KUNIT_CASE(stria_parity_choose_cases),
	KUNIT_CASE(stria_parity_plan_example),
	KUNIT_CASE(stria_parity_mergeable_cases),
	KUNIT_CASE(stria_parity_kernel_lib),
	KUNIT_CASE(stria_locate_kernel_lib),
	{}
};

static struct kunit_suite stria_parity_suite = {
	.name = "stria-parity",
	.test_cases = stria_parity_cases,
};

kunit_test_suite(stria_parity_suite);

MODULE_DESCRIPTION("KUnit tests for stria");
MODULE_LICENSE("GPL");
