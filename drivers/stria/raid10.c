// SPDX-License-Identifier: GPL-2.0
/*
 * stria RAID1 and RAID10: md's placement (geom_raid10.h), blk-mq requests
 * through io.c like RAID5/6.
 *
 * A read goes to one copy, chosen by stria_mirror_choose() from what the
 * reading CPU alone has sent (mirror_read.h): its reads in flight to each
 * member and where its last read of each member ended, kept per CPU here.
 * A member in sync that fails a read is kept, within max_read_repairs:
 * the repair work here reads the data from another copy, writes it back
 * and reads it back (md's fix_read_error()), then the read is queued
 * again. Beyond that, or when the copy cannot be spared, the member is
 * failed and the read goes to another copy; the last copy of a chunk is
 * not failed for a read: that read ends with EIO (io.c).
 *
 * A write, discard or write-zeroes goes to every copy whose member has not
 * failed (a member being rebuilt too). A copy left out for a failed member
 * holds the request until the superblocks record the failure
 * (stria_rq_skipped()), as on RAID5/6. Requests stay within a chunk
 * (chunk_sectors); discard and write-zeroes, which the block layer does not
 * cut at chunks, are cut here.
 *
 * Layering (Documentation/stria/layers.rst): a level, behind
 * stria_raid10_ops; calls the services.
 */
#include <linux/blk-mq.h>
#include <linux/delay.h>
#include <linux/hash.h>
#include <linux/percpu.h>

#include "stria.h"
#include "mirror_read.h"

/**
 * struct stria_r10_cpu - what one CPU has sent to each member
 * @inflight: its reads in flight, per member (dropped by whichever CPU
 *	completes them)
 * @last_end: member sector after its last read of each member; U64_MAX
 *	before the first
 */
struct stria_r10_cpu {
	atomic_t inflight[STRIA_GEOM_MAX_MEMBERS];
	u64 last_end[STRIA_GEOM_MAX_MEMBERS];
};

/* hashed barrier slots: writes to a chunk and the sync of it exclude */
#define STRIA_R10_BARRIERS	1024

/**
 * struct stria_r10_barrier - one slot of the barrier
 * @writers: writes in flight to chunks of this slot
 * @held: the sync copies or compares a chunk of this slot: writes wait
 * @bounced: a write was sent back while it was held: run the queues when
 *	the sync lets go (blk-mq would only retry it after a delay)
 */
struct stria_r10_barrier {
	atomic_t writers;
	atomic_t held;
	atomic_t bounced;
};

/**
 * struct stria_raid10 - RAID1/10 state
 * @cpu: per-CPU read state
 * @barrier: writes against the sync, by chunk (hashed)
 * @sync_pages: the sync's buffers, one chunk per copy, in pages
 * @sync_nr_pages: pages per chunk
 * @array: the array
 * @repair_wq: runs @repair_work (not the superblocks' queue: a repair
 *	waits for writes that may wait for the superblocks)
 * @repair_work: writes the data of failed reads back (read repair)
 * @repair_lock: guards @repair_list
 * @repair_list: reads whose copy failed, to repair (on rq->queuelist)
 * @repair_page: the repair's buffers: the good data, and what the
 *	repaired copy reads back
 */
struct stria_raid10 {
	struct stria_r10_cpu __percpu *cpu;
	struct stria_r10_barrier barrier[STRIA_R10_BARRIERS];
	struct page **sync_pages[STRIA_R10_MAX_COPIES];
	u32 sync_nr_pages;
	struct stria_array *array;
	struct workqueue_struct *repair_wq;
	struct work_struct repair_work;
	spinlock_t repair_lock;
	struct list_head repair_list;
	struct page *repair_page[2];
};

static struct stria_r10_barrier *stria_r10_slot(struct stria_raid10 *r,
						u64 chunk)
{
	return &r->barrier[hash_64(chunk, ilog2(STRIA_R10_BARRIERS))];
}

/*
 * A write enters the chunk's slot, unless the sync holds it: then it is
 * sent back (BLK_STS_RESOURCE) and blk-mq runs it again shortly. Pairs
 * with stria_r10_hold(): each side raises its count, then looks at the
 * other's.
 */
