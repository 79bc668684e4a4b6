// SPDX-License-Identifier: GPL-2.0
/*
 * stria-crashlog replay: the members rebuilt at many cut points of the log,
 * the array assembled and checked at each (crashlog.h, logwrites.h).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/stria.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "../unit/gf256.h"
#pragma GCC diagnostic pop

#include "crashlog.h"

/*
 * On RAID1/10 a "stripe" is a row of member chunks, as the module's sync
 * walks them: stripe s holds the array chunks whose first copy is in
 * member row s (the lowest row of their copies), and its resync, check or
 * repair reads that copy and writes or compares the others, wherever they
 * are. Its region (region_of_stripe()) is the first copy's.
 */

/* The array chunks whose first copy is in member row @s (at most nr), in @out. */
static uint32_t mirror_row_chunks(const struct arr *a, uint64_t s, uint64_t *out)
{
	struct stria_loc locs[STRIA_R10_MAX_COPIES];
	uint32_t d, n = 0;
	uint64_t sector;

	for (d = 0; d < a->nr; d++) {
		struct stria_loc here = { .member = d, .sector = s << a->g.chunk_shift };

		if (stria_r10_copy_at(&a->g.r10, &here, &sector, locs) == 0)
			out[n++] = sector;
	}
	return n;
}

/* Where in an image of the members place @loc is. */
static uint64_t mirror_img_off(const struct arr *a, const struct stria_loc *loc)
{
	return loc->member * a->member_bytes + a->data_off + loc->sector * SECTOR;
}

/* Is (@m, member sector @ms) a copy other than the first of what it holds? */
static bool mirror_later_copy(const struct arr *a, uint32_t m, uint64_t ms)
{
	struct stria_loc here = { .member = m, .sector = ms }, locs[STRIA_R10_MAX_COPIES];
	uint64_t sector;

	return stria_r10_copy_at(&a->g.r10, &here, &sector, locs) > 0;
}

/*
 * Mirrors: the 4 KiB pieces of the copies of stripe @s's chunks that
 * differ from their first copy (what the module's check counts, 8 sectors
 * each).
 */
static uint32_t mirror_bad_pieces(const struct arr *a, const uint8_t *img, uint64_t s)
{
	size_t cb = (size_t)SECTOR << a->g.chunk_shift, off;
	uint64_t chunks[STRIA_GEOM_MAX_MEMBERS];
	uint32_t n = mirror_row_chunks(a, s, chunks), i, k, bad = 0;
	struct stria_loc locs[STRIA_R10_MAX_COPIES];

	for (i = 0; i < n; i++) {
		stria_r10_map(&a->g.r10, chunks[i], locs);
		for (k = 1; k < stria_r10_copies(&a->g.r10); k++)
			for (off = 0; off < cb; off += 4096)
				bad += !!memcmp(img + mirror_img_off(a, &locs[0]) + off,
						img + mirror_img_off(a, &locs[k]) + off,
						cb - off < 4096 ? cb - off : 4096);
	}
	return bad;
}

/*
 * Does stripe @s of the members in @img (member i at i * member_bytes) have
 * the parity of its data (on mirrors: copies equal to the first)? Return:
 * the number of 4 KiB pieces of P and Q (of the later copies) that differ
 * (0: consistent).
 */
static uint32_t stripe_bad_pieces(const struct arr *a, const uint8_t *img,
				  uint64_t s)
{
	size_t cb = (size_t)SECTOR << a->g.chunk_shift, off;
	uint32_t nd = stria_geom_nr_data(&a->g), i, bad = 0;
	uint8_t *ptrs[STRIA_GEOM_MAX_MEMBERS + 2], *p, *q;
	uint32_t pm, qm;

	if (stria_geom_mirror(&a->g))
		return mirror_bad_pieces(a, img, s);
	stria_raid56_parity_members(&a->g, s, &pm, &qm);
	p = xalloc(cb);
	q = xalloc(cb);
	for (i = 0; i < a->nr; i++) {
		uint32_t idx = stria_raid56_member_index(&a->g, s, i);

		if (idx == STRIA_GEOM_P || idx == STRIA_GEOM_Q)
			continue;
		ptrs[stria_raid56_slot(&a->g, s, idx)] = (uint8_t *)img +
			i * a->member_bytes + a->data_off + s * cb;
	}
	ptrs[nd] = p;
	ptrs[nd + 1] = q;
	gf_gen_pq((int)nd, cb, ptrs);
	for (off = 0; off < cb; off += 4096) {
		size_t n = cb - off < 4096 ? cb - off : 4096;

		if (memcmp(p + off, img + pm * a->member_bytes + a->data_off +
			   s * cb + off, n))
			bad++;
		if (a->g.level == 6 &&
		    memcmp(q + off, img + qm * a->member_bytes + a->data_off +
			   s * cb + off, n))
			bad++;
	}
	free(p);
	free(q);
	return bad;
}

/**
 * struct cut - one point of the log where the power goes
 * @c: the last entry the cut reaches
 * @flush: lw_last_flush() of @c
 * @mode: what the cut keeps of the unflushed writes
 * @seed: its random state (subsets, torn blocks, where mismatches go)
 * @mark: the last writer's mark at or before @c
 * @stopped: CP_MARK_STOPPED is at or before @c
 */
struct cut {
	long c;
	long flush;
	enum lw_cut_mode mode;
	uint64_t seed;
	uint32_t mark;
	bool stopped;
};

static const char *const mode_names[LW_CUT_MODES] = { "prefix", "subset", "torn", "lose" };

static int cut_cmp(const void *x, const void *y)
{
	const struct cut *a = x, *b = y;

	if (a->c != b->c)
		return a->c < b->c ? -1 : 1;
	return (int)a->mode - (int)b->mode;
}

/*
 * The cut points: every flush and FUA entry (all of them; or @want / 2: the
 * first and last @edge, where the superblock updates of the assembly and
 * the stop are, and the others spread evenly; with fewer, as many from each
 * end), the last entry, and more: random writes without FUA (the log as
 * written up to there), and the points just before a flush entry with a
 * random subset of that flush's writes, whole or torn.
 */
