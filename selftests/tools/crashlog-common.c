// SPDX-License-Identifier: GPL-2.0
/*
 * stria-crashlog's shared parts: I/O helpers, the log read into memory,
 * and what the members' superblocks and bitmaps say (crashlog.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <linux/fs.h>

#include "crashlog.h"

static const char *prog = "stria-crashlog";

void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_USAGE);
}

void *xalloc(size_t len)
{
	void *p;

	if (posix_memalign(&p, 4096, len ? len : 4096))
		die("out of memory (%zu bytes)", len);
	memset(p, 0, len);
	return p;
}

uint64_t num(const char *s, const char *what)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		die("%s: not a number: '%s'", what, s);
	return v;
}

double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Read or write all @len bytes at @off, or die naming @what. */
static void io_full(int fd, void *buf, size_t len, uint64_t off,
		    const char *what, bool write)
{
	size_t done = 0;

	while (done < len) {
		ssize_t r = write ? pwrite(fd, (char *)buf + done, len - done, off + done) :
				    pread(fd, (char *)buf + done, len - done, off + done);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			die("%s: %s of %zu bytes at %" PRIu64 ": %s", what,
			    write ? "write" : "read", len - done, off + done,
			    r ? strerror(errno) : "end of device");
		done += r;
	}
}

void pread_full(int fd, void *buf, size_t len, uint64_t off, const char *what)
{
	io_full(fd, buf, len, off, what, false);
}

void pwrite_full(int fd, const void *buf, size_t len, uint64_t off,
		 const char *what)
{
	io_full(fd, (void *)buf, len, off, what, true);
}

uint64_t dev_bytes(int fd, const char *what)
{
	uint64_t size;
	struct stat st;

	if (fstat(fd, &st))
		die("%s: %s", what, strerror(errno));
	if (S_ISREG(st.st_mode))
		return st.st_size;
	if (ioctl(fd, BLKGETSIZE64, &size))
		die("%s: size: %s", what, strerror(errno));
	return size;
}

/* ---- the log ------------------------------------------------------------ */

/* Read the log at @path: the super, then entries until nr_entries. */
void log_load(struct log *l, const char *path)
{
	char why[256];
	size_t cap = 4 << 20, len = 0;
	uint64_t off = 0, size;
	long i;
	int fd, ret;

	fd = open(path, O_RDONLY | O_DIRECT);
	if (fd < 0)
		fd = open(path, O_RDONLY);
	if (fd < 0)
		die("%s: %s", path, strerror(errno));
	size = dev_bytes(fd, path);
	memset(l, 0, sizeof(*l));
	l->buf = xalloc(cap);
	/* more is read whenever an entry runs past what is there */
	for (;;) {
		size_t want = len + (1 << 20) > size ? size - len : (1 << 20);

		if (len + want > cap) {
			uint8_t *nb = xalloc(2 * cap);

			memcpy(nb, l->buf, len);
			free(l->buf);
			l->buf = nb;
			cap *= 2;
		}
		if (want)
			pread_full(fd, l->buf + len, want, len, path);
		len += want;
		if (!l->e) {
			ret = lw_super_parse(&l->lw, l->buf, len, why, sizeof(why));
			if (ret)
				die("%s: %s", path, why);
			if (l->lw.nr_entries > (1U << 24))
				die("%s: %" PRIu64 " entries: not a test's log", path,
				    l->lw.nr_entries);
			l->e = calloc(l->lw.nr_entries + 1, sizeof(*l->e));
			l->flags = calloc(l->lw.nr_entries + 1, sizeof(*l->flags));
			if (!l->e || !l->flags)
				die("out of memory");
			off = l->lw.sectorsize;
		}
		while ((uint64_t)l->n < l->lw.nr_entries) {
			ret = lw_entry_parse(&l->lw, l->buf, len, off,
					     &l->e[l->n], why, sizeof(why));
			if (ret == -EAGAIN)
				break;
			if (ret)
				die("%s: entry %ld: %s", path, l->n, why);
			l->flags[l->n] = l->e[l->n].flags;
			off = l->e[l->n].next_off;
			l->n++;
		}
		if ((uint64_t)l->n == l->lw.nr_entries)
			break;
		if (len == size)
			die("%s: the log ends in entry %ld of %" PRIu64, path, l->n,
			    l->lw.nr_entries);
	}
	l->len = len;
	close(fd);
	for (i = 0; i < l->n; i++) {
		if (!l->e[i].mark)
			continue;
		/* parsed in a buffer since grown: the text is in this one */
		l->e[i].mark = (const char *)l->buf + l->e[i].data_off -
			       l->lw.sectorsize + sizeof(struct lw_entry_disk);
		if (!l->e[i].mark_len)
			die("%s: entry %ld: an empty mark", path, i);
	}
}

