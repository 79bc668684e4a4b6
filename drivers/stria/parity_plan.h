/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stria parity planning: how a write to part of a RAID5/6 stripe gets its
 * new parity, and what it must read first. Pure integer code, built in the
 * module and in user space like geom.h.
 *
 * Parity is computed column by column: sector x of P (and Q) depends only on
 * sector x of the stripe's data chunks. So a stripe's write is cut into
 * column segments, runs of sectors within the chunk where the same data
 * chunks are written (stria_parity_plan()). Columns nobody writes keep their
 * parity and are left alone. In a segment each data chunk is either written
 * over the whole segment or not at all, and there are three ways to get the
 * new parity:
 *
 * - full: every data chunk is written; parity from the new data, no reads;
 * - read-modify-write (RMW): read the old data of the written chunks and the
 *   old P (and Q); P ^= old ^ new, Q ^= g^slot * (old ^ new). Costs one
 *   read per written chunk plus one per parity. On RAID6 it needs the
 *   kernel's xor_syndrome, which an implementation may lack (compat.h);
 * - reconstruct-write (RCW): read the data chunks not written and compute
 *   the parity from all the data. Costs one read per unwritten chunk.
 *
 * The cheaper method is chosen, counting member reads, which all have the
 * segment's length; on a tie RCW wins: it does not read the parity it is
 * about to overwrite and gives the same result whatever the old parity held.
 * md decides the same way per 4 KiB page of a stripe.
 *
 * One contiguous write covers at most STRIA_PARITY_ROW_SEGS segments of a
 * stripe: the first chunk from some sector to its end, whole chunks, and the
 * last chunk from its start to some sector.
 */
#ifndef _STRIA_PARITY_PLAN_H
#define _STRIA_PARITY_PLAN_H

#include "geom.h"

/* Segments of one stripe covered by one contiguous write, at most. */
#define STRIA_PARITY_ROW_SEGS	3U

/**
 * enum stria_parity_method - how a segment's new parity is computed
 * @STRIA_PARITY_FULL: from the new data alone; every data chunk is written
 * @STRIA_PARITY_RMW: old parity updated with old and new data of the written
 *	chunks (read-modify-write)
 * @STRIA_PARITY_RCW: from the new data and the old data of the chunks not
 *	written (reconstruct-write)
 * @STRIA_PARITY_DEGRADED_WRITE: a member has failed: its old data is rebuilt
 *	when the write does not replace it, then the parity comes from all the
 *	data; never chosen by stria_parity_plan()
 * @STRIA_PARITY_DEGRADED_READ: not a write: a chunk of a failed member is
 *	rebuilt from the others
 * @STRIA_PARITY_SYNC: not a write: background rebuild, scrub or resync of a
 *	whole slice of a stripe
 * @STRIA_PARITY_METHODS: the number of methods
 */
enum stria_parity_method {
	STRIA_PARITY_FULL,
	STRIA_PARITY_RMW,
	STRIA_PARITY_RCW,
	STRIA_PARITY_DEGRADED_WRITE,
	STRIA_PARITY_DEGRADED_READ,
	STRIA_PARITY_SYNC,
	STRIA_PARITY_METHODS
};

/**
 * struct stria_range - sectors [@start, @end) within one chunk
 * @start: first sector, from the start of the chunk
 * @end: sector after the last; @start == @end when nothing is written
 */
struct stria_range {
	u32 start;
	u32 end;
};

/**
 * struct stria_parity_seg - columns of a stripe whose parity is computed
 *	one way
 * @start: first sector of the segment within the chunk; the same sectors of
 *	every member of the stripe
 * @end: sector after the last
 * @written: data indexes written over the whole segment, bit i for index i
 * @read: data indexes whose old data must be read first, bit i for index i:
 *	the written ones under RMW, the others under RCW, none under FULL
 * @method: how the parity is computed
 * @reads: member reads needed, each of @end - @start sectors: the chunks in
 *	@read, plus P (and Q) under RMW
 */
