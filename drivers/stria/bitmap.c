// SPDX-License-Identifier: GPL-2.0
/*
 * stria write-intent bitmap: after an unclean shutdown, resync only the
 * regions that may have had writes in flight.
 *
 * Every member of a RAID5/6 array holds the same bitmap between its
 * superblock and its data area (ondisk.h): bit r covers member data sectors
 * [r << shift, (r + 1) << shift) of every member, the stripes of region r.
 * A write request covers one stripe, so one region.
 *
 * Each region has one atomic word in memory: the writes in flight in it,
 * STRIA_WIB_ONDISK once its bit is known to be on the members, and
 * STRIA_WIB_CLEARING while the clearing daemon considers it. The fast path
 * of a write is one atomic increment that finds ONDISK set, and one
 * decrement when the request ends: no lock, nothing shared between regions.
 * Only a write into a clean region waits: a worker sets the bit in the
 * in-memory image and writes the image's 4 KiB block to every member with
 * FUA, and the write is retried once it is there (see
 * stria_bitmap_write_begin() for why queue_rq cannot wait for it itself).
 *
 * Bits are cleared lazily, as md does, by a delayed work item every
 * bitmap_clear_ms: a pass marks CLEARING on the idle regions whose bit is
 * on disk; a write that starts in a marked region takes the mark off; the
 * next pass flushes every member's cache, so each write that ended before
 * the mark is on stable storage with its parity, and then clears the
 * regions still marked and idle (one cmpxchg each, which fails if a write
 * started meanwhile) and writes the blocks. Nothing is cleared while the
 * array is degraded or has a resync to do: a bit then still says where the
 * parity may be wrong.
 *
 * Layer: services, on the recorded state (Documentation/stria/layers.rst,
 * drivers/stria/layers.map): it fails members (state.c) when it cannot be
 * written, and tells the levels and sync which stripes owe a resync.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/bio.h>
#include <linux/bitops.h>
#include <linux/blkdev.h>
#include <linux/moduleparam.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "stria.h"

static unsigned int bitmap_clear_ms = 5000;
module_param(bitmap_clear_ms, uint, 0644);
MODULE_PARM_DESC(bitmap_clear_ms,
		 "RAID5/6 write-intent bitmap: a region without writes is cleared after one to two such periods (ms; default 5000, as md's daemon_sleep)");

#define STRIA_WIB_ONDISK	BIT(30)
#define STRIA_WIB_CLEARING	BIT(29)
#define STRIA_WIB_COUNT		(BIT(29) - 1)
#define STRIA_WIB_BLOCK_BITS	(STRIA_SB_BITMAP_BLOCK * 8)

#define STRIA_WIB_MAX_TARGETS	STRIA_GEOM_MAX_MEMBERS

struct stria_wib_io;

/* One device an image update goes to. */
struct stria_wib_target {
	struct stria_wib_io *io;
	struct stria_member *m;
	bool failed;
};

/**
 * struct stria_wib_io - the block writes of one image update
 * @pending: bios in flight, plus one for the submitter
 * @done: completed when @pending drops to zero
 * @t: the devices written
 */
struct stria_wib_io {
	atomic_t pending;
	struct completion done;
	struct stria_wib_target t[STRIA_WIB_MAX_TARGETS];
};

/**
 * struct stria_wib - the write-intent bitmap of a running array
 * @array: its array
 * @shift: log2 of the region size in member sectors
 * @nr_regions: bits in use
 * @nr_blocks: 4 KiB blocks of the image (and on the members)
 * @state: per region: writes in flight, STRIA_WIB_ONDISK, _CLEARING
 * @pages: the image of the on-disk bitmap, one page per block; changed
 *	only under @lock
 * @blk_dirty: blocks of @pages changed since they were last written
 * @lock: serialises changes of the image and the writes of it
 * @want: regions writes wait to have on the members
 * @setting: regions the update in flight sets (under @lock)
 * @wq: runs @update; WQ_MEM_RECLAIM, as writes wait for it
 * @update: writes the bits of @want
 * @daemon: the clearing pass
 * @marked: the last pass marked regions for clearing
 * @dirty: bits set in the image
 * @updates: image block writes since the array started
 * @cleared: regions the daemon cleared since the array started
 * @io: the image update in flight (under @lock)
 */
