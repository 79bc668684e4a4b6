/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stria RAID6 mismatch location: which one chunk of a stripe is wrong, from
 * the P and Q read and the P' and Q' the data gives. Pure byte code, built
 * in the module and in user space like geom.h.
 *
 * RAID6 keeps P = sum(D[z]) and Q = sum(g^z * D[z]) over the data slots z
 * in GF(2^8) (generator g = 2, polynomial 0x11d: the kernel's lib/raid6,
 * H. Peter Anvin, "The mathematics of RAID-6"). Let dP = P ^ P' and
 * dQ = Q ^ Q' at one byte position. If only data slot z holds a wrong byte,
 * D[z] ^ e, then dP = e and dQ = g^z * e, so dQ / dP = g^z names the slot,
 * and D[z] ^ dP is the right byte. If only P is wrong, dQ = 0; if only Q
 * is, dP = 0. So a stripe with exactly one wrong chunk shows, at every byte
 * position where it differs, the same one of three patterns: dQ = 0 (P),
 * dP = 0 (Q), or both nonzero with log(dQ) - log(dP) = z < data chunks
 * (data slot z).
 *
 * The converse does not hold: two wrong chunks can show one of these
 * patterns at a byte position by chance (about 1 in 256 for P or Q, and
 * data chunks / 255 for a data slot, for random errors). A verdict is one
 * chunk only when every differing position agrees on it, and only when at
 * least STRIA_LOCATE_MIN_BYTES positions differ: a random two-chunk
 * corruption of k overlapping byte positions then agrees by chance with a
 * probability below (data chunks + 2) / 255^k, under 1e-17 for 64 members
 * and k = 8. A corruption of fewer positions is reported, not rewritten.
 *
 * Use: stria_locate_init(), stria_locate_add() per run of columns (any
 * order, any pieces), stria_locate_merge() to join the results of pieces
 * scanned apart, stria_locate_result() for the verdict.
 */
#ifndef _STRIA_RAID6_LOCATE_H
#define _STRIA_RAID6_LOCATE_H

#include "geom_types.h"

#ifndef __KERNEL__
#include <stddef.h>
typedef uint8_t u8;
#endif

/* Byte positions that must differ before one chunk is named. */
#define STRIA_LOCATE_MIN_BYTES	8U

/* What the differing byte positions seen so far showed. */
#define STRIA_LOCATE_SEEN_P	(1U << 0)	/* dP != 0, dQ == 0 */
#define STRIA_LOCATE_SEEN_Q	(1U << 1)	/* dP == 0, dQ != 0 */
#define STRIA_LOCATE_SEEN_DATA	(1U << 2)	/* both, all naming @slot */
#define STRIA_LOCATE_SEEN_OTHER	(1U << 3)	/* both, naming no slot or two */

/**
 * enum stria_locate_verdict - what stria_locate_result() found
 * @STRIA_LOCATE_CLEAN: P and Q match the data
 * @STRIA_LOCATE_P: P alone is wrong
 * @STRIA_LOCATE_Q: Q alone is wrong
 * @STRIA_LOCATE_DATA: the data chunk of one slot alone is wrong
 * @STRIA_LOCATE_UNLOCATABLE: not one chunk, or too few bytes to tell
 */
enum stria_locate_verdict {
	STRIA_LOCATE_CLEAN,
	STRIA_LOCATE_P,
	STRIA_LOCATE_Q,
	STRIA_LOCATE_DATA,
	STRIA_LOCATE_UNLOCATABLE,
};

/**
 * struct stria_locate - the evidence gathered over a stripe's columns
 * @bytes: byte positions where P or Q differs
 * @seen: STRIA_LOCATE_SEEN_* bits
 * @slot: the data slot the STRIA_LOCATE_SEEN_DATA positions name
 */
struct stria_locate {
	u64 bytes;
	u32 seen;
	u32 slot;
};

