/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The crash tests' data: what each 4 KiB block of the array holds, and which
 * contents a block may hold after a cut of the write log.
 *
 * Block b at version v (v = 0 is the prefill, v = k the k-th write to b):
 *   bytes  0..7   "STRIACRB"
 *   bytes  8..15  b, little-endian
 *   bytes 16..23  v, little-endian
 *   bytes 24..31  the run's seed, little-endian
 *   bytes 32..    a xorshift64* stream seeded from (seed, b, v)
 * so a block names its version, and a block torn between two versions, or
 * holding another block's data, fails the check.
 *
 * The journal (written by `stria-crashlog write`, read by `replay`) lists
 * the writes in the order they were issued, with two mark numbers each:
 * marks are sent to the log (named CP_MARK_PREFIX N, N = 1, 2, ...) at
 * points where the writer knows what was issued and what is durable.
 *   issued: the last mark sent before the write was issued. Its data is in
 *     the log after that mark, so a cut before mark `issued` cannot hold it.
 *   durable: the first mark sent once the write was both acknowledged and
 *     made durable: by a flush (fdatasync) issued after it was
 *     acknowledged and completed before the mark, or, for a write with
 *     RWF_DSYNC (FUA), by its acknowledgement. CP_NEVER if no such mark.
 * A write of zeroes (a write-zeroes or a stripe-aligned discard request,
 * CP_ZERO_*) is a version too: the blocks it covers hold zeroes at it, and
 * the next write of a block names the version after it.
 * Writes in flight never overlap, so a block's versions are issued, and
 * land, in order. The mark CP_MARK_STOPPED, sent after the array was
 * stopped cleanly, makes every write durable.
 *
 * Pure code, built into stria-crashlog and selftests/unit/test_logwrites.c.
 */
#ifndef _STRIA_CRASHPAT_H
#define _STRIA_CRASHPAT_H

#include <endian.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logwrites.h"

#define CP_BLOCK		4096U
#define CP_MAGIC		"STRIACRB"
#define CP_NEVER		UINT32_MAX
#define CP_MARK_PREFIX		"stria-crash-"
#define CP_MARK_STOPPED		"stria-crash-stopped"
#define CP_JOURNAL_HEAD		"stria-crash-journal 1"

/* what a write of the journal is: data, or zeroes by one of two requests */
#define CP_ZERO_NONE		0U	/* data (crashpat blocks) */
#define CP_ZERO_WZ		1U	/* write-zeroes (BLKZEROOUT) */
#define CP_ZERO_DISCARD		2U	/* discard of whole stripes (BLKDISCARD) */

/* cp_is_zero() - does @buf (CP_BLOCK bytes) hold only zeroes? */
static inline bool cp_is_zero(const uint8_t *buf)
{
	size_t i;

	for (i = 0; i < CP_BLOCK; i++)
		if (buf[i])
			return false;
	return true;
}

/**
 * cp_mark_number() - the number of one of the writer's marks
 * @text: a mark's text (not NUL-terminated)
 * @len: its length
 *
 * Return: N for CP_MARK_PREFIX followed by the decimal N (1 to 999999999),
 * 0 for any other mark.
 */
static inline uint32_t cp_mark_number(const char *text, size_t len)
{
	size_t pl = strlen(CP_MARK_PREFIX), i;
	uint32_t v = 0;

	if (len <= pl || len > pl + 9 || memcmp(text, CP_MARK_PREFIX, pl) ||
	    text[pl] == '0')
		return 0;
	for (i = pl; i < len; i++) {
		if (text[i] < '0' || text[i] > '9')
			return 0;
		v = v * 10 + (text[i] - '0');
	}
	return v;
}

/* the stream's seed for one block version: never 0 (xorshift's fixpoint) */
static inline uint64_t cp_block_seed(uint64_t seed, uint64_t b, uint64_t v)
{
	uint64_t x = seed ^ (b * 0x9e3779b97f4a7c15ULL) ^
		     ((v + 1) * 0xc2b2ae3d27d4eb4fULL);

	return x ? x : 1;
}