static struct cut *make_cuts(const struct log *l, uint32_t want, uint32_t edge,
			     uint64_t seed, uint32_t *ncuts, uint32_t *nsync)
{
	long *sync = calloc(l->n + 1, sizeof(long)), *plain = calloc(l->n + 1, sizeof(long));
	long *before = calloc(l->n + 1, sizeof(long)), i, ns = 0, np = 0, nb = 0;
	uint32_t n = 0, extra, k, cap, mid;
	uint64_t rng = cp_block_seed(seed, 0xc07, 0);
	struct cut *cuts;

	if (!sync || !plain || !before)
		die("out of memory");
	for (i = 0; i < l->n; i++) {
		if (l->flags[i] & (LW_FLUSH | LW_FUA))
			sync[ns++] = i;
		else if (lw_entry_writes(&l->e[i]))
			plain[np++] = i;
		if ((l->flags[i] & LW_FLUSH) && i)
			before[nb++] = i - 1;
	}
	if (!ns || !nb)
		die("the log has no flush: nothing to cut");
	*nsync = want ? (want / 2 < ns ? want / 2 : ns) : ns;
	extra = want ? want - *nsync - 1 : (ns < 140 ? 200 - ns : 60);
	cap = *nsync + extra + 1;
	cuts = calloc(cap, sizeof(*cuts));
	if (!cuts)
		die("out of memory");
	if (*nsync == ns) {
		for (k = 0; k < *nsync; k++)
			cuts[n++] = (struct cut){ .c = sync[k], .mode = LW_CUT_PREFIX };
	} else if (*nsync <= 2 * edge) {
		/* too few for the spread: the first and the last */
		for (k = 0; k < *nsync; k++)
			cuts[n++] = (struct cut){
				.c = k % 2 ? sync[ns - 1 - k / 2] : sync[k / 2],
				.mode = LW_CUT_PREFIX };
	} else {
		mid = *nsync - 2 * edge;
		for (k = 0; k < edge; k++) {
			cuts[n++] = (struct cut){ .c = sync[k], .mode = LW_CUT_PREFIX };
			cuts[n++] = (struct cut){ .c = sync[ns - 1 - k],
						  .mode = LW_CUT_PREFIX };
		}
		for (k = 0; k < mid; k++)
			cuts[n++] = (struct cut){
				.c = sync[edge + (long)(k + 1) * (ns - 2 * edge) / (mid + 1)],
				.mode = LW_CUT_PREFIX };
	}
	cuts[n++] = (struct cut){ .c = l->n - 1, .mode = LW_CUT_PREFIX };
	for (k = 0; k < extra; k++) {
		struct cut *ct = &cuts[n++];

		if (k % 3 == 0 && np)
			*ct = (struct cut){ .c = plain[lw_rand(&rng) % np],
					    .mode = LW_CUT_PREFIX };
		else
			*ct = (struct cut){ .c = before[lw_rand(&rng) % nb],
					    .mode = k % 3 == 2 ? LW_CUT_TORN : LW_CUT_SUBSET };
	}
	for (k = 0; k < n; k++) {
		cuts[k].flush = lw_last_flush(l->flags, cuts[k].c);
		cuts[k].seed = cp_block_seed(seed, cuts[k].c, k);
	}
	qsort(cuts, n, sizeof(*cuts), cut_cmp);
	*ncuts = n;
	free(sync);
	free(plain);
	free(before);
	return cuts;
}

/*
 * The self-test's cut points (--drop-flushes): @want of the writer's marks
 * N, spread evenly, each cut at mark N's entry on a drive that ignored
 * every flush after mark N - 1 and then lost its whole cache. The writes
 * the writer made durable between the two marks are gone from the image,
 * and the data check must see it.
 */
static struct cut *make_lose_cuts(const struct log *l, uint32_t want,
				  uint64_t seed, uint32_t *ncuts)
{
	long *at = calloc(l->n + 2, sizeof(long)), i;
	uint32_t nm = 0, n = 0, k, m;
	struct cut *cuts;

	if (!at)
		die("out of memory");
	for (i = 0; i < l->n; i++) {
		m = mark_number(&l->e[i]);
		if (m && m == nm + 1)
			at[++nm] = i;
	}
	if (nm < 2)
		die("the log has fewer than two of the writer's marks: no flush to drop");
	if (want > nm - 1)
		want = nm - 1;
	cuts = calloc(want, sizeof(*cuts));
	if (!cuts)
		die("out of memory");
	for (k = 0; k < want; k++) {
		m = 2 + (uint32_t)((uint64_t)k * (nm - 1) / want);
		cuts[n] = (struct cut){ .c = at[m], .mode = LW_CUT_LOSE,
					.flush = lw_last_flush(l->flags, at[m - 1]),
					.seed = cp_block_seed(seed, at[m], k) };
		n++;
	}
	free(at);
	*ncuts = n;
	return cuts;
}

/**
 * struct undo - what applying a cut's tail overwrote in the image
 * @off: where
 * @len: bytes
 * @old: the bytes that were there
 */
struct undo {
	uint64_t off;
	uint32_t len;
	uint8_t *old;
};

/**
 * struct rp - the replay's state
 * @l: the log
 * @j: the journal
 * @a: the array
 * @img: the members' image: the starting image plus the log's entries up to
 *	@base (and, while a cut is checked, the cut's tail)
 * @img_len: bytes of @img
 * @base: entries before this are in @img
 * @dev: the member devices (O_DIRECT), @devfd open on them
 * @ctl: /dev/stria-control
 * @lo, @hi: per block, the versions the cut allows (cp_expect())
 * @zhi: per block, the newest version up to @hi that is zeroes (cp_expect())
 * @u: the tail's undo records
 * @scratch: stripes read back from the members, laid out as @img
 * @out: per-cut log, or NULL
 * @corrupt: flip a byte of one data block at each cut (a self-test: the
 *	data check must then fail at each)
 * @may_change: per 4 KiB block of @img, whether the array may write it
 *	(superblocks, bitmaps, P and Q) or the image changed it since the
 *	members were last brought to it
 * @full_every: compare whole members every this many cuts
 * @lose: the cuts are make_lose_cuts()'s (a self-test)
 * @cut_dropped: 4 KiB data blocks the cut dropped at the version it must
 *	hold (the cut's mark made them durable): a self-test cut must then
 *	find lost writes
 * @rebuild_role: the role the log fails and rebuilds onto a blank device
 *	at the same place, or -1 (--rebuild-role)
 * @hole: per block, while the cut is checked: the block is in the write
 *	hole (a chunk of @rebuild_role, not rebuilt at the cut, in a stripe
 *	the assembly must resync): whatever it reads may be wrong
 * @planted_block: on mirrors, the array block whose later copy was made
 *	to differ outside the regions to resync, or -1: its reads may see
 *	either copy, and the check after them must count it
 */
struct rp {
	struct log l;
	struct cp_journal j;
	struct arr a;
	uint8_t *img;
	uint64_t img_len;
	long base;
	char **dev;
	int *devfd;
	int ctl;
	uint32_t *lo, *hi, *zhi;
	struct undo *u;
	uint32_t nu, capu;
	uint8_t *scratch;
	FILE *out;
	bool corrupt;
	uint8_t *may_change;
	uint8_t *array_writes;
	uint32_t full_every;
	bool lose;
	uint32_t cut_dropped;
	int rebuild_role;
	uint8_t *hole;
	long planted_block;
};

/**
 * struct tally - what the checks found, over all cuts
 */
struct tally {
	uint32_t cuts, by_mode[LW_CUT_MODES], clean, resynced, assembled;
	uint32_t lose_expected, lose_caught;
	uint32_t assemble_failed, sync_timeouts, stop_failed;
	uint32_t lost_cuts, oon_cuts, mismatch_cuts, coverage_cuts;
	uint64_t lost_blocks, oon_blocks, restored_blocks, kept, dropped;
	uint64_t zero_reads, zero_or_old;
	uint32_t planted_in, repaired_in, planted_out, found_out;
	uint32_t failures, full_syncs;
	uint64_t stray_blocks;
	uint32_t degraded_cuts, resumed_cuts, rebuilt_cuts, unrebuilt_cuts, degraded_marked;
	uint64_t hole_blocks, hole_wrong, planted_reads;
	double t_restore, t_assemble, t_verify, t_check, t_stop;
};

