/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stria mirror geometry: RAID10 (and RAID1, its near layout with as many
 * copies as members): an array sector <-> its copies on the members.
 *
 * Pure integer code, as geom.h: it builds in the module and in user space
 * (selftests/unit/test_geom_raid10.c), and the layout is frozen the same
 * way. The placement is md's raid10 (drivers/md/raid10.c,
 * __raid10_find_phys() and raid10_find_virt()), so a stria member and an
 * md member with the same layout word, chunk and member order hold the
 * same bytes at the same offsets, and md is the oracle of the VM tests.
 *
 * The layout word is md's: near copies in bits 0-7, far copies in bits
 * 8-15, bit 16 for the offset layout. md's bits 17-18 (far copies that
 * rotate within sets of members instead of over all of them: version 1
 * lost data, and version 2 maps and unmaps differently where the sets do
 * not divide the members) are refused, and so are near and far copies
 * together and the offset bit without far copies: mdadm creates none of
 * them (its --layout is one of nN, fN or oN), and md's offset layout with
 * near copies too places copies over each other on an odd member count.
 * Copies are 2 to STRIA_R10_MAX_COPIES, and no more than the members.
 *
 * With n members, chunk size C, array chunk c (c = sector / C):
 *
 * - near: c is written near times, in chunk order, into consecutive
 *   member slots of a row-major grid n wide: copy k of c goes to slot
 *   c x near + k, that is member (slot % n), member chunk (slot / n);
 * - far: each member's used area is cut into far parts of stride chunks;
 *   part 0 holds the near layout, and part f the same chunks moved by
 *   f x near members (modulo n), so reading part 0 is RAID0 over every
 *   member;
 * - offset: as far, but the parts are rows: row r of the near layout
 *   becomes member chunks r x far .. r x far + far - 1, the f-th moved by
 *   f x near members.
 *
 * The copies of a chunk are on different members (near x far <= n).
 */
#ifndef _STRIA_GEOM_RAID10_H
#define _STRIA_GEOM_RAID10_H

#include "geom.h"

#define STRIA_R10_NEAR_MASK	0xffU
#define STRIA_R10_FAR_SHIFT	8
#define STRIA_R10_FAR_MASK	0xffU		/* after the shift */
#define STRIA_R10_OFFSET	(1U << 16)
/* the bits of a layout word stria knows */
#define STRIA_R10_LAYOUT_MASK	(STRIA_R10_OFFSET | \
				 STRIA_R10_FAR_MASK << STRIA_R10_FAR_SHIFT | \
				 STRIA_R10_NEAR_MASK)
/* Copies of each chunk at most: 3 is what the tests cover, 4 is cheap. */
#define STRIA_R10_MAX_COPIES	4U

/**
 * stria_r10_layout() - md's RAID10 layout word
 * @near: near copies
 * @far: far copies
 * @offset: the far copies are offset (rows), not far (parts)
 */
static inline u32 stria_r10_layout(u32 near, u32 far, bool offset)
{
	return near | far << STRIA_R10_FAR_SHIFT | (offset ? STRIA_R10_OFFSET : 0);
}

/**
 * stria_r10_layout_valid() - is @layout one stria takes for @nr_members
 * @layout: md's layout word
 * @nr_members: members
 *
 * The layout rules of stria_r10_geom_init(), without a size.
 */
static inline bool stria_r10_layout_valid(u32 layout, u32 nr_members)
{
	u32 near = layout & STRIA_R10_NEAR_MASK;
	u32 far = (layout >> STRIA_R10_FAR_SHIFT) & STRIA_R10_FAR_MASK;

	return near && far && near * far >= 2 && (near == 1 || far == 1) &&
	       near * far <= STRIA_R10_MAX_COPIES && near * far <= nr_members &&
	       nr_members <= STRIA_GEOM_MAX_MEMBERS &&
	       (!(layout & STRIA_R10_OFFSET) || far > 1) &&
	       !(layout & ~STRIA_R10_LAYOUT_MASK);
}

/**
 * stria_r10_copies() - copies of each chunk
 * @g: a geometry filled by stria_r10_geom_init()
 */
static inline u32 stria_r10_copies(const struct stria_r10_geom *g)
{
	return g->near * g->far;
}

/**
 * stria_r10_geom_init() - validate a RAID10 geometry and fill @g
 * @g: geometry to fill
 * @layout: md's layout word (stria_r10_layout())
 * @nr_members: members, 2 to STRIA_GEOM_MAX_MEMBERS
 * @chunk_sectors: chunk size in sectors, power of two, 4 KiB to 1 MiB
 * @avail_sectors: data sectors available on the smallest member
 *
 * The capacity and the sectors used on each member follow md's
 * raid10_size() and calc_sectors(): the members' whole chunks, less a
 * remainder of the far parts, hold each array chunk near x far times.
 *
 * Return: 0, or -EINVAL with @g untouched when the layout is not one
 * stria takes (copies below 2 or above the members or
 * STRIA_R10_MAX_COPIES, near and far copies together, the offset bit
 * without far copies, md's far sets or unknown bits), the chunk is out of
 * range, no whole array chunk fits, or the members together exceed
 * STRIA_GEOM_MAX_SECTORS.
 */