static bool stria_r10_enter(struct stria_array *a, struct request *rq,
			    u64 chunk)
{
	struct stria_r10_barrier *b = stria_r10_slot(a->r10, chunk);

	if (!atomic_read(&b->held)) {
		stria_rq_count_inflight(rq, &b->writers);
		/* our count before the look at held; pairs with stria_r10_hold() */
		smp_mb__after_atomic();
		if (!atomic_read(&b->held))
			return true;
		stria_rq_drop_inflight(rq);
	}
	atomic_set(&b->bounced, 1);
	return false;
}

/* The sync takes the slot of @chunk: new writes wait, those in flight end. */
static struct stria_r10_barrier *stria_r10_hold(struct stria_raid10 *r,
						u64 chunk)
{
	struct stria_r10_barrier *b = stria_r10_slot(r, chunk);

	atomic_inc(&b->held);
	/* held before the look at writers; pairs with stria_r10_enter() */
	smp_mb__after_atomic();
	while (atomic_read(&b->writers))
		usleep_range(50, 100);
	return b;
}

static void stria_r10_release(struct stria_array *a,
			      struct stria_r10_barrier *b)
{
	atomic_dec(&b->held);
	/* the writes sent back meanwhile, if any: not once per chunk synced */
	if (atomic_xchg(&b->bounced, 0))
		blk_mq_run_hw_queues(a->disk->queue, true);
}

/* The member may serve a read of @msector: in sync, or rebuilt that far. */
static bool stria_r10_readable(struct stria_array *a, u32 role, u64 msector)
{
	struct stria_member *m = &a->members[role];

	if (stria_member_in_sync(m))
		return true;
	return READ_ONCE(m->state) == STRIA_STATE_REBUILDING &&
	       msector < READ_ONCE(a->sync.rebuild_ckpt);
}

static blk_status_t stria_r10_read(struct stria_array *a, struct request *rq)
{
	struct stria_raid10 *r = a->r10;
	struct stria_loc locs[STRIA_R10_MAX_COPIES];
	struct stria_mirror_copy c[STRIA_R10_MAX_COPIES];
	u32 k, n = stria_r10_copies(&a->geom.r10);
	u64 pos = blk_rq_pos(rq), chunk = pos >> a->geom.chunk_shift;
	struct stria_r10_cpu *pc;
	blk_status_t st;
	int pick;

	stria_r10_map(&a->geom.r10, pos, locs);
	pc = get_cpu_ptr(r->cpu);
	for (k = 0; k < n; k++) {
		u32 m = locs[k].member;
		struct block_device *bdev = a->members[m].dev.bdev;

		c[k].usable = stria_r10_readable(a, m, locs[k].sector);
		/* the member's device now: a spare that took the role has its own */
		c[k].node = bdev ? bdev->bd_disk->node_id : NUMA_NO_NODE;
		c[k].inflight = atomic_read(&pc->inflight[m]);
		c[k].last_end = pc->last_end[m];
		c[k].sector = locs[k].sector;
	}
	pick = stria_mirror_choose(c, n, numa_node_id(), chunk,
				   stria_sync_owed(a, locs[0].sector));
	if (pick < 0) {
		put_cpu_ptr(r->cpu);
		return BLK_STS_IOERR;
	}
	k = pick;
	pc->last_end[locs[k].member] = locs[k].sector + blk_rq_sectors(rq);
	/* queued again after a failed copy: counted for the new one only */
	stria_rq_drop_inflight(rq);
	stria_rq_count_inflight(rq, &pc->inflight[locs[k].member]);
	put_cpu_ptr(r->cpu);
	st = stria_rq_to_member(a, rq, &a->members[locs[k].member],
				a->data_offset + locs[k].sector);
	return st;
}