/*
 * Plain writes logged after a FUA write they overlap, both between the same
 * two flushes: the plain one was logged at the flush, the FUA one when it
 * completed, so the log does not say which reached the sectors last.
 * Return: how many, and the first few on stdout.
 */
uint64_t log_ambiguous(const struct log *l)
{
	long i, k, group = 0;
	uint64_t n = 0;

	for (i = 0; i < l->n; i++) {
		const struct lw_entry *e = &l->e[i];

		if (l->flags[i] & LW_FLUSH)
			group = i;
		if (!lw_entry_writes(e) || (e->flags & LW_FUA))
			continue;
		for (k = group; k < i; k++) {
			const struct lw_entry *f = &l->e[k];

			if (!(f->flags & LW_FUA) || !lw_entry_writes(f) ||
			    f->sector >= e->sector + e->nr_sectors ||
			    e->sector >= f->sector + f->nr_sectors)
				continue;
			if (n++ < MAX_REPORT)
				printf("entries %ld (FUA) and %ld (plain) overlap at sector %" PRIu64
				       " between the same flushes: their order is not in the log\n",
				       k, i, e->sector > f->sector ? e->sector : f->sector);
			break;
		}
	}
	return n;
}

/*
 * Data blocks the log holds out of version order: a write of block b at
 * version v logged after one of b at a higher version. The writer never has
 * two writes of a block in flight, so the drive got a block's versions in
 * order; a log can still hold them otherwise, since dm-log-writes logs the
 * plain writes a flush covers only when that flush completes, and two
 * flushes in flight may complete in the other order. A block is known by
 * its head (crashpat.h); parity and metadata are not blocks.
 * Return: how many such writes, and the first few on stdout.
 */
uint64_t log_version_regressions(const struct log *l, uint64_t img_len)
{
	uint64_t nb = img_len / CP_BLOCK, *top = calloc(nb ? nb : 1, sizeof(*top));
	uint64_t n = 0, off, len, p, b, v, seed;
	long i;

	if (!top)
		die("out of memory");
	for (i = 0; i < l->n; i++) {
		const struct lw_entry *e = &l->e[i];

		if (!lw_entry_writes(e))
			continue;
		entry_bytes(l, e, img_len, &off, &len);
		for (p = (CP_BLOCK - off % CP_BLOCK) % CP_BLOCK; p + CP_BLOCK <= len;
		     p += CP_BLOCK) {
			const uint8_t *d = l->buf + e->data_off + p;

			memcpy(&b, d + 8, 8);
			memcpy(&seed, d + 24, 8);
			b = le64toh(b);
			if (b >= nb || cp_check(d, le64toh(seed), b, &v))
				continue;
			/* top[b]: the highest version logged so far, plus one */
			if (top[b] > v + 1 && n++ < MAX_REPORT)
				printf("entry %ld writes block %" PRIu64 " at version %" PRIu64
				       " after version %" PRIu64 " was logged\n",
				       i, b, v, top[b] - 1);
			if (top[b] < v + 1)
				top[b] = v + 1;
		}
	}
	free(top);
	return n;
}

bool mark_is(const struct lw_entry *e, const char *name)
{
	return e->mark && e->mark_len == strlen(name) &&
	       !memcmp(e->mark, name, e->mark_len);
}

/* the writer's mark number of entry @e, 0 when it is not one */
uint32_t mark_number(const struct lw_entry *e)
{
	return e->mark ? cp_mark_number(e->mark, e->mark_len) : 0;
}

const char *flag_names(uint64_t f, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s%s", f & LW_FLUSH ? "F" : "",
		 f & LW_FUA ? "U" : "", f & LW_DISCARD ? "D" : "",
		 f & LW_MARK ? "M" : "", f & LW_METADATA ? "m" : "");
	if (!*buf)
		snprintf(buf, len, "W");
	return buf;
}

/* ---- the array on the members ------------------------------------------- */

int sb_parse(const uint8_t *p, struct stria_sb *sb, char *why, size_t len)
{
	memcpy(sb, p, sizeof(*sb));
	return stria_sb_check(sb, stria_crc32c(sb, STRIA_SB_CRC_OFFSET), why, len);
}