static inline int stria_r10_geom_init(struct stria_r10_geom *g, u32 layout,
				      u32 nr_members, u32 chunk_sectors,
				      u64 avail_sectors)
{
	u32 near = layout & STRIA_R10_NEAR_MASK;
	u32 far = (layout >> STRIA_R10_FAR_SHIFT) & STRIA_R10_FAR_MASK;
	u32 shift = 0, rem;
	u64 chunks, array_chunks, used;

	if (!stria_r10_layout_valid(layout, nr_members))
		return -EINVAL;
	if (chunk_sectors < STRIA_GEOM_MIN_CHUNK_SECTORS ||
	    chunk_sectors > STRIA_GEOM_MAX_CHUNK_SECTORS ||
	    (chunk_sectors & (chunk_sectors - 1)))
		return -EINVAL;
	while ((1U << shift) < chunk_sectors)
		shift++;
	if (avail_sectors > div_u64_rem(STRIA_GEOM_MAX_SECTORS, nr_members,
					&rem))
		return -EINVAL;

	/* raid10_size(): whole chunks, whole far parts, then per copy */
	chunks = avail_sectors >> shift;
	array_chunks = div_u64_rem(div_u64_rem(chunks, far, &rem) * nr_members,
				   near, &rem);
	if (!array_chunks)
		return -EINVAL;
	/* calc_sectors(): the chunks each member then holds, rounded up */
	used = div_u64_rem(array_chunks * near * far + nr_members - 1,
			   nr_members, &rem);

	g->nr_members = nr_members;
	g->near = near;
	g->far = far;
	g->offset = layout & STRIA_R10_OFFSET;
	g->chunk_shift = shift;
	g->member_sectors = used << shift;
	g->stride = g->offset ? 1ULL << shift :
		    div_u64_rem(used, far, &rem) << shift;
	g->array_sectors = array_chunks << shift;
	return 0;
}

/**
 * stria_r10_map() - where the copies of an array sector live
 * @g: the geometry
 * @sector: array sector, below @g->array_sectors
 * @locs: filled with stria_r10_copies() places, in md's order: for each
 *	near copy, it and then its far copies
 *
 * Every copy holds the same data; any one may serve a read, a write goes
 * to all.
 */
static inline void stria_r10_map(const struct stria_r10_geom *g, u64 sector,
				 struct stria_loc *locs)
{
	u64 mask = (1ULL << g->chunk_shift) - 1;
	u64 base, s;
	u32 dev, d, n, f, slot = 0;
	u64 row = div_u64_rem((sector >> g->chunk_shift) * g->near,
			      g->nr_members, &dev);

	if (g->offset)
		row *= g->far;
	base = (row << g->chunk_shift) | (sector & mask);
	for (n = 0; n < g->near; n++) {
		d = dev;
		s = base;
		locs[slot].member = d;
		locs[slot++].sector = s;
		for (f = 1; f < g->far; f++) {
			d = (d + g->near) % g->nr_members;
			s += g->stride;
			locs[slot].member = d;
			locs[slot++].sector = s;
		}
		if (++dev >= g->nr_members) {
			dev = 0;
			base += mask + 1;
		}
	}
}

/**
 * stria_r10_unmap() - the array sector a member location holds a copy of
 * @g: the geometry
 * @loc: member and sector within its used area
 * @sector: filled with the array sector
 *
 * Inverse of stria_r10_map() for every copy (md's raid10_find_virt()):
 * what a rebuild of @loc->member reads from the other copies.
 *
 * Return: 0; -EINVAL when @loc is not on a member's used area; -ENODATA
 * when it is past the last array chunk (the rounded-up tail md leaves).
 */
static inline int stria_r10_unmap(const struct stria_r10_geom *g,
				  const struct stria_loc *loc, u64 *sector)
{
	u32 n = g->nr_members, dev = loc->member, part, rem;
	u64 s = loc->sector, offset = s & ((1ULL << g->chunk_shift) - 1);
	u64 row, vchunk;

	if (dev >= n || s >= g->member_sectors)
		return -EINVAL;
	if (g->offset) {
		/* member chunk row x far + part */
		row = div_u64_rem(s >> g->chunk_shift, g->far, &part);
	} else {
		/*
		 * part = s / stride (the used area is far whole parts: near
		 * is 1 here, so md's rounding leaves a multiple of far)
		 */
		part = 0;
		while (s >= g->stride) {
			s -= g->stride;
			part++;
		}
		row = s >> g->chunk_shift;
	}
	/* undo the part's move of part x near members */
	dev = (dev + n * g->far - part * g->near) % n;
	vchunk = div_u64_rem(row * n + dev, g->near, &rem);
	*sector = (vchunk << g->chunk_shift) | offset;
	return *sector < g->array_sectors ? 0 : -ENODATA;
}

