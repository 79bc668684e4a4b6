// SPDX-License-Identifier: GPL-2.0
/*
 * User-space tests of RAID5/6 parity: the reference GF(2^8) code (gf256.h)
 * against known answers, recovery of every single and every pair of lost
 * blocks, read-modify-write against full recomputation, and the parity plan
 * (drivers/stria/parity_plan.h): its segments against brute force, and every
 * plan carried out on stripes laid out by geom.h, reading only what the plan
 * says, giving the parity a full recomputation gives. TAP output on stdout.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "geom.h"
#include "parity_plan.h"
#include "gf256.h"
#include "tap.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_DATA	16

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

/* xorshift64*: the same numbers on every run */
static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static void fill(uint8_t *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (uint8_t)rnd();
}

static void test_field(void)
{
	unsigned int a, b, seen[256] = { 0 }, bad = 0;

	for (a = 0; a < 255; a++)
		if (seen[gf_exp[a]]++ || gf_exp[a] == 0)
			bad++;
	tap(bad == 0 && gf_exp[255] == 1,
	    "g = 2 generates the 255 nonzero elements");
	tap(gf_pow2(8) == 0x1d && gf_mul2(0x80) == 0x1d &&
	    gf_mul(0x80, 2) == 0x1d, "g^8 = 0x1d (polynomial 0x11d)");
	bad = 0;
	for (a = 0; a < 256; a++) {
		if (gf_mul2((uint8_t)a) != gf_mul((uint8_t)a, 2))
			bad++;
		if (a && gf_mul((uint8_t)a, gf_inv((uint8_t)a)) != 1)
			bad++;
		for (b = 0; b < 256; b += 17)
			if (gf_mul((uint8_t)a, (uint8_t)b) !=
			    gf_mul((uint8_t)b, (uint8_t)a))
				bad++;
	}
	tap(bad == 0, "multiplication: by g, inverses, commutative");
}

/* Q of one byte per block, by hand: D[z] alone contributes g^z * D[z]. */
static void test_known_answers(void)
{
	uint8_t d[16][1], p[1], q[1], *ptrs[18];
	unsigned int z, bad = 0;

	for (z = 0; z < 16; z++) {
		memset(d, 0, sizeof(d));
		d[z][0] = 1;
		for (unsigned int i = 0; i < 16; i++)
			ptrs[i] = d[i];
		ptrs[16] = p;
		ptrs[17] = q;
		gf_gen_pq(16, 1, ptrs);
		if (p[0] != 1 || q[0] != gf_pow2(z))
			bad++;
	}
	tap(bad == 0, "a 1 in slot z alone gives P = 1, Q = g^z");
	memset(d, 0, sizeof(d));
	d[0][0] = d[1][0] = d[2][0] = 1;
	for (z = 0; z < 3; z++)
		ptrs[z] = d[z];
	ptrs[3] = p;
	ptrs[4] = q;
	gf_gen_pq(3, 1, ptrs);
	tap(p[0] == 1 && q[0] == 7, "D = 1, 1, 1: P = 1, Q = 1 + 2 + 4 = 7");
	d[0][0] = 0;
	d[1][0] = 0x80;
	d[2][0] = 0;
	gf_gen_pq(3, 1, ptrs);
	tap(p[0] == 0x80 && q[0] == 0x1d, "D = 0, 0x80, 0: P = 0x80, Q = 0x1d");
}

/*
 * Random data: Q by Horner equals Q as a sum of products; erasing any one
 * block or any two and recovering gives back every byte.
 */
