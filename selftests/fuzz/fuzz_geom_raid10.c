// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the RAID10/RAID1 geometry (drivers/stria/geom_raid10.h)
 * with any layout word, member count, chunk and member size. Whatever
 * stria_r10_geom_init() accepts must hold the invariants the module will
 * rely on: the used area inside what the members have, the capacity
 * inside the size limit, every copy of a sector on its own member inside
 * the used area and mapping back; and stria_r10_unmap() of any place
 * either refuses it or names a sector whose copies include that place.
 * An invariant that does not hold aborts, as a sanitizer report does.
 *
 * Input (little-endian, zero-padded): u32 layout, u32 members, u32 chunk
 * sectors, u64 available sectors, u64 array sector, u32 member, u64
 * member sector, u64 failed members (stria_r10_survives(): with none the
 * array survives, and when it survives the sector keeps a live copy). The seed corpus holds md's drawings and a few large ones.
 *
 * Run by selftests/fuzz/run (make unit).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "geom_raid10.h"

struct input {
	u32 layout, members, chunk;
	u64 avail, sector;
	u32 member;
	u64 member_sector;
	u64 failed;
};

static void fail(const char *what, const struct input *in)
{
	fprintf(stderr, "invariant broken: %s (layout %#x, %u members, chunk %u, avail %llu, sector %llu, place %u:%llu)\n",
		what, in->layout, in->members, in->chunk,
		(unsigned long long)in->avail, (unsigned long long)in->sector,
		in->member, (unsigned long long)in->member_sector);
	abort();
}

#define want(cond) do { if (!(cond)) fail(#cond, in); } while (0)

/* Every copy of @s: in range, on members of its own, mapping back. */
static void check_copies(const struct stria_r10_geom *g, u64 s,
			 const struct input *in)
{
	struct stria_loc locs[STRIA_R10_MAX_COPIES];
	u32 k, j;
	u64 back;

	stria_r10_map(g, s, locs);
	for (k = 0; k < stria_r10_copies(g); k++) {
		want(locs[k].member < g->nr_members);
		want(locs[k].sector < g->member_sectors);
		for (j = 0; j < k; j++)
			want(locs[j].member != locs[k].member);
		back = ~0ULL;
		want(stria_r10_unmap(g, &locs[k], &back) == 0);
		want(back == s);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct stria_loc locs[STRIA_R10_MAX_COPIES], l;
	struct input v, *in = &v;
	struct stria_r10_geom g;
	u64 back;
	u32 k;
	int ret, found;

	v.layout = (u32)take(&data, &size, 4);
	v.members = (u32)take(&data, &size, 4);
	v.chunk = (u32)take(&data, &size, 4);
	v.avail = take(&data, &size, 8);
	v.sector = take(&data, &size, 8);
	v.member = (u32)take(&data, &size, 4);
	v.member_sector = take(&data, &size, 8);
	v.failed = take(&data, &size, 8);

	if (stria_r10_geom_init(&g, v.layout, v.members, v.chunk, v.avail))
		return 0;
	want(g.member_sectors <= v.avail);
	want(g.member_sectors % v.chunk == 0 && g.array_sectors % v.chunk == 0);
	want(g.array_sectors && g.array_sectors <= STRIA_GEOM_MAX_SECTORS);
	want(g.array_sectors * stria_r10_copies(&g) <= g.member_sectors * g.nr_members);
	want(stria_r10_copies(&g) >= 2 && stria_r10_copies(&g) <= g.nr_members);

	check_copies(&g, v.sector % g.array_sectors, in);
	check_copies(&g, 0, in);
	check_copies(&g, g.array_sectors - 1, in);

	want(stria_r10_survives(&g, 0));
	if (stria_r10_survives(&g, v.failed)) {
		stria_r10_map(&g, v.sector % g.array_sectors, locs);
		found = 0;
		for (k = 0; k < stria_r10_copies(&g); k++)
			found |= !(v.failed >> locs[k].member & 1);
		want(found);
	}

	l.member = v.member;
	l.sector = v.member_sector;
	ret = stria_r10_unmap(&g, &l, &back);
	want(ret == 0 || ret == -EINVAL || ret == -ENODATA);
	want(ret != -EINVAL ||
	     (l.member >= g.nr_members || l.sector >= g.member_sectors));
	if (ret == 0) {
		want(back < g.array_sectors);
		stria_r10_map(&g, back, locs);
		found = 0;
		for (k = 0; k < stria_r10_copies(&g); k++)
			found |= locs[k].member == l.member &&
				 locs[k].sector == l.sector;
		want(found);
	}
	return 0;
}
