// SPDX-License-Identifier: GPL-2.0
/*
 * User-space run of the RAID10/RAID1 geometry (drivers/stria/geom_raid10.h):
 * the layouts as md(4) draws them (near, far and offset, 2 and 3 copies,
 * RAID1 as near with a copy per member), compared chunk by chunk; a sweep
 * over member counts, layouts, chunk and member sizes in which every copy
 * of every chunk is on its own member inside the used area, no two
 * chunks share a place, every place maps back (or is md's unused tail),
 * and the capacity, used area and stride are md's (calc_sectors(), then
 * raid10_size()); and the validation rules.
 * TAP output on stdout.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "geom_raid10.h"
#include "geom_raid10_vectors.h"
#include "tap.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static void test_drawings(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(stria_r10_drawings); i++) {
		const struct stria_r10_drawing *d = &stria_r10_drawings[i];
		unsigned char got[64];
		struct stria_r10_geom g;
		struct stria_loc locs[STRIA_R10_MAX_COPIES];
		u64 c, nchunks;
		u32 k, cell;
		int ok;

		memset(got, 0, sizeof(got));
		/* 8-sector chunks, members exactly as long as the drawing */
		ok = !stria_r10_geom_init(&g, d->layout, d->n, 8, d->rows * 8ULL);
		ok = ok && g.member_sectors == d->rows * 8ULL;
		nchunks = ok ? g.array_sectors / 8 : 0;
		for (c = 0; ok && c < nchunks; c++) {
			stria_r10_map(&g, c * 8, locs);
			for (k = 0; k < stria_r10_copies(&g); k++) {
				cell = (u32)(locs[k].sector / 8) * d->n + locs[k].member;
				if (locs[k].sector % 8 || cell >= d->rows * d->n ||
				    got[cell]) {
					ok = 0;
					break;
				}
				got[cell] = (unsigned char)(c + 1);
			}
		}
		ok = ok && !memcmp(got, d->cells, d->rows * d->n);
		tap(ok, "%s (layout %#x): md's drawing, chunk by chunk", d->name,
		    d->layout);
		if (!ok) {
			for (cell = 0; cell < d->rows * d->n; cell++)
				printf("%s%u%s", cell % d->n ? " " : "#   ", got[cell],
				       cell % d->n == d->n - 1 ? "\n" : "");
		}
	}
}

/*
 * What md computes, in its two steps: calc_sectors() of the members' size
 * gives each member's used sectors and the stride, and raid10_size() of
 * those the capacity (md's order of operations, step by step).
 */
static void md_sizes(u32 n, u32 near, u32 far, bool offset, u32 shift,
		     u64 avail, u64 *dev_sectors, u64 *stride, u64 *capacity)
{
	u64 size = avail >> shift;

	size /= far;
	size *= n;
	size /= near;
	size *= near * far;
	size = (size + n - 1) / n;
	*dev_sectors = size << shift;
	*stride = offset ? 1ULL << shift : size / far << shift;
	size = *dev_sectors >> shift;
	size /= far;
	size *= n;
	size /= near;
	*capacity = size << shift;
}

/*
 * One geometry: every chunk's copies, on distinct members, inside the used
 * area, each place taken once; every place maps back or is the unused tail.
 */
