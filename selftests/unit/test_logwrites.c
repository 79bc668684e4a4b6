// SPDX-License-Identifier: GPL-2.0
/*
 * The dm-log-writes reader and the crash model of stria-crashlog
 * (selftests/tools/logwrites.h, crashpat.h), on logs built here in the
 * layout of the kernel's dm-log-writes.c: the super and each kind of entry
 * decode to what was written, with 512-byte and 4 KiB sectors; a log cut
 * anywhere asks for more bytes instead of reading past its end; damaged
 * supers and entries are refused with their reason, and random damage never
 * reads out of bounds (run under ASan). The cut model keeps what is durable
 * and draws the rest as documented; block versions, the journal and the
 * old-or-new bounds behave as stria-crashlog relies on. TAP on stdout.
 */
#define _GNU_SOURCE
#include <stdlib.h>

#include "../tools/crashpat.h"
#include "../tools/logwrites.h"
#include "tap.h"

#define MAX_LOG		(256 << 10)

struct blog {
	uint8_t buf[MAX_LOG];
	size_t len;
	uint32_t ss;
	uint64_t n;
};

static void put_super(struct blog *b)
{
	struct lw_super_disk s = {
		.magic = htole64(LW_MAGIC), .version = htole64(LW_VERSION),
		.nr_entries = htole64(b->n), .sectorsize = htole32(b->ss),
	};

	memset(b->buf, 0, b->ss);
	memcpy(b->buf, &s, sizeof(s));
}

static void blog_init(struct blog *b, uint32_t ss)
{
	memset(b, 0, sizeof(*b));
	b->ss = ss;
	b->len = ss;
	put_super(b);
}

/* Append an entry as log_one_block() writes it; data bytes are @fill. */
static void add(struct blog *b, uint64_t sector, uint64_t nr, uint64_t flags,
		const char *mark, uint8_t fill)
{
	struct lw_entry_disk d = {
		.sector = htole64(sector), .nr_sectors = htole64(nr),
		.flags = htole64(flags),
		.data_len = htole64(mark ? strlen(mark) : 0),
	};
	uint64_t dlen = flags & LW_DISCARD ? 0 : nr * b->ss;

	memset(b->buf + b->len, 0, b->ss);
	memcpy(b->buf + b->len, &d, sizeof(d));
	if (mark)
		memcpy(b->buf + b->len + sizeof(d), mark, strlen(mark));
	b->len += b->ss;
	memset(b->buf + b->len, fill, dlen);
	b->len += dlen;
	b->n++;
	put_super(b);
}

/* Decode every entry of @b; return how many decoded, -errno on an error. */
static long walk(const struct blog *b, size_t len, struct lw_entry *out, size_t max)
{
	struct lw_log log;
	char why[200];
	uint64_t off;
	long i;
	int ret;

	ret = lw_super_parse(&log, b->buf, len, why, sizeof(why));
	if (ret)
		return ret;
	off = log.sectorsize;
	for (i = 0; (uint64_t)i < log.nr_entries && (size_t)i < max; i++) {
		ret = lw_entry_parse(&log, b->buf, len, off, &out[i], why, sizeof(why));
		if (ret)
			return ret;
		off = out[i].next_off;
	}
	return i;
}