struct stria_wib {
	struct stria_array *array;
	u32 shift;
	u32 nr_regions;
	u32 nr_blocks;
	atomic_t *state;
	struct page **pages;
	unsigned long *blk_dirty;
	struct mutex lock;
	unsigned long *want;
	unsigned long *setting;
	struct workqueue_struct *wq;
	struct work_struct update;
	struct delayed_work daemon;
	bool marked;
	atomic_t dirty;
	atomic64_t updates;
	atomic64_t cleared;
	struct stria_wib_io io;
};

static void *stria_wib_block(struct stria_wib *w, u32 r)
{
	return page_address(w->pages[r / STRIA_WIB_BLOCK_BITS]);
}

/* Set or clear bit @r of the image. Caller holds @w->lock. */
static void stria_wib_set(struct stria_wib *w, u32 r, bool set)
{
	void *blk = stria_wib_block(w, r);
	u32 bit = r % STRIA_WIB_BLOCK_BITS;

	if (set == test_bit_le(bit, blk))
		return;
	if (set) {
		__set_bit_le(bit, blk);
		atomic_inc(&w->dirty);
	} else {
		__clear_bit_le(bit, blk);
		atomic_dec(&w->dirty);
	}
	__set_bit(r / STRIA_WIB_BLOCK_BITS, w->blk_dirty);
}

static void stria_wib_endio(struct bio *bio)
{
	struct stria_wib_target *t = bio->bi_private;

	if (bio->bi_status)
		WRITE_ONCE(t->failed, true);
	bio_put(bio);
	if (atomic_dec_and_test(&t->io->pending))
		complete(&t->io->done);
}

/*
 * The members that keep the bitmap: every one not failed. Spares get the
 * whole image when they are added (stria_bitmap_add()); an assembly reads
 * only the members in sync, which have had every update. The member table
 * stays while the caller is in queue_rq (a change freezes the queue) or
 * holds sync.stripe_sem.
 */
static u32 stria_wib_targets(struct stria_array *a, struct stria_wib_io *io)
{
	u32 i, n = 0;

	for (i = 0; i < a->nr_members; i++)
		if (a->members[i].dev.bdev && !stria_member_failed(&a->members[i]))
			io->t[n++].m = &a->members[i];
	return n;
}

/*
 * Write blocks of the image: the changed ones to the members, or (@only)
 * all of them to one device. A member whose write fails is failed; a spare
 * only logged. Caller holds @w->lock.
 */
static void stria_wib_write(struct stria_wib *w, struct stria_member *only)
{
	struct stria_array *a = w->array;
	struct stria_wib_io *io = &w->io;
	struct blk_plug plug;
	u32 n, i, b;

	if (only) {
		io->t[0].m = only;
		n = 1;
	} else {
		n = stria_wib_targets(a, io);
	}
	for (i = 0; i < n; i++) {
		io->t[i].io = io;
		io->t[i].failed = false;
	}
	atomic_set(&io->pending, 1);
	reinit_completion(&io->done);
	blk_start_plug(&plug);
	for (b = 0; b < w->nr_blocks; b++) {
		if (!only && !__test_and_clear_bit(b, w->blk_dirty))
			continue;
		atomic64_inc(&w->updates);
		for (i = 0; i < n; i++) {
			struct bio *bio;

			bio = stria_bio_alloc(io->t[i].m->dev.bdev, 1,
					      REQ_OP_WRITE | REQ_SYNC | REQ_META |
					      REQ_FUA, GFP_NOIO);
			bio->bi_iter.bi_sector = STRIA_SB_BITMAP_OFFSET +
				(u64)b * (STRIA_SB_BITMAP_BLOCK >> SECTOR_SHIFT);
			__bio_add_page(bio, w->pages[b], STRIA_SB_BITMAP_BLOCK, 0);
			bio->bi_private = &io->t[i];
			bio->bi_end_io = stria_wib_endio;
			atomic_inc(&io->pending);
			submit_bio(bio);
		}
	}
	blk_finish_plug(&plug);
	if (!atomic_dec_and_test(&io->pending))
		wait_for_completion_io(&io->done);
	for (i = 0; i < n; i++) {
		struct stria_member *m = io->t[i].m;

		if (!io->t[i].failed)
			continue;
		pr_warn_ratelimited("stria%d: %pg: write-intent bitmap write failed\n",
				    a->index, m->dev.bdev);
		if (m->role != STRIA_SB_ROLE_SPARE &&
		    stria_member_io_error(m, BLK_STS_IOERR))
			stria_array_member_failed(a);
	}
}