/* Roles of the copies in @locs whose members failed: skipped by writes. */
static u64 stria_r10_failed_copies(struct stria_array *a,
				   const struct stria_loc *locs, u32 n)
{
	u64 skipped = 0;
	u32 k;

	for (k = 0; k < n; k++)
		if (stria_member_failed(&a->members[locs[k].member]))
			skipped |= BIT_ULL(locs[k].member);
	return skipped;
}

/* a run of bitmap regions per copy fits in a request */
static_assert(STRIA_R10_MAX_COPIES <= STRIA_WIB_RANGES);

/*
 * The bitmap regions a write of array sectors [@pos, @end) holds: those
 * of each copy (a run of regions per copy; near copies share theirs, far
 * ones lie far apart). @end - 1 is in @pos's chunk or the next.
 */
static bool stria_r10_bitmap_begin(struct stria_array *a, struct request *rq,
				   u64 pos, u64 end)
{
	struct stria_loc lo[STRIA_R10_MAX_COPIES], hi[STRIA_R10_MAX_COPIES];
	u32 k, n = stria_r10_copies(&a->geom.r10);
	u64 first[STRIA_R10_MAX_COPIES], last[STRIA_R10_MAX_COPIES];

	stria_r10_map(&a->geom.r10, pos, lo);
	stria_r10_map(&a->geom.r10, end - 1, hi);
	for (k = 0; k < n; k++) {
		first[k] = min(lo[k].sector, hi[k].sector);
		last[k] = max(lo[k].sector, hi[k].sector);
	}
	return stria_rq_bitmap_begin_ranges(a, rq, first, last, n);
}

/*
 * The replacement of member @role while a replace copies it, else NULL: it
 * gets the member's writes too, behind the copy and ahead of it. A replace
 * starts and ends with the queue frozen, so every write sees one answer.
 */
static struct stria_member *stria_r10_repl_of(struct stria_array *a, u32 role)
{
	if (unlikely(READ_ONCE(a->repl_role) == role) &&
	    READ_ONCE(a->repl.state) == STRIA_STATE_REPLACEMENT)
		return &a->repl;
	return NULL;
}

static blk_status_t stria_r10_write(struct stria_array *a, struct request *rq)
{
	struct stria_loc locs[STRIA_R10_MAX_COPIES];
	u32 k, n = stria_r10_copies(&a->geom.r10);
	struct bio_list clones = BIO_EMPTY_LIST;
	u64 pos = blk_rq_pos(rq), skipped;
	struct bio *bio;

	if (!stria_r10_enter(a, rq, pos >> a->geom.chunk_shift))
		return BLK_STS_RESOURCE;
	if (!stria_r10_bitmap_begin(a, rq, pos, pos + blk_rq_sectors(rq)))
		return BLK_STS_RESOURCE;
	stria_r10_map(&a->geom.r10, pos, locs);
	skipped = stria_r10_failed_copies(a, locs, n);
	/* no copy left: the array has failed */
	if (hweight64(skipped) == n)
		return BLK_STS_IOERR;
	for (k = 0; k < n; k++) {
		struct stria_member *to[2] = {
			&a->members[locs[k].member],
			stria_r10_repl_of(a, locs[k].member),
		};
		u32 t;

		if (skipped & BIT_ULL(locs[k].member))
			continue;
		for (t = 0; t < ARRAY_SIZE(to) && to[t]; t++) {
			__rq_for_each_bio(bio, rq) {
				if (stria_clone_prepare(a, rq, to[t], bio,
							a->data_offset +
							locs[k].sector +
							(bio->bi_iter.bi_sector - pos),
							&clones)) {
					stria_clones_drop(&clones);
					return BLK_STS_RESOURCE;
				}
			}
		}
	}
	if (skipped)
		stria_rq_skipped(rq, skipped);
	stria_count_io(a, rq);
	stria_clones_submit(rq, &clones);
	return BLK_STS_OK;
}

/*
 * Discard and write-zeroes, which may cross chunks: each chunk's piece
 * goes to that chunk's copies.
 */
