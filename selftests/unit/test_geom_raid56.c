// SPDX-License-Identifier: GPL-2.0
/*
 * User-space run of the RAID5/6 geometry (drivers/stria/geom.h): the golden
 * vectors of geom_vectors.h forward and inverse, a sweep over every sector
 * and every stripe of small arrays of each level, member count and layout,
 * and the validation rules. The same vectors run in the kernel in
 * stria_kunit.c. TAP output on stdout.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "geom.h"
#include "geom_vectors.h"
#include "tap.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const char *const layout_names[] = {
	"left-asymmetric", "right-asymmetric", "left-symmetric",
	"right-symmetric",
};

static void test_golden(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(stria_raid56_vectors); i++) {
		const struct stria_raid56_vector *v = &stria_raid56_vectors[i];
		struct stria_geom g;
		struct stria_loc loc = { 0, 0 }, ploc;
		struct stria_stripe st = { 0, 0, 0, 0, 0 };
		u64 back = 0, dummy;
		int ret, ok;

		ret = stria_geom_init(&g, v->level, v->layout, v->nr_members,
				      v->chunk_sectors, 1ULL << 42);
		if (!ret) {
			stria_raid56_map(&g, v->sector, &loc, &st);
			ret = stria_raid56_unmap(&g, &loc, &back);
		}
		ok = !ret && loc.member == v->member &&
		     loc.sector == v->member_sector && back == v->sector &&
		     st.stripe == v->member_sector / v->chunk_sectors &&
		     st.p == v->p && st.q == v->q && st.index == v->index &&
		     st.slot == v->slot;
		/* the other entry points agree with the map */
		if (ok) {
			ploc.member = v->p;
			ploc.sector = v->member_sector;
			ok = stria_raid56_data_member(&g, st.stripe, v->index) ==
			     v->member &&
			     stria_raid56_member_index(&g, st.stripe, v->member) ==
			     v->index &&
			     stria_raid56_member_index(&g, st.stripe, v->p) ==
			     STRIA_GEOM_P &&
			     stria_raid56_slot(&g, st.stripe, v->index) == v->slot &&
			     stria_raid56_unmap(&g, &ploc, &dummy) == -ENODATA;
		}
		if (ok && v->q != STRIA_GEOM_NONE) {
			ploc.member = v->q;
			ok = stria_raid56_member_index(&g, st.stripe, v->q) ==
			     STRIA_GEOM_Q &&
			     stria_raid56_unmap(&g, &ploc, &dummy) == -ENODATA;
		}
		tap(ok, "golden raid%u %s n=%u chunk=%u sector=%" PRIu64
		    " -> member %u sector %" PRIu64 " P %u Q %d index %u slot %u"
		    " (got %u %" PRIu64 " P %u Q %d index %u slot %u, inverse %"
		    PRIu64 ")",
		    v->level, layout_names[v->layout], v->nr_members,
		    v->chunk_sectors, v->sector, v->member, v->member_sector,
		    v->p, (int)v->q, v->index, v->slot, loc.member, loc.sector,
		    st.p, (int)st.q, st.index, st.slot, back);
	}
}

/*
 * md's order of the syndrome sources, derived again from its description:
 * walk the members upwards from the one after Q, wrapping, and number the
 * data members in the order met. Returns the slot of @member.
 */
static u32 walk_slot(const struct stria_geom *g, u64 stripe, u32 member)
{
	u32 n = g->nr_members, p, q, m, slot = 0, i;

	stria_raid56_parity_members(g, stripe, &p, &q);
	m = (q + 1) % n;
	for (i = 0; i < n; i++, m = (m + 1) % n) {
		if (m == p || m == q)
			continue;
		if (m == member)
			return slot;
		slot++;
	}
	return STRIA_GEOM_NONE;
}

/*
 * Every stripe of an array: each member has exactly one role (one P, one Q
 * on RAID6, each data index once), P != Q, P and Q each visit every member
 * once in n consecutive stripes, the data member and member index functions
 * are inverse, the slots are a permutation matching md's walk (and equal to
 * the data index in the symmetric layouts). Then every array sector maps
 * inside the geometry, maps back, and no member sector holds two.
 */
