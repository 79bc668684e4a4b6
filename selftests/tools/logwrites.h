/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The dm-log-writes log format, and what a drive with a volatile write
 * cache may hold after a power cut at a point of the log.
 *
 * Format (the kernel's drivers/md/dm-log-writes.c and
 * Documentation/admin-guide/device-mapper/log-writes.rst): all fields
 * little-endian; "sectorsize" is the logical block size of the logged
 * device, and every sector number and count below is in that unit.
 *
 *   byte 0            struct lw_super_disk, padded to sectorsize
 *   byte sectorsize   entry 0: struct lw_entry_disk, padded to sectorsize
 *                     (a mark's text follows the 32 bytes, in that block)
 *                     then nr_sectors * sectorsize bytes of written data,
 *                     except for a discard, which carries none
 *   ...               entry 1, ...
 *
 * nr_entries in the super is updated after each FUA write and each mark:
 * entries beyond it may be incomplete and are not read.
 *
 * Order: a write without FUA is logged only when a later flush completes,
 * and only if it completed before that flush was issued; the flush entry
 * follows the writes it made durable. A FUA write is logged when it
 * completes, a mark when it is sent. So every write logged before a flush
 * entry was on stable storage once that flush completed, and a write logged
 * after the last flush before a cut point may or may not have reached it.
 *
 * Pure code: builds in user space only, and is tested on its own by
 * selftests/unit/test_logwrites.c.
 */
#ifndef _STRIA_LOGWRITES_H
#define _STRIA_LOGWRITES_H

#include <endian.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define LW_MAGIC	0x6a736677736872ULL
#define LW_VERSION	1ULL

#define LW_FLUSH	(1ULL << 0)
#define LW_FUA		(1ULL << 1)
#define LW_DISCARD	(1ULL << 2)
#define LW_MARK		(1ULL << 3)
#define LW_METADATA	(1ULL << 4)
#define LW_KNOWN_FLAGS	(LW_FLUSH | LW_FUA | LW_DISCARD | LW_MARK | LW_METADATA)

#define LW_MIN_SECTORSIZE	512U
#define LW_MAX_SECTORSIZE	65536U
/* a device larger than this is not a test device: sector counts beyond it
 * are damage, not data (and their byte counts would overflow) */
#define LW_MAX_SECTORS		(1ULL << 40)

/* struct lw_super_disk - the log's first block */
struct lw_super_disk {
	uint64_t magic;
	uint64_t version;
	uint64_t nr_entries;
	uint32_t sectorsize;
} __attribute__((packed));

/* struct lw_entry_disk - the head of every entry */
struct lw_entry_disk {
	uint64_t sector;
	uint64_t nr_sectors;
	uint64_t flags;
	uint64_t data_len;
} __attribute__((packed));

/**
 * struct lw_log - a log being read
 * @sectorsize: the logged device's logical block size, bytes
 * @nr_entries: complete entries, from the super
 */
struct lw_log {
	uint32_t sectorsize;
	uint64_t nr_entries;
};

/**
 * struct lw_entry - one entry, decoded
 * @sector: first sector written (sectorsize units)
 * @nr_sectors: sectors written; 0 for a flush without data and a mark
 * @flags: LW_*
 * @mark: a mark's text (not NUL-terminated), else NULL
 * @mark_len: its length
 * @data_off: byte offset of the data in the log; valid with @data_len
 * @data_len: bytes of data that follow the head (0 for a discard)
 * @next_off: byte offset of the next entry
 */
struct lw_entry {
	uint64_t sector;
	uint64_t nr_sectors;
	uint64_t flags;
	const char *mark;
	size_t mark_len;
	uint64_t data_off;
	uint64_t data_len;
	uint64_t next_off;
};

/* why[len]: a reason, printf-style; returns @err so callers can tail-call */
static inline int lw_fail(char *why, size_t len, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static inline int lw_fail(char *why, size_t len, int err, const char *fmt, ...)
{
	va_list ap;

	if (why && len) {
		va_start(ap, fmt);
		vsnprintf(why, len, fmt, ap);
		va_end(ap);
	}
	return err;
}

/**
 * lw_super_parse() - read the super of a log
 * @log: filled
 * @buf: the log's first bytes
 * @len: bytes at @buf (at least sizeof(struct lw_super_disk))
 * @why: reason on failure
 * @wlen: size of @why
 *
 * Return: 0; -EBADMSG when this is not a dm-log-writes log (wrong magic, too
 * short) or is damaged (sector size not a power of two from 512 to 64 KiB);
 * -EPROTONOSUPPORT for another format version.
 */
static inline int lw_super_parse(struct lw_log *log, const void *buf,
				 size_t len, char *why, size_t wlen)
{
	struct lw_super_disk s;
	uint32_t ss;

	if (len < sizeof(s))
		return lw_fail(why, wlen, -EBADMSG,
			       "log too short for its super: %zu bytes", len);
	memcpy(&s, buf, sizeof(s));
	if (le64toh(s.magic) != LW_MAGIC)
		return lw_fail(why, wlen, -EBADMSG,
			       "not a dm-log-writes log (magic %#llx)",
			       (unsigned long long)le64toh(s.magic));
	if (le64toh(s.version) != LW_VERSION)
		return lw_fail(why, wlen, -EPROTONOSUPPORT,
			       "log format version %llu is not supported (this tool reads version %llu)",
			       (unsigned long long)le64toh(s.version),
			       (unsigned long long)LW_VERSION);
	ss = le32toh(s.sectorsize);
	if (ss < LW_MIN_SECTORSIZE || ss > LW_MAX_SECTORSIZE || (ss & (ss - 1)))
		return lw_fail(why, wlen, -EBADMSG,
			       "bad sector size %u in the log's super", ss);
	log->sectorsize = ss;
	log->nr_entries = le64toh(s.nr_entries);
	return 0;
}

/**
 * lw_entry_parse() - decode the entry at byte @off of a log
 * @log: the log's super, from lw_super_parse()
 * @buf: the log's bytes from offset 0
 * @len: bytes at @buf
 * @off: where the entry starts (sectorsize for the first, then @e->next_off)
 * @e: filled
 * @why: reason on failure
 * @wlen: size of @why
 *
 * Return: 0; -EAGAIN when @buf ends before the entry does (read more and
 * call again); -EBADMSG for a damaged entry: unknown flags, a mark longer
 * than its block, with sectors or other flags, inline data on an entry
 * that is not a mark (dm-log-writes never writes it), or sectors beyond
 * LW_MAX_SECTORS.
 */
static inline int lw_entry_parse(const struct lw_log *log, const uint8_t *buf,
				 size_t len, uint64_t off, struct lw_entry *e,
				 char *why, size_t wlen)
{
	const uint64_t ss = log->sectorsize;
	struct lw_entry_disk d;
	uint64_t dlen, mlen;

	if (off % ss)
		return lw_fail(why, wlen, -EBADMSG,
			       "entry offset %llu is not a multiple of the sector size %llu",
			       (unsigned long long)off, (unsigned long long)ss);
	if (off > len || len - off < ss)
		return -EAGAIN;
	memcpy(&d, buf + off, sizeof(d));
	e->sector = le64toh(d.sector);
	e->nr_sectors = le64toh(d.nr_sectors);
	e->flags = le64toh(d.flags);
	mlen = le64toh(d.data_len);
	e->mark = NULL;
	e->mark_len = 0;
	if (e->flags & ~LW_KNOWN_FLAGS)
		return lw_fail(why, wlen, -EBADMSG,
			       "entry at byte %llu: unknown flags %#llx",
			       (unsigned long long)off,
			       (unsigned long long)e->flags);
	if (e->sector >= LW_MAX_SECTORS || e->nr_sectors > LW_MAX_SECTORS)
		return lw_fail(why, wlen, -EBADMSG,
			       "entry at byte %llu: sector %llu + %llu is beyond any test device",
			       (unsigned long long)off,
			       (unsigned long long)e->sector,
			       (unsigned long long)e->nr_sectors);
	if (e->flags & LW_MARK) {
		if (mlen > ss - sizeof(d) || e->nr_sectors ||
		    (e->flags & ~LW_MARK))
			return lw_fail(why, wlen, -EBADMSG,
				       "entry at byte %llu: bad mark (%llu bytes of text, %llu sectors, flags %#llx)",
				       (unsigned long long)off,
				       (unsigned long long)mlen,
				       (unsigned long long)e->nr_sectors,
				       (unsigned long long)e->flags);
		e->mark = (const char *)buf + off + sizeof(d);
		e->mark_len = strnlen(e->mark, mlen);
	} else if (mlen) {
		return lw_fail(why, wlen, -EBADMSG,
			       "entry at byte %llu: %llu bytes of inline data on a write (not written by dm-log-writes)",
			       (unsigned long long)off, (unsigned long long)mlen);
	}
	dlen = e->flags & LW_DISCARD ? 0 : e->nr_sectors * ss;
	e->data_off = off + ss;
	e->data_len = dlen;
	e->next_off = off + ss + dlen;
	if (dlen > len - off - ss)
		return -EAGAIN;
	return 0;
}

/* a write whose data reaches the device: not a mark, a discard or a bare flush */
static inline bool lw_entry_writes(const struct lw_entry *e)
{
	return !(e->flags & (LW_MARK | LW_DISCARD)) && e->nr_sectors;
}

/*
 * What a cut leaves on the device. Entries up to the cut are the ones that
 * may have reached it; of those, a cut keeps:
 * - every entry up to and including the last flush entry (durable once the
 *   flush completed; the flush entry's own data only with FUA);
 * - every FUA write after it (durable once it completed);
 * - of the other writes after it (in the volatile cache at the cut):
 *   all of them (LW_CUT_PREFIX, the log as written), each with probability
 *   one half (LW_CUT_SUBSET), or each 4 KiB block of each with probability
 *   one half (LW_CUT_TORN: a write larger than what the drive writes
 *   atomically may land in part), or none of them (LW_CUT_LOSE: the whole
 *   cache lost; the replay's self-test, given a flush the drive ignored).
 */
enum lw_cut_mode {
	LW_CUT_PREFIX,
	LW_CUT_SUBSET,
	LW_CUT_TORN,
	LW_CUT_LOSE,
	LW_CUT_MODES,
};

/* the bytes the device writes atomically in LW_CUT_TORN */
#define LW_ATOMIC_BYTES	4096U

/**
 * lw_last_flush() - the last flush entry at or before a cut
 * @flags: the entries' flags, in log order
 * @cut: index of the last entry the cut reaches
 *
 * Return: its index, or -1 when none (only what FUA wrote is durable).
 */
static inline long lw_last_flush(const uint64_t *flags, long cut)
{
	long i;

	for (i = cut; i >= 0; i--)
		if (flags[i] & LW_FLUSH)
			return i;
	return -1;
}

/**
 * lw_durable() - is entry @i durable at a cut whose last flush is @flush?
 * @flags: the entries' flags
 * @i: an entry at or before the cut
 * @flush: lw_last_flush() of the cut
 *
 * Return: true when the entry's data must be on the device at the cut.
 */
static inline bool lw_durable(const uint64_t *flags, long i, long flush)
{
	return i < flush || (flags[i] & LW_FUA);
}

/* xorshift64*: the tools' one source of deterministic randomness */
static inline uint64_t lw_rand(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 0x2545f4914f6cdd1dULL;
}

/**
 * lw_cut_keep() - does a cut keep this 4 KiB block of entry @i?
 * @flags: the entries' flags
 * @i: an entry at or before the cut, one that writes
 * @flush: lw_last_flush() of the cut
 * @mode: LW_CUT_*
 * @rng: the cut's random state; call for the entries in log order and, in
 *	LW_CUT_TORN, for each block of an entry in order, so one seed always
 *	gives one image
 * @first_block: true for an entry's first block (LW_CUT_SUBSET draws once
 *	per entry, the answer for the first block holds for the others)
 * @entry_kept: the answer for the entry's first block (LW_CUT_SUBSET)
 *
 * Return: true when the block is on the device after the cut.
 */
static inline bool lw_cut_keep(const uint64_t *flags, long i, long flush,
			       enum lw_cut_mode mode, uint64_t *rng,
			       bool first_block, bool entry_kept)
{
	if (lw_durable(flags, i, flush) || mode == LW_CUT_PREFIX)
		return true;
	if (mode == LW_CUT_LOSE)
		return false;
	if (mode == LW_CUT_SUBSET && !first_block)
		return entry_kept;
	return lw_rand(rng) & 1;
}

#endif /* _STRIA_LOGWRITES_H */