static void rp_apply(struct rp *r, uint64_t off, uint64_t len, const uint8_t *d,
		     bool save)
{
	if (save) {
		struct undo *u;

		if (r->nu == r->capu) {
			r->capu = r->capu ? 2 * r->capu : 256;
			r->u = realloc(r->u, r->capu * sizeof(*r->u));
			if (!r->u)
				die("out of memory");
		}
		u = &r->u[r->nu++];
		u->off = off;
		u->len = len;
		u->old = malloc(len);
		if (!u->old)
			die("out of memory");
		memcpy(u->old, r->img + off, len);
	}
	memcpy(r->img + off, d, len);
	for (uint64_t b = off / 4096; b <= (off + len - 1) / 4096; b++)
		r->may_change[b] = 1;
}

/* Entries [r->base, to) go into the image for good. */
static void rp_advance(struct rp *r, long to)
{
	uint64_t off, len;

	for (; r->base < to; r->base++) {
		const struct lw_entry *e = &r->l.e[r->base];

		if (!lw_entry_writes(e))
			continue;
		entry_bytes(&r->l, e, r->img_len, &off, &len);
		rp_apply(r, off, len, r->l.buf + e->data_off, false);
	}
}

/*
 * Is the 4 KiB piece @d of a dropped write a data block at the version the
 * cut must hold (r->lo, cp_expect())? Return: 1 if so, else 0.
 */
static uint32_t dropped_durable(const struct rp *r, const uint8_t *d, uint64_t len)
{
	uint64_t b, v;

	if (len != CP_BLOCK)
		return 0;
	memcpy(&b, d + 8, 8);
	b = le64toh(b);
	if (b >= r->j.blocks || cp_check(d, r->j.seed, b, &v))
		return 0;
	return v && v == r->lo[b];
}

/* The cut's tail [r->base, ct->c] as the cut keeps it; undone by rp_undo(). */
static void rp_tail(struct rp *r, const struct cut *ct, struct tally *t)
{
	uint64_t rng = ct->seed, off, len, p, pl;
	long i;

	for (i = r->base; i <= ct->c; i++) {
		const struct lw_entry *e = &r->l.e[i];
		bool first = true, kept = false;

		if (!lw_entry_writes(e))
			continue;
		entry_bytes(&r->l, e, r->img_len, &off, &len);
		for (p = 0; p < len; p += pl) {
			/* pieces end at the 4 KiB boundaries of the device */
			pl = LW_ATOMIC_BYTES - (off + p) % LW_ATOMIC_BYTES;
			if (pl > len - p)
				pl = len - p;
			kept = lw_cut_keep(r->l.flags, i, ct->flush, ct->mode, &rng,
					   first, kept);
			first = false;
			if (!kept) {
				t->dropped += pl;
				r->cut_dropped += dropped_durable(r, r->l.buf + e->data_off + p, pl);
				continue;
			}
			t->kept += pl;
			rp_apply(r, off + p, pl, r->l.buf + e->data_off + p, true);
		}
	}
}

static void rp_undo(struct rp *r)
{
	while (r->nu) {
		struct undo *u = &r->u[--r->nu];
		uint64_t b;

		memcpy(r->img + u->off, u->old, u->len);
		for (b = u->off / 4096; b <= (u->off + u->len - 1) / 4096; b++)
			r->may_change[b] = 1;
		free(u->old);
	}
}

/*
 * The blocks the array itself writes while it is assembled, resynced,
 * checked and stopped: each member's superblock and bitmap area, and every
 * stripe's P and Q (on mirrors every copy but the first).
 */
static void array_write_set(struct rp *r)
{
	uint64_t mb = r->a.member_bytes / 4096, nst, s, k, cb;
	uint32_t m, pm, qm, bm_blocks = 0;

	r->array_writes = calloc(r->img_len / 4096, 1);
	if (!r->array_writes)
		die("out of memory");
	if (r->a.region_shift)
		bm_blocks = (r->a.nr_regions + STRIA_SB_BITMAP_BLOCK * 8 - 1) /
			    (STRIA_SB_BITMAP_BLOCK * 8);
	for (m = 0; m < r->a.nr; m++)
		for (k = 0; k < 1 + bm_blocks; k++)
			r->array_writes[m * mb + k] = 1;
	nst = r->a.g.member_sectors >> r->a.g.chunk_shift;
	cb = ((uint64_t)SECTOR << r->a.g.chunk_shift) / 4096;
	/* a rebuild writes every chunk of the role it rebuilds */
	for (k = 0; r->rebuild_role >= 0 && k < nst * cb; k++)
		r->array_writes[r->rebuild_role * mb + r->a.data_off / 4096 + k] = 1;
	/* mirrors: a resync writes every copy but the first */
	for (m = 0; stria_geom_mirror(&r->a.g) && m < r->a.nr; m++)
		for (k = 0; k < nst * cb; k++)
			if (mirror_later_copy(&r->a, m, k * (4096 / SECTOR)))
				r->array_writes[m * mb + r->a.data_off / 4096 + k] = 1;
	for (s = 0; !stria_geom_mirror(&r->a.g) && s < nst; s++) {
		stria_raid56_parity_members(&r->a.g, s, &pm, &qm);
		for (k = 0; k < cb; k++) {
			uint64_t b = r->a.data_off / 4096 + s * cb + k;

			r->array_writes[pm * mb + b] = 1;
			if (qm != STRIA_GEOM_NONE)
				r->array_writes[qm * mb + b] = 1;
		}
	}
}

/*
 * Bring the member devices to the image: rewrite the 4 KiB blocks that
 * differ. Only the blocks the array or the image may have changed are
 * read, except in a @full pass, which reads everything and counts in
 * *@stray (unless NULL: the first pass, over whatever the devices held)
 * the blocks that differ although neither did (the array wrote where it
 * has no business). Return: blocks rewritten.
 */
static uint64_t rp_sync_devices(struct rp *r, uint8_t *buf, bool full,
				uint64_t *stray)
{
	uint64_t mb = r->a.member_bytes / 4096, b, e, k, n = 0;
	uint32_t m;

	for (m = 0; m < r->a.nr; m++) {
		const uint8_t *want = r->img + m * r->a.member_bytes;
		const uint8_t *chg = r->may_change + m * mb;
		const uint8_t *arr = r->array_writes + m * mb;

		for (b = 0; b < mb; b = e) {
			if (!full && !chg[b] && !arr[b]) {
				e = b + 1;
				continue;
			}
			/* a run of blocks to read, at most IO_CHUNK */
			for (e = b + 1; e < mb && e - b < IO_CHUNK / 4096 &&
			     (full || chg[e] || arr[e]); e++)
				;
			pread_full(r->devfd[m], buf, (e - b) * 4096, b * 4096, r->dev[m]);
			for (k = b; k < e; k++) {
				if (!memcmp(buf + (k - b) * 4096, want + k * 4096, 4096))
					continue;
				if (!chg[k] && !arr[k] && stray)
					(*stray)++;
				pwrite_full(r->devfd[m], want + k * 4096, 4096, k * 4096,
					    r->dev[m]);
				n++;
			}
		}
	}
	return n;
}

/* ---- talking to the module --------------------------------------------- */

static int sysfs_read(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = 0;
	return 0;
}

static int sysfs_write(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), ret = 0;

	if (fd < 0)
		return -1;
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		ret = -1;
	close(fd);
	return ret;
}

/*
 * Assemble the members, all but role @leave_out (-1: all), with
 * STRIA_ARRAY_F_FORCE when @force.
 */
