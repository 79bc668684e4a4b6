// SPDX-License-Identifier: GPL-2.0
/*
 * User-space tests of RAID6 mismatch location (drivers/stria/raid6_locate.h):
 * its log table against the reference field (gf256.h); every single wrong
 * byte of every slot, P and Q named exactly; and properties over random
 * stripes laid out by geom.h in all four layouts: every single-chunk
 * corruption of at least STRIA_LOCATE_MIN_BYTES bytes is located to the
 * member that holds it and its fix gives back the original bytes; smaller
 * ones are unlocatable; two-chunk corruptions are never located to a chunk
 * (whatever their sizes and overlap); evidence gathered in pieces and
 * merged gives the verdict of one scan. TAP output on stdout.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "geom.h"
#include "raid6_locate.h"
/* gf256.h has helpers this test has no use for */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "gf256.h"
#pragma GCC diagnostic pop
#include "tap.h"

#define MAX_MEMBERS	20
#define MAX_LEN		2048

static uint64_t rng_state = 0x243f6a8885a308d3ULL;

/* xorshift64*: the same numbers on every run */
static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static uint32_t rnd_below(uint32_t n)
{
	return (uint32_t)(rnd() % n);
}

/* a nonzero byte: an error that changes what it hits */
static uint8_t rnd_err(void)
{
	return (uint8_t)(1 + rnd_below(255));
}

static void test_table(void)
{
	unsigned int x, bad = 0;

	for (x = 1; x < 256; x++)
		if (stria_gf_log[x] != gf_log[x])
			bad++;
	tap(bad == 0, "stria_gf_log is log_2 in GF(2^8) mod 0x11d (%u entries differ)",
	    bad);
}

/* One byte position: D[z] ^ e gives dP = e, dQ = g^z * e. */
static void test_every_byte(void)
{
	unsigned int nd, z, e, bad = 0, n = 0;

	for (nd = 1; nd <= 62; nd++) {
		for (z = 0; z < nd; z++) {
			for (e = 1; e < 256; e++) {
				uint8_t zero = 0, dp = (uint8_t)e,
					dq = gf_mul(gf_pow2(z), (uint8_t)e);
				struct stria_locate l;
				uint32_t slot = ~0U;

				stria_locate_init(&l);
				stria_locate_add(&l, nd, &dp, &zero, &dq, &zero, 1);
				if (stria_locate_one(&l, &slot) != STRIA_LOCATE_DATA ||
				    slot != z)
					bad++;
				/* one byte is too few for a stripe's verdict */
				if (stria_locate_result(&l, &slot) !=
				    STRIA_LOCATE_UNLOCATABLE)
					bad++;
				n++;
			}
		}
	}
	tap(bad == 0, "every wrong byte of every data slot (1..62 data chunks) is named by its slot, and is too small alone (%u cases, %u wrong)",
	    n, bad);
	bad = 0;
	for (nd = 1; nd <= 62; nd++) {
		for (z = nd; z < 255; z++) {
			uint8_t zero = 0, dp = (uint8_t)(1 + rnd_below(255)),
				dq = gf_mul(gf_pow2(z), dp);
			struct stria_locate l;
			uint32_t slot;

			stria_locate_init(&l);
			stria_locate_add(&l, nd, &dp, &zero, &dq, &zero, 1);
			if (stria_locate_one(&l, &slot) != STRIA_LOCATE_UNLOCATABLE)
				bad++;
		}
	}
	tap(bad == 0, "a ratio dQ/dP naming a slot past the data chunks names nothing (%u wrong)",
	    bad);
	bad = 0;
	for (e = 1; e < 256; e++) {
		uint8_t zero = 0, d = (uint8_t)e;
		struct stria_locate l;
		uint32_t slot;

		stria_locate_init(&l);
		stria_locate_add(&l, 4, &d, &zero, &zero, &zero, 1);
		if (stria_locate_one(&l, &slot) != STRIA_LOCATE_P)
			bad++;
		stria_locate_init(&l);
		stria_locate_add(&l, 4, &zero, &zero, &d, &zero, 1);
		if (stria_locate_one(&l, &slot) != STRIA_LOCATE_Q)
			bad++;
	}
	tap(bad == 0, "every wrong byte of P alone and of Q alone is named P or Q (%u wrong)",
	    bad);
}

