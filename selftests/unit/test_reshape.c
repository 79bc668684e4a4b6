// SPDX-License-Identifier: GPL-2.0
/*
 * User-space run of the reshape plan (drivers/stria/geom_reshape.h) against
 * a model of the members that loses power at every step.
 *
 * The model has the members' rows (one value per chunk), a write cache per
 * member (a flush makes it durable; a power loss keeps any subset of what
 * it holds, in order) and a superblock per member written with FUA. The
 * reshape runs the protocol the plan describes: the critical rows through
 * the backup, then windows, each followed by a flush and a checkpoint on
 * every member's superblock; between steps, writes from "users" go to the
 * old or new layout by position and are acknowledged after a flush.
 *
 * For RAID0, RAID5 and RAID6 the power is cut at every step of the
 * protocol (and at random points again during the recovery) with several
 * random subsets of the cache kept; the recovery takes the newest
 * superblock, moves the critical rows again from the backup if its flag
 * is set, resyncs the rows a user write was torn in, and finishes the
 * reshape. Then every chunk must hold its last acknowledged value (or,
 * for the write under way, the one before), and every new row its parity.
 *
 * The protocol's own mistakes must be caught: each mutant below (a window
 * one row too wide, no flush before the checkpoint, no backup, ...) must
 * lose data at some cut point, or this test fails.
 * TAP output on stdout.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "geom.h"
#include "geom_reshape.h"
#include "tap.h"

#define MAXM	12
#define MAXR	40
#define MAXC	512	/* pending writes */
#define GARBAGE	0x5a5a5a5a5a5a5a5aULL

enum mutant {
	M_NONE,
	M_WIDE_WINDOW,		/* one row more than the plan allows */
	M_NO_FLUSH,		/* checkpoint without flushing the window */
	M_NO_BACKUP,		/* the critical rows moved as a window */
	M_CKPT_FIRST,		/* checkpoint before the window is written */
	M_IGNORE_BACKUP,	/* recovery does not look at the backup flag */
	M_BACKUP_UNFLUSHED,	/* backup flag set before the backup is durable */
	M_NR
};

static const char *const mutant_name[M_NR] = {
	"none", "window one row too wide", "no flush before the checkpoint",
	"no backup of the critical rows", "checkpoint before the window",
	"recovery ignores the backup flag", "backup flag before the backup is durable",
};

struct sb {
	u64 events;
	u64 ckpt;
	int backup;
};

struct pend {
	u32 m;
	u32 row;
	u64 val;
};

static struct model {
	u64 disk[MAXM][MAXR];
	struct sb sb[MAXM];
	struct pend cache[MAXC];
	u32 ncache;
	long ops, cut;		/* the power goes at op number cut (-1: never) */
	int dead;
	u64 seed;
} M;

/* what the test expects of each data chunk */
static u64 expect[MAXR * MAXM], maybe[MAXR * MAXM];
static int torn_row_valid;
static u64 torn_row;		/* the new-layout row of a torn user write */

static u64 rnd(void)
{
	M.seed ^= M.seed << 13;
	M.seed ^= M.seed >> 7;
	M.seed ^= M.seed << 17;
	return M.seed;
}

static int op(void)
{
	if (M.dead)
		return 0;
	if (M.ops++ == M.cut) {
		u32 i;

		/* the power goes: any subset of the cache reaches the media */
		for (i = 0; i < M.ncache; i++)
			if (rnd() & 1)
				M.disk[M.cache[i].m][M.cache[i].row] = M.cache[i].val;
		M.ncache = 0;
		M.dead = 1;
		return 0;
	}
	return 1;
}

static void mwrite(u32 m, u64 row, u64 val)
{
	if (!op())
		return;
	if (M.ncache == MAXC) {
		fprintf(stderr, "model cache full\n");
		exit(2);
	}
	M.cache[M.ncache++] = (struct pend){ m, (u32)row, val };
}