static int array_assemble(struct rp *r, uint32_t *index, char *msg, size_t len,
			  bool force, int leave_out)
{
	uint64_t ptrs[STRIA_GEOM_MAX_MEMBERS];
	struct stria_ioc_array req;
	uint32_t i, n = 0;

	memset(&req, 0, sizeof(req));
	for (i = 0; i < r->a.nr; i++)
		if ((int)i != leave_out)
			ptrs[n++] = (uintptr_t)r->dev[i];
	req.size = sizeof(req);
	req.nr_members = n;
	req.numa_node = STRIA_NODE_AUTO;
	if (force)
		req.flags |= STRIA_ARRAY_F_FORCE;
	req.members = (uintptr_t)ptrs;
	memcpy(req.name, r->a.name, sizeof(req.name) - 1);
	if (ioctl(r->ctl, STRIA_IOC_ASSEMBLE, &req)) {
		snprintf(msg, len, "%s (%s)", req.msg[0] ? req.msg : "no reason given",
			 strerror(errno));
		return -1;
	}
	*index = req.index;
	return 0;
}

static int array_stop(struct rp *r, uint32_t index, char *msg, size_t len)
{
	struct stria_ioc_stop req;
	int tries;

	for (tries = 0; tries < 100; tries++) {
		memset(&req, 0, sizeof(req));
		req.size = sizeof(req);
		req.index = index;
		if (!ioctl(r->ctl, STRIA_IOC_STOP, &req))
			return 0;
		if (errno != EBUSY)
			break;
		usleep(20000);
	}
	snprintf(msg, len, "%s (%s)", req.msg, strerror(errno));
	return -1;
}

/* Wait until the array's sync is idle. Return: 0, or -1 after @secs. */
static int array_wait_idle(uint32_t index, double secs)
{
	char path[96], buf[32];
	double t0 = now();

	int idle = 0;

	/*
	 * Idle twice, 50 ms apart: a rebuild that ends starts the resync it
	 * leaves owed (a forced assembly during a rebuild) right after it
	 * says idle.
	 */
	snprintf(path, sizeof(path), "/sys/block/stria%u/stria/sync_action", index);
	for (;;) {
		if (sysfs_read(path, buf, sizeof(buf)))
			return -1;
		idle = strcmp(buf, "idle") ? 0 : idle + 1;
		if (idle == 2)
			return 0;
		if (now() - t0 > secs)
			return -1;
		usleep(idle ? 50000 : 10000);
	}
}

static uint64_t array_attr(uint32_t index, const char *attr, const char *field)
{
	char path[96], buf[512], *p;

	snprintf(path, sizeof(path), "/sys/block/stria%u/stria/%s", index, attr);
	if (sysfs_read(path, buf, sizeof(buf)))
		return UINT64_MAX;
	if (!field)
		return strtoull(buf, NULL, 10);
	p = strstr(buf, field);
	return p ? strtoull(p + strlen(field), NULL, 10) : UINT64_MAX;
}

/* The state of role @role in the array's members file ("active", ...), in @st. */
static int role_state(uint32_t index, int role, char *st, size_t len)
{
	char path[96], buf[1024], *line, *save = NULL, dev[64], state[32];
	int rl;

	snprintf(path, sizeof(path), "/sys/block/stria%u/stria/members", index);
	if (sysfs_read(path, buf, sizeof(buf)))
		return -1;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "%d %63s %31s", &rl, dev, state) == 3 && rl == role) {
			snprintf(st, len, "%s", state);
			return 0;
		}
	snprintf(st, len, "absent");
	return 0;
}

/* ---- one cut ------------------------------------------------------------- */

