// SPDX-License-Identifier: GPL-2.0
/*
 * stria-crashlog write: the workload, with marks in the log and a journal
 * (crashpat.h); and verify: the array holds the journal's last versions.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <linux/aio_abi.h>
#include <linux/dm-ioctl.h>
#include <linux/fs.h>

#include "crashlog.h"

#define MAX_QD		16U

static int io_setup_(unsigned int nr, aio_context_t *ctx)
{
	return syscall(__NR_io_setup, nr, ctx);
}

static int io_submit_(aio_context_t ctx, long n, struct iocb **cbs)
{
	return syscall(__NR_io_submit, ctx, n, cbs);
}

static int io_getevents_(aio_context_t ctx, long min, long max,
			 struct io_event *ev)
{
	return syscall(__NR_io_getevents, ctx, min, max, ev, NULL);
}

/* Send "mark NAME" to the dm-log-writes device @dm. */
static void dm_mark(int ctl, const char *dm, const char *name)
{
	struct {
		struct dm_ioctl io;
		struct dm_target_msg msg;
		char text[128];
	} __attribute__((packed)) req;

	memset(&req, 0, sizeof(req));
	req.io.version[0] = DM_VERSION_MAJOR;
	req.io.data_size = sizeof(req);
	req.io.data_start = offsetof(typeof(req), msg);
	snprintf(req.io.name, sizeof(req.io.name), "%s", dm);
	snprintf(req.msg.message, sizeof(req.text), "mark %s", name);
	if (ioctl(ctl, DM_TARGET_MSG, &req))
		die("dm message '%s' to %s: %s", req.msg.message, dm,
		    strerror(errno));
}

/**
 * struct wr - the workload's state
 * @fd: the array, O_DIRECT
 * @ctl: /dev/mapper/control
 * @dm: the dm-log-writes device's name
 * @rng: the workload's random state
 * @blocks: the array's blocks
 * @span: blocks written: [0, @span), the rest keeps its prefill
 * @stripe: data blocks per stripe, for full-stripe writes
 * @window: blocks one batch writes in (a few bitmap regions' worth)
 * @qd: writes in flight at most
 * @ver: per block, the version last issued
 * @marks: marks sent
 * @j: the journal being built
 * @cap: room in @j.w
 * @slot: the writes in flight
 * @acked: writes acknowledged and not yet covered by a flush (no dsync)
 * @dsynced: RWF_DSYNC writes acknowledged since the last mark
 * @zeroes: some writes are write-zeroes or discard requests instead
 * @nzero: of those, per CP_ZERO_* kind
 * @no_dsync: no RWF_DSYNC batches (--no-fua)
 */
struct wr {
	int fd;
	int ctl;
	const char *dm;
	uint64_t rng;
	uint32_t blocks, span, stripe, window, qd;
	uint32_t *ver;
	uint32_t marks;
	struct cp_journal j;
	uint32_t cap;
	aio_context_t aio;
	struct {
		bool busy;
		uint32_t w;
		struct iocb cb;
		uint8_t *buf;
	} slot[MAX_QD];
	uint32_t *acked, nacked;
	uint32_t *dsynced, ndsynced;
	bool zeroes;
	uint32_t nzero[CP_ZERO_DISCARD + 1];
	bool no_dsync;
};

static uint32_t rnd(struct wr *w, uint32_t n)
{
	return n ? lw_rand(&w->rng) % n : 0;
}

/* A mark: what was issued before it and what is durable by now. */
static void wr_mark(struct wr *w)
{
	char name[32];
	uint32_t i;

	w->marks++;
	snprintf(name, sizeof(name), CP_MARK_PREFIX "%u", w->marks);
	dm_mark(w->ctl, w->dm, name);
	/* acknowledged with FUA before the mark: durable at it */
	for (i = 0; i < w->ndsynced; i++)
		w->j.w[w->dsynced[i]].durable = w->marks;
	w->ndsynced = 0;
}