static void test_recovery(int ndata, size_t len)
{
	static uint8_t blk[MAX_DATA + 2][4096], orig[MAX_DATA + 2][4096],
		       qsum[4096];
	uint8_t *ptrs[MAX_DATA + 2];
	int a, b, i, cases = 0, bad = 0;

	for (i = 0; i < ndata + 2; i++)
		ptrs[i] = blk[i];
	for (i = 0; i < ndata; i++)
		fill(blk[i], len);
	gf_gen_pq(ndata, len, ptrs);
	gf_gen_q_sum(ndata, len, ptrs, qsum);
	if (memcmp(qsum, blk[ndata + 1], len))
		bad++;
	memcpy(orig, blk, sizeof(blk));
	for (a = 0; a < ndata + 2; a++) {
		for (b = a; b < ndata + 2; b++) {
			/* a == b: a single loss, the other parity erased too
			 * when a is data (recovered from P alone) */
			fill(blk[a], len);
			if (b != a)
				fill(blk[b], len);
			if (b == a && a < ndata)
				gf_recover(ndata, len, ptrs, a, ndata + 1);
			else if (b == a)
				gf_recover(ndata, len, ptrs, ndata, ndata + 1);
			else
				gf_recover(ndata, len, ptrs, a, b);
			cases++;
			for (i = 0; i < ndata + 2; i++)
				if (memcmp(blk[i], orig[i], len))
					bad++;
			memcpy(blk, orig, sizeof(blk));
		}
	}
	tap(bad == 0, "recovery ndata=%d len=%zu: %d erasures of 1 or 2 blocks, "
	    "%d wrong", ndata, len, cases, bad);
}

/*
 * Read-modify-write: P ^= old ^ new and Q ^= g^z (old ^ new) for each
 * changed block z gives what a full recomputation gives.
 */
static void test_rmw(int ndata, size_t len)
{
	static uint8_t blk[MAX_DATA + 2][4096], nd[4096], full[2][4096];
	uint8_t *ptrs[MAX_DATA + 2], *fptrs[MAX_DATA + 2];
	int i, round, bad = 0;
	size_t b;

	for (i = 0; i < ndata + 2; i++)
		ptrs[i] = fptrs[i] = blk[i];
	fptrs[ndata] = full[0];
	fptrs[ndata + 1] = full[1];
	for (i = 0; i < ndata; i++)
		fill(blk[i], len);
	gf_gen_pq(ndata, len, ptrs);
	for (round = 0; round < 3 * ndata; round++) {
		int z = (int)(rnd() % (uint64_t)ndata);

		fill(nd, len);
		for (b = 0; b < len; b++) {
			uint8_t delta = blk[z][b] ^ nd[b];

			blk[ndata][b] ^= delta;
			blk[ndata + 1][b] ^= gf_mul(gf_pow2(z), delta);
			blk[z][b] = nd[b];
		}
		gf_gen_pq(ndata, len, fptrs);
		if (memcmp(full[0], blk[ndata], len) ||
		    memcmp(full[1], blk[ndata + 1], len))
			bad++;
	}
	tap(bad == 0, "read-modify-write ndata=%d len=%zu: %d updates, %d wrong",
	    ndata, len, 3 * ndata, bad);
}