static void cut_fail(struct rp *r, struct tally *t, uint32_t k,
		     const struct cut *ct, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* Report a failed check of cut @k: on stdout for the first few, always in the cut log. */
static void cut_fail(struct rp *r, struct tally *t, uint32_t k,
		     const struct cut *ct, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (t->failures++ < 4 * MAX_REPORT)
		printf("cut %u at entry %ld (%s, last flush %ld, mark %u%s): %s\n",
		       k, ct->c, mode_names[ct->mode], ct->flush, ct->mark,
		       ct->stopped ? ", stopped" : "", msg);
	if (r->out)
		fprintf(r->out, "  FAIL %s\n", msg);
}

/* Flip a byte of member @m at byte @off, on the device only. */
static void flip_byte(struct rp *r, uint32_t m, uint64_t off, uint8_t *buf)
{
	uint64_t blk = off & ~4095ULL;

	pread_full(r->devfd[m], buf, 4096, blk, r->dev[m]);
	buf[off - blk] ^= 0x5a;
	pwrite_full(r->devfd[m], buf, 4096, blk, r->dev[m]);
}

/*
 * Plant a parity mismatch (on mirrors, a later copy that differs) in a
 * random stripe below @nst whose region is (@in) or is not in @regs.
 */
static bool plant_candidate(struct rp *r, const uint8_t *regs, bool in, uint64_t s)
{
	uint64_t chunks[STRIA_GEOM_MAX_MEMBERS];

	return !regs[region_of_stripe(&r->a, s)] == !in &&
	       (!stria_geom_mirror(&r->a.g) || mirror_row_chunks(&r->a, s, chunks));
}

/*
 * Mirrors: flip a byte of a later copy of one of stripe @s's chunks; the
 * array block it is in goes to r->planted_block, which the reads of the
 * array may or may not see (the copy they read is the module's choice).
 */
static void plant_mirror(struct rp *r, uint64_t s, uint64_t *rng, uint8_t *buf)
{
	uint64_t chunks[STRIA_GEOM_MAX_MEMBERS], sector, off;
	struct stria_loc locs[STRIA_R10_MAX_COPIES];
	uint32_t n = mirror_row_chunks(&r->a, s, chunks), k;

	sector = chunks[lw_rand(rng) % n];
	k = 1 + lw_rand(rng) % (stria_r10_copies(&r->a.g.r10) - 1);
	off = lw_rand(rng) % ((uint64_t)SECTOR << r->a.g.chunk_shift);
	stria_r10_map(&r->a.g.r10, sector, locs);
	flip_byte(r, locs[k].member, r->a.data_off + locs[k].sector * SECTOR + off, buf);
	r->planted_block = (long)((sector * SECTOR + off) / CP_BLOCK);
}

static long plant(struct rp *r, const uint8_t *regs, bool in, uint64_t *rng,
		  uint8_t *buf, uint64_t nst)
{
	uint64_t s, cand = 0, pick;
	size_t cb = (size_t)SECTOR << r->a.g.chunk_shift;
	uint32_t pm, qm;

	for (s = 0; s < nst; s++)
		cand += plant_candidate(r, regs, in, s);
	if (!cand)
		return -1;
	pick = lw_rand(rng) % cand;
	for (s = 0; s < nst; s++)
		if (plant_candidate(r, regs, in, s) && !pick--)
			break;
	if (stria_geom_mirror(&r->a.g)) {
		plant_mirror(r, s, rng, buf);
		return s;
	}
	stria_raid56_parity_members(&r->a.g, s, &pm, &qm);
	if (qm != STRIA_GEOM_NONE && lw_rand(rng) & 1)
		pm = qm;
	flip_byte(r, pm, r->a.data_off + s * cb + lw_rand(rng) % cb, buf);
	return s;
}

/* Read stripe @s of every member into r->scratch; return its bad parity pieces. */
static uint32_t stripe_on_devices(struct rp *r, uint64_t s)
{
	size_t cb = (size_t)SECTOR << r->a.g.chunk_shift;
	uint64_t first = s, nr = 1;
	uint32_t m;

	/* a mirror's later copies may be in any row */
	if (stria_geom_mirror(&r->a.g)) {
		first = 0;
		nr = r->a.g.member_sectors >> r->a.g.chunk_shift;
	}
	for (m = 0; m < r->a.nr; m++) {
		uint64_t off = m * r->a.member_bytes + r->a.data_off + first * cb;

		pread_full(r->devfd[m], r->scratch + off, nr * cb,
			   r->a.data_off + first * cb, r->dev[m]);
	}
	return stripe_bad_pieces(&r->a, r->scratch, s);
}

/*
 * Read the whole array and check every block against the journal (r->lo,
 * r->hi). Return: the blocks that lost an acknowledged, flushed write.
 */
static uint64_t verify_data(struct rp *r, const struct cut *ct, uint32_t k,
			uint32_t index, struct tally *t, uint8_t *buf)
{
	uint64_t b, v, lost = 0, oon = 0, off, len, size;
	char path[32];
	int fd = -1, tries;

	snprintf(path, sizeof(path), "/dev/stria%u", index);
	for (tries = 0; tries < 500 && fd < 0; tries++) {
		fd = open(path, O_RDONLY | O_DIRECT);
		if (fd < 0)
			usleep(10000);
	}
	if (fd < 0) {
		cut_fail(r, t, k, ct, "%s: %s", path, strerror(errno));
		return 0;
	}
	size = dev_bytes(fd, path);
	if (size / CP_BLOCK != r->j.blocks) {
		cut_fail(r, t, k, ct, "%s has %" PRIu64 " blocks, the journal %u",
			 path, size / CP_BLOCK, r->j.blocks);
		close(fd);
		return 0;
	}
	for (off = 0; off < size; off += len) {
		uint64_t eio = 0;	/* blocks of this piece that read EIO, bit per block */

		len = size - off < IO_CHUNK ? size - off : IO_CHUNK;
		if (pread(fd, buf, len, off) != (ssize_t)len) {
			/* a stripe that owes a resync the array cannot do (EIO), block by block */
			for (b = 0; b < len / CP_BLOCK; b++)
				if (pread(fd, buf + b * CP_BLOCK, CP_BLOCK, off + b * CP_BLOCK) !=
				    CP_BLOCK)
					eio |= 1ULL << b;
		}
		for (b = off / CP_BLOCK; b < (off + len) / CP_BLOCK; b++) {
			const uint8_t *p = buf + (b * CP_BLOCK - off);
			int bad = cp_check(p, r->j.seed, b, &v);
			bool in_flight = r->hi[b] > r->lo[b];

			/* a mirror's copy planted to differ: the check counts it */
			if ((long)b == r->planted_block) {
				t->planted_reads++;
				continue;
			}

			if (eio >> (b - off / CP_BLOCK) & 1) {
				if (r->hole && r->hole[b]) {
					t->hole_wrong++;
					continue;
				}
				if (lost++ < 3)
					cut_fail(r, t, k, ct, "block %" PRIu64 ": read error outside the write hole",
						 b);
				continue;
			}
			if (!bad && v >= r->lo[b] && v <= r->hi[b])
				continue;
			/* zeroes: a version when a write of zeroes made them */
			if (bad && cp_is_zero(p) && r->zhi[b] != CP_NEVER &&
			    r->zhi[b] >= r->lo[b]) {
				t->zero_reads++;
				/* data was allowed too: the zeroes were not yet durable */
				t->zero_or_old += r->lo[b] < r->zhi[b] || r->hi[b] > r->zhi[b];
				continue;
			}
			if (r->hole && r->hole[b]) {
				t->hole_wrong++;
				continue;
			}
			if (bad && cp_is_zero(p)) {
				if (r->zhi[b] != CP_NEVER || !in_flight) {
					if (lost++ < 3)
						cut_fail(r, t, k, ct, "block %" PRIu64 ": zeroes (%s), but version %u was acknowledged and flushed",
							 b, r->zhi[b] != CP_NEVER ? "an older version" :
							 "never written", r->lo[b]);
				} else if (oon++ < 3) {
					cut_fail(r, t, k, ct, "block %" PRIu64 ": zeroes, which no write issued before the cut wrote; old is %u, new up to %u",
						 b, r->lo[b], r->hi[b]);
				}
				continue;
			}
			/* older than the durable version, or nothing was in flight */
			if ((!bad && v < r->lo[b]) || !in_flight) {
				if (lost++ < 3)
					cut_fail(r, t, k, ct, "block %" PRIu64 ": %s %" PRIu64
						 ", but version %u was acknowledged and flushed",
						 b, bad ? "not a whole version; claims" : "version", v,
						 r->lo[b]);
			} else if (oon++ < 3) {
				cut_fail(r, t, k, ct, "block %" PRIu64 ": %s %" PRIu64
					 ", not old (%u) nor new (up to %u)", b,
					 bad ? "not a whole version; claims" : "version", v,
					 r->lo[b], r->hi[b]);
			}
		}
	}
	close(fd);
	t->lost_blocks += lost;
	t->oon_blocks += oon;
	t->lost_cuts += !!lost;
	t->oon_cuts += !!oon;
	if (r->out)
		fprintf(r->out, "  data: %" PRIu64 " lost, %" PRIu64 " neither old nor new\n",
			lost, oon);
	return lost;
}

static void rp_cut(struct rp *r, const struct cut *ct, uint32_t k,
		   struct tally *t, uint8_t *buf)
{
	uint32_t nreg = r->a.region_shift ? r->a.nr_regions : 1, index, nres, i;
	uint64_t rng = ct->seed ^ 0x9a17, restored, want_skip, skip, mism, stray = 0, lost;
	uint64_t b, nhole = 0, plant_below;
	bool degraded, rebuilt = true, bad_parity = false;
	char rst[32];
	uint8_t regs[STRIA_SB_BITMAP_MAX_REGIONS > 65536 ? 65536 : STRIA_SB_BITMAP_MAX_REGIONS];
	long in_stripe, out_stripe;
	double t0 = now(), t1;
	struct sbview v;
	bool full;
	char msg[STRIA_MSG_LEN + 64];

	if (nreg > sizeof(regs))
		die("%u bitmap regions: a test array has fewer", nreg);
	rp_advance(r, ct->flush > 0 ? ct->flush : 0);
	cp_expect(&r->j, ct->mark, ct->stopped, r->lo, r->hi, r->zhi);
	r->cut_dropped = 0;
	rp_tail(r, ct, t);
	full = !(k % r->full_every);
	restored = rp_sync_devices(r, buf, full, k ? &stray : NULL);
	t->restored_blocks += restored;
	t->full_syncs += full;
	memset(r->may_change, 0, r->img_len / 4096);
	if (stray) {
		t->stray_blocks += stray;
		cut_fail(r, t, k, ct, "%" PRIu64 " blocks changed since the last full comparison that neither the log nor the array's superblocks, bitmaps and parity account for",
			 stray);
	}
	sb_view(&r->a, r->img, &v);
	nres = resync_regions(&r->a, r->img, &v, regs);
	/* the expected skip, before the image goes back to the base */
	want_skip = r->a.g.member_sectors;
	for (i = 0; r->a.region_shift && i < nreg; i++)
		if (regs[i]) {
			uint64_t s0 = (uint64_t)i << r->a.region_shift;
			uint64_t s1 = s0 + (1ULL << r->a.region_shift);

			want_skip -= (s1 < r->a.g.member_sectors ? s1 : r->a.g.member_sectors) - s0;
		}
	rp_undo(r);
	degraded = r->rebuild_role >= 0 &&
		   ((v.failed | v.rebuilding) >> r->rebuild_role & 1);
	memset(r->hole, 0, r->j.blocks);
	/* a degraded mirror has no write hole: every chunk keeps a copy */
	for (b = 0; degraded && !stria_geom_mirror(&r->a.g) && b < r->j.blocks; b++) {
		struct stria_stripe st;
		struct stria_loc loc;

		stria_raid56_map(&r->a.g, b * (CP_BLOCK / SECTOR), &loc, &st);
		if (loc.member == (uint32_t)r->rebuild_role &&
		    regs[region_of_stripe(&r->a, loc.sector >> r->a.g.chunk_shift)] &&
		    ((v.failed >> r->rebuild_role & 1) || loc.sector >= v.rebuild_offset))
			nhole += r->hole[b] = 1;
	}
	/*
	 * Degraded, a mismatch planted where the rebuild has not been would
	 * be rebuilt into the role's data: plant only below the rebuild's
	 * checkpoint, where every chunk is there (none while the role is
	 * failed). The resync of the regions to resync, once the rebuild
	 * has made the array whole, must repair the one inside.
	 */
	plant_below = r->a.g.member_sectors >> r->a.g.chunk_shift;
	if (degraded)
		plant_below = v.failed >> r->rebuild_role & 1 ? 0 :
			      v.rebuild_offset >> r->a.g.chunk_shift;
	in_stripe = plant(r, regs, true, &rng, buf, plant_below);
	/* the one inside is repaired before anything reads the array */
	r->planted_block = -1;
	out_stripe = plant(r, regs, false, &rng, buf, plant_below);
	if (r->corrupt && stria_geom_mirror(&r->a.g)) {
		/* every copy: a read may go to any of them */
		uint64_t b = lw_rand(&rng) % r->j.blocks, off = lw_rand(&rng) % CP_BLOCK;
		struct stria_loc locs[STRIA_R10_MAX_COPIES];
		uint32_t c;

		stria_r10_map(&r->a.g.r10, b * (CP_BLOCK / SECTOR), locs);
		for (c = 0; c < stria_r10_copies(&r->a.g.r10); c++) {
			uint64_t at = r->a.data_off + locs[c].sector * SECTOR;

			flip_byte(r, locs[c].member, at + off, buf);
			r->may_change[(locs[c].member * r->a.member_bytes + at) / 4096] = 1;
		}
	} else if (r->corrupt) {
		struct stria_stripe st;
		struct stria_loc loc;
		uint64_t b = lw_rand(&rng) % r->j.blocks;

		stria_raid56_map(&r->a.g, b * (CP_BLOCK / SECTOR), &loc, &st);
		flip_byte(r, loc.member, r->a.data_off + loc.sector * SECTOR +
			  lw_rand(&rng) % CP_BLOCK, buf);
		r->may_change[(loc.member * r->a.member_bytes + r->a.data_off +
			       loc.sector * SECTOR) / 4096] = 1;
	}
	t->cuts++;
	t->by_mode[ct->mode]++;
	if (r->out)
		fprintf(r->out, "cut %u at entry %ld (%s, last flush %ld, mark %u%s): %" PRIu64
			" blocks rewritten; %s, %u of %u regions to resync; planted in stripe %ld (inside), %ld (outside)\n",
			k, ct->c, mode_names[ct->mode], ct->flush, ct->mark,
			ct->stopped ? ", stopped" : "", restored,
			v.fresh < 0 ? "no superblock" : v.active ? "active" : "clean",
			nres, nreg, in_stripe, out_stripe);
	if (r->out && r->lose)
		fprintf(r->out, "  dropped %u data blocks of acknowledged, flushed writes\n",
			r->cut_dropped);
	if (r->out && degraded)
		fprintf(r->out, "  role %d %s%s, rebuilt to member sector %" PRIu64
			"; %" PRIu64 " blocks of it in the write hole\n", r->rebuild_role,
			v.failed >> r->rebuild_role & 1 ? "failed" : "rebuilding",
			v.active ? " (dirty: forced)" : "", v.rebuild_offset, nhole);
	t1 = now();
	t->t_restore += t1 - t0;
	t0 = t1;

	/* a failed role's device is left out, as an operator would */
	if (array_assemble(r, &index, msg, sizeof(msg), degraded,
			   degraded && (v.failed >> r->rebuild_role & 1) ?
			   r->rebuild_role : -1)) {
		t->assemble_failed++;
		cut_fail(r, t, k, ct, "assembly refused: %s", msg);
		return;
	}
	t->assembled++;
	t->planted_in += in_stripe >= 0;
	t->planted_out += out_stripe >= 0;
	if (array_wait_idle(index, 600)) {
		t->sync_timeouts++;
		cut_fail(r, t, k, ct, "the resync did not end within 600 s");
	}
	if (v.active) {
		t->resynced++;
		/*
		 * Degraded, what the rebuild writes makes each stripe whole,
		 * and the sync's skipped count is the rebuild's: the parity
		 * check below is the verdict
		 */
		if (r->a.region_shift && !degraded) {
			skip = array_attr(index, "bitmap", "resync_skipped_sectors ");
			if (skip != want_skip) {
				t->coverage_cuts++;
				cut_fail(r, t, k, ct, "the resync skipped %" PRIu64
					 " sectors per member, the bitmaps say %" PRIu64,
					 skip, want_skip);
			}
		}
	} else {
		t->clean++;
	}
	if (degraded) {
		t->degraded_cuts++;
		t->degraded_marked += ct->mark > 0;
		t->resumed_cuts += (v.rebuilding >> r->rebuild_role & 1) && v.rebuild_offset;
		if (role_state(index, r->rebuild_role, rst, sizeof(rst)))
			snprintf(rst, sizeof(rst), "unknown");
		rebuilt = !strcmp(rst, "active");
		if ((v.rebuilding & v.ok) >> r->rebuild_role & 1) {
			/*
			 * the spare has the role and its own superblock says
			 * so: the rebuild goes on and ends (without that
			 * superblock the device is blank to the assembly)
			 */
			if (rebuilt)
				t->rebuilt_cuts++;
			else
				cut_fail(r, t, k, ct, "role %d is %s after the rebuild, not active",
					 r->rebuild_role, rst);
		} else {
			/* failed, no spare yet or not durably: it stays degraded */
			t->unrebuilt_cuts++;
		}
		t->hole_blocks += nhole;
	}
	t1 = now();
	t->t_assemble += t1 - t0;
	t0 = t1;

	lost = verify_data(r, ct, k, index, t, buf);
	if (r->lose && r->cut_dropped) {
		t->lose_expected++;
		t->lose_caught += lost > 0;
	}
	t1 = now();
	t->t_verify += t1 - t0;
	t0 = t1;

	snprintf(msg, sizeof(msg), "/sys/block/stria%u/stria/sync_action", index);
	if (!rebuilt) {
		/* degraded: nothing to check parity against */
		mism = 0;
	} else if (sysfs_write(msg, "check") || array_wait_idle(index, 600)) {
		t->sync_timeouts++;
		cut_fail(r, t, k, ct, "the scrub check did not run or end");
	}
	if (rebuilt)
		mism = array_attr(index, "mismatch_cnt", NULL);
	if (mism != (out_stripe >= 0 ? 8U : 0U)) {
		bad_parity = true;
		t->mismatch_cuts++;
		cut_fail(r, t, k, ct, "the check after the resync counts %" PRIu64
			 " mismatched parity sectors; %u were planted outside the resync",
			 mism, out_stripe >= 0 ? 8U : 0U);
	} else if (out_stripe >= 0) {
		t->found_out++;
	}
	t1 = now();
	t->t_check += t1 - t0;
	t0 = t1;

	if (array_stop(r, index, msg, sizeof(msg))) {
		t->stop_failed++;
		cut_fail(r, t, k, ct, "stop: %s", msg);
		die("cannot go on with the array running");
	}
	if (bad_parity && r->out) {
		/* where, for the report: which stripes, and which side of a rebuild */
		uint64_t nst = r->a.g.member_sectors >> r->a.g.chunk_shift, st;

		fprintf(r->out, "  stripes with parity that does not match, on the members after the stop:");
		for (st = 0; st < nst; st++)
			if ((long)st != out_stripe && stripe_on_devices(r, st))
				fprintf(r->out, " %" PRIu64 "%s", st, !degraded ? "" :
					(st << r->a.g.chunk_shift) < v.rebuild_offset ?
					" (below the rebuild's checkpoint)" : " (above it)");
		fprintf(r->out, "\n");
	}
	if (in_stripe >= 0) {
		uint32_t bad = stripe_on_devices(r, in_stripe);

		if (bad)
			cut_fail(r, t, k, ct, "stripe %ld, planted inside the resync, still has %u bad parity pieces",
				 in_stripe, bad);
		else
			t->repaired_in++;
	}
	t->t_stop += now() - t0;
}

static void split_devices(struct rp *r, char *list, uint32_t *nr)
{
	char *p;

	*nr = 0;
	r->dev = calloc(STRIA_GEOM_MAX_MEMBERS, sizeof(*r->dev));
	r->devfd = calloc(STRIA_GEOM_MAX_MEMBERS, sizeof(*r->devfd));
	if (!r->dev || !r->devfd)
		die("out of memory");
	for (p = strtok(list, ","); p; p = strtok(NULL, ",")) {
		if (*nr == STRIA_GEOM_MAX_MEMBERS)
			die("too many devices");
		r->dev[(*nr)++] = p;
	}
}

int cmd_replay(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "log", required_argument, NULL, 'l' },
		{ "origin", required_argument, NULL, 'o' },
		{ "journal", required_argument, NULL, 'j' },
		{ "devices", required_argument, NULL, 'd' },
		{ "cuts", required_argument, NULL, 'c' },
		{ "seed", required_argument, NULL, 's' },
		{ "cut-log", required_argument, NULL, 'L' },
		{ "summary", required_argument, NULL, 'S' },
		{ "corrupt-data", no_argument, NULL, 'C' },
		{ "full-every", required_argument, NULL, 'F' },
		{ "drop-flushes", no_argument, NULL, 'D' },
		{ "rebuild-role", required_argument, NULL, 'R' },
		{ 0 }
	};
	const char *log_path = NULL, *origin = NULL, *journal = NULL;
	const char *cut_log = NULL, *summary = NULL;
	char *devices = NULL, why[256];
	uint32_t want = 0, ncuts, nsync, nr, i, mark = 0;
	uint64_t seed = 1, rebuild_role = UINT64_MAX;
	struct tally t = { 0 };
	struct rp r = { 0 };
	struct cut *cuts;
	bool stopped = false;
	double t0 = now();
	uint8_t *buf;
	long e, ci;
	FILE *f;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'l': log_path = optarg; break;
		case 'o': origin = optarg; break;
		case 'j': journal = optarg; break;
		case 'd': devices = optarg; break;
		case 'c': want = strcmp(optarg, "all") ? num(optarg, "--cuts") : 0; break;
		case 's': seed = num(optarg, "--seed"); break;
		case 'L': cut_log = optarg; break;
		case 'S': summary = optarg; break;
		case 'C': r.corrupt = true; break;
		case 'F': r.full_every = num(optarg, "--full-every"); break;
		case 'D': r.lose = true; break;
		case 'R': rebuild_role = num(optarg, "--rebuild-role"); break;
		default: die("replay: bad option");
		}
	}
	if (!log_path || !origin || !journal || !devices)
		die("usage: replay --log LOG --origin IMAGE --journal FILE --devices DEV,DEV,... [--cuts N|all] [--seed S] [--cut-log FILE] [--summary FILE] [--corrupt-data] [--drop-flushes] [--full-every N] [--rebuild-role ROLE]");
	if (want && want < 4)
		die("--cuts: at least 4");
	split_devices(&r, devices, &nr);
	log_load(&r.l, log_path);
	f = fopen(journal, "r");
	if (!f || cp_journal_parse(&r.j, f, why, sizeof(why)))
		die("%s: %s", journal, f ? why : strerror(errno));
	fclose(f);
	r.img = image_load(origin, &r.img_len);
	if (!nr || r.img_len % nr || (r.img_len / nr) % 4096)
		die("%s: %" PRIu64 " bytes do not split into %u members of whole 4 KiB blocks",
		    origin, r.img_len, nr);
	arr_init(&r.a, r.img, nr, r.img_len / nr);
	r.rebuild_role = -1;
	r.planted_block = -1;
	if (rebuild_role != UINT64_MAX) {
		if (rebuild_role >= nr)
			die("--rebuild-role %" PRIu64 ": the array has roles 0 to %u",
			    rebuild_role, nr - 1);
		r.rebuild_role = (int)rebuild_role;
	}
	r.hole = calloc(r.j.blocks, 1);
	if (!r.hole)
		die("out of memory");
	for (i = 0; i < nr; i++) {
		r.devfd[i] = open(r.dev[i], O_RDWR | O_DIRECT);
		if (r.devfd[i] < 0)
			die("%s: %s", r.dev[i], strerror(errno));
		if (dev_bytes(r.devfd[i], r.dev[i]) != r.a.member_bytes)
			die("%s: %" PRIu64 " bytes; the members are %" PRIu64,
			    r.dev[i], dev_bytes(r.devfd[i], r.dev[i]), r.a.member_bytes);
	}
	r.ctl = open("/dev/" STRIA_CONTROL_NAME, O_RDWR);
	if (r.ctl < 0)
		die("/dev/" STRIA_CONTROL_NAME ": %s (is stria loaded?)", strerror(errno));
	r.out = cut_log ? fopen(cut_log, "w") : NULL;
	if (cut_log && !r.out)
		die("%s: %s", cut_log, strerror(errno));
	r.lo = calloc(r.j.blocks, sizeof(*r.lo));
	r.hi = calloc(r.j.blocks, sizeof(*r.hi));
	r.zhi = calloc(r.j.blocks, sizeof(*r.zhi));
	r.scratch = xalloc(r.img_len);
	r.may_change = calloc(r.img_len / 4096, 1);
	if (!r.may_change)
		die("out of memory");
	if (!r.full_every)
		r.full_every = 16;
	array_write_set(&r);
	buf = xalloc(IO_CHUNK);
	if (!r.lo || !r.hi || !r.zhi)
		die("out of memory");
	gf_init();

	/* a superblock update is a flush and a FUA write per member */
	if (r.lose) {
		cuts = make_lose_cuts(&r.l, want ? want : 8, seed, &ncuts);
		nsync = 0;
	} else {
		cuts = make_cuts(&r.l, want, 2 * nr, seed, &ncuts, &nsync);
	}
	/* the writer's marks each cut reaches */
	for (ci = 0, e = 0; ci < ncuts; ci++) {
		for (; e <= cuts[ci].c; e++) {
			uint32_t n = mark_number(&r.l.e[e]);

			if (n > r.j.marks)
				die("log entry %ld: mark %u, the journal has %u", e, n,
				    r.j.marks);
			mark = n > mark ? n : mark;
			stopped |= mark_is(&r.l.e[e], CP_MARK_STOPPED);
		}
		cuts[ci].mark = mark;
		cuts[ci].stopped = stopped;
	}
	printf("replay: %ld log entries, %u cut points (%u at flush and FUA entries), RAID%u, %u members, %s\n",
	       r.l.n, ncuts, nsync, r.a.g.level, nr,
	       r.a.region_shift ? "write-intent bitmap" : "no bitmap");
	fflush(stdout);
	for (i = 0; i < ncuts; i++) {
		rp_cut(&r, &cuts[i], i, &t, buf);
		if (r.out)
			fflush(r.out);
	}
	/* a last full pass: nothing written where it should not be */
	rp_undo(&r);
	{
		uint64_t stray = 0;

		rp_sync_devices(&r, buf, true, &stray);
		t.full_syncs++;
		if (stray) {
			t.stray_blocks += stray;
			t.failures++;
			printf("after the last cut: %" PRIu64 " blocks changed that neither the log nor the array's superblocks, bitmaps and parity account for\n",
			       stray);
		}
	}
	printf("cuts: %u (%u prefix, %u subset, %u torn, %u losing the cache after a dropped flush), %u at flush and FUA entries; the array was dirty at %u, clean at %u\n",
	       t.cuts, t.by_mode[LW_CUT_PREFIX], t.by_mode[LW_CUT_SUBSET],
	       t.by_mode[LW_CUT_TORN], t.by_mode[LW_CUT_LOSE], nsync, t.resynced, t.clean);
	if (r.lose)
		printf("dropped flushes: %u cuts lost data blocks of acknowledged, flushed writes; the data check found lost writes at %u of them\n",
		       t.lose_expected, t.lose_caught);
	printf("unflushed tail: %" PRIu64 " KiB kept, %" PRIu64 " KiB dropped\n",
	       t.kept >> 10, t.dropped >> 10);
	printf("assembly refused: %u; syncs that did not end: %u\n",
	       t.assemble_failed, t.sync_timeouts);
	printf("lost acknowledged writes: %" PRIu64 " blocks at %u cuts\n",
	       t.lost_blocks, t.lost_cuts);
	printf("neither old nor new: %" PRIu64 " blocks at %u cuts\n",
	       t.oon_blocks, t.oon_cuts);
	printf("blocks read as zeroes a write-zeroes or discard request wrote: %" PRIu64
	       " (%" PRIu64 " where data was allowed too)\n", t.zero_reads, t.zero_or_old);
	printf("%s: %u cuts where the check after the resync found other than the planted mismatch\n",
	       stria_geom_mirror(&r.a.g) ? "copies" : "parity", t.mismatch_cuts);
	if (stria_geom_mirror(&r.a.g))
		printf("reads of the block planted outside, not checked against the journal: %" PRIu64 "\n",
		       t.planted_reads);
	printf("planted inside the regions to resync: %u, repaired by the resync: %u\n",
	       t.planted_in, t.repaired_in);
	printf("planted outside them: %u, found by the check: %u\n",
	       t.planted_out, t.found_out);
	if (r.a.region_shift)
		printf("resync coverage other than the bitmaps say: %u cuts\n",
		       t.coverage_cuts);
	if (r.rebuild_role >= 0)
		printf("role %d failed or being rebuilt at %u cuts (%u of them after the workload's first mark; the rebuild going on from a checkpoint at %u): rebuilt after the assembly at %u, no spare yet at %u; %" PRIu64
		       " blocks in the write hole, %" PRIu64 " of them read wrong or failed\n",
		       r.rebuild_role, t.degraded_cuts, t.degraded_marked, t.resumed_cuts, t.rebuilt_cuts,
		       t.unrebuilt_cuts, t.hole_blocks, t.hole_wrong);
	printf("members compared whole at %u points: %" PRIu64 " blocks changed outside the superblocks, bitmaps, parity and the log's writes\n",
	       t.full_syncs, t.stray_blocks);
	printf("time: %.1f s, %.2f s a cut (restore %.1f, assemble and resync %.1f, verify %.1f, check %.1f, stop %.1f)\n",
	       now() - t0, (now() - t0) / (t.cuts ? t.cuts : 1), t.t_restore,
	       t.t_assemble, t.t_verify, t.t_check, t.t_stop);
	if (summary) {
		f = fopen(summary, "w");
		if (!f)
			die("%s: %s", summary, strerror(errno));
		fprintf(f, "cuts %u\nsync_cuts %u\nprefix %u\nsubset %u\ntorn %u\n"
			"dirty %u\nclean %u\nassemble_failed %u\nsync_timeouts %u\n"
			"lost_blocks %" PRIu64 "\nlost_cuts %u\noon_blocks %" PRIu64
			"\noon_cuts %u\nmismatch_cuts %u\nplanted_in %u\nrepaired_in %u\n"
			"planted_out %u\nfound_out %u\ncoverage_cuts %u\nstray_blocks %" PRIu64
			"\nfailures %u\nlose %u\nlose_expected %u\nlose_caught %u\nseconds %.0f\n"
			"zero_reads %" PRIu64 "\nzero_or_old %" PRIu64 "\n"
			"degraded %u\ndegraded_marked %u\nresumed %u\nrebuilt %u\nunrebuilt %u\nhole_blocks %" PRIu64
			"\nhole_wrong %" PRIu64 "\nplanted_reads %" PRIu64 "\n",
			t.cuts, nsync, t.by_mode[0], t.by_mode[1], t.by_mode[2],
			t.resynced, t.clean, t.assemble_failed, t.sync_timeouts,
			t.lost_blocks, t.lost_cuts, t.oon_blocks, t.oon_cuts,
			t.mismatch_cuts, t.planted_in, t.repaired_in, t.planted_out,
			t.found_out, t.coverage_cuts, t.stray_blocks, t.failures,
			t.by_mode[LW_CUT_LOSE], t.lose_expected, t.lose_caught, now() - t0,
			t.zero_reads, t.zero_or_old, t.degraded_cuts, t.degraded_marked, t.resumed_cuts,
			t.rebuilt_cuts, t.unrebuilt_cuts, t.hole_blocks, t.hole_wrong,
			t.planted_reads);
		fclose(f);
	}
	if (r.out)
		fclose(r.out);
	return t.failures ? EXIT_CHECK : 0;
}
