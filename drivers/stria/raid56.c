// SPDX-License-Identifier: GPL-2.0
/*
 * stria RAID5 and RAID6: reads, parity writes, degraded mode. This file
 * takes the requests (queue_rq: reads, writes, discard and write-zeroes cut
 * into stripe operations), sets the level up and holds its counters and
 * ops tables; what follows says how the files of RAID5/6 share the rest.
 *
 * The queue's chunk_sectors limit is one stripe's data (stria_limits() via
 * stria_raid56_limits()), so a request never crosses a stripe.
 *
 * Reads go straight to the members that hold the data, as on RAID0: one
 * clone per chunk the request touches, no stripe cache. A chunk on a failed
 * member is rebuilt from the others by a stripe operation (below). A read
 * that fails on a member marks it failed and the request is queued again,
 * so it is then rebuilt.
 *
 * Writes are cut into stripe operations ("sops"): one stripe, one slice of
 * at most STRIA_R56_SLICE_SECTORS columns. Parity column x depends only on
 * column x of the data chunks, so slices are independent, and a sop needs a
 * bounded amount of memory whatever the chunk size. A sop:
 *
 * 1. takes its (stripe, slice) lock from the array's hashed lock table. When
 *    another sop holds it, it queues itself on that sop and is resumed by
 *    the completion that releases the lock; the table's bucket spinlock is
 *    held only to look the key up;
 * 2. plans each column segment with stria_parity_plan(): full-stripe (no
 *    reads), read-modify-write or reconstruct-write, whichever reads less,
 *    or a degraded write when a member has failed;
 * 3. takes its pages from a per-CPU cache, the page allocator, or, when
 *    both fail, the array's page mempool, which holds one sop's worth and
 *    which one sop at a time may wait on: a write never fails for memory.
 *    queue_rq() never waits for memory (stria_sop_alloc_pages()): it
 *    allocates a request's sops without waiting or hands the request back
 *    to blk-mq, and a sop whose pages are not there at once continues in
 *    its CPU's work item, which may wait;
 * 4. reads what the plan needs and, when the reads are back, continues in a
 *    work item on the submitting CPU's bound workqueue (parity must not run
 *    in a member's interrupt handler); with nothing to read (full-stripe
 *    writes) it goes on at once, in queue_rq(), on the submitting CPU;
 * 5. copies the new data in, computes P (xor_blocks) and Q (raid6_pq),
 *    writes data and parity, with FUA when the request has it;
 * 6. when the writes are back, releases its pages and its lock, resumes the
 *    next sop waiting for the lock, and drops its reference on the request.
 *
 * Steps 1 and 6, a sop's allocation, its stripe lock, the merge and its
 * end, are in raid56_lock.c; steps 2 to 5, what a sop does once it holds
 * its lock (its member bios, the work that continues it, the compute and
 * writes, the member reads that failed), in raid56_sop.c; the buffers, the
 * copies, the parity computation and the plan of step 2 (which members a
 * sop reads) in raid56_buf.c; the background sync of a stripe (rebuild,
 * resync, check, repair, the copy of a replace) in raid56_sync.c. The state
 * they share, and the functions they call across files, are in raid56.h.
 *
 * Degraded: a failed member gets no I/O. Its data is rebuilt from the other
 * members (P by XOR; raid6_datap_recov()/raid6_2data_recov() when P or a
 * second data chunk is gone too). A degraded write reads what it needs to
 * rebuild the old data of failed members it does not overwrite, computes
 * the parity of the whole new stripe, and writes the surviving members. With
 * more members failed than the level tolerates, I/O that needs a failed
 * member fails with EIO.
 *
 * Layer: the levels, RAID5/6 (Documentation/stria/layers.rst). Reached
 * through struct stria_level_ops (stria_raid5_ops, stria_raid6_ops) by the
 * array's lifecycle, blk-mq (io.c) and sync; calls the services below
 * (member I/O, the bitmap) and never the lifecycle.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blk-mq.h>
#include <linux/local_lock.h>
#include <linux/log2.h>
#include <linux/mempool.h>
#include <linux/mm.h>
#include <linux/raid/pq.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "raid56.h"

static const char *const stria_r56_method_names[STRIA_PARITY_METHODS] = {
	"full_stripe", "rmw", "rcw", "degraded_write", "degraded_read", "sync",
};

/* ---- requests --------------------------------------------------------- */