static void wr_reap(struct wr *w, long min)
{
	struct io_event ev[MAX_QD];
	int n, i;

	do
		n = io_getevents_(w->aio, min, MAX_QD, ev);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		die("io_getevents: %s", strerror(errno));
	for (i = 0; i < n; i++) {
		uint32_t s = ev[i].data;
		struct cp_write *cw = &w->j.w[w->slot[s].w];

		if (ev[i].res != (int64_t)cw->nr * CP_BLOCK)
			die("write of blocks %u+%u: %s", cw->first, cw->nr,
			    (int64_t)ev[i].res < 0 ? strerror(-ev[i].res) : "short");
		w->slot[s].busy = false;
		if (cw->dsync)
			w->dsynced[w->ndsynced++] = w->slot[s].w;
		else
			w->acked[w->nacked++] = w->slot[s].w;
	}
}

static bool wr_busy(const struct wr *w)
{
	uint32_t s;

	for (s = 0; s < w->qd; s++)
		if (w->slot[s].busy)
			return true;
	return false;
}

/* fdatasync: the writes acknowledged before it are durable at the next mark */
static void wr_flush(struct wr *w)
{
	uint32_t i, n = w->nacked;

	if (fdatasync(w->fd))
		die("fdatasync: %s", strerror(errno));
	wr_mark(w);
	for (i = 0; i < n; i++)
		w->j.w[w->acked[i]].durable = w->marks;
	memmove(w->acked, w->acked + n, (w->nacked - n) * sizeof(*w->acked));
	w->nacked -= n;
}

static bool wr_overlaps(struct wr *w, uint32_t first, uint32_t nr)
{
	uint32_t s;

	for (s = 0; s < w->qd; s++) {
		const struct cp_write *o;

		if (!w->slot[s].busy)
			continue;
		o = &w->j.w[w->slot[s].w];
		if (first < o->first + o->nr && o->first < first + nr)
			return true;
	}
	return false;
}

/* Pick a write in [@lo, @lo + @len): a block, a few, a full stripe or more. */
static void wr_pick(struct wr *w, uint32_t lo, uint32_t len, uint32_t *first,
		    uint32_t *nr)
{
	uint32_t r = rnd(w, 100), n, f;

	if (r < 40)
		n = 1;
	else if (r < 60)
		n = 2 + rnd(w, 2);
	else if (r < 85)
		n = w->stripe;
	else
		n = 4 + rnd(w, 2 * w->stripe);
	if (n > len)
		n = len;
	f = lo + rnd(w, len - n + 1);
	if (n == w->stripe)
		f -= f % w->stripe;
	*first = f;
	*nr = n;
}

/* A new write at the journal's end; the blocks' versions counted. */
static void wr_record(struct wr *w, uint32_t first, uint32_t nr,
				  bool dsync, uint32_t zero)
{
	struct cp_write *cw;

	if (w->j.nr == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 1024;
		w->j.w = realloc(w->j.w, w->cap * sizeof(*w->j.w));
		w->acked = realloc(w->acked, w->cap * sizeof(*w->acked));
		w->dsynced = realloc(w->dsynced, w->cap * sizeof(*w->dsynced));
		if (!w->j.w || !w->acked || !w->dsynced)
			die("out of memory");
	}
	cw = &w->j.w[w->j.nr];
	*cw = (struct cp_write){ .first = first, .nr = nr, .issued = w->marks,
				 .durable = CP_NEVER, .dsync = dsync,
				 .zero = zero };
}

/*
 * Zeroes while the batch's other writes are in flight: a write-zeroes
 * request (BLKZEROOUT) of any blocks in [@lo, @lo + @len), or a discard
 * (BLKDISCARD) of 1 to 4 whole stripes anywhere in the span, which stria's
 * RAID5/6 turn into zeroes on every member (a discard's partial stripes it
 * leaves alone, so the writer sends none). A discard outside the batch's
 * window often reaches into a bitmap region whose bit was cleared since it
 * was last written. Synchronous: acknowledged when the ioctl returns,
 * durable at the next flush.
 */
