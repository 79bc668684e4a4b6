// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the reshape plan (drivers/stria/geom_reshape.h) for any
 * data chunk counts, added members, rows, checkpoint and window size.
 * Whatever stria_reshape_plan_init() accepts must hold what the reshape
 * engine relies on: the new rows fit in the old ones, the backup lies on
 * the added members above the critical rows and ends at the last row,
 * every chunk of the critical rows has a place in it, and every window is
 * safe, not empty where the reshape is not done, and inside the new rows.
 * The arithmetic must not wrap (the unsigned-overflow sanitizer is on).
 * An invariant that does not hold aborts, as a sanitizer report does.
 *
 * Input (little-endian, zero-padded): u32 from, u32 to, u32 added,
 * u64 rows, u64 checkpoint, u64 max window, u64 chunk.
 *
 * Run by selftests/fuzz/run (make unit).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_input.h"
#include "geom_reshape.h"

struct input {
	u32 from, to, added;
	u64 rows, w0, max, chunk;
};

static void fail(const char *what, const struct input *in)
{
	fprintf(stderr, "invariant broken: %s (from %u, to %u, added %u, rows %llu, checkpoint %llu, max %llu, chunk %llu)\n",
		what, in->from, in->to, in->added, (unsigned long long)in->rows,
		(unsigned long long)in->w0, (unsigned long long)in->max,
		(unsigned long long)in->chunk);
	abort();
}

#define want(cond) do { if (!(cond)) fail(#cond, in); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct stria_reshape_plan p;
	struct input v, *in = &v;
	u64 w, row, k;
	u32 idx;

	v.from = (u32)take(&data, &size, 4);
	v.to = (u32)take(&data, &size, 4);
	v.added = (u32)take(&data, &size, 4);
	v.rows = take(&data, &size, 8);
	v.w0 = take(&data, &size, 8);
	v.max = take(&data, &size, 8);
	v.chunk = take(&data, &size, 8);

	if (stria_reshape_plan_init(&p, v.from, v.to, v.added, v.rows))
		return 0;
	want(p.rows_new <= p.rows && p.rows_new);
	want(p.rows_new * p.to_data >= p.rows * p.from_data);
	want(p.critical <= p.rows_new && p.critical);
	/* after the critical rows, a window of one row is safe */
	want(p.critical == p.rows_new || stria_reshape_window_safe(&p, p.critical, 1));
	want(p.backup_row >= p.critical);
	want(p.backup_row + p.backup_chunks == p.rows);
	want(p.backup_chunks * p.added >= p.critical * p.from_data);

	k = p.critical * p.from_data;
	stria_reshape_backup_loc(&p, v.chunk % k, &idx, &row);
	want(idx < p.added && row >= p.backup_row && row < p.rows);
	stria_reshape_backup_loc(&p, k - 1, &idx, &row);
	want(idx < p.added && row >= p.backup_row && row < p.rows);

	w = stria_reshape_window(&p, v.w0, v.max);
	if (v.w0 < p.critical || v.w0 >= p.rows_new || !v.max) {
		want(w == 0);
		return 0;
	}
	want(w >= 1 && w <= v.max && v.w0 + w <= p.rows_new);
	want(stria_reshape_window_safe(&p, v.w0, w));
	want(!stria_reshape_in_new(&p, v.w0, v.w0 * p.to_data));
	want(stria_reshape_in_new(&p, v.w0, v.w0 * p.to_data - 1));
	return 0;
}
