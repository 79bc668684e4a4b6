// SPDX-License-Identifier: GPL-2.0
/*
 * stria-layout-check: check the members of a RAID5/6 array (stria's or md's)
 * against the geometry of drivers/stria/geom.h, stripe by stripe:
 *
 * - P equals the XOR of the stripe's data chunks;
 * - on RAID6, Q equals sum(g^slot * D) with the slot of stria_raid56_slot()
 *   (md's syndrome order), computed with the reference GF(2^8) code of
 *   selftests/unit/gf256.h;
 * - with --pattern, every sector of every data chunk holds the pattern that
 *   --generate writes for the array sector geom.h places there, so data
 *   placement is checked too, not only parity consistency.
 *
 * The pattern of array sector s (512 bytes): s as a little-endian u64, the
 * 8-byte magic "STRIAPAT", then 496 bytes of a xorshift64* stream seeded
 * from s. A misplaced sector therefore names the array sector it holds.
 *
 * Exit status: 0 no mismatch, 1 mismatches, 2 bad usage, an unreadable
 * member or a geometry that stria_geom_init() rejects.
 *
 * The checking code is also built into selftests/unit/test_layout_check.c,
 * which defines STRIA_LAYOUT_CHECK_NO_MAIN before including this file.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "geom.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "../unit/gf256.h"
#pragma GCC diagnostic pop

#define LC_SECTOR		512U
#define LC_MAX_REPORT		8U
#define LC_EXIT_OK		0
#define LC_EXIT_MISMATCH	1
#define LC_EXIT_USAGE		2

static const char lc_magic[8] = { 'S', 'T', 'R', 'I', 'A', 'P', 'A', 'T' };

static const char *const lc_layout_names[] = {
	"left-asymmetric", "right-asymmetric", "left-symmetric",
	"right-symmetric",
};

static const char *const lc_layout_short[] = { "la", "ra", "ls", "rs" };

/**
 * struct lc_opts - what to check
 * @level: 5 or 6
 * @layout: STRIA_LAYOUT_*
 * @chunk: chunk size in sectors
 * @offsets: data offset of each member in sectors
 * @nr_offsets: offsets given: 1 (the same for all members) or one per member
 * @stripes: stripes to check; 0 means all that fit
 * @sectors: array sectors to check (the stripes holding them); 0: unset
 * @pattern: also check the data against the --generate pattern
 * @json: print one JSON object instead of text
 * @generate: with @generate_sectors, write the pattern instead of checking
 * @generate_sectors: array sectors of pattern to write
 * @devs: members in role order
 * @nr_devs: number of members
 */
struct lc_opts {
	u32 level;
	u32 layout;
	u32 chunk;
	u64 offsets[STRIA_GEOM_MAX_MEMBERS];
	u32 nr_offsets;
	u64 stripes;
	u64 sectors;
	bool pattern;
	bool json;
	bool generate;
	u64 generate_sectors;
	char **devs;
	u32 nr_devs;
};

enum lc_what { LC_BAD_P, LC_BAD_Q, LC_BAD_DATA };

/**
 * struct lc_report - one mismatch
 * @what: P, Q or a data sector that does not hold its pattern
 * @stripe: stripe number
 * @member: member holding the bad P, Q or data
 * @byte: first differing byte within the chunk
 * @array_sector: for data, the array sector expected there
 * @found: for data, the array sector whose pattern is there; ~0 if none
 */
struct lc_report {
	enum lc_what what;
	u64 stripe;
	u32 member;
	u32 byte;
	u64 array_sector;
	u64 found;
};

/**
 * struct lc_result - counts of one check
 * @stripes: stripes checked
 * @bad_p: stripes whose P mismatches
 * @bad_q: stripes whose Q mismatches
 * @bad_sectors: data sectors without their pattern (with --pattern)
 * @nr_reports: entries used in @reports
 * @reports: the first mismatches; for data, the first bad sector of a chunk
 */
struct lc_result {
	u64 stripes;
	u64 bad_p;
	u64 bad_q;
	u64 bad_sectors;
	u32 nr_reports;
	struct lc_report reports[LC_MAX_REPORT];
};

static u64 lc_xorshift(u64 *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 0x2545f4914f6cdd1dULL;
}

