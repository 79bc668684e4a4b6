// SPDX-License-Identifier: GPL-2.0
/*
 * The RAID5/6 layout checker (selftests/tools/stria-layout-check.c) on
 * member images built here: images laid out by geom.h with the --generate
 * pattern and correct P/Q pass for every level, layout and member count;
 * one corrupted byte of data, P or Q, two swapped data chunks and a wrong
 * layout are each reported as the mismatch they are; bad usage and
 * unreadable members exit 2. TAP output on stdout.
 */
#define _GNU_SOURCE
#define STRIA_LAYOUT_CHECK_NO_MAIN
#include "../tools/stria-layout-check.c"
#include "tap.h"

#define CHUNK		8U	/* sectors */
#define MAX_N		8U

static char dir[] = "/tmp/stria-lc-XXXXXX";
static char paths[MAX_N][64];
static FILE *devnull;

/* Per-member data offsets in sectors, different on purpose. */
static u64 member_offset(u32 m)
{
	return 16 + 8 * (m % 2);
}

/*
 * Write @n member images of @stripes stripes for the geometry: each data
 * sector its pattern, P and Q computed with gf256.h in slot order.
 */
static int build(u32 level, u32 layout, u32 n, u64 stripes)
{
	size_t cb = (size_t)CHUNK * LC_SECTOR;
	uint8_t *chunks[MAX_N], *ptrs[MAX_N];
	struct stria_geom g;
	u32 m, i, nd;
	u64 s;
	int ret = 0, fd;

	if (stria_geom_init(&g, level, layout, n, CHUNK, stripes * CHUNK))
		return -1;
	nd = stria_geom_nr_data(&g);
	for (m = 0; m < n; m++)
		chunks[m] = calloc(1, cb);
	for (m = 0; m < n && !ret; m++) {
		snprintf(paths[m], sizeof(paths[m]), "%s/m%u", dir, m);
		fd = open(paths[m], O_RDWR | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || ftruncate(fd, (off_t)((member_offset(m) +
					 stripes * CHUNK) * LC_SECTOR)))
			ret = -1;
		if (fd >= 0)
			close(fd);
	}
	for (s = 0; s < stripes && !ret; s++) {
		u32 p, q;

		stria_raid56_parity_members(&g, s, &p, &q);
		for (i = 0; i < nd; i++) {
			u64 first = (s * nd + i) * CHUNK;
			u32 k;

			m = stria_raid56_data_member(&g, s, i);
			for (k = 0; k < CHUNK; k++)
				lc_fill_sector(chunks[m] + k * LC_SECTOR,
					       first + k);
			ptrs[stria_raid56_slot(&g, s, i)] = chunks[m];
		}
		if (level == 6) {
			ptrs[nd] = chunks[p];
			ptrs[nd + 1] = chunks[q];
			gf_gen_pq((int)nd, cb, ptrs);
		} else {
			size_t b;

			for (b = 0; b < cb; b++) {
				uint8_t x = 0;

				for (i = 0; i < nd; i++)
					x ^= ptrs[i][b];
				chunks[p][b] = x;
			}
		}
		for (m = 0; m < n && !ret; m++) {
			fd = open(paths[m], O_WRONLY);
			if (fd < 0 || pwrite(fd, chunks[m], cb,
					     (off_t)((member_offset(m) + s * CHUNK) *
						     LC_SECTOR)) != (ssize_t)cb)
				ret = -1;
			if (fd >= 0)
				close(fd);
		}
	}
	for (m = 0; m < n; m++)
		free(chunks[m]);
	return ret;
}

/* Flip one byte of member @m at @byte of its chunk in stripe @s. */
static void flip(u32 m, u64 s, u32 byte)
{
	off_t off = (off_t)((member_offset(m) + s * CHUNK) * LC_SECTOR + byte);
	uint8_t b = 0;
	int fd = open(paths[m], O_RDWR);

	if (fd < 0)
		return;
	if (pread(fd, &b, 1, off) == 1) {
		b ^= 0x5a;
		if (pwrite(fd, &b, 1, off) != 1)
			b = 0;
	}
	close(fd);
}

/* Exchange the chunks of members @a and @b in stripe @s. */
static void swap_chunks(u32 a, u32 b, u64 s)
{
	size_t cb = (size_t)CHUNK * LC_SECTOR;
	uint8_t *x = malloc(cb), *y = malloc(cb);
	int fa = open(paths[a], O_RDWR), fb = open(paths[b], O_RDWR);
	off_t oa = (off_t)((member_offset(a) + s * CHUNK) * LC_SECTOR);
	off_t ob = (off_t)((member_offset(b) + s * CHUNK) * LC_SECTOR);

	if (x && y && fa >= 0 && fb >= 0 &&
	    pread(fa, x, cb, oa) == (ssize_t)cb &&
	    pread(fb, y, cb, ob) == (ssize_t)cb) {
		if (pwrite(fa, y, cb, oa) != (ssize_t)cb ||
		    pwrite(fb, x, cb, ob) != (ssize_t)cb)
			fprintf(stderr, "%s: short write\n", __func__);
	}
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	free(x);
	free(y);
}

