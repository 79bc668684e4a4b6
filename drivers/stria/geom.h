/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stria stripe geometry: array sector <-> (member, member sector), and where
 * the parity of each stripe lives.
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
 *
 * RAID5 and RAID6: the array is cut into stripes of ndata = n - 1 (RAID5) or
 * n - 2 (RAID6) chunks. Stripe s holds array chunks s * ndata .. s * ndata +
 * ndata - 1 (data indexes 0 .. ndata - 1) and its parity, all at member
 * chunk s of the n members. Which member holds P, Q and each data index is
 * the layout, numbered and placed exactly as md's raid5_compute_sector()
 * does, so a stria member and an md member with the same chunk size and
 * member order hold the same bytes at the same offsets. With r = s % n:
 *
 * - left-asymmetric (0): P on member n - 1 - r; data in member order,
 *   skipping the parity;
 * - right-asymmetric (1): P on member r; data in member order, skipping the
 *   parity;
 * - left-symmetric (2, md's default): P on member n - 1 - r; data index k on
 *   member (P + nparity + k) % n, so the data runs on after the parity;
 * - right-symmetric (3): P on member r; data as in left-symmetric.
 *
 * RAID6 puts Q on member (P + 1) % n; in the asymmetric layouts a stripe
 * with P on the last member has Q on member 0 ("Q D D D P").
 *
 * Q is sum(g^slot * D) over the data chunks, where the slot of a data chunk
 * is md's order of the syndrome sources: walk the members upwards from the
 * one after Q, wrapping, skipping P and Q (md's raid6_d0() and
 * raid6_idx_to_slot()). In the symmetric layouts the slot is the data
 * index; in the asymmetric ones it is the data index rotated, so it must
 * come from stria_raid56_slot(), never be assumed.
 */
#ifndef _STRIA_GEOM_H
#define _STRIA_GEOM_H

#include "geom_types.h"

#define STRIA_GEOM_MIN_CHUNK_SECTORS	8U	/* 4 KiB */
#define STRIA_GEOM_MAX_CHUNK_SECTORS	2048U	/* 1 MiB */
#define STRIA_GEOM_MAX_MEMBERS		64U
/*
 * The most sectors an array may span, all members' data areas together:
 * their size in bytes, and any byte offset into the array or a member's
 * data area, fits a loff_t (2^63 - 1 bytes).
 */
#define STRIA_GEOM_MAX_SECTORS		((1ULL << 54) - 1)

/* RAID5/6 layouts: md's ALGORITHM_* numbers (drivers/md/raid5.h). */
#define STRIA_LAYOUT_LEFT_ASYMMETRIC	0U
#define STRIA_LAYOUT_RIGHT_ASYMMETRIC	1U
#define STRIA_LAYOUT_LEFT_SYMMETRIC	2U	/* md's default */
#define STRIA_LAYOUT_RIGHT_SYMMETRIC	3U

/* Markers in member and data index results. */
#define STRIA_GEOM_NONE		0xffffffffU	/* no such member (Q on RAID5) */
#define STRIA_GEOM_P		0xfffffffeU	/* the member holds P */
#define STRIA_GEOM_Q		0xfffffffdU	/* the member holds Q */

/**
 * struct stria_r10_geom - the shape of a RAID10 (or RAID1) array
 * @nr_members: members, every one holding data
 * @near: near copies
 * @far: far copies
 * @offset: far copies are offset rows, not far parts
 * @chunk_shift: log2 of the chunk size in sectors
 * @member_sectors: sectors used on each member, whole chunks (md's
 *	dev_sectors)
 * @stride: sectors between a copy and the next far one on a member: the
 *	far part's size, or one chunk in the offset layout
 * @array_sectors: the array's capacity
 */
struct stria_r10_geom {
	u32 nr_members;
	u32 near;
	u32 far;
	bool offset;
	u32 chunk_shift;
	u64 member_sectors;
	u64 stride;
	u64 array_sectors;
};

/**
 * struct stria_geom - the shape of an array's data
 * @level: RAID level: 0, 1, 5, 6 or 10
 * @layout: placement of data and parity, STRIA_LAYOUT_* (0 on RAID0); on
 *	RAID1 and RAID10 md's layout word (geom_raid10.h)
 * @nr_members: members in the array, data and parity
 * @chunk_shift: log2 of the chunk size in sectors
 * @member_sectors: usable data sectors per member, a multiple of the chunk
 * @r10: RAID1 and RAID10 only: the mirror geometry (stria_geom_setup())
 */
struct stria_geom {
	u32 level;
	u32 layout;
	u32 nr_members;
	u32 chunk_shift;
	u64 member_sectors;
	struct stria_r10_geom r10;
};

/**
 * stria_geom_mirror() - is this a mirror level (RAID1 or RAID10)
 * @g: the geometry
 */
static inline bool stria_geom_mirror(const struct stria_geom *g)
{
	return g->level == 1 || g->level == 10;
}

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
 * struct stria_stripe - one RAID5/6 stripe and one data chunk in it
 * @stripe: stripe number, which is also the chunk row on every member
 * @p: member holding P
 * @q: member holding Q; STRIA_GEOM_NONE on RAID5
 * @index: data index of the chunk, 0 .. ndata - 1 in array order
 * @slot: the chunk's position among the syndrome sources: Q includes it
 *	times g^@slot, and it goes in ptrs[@slot] for the kernel's
 *	gen_syndrome (compat.h); equal to @index on RAID5
 */
struct stria_stripe {
	u64 stripe;
	u32 p;
	u32 q;
	u32 index;
	u32 slot;
};

/**
 * stria_geom_init() - validate a geometry and fill @g
 * @g: geometry to fill
 * @level: RAID level: 0, 5 or 6
 * @layout: 0 on RAID0; on RAID5 and RAID6 one of STRIA_LAYOUT_*
 * @nr_members: member count: RAID0 at least 2, RAID5 3, RAID6 4; at most
 *	STRIA_GEOM_MAX_MEMBERS
 * @chunk_sectors: chunk size in sectors, power of two, 4 KiB to 1 MiB
 * @member_sectors: data sectors available on the smallest member; rounded
 *	down to a whole chunk
 *
 * Return: 0, or -EINVAL with @g untouched when any value is out of range,
 * no whole chunk fits, or the members' data areas together exceed
 * STRIA_GEOM_MAX_SECTORS (so no size or offset of the array overflows).
 */
static inline int stria_geom_init(struct stria_geom *g, u32 level, u32 layout,
				  u32 nr_members, u32 chunk_sectors,
				  u64 member_sectors)
{
	u32 shift = 0, min_members, rem;

	switch (level) {
	case 0:
		if (layout != 0)
			return -EINVAL;
		min_members = 2;
		break;
	case 5:
	case 6:
		if (layout > STRIA_LAYOUT_RIGHT_SYMMETRIC)
			return -EINVAL;
		min_members = level == 5 ? 3 : 4;
		break;
	default:
		return -EINVAL;
	}
	if (nr_members < min_members || nr_members > STRIA_GEOM_MAX_MEMBERS)
		return -EINVAL;
	if (chunk_sectors < STRIA_GEOM_MIN_CHUNK_SECTORS ||
	    chunk_sectors > STRIA_GEOM_MAX_CHUNK_SECTORS ||
	    (chunk_sectors & (chunk_sectors - 1)))
		return -EINVAL;
	while ((1U << shift) < chunk_sectors)
		shift++;
	member_sectors &= ~((u64)chunk_sectors - 1);
	if (!member_sectors ||
	    member_sectors > div_u64_rem(STRIA_GEOM_MAX_SECTORS, nr_members,
					 &rem))
		return -EINVAL;

	g->level = level;
	g->layout = layout;
	g->nr_members = nr_members;
	g->chunk_shift = shift;
	g->member_sectors = member_sectors;
	g->r10 = (struct stria_r10_geom){ 0 };
	return 0;
}

/**
 * stria_geom_nr_parity() - parity chunks per stripe: 0, 1 or 2
 * @g: a geometry filled by stria_geom_init()
 */
static inline u32 stria_geom_nr_parity(const struct stria_geom *g)
{
	return g->level == 6 ? 2 : g->level == 5 ? 1 : 0;
}

/**
 * stria_geom_nr_data() - data chunks per stripe (per row on RAID0)
 * @g: a geometry filled by stria_geom_init()
 */
static inline u32 stria_geom_nr_data(const struct stria_geom *g)
{
	return g->nr_members - stria_geom_nr_parity(g);
}

/**
 * stria_geom_stripe_sectors() - array sectors in one stripe (one row)
 * @g: a geometry filled by stria_geom_init()
 *
 * The data of a full stripe: chunk size times stria_geom_nr_data(). A write
 * of whole, aligned stripes needs no reads to compute the parity.
 */
static inline u32 stria_geom_stripe_sectors(const struct stria_geom *g)
{
	return stria_geom_nr_data(g) << g->chunk_shift;
}

/**
 * stria_geom_array_sectors() - capacity of the array in sectors
 * @g: a geometry filled by stria_geom_init()
 */
static inline u64 stria_geom_array_sectors(const struct stria_geom *g)
{
	if (stria_geom_mirror(g))
		return g->r10.array_sectors;
	return g->member_sectors * stria_geom_nr_data(g);
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

/* Layouts 2 and 3 continue the data after the parity, 0 and 1 restart it. */
static inline bool stria_layout_symmetric(u32 layout)
{
	return layout == STRIA_LAYOUT_LEFT_SYMMETRIC ||
	       layout == STRIA_LAYOUT_RIGHT_SYMMETRIC;
}

/**
 * stria_raid56_parity_members() - where the parity of a stripe lives
 * @g: a RAID5 or RAID6 geometry
 * @stripe: stripe number
 * @p: filled with the member holding P
 * @q: filled with the member holding Q; STRIA_GEOM_NONE on RAID5
 */
static inline void stria_raid56_parity_members(const struct stria_geom *g,
					       u64 stripe, u32 *p, u32 *q)
{
	u32 n = g->nr_members, r;

	div_u64_rem(stripe, n, &r);
	if (g->layout == STRIA_LAYOUT_LEFT_ASYMMETRIC ||
	    g->layout == STRIA_LAYOUT_LEFT_SYMMETRIC)
		*p = n - 1 - r;
	else
		*p = r;
	*q = g->level == 6 ? (*p + 1) % n : STRIA_GEOM_NONE;
}

/**
 * stria_raid56_data_member() - the member holding one data chunk of a stripe
 * @g: a RAID5 or RAID6 geometry
 * @stripe: stripe number
 * @index: data index in the stripe, below stria_geom_nr_data()
 *
 * Return: the member; its chunk @stripe holds the data.
 */
static inline u32 stria_raid56_data_member(const struct stria_geom *g,
					   u64 stripe, u32 index)
{
	u32 n = g->nr_members, np = stria_geom_nr_parity(g), p, q;

	stria_raid56_parity_members(g, stripe, &p, &q);
	if (stria_layout_symmetric(g->layout))
		return (p + np + index) % n;
	if (p + np > n)		/* RAID6, P last and Q first: Q D .. D P */
		return index + 1;
	return index < p ? index : index + np;
}

/**
 * stria_raid56_member_index() - what one member holds in a stripe
 * @g: a RAID5 or RAID6 geometry
 * @stripe: stripe number
 * @member: member, below the member count
 *
 * Inverse of stria_raid56_data_member().
 *
 * Return: the data index held by @member, or STRIA_GEOM_P or STRIA_GEOM_Q
 * when it holds that parity.
 */
static inline u32 stria_raid56_member_index(const struct stria_geom *g,
					    u64 stripe, u32 member)
{
	u32 n = g->nr_members, np = stria_geom_nr_parity(g), p, q;

	stria_raid56_parity_members(g, stripe, &p, &q);
	if (member == p)
		return STRIA_GEOM_P;
	if (member == q)
		return STRIA_GEOM_Q;
	if (stria_layout_symmetric(g->layout))
		return (member + 2 * n - p - np) % n;
	if (p + np > n)
		return member - 1;
	return member < p ? member : member - np;
}

/**
 * stria_raid56_slot() - position of a data chunk among the syndrome sources
 * @g: a RAID5 or RAID6 geometry
 * @stripe: stripe number
 * @index: data index in the stripe, below stria_geom_nr_data()
 *
 * On RAID6, Q = sum(g^slot * D[slot]) in GF(2^8), in md's order: the data
 * members counted upwards from the member after Q, wrapping. A stria member
 * and an md member only hold the same Q when the data goes into the
 * syndrome in this order (ptrs[slot] of the kernel's gen_syndrome). The
 * order does not matter to P; on RAID5 the slot is the data index.
 *
 * Return: the slot, below stria_geom_nr_data().
 */
static inline u32 stria_raid56_slot(const struct stria_geom *g, u64 stripe,
				    u32 index)
{
	u32 n = g->nr_members, p, q;

	if (g->level != 6)
		return index;
	stria_raid56_parity_members(g, stripe, &p, &q);
	/* P and Q are the last two members of the walk from q + 1. */
	return (stria_raid56_data_member(g, stripe, index) + n - q - 1) % n;
}

/**
 * stria_raid56_map() - where an array sector of a RAID5/6 array lives
 * @g: a RAID5 or RAID6 geometry
 * @sector: array sector, below stria_geom_array_sectors()
 * @loc: filled with the data's member and its sector there
 * @st: filled with the stripe: number, parity members, the chunk's data
 *	index and syndrome slot
 *
 * The parity of @sector is on members @st->p and @st->q at the same member
 * sector as the data, @loc->sector.
 */
static inline void stria_raid56_map(const struct stria_geom *g, u64 sector,
				    struct stria_loc *loc,
				    struct stria_stripe *st)
{
	u64 chunk = sector >> g->chunk_shift;
	u64 offset = sector & ((1ULL << g->chunk_shift) - 1);
	u32 index;
	u64 stripe = div_u64_rem(chunk, stria_geom_nr_data(g), &index);

	st->stripe = stripe;
	st->index = index;
	stria_raid56_parity_members(g, stripe, &st->p, &st->q);
	st->slot = stria_raid56_slot(g, stripe, index);
	loc->member = stria_raid56_data_member(g, stripe, index);
	loc->sector = (stripe << g->chunk_shift) | offset;
}

/**
 * stria_raid56_unmap() - the array sector stored at a member location
 * @g: a RAID5 or RAID6 geometry
 * @loc: member and sector within its data area
 * @sector: filled with the array sector when @loc holds data
 *
 * Inverse of stria_raid56_map().
 *
 * Return: 0; -ENODATA when @loc holds parity; -EINVAL when @loc->member is
 * not a member.
 */
static inline int stria_raid56_unmap(const struct stria_geom *g,
				     const struct stria_loc *loc, u64 *sector)
{
	u64 stripe = loc->sector >> g->chunk_shift;
	u64 offset = loc->sector & ((1ULL << g->chunk_shift) - 1);
	u32 index;

	if (loc->member >= g->nr_members)
		return -EINVAL;
	index = stria_raid56_member_index(g, stripe, loc->member);
	if (index == STRIA_GEOM_P || index == STRIA_GEOM_Q)
		return -ENODATA;
	*sector = ((stripe * stria_geom_nr_data(g) + index) <<
		   g->chunk_shift) | offset;
	return 0;
}

#endif /* _STRIA_GEOM_H */
