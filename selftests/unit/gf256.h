/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A reference RAID6 P/Q code for the user-space tests, written for
 * clarity, not speed: GF(2^8) with the polynomial x^8 + x^4 + x^3 + x^2 + 1
 * (0x11d) and generator g = 2, as the kernel's lib/raid6 (H. Peter Anvin,
 * "The mathematics of RAID-6"). P = sum(D[z]), Q = sum(g^z * D[z]) over the
 * data blocks z = 0 .. ndata - 1 in syndrome-slot order. The module itself
 * uses the kernel's raid6_pq and xor; this is what its results are checked
 * against.
 *
 * Blocks are passed as in raid6_call.gen_syndrome(): ptrs[0 .. ndata - 1]
 * the data, ptrs[ndata] P, ptrs[ndata + 1] Q.
 */
#ifndef _STRIA_UNIT_GF256_H
#define _STRIA_UNIT_GF256_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define GF256_POLY	0x11d

static uint8_t gf_exp[510];	/* g^i, twice over so log sums need no mod */
static uint8_t gf_log[256];	/* gf_log[0] is unused */

/* Fill the tables by repeated multiplication by g. */
static void gf_init(void)
{
	unsigned int x = 1, i;

	for (i = 0; i < 255; i++) {
		gf_exp[i] = (uint8_t)x;
		gf_exp[i + 255] = (uint8_t)x;
		gf_log[x] = (uint8_t)i;
		x <<= 1;
		if (x & 0x100)
			x ^= GF256_POLY;
	}
}

/* Multiplication by g without tables: a shift and a conditional reduction. */
static inline uint8_t gf_mul2(uint8_t a)
{
	return (uint8_t)((a << 1) ^ ((a & 0x80) ? GF256_POLY & 0xff : 0));
}

static inline uint8_t gf_mul(uint8_t a, uint8_t b)
{
	if (!a || !b)
		return 0;
	return gf_exp[gf_log[a] + gf_log[b]];
}

/* g^i for any i >= 0 */
static inline uint8_t gf_pow2(unsigned int i)
{
	return gf_exp[i % 255];
}

/* a^-1 for a != 0 */
static inline uint8_t gf_inv(uint8_t a)
{
	return gf_exp[255 - gf_log[a]];
}

/*
 * P and Q of @ndata data blocks of @len bytes, Q by Horner's rule from the
 * highest slot down (Q = (..(D[n-1] * g + D[n-2]) * g ..) * g + D[0]), the
 * way lib/raid6 evaluates it; no tables involved.
 */
static void gf_gen_pq(int ndata, size_t len, uint8_t **ptrs)
{
	uint8_t *p = ptrs[ndata], *q = ptrs[ndata + 1];
	size_t b;
	int z;

	for (b = 0; b < len; b++) {
		uint8_t wp = 0, wq = 0;

		for (z = ndata - 1; z >= 0; z--) {
			wp ^= ptrs[z][b];
			wq = gf_mul2(wq) ^ ptrs[z][b];
		}
		p[b] = wp;
		q[b] = wq;
	}
}

/* Q alone, as a sum of table products: a second route to the same value. */
static void gf_gen_q_sum(int ndata, size_t len, uint8_t **ptrs, uint8_t *q)
{
	size_t b;
	int z;

	memset(q, 0, len);
	for (z = 0; z < ndata; z++)
		for (b = 0; b < len; b++)
			q[b] ^= gf_mul(gf_pow2(z), ptrs[z][b]);
}

/*
 * Rebuild blocks @fa and @fb (@fa != @fb; indexes into ptrs, so ndata is P
 * and ndata + 1 is Q) from the others. Their contents on entry are ignored.
 */
static void gf_recover(int ndata, size_t len, uint8_t **ptrs, int fa, int fb)
{
	int P = ndata, Q = ndata + 1, z;
	size_t b;

	if (fa > fb) {
		z = fa;
		fa = fb;
		fb = z;
	}
	if (fa >= P) {				/* P and Q */
		gf_gen_pq(ndata, len, ptrs);
		return;
	}
	if (fb == Q) {				/* data and Q: data from P */
		for (b = 0; b < len; b++) {
			uint8_t x = ptrs[P][b];

			for (z = 0; z < ndata; z++)
				if (z != fa)
					x ^= ptrs[z][b];
			ptrs[fa][b] = x;
		}
		gf_gen_pq(ndata, len, ptrs);	/* P is unchanged */
		return;
	}
	for (b = 0; b < len; b++) {
		uint8_t pxy = 0, qxy = 0;

		for (z = 0; z < ndata; z++) {
			if (z == fa || z == fb)
				continue;
			pxy ^= ptrs[z][b];
			qxy ^= gf_mul(gf_pow2(z), ptrs[z][b]);
		}
		qxy ^= ptrs[Q][b];		/* = g^fa Da (+ g^fb Db) */
		if (fb == P) {			/* data and P: data from Q */
			ptrs[fa][b] = gf_mul(gf_inv(gf_pow2(fa)), qxy);
			ptrs[P][b] = pxy ^ ptrs[fa][b];
			continue;
		}
		/*
		 * Two data blocks: Da ^ Db = pxy, g^a Da ^ g^b Db = qxy, so
		 * Da = (qxy ^ g^b pxy) / (g^a ^ g^b) and Db = pxy ^ Da.
		 */
		pxy ^= ptrs[P][b];
		ptrs[fa][b] = gf_mul(qxy ^ gf_mul(gf_pow2(fb), pxy),
				     gf_inv(gf_pow2(fa) ^ gf_pow2(fb)));
		ptrs[fb][b] = pxy ^ ptrs[fa][b];
	}
}

#endif /* _STRIA_UNIT_GF256_H */