/* Run the checker's command line on the images; fill @r when it checked. */
static int run(u32 level, const char *layout, u32 n, bool json,
	       struct lc_result *r)
{
	char lv[8], offs[8 * MAX_N] = "", *argv[16 + MAX_N];
	struct lc_opts o;
	int argc = 0, ret;
	u32 m;

	snprintf(lv, sizeof(lv), "%u", level);
	for (m = 0; m < n; m++)
		snprintf(offs + strlen(offs), sizeof(offs) - strlen(offs),
			 "%s%" PRIu64, m ? "," : "", member_offset(m));
	argv[argc++] = "stria-layout-check";
	argv[argc++] = "--level";
	argv[argc++] = lv;
	argv[argc++] = "--layout";
	argv[argc++] = (char *)layout;
	argv[argc++] = "--chunk=4K";
	argv[argc++] = "--data-offset";
	argv[argc++] = offs;
	argv[argc++] = "--pattern";
	if (json)
		argv[argc++] = "-ojson";
	for (m = 0; m < n; m++)
		argv[argc++] = paths[m];
	argv[argc] = NULL;
	/* the full tool once for its exit status and printing ... */
	ret = lc_main(argc, argv, devnull, devnull);
	/* ... and the check alone for the counts */
	memset(r, 0, sizeof(*r));
	if (!lc_parse(argc, argv, &o, devnull))
		lc_check(&o, r, devnull);
	return ret;
}

static bool reported(const struct lc_result *r, enum lc_what what, u64 s,
		     u32 m)
{
	u32 i;

	for (i = 0; i < r->nr_reports; i++)
		if (r->reports[i].what == what && r->reports[i].stripe == s &&
		    r->reports[i].member == m)
			return true;
	return false;
}

static void test_config(u32 level, u32 layout, u32 n)
{
	u64 stripes = 2 * n + 1, s = n;	/* every rotation, then some */
	const char *name = lc_layout_short[layout];
	struct stria_geom g;
	struct lc_result r;
	u32 p, q, d0, d1;
	int ret;

	if (build(level, layout, n, stripes)) {
		tap(0, "raid%u %s n=%u: build images", level, name, n);
		return;
	}
	stria_geom_init(&g, level, layout, n, CHUNK, stripes * CHUNK);
	ret = run(level, name, n, (n & 1), &r);
	tap(ret == 0 && r.stripes == stripes && !r.bad_p && !r.bad_q &&
	    !r.bad_sectors && !r.nr_reports,
	    "raid%u %s n=%u: clean images pass (%" PRIu64 " stripes)",
	    level, name, n, r.stripes);

	/* a layout that is not the one written is noticed */
	ret = run(level, lc_layout_short[(layout + 1) % 4], n, false, &r);
	tap(ret == 1 && r.bad_sectors > 0,
	    "raid%u %s n=%u: checked as %s, data is misplaced", level, name,
	    n, lc_layout_short[(layout + 1) % 4]);

	stria_raid56_parity_members(&g, s, &p, &q);
	d0 = stria_raid56_data_member(&g, s, 0);
	d1 = stria_raid56_data_member(&g, s, 1);

	flip(d0, s, 700);
	ret = run(level, name, n, false, &r);
	tap(ret == 1 && r.bad_p == 1 && r.bad_q == (level == 6) &&
	    r.bad_sectors == 1 && reported(&r, LC_BAD_DATA, s, d0) &&
	    reported(&r, LC_BAD_P, s, p) &&
	    r.reports[0].byte == 700 && r.reports[1].byte == 700,
	    "raid%u %s n=%u: a data byte flipped on member %u, stripe %" PRIu64,
	    level, name, n, d0, s);
	flip(d0, s, 700);

	flip(p, s, 3);
	ret = run(level, name, n, false, &r);
	tap(ret == 1 && r.bad_p == 1 && !r.bad_q && !r.bad_sectors &&
	    r.nr_reports == 1 && reported(&r, LC_BAD_P, s, p) &&
	    r.reports[0].byte == 3,
	    "raid%u %s n=%u: a P byte flipped, stripe %" PRIu64, level, name,
	    n, s);
	flip(p, s, 3);

	if (level == 6) {
		flip(q, s, 4095);
		ret = run(level, name, n, false, &r);
		tap(ret == 1 && !r.bad_p && r.bad_q == 1 && !r.bad_sectors &&
		    reported(&r, LC_BAD_Q, s, q) && r.reports[0].byte == 4095,
		    "raid%u %s n=%u: a Q byte flipped, stripe %" PRIu64, level,
		    name, n, s);
		flip(q, s, 4095);
	}

	/* swapped data: P still adds up, the pattern (and Q) do not */
	swap_chunks(d0, d1, s);
	ret = run(level, name, n, false, &r);
	tap(ret == 1 && !r.bad_p && r.bad_q == (level == 6) &&
	    r.bad_sectors == 2 * CHUNK && reported(&r, LC_BAD_DATA, s, d0) &&
	    r.reports[0].found == r.reports[0].array_sector + CHUNK,
	    "raid%u %s n=%u: data chunks 0 and 1 swapped in stripe %" PRIu64,
	    level, name, n, s);
}