/**
 * stria_r10_copy_at() - which copy a member location holds
 * @g: the geometry
 * @loc: member and sector within its used area
 * @sector: filled with the array sector @loc holds a copy of
 * @locs: filled with that sector's stria_r10_copies() places
 *	(stria_r10_map())
 *
 * The first copy (0) is the one a sync reads and compares the others
 * with; the module's sync and the crash replay's checker (selftests/tools)
 * walk member rows by it.
 *
 * Return: the index of @loc among @locs, or -1 when @loc holds no array
 * sector (stria_r10_unmap() refuses it).
 */
static inline int stria_r10_copy_at(const struct stria_r10_geom *g,
				    const struct stria_loc *loc, u64 *sector,
				    struct stria_loc *locs)
{
	u32 k;

	if (stria_r10_unmap(g, loc, sector))
		return -1;
	stria_r10_map(g, *sector, locs);
	for (k = 0; k < stria_r10_copies(g); k++)
		if (locs[k].member == loc->member &&
		    locs[k].sector == loc->sector)
			return k;
	return -1;
}

/**
 * stria_r10_survives() - does every array chunk keep a copy
 * @g: the geometry
 * @failed: failed members, bit i for member i
 *
 * The copies of chunk c start on member (c x near) mod n and move by the
 * same members in every row (and far part), so the chunks 0 .. n - 1 show
 * every set of members a chunk's copies can be on. md's raid10 "enough()"
 * asks the same of each set of near copies.
 *
 * Return: true when each array chunk has a copy on a member not in
 * @failed: the array can serve every read.
 */
static inline bool stria_r10_survives(const struct stria_r10_geom *g,
				      u64 failed)
{
	struct stria_loc locs[STRIA_R10_MAX_COPIES];
	u64 c, chunks = g->array_sectors >> g->chunk_shift;
	u32 k, alive;

	for (c = 0; c < g->nr_members && c < chunks; c++) {
		stria_r10_map(g, c << g->chunk_shift, locs);
		alive = 0;
		for (k = 0; k < stria_r10_copies(g); k++)
			if (!(failed & (1ULL << locs[k].member)))
				alive++;
		if (!alive)
			return false;
	}
	return true;
}

/**
 * stria_geom_setup() - validate any level's geometry and fill @g
 * @g: geometry to fill
 * @level: RAID level: 0, 1, 5, 6 or 10
 * @layout: as stria_geom_init(); on RAID10 md's layout word; on RAID1 the
 *	near layout with a copy per member (stria_r10_layout(n, 1, false))
 * @nr_members: member count
 * @chunk_sectors: chunk size in sectors
 * @member_sectors: data sectors available on the smallest member
 *
 * RAID0, 5 and 6 are stria_geom_init()'s. RAID1 and RAID10 take md's
 * placement (stria_r10_geom_init()); @g->member_sectors is then what each
 * member uses, and @g->r10 maps.
 *
 * Return: 0, or -EINVAL with @g untouched.
 */
static inline int stria_geom_setup(struct stria_geom *g, u32 level,
				   u32 layout, u32 nr_members,
				   u32 chunk_sectors, u64 member_sectors)
{
	struct stria_r10_geom r;

	if (level != 1 && level != 10)
		return stria_geom_init(g, level, layout, nr_members,
				       chunk_sectors, member_sectors);
	if (level == 1 && layout != stria_r10_layout(nr_members, 1, false))
		return -EINVAL;
	if (stria_r10_geom_init(&r, layout, nr_members, chunk_sectors,
				member_sectors))
		return -EINVAL;
	g->level = level;
	g->layout = layout;
	g->nr_members = nr_members;
	g->chunk_shift = r.chunk_shift;
	g->member_sectors = r.member_sectors;
	g->r10 = r;
	return 0;
}

/**
 * stria_geom_redundant() - does the array keep its data when a member fails
 * @g: the geometry
 */
static inline bool stria_geom_redundant(const struct stria_geom *g)
{
	return stria_geom_mirror(g) || stria_geom_nr_parity(g);
}

/**
 * stria_geom_survives() - can the array serve every read without @failed
 * @g: the geometry
 * @failed: members failed or not in sync, bit i for member i
 *
 * Return: on RAID5/6 whether no more members are missing than there are
 * parity chunks; on RAID1/10 stria_r10_survives(); on RAID0 whether none
 * is.
 */
static inline bool stria_geom_survives(const struct stria_geom *g,
				       u64 failed)
{
	u32 n = 0;

	if (stria_geom_mirror(g))
		return stria_r10_survives(&g->r10, failed);
	for (; failed; failed &= failed - 1)
		n++;
	return n <= stria_geom_nr_parity(g);
}

#endif /* _STRIA_GEOM_RAID10_H */