static void test_decode(uint32_t ss)
{
	static struct blog b;
	struct lw_entry e[8];
	long n;

	blog_init(&b, ss);
	add(&b, 8, 2, 0, NULL, 0xa1);				/* a write */
	add(&b, 0, 0, LW_FLUSH, NULL, 0);			/* an empty flush */
	add(&b, 16, 1, LW_FUA | LW_METADATA, NULL, 0xb2);	/* a FUA write */
	add(&b, 0, 0, LW_MARK, "stria-crash-7", 0);		/* a mark */
	add(&b, 32, 64, LW_DISCARD, NULL, 0);			/* a discard: no data */
	add(&b, 40, 3, LW_FLUSH | LW_FUA, NULL, 0xc3);		/* flush + FUA with data */
	n = walk(&b, b.len, e, 8);
	tap(n == 6, "ss %u: 6 entries decode (%ld)", ss, n);
	if (n != 6)
		return;
	tap(e[0].sector == 8 && e[0].nr_sectors == 2 && !e[0].flags &&
	    e[0].data_off == 2 * ss && e[0].data_len == 2 * ss &&
	    b.buf[e[0].data_off] == 0xa1 && lw_entry_writes(&e[0]),
	    "ss %u: a write: sector, count, its data right after its block", ss);
	tap(e[1].flags == LW_FLUSH && !e[1].data_len && !lw_entry_writes(&e[1]) &&
	    e[1].next_off == e[1].data_off, "ss %u: an empty flush writes nothing", ss);
	tap((e[2].flags & LW_FUA) && b.buf[e[2].data_off + ss - 1] == 0xb2,
	    "ss %u: a FUA write and its data", ss);
	tap(e[3].mark && e[3].mark_len == 13 && !memcmp(e[3].mark, "stria-crash-7", 13) &&
	    !lw_entry_writes(&e[3]) && cp_mark_number(e[3].mark, e[3].mark_len) == 7,
	    "ss %u: a mark's text", ss);
	tap(!e[4].data_len && e[4].next_off == e[4].data_off && !lw_entry_writes(&e[4]),
	    "ss %u: a discard carries no data", ss);
	tap(e[5].data_len == 3 * ss && e[5].next_off == b.len && lw_entry_writes(&e[5]),
	    "ss %u: a flush with FUA data ends the log", ss);
}

/* A log cut at any byte: the entries before the cut decode, then -EAGAIN. */
static void test_truncated(void)
{
	static struct blog b;
	struct lw_entry e[8];
	size_t len, bad = 0;

	blog_init(&b, 512);
	add(&b, 8, 8, 0, NULL, 1);
	add(&b, 0, 0, LW_MARK, "m", 0);
	add(&b, 0, 0, LW_FLUSH, NULL, 0);
	add(&b, 100, 9, LW_FUA, NULL, 2);
	for (len = sizeof(struct lw_super_disk); len < b.len; len++) {
		long n = walk(&b, len, e, 8);

		if (n != -EAGAIN)
			bad++;
	}
	tap(!bad, "a log cut at any of its %zu bytes asks for more (%zu did not)",
	    b.len, bad);
	tap(walk(&b, sizeof(struct lw_super_disk) - 1, e, 8) == -EBADMSG,
	    "a super cut short is refused");
}

static int parse_super_of(struct blog *b, uint64_t magic, uint64_t version,
			  uint32_t ss, char *why, size_t wlen)
{
	struct lw_super_disk s = {
		.magic = htole64(magic), .version = htole64(version),
		.nr_entries = htole64(1), .sectorsize = htole32(ss),
	};
	struct lw_log log;

	memcpy(b->buf, &s, sizeof(s));
	return lw_super_parse(&log, b->buf, 512, why, wlen);
}

/* One damaged entry after a valid super: the return and the reason. */
static int parse_entry_of(struct blog *b, uint64_t sector, uint64_t nr,
			  uint64_t flags, uint64_t dlen, char *why, size_t wlen)
{
	struct lw_entry_disk d = {
		.sector = htole64(sector), .nr_sectors = htole64(nr),
		.flags = htole64(flags), .data_len = htole64(dlen),
	};
	struct lw_log log = { .sectorsize = 512, .nr_entries = 1 };
	struct lw_entry e;

	memset(b->buf + 512, 'x', 512);
	memcpy(b->buf + 512, &d, sizeof(d));
	return lw_entry_parse(&log, b->buf, 4096, 512, &e, why, wlen);
}