/* log_g(x) in GF(2^8), g = 2, polynomial 0x11d; entry 0 is unused */
static const u8 stria_gf_log[256] = {
	0x00, 0x00, 0x01, 0x19, 0x02, 0x32, 0x1a, 0xc6,
	0x03, 0xdf, 0x33, 0xee, 0x1b, 0x68, 0xc7, 0x4b,
	0x04, 0x64, 0xe0, 0x0e, 0x34, 0x8d, 0xef, 0x81,
	0x1c, 0xc1, 0x69, 0xf8, 0xc8, 0x08, 0x4c, 0x71,
	0x05, 0x8a, 0x65, 0x2f, 0xe1, 0x24, 0x0f, 0x21,
	0x35, 0x93, 0x8e, 0xda, 0xf0, 0x12, 0x82, 0x45,
	0x1d, 0xb5, 0xc2, 0x7d, 0x6a, 0x27, 0xf9, 0xb9,
	0xc9, 0x9a, 0x09, 0x78, 0x4d, 0xe4, 0x72, 0xa6,
	0x06, 0xbf, 0x8b, 0x62, 0x66, 0xdd, 0x30, 0xfd,
	0xe2, 0x98, 0x25, 0xb3, 0x10, 0x91, 0x22, 0x88,
	0x36, 0xd0, 0x94, 0xce, 0x8f, 0x96, 0xdb, 0xbd,
	0xf1, 0xd2, 0x13, 0x5c, 0x83, 0x38, 0x46, 0x40,
	0x1e, 0x42, 0xb6, 0xa3, 0xc3, 0x48, 0x7e, 0x6e,
	0x6b, 0x3a, 0x28, 0x54, 0xfa, 0x85, 0xba, 0x3d,
	0xca, 0x5e, 0x9b, 0x9f, 0x0a, 0x15, 0x79, 0x2b,
	0x4e, 0xd4, 0xe5, 0xac, 0x73, 0xf3, 0xa7, 0x57,
	0x07, 0x70, 0xc0, 0xf7, 0x8c, 0x80, 0x63, 0x0d,
	0x67, 0x4a, 0xde, 0xed, 0x31, 0xc5, 0xfe, 0x18,
	0xe3, 0xa5, 0x99, 0x77, 0x26, 0xb8, 0xb4, 0x7c,
	0x11, 0x44, 0x92, 0xd9, 0x23, 0x20, 0x89, 0x2e,
	0x37, 0x3f, 0xd1, 0x5b, 0x95, 0xbc, 0xcf, 0xcd,
	0x90, 0x87, 0x97, 0xb2, 0xdc, 0xfc, 0xbe, 0x61,
	0xf2, 0x56, 0xd3, 0xab, 0x14, 0x2a, 0x5d, 0x9e,
	0x84, 0x3c, 0x39, 0x53, 0x47, 0x6d, 0x41, 0xa2,
	0x1f, 0x2d, 0x43, 0xd8, 0xb7, 0x7b, 0xa4, 0x76,
	0xc4, 0x17, 0x49, 0xec, 0x7f, 0x0c, 0x6f, 0xf6,
	0x6c, 0xa1, 0x3b, 0x52, 0x29, 0x9d, 0x55, 0xaa,
	0xfb, 0x60, 0x86, 0xb1, 0xbb, 0xcc, 0x3e, 0x5a,
	0xcb, 0x59, 0x5f, 0xb0, 0x9c, 0xa9, 0xa0, 0x51,
	0x0b, 0xf5, 0x16, 0xeb, 0x7a, 0x75, 0x2c, 0xd7,
	0x4f, 0xae, 0xd5, 0xe9, 0xe6, 0xe7, 0xad, 0xe8,
	0x74, 0xd6, 0xf4, 0xea, 0xa8, 0x50, 0x58, 0xaf,
};

/**
 * stria_locate_init() - no evidence yet
 * @l: the evidence
 */
static inline void stria_locate_init(struct stria_locate *l)
{
	l->bytes = 0;
	l->seen = 0;
	l->slot = 0;
}