static void test_choose(void)
{
	static const struct {
		u32 nd, np, w;
		bool rmw_ok;
		enum stria_parity_method want;
		u32 reads;
	} t[] = {
		{ 4, 1, 4, true, STRIA_PARITY_FULL, 0 },
		{ 4, 1, 1, true, STRIA_PARITY_RMW, 2 },	/* 2 < 3 */
		{ 4, 1, 2, true, STRIA_PARITY_RCW, 2 },	/* 3 > 2 */
		{ 3, 1, 1, true, STRIA_PARITY_RCW, 2 },	/* tie 2 = 2 */
		{ 3, 1, 2, true, STRIA_PARITY_RCW, 1 },	/* 3 > 1 */
		{ 5, 1, 2, true, STRIA_PARITY_RCW, 3 },	/* tie 3 = 3 */
		{ 4, 2, 1, true, STRIA_PARITY_RCW, 3 },	/* tie 3 = 3 */
		{ 6, 2, 1, true, STRIA_PARITY_RMW, 3 },	/* 3 < 5 */
		{ 6, 2, 1, false, STRIA_PARITY_RCW, 5 },	/* no xor_syndrome */
		{ 6, 2, 2, true, STRIA_PARITY_RCW, 4 },	/* tie 4 = 4 */
		{ 62, 2, 1, true, STRIA_PARITY_RMW, 3 },
		{ 62, 2, 61, true, STRIA_PARITY_RCW, 1 },
		{ 63, 1, 63, false, STRIA_PARITY_FULL, 0 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		enum stria_parity_method m =
			stria_parity_choose(t[i].nd, t[i].np, t[i].w,
					    t[i].rmw_ok);
		u32 reads = stria_parity_reads(t[i].nd, t[i].np, t[i].w, m);

		tap(m == t[i].want && reads == t[i].reads,
		    "choose ndata=%u nparity=%u written=%u rmw %s: method %d "
		    "reads %u (got %d, %u)", t[i].nd, t[i].np, t[i].w,
		    t[i].rmw_ok ? "ok" : "unavailable", t[i].want, t[i].reads,
		    m, reads);
	}
}

/*
 * A worked example, also in the KUnit suite stria-parity: on a RAID5 of 5
 * with 8 KiB chunks, a write from sector 10 of data index 0 to sector 4 of
 * data index 2 of stripe 3 gives three segments: [0, 4) written in 1 and 2,
 * RCW reading 0 and 3; [4, 10) written in 1, RMW reading 1 and P; [10, 16)
 * written in 0 and 1, RCW reading 2 and 3. With two parities the middle one
 * is RCW too.
 */
static void test_plan_example(void)
{
	struct stria_parity_seg s[STRIA_PARITY_ROW_SEGS];
	struct stria_range w[4];
	struct stria_geom g;
	u32 n;

	if (stria_geom_init(&g, 5, 2, 5, 16, 160)) {
		tap(0, "plan example: init failed");
		return;
	}
	stria_raid56_row_ranges(&g, 3 * 64 + 10, 32 + 4 - 10, 3, w);
	tap(w[0].start == 10 && w[0].end == 16 && w[1].start == 0 &&
	    w[1].end == 16 && w[2].start == 0 && w[2].end == 4 &&
	    w[3].start == w[3].end, "plan example: the written ranges");
	n = stria_parity_plan(4, 1, true, w, s, STRIA_PARITY_ROW_SEGS);
	tap(n == 3 &&
	    s[0].start == 0 && s[0].end == 4 && s[0].written == 0x6 &&
	    s[0].method == STRIA_PARITY_RCW && s[0].read == 0x9 &&
	    s[0].reads == 2 &&
	    s[1].start == 4 && s[1].end == 10 && s[1].written == 0x2 &&
	    s[1].method == STRIA_PARITY_RMW && s[1].read == 0x2 &&
	    s[1].reads == 2 &&
	    s[2].start == 10 && s[2].end == 16 && s[2].written == 0x3 &&
	    s[2].method == STRIA_PARITY_RCW && s[2].read == 0xc &&
	    s[2].reads == 2, "plan example: RCW, RMW, RCW");
	n = stria_parity_plan(4, 2, true, w, s, STRIA_PARITY_ROW_SEGS);
	tap(n == 3 && s[1].method == STRIA_PARITY_RCW && s[1].read == 0xd &&
	    s[1].reads == 3, "plan example: with P and Q, RCW throughout");
}

/* Check one plan against the ranges it was made from, column by column. */
static int check_plan(u32 nd, u32 np, bool rmw_ok, u32 chunk,
		      const struct stria_range *w,
		      const struct stria_parity_seg *segs, u32 nseg)
{
	u32 c, i, s = 0, nw;
	u64 mask;

	for (i = 0; i < nseg; i++) {
		if (segs[i].start >= segs[i].end || segs[i].end > chunk ||
		    (i && segs[i].start < segs[i - 1].end))
			return 0;
		nw = (u32)__builtin_popcountll(segs[i].written);
		if (segs[i].method != stria_parity_choose(nd, np, nw, rmw_ok) ||
		    segs[i].reads !=
		    stria_parity_reads(nd, np, nw, segs[i].method))
			return 0;
		if (segs[i].read != (segs[i].method == STRIA_PARITY_RMW ?
				     segs[i].written :
				     segs[i].method == STRIA_PARITY_RCW ?
				     ((1ULL << nd) - 1) & ~segs[i].written : 0))
			return 0;
	}
	for (c = 0; c < chunk; c++) {
		mask = 0;
		for (i = 0; i < nd; i++)
			if (w[i].start <= c && c < w[i].end)
				mask |= 1ULL << i;
		while (s < nseg && segs[s].end <= c)
			s++;
		if (s < nseg && segs[s].start <= c) {
			if (segs[s].written != mask)
				return 0;
		} else if (mask) {
			return 0;
		}
	}
	return 1;
}

/*
 * Random sets of ranges, and random contiguous writes: each plan covers
 * exactly the written columns with the right masks, costs and methods; a
 * contiguous write never needs more than STRIA_PARITY_ROW_SEGS segments, and
 * stria_raid56_row_ranges() agrees with the sector-by-sector map.
 */
static void test_plan_brute(u32 level, u32 n)
{
	struct stria_range w[64];
	struct stria_parity_seg segs[2 * 64];
	struct stria_geom g;
	struct stria_loc loc;
	struct stria_stripe st;
	u32 nd, np, chunk = 16, i, nseg, round, bad = 0, maxseg = 0;
	u64 s, len, x, stripe;

	if (stria_geom_init(&g, level, STRIA_LAYOUT_LEFT_SYMMETRIC, n, chunk,
			    chunk * 8ULL)) {
		tap(0, "plan brute raid%u n=%u: init failed", level, n);
		return;
	}
	nd = stria_geom_nr_data(&g);
	np = stria_geom_nr_parity(&g);
	for (round = 0; round < 2000; round++) {
		for (i = 0; i < nd; i++) {
			w[i].start = (u32)(rnd() % (chunk + 1));
			w[i].end = (u32)(rnd() % (chunk + 1));
			if (w[i].start > w[i].end || rnd() % 3 == 0)
				w[i].start = w[i].end = (u32)(rnd() % chunk);
		}
		nseg = stria_parity_plan(nd, np, round & 1, w, segs,
					 ARRAY_SIZE(segs));
		if (nseg > 2 * nd - 1 ||
		    !check_plan(nd, np, round & 1, chunk, w, segs, nseg))
			bad++;
		/* a short array is filled as far as it goes */
		if (nseg > 1 && stria_parity_plan(nd, np, round & 1, w, segs,
						  1) != nseg)
			bad++;
	}
	for (round = 0; round < 2000; round++) {
		u32 want[64][2];

		s = rnd() % (stria_geom_array_sectors(&g) - 1);
		len = 1 + rnd() % (stria_geom_array_sectors(&g) - s);
		if (round & 1 && len > 3ULL * nd * chunk)
			len = 1 + len % (3ULL * nd * chunk);
		stria_raid56_map(&g, s, &loc, &st);
		for (stripe = st.stripe;
		     stripe * nd * chunk < s + len; stripe++) {
			for (i = 0; i < nd; i++) {
				want[i][0] = chunk;
				want[i][1] = 0;
			}
			for (x = stripe * nd * chunk;
			     x < (stripe + 1) * nd * chunk; x++) {
				if (x < s || x >= s + len)
					continue;
				stria_raid56_map(&g, x, &loc, &st);
				i = st.index;
				if (loc.sector % chunk < want[i][0])
					want[i][0] = loc.sector % chunk;
				want[i][1] = loc.sector % chunk + 1;
			}
			stria_raid56_row_ranges(&g, s, len, stripe, w);
			for (i = 0; i < nd; i++) {
				if (want[i][1] == 0)
					want[i][0] = 0;
				if ((w[i].start != w[i].end ||
				     want[i][1] != 0) &&
				    (w[i].start != want[i][0] ||
				     w[i].end != want[i][1]))
					bad++;
			}
			nseg = stria_parity_plan(nd, np, true, w, segs,
						 ARRAY_SIZE(segs));
			if (nseg > maxseg)
				maxseg = nseg;
			if (nseg > STRIA_PARITY_ROW_SEGS ||
			    !check_plan(nd, np, true, chunk, w, segs, nseg))
				bad++;
		}
	}
	tap(bad == 0 && maxseg == STRIA_PARITY_ROW_SEGS,
	    "plan raid%u n=%u: random ranges and contiguous writes, %u bad, "
	    "at most %u segments per stripe", level, n, bad, maxseg);
}

/*
 * A modelled array for carrying out plans: members hold bytes (SECT per
 * sector), data placed by geom.h, Q summed in slot order.
 */
#define SECT		4	/* bytes per sector: the parity math is bytewise */
#define M_CHUNK		8	/* sectors */
#define M_ROWS		6
#define M_CB		(M_CHUNK * SECT)	/* bytes per chunk */

struct model {
	struct stria_geom g;
	u32 nd, np;
	uint8_t mem[64][M_ROWS * M_CB];
};

/* P and Q of @stripe computed from its data into @p and @q. */
static void model_parity(struct model *m, u64 stripe, uint8_t *p, uint8_t *q)
{
	uint8_t *ptrs[MAX_DATA + 2];
	u32 k, member;

	for (k = 0; k < m->nd; k++) {
		member = stria_raid56_data_member(&m->g, stripe, k);
		ptrs[stria_raid56_slot(&m->g, stripe, k)] =
			m->mem[member] + stripe * M_CB;
	}
	ptrs[m->nd] = p;
	ptrs[m->nd + 1] = q;
	gf_gen_pq((int)m->nd, M_CB, ptrs);
}

/*
 * New parity of one segment of @stripe from the new data @newd (by data
 * index), the old data the plan reads and, under RMW, the old parity. The
 * segment sees nothing else of the old stripe: the rest is garbage.
 */
static void model_segment(struct model *m, u64 stripe,
			  const struct stria_parity_seg *sg,
			  uint8_t newd[][M_CB])
{
	uint8_t old[MAX_DATA + 2][M_CB];
	size_t a = sg->start * SECT, e = sg->end * SECT, b;
	size_t off = stripe * M_CB;
	u32 k, p, q, slot[MAX_DATA];
	bool rmw = sg->method == STRIA_PARITY_RMW;

	stria_raid56_parity_members(&m->g, stripe, &p, &q);
	for (k = 0; k < m->nd + 2; k++)
		fill(old[k], M_CB);
	for (k = 0; k < m->nd; k++) {
		slot[k] = stria_raid56_slot(&m->g, stripe, k);
		if (sg->read & (1ULL << k))
			memcpy(old[slot[k]] + a, m->mem[stria_raid56_data_member(
				&m->g, stripe, k)] + off + a, e - a);
	}
	if (rmw) {
		memcpy(old[m->nd] + a, m->mem[p] + off + a, e - a);
		if (m->np == 2)
			memcpy(old[m->nd + 1] + a, m->mem[q] + off + a, e - a);
	}
	for (b = a; b < e; b++) {
		uint8_t np = rmw ? old[m->nd][b] : 0;
		uint8_t nq = rmw ? old[m->nd + 1][b] : 0;

		for (k = 0; k < m->nd; k++) {
			bool wr = sg->written & (1ULL << k);
			uint8_t v = wr ? newd[k][b] : old[slot[k]][b];

			if (rmw && !wr)
				continue;
			if (rmw)
				v ^= old[slot[k]][b];
			np ^= v;
			nq ^= gf_mul(gf_pow2(slot[k]), v);
		}
		m->mem[p][off + b] = np;
		if (m->np == 2)
			m->mem[q][off + b] = nq;
	}
}

/* One write of @len sectors at @s, planned and carried out stripe by stripe. */
static void model_write(struct model *m, u64 s, u64 len, bool rmw_ok,
			u32 *methods)
{
	uint8_t newd[MAX_DATA][M_CB];
	struct stria_range w[MAX_DATA];
	struct stria_parity_seg segs[2 * MAX_DATA];
	u64 stripe = s / stria_geom_stripe_sectors(&m->g);
	u32 i, k, nseg, member;

	for (; stripe * stria_geom_stripe_sectors(&m->g) < s + len; stripe++) {
		stria_raid56_row_ranges(&m->g, s, len, stripe, w);
		for (k = 0; k < m->nd; k++)
			fill(newd[k], M_CB);
		nseg = stria_parity_plan(m->nd, m->np, rmw_ok, w, segs,
					 ARRAY_SIZE(segs));
		for (i = 0; i < nseg && i < ARRAY_SIZE(segs); i++) {
			methods[segs[i].method]++;
			model_segment(m, stripe, &segs[i], newd);
		}
		for (k = 0; k < m->nd; k++) {
			member = stria_raid56_data_member(&m->g, stripe, k);
			memcpy(m->mem[member] + stripe * M_CB + w[k].start * SECT,
			       newd[k] + w[k].start * SECT,
			       (w[k].end - w[k].start) * SECT);
		}
	}
}

/*
 * Carry out plans on a modelled array: random writes, each segment reading
 * only what its plan says (a forgotten read shows up as wrong parity); after
 * every write each stripe's parity must equal a full recomputation from the
 * data, and each method must have been used where it can be the cheapest.
 */
static void test_plan_executed(u32 level, u32 layout, u32 n)
{
	static struct model m;
	uint8_t chk[2][M_CB];
	u32 round, p, q, bad = 0, methods[3] = { 0 };
	u64 s, len, stripe, total;

	if (stria_geom_init(&m.g, level, layout, n, M_CHUNK,
			    M_ROWS * M_CHUNK) ||
	    stria_geom_nr_data(&m.g) > MAX_DATA) {
		tap(0, "plan executed raid%u layout %u n=%u: init failed",
		    level, layout, n);
		return;
	}
	m.nd = stria_geom_nr_data(&m.g);
	m.np = stria_geom_nr_parity(&m.g);
	total = stria_geom_array_sectors(&m.g);
	for (p = 0; p < n; p++)
		fill(m.mem[p], sizeof(m.mem[p]));
	for (stripe = 0; stripe < M_ROWS; stripe++) {
		stria_raid56_parity_members(&m.g, stripe, &p, &q);
		model_parity(&m, stripe, m.mem[p] + stripe * M_CB,
			     m.np == 2 ? m.mem[q] + stripe * M_CB : chk[1]);
	}
	for (round = 0; round < 400; round++) {
		s = rnd() % total;
		len = 1 + rnd() % (round % 2 ? 3 * M_CHUNK : total - s);
		if (s + len > total)
			len = total - s;
		model_write(&m, s, len, round % 4 != 3, methods);
		for (stripe = 0; stripe < M_ROWS; stripe++) {
			stria_raid56_parity_members(&m.g, stripe, &p, &q);
			model_parity(&m, stripe, chk[0], chk[1]);
			if (memcmp(chk[0], m.mem[p] + stripe * M_CB, M_CB) ||
			    (m.np == 2 &&
			     memcmp(chk[1], m.mem[q] + stripe * M_CB, M_CB)))
				bad++;
		}
	}
	/* RMW is never cheaper with fewer than nparity + 3 data chunks */
	tap(bad == 0 && methods[0] && methods[2] &&
	    !methods[1] == (m.nd < m.np + 3),
	    "plan executed raid%u layout %u n=%u: 400 writes, %u full, %u rmw, "
	    "%u rcw segments, %u inconsistent stripe checks", level, layout, n,
	    methods[0], methods[1], methods[2], bad);
}

/* @nd ranges from a compact "start-end" list, "-" for an empty chunk. */
static void ranges_of(struct stria_range *r, u32 nd, const u32 *se)
{
	u32 i;

	for (i = 0; i < nd; i++) {
		r[i].start = se[2 * i];
		r[i].end = se[2 * i + 1];
	}
}

/* The merge rule of parked writes (stria_parity_mergeable()). */
static void test_mergeable_examples(void)
{
	static const struct {
		u32 a[6], b[6];
		bool want;
		const char *what;
	} cases[] = {
		{ { 0, 16, 0, 0, 0, 0 }, { 0, 0, 0, 16, 0, 16 }, true,
		  "a tail and the head that fills the stripe" },
		{ { 0, 4, 0, 0, 0, 0 }, { 4, 8, 0, 0, 0, 0 }, true,
		  "two writes of one chunk that touch" },
		{ { 0, 4, 0, 0, 0, 0 }, { 2, 6, 0, 0, 0, 0 }, true,
		  "two writes of one chunk that overlap" },
		{ { 0, 4, 0, 0, 0, 0 }, { 6, 8, 0, 0, 0, 0 }, false,
		  "a gap in one chunk" },
		{ { 0, 4, 0, 0, 0, 0 }, { 0, 0, 0, 4, 0, 0 }, false,
		  "the next chunk while the first does not reach its end" },
		{ { 0, 16, 0, 0, 0, 0 }, { 0, 0, 0, 0, 0, 4 }, false,
		  "a chunk skipped" },
		{ { 0, 16, 0, 0, 0, 0 }, { 0, 0, 2, 6, 0, 0 }, false,
		  "the next chunk not from its start" },
		{ { 8, 16, 0, 0, 0, 0 }, { 0, 0, 0, 16, 0, 8 }, true,
		  "a write into the first chunk's end and on" },
		{ { 0, 0, 0, 0, 0, 0 }, { 0, 0, 0, 0, 0, 0 }, false,
		  "nothing written" },
	};
	struct stria_range a[3], b[3];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		ranges_of(a, 3, cases[i].a);
		ranges_of(b, 3, cases[i].b);
		tap(stria_parity_mergeable(3, a, b, 0, 16) == cases[i].want &&
		    stria_parity_mergeable(3, b, a, 0, 16) == cases[i].want,
		    "mergeable: %s: %s", cases[i].what,
		    cases[i].want ? "yes" : "no");
	}
}