static void test_damaged(void)
{
	static struct blog b;
	struct lw_log log = { .sectorsize = 512, .nr_entries = 1 };
	struct lw_entry e;
	char why[200];
	int r;

	blog_init(&b, 512);
	r = parse_super_of(&b, LW_MAGIC + 1, 1, 512, why, sizeof(why));
	tap(r == -EBADMSG && strstr(why, "not a dm-log-writes log"), "wrong magic: %s", why);
	r = parse_super_of(&b, LW_MAGIC, 2, 512, why, sizeof(why));
	tap(r == -EPROTONOSUPPORT && strstr(why, "version 2"), "another version: %s", why);
	r = parse_super_of(&b, LW_MAGIC, 1, 1000, why, sizeof(why));
	tap(r == -EBADMSG && strstr(why, "sector size 1000"), "sector size 1000: %s", why);
	r = parse_super_of(&b, LW_MAGIC, 1, 256, why, sizeof(why));
	tap(r == -EBADMSG, "sector size 256: %s", why);
	r = parse_super_of(&b, LW_MAGIC, 1, 1U << 17, why, sizeof(why));
	tap(r == -EBADMSG, "sector size 128 KiB: %s", why);
	r = parse_entry_of(&b, 0, 1, 1ULL << 7, 0, why, sizeof(why));
	tap(r == -EBADMSG && strstr(why, "unknown flags"), "unknown flags: %s", why);
	r = parse_entry_of(&b, LW_MAX_SECTORS, 1, 0, 0, why, sizeof(why));
	tap(r == -EBADMSG && strstr(why, "beyond"), "a sector beyond any device: %s", why);
	r = parse_entry_of(&b, 0, ~0ULL, 0, 0, why, sizeof(why));
	tap(r == -EBADMSG, "a count whose bytes overflow: %s", why);
	r = parse_entry_of(&b, 0, 0, LW_MARK, 512 - 31, why, sizeof(why));
	tap(r == -EBADMSG && strstr(why, "bad mark"), "a mark longer than its block: %s", why);
	r = parse_entry_of(&b, 0, 1, LW_MARK, 3, why, sizeof(why));
	tap(r == -EBADMSG && strstr(why, "bad mark"), "a mark with sectors: %s", why);
	r = parse_entry_of(&b, 0, 0, LW_MARK | LW_FUA, 3, why, sizeof(why));
	tap(r == -EBADMSG && strstr(why, "bad mark"), "a mark with FUA: %s", why);
	r = parse_entry_of(&b, 0, 1, 0, 8, why, sizeof(why));
	tap(r == -EBADMSG && strstr(why, "inline data"), "inline data on a write: %s", why);
	r = lw_entry_parse(&log, b.buf, 4096, 700, &e, why, sizeof(why));
	tap(r == -EBADMSG && strstr(why, "not a multiple"), "an entry off a sector boundary: %s", why);
	r = parse_entry_of(&b, 0, 0, LW_MARK, 512 - 32, why, sizeof(why));
	tap(r == 0, "a mark filling its block is fine");
}

/* Random damage to a valid log never makes the reader go out of bounds. */
static void test_fuzz(void)
{
	static struct blog b, d;
	struct lw_entry e[16];
	uint64_t rng = 12345;
	int i, k, ok = 0, bad = 0, more = 0;

	blog_init(&b, 512);
	add(&b, 8, 8, 0, NULL, 1);
	add(&b, 0, 0, LW_MARK, "stria-crash-1", 0);
	add(&b, 0, 0, LW_FLUSH, NULL, 0);
	add(&b, 100, 2, LW_FUA, NULL, 2);
	add(&b, 3, 1, LW_DISCARD, NULL, 0);
	for (i = 0; i < 20000; i++) {
		long n;

		d = b;
		for (k = 0; k < 1 + (int)(lw_rand(&rng) % 4); k++) {
			/* in the entry heads mostly: that is where damage bites */
			size_t at = lw_rand(&rng) % 2 ? lw_rand(&rng) % d.len :
				    512 * (1 + lw_rand(&rng) % (d.len / 512 - 1)) +
				    lw_rand(&rng) % 32;

			d.buf[at] ^= 1U << (lw_rand(&rng) % 8);
		}
		n = walk(&d, d.len, e, 16);
		if (n >= 0)
			ok++;
		else if (n == -EAGAIN)
			more++;
		else
			bad++;
	}
	tap(ok + bad + more == 20000 && bad > 1000 && ok > 1000,
	    "20000 damaged logs: %d decode, %d refused, %d ask for more; none read out of bounds",
	    ok, bad, more);
}