/*
 * Columns of data index @i that [@off, @off + @len) (offsets within the
 * stripe) covers within [@lo, @hi); empty when none.
 */
static struct stria_range stria_r56_cols(u32 chunk_shift, u32 i, u32 off,
					 u32 len, u32 lo, u32 hi)
{
	u32 base = i << chunk_shift;
	struct stria_range rg = { 0, 0 };
	u32 s = max(off, base + lo), e = min(off + len, base + hi);

	if (s < e) {
		rg.start = s - base;
		rg.end = e - base;
	}
	return rg;
}

/* The request's stripe and offset in it, or false if it crosses stripes. */
static bool stria_r56_where(struct stria_array *a, struct request *rq,
			    u64 *stripe, u32 *off)
{
	u32 len = blk_rq_sectors(rq);

	*stripe = div_u64_rem(blk_rq_pos(rq), stria_geom_stripe_sectors(&a->geom),
			      off);
	/* chunk_sectors guarantees this; anything else is a block layer bug */
	return !WARN_ON_ONCE(*off + len > stria_geom_stripe_sectors(&a->geom));
}

/* Did one of @st's latest write requests end at @pos? Which, in @at. */
static bool stria_r56_ends_at(struct stria_r56_stream *st, u64 pos, u32 *at)
{
	u32 i;

	for (i = 0; i < STRIA_R56_STREAMS; i++)
		if (READ_ONCE(st->ends[i]) == pos) {
			*at = i;
			return true;
		}
	return false;
}

/*
 * Does a write at @pos continue one of this CPU's latest writes? Remember
 * where this one ends. @wide: the write could park (it starts a stripe
 * without filling it): when this CPU did not write what it continues, the
 * others are asked too, as a writer moves between CPUs (reads of their
 * entries only). Hints only: a race costs a merge, not data.
 */
static bool stria_r56_sequential(struct stria_raid56 *r, u64 pos, u32 len,
				 bool wide)
{
	struct stria_r56_stream *st = raw_cpu_ptr(r->streams);
	bool here, seq;
	u32 i, other;
	int cpu;

	here = stria_r56_ends_at(st, pos, &i);
	seq = here;
	if (!seq && wide)
		for_each_possible_cpu(cpu)
			if (stria_r56_ends_at(per_cpu_ptr(r->streams, cpu),
					      pos, &other)) {
				seq = true;
				break;
			}
	if (!here) {
		i = READ_ONCE(st->next);
		WRITE_ONCE(st->next, (i + 1) % STRIA_R56_STREAMS);
	}
	WRITE_ONCE(st->ends[i], pos + len);
	return seq;
}

/*
 * queue_rq could not allocate every sop of @rq (on @sops, by wait_entry)
 * without waiting: free them, nothing was started, and blk-mq retries the
 * request once others ended or a little later.
 */
static blk_status_t stria_r56_nomem(struct stria_raid56 *r,
				    struct list_head *sops)
{
	struct stria_sop *sop, *next;

	list_for_each_entry_safe(sop, next, sops, wait_entry)
		mempool_free(sop, r->sop_pool);
	this_cpu_inc(r->stats->mem_retries);
	return BLK_STS_RESOURCE;
}

/*
 * The write sops of @rq for stripe offsets [@off, @off + @len) of @stripe,
 * one per slice it writes, added to @sops (by wait_entry). Without waiting
 * for memory: false when one could not be had (those added stay on @sops).
 */
static bool stria_r56_write_sops(struct stria_raid56 *r, struct request *rq,
				 u64 stripe, u32 off, u32 len,
				 struct list_head *sops)
{
	u32 k, i, shift = r->a->geom.chunk_shift;
	struct stria_sop *sop;

	for (k = 0; k < r->nr_slices; k++) {
		u32 lo = k * r->slice, hi = lo + r->slice;

		sop = NULL;
		for (i = 0; i < r->nd; i++) {
			struct stria_range rg = stria_r56_cols(shift, i, off,
							       len, lo, hi);

			if (rg.start == rg.end)
				continue;
			if (!sop) {
				sop = stria_sop_alloc(r, rq, stripe, k, true,
						      GFP_NOWAIT);
				if (!sop)
					return false;
				list_add_tail(&sop->wait_entry, sops);
			}
			sop->ranges[i] = rg;
			sop->mine[i] = rg;
		}
	}
	return true;
}