static void wr_zero(struct wr *w, uint32_t lo, uint32_t len)
{
	uint32_t kind = rnd(w, 2) ? CP_ZERO_DISCARD : CP_ZERO_WZ;
	uint32_t first, nr, k, tries = 0, ns = w->span / w->stripe, n;
	uint64_t range[2];

	for (;;) {
		if (kind == CP_ZERO_DISCARD) {
			/* 1 to 4 stripes: up to two bitmap regions */
			n = 1 + rnd(w, 4);
			if (n > ns)
				n = ns;
			first = rnd(w, ns - n + 1) * w->stripe;
			nr = n * w->stripe;
		} else {
			wr_pick(w, lo, len, &first, &nr);
		}
		if (!wr_overlaps(w, first, nr))
			break;
		if (++tries % 4 == 0)
			wr_reap(w, 1);
	}
	wr_record(w, first, nr, false, kind);
	for (k = 0; k < nr; k++)
		++w->ver[first + k];
	range[0] = (uint64_t)first * CP_BLOCK;
	range[1] = (uint64_t)nr * CP_BLOCK;
	if (ioctl(w->fd, kind == CP_ZERO_DISCARD ? BLKDISCARD : BLKZEROOUT, range))
		die("%s of blocks %u+%u: %s",
		    kind == CP_ZERO_DISCARD ? "discard" : "write-zeroes", first, nr,
		    strerror(errno));
	w->acked[w->nacked++] = w->j.nr++;
	w->nzero[kind]++;
}

static void wr_submit(struct wr *w, uint32_t lo, uint32_t len, bool dsync)
{
	uint32_t first, nr, s, k, tries = 0;
	struct iocb *cbp;

	for (;;) {
		for (s = 0; s < w->qd && w->slot[s].busy; s++)
			;
		if (s == w->qd) {
			wr_reap(w, 1);
			continue;
		}
		wr_pick(w, lo, len, &first, &nr);
		if (!wr_overlaps(w, first, nr))
			break;
		/* no two writes in flight overlap: versions land in order */
		if (++tries % 4 == 0)
			wr_reap(w, 1);
	}
	wr_record(w, first, nr, dsync, CP_ZERO_NONE);
	for (k = 0; k < nr; k++)
		cp_fill(w->slot[s].buf + (size_t)k * CP_BLOCK, w->j.seed,
			first + k, ++w->ver[first + k]);
	memset(&w->slot[s].cb, 0, sizeof(w->slot[s].cb));
	w->slot[s].cb.aio_data = s;
	w->slot[s].cb.aio_lio_opcode = IOCB_CMD_PWRITE;
	w->slot[s].cb.aio_fildes = w->fd;
	w->slot[s].cb.aio_buf = (uintptr_t)w->slot[s].buf;
	w->slot[s].cb.aio_nbytes = (uint64_t)nr * CP_BLOCK;
	w->slot[s].cb.aio_offset = (uint64_t)first * CP_BLOCK;
	w->slot[s].cb.aio_rw_flags = dsync ? RWF_DSYNC : 0;
	cbp = &w->slot[s].cb;
	if (io_submit_(w->aio, 1, &cbp) != 1)
		die("io_submit: %s", strerror(errno));
	w->slot[s].busy = true;
	w->slot[s].w = w->j.nr++;
}

static void wr_journal(const struct wr *w, const char *path)
{
	FILE *f = fopen(path, "w");
	uint32_t i;

	if (!f)
		die("%s: %s", path, strerror(errno));
	fprintf(f, CP_JOURNAL_HEAD "\nseed %" PRIu64 " blocks %u marks %u writes %u\n",
		w->j.seed, w->blocks, w->marks, w->j.nr);
	for (i = 0; i < w->j.nr; i++) {
		const struct cp_write *cw = &w->j.w[i];
		char dur[16] = "never";

		if (cw->durable != CP_NEVER)
			snprintf(dur, sizeof(dur), "%u", cw->durable);
		fprintf(f, "W %u %u %u %s %u %u\n", cw->first, cw->nr, cw->issued,
			dur, cw->dsync, cw->zero);
	}
	if (fclose(f))
		die("%s: %s", path, strerror(errno));
}

static void wr_prefill(struct wr *w)
{
	uint32_t b, k, n;
	uint8_t *buf = xalloc(64 * CP_BLOCK);

	for (b = 0; b < w->blocks; b += n) {
		n = w->blocks - b < 64 ? w->blocks - b : 64;
		for (k = 0; k < n; k++)
			cp_fill(buf + (size_t)k * CP_BLOCK, w->j.seed, b + k, 0);
		pwrite_full(w->fd, buf, (size_t)n * CP_BLOCK,
			    (uint64_t)b * CP_BLOCK, "prefill");
	}
	if (fdatasync(w->fd))
		die("fdatasync: %s", strerror(errno));
	free(buf);
}