/* A RAID6 stripe laid out on its members, as the driver sees it. */
struct stripe {
	struct stria_geom g;
	uint64_t nr;			/* stripe number */
	uint32_t n, nd, p, q;
	size_t len;
	uint8_t good[MAX_MEMBERS][MAX_LEN];
	uint8_t read[MAX_MEMBERS][MAX_LEN];
};

static void stripe_pq(struct stripe *s, uint8_t (*mem)[MAX_LEN],
		      uint8_t *pc, uint8_t *qc)
{
	uint8_t *ptrs[MAX_MEMBERS];
	uint32_t i;

	for (i = 0; i < s->nd; i++)
		ptrs[stria_raid56_slot(&s->g, s->nr, i)] =
			mem[stria_raid56_data_member(&s->g, s->nr, i)];
	ptrs[s->nd] = pc;
	ptrs[s->nd + 1] = qc;
	gf_gen_pq((int)s->nd, s->len, ptrs);
}

static void stripe_new(struct stripe *s, uint32_t layout, uint32_t n)
{
	size_t b;
	uint32_t m;

	if (stria_geom_init(&s->g, 6, layout, n, 8, 1024 * 8)) {
		fprintf(stderr, "geometry refused\n");
		exit(2);
	}
	s->n = n;
	s->nd = n - 2;
	s->nr = rnd_below(1024);
	s->len = 1 + rnd_below(MAX_LEN);
	stria_raid56_parity_members(&s->g, s->nr, &s->p, &s->q);
	for (m = 0; m < n; m++)
		for (b = 0; b < s->len; b++)
			s->good[m][b] = (uint8_t)rnd();
	stripe_pq(s, s->good, s->good[s->p], s->good[s->q]);
	memcpy(s->read, s->good, sizeof(s->read));
}

/* Corrupt @count distinct byte positions of member @m (random errors). */
static void corrupt(struct stripe *s, uint32_t m, size_t count)
{
	size_t done = 0, b;

	if (count > s->len)
		count = s->len;
	while (done < count) {
		b = rnd_below((uint32_t)s->len);
		if (s->read[m][b] != s->good[m][b])
			continue;
		s->read[m][b] ^= rnd_err();
		done++;
	}
}

/* The evidence of the stripe as read, in @pieces random pieces merged. */
static void stripe_locate(struct stripe *s, struct stria_locate *l,
			  unsigned int pieces, uint8_t *pc, uint8_t *qc)
{
	size_t at = 0;

	stripe_pq(s, s->read, pc, qc);
	stria_locate_init(l);
	while (at < s->len) {
		size_t len = pieces <= 1 ? s->len - at :
			     1 + rnd_below((uint32_t)(s->len - at));
		struct stria_locate part;

		stria_locate_init(&part);
		stria_locate_add(&part, s->nd, s->read[s->p] + at, pc + at,
				 s->read[s->q] + at, qc + at, len);
		stria_locate_merge(l, &part);
		at += len;
		if (pieces > 1)
			pieces--;
	}
}

/*
 * The member the verdict names (the driver's mapping: the slot back to a
 * data index through stria_raid56_slot(), then to its member), or -1.
 */
static int verdict_member(struct stripe *s, enum stria_locate_verdict v,
			  uint32_t slot)
{
	uint32_t i;

	if (v == STRIA_LOCATE_P)
		return (int)s->p;
	if (v == STRIA_LOCATE_Q)
		return (int)s->q;
	if (v != STRIA_LOCATE_DATA)
		return -1;
	for (i = 0; i < s->nd; i++)
		if (stria_raid56_slot(&s->g, s->nr, i) == slot)
			return (int)stria_raid56_data_member(&s->g, s->nr, i);
	return -2;
}