static u64 mread(u32 m, u64 row)
{
	u64 v = M.disk[m][row];
	u32 i;

	for (i = 0; i < M.ncache; i++)
		if (M.cache[i].m == m && M.cache[i].row == row)
			v = M.cache[i].val;
	return v;
}

static void mflush(void)
{
	u32 i;

	if (!op())
		return;
	for (i = 0; i < M.ncache; i++)
		M.disk[M.cache[i].m][M.cache[i].row] = M.cache[i].val;
	M.ncache = 0;
}

struct shape {
	u32 level, n_old, n_new, rows;
};

struct run {
	struct shape s;
	struct stria_geom go, gn;
	struct stria_reshape_plan p;
	enum mutant mut;
	u64 ckpt;		/* in memory: routing */
	u64 events;
	u64 version;
};

static void map(const struct stria_geom *g, u64 chunk, u32 *m, u64 *row,
		u32 *pm, u32 *qm)
{
	struct stria_loc loc;
	struct stria_stripe st;

	if (g->level == 0) {
		stria_raid0_map(g, chunk << g->chunk_shift, &loc);
		*pm = *qm = STRIA_GEOM_NONE;
	} else {
		stria_raid56_map(g, chunk << g->chunk_shift, &loc, &st);
		*pm = st.p;
		*qm = st.q;
	}
	*m = loc.member;
	*row = loc.sector >> g->chunk_shift;
}

static u64 q_mix(u64 v, u32 index)
{
	return (v << (index % 61 + 1)) | (v >> (63 - index % 61));
}

/* P and Q of a row of @g, from what the members hold (cache included) */
static void row_parity(const struct stria_geom *g, u64 row, u64 *p, u64 *q,
		       u32 *pm, u32 *qm)
{
	u32 nd = stria_geom_nr_data(g), i, m;
	u64 r;

	*p = *q = 0;
	for (i = 0; i < nd; i++) {
		u64 v;

		map(g, row * nd + i, &m, &r, pm, qm);
		v = mread(m, r);
		*p ^= v;
		*q ^= q_mix(v, i);
	}
}

static void write_parity(const struct stria_geom *g, u64 row)
{
	u64 p, q;
	u32 pm, qm;

	if (!g->level)
		return;
	row_parity(g, row, &p, &q, &pm, &qm);
	mwrite(pm, row, p);
	if (qm != STRIA_GEOM_NONE)
		mwrite(qm, row, q);
}

static void write_sbs(struct run *r, u64 ckpt, int backup)
{
	u32 m;

	r->events++;
	for (m = 0; m < r->s.n_new; m++)
		if (op())
			M.sb[m] = (struct sb){ r->events, ckpt, backup };
}

static u64 old_chunk(struct run *r, u64 c)
{
	u32 m, pm, qm;
	u64 row;

	map(&r->go, c, &m, &row, &pm, &qm);
	return mread(m, row);
}

/* write new rows [w0, w0 + w) from @src (chunk values) */
static void write_new_rows(struct run *r, u64 w0, u64 w, const u64 *src)
{
	u32 nd = r->p.to_data, m, pm, qm;
	u64 c, row;

	for (c = w0 * nd; c < (w0 + w) * nd; c++) {
		map(&r->gn, c, &m, &row, &pm, &qm);
		mwrite(m, row, src[c - w0 * nd]);
	}
	for (row = w0; row < w0 + w; row++)
		write_parity(&r->gn, row);
}

static u64 total_chunks(struct run *r)
{
	return r->p.rows * r->p.from_data;
}

/* the values of chunks [first, first + n): old layout, or @backup */
static void read_sources(struct run *r, u64 first, u64 n, u64 *buf,
			 int from_backup)
{
	u64 c, row;
	u32 idx;

	for (c = first; c < first + n; c++) {
		if (c >= total_chunks(r)) {
			buf[c - first] = 0;	/* the new space */
		} else if (from_backup && c < r->p.critical * r->p.from_data) {
			stria_reshape_backup_loc(&r->p, c, &idx, &row);
			buf[c - first] = mread(r->s.n_old + idx, row);
		} else {
			buf[c - first] = old_chunk(r, c);
		}
	}
}

