// SPDX-License-Identifier: GPL-2.0
/*
 * User-space run of the RAID0 geometry (drivers/stria/geom.h): the golden
 * vectors of geom_vectors.h forward and inverse, a round-trip sweep over
 * every sector of several small arrays, and the validation rules. The same
 * vectors run in the kernel in stria_kunit.c. TAP output on stdout.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "geom.h"
#include "geom_vectors.h"
#include "tap.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))


static void test_golden(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(stria_raid0_vectors); i++) {
		const struct stria_geom_vector *v = &stria_raid0_vectors[i];
		struct stria_geom g;
		struct stria_loc loc = { 0, 0 };
		u64 back = 0;
		int ret;

		ret = stria_geom_init(&g, 0, 0, v->nr_members, v->chunk_sectors,
				      1ULL << 42);
		if (!ret) {
			stria_raid0_map(&g, v->sector, &loc);
			back = stria_raid0_unmap(&g, &loc);
		}
		tap(!ret && loc.member == v->member &&
		    loc.sector == v->member_sector && back == v->sector,
		    "golden n=%u chunk=%u sector=%" PRIu64
		    " -> member %u sector %" PRIu64 " (got %u %" PRIu64
		    ", inverse %" PRIu64 ")",
		    v->nr_members, v->chunk_sectors, v->sector, v->member,
		    v->member_sector, loc.member, loc.sector, back);
	}
}

/*
 * Every sector of the array maps inside the geometry, maps back to itself,
 * and every member sector is used exactly once.
 */
static void test_roundtrip(u32 n, u32 chunk, u64 member_sectors)
{
	static unsigned char seen[64 * 4100];
	struct stria_geom g;
	struct stria_loc loc;
	u64 s, total, bad = 0;
	int ret;

	ret = stria_geom_init(&g, 0, 0, n, chunk, member_sectors);
	if (ret || member_sectors * n > sizeof(seen)) {
		tap(0, "round trip n=%u chunk=%u: init failed", n, chunk);
		return;
	}
	total = stria_geom_array_sectors(&g);
	memset(seen, 0, sizeof(seen));
	for (s = 0; s < total; s++) {
		stria_raid0_map(&g, s, &loc);
		if (loc.member >= n || loc.sector >= g.member_sectors ||
		    stria_raid0_unmap(&g, &loc) != s ||
		    seen[loc.member * g.member_sectors + loc.sector]++)
			bad++;
		/* a request never crosses a chunk, so it stays on one member */
		if (stria_geom_chunk_sectors_left(&g, s) !=
		    chunk - (s % chunk))
			bad++;
	}
	tap(bad == 0 && total == g.member_sectors * n,
	    "round trip n=%u chunk=%u: %" PRIu64 " sectors, %" PRIu64 " bad",
	    n, chunk, total, bad);
}

/*
 * stria_raid0_member_range() against brute force: for ranges at every
 * start and many lengths, each member's run is exactly the set of member
 * sectors the range maps to.
 */
static void test_member_range(u32 n, u32 chunk)
{
	struct stria_geom g;
	struct stria_loc loc;
	u64 total, s, len, x, bad = 0, cases = 0;
	u32 m;

	if (stria_geom_init(&g, 0, 0, n, chunk, chunk * 5)) {
		tap(0, "member range n=%u chunk=%u: init failed", n, chunk);
		return;
	}
	total = stria_geom_array_sectors(&g);
	for (s = 0; s < total; s += 3) {
		for (len = 1; s + len <= total; len += 5) {
			for (m = 0; m < n; m++) {
				u64 lo = ~0ULL, hi = 0, cnt = 0, ms = 0, ml;

				for (x = s; x < s + len; x++) {
					stria_raid0_map(&g, x, &loc);
					if (loc.member != m)
						continue;
					cnt++;
					if (loc.sector < lo)
						lo = loc.sector;
					if (loc.sector > hi)
						hi = loc.sector;
				}
				ml = stria_raid0_member_range(&g, s, len, m, &ms);
				cases++;
				if (ml != cnt || (cnt && (ms != lo ||
							  hi - lo + 1 != cnt)))
					bad++;
			}
		}
	}
	tap(bad == 0, "member range n=%u chunk=%u: %" PRIu64 " cases, %" PRIu64
	    " bad", n, chunk, cases, bad);
}

static void test_rejects(void)
{
	struct stria_geom g = { .nr_members = 77 };

	tap(stria_geom_init(&g, 0, 0, 1, 128, 1024) == -EINVAL, "rejects 1 member");
	tap(stria_geom_init(&g, 0, 0, 65, 128, 1024) == -EINVAL, "rejects 65 members");
	tap(stria_geom_init(&g, 0, 0, 2, 96, 1024) == -EINVAL,
	    "rejects chunk not a power of two");
	tap(stria_geom_init(&g, 0, 0, 2, 4, 1024) == -EINVAL, "rejects chunk < 4K");
	tap(stria_geom_init(&g, 0, 0, 2, 4096, 8192) == -EINVAL, "rejects chunk > 1M");
	tap(stria_geom_init(&g, 0, 0, 2, 128, 127) == -EINVAL,
	    "rejects member smaller than one chunk");
	tap(stria_geom_init(&g, 7, 0, 2, 128, 1024) == -EINVAL, "rejects level 7");
	tap(g.nr_members == 77, "a rejected geometry is left untouched");
	tap(stria_geom_init(&g, 0, 0, 2, 128, 1000) == 0 &&
	    g.member_sectors == 896, "member size rounds down to a whole chunk");
}

int main(void)
{
	static const u32 chunks[] = { 8, 16, 128, 2048 };
	static const u32 members[] = { 2, 3, 4, 5, 8, 64 };
	size_t i, j;

	printf("TAP version 13\n");
	test_golden();
	for (i = 0; i < ARRAY_SIZE(chunks); i++)
		for (j = 0; j < ARRAY_SIZE(members); j++)
			test_roundtrip(members[j], chunks[i], chunks[i] * 2 + 3);
	test_member_range(2, 8);
	test_member_range(3, 8);
	test_member_range(5, 16);
	test_rejects();
	return tap_exit_code();
}