/* Fill one 512-byte sector with the pattern of array sector @s. */
static void lc_fill_sector(uint8_t *buf, u64 s)
{
	u64 x = s * 0x9e3779b97f4a7c15ULL + 0x5354524941ULL, v;
	unsigned int i, b;

	for (b = 0; b < 8; b++)
		buf[b] = (uint8_t)(s >> (8 * b));
	memcpy(buf + 8, lc_magic, sizeof(lc_magic));
	for (i = 16; i < LC_SECTOR; i += 8) {
		v = lc_xorshift(&x);
		for (b = 0; b < 8; b++)
			buf[i + b] = (uint8_t)(v >> (8 * b));
	}
}

/* The array sector a pattern sector claims to be; ~0 without the magic. */
static u64 lc_sector_claim(const uint8_t *buf)
{
	u64 s = 0;
	unsigned int b;

	if (memcmp(buf + 8, lc_magic, sizeof(lc_magic)))
		return ~0ULL;
	for (b = 0; b < 8; b++)
		s |= (u64)buf[b] << (8 * b);
	return s;
}

static size_t lc_first_diff(const uint8_t *a, const uint8_t *b, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (a[i] != b[i])
			return i;
	return len;
}

static void lc_report(struct lc_result *r, enum lc_what what, u64 stripe,
		      u32 member, size_t byte, u64 array_sector, u64 found)
{
	struct lc_report *rep;

	if (r->nr_reports >= LC_MAX_REPORT)
		return;
	rep = &r->reports[r->nr_reports++];
	rep->what = what;
	rep->stripe = stripe;
	rep->member = member;
	rep->byte = (u32)byte;
	rep->array_sector = array_sector;
	rep->found = found;
}

/* Write the pattern of @sectors array sectors to @fd. */
static int lc_generate(int fd, u64 sectors, FILE *err)
{
	enum { BATCH = 2048 };	/* 1 MiB per write */
	uint8_t *buf = malloc((size_t)BATCH * LC_SECTOR);
	u64 s = 0;
	int ret = LC_EXIT_OK;

	if (!buf) {
		fprintf(err, "stria-layout-check: out of memory\n");
		return LC_EXIT_USAGE;
	}
	while (s < sectors && ret == LC_EXIT_OK) {
		u64 n = sectors - s < BATCH ? sectors - s : BATCH, i;
		size_t len = (size_t)n * LC_SECTOR, done = 0;

		for (i = 0; i < n; i++)
			lc_fill_sector(buf + i * LC_SECTOR, s + i);
		while (done < len) {
			ssize_t w = write(fd, buf + done, len - done);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				fprintf(err, "stria-layout-check: write: %s\n",
					w < 0 ? strerror(errno) : "short write");
				ret = LC_EXIT_USAGE;
				break;
			}
			done += (size_t)w;
		}
		s += n;
	}
	free(buf);
	return ret;
}

static int lc_read_full(int fd, uint8_t *buf, size_t len, off_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t r = pread(fd, buf + done, len - done, off + (off_t)done);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0)
				errno = EIO;	/* beyond the end */
			return -1;
		}
		done += (size_t)r;
	}
	return 0;
}

/* Check the data chunk of @member in @stripe, holding data index @index. */
static void lc_check_pattern(const struct stria_geom *g, u64 stripe,
			     u32 member, u32 index, const uint8_t *chunk,
			     u64 limit, uint8_t *expect, struct lc_result *r)
{
	u32 cs = 1U << g->chunk_shift, i;
	u64 first = (stripe * stria_geom_nr_data(g) + index) << g->chunk_shift;
	bool reported = false;

	for (i = 0; i < cs && first + i < limit; i++) {
		const uint8_t *got = chunk + (size_t)i * LC_SECTOR;
		size_t d;

		lc_fill_sector(expect, first + i);
		d = lc_first_diff(got, expect, LC_SECTOR);
		if (d == LC_SECTOR)
			continue;
		r->bad_sectors++;
		if (reported)	/* the first bad sector of each chunk only */
			continue;
		reported = true;
		lc_report(r, LC_BAD_DATA, stripe, member,
			  (size_t)i * LC_SECTOR + d, first + i,
			  lc_sector_claim(got));
	}
}