static blk_status_t stria_r56_write(struct stria_array *a, struct request *rq)
{
	struct stria_raid56 *r = a->r56;
	u32 off, len = blk_rq_sectors(rq), shift = a->geom.chunk_shift;
	struct stria_sop *sop, *next;
	LIST_HEAD(filled);
	LIST_HEAD(sops);
	u64 stripe;
	bool seq;

	if (!stria_r56_where(a, rq, &stripe, &off))
		return BLK_STS_IOERR;
	if (!stria_rq_bitmap_begin(a, rq, stripe << shift, stripe << shift))
		return BLK_STS_RESOURCE;
	/* every sop first: one that cannot be had leaves nothing started */
	if (!stria_r56_write_sops(r, rq, stripe, off, len, &sops))
		return stria_r56_nomem(r, &sops);
	stria_rq_begin(rq);
	stria_count_io(a, rq);
	seq = stria_r56_sequential(r, blk_rq_pos(rq), len,
				   !off && len < stria_geom_stripe_sectors(&a->geom));
	list_for_each_entry_safe(sop, next, &sops, wait_entry) {
		list_del_init(&sop->wait_entry);
		stria_rq_get(rq);
		sop->seq = seq;
		stria_sop_busy(sop);
		stria_sop_start(sop, &filled, false);
	}
	/* the parked sops this request filled, once all its slices merged */
	list_for_each_entry_safe(sop, next, &filled, park_entry) {
		list_del_init(&sop->park_entry);
		stria_sop_run_parked(sop, false);
	}
	stria_rq_put(rq, BLK_STS_OK);
	return BLK_STS_OK;
}

/*
 * Start the sops of @rq (on @sops, by wait_entry; none may merge or park),
 * each holding a reference on it, and drop the caller's: the request was
 * begun (stria_rq_begin()). Returns what queue_rq returns.
 */
static blk_status_t stria_r56_start_sops(struct request *rq,
					 struct list_head *sops)
{
	struct stria_sop *sop, *next;

	list_for_each_entry_safe(sop, next, sops, wait_entry) {
		list_del_init(&sop->wait_entry);
		stria_rq_get(rq);
		stria_sop_start(sop, NULL, false);
	}
	stria_rq_put(rq, BLK_STS_OK);
	return BLK_STS_OK;
}

/*
 * Discard and write-zeroes. The block layer does not keep them within a
 * stripe (chunk_sectors does not split them), so a request is cut here:
 * one sop per slice of each stripe it touches, each under its stripe lock
 * like any write. A slice covered in every data chunk is zeroed on every
 * member (stria_sop_zero_write()); one covered in part is written with
 * zeroes through the parity path by a write-zeroes request, and left
 * alone by a discard (advisory: its data stays, and so does its parity).
 * The request holds the bitmap regions of the stripes it touches.
 */
static blk_status_t stria_r56_zero(struct stria_array *a, struct request *rq)
{
	struct stria_raid56 *r = a->r56;
	u32 ss = stria_geom_stripe_sectors(&a->geom), shift = a->geom.chunk_shift;
	bool discard = req_op(rq) != REQ_OP_WRITE_ZEROES;
	u64 pos = blk_rq_pos(rq), end = pos + blk_rq_sectors(rq);
	u64 first = div_u64(pos, ss), last = div_u64(end - 1, ss), stripe;
	struct stria_sop *sop, *next;
	LIST_HEAD(sops);

	/* the queue limits keep it within this; anything else is a bug */
	if (WARN_ON_ONCE(pos >= end ||
			 last - first > stria_r56_zero_stripes(r)))
		return BLK_STS_IOERR;
	if (!stria_rq_bitmap_begin(a, rq, first << shift,
				   ((last + 1) << shift) - 1))
		return BLK_STS_RESOURCE;
	/* every sop first: one that cannot be had leaves nothing started */
	for (stripe = first; stripe <= last; stripe++) {
		u64 base = stripe * ss;
		u32 off = max(pos, base) - base;

		if (!stria_r56_write_sops(r, rq, stripe, off,
					  min(end, base + ss) - base - off,
					  &sops))
			return stria_r56_nomem(r, &sops);
	}
	list_for_each_entry_safe(sop, next, &sops, wait_entry) {
		sop->zeroes = true;
		sop->zero_full = stria_sop_full(sop);
		sop->nounmap = !discard && (rq->cmd_flags & REQ_NOUNMAP);
		if (discard && !sop->zero_full) {
			list_del(&sop->wait_entry);
			mempool_free(sop, r->sop_pool);
		}
	}
	stria_rq_begin(rq);
	this_cpu_inc(a->stats->discards);
	return stria_r56_start_sops(rq, &sops);
}