struct stria_parity_seg {
	u32 start;
	u32 end;
	u64 written;
	u64 read;
	enum stria_parity_method method;
	u32 reads;
};

/**
 * stria_parity_reads() - member reads a method needs for one segment
 * @nr_data: data chunks per stripe
 * @nr_parity: parity chunks per stripe, 1 (RAID5) or 2 (RAID6)
 * @nr_written: data chunks written over the segment, 1 .. @nr_data
 * @method: the method asked about
 *
 * Return: the number of member reads, each as long as the segment.
 */
static inline u32 stria_parity_reads(u32 nr_data, u32 nr_parity,
				     u32 nr_written,
				     enum stria_parity_method method)
{
	switch (method) {
	case STRIA_PARITY_RMW:
		return nr_written + nr_parity;
	case STRIA_PARITY_RCW:
		return nr_data - nr_written;
	default:
		return 0;
	}
}

/**
 * stria_parity_choose() - the cheapest way to a segment's new parity
 * @nr_data: data chunks per stripe
 * @nr_parity: parity chunks per stripe, 1 (RAID5) or 2 (RAID6)
 * @nr_written: data chunks written over the segment, 1 .. @nr_data
 * @rmw_ok: read-modify-write is possible (on RAID6: xor_syndrome exists)
 *
 * Return: FULL when every data chunk is written, else RMW when it is allowed
 * and needs fewer reads than RCW, else RCW.
 */
static inline enum stria_parity_method
stria_parity_choose(u32 nr_data, u32 nr_parity, u32 nr_written, bool rmw_ok)
{
	if (nr_written >= nr_data)
		return STRIA_PARITY_FULL;
	if (rmw_ok && nr_written + nr_parity < nr_data - nr_written)
		return STRIA_PARITY_RMW;
	return STRIA_PARITY_RCW;
}

/**
 * stria_parity_plan() - cut one stripe's write into segments and plan each
 * @nr_data: data chunks per stripe, at most 63
 * @nr_parity: parity chunks per stripe, 1 (RAID5) or 2 (RAID6)
 * @rmw_ok: read-modify-write is possible (on RAID6: xor_syndrome exists)
 * @written: @nr_data ranges, the sectors written in each data chunk, by
 *	data index; an empty range for a chunk not written
 * @segs: filled with the segments in column order
 * @max_segs: room in @segs
 *
 * Every column written in at least one chunk is in exactly one segment;
 * columns nobody writes are in none. Segments follow each other in column
 * order and are never empty. A contiguous write gives at most
 * STRIA_PARITY_ROW_SEGS; any set of ranges at most 2 * @nr_data - 1.
 *
 * Return: the number of segments; when it exceeds @max_segs only the first
 * @max_segs were filled.
 */
static inline u32 stria_parity_plan(u32 nr_data, u32 nr_parity, bool rmw_ok,
				    const struct stria_range *written,
				    struct stria_parity_seg *segs,
				    u32 max_segs)
{
	u32 pos = ~0U, next, i, nw, count = 0;
	struct stria_parity_seg *sg;
	u64 mask;

	for (i = 0; i < nr_data; i++)
		if (written[i].start < written[i].end && written[i].start < pos)
			pos = written[i].start;
	while (pos != ~0U) {
		/* the next column where a range starts or ends */
		next = ~0U;
		for (i = 0; i < nr_data; i++) {
			if (written[i].start >= written[i].end)
				continue;
			if (written[i].start > pos && written[i].start < next)
				next = written[i].start;
			if (written[i].end > pos && written[i].end < next)
				next = written[i].end;
		}
		if (next == ~0U)
			break;
		/* no range starts or ends inside [pos, next) */
		mask = 0;
		nw = 0;
		for (i = 0; i < nr_data; i++) {
			if (written[i].start <= pos && written[i].end >= next) {
				mask |= 1ULL << i;
				nw++;
			}
		}
		if (nw && count < max_segs) {
			sg = &segs[count];
			sg->start = pos;
			sg->end = next;
			sg->written = mask;
			sg->method = stria_parity_choose(nr_data, nr_parity, nw,
							 rmw_ok);
			sg->reads = stria_parity_reads(nr_data, nr_parity, nw,
						       sg->method);
			if (sg->method == STRIA_PARITY_RMW)
				sg->read = mask;
			else if (sg->method == STRIA_PARITY_RCW)
				sg->read = ((1ULL << nr_data) - 1) & ~mask;
			else
				sg->read = 0;
		}
		if (nw)
			count++;
		pos = next;
	}
	return count;
}

