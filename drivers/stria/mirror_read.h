/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stria mirror reads: which copy of a chunk a read goes to.
 *
 * Pure code, as geom.h: it builds in the module and in user space
 * (selftests/unit/test_mirror_read.c), and under KUnit.
 *
 * md's read_balance() looks at every copy's pending I/O, a view of the
 * whole array that every CPU reads and writes. Here each CPU decides from
 * what it alone has sent: its own reads in flight per member and where its
 * last read on each member ended, kept per CPU by the caller, so no
 * counter is shared between CPUs. In order:
 *
 * 1. while the copies may differ (a resync is owed for the region), the
 *    first usable copy, so that a reader sees the same data each time;
 * 2. the copy where this CPU's last read ended at this sector: a
 *    sequential stream stays on one drive (its read-ahead, one queue);
 * 3. among the copies on the reader's NUMA node if there are any,
 *    otherwise among all, the one with the fewest reads in flight from
 *    this CPU;
 * 4. a tie goes to the tied copies in turn by chunk, so a single task
 *    reading at random spreads over every copy.
 */
#ifndef _STRIA_MIRROR_READ_H
#define _STRIA_MIRROR_READ_H

#include "geom_types.h"

/* no NUMA node known (the kernel's NUMA_NO_NODE) */
#define STRIA_NO_NODE	(-1)

/**
 * struct stria_mirror_copy - one copy of a chunk, as a reading CPU sees it
 * @usable: the member is in the array, not failed, and holds this chunk
 *	(not a rebuild target below its checkpoint)
 * @node: NUMA node of the member's device, or STRIA_NO_NODE
 * @inflight: reads this CPU has in flight to the member
 * @last_end: member sector after this CPU's last read of the member;
 *	U64_MAX before the first
 * @sector: member sector of this copy of the chunk being read
 */
struct stria_mirror_copy {
	bool usable;
	int node;
	u32 inflight;
	u64 last_end;
	u64 sector;
};

/**
 * stria_mirror_choose() - the copy a read goes to
 * @c: the chunk's copies
 * @n: number of copies
 * @node: the reading CPU's NUMA node, or STRIA_NO_NODE
 * @chunk: the array chunk read (turns ties)
 * @resync_owed: the copies of this region may differ
 *
 * Return: index in @c of the copy to read, or -1 when none is usable.
 */
static inline int stria_mirror_choose(const struct stria_mirror_copy *c,
				      u32 n, int node, u64 chunk,
				      bool resync_owed)
{
	u32 i, nties = 0, pick, rem, best = ~0U;
	bool local = false;

	for (i = 0; i < n; i++) {
		if (!c[i].usable)
			continue;
		if (resync_owed)
			return i;
		if (c[i].last_end == c[i].sector)
			return i;
		if (node != STRIA_NO_NODE && c[i].node == node)
			local = true;
	}
	for (i = 0; i < n; i++) {
		if (!c[i].usable || (local && c[i].node != node))
			continue;
		if (c[i].inflight < best) {
			best = c[i].inflight;
			nties = 0;
		}
		if (c[i].inflight == best)
			nties++;
	}
	if (!nties)
		return -1;
	div_u64_rem(chunk, nties, &rem);
	pick = rem;
	for (i = 0; i < n; i++) {
		if (!c[i].usable || (local && c[i].node != node) ||
		    c[i].inflight != best)
			continue;
		if (!pick--)
			return i;
	}
	return -1;
}

/**
 * stria_mirror_vote() - the copy a scrub repair writes over the others
 * @same: @same[i * @n + j] is true when copies i and j hold the same data
 *	(read for i < j only)
 * @usable: which copies were read
 * @n: number of copies
 * @majority: set when more than half of the copies read agree (all of
 *	them, too: then there is nothing to repair)
 *
 * When more than half of the copies read hold the same data (two of
 * three), that data wins. Otherwise (two copies that differ, or two
 * against two) nothing says which is right, and the first copy read wins,
 * as in md, which writes the first copy it read over the others.
 *
 * Return: the index of a copy holding the winning data, -1 when no copy
 * was read.
 */
static inline int stria_mirror_vote(const bool *same, const bool *usable,
				    u32 n, bool *majority)
{
	u32 i, j, votes, read = 0;
	int first = -1;

	*majority = false;
	for (i = 0; i < n; i++) {
		if (!usable[i])
			continue;
		read++;
		if (first < 0)
			first = i;
	}
	for (i = 0; i < n; i++) {
		if (!usable[i])
			continue;
		votes = 1;
		for (j = 0; j < n; j++)
			if (j != i && usable[j] &&
			    (i < j ? same[i * n + j] : same[j * n + i]))
				votes++;
		if (votes * 2 > read) {
			*majority = true;
			return i;
		}
	}
	return first;
}

#endif /* _STRIA_MIRROR_READ_H */