/* Send the part of @rq at stripe offsets [@s, @e) to member @m. */
static void stria_r56_read_direct(struct stria_array *a, struct request *rq,
				  struct stria_member *m, u32 s, u32 e,
				  u64 msector)
{
	u64 pos = blk_rq_pos(rq), want = pos + s, end = pos + e;
	u64 bpos = pos;
	struct bio *bio;

	/* @s and @e count from the request's start here */
	__rq_for_each_bio(bio, rq) {
		u64 bend = bpos + bio_sectors(bio);
		u64 bs = max(bpos, want), be = min(bend, end);

		if (bs < be)
			stria_clone_submit_part(a, rq, m, bio, bs - bpos,
						be - bs, msector + (bs - want));
		bpos = bend;
	}
}

static blk_status_t stria_r56_read(struct stria_array *a, struct request *rq)
{
	struct stria_raid56 *r = a->r56;
	u32 off, len = blk_rq_sectors(rq), shift = a->geom.chunk_shift;
	u32 chunk = 1U << shift, i, first, last;
	u32 skip = stria_rq_repair_member(rq);
	struct stria_sop *sop;
	u64 stripe, rebuild = 0;
	LIST_HEAD(sops);

	if (!stria_r56_where(a, rq, &stripe, &off))
		return BLK_STS_IOERR;
	first = off >> shift;
	last = (off + len - 1) >> shift;

	/* the common case: one chunk on a working member, as on RAID0 */
	if (first == last) {
		u32 mi = stria_raid56_data_member(&a->geom, stripe, first);
		struct stria_member *m = &a->members[mi];

		if (stria_member_in_sync(m) && mi != skip)
			return stria_rq_to_member(a, rq, m, a->data_offset +
						  (stripe << shift) +
						  (off & (chunk - 1)));
	}

	/*
	 * The chunks to rebuild, a slice at a time, and their sops first: one
	 * that cannot be had leaves nothing started (stria_r56_nomem())
	 */
	for (i = first; i <= last; i++) {
		u32 mi = stria_raid56_data_member(&a->geom, stripe, i);
		u32 s = max(off, i << shift), e = min(off + len, (i + 1) << shift);
		u32 k;

		if (stria_member_in_sync(&a->members[mi]) && mi != skip)
			continue;
		rebuild |= 1ULL << i;
		for (k = (s & (chunk - 1)) / r->slice;
		     k * r->slice < ((e - 1) & (chunk - 1)) + 1; k++) {
			struct stria_range rg = stria_r56_cols(shift, i, off,
							       len, k * r->slice,
							       (k + 1) *
							       r->slice);

			if (rg.start == rg.end)
				continue;
			sop = stria_sop_alloc(r, rq, stripe, k, false,
					      GFP_NOWAIT);
			if (!sop)
				return stria_r56_nomem(r, &sops);
			list_add_tail(&sop->wait_entry, &sops);
			sop->ranges[i] = rg;
			sop->skip = skip;
			sop->repair = mi == skip;
		}
	}
	stria_rq_begin(rq);
	stria_count_io(a, rq);
	for (i = first; i <= last; i++) {
		u32 mi = stria_raid56_data_member(&a->geom, stripe, i);
		u32 s = max(off, i << shift), e = min(off + len, (i + 1) << shift);

		if (!(rebuild & (1ULL << i)))
			stria_r56_read_direct(a, rq, &a->members[mi], s - off,
					      e - off, a->data_offset +
					      (stripe << shift) +
					      (s & (chunk - 1)));
	}
	return stria_r56_start_sops(rq, &sops);
}

/*
 * For stria_array_freeze()'s report: each CPU's writes in flight and
 * parked ones (which wait for their writer or merge_wait_us), and the
 * requests sent back to blk-mq for want of memory so far.
 */
