/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stria stripe geometry: array sector <-> (member, member sector).
 *
 * Pure integer code with no kernel types beyond integers: it builds in the
 * module and in user space (selftests/unit/), and both run the same golden
 * vectors. Sectors are 512 bytes and count from the start of a member's data
 * area (the superblock's data offset is added by the caller).
 *
 * The layout is frozen: a change to any mapping below must come with a new
 * layout version in the superblock and new golden vectors, never silently
 * (md's raid0 changed its multi-zone layout by accident in 3.14).
 *
 * RAID0, layout version 1: chunk c of the array (c = sector / chunk) lives on
 * member c % n at member chunk c / n.
 */
#ifndef _STRIA_GEOM_H
#define _STRIA_GEOM_H

#include "geom_types.h"

#define STRIA_GEOM_MIN_CHUNK_SECTORS	8U	/* 4 KiB */
#define STRIA_GEOM_MAX_CHUNK_SECTORS	2048U	/* 1 MiB */
#define STRIA_GEOM_MAX_MEMBERS		64U

/**
 * struct stria_geom - the shape of an array's data
 * @level: RAID level (0 for now)
 * @nr_members: members holding data
 * @chunk_shift: log2 of the chunk size in sectors
 * @member_sectors: usable data sectors per member, a multiple of the chunk
 */
struct stria_geom {
	u32 level;
	u32 nr_members;
	u32 chunk_shift;
	u64 member_sectors;
};

/**
 * struct stria_loc - a place on one member
 * @member: member index (role) in the array
 * @sector: sector within the member's data area
 */
struct stria_loc {
	u32 member;
	u64 sector;
};

/**
 * stria_geom_init() - validate a geometry and fill @g
 * @g: geometry to fill
 * @level: RAID level
 * @nr_members: member count
 * @chunk_sectors: chunk size in sectors, power of two, 4 KiB to 1 MiB
 * @member_sectors: data sectors available on the smallest member; rounded
 *	down to a whole chunk
 *
 * Return: 0, or -EINVAL with @g untouched when any value is out of range or
 * no whole chunk fits.
 */
static inline int stria_geom_init(struct stria_geom *g, u32 level,
				  u32 nr_members, u32 chunk_sectors,
				  u64 member_sectors)
{
	u32 shift = 0;

	if (level != 0)
		return -EINVAL;
	if (nr_members < 2 || nr_members > STRIA_GEOM_MAX_MEMBERS)
		return -EINVAL;
	if (chunk_sectors < STRIA_GEOM_MIN_CHUNK_SECTORS ||
	    chunk_sectors > STRIA_GEOM_MAX_CHUNK_SECTORS ||
	    (chunk_sectors & (chunk_sectors - 1)))
		return -EINVAL;
	while ((1U << shift) < chunk_sectors)
		shift++;
	member_sectors &= ~((u64)chunk_sectors - 1);
	if (!member_sectors)
		return -EINVAL;

	g->level = level;
	g->nr_members = nr_members;
	g->chunk_shift = shift;
	g->member_sectors = member_sectors;
	return 0;
}

/**
 * stria_geom_array_sectors() - capacity of the array in sectors
 * @g: a geometry filled by stria_geom_init()
 */
static inline u64 stria_geom_array_sectors(const struct stria_geom *g)
{
	return g->member_sectors * g->nr_members;
}

/**
 * stria_raid0_map() - where an array sector lives
 * @g: the geometry
 * @sector: array sector, below stria_geom_array_sectors()
 * @loc: filled with the member and its sector
 */
static inline void stria_raid0_map(const struct stria_geom *g, u64 sector,
				   struct stria_loc *loc)
{
	u64 chunk = sector >> g->chunk_shift;
	u64 offset = sector & ((1ULL << g->chunk_shift) - 1);
	u32 member;
	u64 row = div_u64_rem(chunk, g->nr_members, &member);

	loc->member = member;
	loc->sector = (row << g->chunk_shift) | offset;
}

/**
 * stria_raid0_unmap() - the array sector stored at a member location
 * @g: the geometry
 * @loc: member and sector within its data area
 *
 * Inverse of stria_raid0_map().
 */
static inline u64 stria_raid0_unmap(const struct stria_geom *g,
				    const struct stria_loc *loc)
{
	u64 row = loc->sector >> g->chunk_shift;
	u64 offset = loc->sector & ((1ULL << g->chunk_shift) - 1);

	return ((row * g->nr_members + loc->member) << g->chunk_shift) | offset;
}

/**
 * stria_geom_chunk_sectors_left() - sectors from @sector to its chunk's end
 * @g: the geometry
 * @sector: array sector
 */
static inline u32 stria_geom_chunk_sectors_left(const struct stria_geom *g,
						u64 sector)
{
	u64 mask = (1ULL << g->chunk_shift) - 1;

	return (u32)((mask + 1) - (sector & mask));
}

/**
 * stria_raid0_member_range() - the part of an array range on one member
 * @g: the geometry
 * @sector: first array sector of the range
 * @nr_sectors: length of the range, nonzero; the range ends inside the array
 * @member: the member asked about
 * @member_sector: filled with the first sector of that part on @member
 *
 * On RAID0 the sectors of any array range that live on one member form one
 * contiguous run there (whole chunks in consecutive rows, plus a partial
 * chunk at either end), so a discard or write-zeroes over many chunks
 * becomes one request per member.
 *
 * Return: the length of the run in sectors, 0 when @member holds none of
 * the range.
 */
static inline u64 stria_raid0_member_range(const struct stria_geom *g,
					   u64 sector, u64 nr_sectors,
					   u32 member, u64 *member_sector)
{
	u32 n = g->nr_members, r;
	u64 end = sector + nr_sectors, c, first, last;
	struct stria_loc a, b;

	c = sector >> g->chunk_shift;
	div_u64_rem(c, n, &r);
	first = member == r ? sector :
		(c + (member + n - r) % n) << g->chunk_shift;
	if (first >= end)
		return 0;
	c = (end - 1) >> g->chunk_shift;
	div_u64_rem(c, n, &r);
	last = member == r ? end - 1 :
	       ((c - (r + n - member) % n) << g->chunk_shift) +
	       (1ULL << g->chunk_shift) - 1;
	stria_raid0_map(g, first, &a);
	stria_raid0_map(g, last, &b);
	*member_sector = a.sector;
	return b.sector - a.sector + 1;
}

#endif /* _STRIA_GEOM_H */