/**
 * stria_range_union() - two ranges of one chunk as one
 * @a: a range, possibly empty
 * @b: a range, possibly empty, that touches or overlaps @a when both are
 *	not empty
 *
 * Return: the smallest range holding both.
 */
static inline struct stria_range stria_range_union(const struct stria_range *a,
						   const struct stria_range *b)
{
	struct stria_range u;

	if (a->start >= a->end)
		return *b;
	if (b->start >= b->end)
		return *a;
	u.start = a->start < b->start ? a->start : b->start;
	u.end = a->end > b->end ? a->end : b->end;
	return u;
}

/**
 * stria_parity_mergeable() - may two writes of a stripe slice be one?
 * @nr_data: data chunks per stripe
 * @a: @nr_data ranges, by data index: the columns one write covers
 * @b: the same for the other write
 * @lo: first column of the slice
 * @hi: column after the slice's last
 *
 * The union must be what one contiguous write of the slice would write:
 * in every data chunk the two ranges touch or overlap (the union stays one
 * interval), and the chunks written follow each other, all but the first
 * from @lo, all but the last to @hi. Then stria_parity_plan() of the union
 * has at most STRIA_PARITY_ROW_SEGS segments, as a request's.
 *
 * Return: true when the writes may be merged.
 */
static inline bool stria_parity_mergeable(u32 nr_data,
					  const struct stria_range *a,
					  const struct stria_range *b,
					  u32 lo, u32 hi)
{
	struct stria_range u, prev = { 0, 0 };
	bool any = false;
	u32 i, last = 0;

	for (i = 0; i < nr_data; i++) {
		if (a[i].start < a[i].end && b[i].start < b[i].end &&
		    (b[i].start > a[i].end || a[i].start > b[i].end))
			return false;
		u = stria_range_union(&a[i], &b[i]);
		if (u.start >= u.end)
			continue;
		if (any && (last + 1 != i || u.start != lo || prev.end != hi))
			return false;
		any = true;
		last = i;
		prev = u;
	}
	return any;
}

/**
 * stria_raid56_row_ranges() - what a write puts in each chunk of a stripe
 * @g: a RAID5 or RAID6 geometry
 * @sector: first array sector of the write
 * @nr_sectors: length of the write
 * @stripe: the stripe asked about
 * @written: filled with stria_geom_nr_data(@g) ranges, by data index: the
 *	sectors of that chunk the write covers, empty when none
 *
 * The input of stria_parity_plan() for one stripe of a contiguous write.
 */
static inline void stria_raid56_row_ranges(const struct stria_geom *g,
					   u64 sector, u64 nr_sectors,
					   u64 stripe,
					   struct stria_range *written)
{
	u32 nd = stria_geom_nr_data(g), i;
	u64 chunk = 1ULL << g->chunk_shift;
	u64 first = stripe * stria_geom_stripe_sectors(g);
	u64 end = sector + nr_sectors, lo, hi;

	for (i = 0; i < nd; i++, first += chunk) {
		lo = sector > first ? sector - first : 0;
		hi = end > first ? end - first : 0;
		if (hi > chunk)
			hi = chunk;
		if (lo >= hi)
			lo = hi = 0;
		written[i].start = (u32)lo;
		written[i].end = (u32)hi;
	}
}

#endif /* _STRIA_PARITY_PLAN_H */