/**
 * lc_check() - check the members named in @o
 * @o: options, with at least one member
 * @r: filled with the counts and first mismatches
 * @err: where to say why the check could not run
 *
 * Return: LC_EXIT_OK, LC_EXIT_MISMATCH or LC_EXIT_USAGE.
 */
static int lc_check(const struct lc_opts *o, struct lc_result *r, FILE *err)
{
	u32 n = o->nr_devs, nd, np, m, cs = o->chunk;
	size_t cb = (size_t)cs * LC_SECTOR;
	int fds[STRIA_GEOM_MAX_MEMBERS];
	uint8_t **bufs = NULL, **ptrs = NULL, *pq = NULL, *expect = NULL;
	u64 msize = ~0ULL, stripes, limit, s;
	struct stria_geom g;
	int ret = LC_EXIT_USAGE;

	memset(r, 0, sizeof(*r));
	for (m = 0; m < n; m++)
		fds[m] = -1;
	if (n > STRIA_GEOM_MAX_MEMBERS) {
		fprintf(err, "stria-layout-check: at most %u members\n",
			STRIA_GEOM_MAX_MEMBERS);
		return LC_EXIT_USAGE;
	}
	for (m = 0; m < n; m++) {
		u64 off = o->offsets[o->nr_offsets > 1 ? m : 0];
		off_t end;

		fds[m] = open(o->devs[m], O_RDONLY);
		if (fds[m] < 0) {
			fprintf(err, "stria-layout-check: %s: %s\n",
				o->devs[m], strerror(errno));
			goto out;
		}
		/* a member written under us (by md) must not come from cache */
		posix_fadvise(fds[m], 0, 0, POSIX_FADV_DONTNEED);
		end = lseek(fds[m], 0, SEEK_END);
		if (end < 0 || (u64)end / LC_SECTOR <= off) {
			fprintf(err, "stria-layout-check: %s: no data area after the offset of %" PRIu64 " sectors\n",
				o->devs[m], off);
			goto out;
		}
		if ((u64)end / LC_SECTOR - off < msize)
			msize = (u64)end / LC_SECTOR - off;
	}
	if (stria_geom_init(&g, o->level, o->layout, n, cs, msize)) {
		fprintf(err, "stria-layout-check: geometry rejected: level %u layout %u, %u members, chunk %u sectors, %" PRIu64 " data sectors per member\n",
			o->level, o->layout, n, cs, msize);
		goto out;
	}
	nd = stria_geom_nr_data(&g);
	np = stria_geom_nr_parity(&g);
	stripes = g.member_sectors >> g.chunk_shift;
	limit = stria_geom_array_sectors(&g);
	if (o->sectors) {
		if (o->sectors > limit) {
			fprintf(err, "stria-layout-check: %" PRIu64 " sectors requested, the array has %" PRIu64 "\n",
				o->sectors, limit);
			goto out;
		}
		limit = o->sectors;
		stripes = (limit + stria_geom_stripe_sectors(&g) - 1) /
			  stria_geom_stripe_sectors(&g);
	} else if (o->stripes) {
		if (o->stripes > stripes) {
			fprintf(err, "stria-layout-check: %" PRIu64 " stripes requested, the members hold %" PRIu64 "\n",
				o->stripes, stripes);
			goto out;
		}
		stripes = o->stripes;
		limit = stripes * stria_geom_stripe_sectors(&g);
	}

	bufs = calloc(n, sizeof(*bufs));
	ptrs = calloc(nd + 2, sizeof(*ptrs));
	pq = malloc(2 * cb);
	expect = malloc(LC_SECTOR);
	if (!bufs || !ptrs || !pq || !expect) {
		fprintf(err, "stria-layout-check: out of memory\n");
		goto out;
	}
	for (m = 0; m < n; m++) {
		bufs[m] = malloc(cb);
		if (!bufs[m]) {
			fprintf(err, "stria-layout-check: out of memory\n");
			goto out;
		}
	}
	gf_init();

	for (s = 0; s < stripes; s++) {
		struct stria_stripe st;
		u32 i;
		size_t d;

		for (m = 0; m < n; m++) {
			u64 off = o->offsets[o->nr_offsets > 1 ? m : 0];

			if (lc_read_full(fds[m], bufs[m], cb,
					 (off_t)((off + (s << g.chunk_shift)) *
						 LC_SECTOR))) {
				fprintf(err, "stria-layout-check: %s: read of stripe %" PRIu64 ": %s\n",
					o->devs[m], s, strerror(errno));
				goto out;
			}
		}
		stria_raid56_parity_members(&g, s, &st.p, &st.q);
		/* data in syndrome-slot order, then P and Q: gen_syndrome's */
		for (i = 0; i < nd; i++) {
			m = stria_raid56_data_member(&g, s, i);
			ptrs[stria_raid56_slot(&g, s, i)] = bufs[m];
			if (o->pattern)
				lc_check_pattern(&g, s, m, i, bufs[m], limit,
						 expect, r);
		}
		ptrs[nd] = pq;
		ptrs[nd + 1] = pq + cb;
		gf_gen_pq((int)nd, cb, ptrs);
		d = lc_first_diff(pq, bufs[st.p], cb);
		if (d < cb) {
			r->bad_p++;
			lc_report(r, LC_BAD_P, s, st.p, d, 0, 0);
		}
		if (np == 2) {
			d = lc_first_diff(pq + cb, bufs[st.q], cb);
			if (d < cb) {
				r->bad_q++;
				lc_report(r, LC_BAD_Q, s, st.q, d, 0, 0);
			}
		}
		r->stripes++;
	}
	ret = r->bad_p || r->bad_q || r->bad_sectors ? LC_EXIT_MISMATCH :
						       LC_EXIT_OK;
out:
	if (bufs)
		for (m = 0; m < n; m++)
			free(bufs[m]);
	free(bufs);
	free(ptrs);
	free(pq);
	free(expect);
	for (m = 0; m < n; m++)
		if (fds[m] >= 0)
			close(fds[m]);
	return ret;
}