/* The part of slice positions [@s, @e) in chunk @i of @cols columns. */
static struct stria_range clip(u32 s, u32 e, u32 i, u32 cols)
{
	struct stria_range r = { 0, 0 };
	u32 base = i * cols;

	if (s < base + cols && e > base) {
		r.start = s > base ? s - base : 0;
		r.end = e < base + cols ? e - base : cols;
	}
	return r;
}

/*
 * Against brute force on a slice of @cols columns of @nd chunks, for
 * every pair of contiguous writes: mergeable exactly when their union is
 * one contiguous write (they touch or overlap in slice order), the union
 * is that write, and its plan fits STRIA_PARITY_ROW_SEGS segments.
 */
static void test_mergeable_brute(u32 nd, u32 cols)
{
	struct stria_range a[MAX_DATA], b[MAX_DATA], u[MAX_DATA], m;
	struct stria_parity_seg segs[2 * MAX_DATA];
	u32 total = nd * cols, s1, e1, s2, e2, i, bad = 0, pairs = 0;

	for (s1 = 0; s1 < total; s1++)
	for (e1 = s1 + 1; e1 <= total; e1++)
	for (s2 = 0; s2 < total; s2++)
	for (e2 = s2 + 1; e2 <= total; e2++) {
		bool want = s2 <= e1 && s1 <= e2;

		for (i = 0; i < nd; i++) {
			a[i] = clip(s1, e1, i, cols);
			b[i] = clip(s2, e2, i, cols);
			u[i] = clip(s1 < s2 ? s1 : s2, e1 > e2 ? e1 : e2, i, cols);
		}
		pairs++;
		if (stria_parity_mergeable(nd, a, b, 0, cols) != want) {
			bad++;
			continue;
		}
		if (!want)
			continue;
		for (i = 0; i < nd; i++) {
			m = stria_range_union(&a[i], &b[i]);
			if (m.start != u[i].start || m.end != u[i].end)
				bad++;
		}
		if (stria_parity_plan(nd, 1, true, u, segs, 2 * MAX_DATA) >
		    STRIA_PARITY_ROW_SEGS)
			bad++;
	}
	tap(bad == 0, "mergeable, %u chunks of %u columns: %u pairs of contiguous writes agree with brute force",
	    nd, cols, pairs);
}