/* Read the array's shape from member 0's superblock in @img. */
void arr_init(struct arr *a, const uint8_t *img, uint32_t nr,
		     uint64_t member_bytes)
{
	struct stria_sb sb;
	char why[160];
	uint32_t bc;

	if (sb_parse(img, &sb, why, sizeof(why)))
		die("member 0 of the starting image: %s", why);
	memset(a, 0, sizeof(*a));
	a->nr = nr;
	a->member_bytes = member_bytes;
	if (stria_le32(sb.nr_members) != nr)
		die("the superblocks say %u members, %u given",
		    stria_le32(sb.nr_members), nr);
	if (stria_geom_setup(&a->g, stria_le32(sb.level),
			     stria_le32(sb.parity_layout), nr,
			     stria_le32(sb.chunk_sectors),
			     stria_le64(sb.data_sectors)) ||
	    !stria_geom_redundant(&a->g))
		die("the superblocks describe no RAID1, 5, 6 or 10 geometry");
	a->data_off = stria_le64(sb.data_offset) * SECTOR;
	if (a->data_off + a->g.member_sectors * SECTOR > member_bytes)
		die("members of %" PRIu64 " bytes cannot hold the data area",
		    member_bytes);
	bc = stria_le32(sb.bitmap_chunk);
	if (bc) {
		a->region_shift = stria_bitmap_shift(bc);
		a->nr_regions = stria_bitmap_regions(a->g.member_sectors, bc);
	}
	memcpy(a->name, sb.name, STRIA_SB_NAME_LEN);
}

/* What the superblocks of the members (@img, member i at i * member_bytes) say. */
void sb_view(const struct arr *a, const uint8_t *img, struct sbview *v)
{
	struct stria_sb sb;
	char why[160];
	uint32_t i;

	memset(v, 0, sizeof(*v));
	v->fresh = -1;
	for (i = 0; i < a->nr; i++) {
		if (sb_parse(img + i * a->member_bytes, &sb, why, sizeof(why)) ||
		    stria_le32(sb.role) != i)
			continue;
		v->ok |= 1ULL << i;
		v->events[i] = stria_le64(sb.events);
		v->state[i] = stria_le32(sb.state);
		if (v->fresh < 0 || v->events[i] > v->events[v->fresh])
			v->fresh = i;
	}
	if (v->fresh < 0)
		return;
	sb_parse(img + v->fresh * a->member_bytes, &sb, why, sizeof(why));
	v->active = stria_le32(sb.state) == STRIA_SB_STATE_ACTIVE;
	v->failed = stria_le64(sb.failed);
	v->rebuilding = stria_le64(sb.rebuilding);
	v->rebuild_offset = stria_le64(sb.rebuild_offset);
	v->insync = ((a->nr < 64 ? 1ULL << a->nr : 0) - 1) &
		    ~(v->failed | v->rebuilding);
}

bool bit_le(const uint8_t *bm, uint32_t r)
{
	return bm[r / 8] & (1U << (r % 8));
}

/* the bitmap area of member @m in @img */
const uint8_t *bitmap_of(const struct arr *a, const uint8_t *img, uint32_t m)
{
	return img + m * a->member_bytes + STRIA_SB_BITMAP_OFFSET * SECTOR;
}

/*
 * The regions an assembly of @img resyncs, as the module decides: none when
 * the freshest superblock says clean; with a bitmap, the union of the
 * in-sync members' bits; without one, all. @out has a byte per region (one
 * region covering everything without a bitmap). Return: how many.
 */
uint32_t resync_regions(const struct arr *a, const uint8_t *img,
			       const struct sbview *v, uint8_t *out)
{
	uint32_t r, m, nreg = a->region_shift ? a->nr_regions : 1, n = 0;

	memset(out, 0, nreg);
	if (v->fresh < 0 || !v->active)
		return 0;
	for (r = 0; r < nreg; r++) {
		if (!a->region_shift) {
			out[r] = 1;
		} else {
			for (m = 0; m < a->nr; m++)
				if ((v->insync >> m & 1) &&
				    bit_le(bitmap_of(a, img, m), r))
					out[r] = 1;
		}
		n += out[r];
	}
	return n;
}

uint32_t region_of_stripe(const struct arr *a, uint64_t stripe)
{
	return a->region_shift ?
	       (uint32_t)((stripe << a->g.chunk_shift) >> a->region_shift) : 0;
}

/* Read the starting image (the members, one after the other) at @path. */
uint8_t *image_load(const char *path, uint64_t *len)
{
	uint8_t *img;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		die("%s: %s", path, strerror(errno));
	*len = dev_bytes(fd, path);
	img = xalloc(*len);
	pread_full(fd, img, *len, 0, path);
	close(fd);
	return img;
}

/* the bytes of the logged device entry @e writes, with a range check */
void entry_bytes(const struct log *l, const struct lw_entry *e,
			uint64_t img_len, uint64_t *off, uint64_t *len)
{
	*off = e->sector * l->lw.sectorsize;
	*len = e->data_len;
	if (*off > img_len || *len > img_len - *off)
		die("log entry %ld writes bytes %" PRIu64 "+%" PRIu64
		    " beyond the %" PRIu64 " bytes of the members",
		    (long)(e - l->e), *off, *len, img_len);
}