static void move_critical(struct run *r, int from_backup)
{
	u64 buf[MAXR * MAXM], n = r->p.critical * r->p.to_data;

	read_sources(r, 0, n, buf, from_backup);
	write_new_rows(r, 0, r->p.critical, buf);
	mflush();
	write_sbs(r, r->p.critical, 0);
	if (!M.dead)
		r->ckpt = r->p.critical;
}

static void critical_step(struct run *r)
{
	u64 c, row, k = r->p.critical * r->p.from_data;
	u32 idx;

	if (r->mut == M_NO_BACKUP) {
		move_critical(r, 0);
		return;
	}
	for (c = 0; c < k; c++) {
		stria_reshape_backup_loc(&r->p, c, &idx, &row);
		mwrite(r->s.n_old + idx, row, old_chunk(r, c));
	}
	if (r->mut != M_BACKUP_UNFLUSHED)
		mflush();
	write_sbs(r, 0, 1);
	move_critical(r, 1);
}

static void window_step(struct run *r, u64 max)
{
	u64 buf[MAXR * MAXM], w0 = r->ckpt, w;

	w = stria_reshape_window(&r->p, w0, max);
	if (r->mut == M_WIDE_WINDOW && w0 + w < r->p.rows_new)
		w++;
	if (!w)
		return;
	read_sources(r, w0 * r->p.to_data, w * r->p.to_data, buf, 0);
	if (r->mut == M_CKPT_FIRST)
		write_sbs(r, w0 + w, 0);
	write_new_rows(r, w0, w, buf);
	if (r->mut != M_NO_FLUSH)
		mflush();
	if (r->mut != M_CKPT_FIRST)
		write_sbs(r, w0 + w, 0);
	if (!M.dead)
		r->ckpt = w0 + w;
}

/* a user's write of chunk @c, routed by position, acknowledged after a flush */
static void user_write(struct run *r, u64 c)
{
	const struct stria_geom *g = stria_reshape_in_new(&r->p, r->ckpt, c) ?
				     &r->gn : &r->go;
	u64 val = ((c + 1) << 20) | ++r->version, row;
	u32 m, pm, qm;

	if (M.dead)
		return;
	map(g, c, &m, &row, &pm, &qm);
	maybe[c] = val;
	torn_row = row;
	torn_row_valid = g == &r->gn;
	mwrite(m, row, val);
	write_parity(g, row);
	mflush();
	if (M.dead)
		return;
	expect[c] = val;
	torn_row_valid = 0;
}

static void reshape(struct run *r, u64 max, int users)
{
	if (r->ckpt < r->p.critical)
		critical_step(r);
	while (!M.dead && r->ckpt < r->p.rows_new) {
		int i;

		for (i = 0; i < users; i++)
			user_write(r, rnd() % total_chunks(r));
		window_step(r, max);
	}
}

static void setup(struct run *r)
{
	u64 c, row;
	u32 m, pm, qm;

	memset(&M.disk, 0, sizeof(M.disk));
	for (m = 0; m < MAXM; m++)
		for (row = 0; row < MAXR; row++)
			M.disk[m][row] = GARBAGE ^ (m << 8) ^ row;
	M.ncache = 0;
	M.ops = 0;
	M.dead = 0;
	for (c = 0; c < total_chunks(r); c++) {
		map(&r->go, c, &m, &row, &pm, &qm);
		M.disk[m][row] = expect[c] = maybe[c] = (c + 1) << 20;
	}
	for (row = 0; row < r->p.rows; row++)
		write_parity(&r->go, row);
	mflush();
	r->events = 1;
	r->ckpt = 0;
	r->version = 0;
	torn_row_valid = 0;
	for (m = 0; m < r->s.n_new; m++)
		M.sb[m] = (struct sb){ 1, 0, 0 };
}