/*
 * Put the bits of the regions writes wait for on the members, then have
 * blk-mq retry those writes. Worker context (@w->wq).
 */
static void stria_wib_update(struct work_struct *work)
{
	struct stria_wib *w = container_of(work, struct stria_wib, update);
	u32 r;

	mutex_lock(&w->lock);
	for_each_set_bit(r, w->want, w->nr_regions) {
		clear_bit(r, w->want);
		if (atomic_read(&w->state[r]) & STRIA_WIB_ONDISK)
			continue;
		stria_wib_set(w, r, true);
		__set_bit(r, w->setting);
	}
	stria_wib_write(w, NULL);
	for_each_set_bit(r, w->setting, w->nr_regions) {
		__clear_bit(r, w->setting);
		atomic_or(STRIA_WIB_ONDISK, &w->state[r]);
	}
	mutex_unlock(&w->lock);
	blk_mq_run_hw_queues(w->array->disk->queue, true);
}

/**
 * stria_bitmap_write_begin() - a write into a region is about to start
 * @a: the array, with a bitmap
 * @region: its region
 *
 * Any context; does not sleep. Paired with stria_bitmap_write_end() once
 * the write, parity included, is done.
 *
 * queue_rq() runs in the submitter's task, often inside its submit_bio(),
 * and holds back what that task queued before while it waits (its plug,
 * the rest of a split bio on current->bio_list): it does not wait for
 * the bitmap's own writes. So a write into a region whose bit is not on
 * the members yet starts that from a worker and is retried
 * (BLK_STS_RESOURCE); the worker runs the queue again when it is done.
 *
 * Return: true when the write may go on; false when it must be retried.
 */
bool stria_bitmap_write_begin(struct stria_array *a, u32 region)
{
	struct stria_wib *w = a->wib;
	atomic_t *st = &w->state[region];
	int v = atomic_inc_return(st);

	if (likely(v & STRIA_WIB_ONDISK)) {
		if (unlikely(v & STRIA_WIB_CLEARING))
			atomic_andnot(STRIA_WIB_CLEARING, st);
		return true;
	}
	atomic_dec(st);
	if (!test_and_set_bit(region, w->want))
		queue_work(w->wq, &w->update);
	return false;
}

/**
 * stria_bitmap_write_end() - a write begun with stria_bitmap_write_begin()
 *	is done
 * @a: the array
 * @region: its region
 *
 * Any context.
 */
void stria_bitmap_write_end(struct stria_array *a, u32 region)
{
	atomic_dec(&a->wib->state[region]);
}

/**
 * stria_bitmap_region() - the region a member sector is in
 * @a: the array, with a bitmap
 * @member_sector: sector of the data area
 *
 * Return: the region's index.
 */
u32 stria_bitmap_region(const struct stria_array *a, u64 member_sector)
{
	return member_sector >> a->wib->shift;
}

/**
 * stria_bitmap_test() - may a region have had writes cut short?
 * @a: the array
 * @member_sector: a sector of the data area
 *
 * Any context, no lock: a bit set meanwhile may be missed, which only
 * matters to writes that started after the question.
 *
 * Return: the bit of @member_sector's region in the image; true when the
 * array has no bitmap.
 */
bool stria_bitmap_test(struct stria_array *a, u64 member_sector)
{
	struct stria_wib *w = a->wib;
	u64 r;

	if (!w)
		return true;
	r = member_sector >> w->shift;
	return r < w->nr_regions &&
	       test_bit_le(r % STRIA_WIB_BLOCK_BITS, stria_wib_block(w, r));
}

/**
 * stria_sync_owed() - does a stripe still owe its resync?
 * @a: a RAID5/6 array
 * @member_sector: the stripe's first member sector (of the data area)
 *
 * While a resync runs or is recorded, the stripes of its range it has not
 * reached whose write-intent bitmap region is dirty (every one of them
 * without a bitmap) may have parity that does not match their data: writes
 * cut short by a crash. Any context, no lock; a stripe the resync is
 * passing counts as owed.
 *
 * Return: true when the stripe's parity is not to be trusted.
 */