static blk_status_t stria_r10_zero(struct stria_array *a, struct request *rq)
{
	struct stria_loc locs[STRIA_R10_MAX_COPIES];
	u32 k, n = stria_r10_copies(&a->geom.r10);
	struct bio_list clones = BIO_EMPTY_LIST;
	u64 pos = blk_rq_pos(rq), end = pos + blk_rq_sectors(rq), len;
	stria_opf_t opf = (stria_opf_t)req_op(rq) |
			  (rq->cmd_flags & REQ_NOUNMAP);
	u64 skipped = 0, failed;

	/* the limits keep it within two chunks: a slot for each */
	if (!stria_r10_enter(a, rq, pos >> a->geom.chunk_shift) ||
	    ((end - 1) >> a->geom.chunk_shift != pos >> a->geom.chunk_shift &&
	     !stria_r10_enter(a, rq, (end - 1) >> a->geom.chunk_shift)))
		return BLK_STS_RESOURCE;
	if (!stria_r10_bitmap_begin(a, rq, pos, end))
		return BLK_STS_RESOURCE;
	for (; pos < end; pos += len) {
		len = min_t(u64, end - pos,
			    stria_geom_chunk_sectors_left(&a->geom, pos));
		stria_r10_map(&a->geom.r10, pos, locs);
		failed = stria_r10_failed_copies(a, locs, n);
		/* no copy of this chunk left: as a write, the data is lost */
		if (hweight64(failed) == n) {
			stria_clones_drop(&clones);
			return BLK_STS_IOERR;
		}
		skipped |= failed;
		for (k = 0; k < n; k++) {
			struct stria_member *to[2] = {
				&a->members[locs[k].member],
				stria_r10_repl_of(a, locs[k].member),
			};
			u32 t;

			if (skipped & BIT_ULL(locs[k].member))
				continue;
			for (t = 0; t < ARRAY_SIZE(to) && to[t]; t++) {
				if (stria_clone_prepare_empty(a, rq, to[t], opf,
							      a->data_offset +
							      locs[k].sector,
							      len, &clones)) {
					stria_clones_drop(&clones);
					return BLK_STS_RESOURCE;
				}
			}
		}
	}
	if (skipped)
		stria_rq_skipped(rq, skipped);
	this_cpu_inc(a->stats->discards);
	stria_clones_submit(rq, &clones);
	return BLK_STS_OK;
}

static blk_status_t stria_raid10_queue_rq(struct stria_array *a,
					  struct request *rq)
{
	switch (req_op(rq)) {
	case REQ_OP_READ:
		return stria_r10_read(a, rq);
	case REQ_OP_WRITE:
		return stria_r10_write(a, rq);
	case REQ_OP_DISCARD:
	case REQ_OP_WRITE_ZEROES:
		return stria_r10_zero(a, rq);
	default:
		return BLK_STS_NOTSUPP;
	}
}


/* ---- sync: rebuild, replace, resync, check, repair --------------------- */

/*
 * Read or write @len bytes of member @m at member sector @sector from or
 * to @nr pages of @pages (the last one in part). A real error fails the
 * member (the usual rule) when @fail is set.
 */
static int stria_r10_pages_io(struct stria_array *a, struct stria_member *m,
			      stria_opf_t opf, u64 sector, struct page **pages,
			      u32 nr, u32 len, bool fail)
{
	blk_status_t st;
	struct bio *bio;
	u32 i;

	bio = stria_bio_alloc(m->dev.bdev, nr, opf, GFP_NOIO);
	bio->bi_iter.bi_sector = a->data_offset + sector;
	for (i = 0; i < nr; i++)
		__bio_add_page(bio, pages[i], min_t(u32, len - i * PAGE_SIZE,
						    PAGE_SIZE), 0);
	submit_bio_wait(bio);
	st = bio->bi_status;
	bio_put(bio);
	if (!st)
		return 0;
	if (fail && m->role != STRIA_SB_ROLE_SPARE && stria_member_io_error(m, st))
		stria_array_member_failed(a);
	return -EIO;
}