static int sweep_one(u32 layout, u32 n, u32 chunk, u64 avail, char *why,
		     size_t whylen)
{
	struct stria_r10_geom g;
	struct stria_loc locs[STRIA_R10_MAX_COPIES], at[STRIA_R10_MAX_COPIES], l;
	u32 near = layout & 0xff, far = (layout >> 8) & 0xff, k, j, shift = 0;
	u64 c, used_chunks, back, hits = 0, s, md_dev, md_stride, md_cap;
	unsigned char *taken;
	int ret;

	if (stria_r10_geom_init(&g, layout, n, chunk, avail)) {
		snprintf(why, whylen, "init refused it");
		return 0;
	}
	while ((1U << shift) < chunk)
		shift++;
	md_sizes(n, near, far, layout & STRIA_R10_OFFSET, shift, avail, &md_dev,
		 &md_stride, &md_cap);
	if (g.array_sectors != md_cap || g.member_sectors != md_dev ||
	    g.stride != md_stride) {
		snprintf(why, whylen, "capacity %" PRIu64 ", used %" PRIu64 ", stride %" PRIu64 "; md: %" PRIu64 ", %" PRIu64 ", %" PRIu64,
			 g.array_sectors, g.member_sectors, g.stride, md_cap,
			 md_dev, md_stride);
		return 0;
	}
	if (g.member_sectors > avail) {
		snprintf(why, whylen, "uses %" PRIu64 " of %" PRIu64 " sectors",
			 g.member_sectors, avail);
		return 0;
	}
	used_chunks = g.member_sectors / chunk;
	taken = calloc(used_chunks * n, 1);
	if (!taken)
		return 0;
	for (c = 0; c < g.array_sectors / chunk; c++) {
		/* the chunk's last sector: the offset inside is kept */
		s = c * chunk + chunk - 1;
		stria_r10_map(&g, s, locs);
		for (k = 0; k < stria_r10_copies(&g); k++) {
			for (j = 0; j < k; j++)
				if (locs[j].member == locs[k].member)
					goto fail_same;
			if (locs[k].member >= n || locs[k].sector >= g.member_sectors ||
			    locs[k].sector % chunk != chunk - 1)
				goto fail_range;
			if (taken[locs[k].sector / chunk * n + locs[k].member]++)
				goto fail_twice;
			if (stria_r10_unmap(&g, &locs[k], &back) || back != s)
				goto fail_back;
			if (stria_r10_copy_at(&g, &locs[k], &back, at) != (int)k ||
			    back != s)
				goto fail_back;
			hits++;
		}
	}
	/* every place no chunk took is md's unused tail */
	for (l.sector = 0; l.sector < g.member_sectors; l.sector += chunk)
		for (l.member = 0; l.member < n; l.member++) {
			if (taken[l.sector / chunk * n + l.member])
				continue;
			ret = stria_r10_unmap(&g, &l, &back);
			if (ret != -ENODATA || stria_r10_copy_at(&g, &l, &back, at) != -1) {
				snprintf(why, whylen, "unused place %u:%" PRIu64 " unmaps to %d/%" PRIu64,
					 l.member, l.sector, ret, back);
				free(taken);
				return 0;
			}
		}
	l.member = n;
	l.sector = 0;
	if (stria_r10_unmap(&g, &l, &back) != -EINVAL) {
		snprintf(why, whylen, "member %u not refused", n);
		free(taken);
		return 0;
	}
	l.member = 0;
	l.sector = g.member_sectors;
	if (stria_r10_unmap(&g, &l, &back) != -EINVAL) {
		snprintf(why, whylen, "sector past the used area not refused");
		free(taken);
		return 0;
	}
	free(taken);
	/* md rounds the used chunks up: fewer than n places are left over */
	if (hits != g.array_sectors / chunk * stria_r10_copies(&g) ||
	    used_chunks * n - hits >= n) {
		snprintf(why, whylen, "%" PRIu64 " of %" PRIu64 " places unused",
			 used_chunks * n - hits, used_chunks * n);
		return 0;
	}
	return 1;
fail_same:
	snprintf(why, whylen, "chunk %" PRIu64 ": two copies on member %u", c,
		 locs[k].member);
	free(taken);
	return 0;
fail_range:
	snprintf(why, whylen, "chunk %" PRIu64 " copy %u at %u:%" PRIu64 " out of range",
		 c, k, locs[k].member, locs[k].sector);
	free(taken);
	return 0;
fail_twice:
	snprintf(why, whylen, "chunk %" PRIu64 " copy %u at %u:%" PRIu64 " taken twice",
		 c, k, locs[k].member, locs[k].sector);
	free(taken);
	return 0;
fail_back:
	snprintf(why, whylen, "chunk %" PRIu64 " copy %u at %u:%" PRIu64 " maps back to %" PRIu64,
		 c, k, locs[k].member, locs[k].sector, back);
	free(taken);
	return 0;
}

static void test_sweep(void)
{
	static const u32 layouts[] = {
		0x102, 0x103, 0x104, 0x201, 0x301, 0x401, 0x10201, 0x10301,
		0x10401,
	};
	static const u64 avail_chunks[] = { 4, 7, 12, 13, 31 };
	u32 li, n, ai, chunk, copies, checked = 0, failed = 0;
	char why[160] = "";

	for (li = 0; li < ARRAY_SIZE(layouts); li++) {
		copies = (layouts[li] & 0xff) * ((layouts[li] >> 8) & 0xff);
		for (n = copies; n <= 11; n++)
			for (ai = 0; ai < ARRAY_SIZE(avail_chunks); ai++)
				for (chunk = 8; chunk <= 16; chunk *= 2) {
					checked++;
					/* plus a partial chunk: it is not used */
					if (sweep_one(layouts[li], n, chunk,
						      avail_chunks[ai] * chunk + 3,
						      why, sizeof(why)))
						continue;
					if (!failed++)
						printf("# layout %#x, %u members, %u-sector chunks, %" PRIu64 " chunks: %s\n",
						       layouts[li], n, chunk,
						       avail_chunks[ai], why);
				}
	}
	tap(!failed && checked > 500,
	    "sweep: %u geometries, every copy on its own member and place, mapped back; %u failed",
	    checked, failed);
}

/* RAID1 is near with a copy per member: every copy at the same sector. */
static void test_raid1(void)
{
	struct stria_r10_geom g;
	struct stria_loc locs[STRIA_R10_MAX_COPIES];
	u64 s;
	u32 n, k;
	int ok = 1;

	for (n = 2; n <= 4; n++) {
		ok = ok && !stria_r10_geom_init(&g, stria_r10_layout(n, 1, false),
					       n, 128, 10000);
		ok = ok && g.array_sectors == 9984 && g.member_sectors == 9984;
		for (s = 0; ok && s < g.array_sectors; s += 37) {
			stria_r10_map(&g, s, locs);
			for (k = 0; k < n; k++)
				ok = ok && locs[k].member == k && locs[k].sector == s;
		}
	}
	tap(ok, "RAID1 (near N over N): every member holds sector S at S, the capacity one member's whole chunks");
}