bool stria_sync_owed(struct stria_array *a, u64 member_sector)
{
	struct stria_sync *s = &a->sync;
	u64 from, to;

	if (READ_ONCE(s->action) == STRIA_SYNC_RESYNC) {
		from = READ_ONCE(s->pos);
		to = READ_ONCE(s->end);
	} else if (READ_ONCE(s->scrub_action) == STRIA_SB_SCRUB_RESYNC) {
		from = READ_ONCE(s->scrub_pos);
		to = READ_ONCE(s->scrub_end);
	} else {
		return false;
	}
	return member_sector >= from && member_sector < to &&
	       stria_bitmap_test(a, member_sector);
}

/**
 * stria_bitmap_next_dirty() - where a resync has work from @pos on
 * @a: the array
 * @pos: member sector
 *
 * Return: the first member sector at or after @pos in a region whose bit is
 * set, @pos itself when the array has no bitmap, or U64_MAX when no region
 * from @pos on is dirty.
 */
u64 stria_bitmap_next_dirty(struct stria_array *a, u64 pos)
{
	struct stria_wib *w = a->wib;
	u32 r, b;

	if (!w)
		return pos;
	for (r = pos >> w->shift; r < w->nr_regions;
	     r = (b + 1) * STRIA_WIB_BLOCK_BITS) {
		u32 bit;

		b = r / STRIA_WIB_BLOCK_BITS;
		bit = find_next_bit_le(page_address(w->pages[b]),
				       STRIA_WIB_BLOCK_BITS,
				       r % STRIA_WIB_BLOCK_BITS);
		if (bit < STRIA_WIB_BLOCK_BITS &&
		    b * STRIA_WIB_BLOCK_BITS + bit < w->nr_regions)
			return max_t(u64, pos,
				     (u64)(b * STRIA_WIB_BLOCK_BITS + bit) <<
				     w->shift);
	}
	return U64_MAX;
}

/*
 * Nothing may be cleared while the array is read-only (nothing is
 * written), degraded, or its superblocks may still say so (a former member
 * checks against their degraded spell before a partial rebuild), or it
 * owes a resync.
 */
static bool stria_wib_may_clear(struct stria_array *a)
{
	return !READ_ONCE(a->readonly) &&
	       !atomic_read(&a->nr_failed) && !READ_ONCE(a->sb_degraded) &&
	       !stria_resync_owed(a);
}

/*
 * Call @fn on every region whose bit is set in the image. Caller holds
 * @w->lock, or is the daemon (the only one clearing bits), which tolerates
 * a bit set meanwhile being missed.
 */
static void stria_wib_each_set(struct stria_wib *w,
			       void (*fn)(struct stria_wib *w, u32 r))
{
	u32 b, bit;

	for (b = 0; b < w->nr_blocks; b++) {
		void *blk = page_address(w->pages[b]);

		for (bit = find_next_bit_le(blk, STRIA_WIB_BLOCK_BITS, 0);
		     bit < STRIA_WIB_BLOCK_BITS;
		     bit = find_next_bit_le(blk, STRIA_WIB_BLOCK_BITS, bit + 1))
			fn(w, b * STRIA_WIB_BLOCK_BITS + bit);
	}
}

static void stria_wib_mark(struct stria_wib *w, u32 r)
{
	if (atomic_cmpxchg(&w->state[r], STRIA_WIB_ONDISK,
			   STRIA_WIB_ONDISK | STRIA_WIB_CLEARING) ==
	    STRIA_WIB_ONDISK)
		w->marked = true;
}

static void stria_wib_clear(struct stria_wib *w, u32 r)
{
	if (atomic_cmpxchg(&w->state[r], STRIA_WIB_ONDISK | STRIA_WIB_CLEARING,
			   0) != (STRIA_WIB_ONDISK | STRIA_WIB_CLEARING))
		return;
	stria_wib_set(w, r, false);
	atomic64_inc(&w->cleared);
}

static void stria_wib_unmark(struct stria_wib *w, u32 r)
{
	atomic_andnot(STRIA_WIB_CLEARING, &w->state[r]);
}

static void stria_wib_arm(struct stria_wib *w)
{
	queue_delayed_work(system_long_wq, &w->daemon,
			   msecs_to_jiffies(max(READ_ONCE(bitmap_clear_ms), 100U)));
}