/* Read or write one chunk of member @m at member sector @sector. */
static int stria_r10_member_io(struct stria_array *a, struct stria_member *m,
			       stria_opf_t opf, u64 sector, struct page **pages)
{
	u32 nr = a->r10->sync_nr_pages;

	return stria_r10_pages_io(a, m, opf, sector, pages, nr, nr * PAGE_SIZE,
				  true);
}

/* ---- read repair -------------------------------------------------------- */

/*
 * Repair @len sectors (within a page and a chunk) at array sector @pos on
 * member @bad: read them from another copy in sync, write them to @bad,
 * and read them back from it, as md's fix_read_error(). A failed write or
 * a copy that reads back different fails @bad; a copy that fails the
 * source read is left as it is (its own reads deal with it) and the next
 * one is tried.
 *
 * Return: true when @bad holds the data again.
 */
static bool stria_r10_repair_piece(struct stria_array *a, u32 bad, u64 pos,
				   u32 len)
{
	struct stria_raid10 *r = a->r10;
	struct stria_loc locs[STRIA_R10_MAX_COPIES];
	u32 k, n = stria_r10_copies(&a->geom.r10), bytes = len << SECTOR_SHIFT;
	struct stria_member *m = &a->members[bad];
	u64 at = U64_MAX;
	bool have = false;

	stria_r10_map(&a->geom.r10, pos, locs);
	for (k = 0; k < n; k++)
		if (locs[k].member == bad)
			at = locs[k].sector;
	for (k = 0; k < n && !have && at != U64_MAX; k++) {
		if (locs[k].member == bad ||
		    !stria_r10_readable(a, locs[k].member, locs[k].sector))
			continue;
		have = !stria_r10_pages_io(a, &a->members[locs[k].member],
					   REQ_OP_READ, locs[k].sector,
					   &r->repair_page[0], 1, bytes, false);
	}
	/* no other copy: the read, queued again, fails or reads @bad */
	if (!have || !stria_member_in_sync(m))
		return false;
	if (stria_r10_pages_io(a, m, REQ_OP_WRITE | REQ_SYNC, at,
			       &r->repair_page[0], 1, bytes, true) ||
	    stria_r10_pages_io(a, m, REQ_OP_READ, at, &r->repair_page[1], 1,
			       bytes, true))
		return false;
	if (!memcmp(page_address(r->repair_page[0]),
		    page_address(r->repair_page[1]), bytes))
		return true;
	pr_err_ratelimited("stria%d: member %u (%pg) reads back other data than was written to repair it\n",
			   a->index, bad, m->dev.bdev);
	if (stria_member_io_error(m, BLK_STS_IOERR))
		stria_array_member_failed(a);
	return false;
}

/*
 * Repair what @rq read from member @bad, a page at a time, with the
 * chunk's barrier slot held: no write lands there meanwhile, which the
 * repair would overwrite with older data.
 */
static void stria_r10_repair_rq(struct stria_array *a, struct request *rq,
				u32 bad)
{
	u64 pos = blk_rq_pos(rq), end = pos + blk_rq_sectors(rq), len;
	u32 shift = a->geom.chunk_shift;
	struct stria_r10_barrier *b;
	bool done = true;

	for (; pos < end; pos += len) {
		len = min3(end - pos, (u64)PAGE_SECTORS - (pos & (PAGE_SECTORS - 1)),
			   stria_geom_chunk_sectors_left(&a->geom, pos));
		b = stria_r10_hold(a->r10, pos >> shift);
		if (!stria_r10_repair_piece(a, bad, pos, len))
			done = false;
		stria_r10_release(a, b);
	}
	if (done)
		pr_info_ratelimited("stria%d: member %u (%pg): read error at array sector %llu repaired from another copy\n",
				    a->index, bad, a->members[bad].dev.bdev,
				    blk_rq_pos(rq));
	else
		pr_warn_ratelimited("stria%d: member %u (%pg): read error at array sector %llu not repaired (no other copy read, or the write-back failed)\n",
				    a->index, bad, a->members[bad].dev.bdev,
				    blk_rq_pos(rq));
}