static const char *const lc_what_names[] = { "P", "Q", "data" };

static void lc_print_text(const struct lc_opts *o, const struct lc_result *r,
			  FILE *out)
{
	u32 i;

	fprintf(out, "raid%u %s, %u members, chunk %u sectors: %" PRIu64 " stripes checked, %" PRIu64 " P mismatches",
		o->level, lc_layout_names[o->layout], o->nr_devs, o->chunk,
		r->stripes, r->bad_p);
	if (o->level == 6)
		fprintf(out, ", %" PRIu64 " Q mismatches", r->bad_q);
	if (o->pattern)
		fprintf(out, ", %" PRIu64 " data sectors without their pattern",
			r->bad_sectors);
	fputc('\n', out);
	for (i = 0; i < r->nr_reports; i++) {
		const struct lc_report *rep = &r->reports[i];

		fprintf(out, "stripe %" PRIu64 ": %s mismatch on member %u (%s) at byte %u of the chunk",
			rep->stripe, lc_what_names[rep->what], rep->member,
			o->devs[rep->member], rep->byte);
		if (rep->what == LC_BAD_DATA) {
			fprintf(out, ": array sector %" PRIu64, rep->array_sector);
			if (rep->found == ~0ULL)
				fprintf(out, ", no pattern there");
			else if (rep->found != rep->array_sector)
				fprintf(out, ", holds array sector %" PRIu64,
					rep->found);
			else
				fprintf(out, ", corrupted");
		}
		fputc('\n', out);
	}
}