static void stria_wib_daemon(struct work_struct *work)
{
	struct stria_wib *w = container_of(to_delayed_work(work),
					   struct stria_wib, daemon);
	struct stria_array *a = w->array;

	if (!stria_wib_may_clear(a)) {
		if (w->marked) {
			stria_wib_each_set(w, stria_wib_unmark);
			w->marked = false;
		}
		goto out;
	}
	/* the member table stays while this holds stripe_sem */
	down_read(&a->sync.stripe_sem);
	/* what was written before the marks is durable from here on */
	if (w->marked && !stria_array_flush_members(a) &&
	    stria_wib_may_clear(a)) {
		mutex_lock(&w->lock);
		stria_wib_each_set(w, stria_wib_clear);
		stria_wib_write(w, NULL);
		mutex_unlock(&w->lock);
	}
	up_read(&a->sync.stripe_sem);
	w->marked = false;
	stria_wib_each_set(w, stria_wib_mark);
out:
	stria_wib_arm(w);
}

/**
 * stria_bitmap_dirty() - regions whose bit is set
 * @a: the array, with a bitmap
 *
 * Return: the count.
 */
u32 stria_bitmap_dirty(struct stria_array *a)
{
	return atomic_read(&a->wib->dirty);
}

/**
 * stria_bitmap_log_waits() - log the writes waiting for the bitmap
 * @a: the array
 *
 * For stria_array_freeze()'s report: regions whose bit writes wait for
 * (they return to blk-mq until it is on the members). Nothing without a
 * bitmap.
 */
void stria_bitmap_log_waits(struct stria_array *a)
{
	struct stria_wib *w = a->wib;

	if (!w)
		return;
	pr_warn("stria%d: bitmap: %u regions wanted by waiting writes, update %s\n",
		a->index, bitmap_weight(w->want, w->nr_regions),
		work_pending(&w->update) ? "queued" : "not queued");
}

/**
 * stria_bitmap_show() - the bitmap's sysfs file
 * @a: the array
 * @buf: PAGE_SIZE buffer
 *
 * Return: bytes written: "none" without a bitmap, else one "name value"
 * line each for the region size, regions, dirty regions, block writes and
 * regions cleared.
 */
ssize_t stria_bitmap_show(struct stria_array *a, char *buf)
{
	struct stria_wib *w = a->wib;

	if (!w)
		return sysfs_emit(buf, "none\n");
	return sysfs_emit(buf, "chunk_sectors %u\nregions %u\ndirty %u\nupdates %llu\ncleared %llu\nresync_skipped_sectors %llu\n",
			  1U << w->shift, w->nr_regions, atomic_read(&w->dirty),
			  atomic64_read(&w->updates),
			  atomic64_read(&w->cleared),
			  READ_ONCE(a->sync.skipped));
}

/*
 * Read @m's bitmap and add its bits to the image. Before the array runs;
 * no lock needed.
 */
static int stria_wib_load(struct stria_wib *w, struct stria_member *m,
			  struct page *tmp)
{
	u32 b, i;
	int ret;

	for (b = 0; b < w->nr_blocks; b++) {
		unsigned long *dst = page_address(w->pages[b]);
		const unsigned long *src = page_address(tmp);

		ret = stria_sb_page_io(m->dev.bdev, tmp, STRIA_SB_BITMAP_OFFSET +
				       (u64)b * (STRIA_SB_BITMAP_BLOCK >> SECTOR_SHIFT),
				       REQ_OP_READ | REQ_META);
		if (ret)
			return ret;
		/* a slow member: a kill ends the assembly between reads */
		if (fatal_signal_pending(current))
			return -EINTR;
		for (i = 0; i < STRIA_SB_BITMAP_BLOCK / sizeof(long); i++)
			dst[i] |= src[i];
	}
	return 0;
}

static void stria_wib_loaded(struct stria_wib *w, u32 r)
{
	if (r >= w->nr_regions) {
		/* beyond the regions: not ours, never written by us */
		__clear_bit_le(r % STRIA_WIB_BLOCK_BITS, stria_wib_block(w, r));
		__set_bit(r / STRIA_WIB_BLOCK_BITS, w->blk_dirty);
		return;
	}
	atomic_set(&w->state[r], STRIA_WIB_ONDISK);
	atomic_inc(&w->dirty);
}

