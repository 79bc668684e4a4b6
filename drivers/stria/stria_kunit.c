// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites for stria's pure code. They run when stria_kunit.ko loads,
 * on a kernel with CONFIG_KUNIT (the debug test kernel); the same golden
 * vectors run in user space in selftests/unit/test_geom.c.
 */
#include <kunit/test.h>
#include <linux/module.h>

#include "geom.h"
#include "geom_vectors.h"

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
	KUNIT_EXPECT_EQ(test, g.nr_members, 77U);
}

static struct kunit_case stria_geom_cases[] = {
	KUNIT_CASE_PARAM(stria_raid0_golden, stria_raid0_gen_params),
	KUNIT_CASE(stria_raid0_roundtrip),
	KUNIT_CASE(stria_raid0_member_range_brute),
	KUNIT_CASE(stria_geom_rejects),
	{}
};

static struct kunit_suite stria_geom_suite = {
	.name = "stria-geom",
	.test_cases = stria_geom_cases,
};

kunit_test_suite(stria_geom_suite);

MODULE_DESCRIPTION("KUnit tests for stria");
MODULE_LICENSE("GPL");