static const char *const layout_names[] = {
	"left-asymmetric", "right-asymmetric", "left-symmetric",
	"right-symmetric",
};

/* Every member position, every layout: located, fixed, byte-exact. */
static void test_single(void)
{
	static struct stripe s;
	static uint8_t pc[MAX_LEN], qc[MAX_LEN];
	uint32_t layout, n, m, trials = 0, wrong = 0, unfixed = 0, small_bad = 0;
	unsigned int t;

	for (layout = 0; layout < 4; layout++) {
		for (n = 4; n <= MAX_MEMBERS; n++) {
			for (m = 0; m < n; m++) {
				for (t = 0; t < 6; t++) {
					struct stria_locate l;
					enum stria_locate_verdict v;
					uint32_t slot = ~0U;
					size_t count;

					stripe_new(&s, layout, n);
					if (s.len < STRIA_LOCATE_MIN_BYTES)
						continue;
					count = STRIA_LOCATE_MIN_BYTES +
						rnd_below((uint32_t)(s.len - STRIA_LOCATE_MIN_BYTES + 1));
					corrupt(&s, m, count);
					stripe_locate(&s, &l, 1 + rnd_below(5), pc, qc);
					v = stria_locate_result(&l, &slot);
					trials++;
					if (verdict_member(&s, v, slot) != (int)m) {
						wrong++;
						continue;
					}
					/* the driver's rewrite of that member */
					if (v == STRIA_LOCATE_DATA)
						stria_locate_fix_data(s.read[m], s.read[s.p], pc, s.len);
					else if (v == STRIA_LOCATE_P)
						memcpy(s.read[m], pc, s.len);
					else
						memcpy(s.read[m], qc, s.len);
					if (memcmp(s.read, s.good, sizeof(s.read)))
						unfixed++;
				}
				/* fewer bytes than the rule needs: reported only */
				stripe_new(&s, layout, n);
				if (s.len < STRIA_LOCATE_MIN_BYTES)
					continue;
				corrupt(&s, m, 1 + rnd_below(STRIA_LOCATE_MIN_BYTES - 1));
				{
					struct stria_locate l;
					uint32_t slot;

					stripe_locate(&s, &l, 1, pc, qc);
					if (stria_locate_result(&l, &slot) !=
					    STRIA_LOCATE_UNLOCATABLE ||
					    stria_locate_one(&l, &slot) == STRIA_LOCATE_UNLOCATABLE)
						small_bad++;
				}
			}
		}
		tap(wrong == 0 && unfixed == 0 && small_bad == 0,
		    "%s: one wrong chunk (data, P or Q) on every member of 4..%u members is located to its member and fixed byte-exact (%u stripes, %u mislocated, %u not restored, %u small ones misjudged)",
		    layout_names[layout], MAX_MEMBERS, trials, wrong, unfixed,
		    small_bad);
		trials = wrong = unfixed = small_bad = 0;
	}
}

/*
 * Two wrong chunks, random sizes (1 byte up to the whole chunk, so the
 * supports overlap in full, in part or not at all): never one chunk.
 */