static void stria_wib_free(struct stria_wib *w)
{
	u32 b;

	if (w->pages)
		for (b = 0; b < w->nr_blocks; b++)
			if (w->pages[b])
				__free_page(w->pages[b]);
	kfree(w->pages);
	bitmap_free(w->blk_dirty);
	kvfree(w->want);
	kvfree(w->setting);
	if (w->wq)
		destroy_workqueue(w->wq);
	kvfree(w->state);
	kfree(w);
}

/**
 * stria_bitmap_init() - set up the bitmap of an array being started
 * @a: the array, members open, before any I/O
 * @chunk: region size in member sectors (stria_sb.bitmap_chunk); 0 for
 *	none
 * @load: read the members' bitmaps (assemble), else they are zero (create)
 *
 * On assemble the image is the union of the bitmaps of the members in sync.
 * A fatal signal ends the reading between two blocks.
 *
 * Return: 0, -EINTR at a fatal signal, or another negative errno.
 */
int stria_bitmap_init(struct stria_array *a, u32 chunk, bool load)
{
	u64 regions = stria_bitmap_regions(a->geom.member_sectors, chunk);
	struct page *tmp = NULL;
	struct stria_wib *w;
	int ret = -ENOMEM;
	u32 b, i;

	if (!chunk)
		return 0;
	if (!stria_bitmap_chunk_ok(a->geom.member_sectors,
				   1U << a->geom.chunk_shift, chunk))
		return -EINVAL;
	w = kzalloc_node(sizeof(*w), GFP_KERNEL, a->node);
	if (!w)
		return -ENOMEM;
	w->array = a;
	w->shift = stria_bitmap_shift(chunk);
	w->nr_regions = regions;
	w->nr_blocks = DIV_ROUND_UP(regions, STRIA_WIB_BLOCK_BITS);
	mutex_init(&w->lock);
	init_completion(&w->io.done);
	INIT_WORK(&w->update, stria_wib_update);
	INIT_DELAYED_WORK(&w->daemon, stria_wib_daemon);
	w->state = kvzalloc_node(array_size(regions, sizeof(*w->state)),
				 GFP_KERNEL, a->node);
	w->pages = kcalloc(w->nr_blocks, sizeof(*w->pages), GFP_KERNEL);
	w->blk_dirty = bitmap_zalloc(w->nr_blocks, GFP_KERNEL);
	w->want = kvcalloc(BITS_TO_LONGS(regions), sizeof(long), GFP_KERNEL);
	w->setting = kvcalloc(BITS_TO_LONGS(regions), sizeof(long), GFP_KERNEL);
	w->wq = alloc_workqueue("stria_bitmap_%s",
				WQ_MEM_RECLAIM | WQ_HIGHPRI | STRIA_WQ_PERCPU,
				1, a->name);
	if (!w->state || !w->pages || !w->blk_dirty || !w->want ||
	    !w->setting || !w->wq)
		goto out_free;
	for (b = 0; b < w->nr_blocks; b++) {
		w->pages[b] = alloc_pages_node(a->node, GFP_KERNEL | __GFP_ZERO,
					       0);
		if (!w->pages[b])
			goto out_free;
	}
	if (load) {
		tmp = alloc_page(GFP_KERNEL);
		if (!tmp)
			goto out_free;
		for (i = 0; i < a->nr_members; i++) {
			if (!a->members[i].dev.bdev ||
			    !stria_member_in_sync(&a->members[i]))
				continue;
			ret = stria_wib_load(w, &a->members[i], tmp);
			if (ret == -EINTR)
				goto out_free;
			if (ret) {
				pr_warn("%s: %pg: cannot read the write-intent bitmap: error %d\n",
					a->name, a->members[i].dev.bdev, ret);
				goto out_free;
			}
		}
		stria_wib_each_set(w, stria_wib_loaded);
	}
	/* the superblock writer reads both under sb_lock */
	mutex_lock(&a->sb_lock);
	a->wib = w;
	a->wib_chunk = 1U << w->shift;
	mutex_unlock(&a->sb_lock);
	if (tmp)
		__free_page(tmp);
	return 0;

out_free:
	if (tmp)
		__free_page(tmp);
	stria_wib_free(w);
	return ret;
}

