/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stria reshape plan: moving an array's data onto more members, in place,
 * forward, at the same data offset.
 *
 * Pure integer code, as geom.h: it builds in the module and in user space,
 * where selftests/unit/test_reshape.c runs it against a model of the
 * members that crashes at every step, and selftests/fuzz/fuzz_reshape.c
 * checks its bounds for any geometry.
 *
 * A row is one chunk on every member (a stripe on RAID5/6). The old layout
 * has Do data chunks per row, the new one Dn > Do (members are added; the
 * parity count stays). Data chunk c lives in old row c / Do and, once
 * moved, in new row c / Dn, at the same member offsets: writing new row r
 * overwrites old row r. The reshape moves new rows in increasing order;
 * the checkpoint W says new rows [0, W) hold their data and are durable,
 * so chunks [0, W x Dn) are read and written in the new layout and the
 * others in the old one.
 *
 * Writing new rows [W, W + w) destroys old rows [W, W + w), which hold
 * chunks [W x Do, (W + w) x Do); they are safe, already in new rows below
 * W, when
 *
 *	(W + w) x Do <= W x Dn,
 *
 * and then the chunks read for the window, [W x Dn, (W + w) x Dn), come
 * from old rows at W + w or above, which the window does not touch. A
 * crash before the checkpoint W + w is recorded loses nothing: the window
 * is moved again from the same sources. The window is w = W x (Dn - Do) /
 * Do rows, so it grows as the reshape goes on.
 *
 * At W = 0 no window is safe. The first K = ceil(Do / (Dn - Do)) rows, the
 * critical rows (after which a window of one row is safe), are moved at
 * once through a backup: the chunks of old rows [0, K) are first copied
 * to the added members' last rows, which the new layout does not reach
 * before the reshape ends, and the superblock says so (the backup flag)
 * before new rows [0, K) are written. A crash then moves the critical rows
 * again from the backup and the old rows above K. The backup needs no file
 * and no spare space on the old members, and the data offset never moves.
 */
#ifndef _STRIA_GEOM_RESHAPE_H
#define _STRIA_GEOM_RESHAPE_H

#include "geom_types.h"

/**
 * struct stria_reshape_plan - the rows of a reshape
 * @from_data: data chunks per row before (Do)
 * @to_data: data chunks per row after (Dn), more than @from_data
 * @added: members added
 * @rows: rows per member, which the old layout fills with data
 * @rows_new: rows the same data takes in the new layout,
 *	ceil(@rows x Do / Dn); the reshape ends when the checkpoint reaches it
 * @critical: rows moved through the backup (K), at most @rows_new
 * @backup_chunks: chunks of the backup on each added member
 * @backup_row: first row of the backup on each added member
 */
struct stria_reshape_plan {
	u32 from_data;
	u32 to_data;
	u32 added;
	u64 rows;
	u64 rows_new;
	u64 critical;
	u64 backup_chunks;
	u64 backup_row;
};

static inline u64 stria_reshape_div_up(u64 a, u32 b)
{
	u32 rem;
	u64 q = div_u64_rem(a, b, &rem);

	return q + (rem ? 1 : 0);
}

/**
 * stria_reshape_plan_init() - plan a reshape from @from_data to @to_data
 * @p: filled with the plan
 * @from_data: data chunks per row now, 1 to 64
 * @to_data: data chunks per row after, more than @from_data, at most 64
 * @added: members added, 1 to @to_data - @from_data (RAID0: equal)
 * @rows: rows per member, below 2^54
 *
 * Return: 0; -EINVAL for values out of range; -ENOSPC when the backup of
 * the critical rows does not fit on the added members above them.
 */
static inline int stria_reshape_plan_init(struct stria_reshape_plan *p,
					  u32 from_data, u32 to_data,
					  u32 added, u64 rows)
{
	u64 rows_new, critical, backup;

	if (!from_data || to_data <= from_data || to_data > 64 ||
	    !added || added > to_data - from_data || !rows ||
	    rows >= (1ULL << 54))
		return -EINVAL;
	rows_new = stria_reshape_div_up(rows * from_data, to_data);
	critical = stria_reshape_div_up(from_data, to_data - from_data);
	if (critical > rows_new)
		critical = rows_new;
	backup = stria_reshape_div_up(critical * from_data, added);
	if (backup > rows - critical)
		return -ENOSPC;
	p->from_data = from_data;
	p->to_data = to_data;
	p->added = added;
	p->rows = rows;
	p->rows_new = rows_new;
	p->critical = critical;
	p->backup_chunks = backup;
	p->backup_row = rows - backup;
	return 0;
}

/**
 * stria_reshape_window_safe() - may new rows [@w0, @w0 + @w) be written
 * @p: the plan
 * @w0: the checkpoint: new rows below it are durable
 * @w: rows in the window
 *
 * Return: true when the old rows the window overwrites hold only chunks
 * already in new rows below @w0.
 */
static inline bool stria_reshape_window_safe(const struct stria_reshape_plan *p,
					     u64 w0, u64 w)
{
	return (w0 + w) * p->from_data <= w0 * p->to_data;
}

/**
 * stria_reshape_window() - rows to move next from checkpoint @w0
 * @p: the plan
 * @w0: the checkpoint, at least @p->critical
 * @max: rows wanted at most (the engine's buffer), at least 1
 *
 * Return: the rows of the next window, at least 1 and at most @max, none
 * past @p->rows_new; 0 when @w0 is below the critical rows (which move
 * through the backup) or the reshape is done.
 */
static inline u64 stria_reshape_window(const struct stria_reshape_plan *p,
				       u64 w0, u64 max)
{
	u32 rem;
	u64 w;

	if (w0 < p->critical || w0 >= p->rows_new || !max)
		return 0;
	w = div_u64_rem(w0 * (p->to_data - p->from_data), p->from_data, &rem);
	if (w > max)
		w = max;
	if (w > p->rows_new - w0)
		w = p->rows_new - w0;
	return w;
}

/**
 * stria_reshape_in_new() - is data chunk @chunk in the new layout
 * @p: the plan
 * @ckpt: the checkpoint
 * @chunk: data chunk number (array sector >> chunk shift)
 */
static inline bool stria_reshape_in_new(const struct stria_reshape_plan *p,
					u64 ckpt, u64 chunk)
{
	return chunk < ckpt * p->to_data;
}

/**
 * stria_reshape_backup_loc() - where the backup keeps data chunk @chunk
 * @p: the plan
 * @chunk: a chunk of the critical rows, below @p->critical x Do
 * @added_index: filled with the added member (0 .. @p->added - 1)
 * @row: filled with its row there
 */
static inline void stria_reshape_backup_loc(const struct stria_reshape_plan *p,
					    u64 chunk, u32 *added_index,
					    u64 *row)
{
	*row = p->backup_row + div_u64_rem(chunk, p->added, added_index);
}

#endif /* _STRIA_GEOM_RESHAPE_H */