/* One data slot named by a position (or a piece): a second one is OTHER. */
static inline void stria_locate_name_slot(struct stria_locate *l, u32 slot)
{
	if (l->seen & STRIA_LOCATE_SEEN_DATA) {
		if (l->slot != slot)
			l->seen |= STRIA_LOCATE_SEEN_OTHER;
		return;
	}
	l->seen |= STRIA_LOCATE_SEEN_DATA;
	l->slot = slot;
}

/**
 * stria_locate_add() - add the evidence of @len byte positions
 * @l: the evidence
 * @nd: data chunks per stripe (slots 0 .. @nd - 1)
 * @p: P as read
 * @pc: P as the data gives it
 * @q: Q as read
 * @qc: Q as the data gives it
 * @len: bytes of each
 */
static inline void stria_locate_add(struct stria_locate *l, u32 nd,
				    const u8 *p, const u8 *pc, const u8 *q,
				    const u8 *qc, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		u8 dp = p[i] ^ pc[i], dq = q[i] ^ qc[i];
		u32 z;

		if (!dp && !dq)
			continue;
		l->bytes++;
		if (!dq) {
			l->seen |= STRIA_LOCATE_SEEN_P;
		} else if (!dp) {
			l->seen |= STRIA_LOCATE_SEEN_Q;
		} else {
			z = (stria_gf_log[dq] + 255U - stria_gf_log[dp]) % 255U;
			if (z < nd)
				stria_locate_name_slot(l, z);
			else
				l->seen |= STRIA_LOCATE_SEEN_OTHER;
		}
	}
}

/**
 * stria_locate_merge() - join evidence gathered apart
 * @l: the evidence, which gets @o's
 * @o: evidence of other byte positions of the same stripe
 */
static inline void stria_locate_merge(struct stria_locate *l,
				      const struct stria_locate *o)
{
	l->bytes += o->bytes;
	l->seen |= o->seen & ~STRIA_LOCATE_SEEN_DATA;
	if (o->seen & STRIA_LOCATE_SEEN_DATA)
		stria_locate_name_slot(l, o->slot);
}

/**
 * stria_locate_one() - the chunk the evidence names, at any byte count
 * @l: the evidence
 * @slot: set to the data slot for STRIA_LOCATE_DATA
 *
 * Without the STRIA_LOCATE_MIN_BYTES rule: for a piece of a stripe whose
 * whole already passed stria_locate_result().
 *
 * Return: the verdict.
 */
static inline enum stria_locate_verdict
stria_locate_one(const struct stria_locate *l, u32 *slot)
{
	switch (l->seen) {
	case 0:
		return STRIA_LOCATE_CLEAN;
	case STRIA_LOCATE_SEEN_P:
		return STRIA_LOCATE_P;
	case STRIA_LOCATE_SEEN_Q:
		return STRIA_LOCATE_Q;
	case STRIA_LOCATE_SEEN_DATA:
		*slot = l->slot;
		return STRIA_LOCATE_DATA;
	default:
		return STRIA_LOCATE_UNLOCATABLE;
	}
}

/**
 * stria_locate_result() - the verdict on a whole stripe
 * @l: the evidence of all its byte positions
 * @slot: set to the data slot for STRIA_LOCATE_DATA
 *
 * Return: CLEAN when nothing differs; P, Q or DATA when every differing
 * position names that one chunk and at least STRIA_LOCATE_MIN_BYTES differ;
 * else UNLOCATABLE.
 */
static inline enum stria_locate_verdict
stria_locate_result(const struct stria_locate *l, u32 *slot)
{
	if (l->bytes && l->bytes < STRIA_LOCATE_MIN_BYTES)
		return STRIA_LOCATE_UNLOCATABLE;
	return stria_locate_one(l, slot);
}

/**
 * stria_locate_fix_data() - the right bytes of a data chunk found wrong
 * @d: the chunk as read; gets the right bytes
 * @p: P as read
 * @pc: P as the data read gives it
 * @len: bytes of each
 *
 * D ^ dP: where only this chunk is wrong, dP is its error.
 */
static inline void stria_locate_fix_data(u8 *d, const u8 *p, const u8 *pc,
					 size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		d[i] ^= p[i] ^ pc[i];
}

#endif /* _STRIA_RAID6_LOCATE_H */