/* assembly after the power loss: the newest superblock says where to go on */
static void recover(struct run *r, long cut2)
{
	struct sb best = M.sb[0];
	u32 m;

	for (m = 1; m < r->s.n_new; m++)
		if (M.sb[m].events > best.events)
			best = M.sb[m];
	M.dead = 0;
	M.ops = 0;
	M.cut = cut2;
	r->events = best.events;
	r->ckpt = best.ckpt;
	/* the bitmap: a user write torn in a new row leaves its parity owed */
	if (torn_row_valid && torn_row < r->ckpt) {
		write_parity(&r->gn, torn_row);
		mflush();
	}
	if (best.backup && r->mut != M_IGNORE_BACKUP)
		move_critical(r, 1);
	reshape(r, 2, 0);
}

/* 0 when every chunk and every new row's parity is right */
static int check(struct run *r, char *why, size_t len)
{
	u64 c, row, p, q;
	u32 m, pm, qm;

	for (c = 0; c < total_chunks(r); c++) {
		u64 v;

		map(&r->gn, c, &m, &row, &pm, &qm);
		v = mread(m, row);
		if (v != expect[c] && v != maybe[c]) {
			snprintf(why, len, "chunk %" PRIu64 " holds %#" PRIx64
				 ", expected %#" PRIx64, c, v, expect[c]);
			return 1;
		}
	}
	for (row = 0; r->gn.level && row < r->p.rows_new; row++) {
		row_parity(&r->gn, row, &p, &q, &pm, &qm);
		if (mread(pm, row) != p ||
		    (qm != STRIA_GEOM_NONE && mread(qm, row) != q)) {
			snprintf(why, len, "new row %" PRIu64 ": parity", row);
			return 1;
		}
	}
	return 0;
}

static int run_init(struct run *r, const struct shape *s, enum mutant mut)
{
	u32 par = s->level == 6 ? 2 : s->level == 5 ? 1 : 0;
	u32 lay = s->level ? STRIA_LAYOUT_LEFT_SYMMETRIC : 0;

	memset(r, 0, sizeof(*r));
	r->s = *s;
	r->mut = mut;
	return stria_geom_init(&r->go, s->level, lay, s->n_old, 8, s->rows * 8ULL) ||
	       stria_geom_init(&r->gn, s->level, lay, s->n_new, 8, s->rows * 8ULL) ||
	       stria_reshape_plan_init(&r->p, s->n_old - par, s->n_new - par,
				       s->n_new - s->n_old, s->rows);
}

/*
 * Cut the power at every op of a run (@tries subsets each), recover, and
 * check. Returns the crashes that lost data; *@crashes counts them all.
 */
static int sweep(const struct shape *s, enum mutant mut, int tries,
		 int *crashes, char *why, size_t len)
{
	struct run r;
	long total, cut;
	int t, lost = 0;

	if (run_init(&r, s, mut)) {
		snprintf(why, len, "no plan");
		return -1;
	}
	/* a run without a cut counts the ops */
	M.seed = 1;
	M.cut = -1;
	setup(&r);
	reshape(&r, 2, 1);
	total = M.ops;
	if (check(&r, why, len))
		return mut == M_NONE ? -1 : 1;
	*crashes = 0;
	for (cut = 0; cut < total; cut++) {
		for (t = 0; t < tries; t++) {
			char w[160];

			M.seed = 0x9e3779b97f4a7c15ULL ^ (u64)(cut * 131 + t + 1);
			M.cut = cut;
			setup(&r);
			reshape(&r, 2, 1);
			/* half the recoveries lose the power again */
			recover(&r, (t & 1) ? (long)(rnd() % 40) : -1);
			if (M.dead)
				recover(&r, -1);
			(*crashes)++;
			if (check(&r, w, sizeof(w))) {
				if (!lost)
					snprintf(why, len, "cut at op %ld of %ld: %s",
						 cut, total, w);
				lost++;
			}
		}
	}
	return lost;
}