/* cp_fill() - block @b at version @v of run @seed into @buf (CP_BLOCK bytes) */
static inline void cp_fill(uint8_t *buf, uint64_t seed, uint64_t b, uint64_t v)
{
	uint64_t x = cp_block_seed(seed, b, v), w;
	size_t i;

	memcpy(buf, CP_MAGIC, 8);
	w = htole64(b);
	memcpy(buf + 8, &w, 8);
	w = htole64(v);
	memcpy(buf + 16, &w, 8);
	w = htole64(seed);
	memcpy(buf + 24, &w, 8);
	for (i = 32; i < CP_BLOCK; i += 8) {
		w = htole64(lw_rand(&x));
		memcpy(buf + i, &w, 8);
	}
}

/**
 * cp_check() - which version of block @b does @buf hold?
 * @buf: CP_BLOCK bytes read from the array
 * @seed: the run's seed
 * @b: the block's number
 * @v: filled with the version named in the block's head
 *
 * Return: 0 when @buf is exactly version *@v of block @b; -1 when it is
 * not a whole version of this block (garbage, torn, another block's data,
 * another run's); *@v is then what the head claims, for the report.
 */
static inline int cp_check(const uint8_t *buf, uint64_t seed, uint64_t b,
			   uint64_t *v)
{
	uint64_t x, w;
	size_t i;

	memcpy(&w, buf + 16, 8);
	*v = le64toh(w);
	if (memcmp(buf, CP_MAGIC, 8))
		return -1;
	memcpy(&w, buf + 8, 8);
	if (le64toh(w) != b)
		return -1;
	memcpy(&w, buf + 24, 8);
	if (le64toh(w) != seed)
		return -1;
	x = cp_block_seed(seed, b, *v);
	for (i = 32; i < CP_BLOCK; i += 8) {
		w = htole64(lw_rand(&x));
		if (memcmp(buf + i, &w, 8))
			return -1;
	}
	return 0;
}

/**
 * struct cp_write - one write of the journal
 * @first: first block
 * @nr: blocks
 * @issued: last mark sent before it was issued
 * @durable: first mark after which it is durable, or CP_NEVER
 * @dsync: written with RWF_DSYNC
 * @zero: CP_ZERO_NONE for data, else the request that wrote zeroes
 */
struct cp_write {
	uint32_t first;
	uint32_t nr;
	uint32_t issued;
	uint32_t durable;
	uint32_t dsync;
	uint32_t zero;
};

/**
 * struct cp_journal - what the writer did
 * @seed: the run's seed
 * @blocks: blocks of the array
 * @marks: marks sent
 * @nr: writes
 * @w: the writes, in the order they were issued
 */
struct cp_journal {
	uint64_t seed;
	uint32_t blocks;
	uint32_t marks;
	uint32_t nr;
	struct cp_write *w;
};

/**
 * cp_journal_parse() - read a journal
 * @j: filled; free @j->w
 * @f: the journal
 * @why: reason on failure
 * @wlen: size of @why
 *
 * Return: 0, or -1 for a journal that is not one, is cut short, or names
 * blocks or marks out of range, or marks out of order.
 */