static void test_double(void)
{
	static struct stripe s;
	static uint8_t pc[MAX_LEN], qc[MAX_LEN];
	uint32_t trials = 0, located = 0, a, b, layout;
	unsigned int t;

	for (t = 0; t < 20000; t++) {
		struct stria_locate l;
		uint32_t slot;

		layout = rnd_below(4);
		stripe_new(&s, layout, 4 + rnd_below(MAX_MEMBERS - 3));
		a = rnd_below(s.n);
		do {
			b = rnd_below(s.n);
		} while (b == a);
		switch (rnd_below(4)) {
		case 0:		/* small: most likely no overlap */
			corrupt(&s, a, 1 + rnd_below(16));
			corrupt(&s, b, 1 + rnd_below(16));
			break;
		case 1:		/* one big, one small */
			corrupt(&s, a, s.len);
			corrupt(&s, b, 1 + rnd_below(STRIA_LOCATE_MIN_BYTES));
			break;
		case 2:		/* the same byte positions of both */
			{
				size_t k = 1 + rnd_below((uint32_t)s.len), i;

				for (i = 0; i < k; i++) {
					size_t at = rnd_below((uint32_t)s.len);

					s.read[a][at] = s.good[a][at] ^ rnd_err();
					s.read[b][at] = s.good[b][at] ^ rnd_err();
				}
			}
			break;
		default:	/* random sizes */
			corrupt(&s, a, 1 + rnd_below((uint32_t)s.len));
			corrupt(&s, b, 1 + rnd_below((uint32_t)s.len));
			break;
		}
		stripe_locate(&s, &l, 1 + rnd_below(4), pc, qc);
		trials++;
		if (stria_locate_result(&l, &slot) != STRIA_LOCATE_UNLOCATABLE)
			located++;
	}
	tap(located == 0, "two wrong chunks in a stripe are never located to one chunk (%u random stripes, %u located)",
	    trials, located);
}

/*
 * The documented limit: errors that are not random can look like one
 * chunk. A data chunk and P wrong by the same bytes leave dP = 0: it reads
 * as Q alone.
 */
static void test_alias(void)
{
	static struct stripe s;
	static uint8_t pc[MAX_LEN], qc[MAX_LEN];
	struct stria_locate l;
	uint32_t slot, d;
	size_t i;

	stripe_new(&s, STRIA_LAYOUT_LEFT_SYMMETRIC, 6);
	d = stria_raid56_data_member(&s.g, s.nr, 0);
	for (i = 0; i < s.len && i < 64; i++) {
		uint8_t e = rnd_err();

		s.read[d][i] ^= e;
		s.read[s.p][i] ^= e;
	}
	stripe_locate(&s, &l, 1, pc, qc);
	tap(s.len < STRIA_LOCATE_MIN_BYTES ||
	    stria_locate_result(&l, &slot) == STRIA_LOCATE_Q,
	    "the documented limit holds: the same error in a data chunk and in P reads as Q alone");
}

/* Merging: order and cut do not change the evidence. */
static void test_merge(void)
{
	struct stria_locate a, b, c;
	uint32_t slot;

	stria_locate_init(&a);
	stria_locate_init(&b);
	a.bytes = 3;
	a.seen = STRIA_LOCATE_SEEN_DATA;
	a.slot = 2;
	b.bytes = 9;
	b.seen = STRIA_LOCATE_SEEN_DATA;
	b.slot = 2;
	c = a;
	stria_locate_merge(&c, &b);
	tap(stria_locate_result(&c, &slot) == STRIA_LOCATE_DATA && slot == 2 &&
	    c.bytes == 12, "pieces naming the same slot merge into that slot");
	b.slot = 3;
	c = a;
	stria_locate_merge(&c, &b);
	tap(stria_locate_result(&c, &slot) == STRIA_LOCATE_UNLOCATABLE,
	    "pieces naming two slots merge into unlocatable");
	stria_locate_init(&b);
	b.bytes = 9;
	b.seen = STRIA_LOCATE_SEEN_P;
	c = a;
	stria_locate_merge(&c, &b);
	tap(stria_locate_result(&c, &slot) == STRIA_LOCATE_UNLOCATABLE,
	    "a piece naming P and one naming a data slot merge into unlocatable");
	stria_locate_init(&c);
	stria_locate_merge(&c, &b);
	tap(stria_locate_result(&c, &slot) == STRIA_LOCATE_P,
	    "a piece merged into no evidence keeps its verdict");
	stria_locate_init(&c);
	tap(stria_locate_result(&c, &slot) == STRIA_LOCATE_CLEAN,
	    "no differing byte is clean");
}

int main(void)
{
	gf_init();
	test_table();
	test_every_byte();
	test_single();
	test_double();
	test_alias();
	test_merge();
	return tap_exit_code();
}
