// SPDX-License-Identifier: GPL-2.0
/*
 * stria-crashlog: crash tests that lose what a power cut loses.
 *
 * The members of a stria array are dm-linear slices of one dm-log-writes
 * device, so every member write, flush and FUA is logged in one order
 * (Documentation/stria/testing.rst, "Crash tests"). This tool:
 *
 *   write    runs the workload on the array: batches of writes whose blocks
 *            name their version (crashpat.h), flushes (fdatasync) while
 *            other writes are in flight, RWF_DSYNC (FUA) batches, and marks
 *            in the log that say what was issued and what was durable when;
 *            the journal records it (crashlog-write.c).
 *   verify   checks that the array holds the journal's last versions.
 *   dump     lists a log's entries.
 *   compare  checks the capture: the starting image plus the whole log is
 *            what the logged drive holds, and the log holds no plain and
 *            FUA writes to the same sectors between two flushes (whose
 *            order it cannot tell).
 *   order    checks the write-intent order on the log: every data or parity
 *            write to a member's data area comes after every in-sync member
 *            durably says the array is active and, with a write-intent
 *            bitmap, has the write's region dirty.
 *   replay   rebuilds the members at many cut points of the log, as a power
 *            cut with volatile drive caches may leave them (logwrites.h:
 *            prefixes, random subsets and torn writes of the unflushed
 *            tail), plants a parity mismatch inside and one outside the
 *            regions the array must resync, assembles the array, and checks
 *            the data (old or new, nothing acknowledged and flushed lost),
 *            the parity (a scrub check finds exactly the mismatch planted
 *            outside) and the repair of the one planted inside
 *            (crashlog-replay.c). Each cut's members are the previous
 *            cut's, brought to the new image by rewriting only the 4 KiB
 *            blocks that differ: the stopped array's resync and superblock
 *            writes are undone, the log's new writes added.
 *
 * Exit status: 0 when every check passed, 1 when one failed, 2 for bad
 * usage or an environment the tool cannot run in.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crashlog.h"

static int cmd_dump(int argc, char **argv)
{
	struct log l;
	char fl[8];
	long i;

	if (argc != 2)
		die("usage: dump LOG");
	log_load(&l, argv[1]);
	printf("# %ld entries, sector size %u\n", l.n, l.lw.sectorsize);
	for (i = 0; i < l.n; i++) {
		const struct lw_entry *e = &l.e[i];

		if (e->mark)
			printf("%ld M %.*s\n", i, (int)e->mark_len, e->mark);
		else
			printf("%ld %s %" PRIu64 "+%" PRIu64 "\n", i,
			       flag_names(e->flags, fl, sizeof(fl)), e->sector,
			       e->nr_sectors);
	}
	return 0;
}

/* ---- order: the write-intent order on the log ----------------------------- */

/*
 * Walk the log keeping what each member durably holds in its superblock and
 * bitmap area (a FUA write at once, another write at the next flush entry),
 * and check every write to a data area against it.
 */