/*
 * Batches of writes in a window of a few bitmap regions. Every fourth
 * batch is RWF_DSYNC; the others flush half-way, with writes in flight,
 * and (four in five) at the end. Every sixth batch is followed by a pause,
 * so the bitmap's clearing runs between batches.
 *
 * With no_dsync (a rebuild in the log: its plain writes of a chunk may
 * land before a FUA write of it between two flushes, an order the log
 * cannot tell), no batch is RWF_DSYNC.
 *
 * With zeroes, one write in five of a batch without RWF_DSYNC is a
 * write-zeroes or a discard request (wr_zero()).
 *
 * A FUA batch has a flush before it (when writes are unflushed) and after
 * it: dm-log-writes logs a FUA write when it completes but a plain one at
 * the next flush, so a plain write and a FUA write to the same sectors
 * between two flushes would be logged in an order that need not be the
 * drive's (stria-crashlog compare counts such pairs).
 */
static void wr_run(struct wr *w, uint32_t batches, uint32_t pause_ms)
{
	uint32_t b, i;

	for (b = 0; b < batches; b++) {
		bool dsync = b % 4 == 3 && !w->no_dsync;
		uint32_t n = 8 + rnd(w, 9), half = n / 2;
		uint32_t lo = rnd(w, (w->span - w->window) / w->window + 1) *
			      w->window;

		if (dsync && w->nacked)
			wr_flush(w);
		wr_mark(w);
		for (i = 0; i < n; i++) {
			if (w->zeroes && !dsync && rnd(w, 5) == 0)
				wr_zero(w, lo, w->window);
			else
				wr_submit(w, lo, w->window, dsync);
			if (!dsync && i == half) {
				wr_reap(w, 0);
				wr_flush(w);
			}
		}
		while (wr_busy(w))
			wr_reap(w, 1);
		if (dsync) {
			/* durable by FUA alone, then a flush for the order */
			wr_mark(w);
			wr_flush(w);
		} else if (b % 5 != 4) {
			wr_flush(w);
		}
		if (pause_ms && b % 6 == 5)
			usleep(pause_ms * 1000);
	}
	wr_flush(w);
}

int cmd_write(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "dm", required_argument, NULL, 'm' },
		{ "journal", required_argument, NULL, 'j' },
		{ "seed", required_argument, NULL, 's' },
		{ "batches", required_argument, NULL, 'b' },
		{ "stripe-blocks", required_argument, NULL, 'S' },
		{ "window-blocks", required_argument, NULL, 'W' },
		{ "span-blocks", required_argument, NULL, 'n' },
		{ "qd", required_argument, NULL, 'q' },
		{ "pause-ms", required_argument, NULL, 'p' },
		{ "prefill", no_argument, NULL, 'P' },
		{ "zeroes", no_argument, NULL, 'Z' },
		{ "no-fua", no_argument, NULL, 'N' },
		{ 0 }
	};
	const char *dev = NULL, *journal = NULL;
	uint32_t batches = 24, pause_ms = 0, s;
	struct wr w = { .dm = NULL, .qd = 4 };
	bool prefill = false;
	int c;

	w.j.seed = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'd': dev = optarg; break;
		case 'm': w.dm = optarg; break;
		case 'j': journal = optarg; break;
		case 's': w.j.seed = num(optarg, "--seed"); break;
		case 'b': batches = num(optarg, "--batches"); break;
		case 'S': w.stripe = num(optarg, "--stripe-blocks"); break;
		case 'W': w.window = num(optarg, "--window-blocks"); break;
		case 'n': w.span = num(optarg, "--span-blocks"); break;
		case 'q': w.qd = num(optarg, "--qd"); break;
		case 'p': pause_ms = num(optarg, "--pause-ms"); break;
		case 'P': prefill = true; break;
		case 'Z': w.zeroes = true; break;
		case 'N': w.no_dsync = true; break;
		default: die("write: bad option");
		}
	}
	if (!dev || (!prefill && (!w.dm || !journal || !w.stripe || !w.window)))
		die("usage: write --dev ARRAY --prefill --seed S | write --dev ARRAY --dm LOGDEV --journal FILE --stripe-blocks N --window-blocks N [--span-blocks N] [--seed S] [--batches N] [--qd N] [--pause-ms MS] [--zeroes] [--no-fua]");
	if (!w.qd || w.qd > MAX_QD)
		die("--qd must be 1 to %u", MAX_QD);
	w.fd = open(dev, O_RDWR | O_DIRECT);
	if (w.fd < 0)
		die("%s: %s", dev, strerror(errno));
	w.blocks = dev_bytes(w.fd, dev) / CP_BLOCK;
	if (prefill) {
		wr_prefill(&w);
		printf("prefilled %u blocks (seed %" PRIu64 ")\n", w.blocks, w.j.seed);
		return 0;
	}
	if (!w.span)
		w.span = w.blocks;
	if (w.span > w.blocks || w.window > w.span || w.stripe > w.window)
		die("need stripe <= window <= span <= %u blocks", w.blocks);
	if (w.zeroes && w.span % w.stripe)
		die("--zeroes: the span (%u blocks) must be whole stripes of %u blocks",
		    w.span, w.stripe);
	w.rng = cp_block_seed(w.j.seed, 0x5eed, 0);
	w.ver = calloc(w.blocks, sizeof(*w.ver));
	w.ctl = open("/dev/mapper/control", O_RDWR);
	if (!w.ver || w.ctl < 0)
		die("/dev/mapper/control: %s", strerror(errno));
	if (io_setup_(MAX_QD, &w.aio))
		die("io_setup: %s", strerror(errno));
	for (s = 0; s < w.qd; s++)
		w.slot[s].buf = xalloc((size_t)(4 + 2 * w.stripe) * CP_BLOCK);
	wr_run(&w, batches, pause_ms);
	wr_journal(&w, journal);
	printf("wrote %u writes in %u batches, %u marks (seed %" PRIu64 ")",
	       w.j.nr, batches, w.marks, w.j.seed);
	if (w.zeroes)
		printf(", of them %u write-zeroes and %u discard requests",
		       w.nzero[CP_ZERO_WZ], w.nzero[CP_ZERO_DISCARD]);
	printf("\n");
	return 0;
}