static inline int cp_journal_parse(struct cp_journal *j, FILE *f, char *why,
				   size_t wlen)
{
	char line[256];
	unsigned long long seed;
	uint32_t cap = 0, lineno = 2, prev_issued = 0;
	unsigned int blocks, marks, nr;

	memset(j, 0, sizeof(*j));
	if (!fgets(line, sizeof(line), f) ||
	    strncmp(line, CP_JOURNAL_HEAD "\n", sizeof(line)))
		return lw_fail(why, wlen, -1, "not a stria-crashlog journal");
	if (!fgets(line, sizeof(line), f) ||
	    sscanf(line, "seed %llu blocks %u marks %u writes %u", &seed,
		   &blocks, &marks, &nr) != 4 || !blocks)
		return lw_fail(why, wlen, -1, "journal line 2: bad header");
	j->seed = seed;
	j->blocks = blocks;
	j->marks = marks;
	while (fgets(line, sizeof(line), f)) {
		struct cp_write w = { .zero = CP_ZERO_NONE };
		char dur[16];
		int nf;

		lineno++;
		/* the sixth field, the kind of zeroes, is new: optional */
		nf = sscanf(line, "W %u %u %u %15s %u %u", &w.first, &w.nr,
			    &w.issued, dur, &w.dsync, &w.zero);
		if (nf != 5 && nf != 6)
			goto bad;
		if (!strcmp(dur, "never"))
			w.durable = CP_NEVER;
		else if (sscanf(dur, "%u", &w.durable) != 1)
			goto bad;
		if (!w.nr || w.first >= blocks || w.nr > blocks - w.first ||
		    !w.issued || w.issued > marks || w.issued < prev_issued ||
		    (w.durable != CP_NEVER &&
		     (w.durable <= w.issued || w.durable > marks)) ||
		    w.dsync > 1 || w.zero > CP_ZERO_DISCARD ||
		    (w.zero && w.dsync))
			goto bad;
		prev_issued = w.issued;
		if (j->nr == cap) {
			struct cp_write *n;

			cap = cap ? 2 * cap : 256;
			n = realloc(j->w, cap * sizeof(*n));
			if (!n) {
				free(j->w);
				j->w = NULL;
				return lw_fail(why, wlen, -1, "out of memory");
			}
			j->w = n;
		}
		j->w[j->nr++] = w;
	}
	if (j->nr != nr) {
		free(j->w);
		j->w = NULL;
		return lw_fail(why, wlen, -1,
			       "journal cut short: %u of %u writes", j->nr, nr);
	}
	return 0;
bad:
	free(j->w);
	j->w = NULL;
	return lw_fail(why, wlen, -1, "journal line %u: bad write record",
		       lineno);
}

/**
 * cp_expect() - what each block may hold at a cut
 * @j: the journal
 * @mark: the last of the writer's marks the cut reaches (0: none)
 * @stopped: the cut reaches CP_MARK_STOPPED
 * @lo: filled, per block: the version that must be there at least (the
 *	newest durable one; 0, the prefill, is durable from the start)
 * @hi: filled, per block: the newest version that may be there (written
 *	by a write issued before the cut)
 * @zhi: filled unless NULL, per block: the newest version up to @hi that
 *	is zeroes, CP_NEVER when none
 *
 * The block may hold any version from @lo to @hi: the durable one, or one
 * written after it while the power went (old or new). Versions below @lo
 * are lost acknowledged writes. Zeroes are one of them when @zhi >= @lo.
 */
static inline void cp_expect(const struct cp_journal *j, uint32_t mark,
			     bool stopped, uint32_t *lo, uint32_t *hi,
			     uint32_t *zhi)
{
	uint32_t i, k, *ver = calloc(j->blocks, sizeof(*ver));

	memset(lo, 0, j->blocks * sizeof(*lo));
	memset(hi, 0, j->blocks * sizeof(*hi));
	for (i = 0; zhi && i < j->blocks; i++)
		zhi[i] = CP_NEVER;
	if (!ver)
		abort();
	for (i = 0; i < j->nr; i++) {
		const struct cp_write *w = &j->w[i];
		bool dur = stopped || (w->durable != CP_NEVER &&
				       w->durable <= mark);
		bool may = stopped || w->issued <= mark;

		for (k = w->first; k < w->first + w->nr; k++) {
			ver[k]++;
			if (dur)
				lo[k] = ver[k];
			if (may)
				hi[k] = ver[k];
			if (may && zhi && w->zero)
				zhi[k] = ver[k];
		}
	}
	free(ver);
}

#endif /* _STRIA_CRASHPAT_H */