static void stria_r10_repair_work(struct work_struct *work)
{
	struct stria_raid10 *r = container_of(work, struct stria_raid10,
					      repair_work);
	struct request *rq, *tmp;
	LIST_HEAD(todo);

	spin_lock_irq(&r->repair_lock);
	list_splice_init(&r->repair_list, &todo);
	spin_unlock_irq(&r->repair_lock);
	list_for_each_entry_safe(rq, tmp, &todo, queuelist) {
		list_del_init(&rq->queuelist);
		stria_r10_repair_rq(r->array, rq, stria_rq_repair_member(rq));
		stria_rq_repaired(rq);
	}
}

/*
 * stria_raid10_repair_read() - a copy failed a read of @rq and is kept
 *
 * Any context: the repair runs in the work item, which then queues the
 * read again.
 */
static void stria_raid10_repair_read(struct stria_array *a, struct request *rq)
{
	struct stria_raid10 *r = a->r10;
	unsigned long flags;

	spin_lock_irqsave(&r->repair_lock, flags);
	list_add_tail(&rq->queuelist, &r->repair_list);
	spin_unlock_irqrestore(&r->repair_lock, flags);
	queue_work(r->repair_wq, &r->repair_work);
}

/*
 * Check or repair one chunk: every copy in sync is read and compared, a
 * page at a time. Each copy that differs from the first counts its
 * sectors in @mismatches; a repair writes, page by page, the data of the
 * majority (or, without one, of the first copy: stria_mirror_vote()) over
 * the copies that differ from it.
 */
static int stria_r10_compare(struct stria_array *a, const struct stria_loc *locs,
			     u32 n, bool repair, u64 *mismatches)
{
	struct stria_raid10 *r = a->r10;
	bool usable[STRIA_R10_MAX_COPIES], same[STRIA_R10_MAX_COPIES *
						 STRIA_R10_MAX_COPIES];
	bool dirty[STRIA_R10_MAX_COPIES] = { }, maj;
	u32 k, j, p, nread = 0;
	int ret, first = -1, w;

	for (k = 0; k < n; k++) {
		struct stria_member *m = &a->members[locs[k].member];

		usable[k] = stria_member_in_sync(m);
		if (!usable[k])
			continue;
		ret = stria_r10_member_io(a, m, REQ_OP_READ, locs[k].sector,
					  r->sync_pages[k]);
		if (ret)
			return ret;
		if (first < 0)
			first = k;
		nread++;
	}
	if (nread < 2)
		return 0;
	for (p = 0; p < r->sync_nr_pages; p++) {
		for (k = 0; k < n; k++)
			for (j = k + 1; j < n; j++)
				same[k * n + j] = usable[k] && usable[j] &&
					!memcmp(page_address(r->sync_pages[k][p]),
						page_address(r->sync_pages[j][p]),
						PAGE_SIZE);
		for (k = first + 1; k < n; k++)
			if (usable[k] && !same[first * n + k])
				*mismatches += PAGE_SIZE >> SECTOR_SHIFT;
		w = stria_mirror_vote(same, usable, n, &maj);
		for (k = 0; k < n && repair; k++) {
			if (!usable[k] || (int)k == w ||
			    ((int)k < w ? same[k * n + w] : same[w * n + k]))
				continue;
			/* the winner's page is never itself overwritten */
			memcpy(page_address(r->sync_pages[k][p]),
			       page_address(r->sync_pages[w][p]), PAGE_SIZE);
			dirty[k] = true;
		}
	}
	for (k = 0; k < n; k++) {
		if (!dirty[k])
			continue;
		ret = stria_r10_member_io(a, &a->members[locs[k].member],
					  REQ_OP_WRITE, locs[k].sector,
					  r->sync_pages[k]);
		if (ret)
			return ret;
	}
	return 0;
}

/* The first copy in sync, or -1. */
static int stria_r10_source(struct stria_array *a, const struct stria_loc *locs,
			    u32 n)
{
	u32 k;

	for (k = 0; k < n; k++)
		if (stria_member_in_sync(&a->members[locs[k].member]))
			return k;
	return -1;
}