static void test_rejects(void)
{
	static const struct {
		const char *what;
		u32 layout, n, chunk;
		u64 avail;
	} bad[] = {
		{ "one copy (near 1, far 1)", 0x101, 4, 128, 1 << 20 },
		{ "no near copies", 0x200, 4, 128, 1 << 20 },
		{ "no far copies", 0x002, 4, 128, 1 << 20 },
		{ "more copies than members", 0x103, 2, 128, 1 << 20 },
		{ "near and far copies together (mdadm cannot make them)", 0x202, 4, 128, 1 << 20 },
		{ "near and offset copies together", 0x10202, 4, 128, 1 << 20 },
		{ "the offset bit without far copies (the same as near 2)", 0x10102, 4, 128, 1 << 20 },
		{ "more copies than members (far 3 over 2)", 0x301, 2, 128, 1 << 20 },
		{ "5 copies", 0x105, 8, 128, 1 << 20 },
		{ "md's far sets, version 1", 0x20201, 4, 128, 1 << 20 },
		{ "md's far sets, version 2", 0x40201, 4, 128, 1 << 20 },
		{ "unknown bits", 0x80102, 4, 128, 1 << 20 },
		{ "a chunk that is no power of two", 0x102, 4, 96, 1 << 20 },
		{ "a chunk under 4 KiB", 0x102, 4, 4, 1 << 20 },
		{ "a chunk over 1 MiB", 0x102, 4, 4096, 1 << 20 },
		{ "no whole chunk", 0x102, 4, 128, 127 },
		{ "far 2 without a chunk for each part", 0x201, 2, 128, 128 },
		{ "members over the size limit", 0x102, 4, 128, STRIA_GEOM_MAX_SECTORS / 2 },
		{ "65 members", 0x102, 65, 128, 1 << 20 },
	};
	struct stria_r10_geom g, before;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		memset(&g, 0x5a, sizeof(g));
		before = g;
		tap(stria_r10_geom_init(&g, bad[i].layout, bad[i].n, bad[i].chunk,
					bad[i].avail) == -EINVAL &&
		    !memcmp(&g, &before, sizeof(g)),
		    "refused, geometry untouched: %s", bad[i].what);
	}
	tap(!stria_r10_geom_init(&g, 0x102, 2, 8, 8 * 1ULL) &&
	    g.array_sectors == 8, "the smallest: RAID1 of two one-chunk members");
	tap(!stria_r10_geom_init(&g, 0x102, 64, 2048,
				 STRIA_GEOM_MAX_SECTORS / 64) &&
	    g.array_sectors <= STRIA_GEOM_MAX_SECTORS / 2,
	    "the largest: 64 members at the size limit");
}

/*
 * stria_r10_survives() against every chunk of small arrays: for each
 * layout stria takes over 2 to 8 members and every set of failed members,
 * the array survives exactly when every chunk keeps a live copy; and the
 * examples an admin meets (RAID10 n2 over 4: two failures in different
 * pairs survive, in one pair do not).
 */
static void test_survives(void)
{
	static const u32 layouts[] = { 0x102, 0x103, 0x201, 0x301, 0x10201, 0x10301,
				       0x104 };
	struct stria_loc locs[STRIA_R10_MAX_COPIES];
	struct stria_r10_geom g;
	u32 n, li, k, alive, checked = 0;
	u64 failed, s;
	int ok = 1, want;

	for (n = 2; n <= 8; n++)
		for (li = 0; li < ARRAY_SIZE(layouts); li++) {
			if (stria_r10_geom_init(&g, layouts[li], n, 8, 8 * 24))
				continue;
			for (failed = 0; failed < (1ULL << n); failed++) {
				want = 1;
				for (s = 0; s < g.array_sectors; s += 8) {
					stria_r10_map(&g, s, locs);
					alive = 0;
					for (k = 0; k < stria_r10_copies(&g); k++)
						alive += !(failed >> locs[k].member & 1);
					want = want && alive;
				}
				ok = ok && stria_r10_survives(&g, failed) == want;
				checked++;
			}
		}
	tap(ok, "survives: the same answer as every chunk, over %u layouts and failed sets",
	    checked);
	stria_r10_geom_init(&g, 0x102, 4, 128, 1 << 20);
	tap(stria_r10_survives(&g, 0x5) && stria_r10_survives(&g, 0xa) &&
	    !stria_r10_survives(&g, 0x3) && !stria_r10_survives(&g, 0xc) &&
	    !stria_r10_survives(&g, 0x7) && stria_r10_survives(&g, 0),
	    "RAID10 n2 over 4: members 0+2 or 1+3 may fail, 0+1 or 2+3 not");
	stria_r10_geom_init(&g, 0x103, 3, 128, 1 << 20);
	tap(stria_r10_survives(&g, 0x3) && !stria_r10_survives(&g, 0x7),
	    "RAID1 of 3: any two may fail, not all three");
}

int main(void)
{
	test_drawings();
	test_raid1();
	test_sweep();
	test_rejects();
	test_survives();
	return tap_exit_code();
}