static int cmd_order(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "log", required_argument, NULL, 'l' },
		{ "origin", required_argument, NULL, 'o' },
		{ "members", required_argument, NULL, 'n' },
		{ "ignore-fua", no_argument, NULL, 'F' },
		{ 0 }
	};
	const char *log_path = NULL, *origin = NULL;
	uint64_t img_len, checked = 0, bad = 0, nfua = 0, nflush = 0, skipped = 0;
	bool ignore_fua = false, late;
	struct { uint64_t off, len; const uint8_t *data; } *pend;
	uint32_t nr = 0, m, k;
	long i, npend = 0;
	struct sbview v;
	struct arr a;
	struct log l;
	uint8_t *img;
	bool stale;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'l': log_path = optarg; break;
		case 'o': origin = optarg; break;
		case 'n': nr = num(optarg, "--members"); break;
		case 'F': ignore_fua = true; break;
		default: die("order: bad option");
		}
	}
	if (!log_path || !origin || !nr)
		die("usage: order --log LOG --origin IMAGE --members N [--ignore-fua]");
	log_load(&l, log_path);
	img = image_load(origin, &img_len);
	if (img_len % nr)
		die("%s: %" PRIu64 " bytes do not split into %u members", origin,
		    img_len, nr);
	arr_init(&a, img, nr, img_len / nr);
	pend = calloc(l.n + 1, sizeof(*pend));
	if (!pend)
		die("out of memory");
	sb_view(&a, img, &v);
	stale = false;
	for (i = 0; i < l.n; i++) {
		const struct lw_entry *e = &l.e[i];
		uint64_t off, len, end, moff;

		if (e->flags & LW_FLUSH) {
			nflush++;
			for (k = 0; k < npend; k++)
				memcpy(img + pend[k].off, pend[k].data, pend[k].len);
			stale |= npend > 0;
			npend = 0;
		}
		if (!lw_entry_writes(e))
			continue;
		nfua += !!(e->flags & LW_FUA);
		entry_bytes(&l, e, img_len, &off, &len);
		for (end = off + len; off < end; off += len) {
			m = off / a.member_bytes;
			moff = off % a.member_bytes;
			len = end - off;
			if (len > a.member_bytes - moff)
				len = a.member_bytes - moff;
			if (moff < a.data_off) {
				/* superblock and bitmap: durable when the drive says so */
				uint64_t ml = len < a.data_off - moff ? len : a.data_off - moff;
				const uint8_t *d = l.buf + e->data_off + (off - e->sector * l.lw.sectorsize);

				if ((e->flags & LW_FUA) && !ignore_fua) {
					memcpy(img + off, d, ml);
					stale = true;
				} else {
					pend[npend].off = off;
					pend[npend].len = ml;
					pend[npend++].data = d;
				}
				len = ml;
				continue;
			}
			if (stale)
				sb_view(&a, img, &v);
			stale = false;
			/*
			 * A member failed or being rebuilt: a rebuild writes
			 * every region, dirty or not, and a device out of the
			 * array is not the array's to order
			 */
			if (!(v.insync >> m & 1)) {
				skipped++;
				continue;
			}
			checked++;
			for (k = 0, late = false; k < a.nr; k++) {
				uint64_t s0 = (moff - a.data_off) / SECTOR;
				uint64_t s1 = (moff - a.data_off + len - 1) / SECTOR;
				uint32_t r, r0 = a.region_shift ? s0 >> a.region_shift : 0;
				uint32_t r1 = a.region_shift ? s1 >> a.region_shift : 0;
				const char *why = NULL;

				if (!(v.insync >> k & 1))
					continue;
				if (!(v.ok >> k & 1))
					why = "has no valid superblock";
				else if (v.state[k] != STRIA_SB_STATE_ACTIVE)
					why = "says the array is clean";
				for (r = r0; !why && a.region_shift && r <= r1; r++)
					if (r >= a.nr_regions ||
					    !bit_le(bitmap_of(&a, img, k), r))
						why = "has the region clear in its bitmap";
				if (!why)
					continue;
				if (!late)
					bad++;
				late = true;
				if (bad <= MAX_REPORT)
					printf("entry %ld: a %s write to member %u sectors %" PRIu64 "+%" PRIu64
					       " (region %u) while member %u durably %s\n",
					       i, e->flags & LW_FUA ? "FUA" : "plain", m,
					       s0, s1 - s0 + 1, r0, k, why);
			}
		}
	}
	printf("order: %ld entries (%" PRIu64 " flushes, %" PRIu64 " FUA writes), %" PRIu64
	       " data and parity writes checked against the superblocks%s of every in-sync member%s: %" PRIu64 " out of order\n",
	       l.n, nflush, nfua, checked, a.region_shift ? " and bitmaps" : "",
	       ignore_fua ? " (FUA taken as volatile: a self-test of this check)" : "", bad);
	if (skipped)
		printf("order: %" PRIu64 " writes to a member failed or being rebuilt not checked\n",
		       skipped);
	free(img);
	return bad ? EXIT_CHECK : 0;
}

/* Does an entry of the log write the 4 KiB at @off exactly as @dev holds them? */
static bool compare_held(const struct log *l, uint64_t off, const uint8_t *dev)
{
	uint64_t ss = l->lw.sectorsize;
	long i;

	for (i = 0; i < l->n; i++) {
		const struct lw_entry *e = &l->e[i];

		if (lw_entry_writes(e) && e->sector * ss <= off &&
		    (e->sector + e->nr_sectors) * ss >= off + 4096 &&
		    !memcmp(l->buf + e->data_off + (off - e->sector * ss), dev, 4096))
			return true;
	}
	return false;
}

/*
 * A block of the device that the replayed log does not hold: which entries
 * wrote it, with their flags and the flush entry before each, and which of
 * them wrote what the device holds.
 */