/* Every block of the array holds the last version the journal wrote to it. */
int cmd_verify(int argc, char **argv)
{
	uint8_t *buf = xalloc(IO_CHUNK);
	uint64_t size, off, len, b, v, bad = 0;
	struct cp_journal j;
	uint32_t *lo, *hi, *zhi;
	char why[256];
	FILE *f;
	int fd;

	if (argc != 3)
		die("usage: verify ARRAY JOURNAL");
	f = fopen(argv[2], "r");
	if (!f || cp_journal_parse(&j, f, why, sizeof(why)))
		die("%s: %s", argv[2], f ? why : strerror(errno));
	fclose(f);
	fd = open(argv[1], O_RDONLY | O_DIRECT);
	if (fd < 0)
		die("%s: %s", argv[1], strerror(errno));
	size = dev_bytes(fd, argv[1]);
	if (size / CP_BLOCK != j.blocks)
		die("%s has %" PRIu64 " blocks, the journal %u", argv[1],
		    size / CP_BLOCK, j.blocks);
	lo = calloc(j.blocks, sizeof(*lo));
	hi = calloc(j.blocks, sizeof(*hi));
	zhi = calloc(j.blocks, sizeof(*zhi));
	if (!lo || !hi || !zhi)
		die("out of memory");
	cp_expect(&j, 0, true, lo, hi, zhi);
	for (off = 0; off < size; off += len) {
		len = size - off < IO_CHUNK ? size - off : IO_CHUNK;
		pread_full(fd, buf, len, off, argv[1]);
		for (b = off / CP_BLOCK; b < (off + len) / CP_BLOCK; b++) {
			const uint8_t *p = buf + (b * CP_BLOCK - off);
			int r = cp_check(p, j.seed, b, &v);

			if (zhi[b] == hi[b] ? cp_is_zero(p) : !r && v == hi[b])
				continue;
			if (bad++ >= MAX_REPORT)
				continue;
			if (zhi[b] == hi[b])
				printf("block %" PRIu64 ": not zeroes, the last write (version %u) was\n",
				       b, hi[b]);
			else
				printf("block %" PRIu64 ": %s %" PRIu64 ", the last written is %u\n",
				       b, cp_is_zero(p) ? "zeroes; claims" :
				       r ? "not a whole version; claims" : "version", v, hi[b]);
		}
	}
	printf("verify: %u blocks, %u writes: %" PRIu64 " blocks wrong\n", j.blocks,
	       j.nr, bad);
	return bad ? EXIT_CHECK : 0;
}