static void stria_raid56_log_waits(struct stria_array *a)
{
	struct stria_raid56 *r = a->r56;
	u64 retries = 0, deferred = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct stria_r56_stream *st = per_cpu_ptr(r->streams, cpu);
		struct stria_sop *sop;
		unsigned long flags;
		u32 parked = 0;

		retries += READ_ONCE(per_cpu_ptr(r->stats, cpu)->mem_retries);
		deferred += READ_ONCE(per_cpu_ptr(r->stats, cpu)->mem_deferred);
		spin_lock_irqsave(&st->lock, flags);
		list_for_each_entry(sop, &st->parked, park_entry)
			parked++;
		spin_unlock_irqrestore(&st->lock, flags);
		if (parked || atomic_read(&st->busy))
			pr_warn("stria%d: CPU %d: %d writes in flight, %u parked\n",
				a->index, cpu, atomic_read(&st->busy), parked);
	}
	pr_warn("stria%d: requests sent back for memory %llu, stripe operations waiting for pages %llu (since the start)\n",
		a->index, retries, deferred);
}

static blk_status_t stria_raid56_queue_rq(struct stria_array *a,
					  struct request *rq)
{
	switch (req_op(rq)) {
	case REQ_OP_READ:
		return stria_r56_read(a, rq);
	case REQ_OP_WRITE:
		return stria_r56_write(a, rq);
	case REQ_OP_DISCARD:
	case REQ_OP_WRITE_ZEROES:
		return stria_r56_zero(a, rq);
	default:
		/* secure erase: not offered */
		return BLK_STS_NOTSUPP;
	}
}

/* ---- setup ------------------------------------------------------------ */

static void stria_raid56_limits(struct stria_array *a,
				struct queue_limits *lim)
{
	u32 stripe = stria_geom_stripe_sectors(&a->geom);
	u32 io = min(stripe, STRIA_R56_MAX_IO_SECTORS);
	u32 zero = stria_r56_zero_stripes(a->r56) * stripe;

	/*
	 * A request stays within one stripe and may fill it: members see
	 * only bios stria builds (or clones they split to their own limits).
	 */
	lim->chunk_sectors = stripe;
	lim->max_hw_sectors = io;
	lim->max_sectors = io;
	lim->max_segments = max_t(unsigned int, lim->max_segments,
				  min_t(u32, io / STRIA_R56_PAGE_SECTORS + 1,
					USHRT_MAX));
	lim->io_opt = stripe << SECTOR_SHIFT;
	/*
	 * Discard and write-zeroes write zeroes to every member of the
	 * stripes they cover (stria_r56_zero()): offered only when every
	 * member has write-zeroes (the stacked limit is then not 0), or a
	 * discard would be a slow write of zeroes. Without them the block
	 * layer writes zeroes itself for write-zeroes. A discard does
	 * something only for slices it covers in every data chunk (a whole
	 * stripe with chunks up to 64K): its granularity is a stripe's
	 * data, which always has them. Not a power of two with 3 or 5 data
	 * members; the block layer's split aligns to any granularity.
	 */
	if (lim->max_write_zeroes_sectors) {
		lim->max_write_zeroes_sectors = zero;
		lim->max_hw_discard_sectors = zero;
		lim->max_discard_sectors = zero;
		lim->discard_granularity = stripe << SECTOR_SHIFT;
	} else {
		lim->max_hw_discard_sectors = 0;
		lim->max_discard_sectors = 0;
		lim->discard_granularity = 0;
	}
	lim->discard_alignment = 0;
}

static void stria_raid56_exit(struct stria_array *a)
{
	struct stria_raid56 *r = a->r56;
	int cpu;

	if (!r)
		return;
	if (r->wq)
		destroy_workqueue(r->wq);
	if (r->pcache) {
		for_each_possible_cpu(cpu) {
			struct stria_r56_pcache *pc = per_cpu_ptr(r->pcache, cpu);

			while (pc->nr)
				__free_page(pc->pages[--pc->nr]);
		}
		free_percpu(r->pcache);
	}
	bioset_exit(&r->bio_reserve);	/* safe when never set up */
	mempool_destroy(r->page_pool);
	mempool_destroy(r->sop_pool);
	kmem_cache_destroy(r->sop_cache);
	free_percpu(r->streams);
	free_percpu(r->stats);
	kvfree(r->buckets);
	kfree(r);
	a->r56 = NULL;
}