int main(void)
{
	static const int ndatas[] = { 2, 3, 4, 5, 8, 13, 16 };
	static const size_t lens[] = { 1, 64, 4096 };
	static const u32 r5[] = { 3, 4, 5, 8 }, r6[] = { 4, 5, 8, 10 };
	size_t i, j;
	u32 layout;

	gf_init();
	printf("TAP version 13\n");
	test_field();
	test_known_answers();
	for (i = 0; i < ARRAY_SIZE(ndatas); i++)
		for (j = 0; j < ARRAY_SIZE(lens); j++) {
			test_recovery(ndatas[i], lens[j]);
			test_rmw(ndatas[i], lens[j]);
		}
	test_choose();
	test_plan_example();
	test_plan_brute(5, 4);
	test_plan_brute(5, 13);
	test_plan_brute(6, 6);
	test_plan_brute(6, 64);
	test_mergeable_examples();
	test_mergeable_brute(2, 4);
	test_mergeable_brute(3, 4);
	test_mergeable_brute(4, 3);
	for (layout = 0; layout < 4; layout++) {
		for (i = 0; i < ARRAY_SIZE(r5); i++)
			test_plan_executed(5, layout, r5[i]);
		for (i = 0; i < ARRAY_SIZE(r6); i++)
			test_plan_executed(6, layout, r6[i]);
	}
	return tap_exit_code();
}