static void test_cut_model(void)
{
	/* 0 W, 1 W, 2 F, 3 U, 4 W, 5 W, 6 F(+data, no FUA), 7 W, 8 FU */
	const uint64_t fl[] = { 0, 0, LW_FLUSH, LW_FUA, 0, 0, LW_FLUSH, 0,
				LW_FLUSH | LW_FUA };
	uint64_t rng, seen_keep = 0, seen_drop = 0, mixed = 0;
	int i, s, b, same = 1;

	tap(lw_last_flush(fl, 1) == -1 && lw_last_flush(fl, 2) == 2 &&
	    lw_last_flush(fl, 5) == 2 && lw_last_flush(fl, 7) == 6,
	    "the last flush at or before a cut");
	tap(lw_durable(fl, 0, 2) && lw_durable(fl, 1, 2) && !lw_durable(fl, 2, 2) &&
	    lw_durable(fl, 3, 2) && !lw_durable(fl, 4, 2) && !lw_durable(fl, 6, 6) &&
	    lw_durable(fl, 8, 8) && !lw_durable(fl, 0, -1),
	    "durable: before the last flush, or FUA; a flush's own data only with FUA");
	rng = 1;
	for (i = 0; i <= 5; i++)
		same &= lw_cut_keep(fl, i, 2, LW_CUT_PREFIX, &rng, true, false);
	tap(same && rng == 1, "a prefix cut keeps everything and draws nothing");
	for (s = 1; s < 200; s++) {
		bool first_kept;

		rng = s;
		first_kept = lw_cut_keep(fl, 4, 2, LW_CUT_SUBSET, &rng, true, false);
		for (b = 1; b < 4; b++)
			if (lw_cut_keep(fl, 4, 2, LW_CUT_SUBSET, &rng, false, first_kept) !=
			    first_kept)
				same = 0;
		seen_keep += first_kept;
		seen_drop += !first_kept;
		if (!lw_cut_keep(fl, 3, 2, LW_CUT_SUBSET, &rng, true, false) ||
		    !lw_cut_keep(fl, 1, 2, LW_CUT_TORN, &rng, true, false))
			same = 0;
	}
	tap(same && seen_keep > 50 && seen_drop > 50,
	    "a subset keeps or drops a whole unflushed write (%llu kept, %llu dropped), never a durable one",
	    (unsigned long long)seen_keep, (unsigned long long)seen_drop);
	for (s = 1; s < 200; s++) {
		int k = 0;

		rng = s;
		for (b = 0; b < 8; b++)
			k += lw_cut_keep(fl, 7, 6, LW_CUT_TORN, &rng, b == 0, false);
		mixed += k > 0 && k < 8;
	}
	tap(mixed > 150, "a torn cut keeps part of an unflushed write's blocks (%llu of 199)",
	    (unsigned long long)mixed);
	rng = 5;
	tap(lw_cut_keep(fl, 1, 2, LW_CUT_LOSE, &rng, true, false) &&
	    lw_cut_keep(fl, 3, 2, LW_CUT_LOSE, &rng, true, false) &&
	    !lw_cut_keep(fl, 4, 2, LW_CUT_LOSE, &rng, true, false) &&
	    !lw_cut_keep(fl, 5, 2, LW_CUT_LOSE, &rng, false, true) && rng == 5,
	    "a cut that loses the cache keeps the durable writes only, and draws nothing");
	rng = 77;
	s = lw_cut_keep(fl, 7, 6, LW_CUT_TORN, &rng, true, false);
	rng = 77;
	tap(s == lw_cut_keep(fl, 7, 6, LW_CUT_TORN, &rng, true, false),
	    "one seed, one cut");
}