/**
 * stria_bitmap_create() - give a running array a clean bitmap
 * @a: the array, its queue frozen, nothing syncing; caller holds
 *	@a->cfg_lock
 * @chunk: region size in member sectors, stria_bitmap_chunk_ok()
 *
 * The image, every bit clear, is written whole to every member not failed
 * and to every spare: what the bitmap areas held before (an old bitmap,
 * anything) is gone before a superblock records the bitmap. The clearing
 * daemon is not started (stria_bitmap_run()).
 *
 * Return: 0, or -ENOMEM / -EINVAL with no bitmap.
 */
int stria_bitmap_create(struct stria_array *a, u32 chunk)
{
	struct stria_wib *w;
	int ret;
	u32 i;

	lockdep_assert_held(&a->cfg_lock);
	ret = stria_bitmap_init(a, chunk, false);
	if (ret)
		return ret;
	w = a->wib;
	mutex_lock(&w->lock);
	bitmap_fill(w->blk_dirty, w->nr_blocks);
	stria_wib_write(w, NULL);
	for (i = 0; i < a->nr_spares; i++)
		stria_wib_write(w, &a->spares[i]);
	mutex_unlock(&w->lock);
	return 0;
}

/**
 * stria_bitmap_remove() - a running array drops its bitmap
 * @a: the array, its queue frozen, nothing syncing; caller holds
 *	@a->cfg_lock
 *
 * No write is in flight, so none waits for a bit: the daemon and the
 * update worker are stopped, and the bitmap is gone from the array (and
 * from the superblocks written from now on) before it is freed. The bits
 * stay on the members, which no superblock points to any more.
 */
void stria_bitmap_remove(struct stria_array *a)
{
	struct stria_wib *w = a->wib;

	lockdep_assert_held(&a->cfg_lock);
	if (!w)
		return;
	cancel_delayed_work_sync(&w->daemon);
	flush_work(&w->update);
	mutex_lock(&a->sb_lock);
	a->wib = NULL;
	a->wib_chunk = 0;
	mutex_unlock(&a->sb_lock);
	stria_wib_free(w);
}

/**
 * stria_bitmap_run() - start clearing, once the array serves I/O
 * @a: the array
 */
void stria_bitmap_run(struct stria_array *a)
{
	if (a->wib)
		stria_wib_arm(a->wib);
}

/**
 * stria_bitmap_add() - give a new spare the bitmap
 * @a: the array
 * @m: the spare, in @a->spares already
 *
 * Process context. The whole image goes to it, so that when it takes a
 * role its bitmap area says what the others' do.
 */
void stria_bitmap_add(struct stria_array *a, struct stria_member *m)
{
	struct stria_wib *w = a->wib;

	if (!w)
		return;
	mutex_lock(&w->lock);
	stria_wib_write(w, m);
	mutex_unlock(&w->lock);
}

/**
 * stria_bitmap_stop() - the array stops, with no I/O left
 * @a: the array
 *
 * Stops the clearing daemon. When the array is in sync and owes no resync,
 * every member's cache is flushed and the bitmap cleared, so a clean stop
 * leaves a clean bitmap; else it stays as it is.
 */
void stria_bitmap_stop(struct stria_array *a)
{
	struct stria_wib *w = a->wib;
	u32 r;

	if (!w)
		return;
	flush_work(&w->update);
	cancel_delayed_work_sync(&w->daemon);
	if (!stria_wib_may_clear(a) || !atomic_read(&w->dirty) ||
	    stria_array_flush_members(a))
		return;
	mutex_lock(&w->lock);
	for (r = 0; r < w->nr_regions; r++) {
		stria_wib_set(w, r, false);
		atomic_set(&w->state[r], 0);
	}
	stria_wib_write(w, NULL);
	mutex_unlock(&w->lock);
}

/**
 * stria_bitmap_free() - free the bitmap
 * @a: the array, with no I/O and no daemon left
 */
void stria_bitmap_free(struct stria_array *a)
{
	if (!a->wib)
		return;
	cancel_work_sync(&a->wib->update);
	cancel_delayed_work_sync(&a->wib->daemon);
	stria_wib_free(a->wib);
	a->wib = NULL;
	a->wib_chunk = 0;
}