/*
 * Rebuild, replace or resync one array chunk from its first copy in sync:
 * to the copies being rebuilt, to the replacement of the member being
 * replaced, or to every other copy in sync.
 */
static int stria_r10_copy(struct stria_array *a, const struct stria_loc *locs,
			  u32 n, enum stria_sync_op op)
{
	struct stria_raid10 *r = a->r10;
	struct page **buf = r->sync_pages[0];
	int src = stria_r10_source(a, locs, n), ret;
	bool read = false;
	u32 k;

	if (src < 0)
		return -ENODEV;
	for (k = 0; k < n; k++) {
		struct stria_member *m = &a->members[locs[k].member];

		if (op == STRIA_SYNC_OP_REBUILD ?
		    READ_ONCE(m->state) != STRIA_STATE_REBUILDING :
		    op == STRIA_SYNC_OP_REPLACE ? locs[k].member != a->repl_role :
		    (int)k == src || !stria_member_in_sync(m))
			continue;
		if (!read) {
			ret = stria_r10_member_io(a, &a->members[locs[src].member],
						  REQ_OP_READ, locs[src].sector,
						  buf);
			if (ret)
				return ret;
			read = true;
		}
		ret = stria_r10_member_io(a, op == STRIA_SYNC_OP_REPLACE ?
					  &a->repl : m, REQ_OP_WRITE,
					  locs[k].sector, buf);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * stria_raid10_sync_stripe() - background work on one row of member chunks
 * @a: a RAID1 or RAID10 array
 * @row: the member chunk row
 * @op: what to do, see enum stria_sync_op
 * @mismatches: raised by the sectors of copies that differ (CHECK, REPAIR)
 *
 * Each array chunk is worked on at its first copy, whose row is the lowest
 * of its copies: once rows below R are done, every copy in them is. The
 * chunk's barrier slot keeps writes out meanwhile.
 *
 * Return: 0, -EIO when a member failed a read or write, -ENODEV when no
 * copy in sync is left to work from.
 */
static int stria_raid10_sync_stripe(struct stria_array *a, u64 row,
				    enum stria_sync_op op, u64 *mismatches)
{
	const struct stria_r10_geom *g = &a->geom.r10;
	struct stria_loc locs[STRIA_R10_MAX_COPIES];
	u32 d, n = stria_r10_copies(g), shift = g->chunk_shift;
	struct stria_r10_barrier *b;
	u64 scratch = 0;
	int ret = 0;

	if (row >= a->geom.member_sectors >> shift)
		return -ENODEV;
	if (op == STRIA_SYNC_OP_REPLACE &&
	    (a->repl_role == STRIA_NO_MEMBER ||
	     !stria_member_in_sync(&a->members[a->repl_role]) ||
	     READ_ONCE(a->repl.state) != STRIA_STATE_REPLACEMENT))
		return -ENODEV;
	if (!mismatches)
		mismatches = &scratch;
	for (d = 0; d < g->nr_members && !ret; d++) {
		struct stria_loc here = { .member = d, .sector = row << shift };
		u64 sector;

		if (stria_r10_copy_at(g, &here, &sector, locs) != 0)
			continue;
		b = stria_r10_hold(a->r10, sector >> shift);
		if (op == STRIA_SYNC_OP_CHECK || op == STRIA_SYNC_OP_REPAIR)
			ret = stria_r10_compare(a, locs, n,
						op == STRIA_SYNC_OP_REPAIR,
						mismatches);
		else
			ret = stria_r10_copy(a, locs, n, op);
		stria_r10_release(a, b);
	}
	return ret;
}

static void stria_raid10_limits(struct stria_array *a,
				struct queue_limits *lim)
{
	u32 chunk = 1U << a->geom.chunk_shift;

	/*
	 * A replacement gets the writes, discards and write-zeroes of the
	 * member it copies: offer only what it takes too (a replace updates
	 * the limits as it starts and ends).
	 */
	if (a->repl_role != STRIA_NO_MEMBER && a->repl.dev.bdev)
		blk_stack_limits(lim, &bdev_get_queue(a->repl.dev.bdev)->limits,
				 a->data_offset);
	/* a read or write stays within a chunk: one place per copy */
	lim->chunk_sectors = chunk;
	lim->io_opt = chunk << SECTOR_SHIFT;
	/*
	 * Discard and write-zeroes go to every copy, cut at chunks here; at
	 * most a chunk long, so within two chunks (the block layer aligns
	 * neither to chunks), each a slot of the barrier.
	 */
	if (lim->max_write_zeroes_sectors)
		lim->max_write_zeroes_sectors = chunk;
	if (lim->max_hw_discard_sectors) {
		lim->max_hw_discard_sectors = chunk;
		lim->max_discard_sectors = chunk;
	}
}

static void stria_r10_free(struct stria_raid10 *r)
{
	u32 k, i;

	for (k = 0; k < STRIA_R10_MAX_COPIES; k++) {
		for (i = 0; r->sync_pages[k] && i < r->sync_nr_pages; i++)
			if (r->sync_pages[k][i])
				__free_page(r->sync_pages[k][i]);
		kfree(r->sync_pages[k]);
	}
	/* no read is in flight, so none waits for a repair */
	if (r->repair_wq)
		destroy_workqueue(r->repair_wq);
	for (k = 0; k < ARRAY_SIZE(r->repair_page); k++)
		if (r->repair_page[k])
			__free_page(r->repair_page[k]);
	free_percpu(r->cpu);
	kfree(r);
}

static int stria_raid10_init(struct stria_array *a)
{
	struct stria_raid10 *r;
	int cpu;
	u32 i, k;

	r = kzalloc_node(sizeof(*r), GFP_KERNEL, a->node);
	if (!r)
		return -ENOMEM;
	r->cpu = alloc_percpu(struct stria_r10_cpu);
	if (!r->cpu) {
		kfree(r);
		return -ENOMEM;
	}
	for_each_possible_cpu(cpu) {
		struct stria_r10_cpu *pc = per_cpu_ptr(r->cpu, cpu);

		for (i = 0; i < STRIA_GEOM_MAX_MEMBERS; i++)
			pc->last_end[i] = U64_MAX;
	}
	r->array = a;
	spin_lock_init(&r->repair_lock);
	INIT_LIST_HEAD(&r->repair_list);
	INIT_WORK(&r->repair_work, stria_r10_repair_work);
	r->repair_wq = alloc_workqueue("stria%d_r10", WQ_MEM_RECLAIM, 1,
				       a->index);
	if (!r->repair_wq)
		goto out_free;
	for (k = 0; k < ARRAY_SIZE(r->repair_page); k++) {
		r->repair_page[k] = alloc_pages_node(a->node, GFP_KERNEL, 0);
		if (!r->repair_page[k])
			goto out_free;
	}
	r->sync_nr_pages = (1U << a->geom.chunk_shift) >> (PAGE_SHIFT - SECTOR_SHIFT);
	for (k = 0; k < STRIA_R10_MAX_COPIES; k++) {
		r->sync_pages[k] = kcalloc(r->sync_nr_pages, sizeof(struct page *),
					   GFP_KERNEL);
		if (!r->sync_pages[k])
			goto out_free;
		for (i = 0; i < r->sync_nr_pages; i++) {
			r->sync_pages[k][i] = alloc_pages_node(a->node, GFP_KERNEL, 0);
			if (!r->sync_pages[k][i])
				goto out_free;
		}
	}
	a->r10 = r;
	return 0;

out_free:
	stria_r10_free(r);
	return -ENOMEM;
}

static void stria_raid10_exit(struct stria_array *a)
{
	if (!a->r10)
		return;
	stria_r10_free(a->r10);
	a->r10 = NULL;
}

const struct stria_level_ops stria_raid10_ops = {
	.level = 10,
	.name = "raid10",
	.queue_rq = stria_raid10_queue_rq,
	.init = stria_raid10_init,
	.exit = stria_raid10_exit,
	.limits = stria_raid10_limits,
	.sync_stripe = stria_raid10_sync_stripe,
	.repair_read = stria_raid10_repair_read,
};