static void test_blocks(void)
{
	static uint8_t a[CP_BLOCK], c[CP_BLOCK];
	uint64_t v;

	cp_fill(a, 9, 1234, 5);
	tap(!cp_check(a, 9, 1234, &v) && v == 5, "a block names its version");
	tap(cp_check(a, 9, 1235, &v) && v == 5, "another block's data is refused");
	tap(cp_check(a, 10, 1234, &v), "another run's data is refused");
	cp_fill(c, 9, 1234, 6);
	memcpy(c + CP_BLOCK / 2, a + CP_BLOCK / 2, CP_BLOCK / 2);
	tap(cp_check(c, 9, 1234, &v) && v == 6, "a block torn between two versions is refused");
	memset(c, 0, sizeof(c));
	tap(cp_check(c, 9, 1234, &v), "zeros are refused");
	cp_fill(c, 9, 1234, 5);
	c[CP_BLOCK - 1] ^= 1;
	tap(cp_check(c, 9, 1234, &v), "one flipped bit is refused");
	tap(cp_mark_number("stria-crash-42", 14) == 42 &&
	    !cp_mark_number("stria-crash-", 12) &&
	    !cp_mark_number("stria-crash-04", 14) &&
	    !cp_mark_number("stria-crash-4x", 14) &&
	    !cp_mark_number("stria-crash-1234567890", 22) &&
	    !cp_mark_number(CP_MARK_STOPPED, strlen(CP_MARK_STOPPED)) &&
	    !cp_mark_number("dm-log-writes-end", 17),
	    "the writer's marks are told from others");
}

static int journal_of(struct cp_journal *j, const char *text, char *why, size_t wlen)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int r = cp_journal_parse(j, f, why, wlen);

	fclose(f);
	return r;
}

static void test_journal(void)
{
	/*
	 * blocks 0..9; marks: 1 issue A, B; 2 after a flush covering A;
	 * 3 issue C (dsync); 4 after C acked; B never flushed
	 */
	static const char good[] =
		CP_JOURNAL_HEAD "\n"
		"seed 5 blocks 10 marks 4 writes 3\n"
		"W 0 4 1 2 0\n"		/* A: blocks 0-3 */
		"W 2 4 1 never 0\n"	/* B: blocks 2-5, after A was acked */
		"W 5 1 3 4 1\n";	/* C: block 5, dsync */
	struct cp_journal j;
	uint32_t lo[10], hi[10];
	char why[200];
	int r;

	r = journal_of(&j, good, why, sizeof(why));
	tap(!r && j.nr == 3 && j.seed == 5 && j.blocks == 10 && j.marks == 4 &&
	    j.w[1].durable == CP_NEVER && j.w[2].dsync, "a journal reads back");
	if (r)
		return;
	cp_expect(&j, 0, false, lo, hi, NULL);
	tap(!lo[0] && !hi[0] && !hi[5], "before mark 1: only the prefill");
	cp_expect(&j, 1, false, lo, hi, NULL);
	tap(!lo[0] && hi[0] == 1 && hi[2] == 2 && hi[4] == 1 && !hi[6],
	    "at mark 1: A and B may be there");
	cp_expect(&j, 2, false, lo, hi, NULL);
	tap(lo[0] == 1 && lo[2] == 1 && hi[2] == 2 && !lo[4] && hi[4] == 1,
	    "at mark 2: A is durable, B old or new over it");
	cp_expect(&j, 4, false, lo, hi, NULL);
	tap(lo[5] == 2 && hi[5] == 2 && lo[4] == 0 && hi[4] == 1,
	    "at mark 4: C (FUA) is durable over unflushed B");
	cp_expect(&j, 0, true, lo, hi, NULL);
	tap(lo[2] == 2 && hi[2] == 2 && lo[5] == 2 && lo[9] == 0,
	    "after a clean stop every last version is durable");
	free(j.w);

	r = journal_of(&j, "hello\n", why, sizeof(why));
	tap(r && strstr(why, "not a"), "not a journal: %s", why);
	r = journal_of(&j, CP_JOURNAL_HEAD "\nseed 5 blocks 10 marks 4 writes 2\nW 0 1 1 2 0\n",
		       why, sizeof(why));
	tap(r && strstr(why, "cut short"), "a journal cut short: %s", why);
	r = journal_of(&j, CP_JOURNAL_HEAD "\nseed 5 blocks 10 marks 4 writes 1\nW 8 3 1 2 0\n",
		       why, sizeof(why));
	tap(r && strstr(why, "line 3"), "a write beyond the blocks: %s", why);
	r = journal_of(&j, CP_JOURNAL_HEAD "\nseed 5 blocks 10 marks 4 writes 1\nW 0 1 2 2 0\n",
		       why, sizeof(why));
	tap(r, "durable at the mark it was issued after: refused");
	r = journal_of(&j, CP_JOURNAL_HEAD "\nseed 5 blocks 10 marks 4 writes 2\nW 0 1 3 4 0\nW 1 1 2 4 0\n",
		       why, sizeof(why));
	tap(r, "writes issued out of mark order: refused");
	r = journal_of(&j, CP_JOURNAL_HEAD "\nseed 5 blocks 10 marks 4 writes 1\nW 0 1 1 5 0\n",
		       why, sizeof(why));
	tap(r, "a mark beyond the journal's: refused");
	r = journal_of(&j, CP_JOURNAL_HEAD "\nseed 5 blocks 10 marks 4 writes 1\nW 0 1 1 2 0 3\n",
		       why, sizeof(why));
	tap(r, "an unknown kind of zeroes: refused");
	r = journal_of(&j, CP_JOURNAL_HEAD "\nseed 5 blocks 10 marks 4 writes 1\nW 0 1 1 2 1 1\n",
		       why, sizeof(why));
	tap(r, "zeroes written with RWF_DSYNC (the writer never does): refused");
}