static void lc_print_json(const struct lc_opts *o, const struct lc_result *r,
			  FILE *out)
{
	u32 i;

	fprintf(out, "{\"level\": %u, \"layout\": %u, \"layout_name\": \"%s\", \"members\": %u, \"chunk_sectors\": %u, \"stripes\": %" PRIu64 ", \"p_mismatches\": %" PRIu64 ", \"q_mismatches\": %" PRIu64 ", \"pattern_checked\": %s, \"data_mismatches\": %" PRIu64 ", \"mismatches\": [",
		o->level, o->layout, lc_layout_names[o->layout], o->nr_devs,
		o->chunk, r->stripes, r->bad_p, r->bad_q,
		o->pattern ? "true" : "false", r->bad_sectors);
	for (i = 0; i < r->nr_reports; i++) {
		const struct lc_report *rep = &r->reports[i];

		fprintf(out, "%s{\"what\": \"%s\", \"stripe\": %" PRIu64 ", \"member\": %u, \"byte\": %u",
			i ? ", " : "", lc_what_names[rep->what], rep->stripe,
			rep->member, rep->byte);
		if (rep->what == LC_BAD_DATA) {
			fprintf(out, ", \"array_sector\": %" PRIu64 ", \"found\": ",
				rep->array_sector);
			if (rep->found == ~0ULL)
				fprintf(out, "null");
			else
				fprintf(out, "%" PRIu64, rep->found);
		}
		fputc('}', out);
	}
	fprintf(out, "]}\n");
}

static void lc_usage(FILE *f)
{
	fprintf(f,
		"usage: stria-layout-check --level 5|6 --layout N|la|ra|ls|rs --chunk SIZE\n"
		"           --data-offset SECTORS[,SECTORS...] [--stripes N | --sectors N]\n"
		"           [--pattern] [-o text|json] DEV...\n"
		"       stria-layout-check --generate SECTORS >ARRAY\n"
		"\n"
		"Check P (and Q) of every stripe of the members DEV... (in role order),\n"
		"with --pattern also that each data sector holds the --generate pattern\n"
		"of the array sector drivers/stria/geom.h places there.\n"
		"SIZE and SECTORS are 512-byte sectors; SIZE may end in K or M (bytes).\n"
		"--data-offset takes one value for all members or one per member.\n"
		"--sectors N checks the stripes holding array sectors 0..N-1.\n"
		"Exit: 0 no mismatch, 1 mismatches, 2 usage or I/O error.\n");
}

/* A number of sectors; with a K or M suffix, bytes (a multiple of 512). */
static int lc_parse_sectors(const char *s, u64 *v, bool suffix)
{
	char *end;
	unsigned long long x;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno)
		return -1;
	if (suffix && (*end == 'K' || *end == 'k' || *end == 'M' ||
		       *end == 'm')) {
		x = x * (*end == 'K' || *end == 'k' ? 1024 : 1048576) / LC_SECTOR;
		end++;
	}
	if (*end)
		return -1;
	*v = x;
	return 0;
}

static int lc_parse_layout(const char *s, u32 *layout)
{
	u32 i;

	for (i = 0; i < 4; i++) {
		if (!strcmp(s, lc_layout_names[i]) ||
		    !strcmp(s, lc_layout_short[i])) {
			*layout = i;
			return 0;
		}
	}
	if (s[0] >= '0' && s[0] <= '3' && !s[1]) {
		*layout = (u32)(s[0] - '0');
		return 0;
	}
	return -1;
}

static int lc_parse_offsets(const char *s, struct lc_opts *o)
{
	const char *p = s;

	o->nr_offsets = 0;
	while (*p) {
		char tmp[32];
		size_t len = strcspn(p, ",");

		if (!len || len >= sizeof(tmp) ||
		    o->nr_offsets >= STRIA_GEOM_MAX_MEMBERS)
			return -1;
		memcpy(tmp, p, len);
		tmp[len] = '\0';
		if (lc_parse_sectors(tmp, &o->offsets[o->nr_offsets++], false))
			return -1;
		p += len;
		if (*p == ',' && !*++p)
			return -1;
	}
	return o->nr_offsets ? 0 : -1;
}

/**
 * lc_parse() - command line to options
 * @argc: argument count
 * @argv: arguments; @o->devs points into it
 * @o: filled
 * @err: where usage errors go
 *
 * Return: 0, LC_EXIT_USAGE on a bad command line, or -1 after --help.
 */