static int stria_raid56_init(struct stria_array *a)
{
	u32 n = a->nr_members, chunk = 1U << a->geom.chunk_shift, i;
	struct stria_raid56 *r;
	char name[32];
	int cpu;

	r = kzalloc_node(sizeof(*r), GFP_KERNEL, a->node);
	if (!r)
		return -ENOMEM;
	a->r56 = r;
	r->a = a;
	r->np = stria_geom_nr_parity(&a->geom);
	r->nd = stria_geom_nr_data(&a->geom);
	r->slice = min(chunk, STRIA_R56_SLICE_SECTORS);
	r->slice_pages = DIV_ROUND_UP(r->slice, STRIA_R56_PAGE_SECTORS);
	r->nr_slices = chunk / r->slice;
	r->rmw_ok = r->np == 1 || stria_raid6_can_xor_syndrome();
	mutex_init(&r->reserve_lock);
	mutex_init(&r->bio_lock);

	r->bucket_bits = ilog2(roundup_pow_of_two(num_possible_cpus() *
						  STRIA_R56_BUCKETS_PER_CPU));
	r->buckets = kvzalloc_node(array_size(1U << r->bucket_bits,
					      sizeof(*r->buckets)),
				   GFP_KERNEL, a->node);
	if (!r->buckets)
		goto nomem;
	for (i = 0; i < 1U << r->bucket_bits; i++) {
		spin_lock_init(&r->buckets[i].lock);
		INIT_HLIST_HEAD(&r->buckets[i].busy);
	}

	/* the struct, ranges, mine, dmember, slot, used: see stria_sop_alloc() */
	r->nr_slots = 2 * n * r->slice_pages;
	r->sop_clear = ALIGN(sizeof(struct stria_sop) +
			     r->nd * (2 * sizeof(struct stria_range) +
				      2 * sizeof(u32)), sizeof(long)) +
		       BITS_TO_LONGS(r->nr_slots) * sizeof(long);
	r->sop_size = r->sop_clear + r->nr_slots * sizeof(struct page *);
	/* a slab of its own, as md's stripe heads: slabinfo, failslab */
	snprintf(name, sizeof(name), "stria%d_sop", a->index);
	r->sop_cache = kmem_cache_create(name, r->sop_size, 0, 0, NULL);
	if (!r->sop_cache)
		goto nomem;
	/*
	 * What one request needs: a degraded read rebuilds up to np chunks,
	 * a discard or write-zeroes touches up to one stripe more than its
	 * whole ones
	 */
	r->sop_pool = mempool_create_node(max(r->np,
					      stria_r56_zero_stripes(r) + 1) *
					  r->nr_slices,
					  mempool_alloc_slab, mempool_free_slab,
					  r->sop_cache, GFP_KERNEL, a->node);
	r->page_pool = mempool_create_node(2 * n * r->slice_pages,
					   mempool_alloc_pages,
					   mempool_free_pages, (void *)0,
					   GFP_KERNEL, a->node);
	/*
	 * One set of member bios (stria_sop_issue()), the clones' front_pad
	 * as in stria_io_init(). No rescuer: only work items and the sync
	 * thread, outside any submit_bio(), draw on it.
	 */
	r->max_bios = STRIA_PARITY_ROW_SEGS * (n + 1);
	if (bioset_init(&r->bio_reserve, r->max_bios,
			offsetof(struct stria_clone, bio), BIOSET_NEED_BVECS))
		goto nomem;
	r->pcache = alloc_percpu(struct stria_r56_pcache);
	r->streams = alloc_percpu(struct stria_r56_stream);
	r->stats = alloc_percpu(struct stria_r56_stats);
	if (!r->sop_pool || !r->page_pool || !r->pcache || !r->streams ||
	    !r->stats)
		goto nomem;
	for_each_possible_cpu(cpu) {
		struct stria_r56_stream *st = per_cpu_ptr(r->streams, cpu);

		local_lock_init(&per_cpu_ptr(r->pcache, cpu)->lock);
		spin_lock_init(&st->lock);
		INIT_LIST_HEAD(&st->parked);
		/* no write ends anywhere yet: one at sector 0 continues nothing */
		memset(st->ends, 0xff, sizeof(st->ends));
	}
	r->wq = alloc_workqueue("stria%d_r56",
				WQ_HIGHPRI | WQ_MEM_RECLAIM | STRIA_WQ_PERCPU, 0,
				a->index);
	if (!r->wq)
		goto nomem;
	return 0;

nomem:
	stria_raid56_exit(a);
	return -ENOMEM;
}