static void test_usage(void)
{
	char *bad_level[] = { "x", "--level", "4", "--layout", "ls",
			      "--chunk", "8", "--data-offset", "0", paths[0],
			      NULL };
	char *no_dev[] = { "x", "--level", "5", "--layout", "ls", "--chunk",
			   "8", "--data-offset", "0", "/nonexistent/a",
			   "/nonexistent/b", "/nonexistent/c", NULL };
	char *bad_chunk[] = { "x", "--level", "5", "--layout", "ls",
			      "--chunk", "12", "--data-offset", "16,24,16",
			      paths[0], paths[1], paths[2], NULL };
	char *few[] = { "x", "--level", "6", "--layout", "rs", "--chunk",
			"8", "--data-offset", "16", paths[0], paths[1],
			paths[2], NULL };
	char *offs[] = { "x", "--level", "5", "--layout", "ls", "--chunk",
			 "8", "--data-offset", "16,24", paths[0], paths[1],
			 paths[2], NULL };
	char *both[] = { "x", "--level", "5", "--layout", "ls", "--chunk",
			 "8", "--data-offset", "16", "--stripes", "2",
			 "--sectors", "8", paths[0], paths[1], paths[2], NULL };
	char *missing[] = { "x", "--level", "5", paths[0], NULL };

	const struct {
		char **argv;
		const char *what;
	} cases[] = {
		{ bad_level, "level 4 is refused" },
		{ no_dev, "an unreadable member exits 2" },
		{ bad_chunk, "a chunk stria_geom_init() rejects exits 2" },
		{ few, "RAID6 with 3 members exits 2" },
		{ offs, "2 data offsets for 3 members exits 2" },
		{ both, "--stripes with --sectors exits 2" },
		{ missing, "missing options exit 2" },
	};
	size_t i;
	int argc;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (argc = 0; cases[i].argv[argc]; argc++)
			;
		tap(lc_main(argc, cases[i].argv, devnull, devnull) == 2,
		    "usage: %s", cases[i].what);
	}
}

/* --generate writes exactly the sectors the checker expects. */
static void test_generate(void)
{
	char path[80];
	uint8_t got[LC_SECTOR], want[LC_SECTOR];
	u64 sectors = 3000, s, bad = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/gen", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || lc_generate(fd, sectors, devnull)) {
		tap(0, "generate: write %" PRIu64 " sectors", sectors);
		if (fd >= 0)
			close(fd);
		return;
	}
	for (s = 0; s < sectors; s++) {
		lc_fill_sector(want, s);
		if (pread(fd, got, LC_SECTOR, (off_t)(s * LC_SECTOR)) !=
		    LC_SECTOR || memcmp(got, want, LC_SECTOR) ||
		    lc_sector_claim(got) != s)
			bad++;
	}
	tap(!bad && lseek(fd, 0, SEEK_END) == (off_t)(sectors * LC_SECTOR),
	    "generate: %" PRIu64 " sectors, each names itself", sectors);
	lc_fill_sector(got, 1);
	tap(memcmp(got + 16, want + 16, LC_SECTOR - 16) != 0,
	    "generate: sectors differ beyond the header");
	close(fd);
	unlink(path);
}

int main(void)
{
	u32 level, layout, n, m;

	devnull = fopen("/dev/null", "w");
	if (!devnull || !mkdtemp(dir)) {
		printf("not ok 1 - temporary directory\n");
		return 1;
	}
	for (level = 5; level <= 6; level++)
		for (n = level - 2; n <= level + 1; n++)
			for (layout = 0; layout < 4; layout++)
				test_config(level, layout, n);
	test_usage();
	test_generate();
	for (m = 0; m < MAX_N; m++)
		if (paths[m][0])
			unlink(paths[m]);
	rmdir(dir);
	fclose(devnull);
	return tap_exit_code();
}