static void test_sweep(u32 level, u32 layout, u32 n, u32 chunk, u32 rows)
{
	static unsigned char seen[64 * 64 * 8 * 3];
	static unsigned int p_count[64], q_count[64];
	struct stria_geom g;
	struct stria_loc loc;
	struct stria_stripe st;
	u32 nd, np, m, k, p, q, idx;
	u64 s, total, stripe, back, bad = 0;
	u64 seen_bits, slot_bits;

	if (stria_geom_init(&g, level, layout, n, chunk, (u64)chunk * rows) ||
	    (u64)n * g.member_sectors > sizeof(seen)) {
		tap(0, "sweep raid%u %s n=%u chunk=%u: init failed", level,
		    layout_names[layout], n, chunk);
		return;
	}
	nd = stria_geom_nr_data(&g);
	np = stria_geom_nr_parity(&g);
	memset(p_count, 0, sizeof(p_count));
	memset(q_count, 0, sizeof(q_count));
	for (stripe = 0; stripe < rows; stripe++) {
		stria_raid56_parity_members(&g, stripe, &p, &q);
		if (p >= n || (np == 2 ? q >= n || q == p : q != STRIA_GEOM_NONE))
			bad++;
		if (stripe < n) {
			p_count[p % 64]++;
			if (np == 2)
				q_count[q % 64]++;
		}
		seen_bits = 0;
		slot_bits = 0;
		for (m = 0; m < n; m++) {
			idx = stria_raid56_member_index(&g, stripe, m);
			if (idx == STRIA_GEOM_P) {
				if (m != p)
					bad++;
				continue;
			}
			if (idx == STRIA_GEOM_Q) {
				if (m != q)
					bad++;
				continue;
			}
			if (idx >= nd || (seen_bits & (1ULL << idx)) ||
			    stria_raid56_data_member(&g, stripe, idx) != m)
				bad++;
			seen_bits |= 1ULL << (idx % 64);
			k = stria_raid56_slot(&g, stripe, idx);
			if (k >= nd || (slot_bits & (1ULL << k)))
				bad++;
			slot_bits |= 1ULL << (k % 64);
			if (level == 6 && k != walk_slot(&g, stripe, m))
				bad++;
			if ((level == 5 ||
			     layout == STRIA_LAYOUT_LEFT_SYMMETRIC ||
			     layout == STRIA_LAYOUT_RIGHT_SYMMETRIC) && k != idx)
				bad++;
		}
		if (seen_bits != (nd == 64 ? ~0ULL : (1ULL << nd) - 1))
			bad++;
	}
	for (m = 0; m < n && rows >= n; m++)
		if (p_count[m] != 1 || (np == 2 && q_count[m] != 1))
			bad++;

	total = stria_geom_array_sectors(&g);
	if (total != g.member_sectors * nd ||
	    stria_geom_stripe_sectors(&g) != nd * chunk)
		bad++;
	memset(seen, 0, sizeof(seen));
	for (s = 0; s < total; s++) {
		stria_raid56_map(&g, s, &loc, &st);
		if (loc.member >= n || loc.sector >= g.member_sectors ||
		    loc.member == st.p || loc.member == st.q ||
		    st.stripe != loc.sector / chunk ||
		    st.index != (s / chunk) % nd ||
		    stria_raid56_unmap(&g, &loc, &back) || back != s ||
		    seen[loc.member * g.member_sectors + loc.sector]++)
			bad++;
	}
	/* every member sector not holding data holds parity */
	for (m = 0; m < n; m++) {
		for (s = 0; s < g.member_sectors; s++) {
			loc.member = m;
			loc.sector = s;
			if (seen[m * g.member_sectors + s] !=
			    !stria_raid56_unmap(&g, &loc, &back))
				bad++;
		}
	}
	loc.member = n;
	loc.sector = 0;
	if (stria_raid56_unmap(&g, &loc, &back) != -EINVAL)
		bad++;
	tap(bad == 0, "sweep raid%u %s n=%u chunk=%u: %u stripes, %" PRIu64
	    " sectors, %" PRIu64 " bad", level, layout_names[layout], n, chunk,
	    rows, total, bad);
}

static void test_rejects(void)
{
	struct stria_geom g = { .nr_members = 77 };

	tap(stria_geom_init(&g, 5, 2, 2, 128, 1024) == -EINVAL,
	    "rejects RAID5 with 2 members");
	tap(stria_geom_init(&g, 6, 2, 3, 128, 1024) == -EINVAL,
	    "rejects RAID6 with 3 members");
	tap(stria_geom_init(&g, 5, 4, 4, 128, 1024) == -EINVAL &&
	    stria_geom_init(&g, 6, 4, 4, 128, 1024) == -EINVAL &&
	    stria_geom_init(&g, 6, 16, 4, 128, 1024) == -EINVAL,
	    "rejects layouts md has but stria does not (4, 16)");
	tap(stria_geom_init(&g, 0, 2, 4, 128, 1024) == -EINVAL,
	    "rejects a layout on RAID0");
	tap(stria_geom_init(&g, 4, 0, 4, 128, 1024) == -EINVAL &&
	    stria_geom_init(&g, 1, 0, 4, 128, 1024) == -EINVAL,
	    "rejects levels 1 and 4");
	tap(stria_geom_init(&g, 6, 2, 65, 128, 1024) == -EINVAL,
	    "rejects RAID6 with 65 members");
	tap(g.nr_members == 77, "a rejected geometry is left untouched");
	tap(stria_geom_init(&g, 5, 2, 3, 128, 1000) == 0 &&
	    g.member_sectors == 896 && stria_geom_array_sectors(&g) == 1792 &&
	    stria_geom_stripe_sectors(&g) == 256 && g.layout == 2,
	    "RAID5 of 3: capacity of 2 members");
	tap(stria_geom_init(&g, 6, 1, 64, 2048, 4096) == 0 &&
	    stria_geom_array_sectors(&g) == 62 * 4096ULL &&
	    stria_geom_stripe_sectors(&g) == 62 * 2048,
	    "RAID6 of 64: capacity of 62 members");
	tap(stria_geom_init(&g, 0, 0, 4, 128, 1024) == 0 &&
	    stria_geom_nr_data(&g) == 4 && stria_geom_nr_parity(&g) == 0 &&
	    stria_geom_stripe_sectors(&g) == 512,
	    "RAID0: every member holds data");
}

int main(void)
{
	static const u32 r5_members[] = { 3, 4, 5, 8, 13 };
	static const u32 r6_members[] = { 4, 5, 6, 8, 13 };
	size_t i;
	u32 layout;

	printf("TAP version 13\n");
	test_golden();
	for (layout = 0; layout < 4; layout++) {
		for (i = 0; i < ARRAY_SIZE(r5_members); i++)
			test_sweep(5, layout, r5_members[i], 8,
				   2 * r5_members[i] + 3);
		for (i = 0; i < ARRAY_SIZE(r6_members); i++)
			test_sweep(6, layout, r6_members[i], 8,
				   2 * r6_members[i] + 3);
		/* wide arrays, fewer rows than members and then more */
		test_sweep(6, layout, 64, 8, 3);
		test_sweep(5, layout, 64, 8, 130);
	}
	test_rejects();
	return tap_exit_code();
}