static const struct shape shapes[] = {
	{ 0, 2, 4, 16 }, { 0, 3, 4, 24 }, { 0, 3, 6, 20 }, { 0, 5, 6, 36 },
	{ 5, 4, 5, 24 }, { 5, 3, 5, 16 }, { 5, 5, 6, 36 },
	{ 6, 5, 6, 24 }, { 6, 4, 6, 16 }, { 6, 6, 8, 24 },
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static void test_protocol(void)
{
	int per_level[7] = { 0 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(shapes); i++) {
		const struct shape *s = &shapes[i];
		char why[200] = "";
		int crashes = 0, lost;

		lost = sweep(s, M_NONE, 4, &crashes, why, sizeof(why));
		per_level[s->level] += crashes;
		tap(lost == 0, "RAID%u %u -> %u members, %u rows: %d power losses, "
		    "nothing lost%s%s", s->level, s->n_old, s->n_new, s->rows,
		    crashes, lost ? ": " : "", why);
	}
	for (i = 0; i < 7; i++)
		if (i == 0 || i == 5 || i == 6)
			tap(per_level[i] >= 200, "RAID%zu: %d power losses (200 or more)",
			    i, per_level[i]);
}

static void test_mutants(void)
{
	enum mutant mut;

	for (mut = M_NONE + 1; mut < M_NR; mut++) {
		int caught = 0, crashes = 0;
		size_t i;

		for (i = 0; i < ARRAY_SIZE(shapes) && !caught; i++) {
			char why[200];

			caught = sweep(&shapes[i], mut, 4, &crashes, why, sizeof(why)) > 0;
		}
		tap(caught, "mutant '%s' loses data at some cut point", mutant_name[mut]);
	}
}

static void test_plan(void)
{
	struct stria_reshape_plan p;
	u64 w0, w;
	u32 from, to;
	int all = 1;

	/* every window the plan gives is safe, and they end at rows_new */
	for (from = 1; from <= 20; from++)
		for (to = from + 1; to <= 24; to++) {
			if (stria_reshape_plan_init(&p, from, to, to - from, 1000))
				continue;
			if (p.critical * (to - from) < from && p.critical < p.rows_new)
				all = 0;
			for (w0 = p.critical; w0 < p.rows_new; w0 += w) {
				w = stria_reshape_window(&p, w0, 64);
				if (!w || !stria_reshape_window_safe(&p, w0, w)) {
					all = 0;
					break;
				}
			}
		}
	tap(all, "every window from the critical rows to the end is safe and not empty");
	stria_reshape_plan_init(&p, 3, 4, 1, 100);
	tap(p.critical == 3 && p.rows_new == 75 && p.backup_chunks == 9 &&
	    p.backup_row == 91, "3 -> 4 data chunks, 100 rows: 3 critical rows, "
	    "75 new rows, backup of 9 chunks from row 91");
	tap(stria_reshape_window(&p, 3, 100) == 1 && stria_reshape_window(&p, 30, 100) == 10 &&
	    stria_reshape_window(&p, 2, 100) == 0 && stria_reshape_window(&p, 74, 100) == 1 &&
	    stria_reshape_window(&p, 75, 100) == 0, "windows grow with the checkpoint "
	    "and stop at the end");
	tap(stria_reshape_plan_init(&p, 4, 4, 1, 10) == -EINVAL &&
	    stria_reshape_plan_init(&p, 0, 4, 1, 10) == -EINVAL &&
	    stria_reshape_plan_init(&p, 3, 5, 3, 10) == -EINVAL &&
	    stria_reshape_plan_init(&p, 3, 4, 1, 0) == -EINVAL &&
	    stria_reshape_plan_init(&p, 3, 65, 62, 10) == -EINVAL &&
	    stria_reshape_plan_init(&p, 3, 4, 1, 1ULL << 54) == -EINVAL,
	    "bad plans are refused");
	/* 20 -> 21: 20 critical rows, 400 chunks of backup on one member */
	tap(stria_reshape_plan_init(&p, 20, 21, 1, 400) == -ENOSPC &&
	    stria_reshape_plan_init(&p, 20, 21, 1, 420) == 0 && p.backup_row == 20,
	    "a backup that does not fit above the critical rows is refused");
}

int main(void)
{
	test_plan();
	test_protocol();
	test_mutants();
	return tap_exit_code();
}