static void compare_report(const struct log *l, uint64_t off, const uint8_t *dev)
{
	uint64_t ss = l->lw.sectorsize, s0 = off / ss, s1 = (off + 4096) / ss;
	long i, flush = -1, n = 0;
	char fl[8];

	printf("bytes %" PRIu64 "+4096 differ; the log's writes there:\n", off);
	for (i = 0; i < l->n; i++) {
		const struct lw_entry *e = &l->e[i];
		const uint8_t *d;

		if (e->flags & LW_FLUSH)
			flush = i;
		if (e->mark && n)
			printf("  %ld mark %.*s\n", i, (int)e->mark_len, e->mark);
		if (!lw_entry_writes(e) || e->sector >= s1 ||
		    e->sector + e->nr_sectors <= s0 || n++ > 40)
			continue;
		d = l->buf + e->data_off + (off > e->sector * ss ? off - e->sector * ss : 0);
		printf("  %ld %s sectors %" PRIu64 "+%" PRIu64 ", after flush entry %ld%s\n",
		       i, flag_names(e->flags, fl, sizeof(fl)), e->sector,
		       e->nr_sectors, flush,
		       e->sector * ss <= off && (e->sector + e->nr_sectors) * ss >= off + 4096 &&
		       !memcmp(d, dev, 4096) ? ": what the device holds" : "");
	}
}

/*
 * The starting image with every entry of the log is what the device holds,
 * and the log holds each data block's versions in order. Exit
 * EXIT_REORDERED when the log holds every write the device got but not in
 * the order the device got them (the capture, not the array, is at fault).
 */
static int cmd_compare(int argc, char **argv)
{
	uint64_t img_len, off, len, k, bad = 0, unlogged = 0, amb, reg;
	uint8_t *img, *buf = xalloc(IO_CHUNK);
	struct log l;
	long i;
	int fd;

	if (argc != 4)
		die("usage: compare LOG IMAGE DEVICE");
	log_load(&l, argv[1]);
	img = image_load(argv[2], &img_len);
	for (i = 0; i < l.n; i++) {
		if (!lw_entry_writes(&l.e[i]))
			continue;
		entry_bytes(&l, &l.e[i], img_len, &off, &len);
		memcpy(img + off, l.buf + l.e[i].data_off, len);
	}
	fd = open(argv[3], O_RDONLY | O_DIRECT);
	if (fd < 0)
		die("%s: %s", argv[3], strerror(errno));
	for (off = 0; off < img_len; off += len) {
		len = img_len - off < IO_CHUNK ? img_len - off : IO_CHUNK;
		pread_full(fd, buf, len, off, argv[3]);
		for (k = 0; k < len; k += 4096) {
			if (!memcmp(buf + k, img + off + k, 4096))
				continue;
			if (bad++ < 3)
				compare_report(&l, off + k, buf + k);
			unlogged += !compare_held(&l, off + k, buf + k);
		}
	}
	amb = log_ambiguous(&l);
	reg = log_version_regressions(&l, img_len);
	printf("compare: %ld entries replayed over %" PRIu64 " bytes: %" PRIu64
	       " blocks of 4 KiB differ from %s (%" PRIu64 " hold what no entry wrote); %" PRIu64
	       " plain writes the log may hold out of order; %" PRIu64
	       " data block writes logged after a newer version\n", l.n, img_len, bad,
	       argv[3], unlogged, amb, reg);
	if (unlogged || amb)
		return EXIT_CHECK;
	return bad || reg ? EXIT_REORDERED : 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: stria-crashlog write|verify|dump|compare|order|replay ...\n"
		"  write --dev ARRAY --prefill [--seed S]\n"
		"  write --dev ARRAY --dm LOGDEV --journal FILE --stripe-blocks N --window-blocks N\n"
		"        [--span-blocks N] [--seed S] [--batches N] [--qd N] [--pause-ms MS]\n"
		"        [--zeroes] [--no-fua]\n"
		"  verify ARRAY JOURNAL\n"
		"  dump LOG\n"
		"  compare LOG IMAGE DEVICE\n"
		"  order --log LOG --origin IMAGE --members N [--ignore-fua]\n"
		"  replay --log LOG --origin IMAGE --journal FILE --devices DEV,DEV,...\n"
		"        [--cuts N|all] [--seed S] [--cut-log FILE] [--summary FILE]\n"
		"        [--corrupt-data] [--drop-flushes] [--full-every N] [--rebuild-role ROLE]\n");
	exit(EXIT_USAGE);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
	} cmds[] = {
		{ "write", cmd_write }, { "verify", cmd_verify },
		{ "dump", cmd_dump }, { "compare", cmd_compare },
		{ "order", cmd_order }, { "replay", cmd_replay },
	};
	size_t i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; argc >= 2 && i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	usage();
}