static int lc_parse(int argc, char **argv, struct lc_opts *o, FILE *err)
{
	static const struct option longopts[] = {
		{ "level", required_argument, NULL, 'l' },
		{ "layout", required_argument, NULL, 'y' },
		{ "chunk", required_argument, NULL, 'c' },
		{ "data-offset", required_argument, NULL, 'd' },
		{ "stripes", required_argument, NULL, 's' },
		{ "sectors", required_argument, NULL, 'S' },
		{ "pattern", no_argument, NULL, 'p' },
		{ "generate", required_argument, NULL, 'g' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool have_layout = false;
	int c, idx = -1;
	u64 v;

	memset(o, 0, sizeof(*o));
	optind = 0;	/* glibc: start over, lc_parse() may run twice */
	while ((c = getopt_long(argc, argv, "o:h", longopts, &idx)) != -1) {
		switch (c) {
		case 'l':
			if (lc_parse_sectors(optarg, &v, false) ||
			    (v != 5 && v != 6))
				goto bad_value;
			o->level = (u32)v;
			break;
		case 'y':
			if (lc_parse_layout(optarg, &o->layout))
				goto bad_value;
			have_layout = true;
			break;
		case 'c':
			if (lc_parse_sectors(optarg, &v, true) || v > 1U << 20)
				goto bad_value;
			o->chunk = (u32)v;
			break;
		case 'd':
			if (lc_parse_offsets(optarg, o))
				goto bad_value;
			break;
		case 's':
			if (lc_parse_sectors(optarg, &o->stripes, false) ||
			    !o->stripes)
				goto bad_value;
			break;
		case 'S':
			if (lc_parse_sectors(optarg, &o->sectors, false) ||
			    !o->sectors)
				goto bad_value;
			break;
		case 'p':
			o->pattern = true;
			break;
		case 'g':
			if (lc_parse_sectors(optarg, &o->generate_sectors, true))
				goto bad_value;
			o->generate = true;
			break;
		case 'o':
			if (strcmp(optarg, "json") && strcmp(optarg, "text"))
				goto bad_value;
			o->json = !strcmp(optarg, "json");
			break;
		case 'h':
			lc_usage(stdout);
			return -1;
		default:
			lc_usage(err);
			return LC_EXIT_USAGE;
		}
		idx = -1;
	}
	o->devs = argv + optind;
	o->nr_devs = (u32)(argc - optind);
	if (o->generate) {
		if (o->nr_devs) {
			fprintf(err, "stria-layout-check: --generate takes no devices\n");
			return LC_EXIT_USAGE;
		}
		return 0;
	}
	if (!o->level || !have_layout || !o->chunk || !o->nr_offsets ||
	    !o->nr_devs) {
		fprintf(err, "stria-layout-check: --level, --layout, --chunk, --data-offset and the members are required\n");
		lc_usage(err);
		return LC_EXIT_USAGE;
	}
	if (o->stripes && o->sectors) {
		fprintf(err, "stria-layout-check: --stripes or --sectors, not both\n");
		return LC_EXIT_USAGE;
	}
	if (o->nr_offsets > 1 && o->nr_offsets != o->nr_devs) {
		fprintf(err, "stria-layout-check: %u data offsets for %u members\n",
			o->nr_offsets, o->nr_devs);
		return LC_EXIT_USAGE;
	}
	return 0;

bad_value:
	fprintf(err, "stria-layout-check: bad value for %s%s: '%s'\n",
		idx < 0 ? "-" : "--", idx < 0 ? "o" : longopts[idx].name,
		optarg);
	return LC_EXIT_USAGE;
}

/**
 * lc_main() - the whole tool: parse, generate or check, print
 * @argc: argument count
 * @argv: arguments
 * @out: where results go
 * @err: where errors go
 *
 * Return: the exit status.
 */
static int lc_main(int argc, char **argv, FILE *out, FILE *err)
{
	struct lc_opts o;
	struct lc_result r;
	int ret;

	ret = lc_parse(argc, argv, &o, err);
	if (ret)
		return ret < 0 ? LC_EXIT_OK : ret;
	if (o.generate)
		return lc_generate(STDOUT_FILENO, o.generate_sectors, err);
	ret = lc_check(&o, &r, err);
	if (ret == LC_EXIT_USAGE)
		return ret;
	if (o.json)
		lc_print_json(&o, &r, out);
	else
		lc_print_text(&o, &r, out);
	return ret;
}

#ifndef STRIA_LAYOUT_CHECK_NO_MAIN
int main(int argc, char **argv)
{
	return lc_main(argc, argv, stdout, stderr);
}
#endif