/* Writes of zeroes are versions: zeroes are old or new as data is. */
static void test_journal_zeroes(void)
{
	/*
	 * blocks 0..5; mark 1: D1 data 0-3 issued; 2: flushed; Z (write-zeroes
	 * 2-5) issued; 3: Z flushed; D2 data 3 issued, never flushed
	 */
	static const char good[] =
		CP_JOURNAL_HEAD "\n"
		"seed 5 blocks 6 marks 3 writes 3\n"
		"W 0 4 1 2 0 0\n"
		"W 2 4 2 3 0 1\n"
		"W 3 1 3 never 0\n";
	uint32_t lo[6], hi[6], zhi[6];
	struct cp_journal j;
	uint8_t blk[CP_BLOCK];
	char why[200];
	int r;

	r = journal_of(&j, good, why, sizeof(why));
	tap(!r && j.nr == 3 && j.w[1].zero == CP_ZERO_WZ && !j.w[2].zero,
	    "a journal with zeroes reads back (the sixth field optional)");
	if (r)
		return;
	cp_expect(&j, 1, false, lo, hi, zhi);
	tap(zhi[2] == CP_NEVER && zhi[5] == CP_NEVER && hi[2] == 1,
	    "before the zeroes are issued: no block may read zeroes");
	cp_expect(&j, 2, false, lo, hi, zhi);
	tap(lo[2] == 1 && hi[2] == 2 && zhi[2] == 2 && zhi[5] == 1 && lo[5] == 0 &&
	    zhi[0] == CP_NEVER, "issued, not flushed: old data or zeroes");
	cp_expect(&j, 3, false, lo, hi, zhi);
	tap(lo[2] == 2 && zhi[2] == lo[2] && lo[3] == 2 && hi[3] == 3 && zhi[3] == 2,
	    "flushed: zeroes at least, or the newer data over them");
	cp_expect(&j, 0, true, lo, hi, zhi);
	tap(lo[3] == 3 && zhi[3] < lo[3] && zhi[4] == lo[4],
	    "after a clean stop: newer data is not zeroes, the rest must be");
	free(j.w);
	memset(blk, 0, sizeof(blk));
	tap(cp_is_zero(blk), "a block of zeroes is zeroes");
	blk[CP_BLOCK - 1] = 1;
	tap(!cp_is_zero(blk), "a block with its last byte set is not");
}

int main(void)
{
	test_decode(512);
	test_decode(4096);
	test_truncated();
	test_damaged();
	test_fuzz();
	test_cut_model();
	test_blocks();
	test_journal();
	test_journal_zeroes();
	return tap_exit_code();
}