/**
 * stria_raid56_stats_show() - the RAID5/6 counters for sysfs
 * @a: a RAID5 or RAID6 array
 * @buf: sysfs page
 *
 * Return: bytes written.
 */
ssize_t stria_raid56_stats_show(struct stria_array *a, char *buf)
{
	struct stria_r56_stats sum = {};
	ssize_t len = 0;
	int cpu;
	u32 k;

	for_each_possible_cpu(cpu) {
		const struct stria_r56_stats *s = per_cpu_ptr(a->r56->stats,
							      cpu);

		for (k = 0; k < STRIA_PARITY_METHODS; k++)
			sum.ops[k] += s->ops[k];
		sum.member_reads += s->member_reads;
		sum.lock_waits += s->lock_waits;
		sum.read_retries += s->read_retries;
		sum.merged += s->merged;
		sum.merge_timeouts += s->merge_timeouts;
		sum.merge_idle += s->merge_idle;
		sum.read_repairs += s->read_repairs;
		sum.mem_retries += s->mem_retries;
		sum.mem_deferred += s->mem_deferred;
		sum.zeroed += s->zeroed;
		sum.zero_pages += s->zero_pages;
		sum.spread += s->spread;
		sum.bio_reserve += s->bio_reserve;
		sum.bio_deferred += s->bio_deferred;
	}
	for (k = 0; k < STRIA_PARITY_METHODS; k++)
		len += sysfs_emit_at(buf, len, "%s %llu\n",
				     stria_r56_method_names[k], sum.ops[k]);
	len += sysfs_emit_at(buf, len, "member_reads %llu\n",
			     sum.member_reads);
	len += sysfs_emit_at(buf, len, "lock_waits %llu\n", sum.lock_waits);
	len += sysfs_emit_at(buf, len, "read_retries %llu\n",
			     sum.read_retries);
	len += sysfs_emit_at(buf, len, "merged %llu\n", sum.merged);
	len += sysfs_emit_at(buf, len, "merge_timeouts %llu\n",
			     sum.merge_timeouts);
	len += sysfs_emit_at(buf, len, "merge_idle %llu\n", sum.merge_idle);
	len += sysfs_emit_at(buf, len, "read_repairs %llu\n",
			     sum.read_repairs);
	len += sysfs_emit_at(buf, len, "mem_retries %llu\n", sum.mem_retries);
	len += sysfs_emit_at(buf, len, "mem_deferred %llu\n",
			     sum.mem_deferred);
	len += sysfs_emit_at(buf, len, "zeroed %llu\n", sum.zeroed);
	len += sysfs_emit_at(buf, len, "zero_pages %llu\n", sum.zero_pages);
	len += sysfs_emit_at(buf, len, "spread %llu\n", sum.spread);
	len += sysfs_emit_at(buf, len, "bio_reserve %llu\n", sum.bio_reserve);
	len += sysfs_emit_at(buf, len, "bio_deferred %llu\n",
			     sum.bio_deferred);
	return len;
}

const struct stria_level_ops stria_raid5_ops = {
	.level		= 5,
	.name		= "raid5",
	.queue_rq	= stria_raid56_queue_rq,
	.init		= stria_raid56_init,
	.exit		= stria_raid56_exit,
	.limits		= stria_raid56_limits,
	.sync_stripe	= stria_raid56_sync_stripe,
	.log_waits	= stria_raid56_log_waits,
};

const struct stria_level_ops stria_raid6_ops = {
	.level		= 6,
	.name		= "raid6",
	.queue_rq	= stria_raid56_queue_rq,
	.init		= stria_raid56_init,
	.exit		= stria_raid56_exit,
	.limits		= stria_raid56_limits,
	.sync_stripe	= stria_raid56_sync_stripe,
	.log_waits	= stria_raid56_log_waits,
};
