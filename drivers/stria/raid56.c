// SPDX-License-Identifier: GPL-2.0
/*
 * stria RAID5 and RAID6: reads, parity writes, degraded mode.
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
 *    which one sop at a time may wait on: a write never fails for memory;
 * 4. reads what the plan needs and, when the reads are back, continues in a
 *    work item on the submitting CPU's bound workqueue (parity must not run
 *    in a member's interrupt handler); with nothing to read (full-stripe
 *    writes) it goes on at once, in queue_rq(), on the submitting CPU;
 * 5. copies the new data in, computes P (xor_blocks) and Q (raid6_pq),
 *    writes data and parity, with FUA when the request has it;
 * 6. when the writes are back, releases its pages and its lock, resumes the
 *    next sop waiting for the lock, and drops its reference on the request.
 *
 * Degraded: a failed member gets no I/O. Its data is rebuilt from the other
 * members (P by XOR; raid6_datap_recov()/raid6_2data_recov() when P or a
 * second data chunk is gone too). A degraded write reads what it needs to
 * rebuild the old data of failed members it does not overwrite, computes
 * the parity of the whole new stripe, and writes the surviving members. With
 * more members failed than the level tolerates, I/O that needs a failed
 * member fails with EIO.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blk-mq.h>
#include <linux/hash.h>
#include <linux/highmem.h>
#include <linux/hrtimer.h>
#include <linux/local_lock.h>
#include <linux/log2.h>
#include <linux/mempool.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/raid/pq.h>
#include <linux/raid/xor.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "stria.h"
#include "parity_plan.h"
#include "trace.h"

#define STRIA_R56_SLICE_SECTORS	128U	/* 64 KiB of columns per sop */
#define STRIA_R56_PAGE_SECTORS	(PAGE_SIZE >> SECTOR_SHIFT)
#define STRIA_R56_CACHE_PAGES	64U	/* per CPU */
#define STRIA_R56_BUCKETS_PER_CPU 64U
#define STRIA_R56_MAX_IO_SECTORS 16384U	/* 8 MiB: largest request */


/* the two buffers a member has in a sop */
#define STRIA_R56_NEW	0U	/* data to write, or the new parity */
#define STRIA_R56_OLD	1U	/* what was read from the member */

static unsigned int merge_wait_us = 50000;
module_param(merge_wait_us, uint, 0644);
MODULE_PARM_DESC(merge_wait_us,
		 "RAID5/6: a sequential partial-stripe write that starts a stripe waits for the writes that fill it while its writer is not waiting for it, at most this long for each next one (microseconds; 0 = never wait; default 50000)");

/* write requests of a CPU remembered to tell a sequential write */
#define STRIA_R56_STREAMS	4U
/* how often a parked sop looks whether its writer waits for it */
#define STRIA_R56_PARK_POLL_NS	(100 * NSEC_PER_USEC)
/* a CPU's record of parks: +1 for one that merged, -2 for one that did not */
#define STRIA_R56_SCORE_MAX	8
#define STRIA_R56_SCORE_MIN	(-8)
/* with a failing record, one lone sequential tail in this many parks */
#define STRIA_R56_PROBE		16U

static const char *const stria_r56_method_names[STRIA_PARITY_METHODS] = {
	"full_stripe", "rmw", "rcw", "degraded_write", "degraded_read", "sync",
};

/**
 * struct stria_r56_stats - per-CPU RAID5/6 counters
 * @ops: stripe segments by method (full, rmw, rcw, degraded write/read)
 * @member_reads: member reads issued by stripe operations
 * @lock_waits: sops that found their stripe busy and waited
 * @read_retries: requests queued again after a member read failed
 * @merged: write sops merged into a waiting partial-stripe write
 * @merge_timeouts: waiting partial-stripe writes that went on unfilled
 *	when merge_wait_us was over
 * @merge_idle: waiting partial-stripe writes that went on unfilled
 *	because no other write of their CPU was left in flight
 * @read_repairs: member reads that failed, rebuilt and written back
 */
struct stria_r56_stats {
	u64 ops[STRIA_PARITY_METHODS];
	u64 member_reads;
	u64 lock_waits;
	u64 read_retries;
	u64 merged;
	u64 merge_timeouts;
	u64 merge_idle;
	u64 read_repairs;
};

/**
 * struct stria_r56_stream - a CPU's writes, for the merge
 * @lock: protects @parked and the parked flag of the sops on it
 * @parked: this CPU's sops parked for a merge
 * @busy: write sops this CPU submitted that are in flight and not parked
 *	(nor merged into a parked one): while there are some, the writer
 *	has not run dry and the write that fills a parked stripe may come
 * @score: how parks have gone on this CPU lately: +1 for one that merged
 *	(from 0 at least), -2 for one that went on with nothing merged
 *	(@lock). Below 0, a tail with nothing else of its CPU in flight
 *	parks only as a probe, one in STRIA_R56_PROBE: its writer most
 *	likely waits for it (queue depth 1), and the park would cost it a
 *	poll period
 * @probe: lone tails seen with a failing record (hint)
 * @ends: ends (sectors) of this CPU's latest write requests; a write
 *	that starts at one continues a sequential stream (hints: written
 *	without a lock)
 * @next: the entry of @ends written next
 */
struct stria_r56_stream {
	spinlock_t lock;
	struct list_head parked;
	atomic_t busy;
	int score;
	u32 probe;
	u64 ends[STRIA_R56_STREAMS];
	u32 next;
} ____cacheline_aligned_in_smp;

/**
 * struct stria_r56_pcache - a CPU's free pages
 * @lock: protects the rest; pages are returned from completions too
 * @nr: pages in @pages
 * @pages: the pages
 */
struct stria_r56_pcache {
	local_lock_t lock;
	unsigned int nr;
	struct page *pages[STRIA_R56_CACHE_PAGES];
};

/**
 * struct stria_r56_bucket - one entry of the stripe lock table
 * @lock: protects @busy; held only to look up, add or remove a key
 * @busy: sops holding a stripe lock whose key hashes here
 */
struct stria_r56_bucket {
	spinlock_t lock;
	struct hlist_head busy;
} ____cacheline_aligned_in_smp;

/**
 * struct stria_raid56 - RAID5/6 state of an array
 * @a: the array
 * @nd: data chunks per stripe
 * @np: parity chunks per stripe
 * @slice: columns per sop, in sectors
 * @slice_pages: pages per member buffer of a sop
 * @nr_slices: sops per stripe
 * @rmw_ok: read-modify-write is available (RAID6: xor_syndrome exists)
 * @bucket_bits: log2 of the number of buckets
 * @buckets: the stripe lock table, on the array's node
 * @wq: bound per-CPU workqueue continuing sops after their reads
 * @nr_slots: page slots of a sop, 2 * members * @slice_pages
 * @sop_clear: bytes of a sop cleared when it is allocated: all but its
 *	page slots, which only the bits of @used make valid
 * @sop_size: bytes of a sop with its arrays
 * @sop_pool: sops, one reserved
 * @page_pool: pages, one sop's worth reserved
 * @reserve_lock: one sop at a time allocates from @page_pool's reserve
 * @pcache: per-CPU free pages
 * @streams: per-CPU write streams, for the merge
 * @stats: per-CPU counters
 */
struct stria_raid56 {
	struct stria_array *a;
	u32 nd;
	u32 np;
	u32 slice;
	u32 slice_pages;
	u32 nr_slices;
	bool rmw_ok;
	u32 bucket_bits;
	struct stria_r56_bucket *buckets;
	struct workqueue_struct *wq;
	u32 nr_slots;
	size_t sop_clear;
	size_t sop_size;
	mempool_t *sop_pool;
	mempool_t *page_pool;
	struct mutex reserve_lock;
	struct stria_r56_pcache __percpu *pcache;
	struct stria_r56_stream __percpu *streams;
	struct stria_r56_stats __percpu *stats;
};

/**
 * struct stria_r56_sync - one stria_raid56_sync_stripe() call
 * @op: what it does
 * @pending: its sops still running
 * @err: 0, or -EIO once a member read or write failed
 * @mismatches: sectors of parity found wrong (CHECK, REPAIR)
 * @done: completed by the last sop
 */
struct stria_r56_sync {
	enum stria_sync_op op;
	atomic_t pending;
	int err;
	atomic64_t mismatches;
	struct completion done;
};

enum stria_sop_phase {
	STRIA_SOP_LOCK_WAIT,
	STRIA_SOP_READING,
	STRIA_SOP_WRITING,
};

/**
 * struct stria_sop - one stripe operation
 * @r: the array's RAID5/6 state
 * @rq: the request it serves, holding a reference on it; NULL for @sync
 * @sync: the background sync call it serves, or NULL
 * @hnode: in the lock table while it holds its stripe lock
 * @waiters: sops waiting for this one's stripe lock, in arrival order
 * @wait_entry: in the holder's @waiters while waiting, or in @merged of
 *	the sop it was merged into
 * @merged: write sops merged into this one, in arrival order; they end
 *	with it
 * @park: ends the wait of a parked sop
 * @park_entry: in its CPU's stream's @parked while parked
 * @park_limit: when its wait ends at the latest: merge_wait_us after it
 *	parked or after the last write merged into it
 * @nr_merged: writes merged into it (its CPU's stream lock)
 * @writer: the user task that submitted it (a reference) while parked;
 *	NULL when kblockd dispatched it
 * @parked: holds its stripe lock and waits for writes that fill the rest
 *	of the slice (its CPU's stream lock)
 * @timed: @park was set up; it is cancelled before the sop runs
 * @busy: counted in its CPU's stream's @busy
 * @seq: its request continues a recent write (stria_r56_sequential())
 * @work: continues the sop in process context
 * @key: lock key, stripe and slice
 * @stripe: stripe number
 * @cpu: the submitting CPU; work runs there
 * @phase: what @work does next
 * @write: a write (else a degraded read)
 * @skip: a member in sync whose read failed, read around like a failed
 *	one, or STRIA_GEOM_NONE
 * @repair: a read that rebuilds @skip's data, and writes it back there
 * @missing: members whose data the plan rebuilds instead of reading: out
 *	of sync when it was made, and @skip
 * @opf_flags: REQ_FUA and REQ_SYNC of the request(s) written
 * @lo: first column of the slice; buffers start there
 * @p: member holding P
 * @q: member holding Q, STRIA_GEOM_NONE on RAID5
 * @nsegs: entries in @segs
 * @segs: the plan, column segments
 * @pending: bios in flight
 * @status: error to end the request with
 * @retry: a member read failed; plan again without it
 * @ranges: per data index, columns written (write, with the sops merged
 *	into this one) or wanted (read)
 * @mine: per data index, the columns of this sop's own request
 * @dmember: per data index, its member
 * @slot: per data index, its syndrome slot
 * @used: page slots planned; their @pages entries are valid (NULL until
 *	allocated), the others are not even initialised: a small write plans
 *	a few of the hundreds of slots, and only those are walked
 * @pages: [2][members][slice_pages] buffer pages, STRIA_R56_NEW/OLD
 */
struct stria_sop {
	struct stria_raid56 *r;
	struct request *rq;
	struct stria_r56_sync *sync;
	struct hlist_node hnode;
	struct list_head waiters;
	struct list_head wait_entry;
	struct list_head merged;
	struct hrtimer park;
	struct list_head park_entry;
	ktime_t park_limit;
	u32 nr_merged;
	struct task_struct *writer;
	bool parked;
	bool timed;
	bool busy;
	bool seq;
	struct work_struct work;
	u64 key;
	u64 stripe;
	int cpu;
	enum stria_sop_phase phase;
	bool write;
	u32 skip;
	bool repair;
	u64 missing;
	stria_opf_t opf_flags;
	u32 lo;
	u32 p;
	u32 q;
	u32 nsegs;
	struct stria_parity_seg segs[STRIA_PARITY_ROW_SEGS];
	atomic_t pending;
	blk_status_t status;
	bool retry;
	struct stria_range *ranges;
	struct stria_range *mine;
	u32 *dmember;
	u32 *slot;
	unsigned long *used;
	struct page **pages;
};

static void stria_sop_run(struct stria_sop *sop);
static void stria_sop_run_parked(struct stria_sop *sop);

static inline struct stria_member *stria_sop_member(struct stria_sop *sop,
						    u32 m)
{
	return &sop->r->a->members[m];
}

/*
 * Can member @m's data be read for @sop? Not when it was out of sync when
 * the sop was planned, nor when it is the member whose read failed and is
 * being repaired. The plan's view, not the live state: a member that fails
 * while the sop's reads are out must not change which buffers the
 * computation uses (they were allocated and read for the plan).
 */
static inline bool stria_sop_has(struct stria_sop *sop, u32 m)
{
	return !(sop->missing & (1ULL << m));
}

/* Index in @pages (and @used) of page @k of member @m's buffer @which. */
static inline u32 stria_sop_slot_index(struct stria_sop *sop, u32 which,
				       u32 m, u32 k)
{
	struct stria_raid56 *r = sop->r;

	return (which * r->a->nr_members + m) * r->slice_pages + k;
}

static inline struct page **stria_sop_slot(struct stria_sop *sop, u32 which,
					   u32 m, u32 k)
{
	return &sop->pages[stria_sop_slot_index(sop, which, m, k)];
}

/* Address of column @col of member @m's buffer @which (allocated). */
static inline void *stria_sop_addr(struct stria_sop *sop, u32 which, u32 m,
				   u32 col)
{
	u32 rel = col - sop->lo;

	return page_address(*stria_sop_slot(sop, which, m,
					    rel / STRIA_R56_PAGE_SECTORS)) +
	       ((rel % STRIA_R56_PAGE_SECTORS) << SECTOR_SHIFT);
}

/* End of the piece of [@col, @end) that stays within one buffer page. */
static inline u32 stria_sop_piece_end(struct stria_sop *sop, u32 col,
				      u32 end)
{
	u32 rel = col - sop->lo;
	u32 next = col + STRIA_R56_PAGE_SECTORS - rel % STRIA_R56_PAGE_SECTORS;

	return min(next, end);
}

/* ---- pages ------------------------------------------------------------ */

static struct page *stria_r56_page_get(struct stria_raid56 *r)
{
	struct stria_r56_pcache *pc;
	struct page *pg = NULL;
	unsigned long flags;

	local_lock_irqsave(&r->pcache->lock, flags);
	pc = this_cpu_ptr(r->pcache);
	if (pc->nr)
		pg = pc->pages[--pc->nr];
	local_unlock_irqrestore(&r->pcache->lock, flags);
	if (pg)
		return pg;
	return alloc_pages_node(r->a->node,
				GFP_NOIO | __GFP_NORETRY | __GFP_NOWARN, 0);
}

/* Any context. Refills the reserve first, then this CPU's cache. */
static void stria_r56_page_put(struct stria_raid56 *r, struct page *pg)
{
	struct stria_r56_pcache *pc;
	unsigned long flags;

	if (READ_ONCE(r->page_pool->curr_nr) < r->page_pool->min_nr) {
		mempool_free(pg, r->page_pool);
		return;
	}
	local_lock_irqsave(&r->pcache->lock, flags);
	pc = this_cpu_ptr(r->pcache);
	if (pc->nr < STRIA_R56_CACHE_PAGES) {
		pc->pages[pc->nr++] = pg;
		pg = NULL;
	}
	local_unlock_irqrestore(&r->pcache->lock, flags);
	if (pg)
		__free_page(pg);
}

/* Plan buffer @which of member @m to cover columns [@s, @e). */
static void stria_sop_want(struct stria_sop *sop, u32 which, u32 m, u32 s,
			   u32 e)
{
	u32 k, i;

	if (s >= e)
		return;
	for (k = (s - sop->lo) / STRIA_R56_PAGE_SECTORS;
	     k <= (e - 1 - sop->lo) / STRIA_R56_PAGE_SECTORS; k++) {
		i = stria_sop_slot_index(sop, which, m, k);
		if (!__test_and_set_bit(i, sop->used))
			sop->pages[i] = NULL;
	}
}

/*
 * Allocate every planned page. Process context. When the cache and the
 * page allocator both fail, the rest comes from the reserve, which one sop
 * at a time may wait on: the sops in flight give their pages back to it
 * first, so the one waiting always gets its share.
 */
static void stria_sop_alloc_pages(struct stria_sop *sop)
{
	struct stria_raid56 *r = sop->r;
	bool reserve = false;
	u32 i;

	for_each_set_bit(i, sop->used, r->nr_slots) {
		struct page *pg;

		if (sop->pages[i])
			continue;
		pg = reserve ? NULL : stria_r56_page_get(r);
		if (!pg) {
			if (!reserve) {
				mutex_lock(&r->reserve_lock);
				reserve = true;
			}
			pg = mempool_alloc(r->page_pool, GFP_NOIO);
		}
		sop->pages[i] = pg;
	}
	if (reserve)
		mutex_unlock(&r->reserve_lock);
}

static void stria_sop_free_pages(struct stria_sop *sop)
{
	struct stria_raid56 *r = sop->r;
	u32 i;

	for_each_set_bit(i, sop->used, r->nr_slots)
		if (sop->pages[i])
			stria_r56_page_put(r, sop->pages[i]);
	bitmap_zero(sop->used, r->nr_slots);
}

/* ---- copies between the request and the buffers ----------------------- */

/*
 * Copy columns [@s, @e) of data index @i between request @rq and member
 * buffer @which: into the buffer when @to_buf, else into the request.
 */
static void stria_sop_copy(struct stria_sop *sop, struct request *rq,
			   u32 which, u32 i, u32 s, u32 e, bool to_buf)
{
	struct stria_raid56 *r = sop->r;
	u32 chunk_shift = r->a->geom.chunk_shift;
	u32 m = sop->dmember[i];
	u64 first = ((sop->stripe * r->nd + i) << chunk_shift) + s;
	u64 want = (first - blk_rq_pos(rq)) << SECTOR_SHIFT;
	u64 left = (u64)(e - s) << SECTOR_SHIFT, pos = 0;
	u32 col = s, coloff = 0;
	struct bvec_iter iter;
	struct bio_vec bv;
	struct bio *bio;

	__rq_for_each_bio(bio, rq) {
		if (pos + bio->bi_iter.bi_size <= want) {
			pos += bio->bi_iter.bi_size;
			continue;
		}
		bio_for_each_segment(bv, bio, iter) {
			u32 boff = 0;

			if (pos + bv.bv_len <= want) {
				pos += bv.bv_len;
				continue;
			}
			if (pos < want)
				boff = want - pos;
			while (boff < bv.bv_len && left) {
				u32 pend = stria_sop_piece_end(sop, col, e);
				u32 room = ((pend - col) << SECTOR_SHIFT) -
					   coloff;
				u32 n = min3(room, bv.bv_len - boff,
					     (u32)left);
				void *buf = stria_sop_addr(sop, which, m, col) +
					    coloff;

				if (to_buf)
					memcpy_from_page(buf, bv.bv_page,
							 bv.bv_offset + boff,
							 n);
				else
					memcpy_to_page(bv.bv_page,
						       bv.bv_offset + boff,
						       buf, n);
				boff += n;
				left -= n;
				coloff += n;
				if (coloff == (pend - col) << SECTOR_SHIFT) {
					col = pend;
					coloff = 0;
				}
			}
			pos += bv.bv_len;
			want = pos;
			if (!left)
				return;
		}
	}
}

/* ---- parity ----------------------------------------------------------- */

/* dest ^= srcs[0] ^ ... ^ srcs[count - 1] */
static void stria_xor(void *dest, void **srcs, u32 count, u32 bytes)
{
	while (count) {
		u32 n = min_t(u32, count, MAX_XOR_BLOCKS);

		xor_blocks(n, bytes, dest, srcs);
		srcs += n;
		count -= n;
	}
}

/*
 * Data chunk @i over one piece: the new data where the segment writes it,
 * else what was read (or rebuilt) there.
 */
static void *stria_sop_data(struct stria_sop *sop, u32 i, u32 col,
			    u64 written)
{
	return stria_sop_addr(sop, written & (1ULL << i) ? STRIA_R56_NEW :
			      STRIA_R56_OLD, sop->dmember[i], col);
}

/* P and Q of columns [@s, @e) from all the data: full, RCW, degraded. */
static void stria_sop_gen(struct stria_sop *sop, u32 s, u32 e, u64 written)
{
	struct stria_raid56 *r = sop->r;
	u32 n = r->a->nr_members, i, col, pend;
	void *ptrs[STRIA_GEOM_MAX_MEMBERS];

	for (col = s; col < e; col = pend) {
		u32 bytes;

		pend = stria_sop_piece_end(sop, col, e);
		bytes = (pend - col) << SECTOR_SHIFT;
		for (i = 0; i < r->nd; i++)
			ptrs[sop->slot[i]] = stria_sop_data(sop, i, col,
							    written);
		ptrs[r->nd] = stria_sop_addr(sop, STRIA_R56_NEW, sop->p, col);
		if (r->np == 1) {
			memcpy(ptrs[r->nd], ptrs[0], bytes);
			stria_xor(ptrs[r->nd], ptrs + 1, r->nd - 1, bytes);
			continue;
		}
		ptrs[r->nd + 1] = stria_sop_addr(sop, STRIA_R56_NEW, sop->q,
						 col);
		raid6_call.gen_syndrome(n, bytes, ptrs);
	}
}

/* New P and Q of columns [@s, @e) from the old ones: read-modify-write. */
static void stria_sop_rmw(struct stria_sop *sop, u32 s, u32 e, u64 written)
{
	struct stria_raid56 *r = sop->r;
	u32 n = r->a->nr_members, i, col, pend, first = ~0U, last = 0;
	void *ptrs[STRIA_GEOM_MAX_MEMBERS];

	for (i = 0; i < r->nd; i++) {
		if (!(written & (1ULL << i)))
			continue;
		first = min(first, sop->slot[i]);
		last = max(last, sop->slot[i]);
	}
	for (col = s; col < e; col = pend) {
		void *pp, *qq;
		u32 bytes, c = 0;

		pend = stria_sop_piece_end(sop, col, e);
		bytes = (pend - col) << SECTOR_SHIFT;
		pp = stria_sop_addr(sop, STRIA_R56_NEW, sop->p, col);
		memcpy(pp, stria_sop_addr(sop, STRIA_R56_OLD, sop->p, col),
		       bytes);
		if (r->np == 1) {
			for (i = 0; i < r->nd; i++) {
				if (!(written & (1ULL << i)))
					continue;
				ptrs[c++] = stria_sop_addr(sop, STRIA_R56_OLD,
							   sop->dmember[i],
							   col);
				ptrs[c++] = stria_sop_addr(sop, STRIA_R56_NEW,
							   sop->dmember[i],
							   col);
			}
			stria_xor(pp, ptrs, c, bytes);
			continue;
		}
		qq = stria_sop_addr(sop, STRIA_R56_NEW, sop->q, col);
		memcpy(qq, stria_sop_addr(sop, STRIA_R56_OLD, sop->q, col),
		       bytes);
		/* P, Q ^= syndrome(old data), then ^= syndrome(new data) */
		for (i = 0; i < r->nd; i++)
			ptrs[sop->slot[i]] = (void *)raid6_empty_zero_page;
		ptrs[r->nd] = pp;
		ptrs[r->nd + 1] = qq;
		for (c = 0; c < 2; c++) {
			for (i = 0; i < r->nd; i++)
				if (written & (1ULL << i))
					ptrs[sop->slot[i]] =
						stria_sop_addr(sop, c ?
							STRIA_R56_NEW :
							STRIA_R56_OLD,
							sop->dmember[i], col);
			raid6_call.xor_syndrome(n, first, last, bytes, ptrs);
		}
	}
}

/* Data indexes on failed members, up to two; returns how many. */
static u32 stria_sop_failed_data(struct stria_sop *sop, u32 *fd)
{
	u32 i, nfd = 0;

	for (i = 0; i < sop->r->nd && nfd < 2; i++)
		if (!stria_sop_has(sop, sop->dmember[i]))
			fd[nfd++] = i;
	return nfd;
}

/*
 * Rebuild the old data of the failed data members over [@s, @e) into their
 * OLD buffers, from the OLD buffers of the others. The caller read every
 * surviving member there.
 */
static void stria_sop_rebuild(struct stria_sop *sop, u32 s, u32 e)
{
	struct stria_raid56 *r = sop->r;
	u32 n = r->a->nr_members, i, col, pend, fd[2], nfd, c;
	bool p_ok = stria_sop_has(sop, sop->p);
	void *ptrs[STRIA_GEOM_MAX_MEMBERS];

	nfd = stria_sop_failed_data(sop, fd);
	if (!nfd)
		return;
	for (col = s; col < e; col = pend) {
		u32 bytes;

		pend = stria_sop_piece_end(sop, col, e);
		bytes = (pend - col) << SECTOR_SHIFT;
		if (nfd == 1 && p_ok) {
			void *dest = stria_sop_addr(sop, STRIA_R56_OLD,
						    sop->dmember[fd[0]], col);

			memcpy(dest, stria_sop_addr(sop, STRIA_R56_OLD, sop->p,
						    col), bytes);
			for (i = 0, c = 0; i < r->nd; i++)
				if (i != fd[0])
					ptrs[c++] = stria_sop_addr(sop,
						STRIA_R56_OLD, sop->dmember[i],
						col);
			stria_xor(dest, ptrs, c, bytes);
			continue;
		}
		for (i = 0; i < r->nd; i++)
			ptrs[sop->slot[i]] = stria_sop_addr(sop, STRIA_R56_OLD,
							    sop->dmember[i],
							    col);
		/* a failed P's OLD buffer is scratch for the recovery */
		ptrs[r->nd] = stria_sop_addr(sop, STRIA_R56_OLD, sop->p, col);
		ptrs[r->nd + 1] = stria_sop_addr(sop, STRIA_R56_OLD, sop->q,
						 col);
		if (nfd == 1) {
			raid6_datap_recov(n, bytes, sop->slot[fd[0]], ptrs);
		} else {
			u32 a = sop->slot[fd[0]], b = sop->slot[fd[1]];

			raid6_2data_recov(n, bytes, min(a, b), max(a, b),
					  ptrs);
		}
	}
}

/* ---- planning --------------------------------------------------------- */

/* Does segment @sg need the old data of a failed member it does not write? */
static bool stria_seg_needs_rebuild(struct stria_sop *sop,
				    const struct stria_parity_seg *sg)
{
	u32 fd[2], nfd = stria_sop_failed_data(sop, fd), k;

	for (k = 0; k < nfd; k++)
		if (!(sg->written & (1ULL << fd[k])))
			return true;
	return false;
}

/*
 * Members segment @sg reads, by bit: RMW the written data and the parity,
 * RCW the data not written, a degraded write what it needs to rebuild, a
 * degraded read every surviving member but an unneeded Q.
 */
static u64 stria_seg_reads(struct stria_sop *sop,
			   const struct stria_parity_seg *sg)
{
	struct stria_raid56 *r = sop->r;
	u32 n = r->a->nr_members, i, fd[2];
	u64 mask = 0;

	switch (sg->method) {
	case STRIA_PARITY_RMW:
		mask = 1ULL << sop->p;
		if (r->np == 2)
			mask |= 1ULL << sop->q;
		fallthrough;
	case STRIA_PARITY_RCW:
		for (i = 0; i < r->nd; i++)
			if (sg->read & (1ULL << i))
				mask |= 1ULL << sop->dmember[i];
		return mask;
	case STRIA_PARITY_DEGRADED_WRITE:
		if (!stria_seg_needs_rebuild(sop, sg)) {
			for (i = 0; i < r->nd; i++)
				if (!(sg->written & (1ULL << i)))
					mask |= 1ULL << sop->dmember[i];
			break;
		}
		fallthrough;
	case STRIA_PARITY_DEGRADED_READ:
		mask = n == 64 ? ~0ULL : (1ULL << n) - 1;
		/* one lost data chunk and P: P rebuilds it, Q is not needed */
		if (r->np == 2 && stria_sop_failed_data(sop, fd) == 1 &&
		    stria_sop_has(sop, sop->p))
			mask &= ~(1ULL << sop->q);
		break;
	case STRIA_PARITY_SYNC:
		/* rebuild: every member in sync; scrub and resync: all */
		mask = n == 64 ? ~0ULL : (1ULL << n) - 1;
		if (sop->sync->op == STRIA_SYNC_OP_REPLACE)
			mask = 1ULL << r->a->repl_role;
		if (sop->sync->op == STRIA_SYNC_OP_RESYNC) {
			mask = 0;
			for (i = 0; i < r->nd; i++)
				mask |= 1ULL << sop->dmember[i];
		}
		break;
	default:
		return 0;
	}
	for (i = 0; i < n; i++)
		if (!stria_sop_has(sop, i))
			mask &= ~(1ULL << i);
	return mask;
}

static void stria_sop_plan(struct stria_sop *sop, bool degraded)
{
	struct stria_raid56 *r = sop->r;
	struct stria_parity_seg *sg;
	u32 k, i;

	if (sop->sync) {
		/* background sync: the whole slice, nothing from a request */
		sg = &sop->segs[0];
		sg->start = sop->lo;
		sg->end = sop->lo + r->slice;
		sg->written = 0;
		sg->read = 0;
		sg->method = STRIA_PARITY_SYNC;
		sop->nsegs = 1;
	} else if (!sop->write) {
		/* one segment: the wanted columns of the one lost chunk */
		for (i = 0; i < r->nd; i++)
			if (sop->ranges[i].start < sop->ranges[i].end)
				break;
		sg = &sop->segs[0];
		sg->start = sop->ranges[i].start;
		sg->end = sop->ranges[i].end;
		sg->written = 0;
		sg->read = 0;
		sg->method = STRIA_PARITY_DEGRADED_READ;
		sop->nsegs = 1;
	} else {
		sop->nsegs = stria_parity_plan(r->nd, r->np,
					       r->rmw_ok && !degraded,
					       sop->ranges, sop->segs,
					       STRIA_PARITY_ROW_SEGS);
		if (WARN_ON_ONCE(sop->nsegs > STRIA_PARITY_ROW_SEGS))
			sop->nsegs = STRIA_PARITY_ROW_SEGS;
		if (degraded)
			for (k = 0; k < sop->nsegs; k++)
				sop->segs[k].method = STRIA_PARITY_DEGRADED_WRITE;
	}
}

/* ---- I/O -------------------------------------------------------------- */

static void stria_sop_done(struct stria_sop *sop);

static void stria_sop_endio(struct bio *bio)
{
	struct stria_sop *sop = bio->bi_private;
	struct stria_member *m = container_of(bio, struct stria_clone,
					      bio)->member;
	blk_status_t st = bio->bi_status;

	if (unlikely(st) && m == &sop->r->a->repl) {
		/* the copy stops; the request does not care */
		stria_repl_failed(sop->r->a, st);
		if (sop->sync)
			WRITE_ONCE(sop->sync->err, -EIO);
	} else if (unlikely(st)) {
		if (sop->sync)
			WRITE_ONCE(sop->sync->err, -EIO);
		if (!stria_member_io_error(m, st))
			sop->status = st;
		else if (!op_is_write(bio_op(bio)))
			WRITE_ONCE(sop->retry, true);
	}
	bio_put(bio);
	if (!atomic_dec_and_test(&sop->pending))
		return;
	if (sop->phase == STRIA_SOP_READING)
		queue_work_on(sop->cpu, sop->r->wq, &sop->work);
	else
		stria_sop_done(sop);
}

/*
 * A bio for columns [@s, @e) of member @m from or to its buffer @which,
 * to device @mem: the member's, or its replacement's. Process context;
 * never fails.
 */
static struct bio *stria_sop_bio(struct stria_sop *sop, u32 which, u32 m,
				 u32 s, u32 e, stria_opf_t opf,
				 struct stria_member *mem)
{
	struct stria_array *a = sop->r->a;
	u32 nr = (e - s + STRIA_R56_PAGE_SECTORS - 1) /
		 STRIA_R56_PAGE_SECTORS + 1, col, pend;
	struct bio *bio;

	bio = stria_bio_alloc_bioset(mem->dev.bdev, nr, opf, GFP_NOIO,
				     &a->bioset);
	container_of(bio, struct stria_clone, bio)->member = mem;
	container_of(bio, struct stria_clone, bio)->rq = sop->rq;
	bio->bi_iter.bi_sector = a->data_offset +
				 (sop->stripe << a->geom.chunk_shift) + s;
	bio->bi_private = sop;
	bio->bi_end_io = stria_sop_endio;
	for (col = s; col < e; col = pend) {
		u32 rel = col - sop->lo;
		u32 len;

		pend = stria_sop_piece_end(sop, col, e);
		len = (pend - col) << SECTOR_SHIFT;
		if (WARN_ON_ONCE(bio_add_page(bio,
				*stria_sop_slot(sop, which, m,
						rel / STRIA_R56_PAGE_SECTORS),
				len, (rel % STRIA_R56_PAGE_SECTORS) <<
				SECTOR_SHIFT) != len)) {
			bio->bi_status = BLK_STS_RESOURCE;
			break;
		}
	}
	return bio;
}

/*
 * Add bios for the columns of every segment in @masks[k] to @list, one per
 * run of consecutive segments a member takes part in. A member being
 * replaced gets its writes twice, to its replacement too; the copy of a
 * replace writes the replacement only.
 */
static u32 stria_sop_bios(struct stria_sop *sop, const u64 *masks,
			  u32 which, stria_opf_t opf, struct bio_list *list)
{
	struct stria_array *a = sop->r->a;
	u32 n = a->nr_members, m, k, count = 0, rr = STRIA_NO_MEMBER;
	bool copy = op_is_write(opf) && sop->sync &&
		    sop->sync->op == STRIA_SYNC_OP_REPLACE;

	if (op_is_write(opf) && unlikely(READ_ONCE(a->repl_role) != STRIA_NO_MEMBER) &&
	    READ_ONCE(a->repl.state) == STRIA_STATE_REPLACEMENT)
		rr = a->repl_role;

	for (m = 0; m < n; m++) {
		for (k = 0; k < sop->nsegs; k++) {
			u32 s = sop->segs[k].start, e = sop->segs[k].end;

			if (!(masks[k] & (1ULL << m)))
				continue;
			while (k + 1 < sop->nsegs &&
			       (masks[k + 1] & (1ULL << m)) &&
			       sop->segs[k + 1].start == e)
				e = sop->segs[++k].end;
			if (!copy) {
				bio_list_add(list, stria_sop_bio(sop, which, m,
						s, e, opf,
						stria_sop_member(sop, m)));
				count++;
			}
			if (m == rr) {
				bio_list_add(list, stria_sop_bio(sop, which, m,
						s, e, opf, &a->repl));
				count++;
			}
		}
	}
	return count;
}

static void stria_sop_submit(struct stria_sop *sop, struct bio_list *list,
			     u32 count)
{
	struct bio *bio;

	atomic_set(&sop->pending, count);
	while ((bio = bio_list_pop(list))) {
		if (unlikely(bio->bi_status))
			bio_endio(bio);
		else
			stria_bio_submit(bio);
	}
}

/* Members written in segment @sg: the data it writes and the parity. */
static u64 stria_seg_writes(struct stria_sop *sop,
			    const struct stria_parity_seg *sg)
{
	u32 i;
	u64 mask = 1ULL << sop->p;

	if (sop->r->np == 2)
		mask |= 1ULL << sop->q;
	for (i = 0; i < sop->r->nd; i++)
		if (sg->written & (1ULL << i))
			mask |= 1ULL << sop->dmember[i];
	return mask;
}

/* Copy member @m's OLD buffer to its NEW one over columns [@s, @e). */
static void stria_sop_old_to_new(struct stria_sop *sop, u32 m, u32 s, u32 e)
{
	u32 col, pend;

	for (col = s; col < e; col = pend) {
		pend = stria_sop_piece_end(sop, col, e);
		memcpy(stria_sop_addr(sop, STRIA_R56_NEW, m, col),
		       stria_sop_addr(sop, STRIA_R56_OLD, m, col),
		       (pend - col) << SECTOR_SHIFT);
	}
}

/* Write buffer @which of the members in @masks, then end the sop. */
static void stria_sop_write(struct stria_sop *sop, const u64 *masks,
			    u32 which, stria_opf_t opf)
{
	struct bio_list list = BIO_EMPTY_LIST;
	u32 count;

	count = stria_sop_bios(sop, masks, which, opf, &list);
	sop->phase = STRIA_SOP_WRITING;
	if (!count) {
		stria_sop_done(sop);
		return;
	}
	stria_sop_submit(sop, &list, count);
}

/*
 * Parity columns [@s, @e) of member @m that differ between what was read
 * (OLD) and what the data gives (NEW), in sectors, counted by 4 KiB page
 * pieces as md counts them.
 */
static u64 stria_sop_mismatches(struct stria_sop *sop, u32 m, u32 s, u32 e)
{
	u32 col, pend;
	u64 bad = 0;

	for (col = s; col < e; col = pend) {
		pend = stria_sop_piece_end(sop, col, e);
		if (memcmp(stria_sop_addr(sop, STRIA_R56_NEW, m, col),
			   stria_sop_addr(sop, STRIA_R56_OLD, m, col),
			   (pend - col) << SECTOR_SHIFT))
			bad += pend - col;
	}
	return bad;
}

/*
 * Background sync, the reads are back: rebuild the members being rebuilt,
 * or compare (and repair) or rewrite the parity.
 */
static void stria_sop_sync_compute(struct stria_sop *sop)
{
	struct stria_raid56 *r = sop->r;
	u32 s = sop->segs[0].start, e = sop->segs[0].end, i;
	u64 masks[STRIA_PARITY_ROW_SEGS] = { 0 }, bad = 0;

	if (sop->sync->op == STRIA_SYNC_OP_REPLACE) {
		/* what was read from the member goes to its replacement */
		masks[0] = 1ULL << r->a->repl_role;
		stria_sop_write(sop, masks, STRIA_R56_OLD, REQ_OP_WRITE);
		return;
	}
	stria_sop_rebuild(sop, s, e);
	stria_sop_gen(sop, s, e, 0);
	switch (sop->sync->op) {
	case STRIA_SYNC_OP_REBUILD:
		for (i = 0; i < r->a->nr_members; i++) {
			if (READ_ONCE(stria_sop_member(sop, i)->state) !=
			    STRIA_STATE_REBUILDING)
				continue;
			if (i != sop->p && i != sop->q)
				stria_sop_old_to_new(sop, i, s, e);
			masks[0] |= 1ULL << i;
		}
		break;
	case STRIA_SYNC_OP_CHECK:
	case STRIA_SYNC_OP_REPAIR:
		bad = stria_sop_mismatches(sop, sop->p, s, e);
		if (r->np == 2)
			bad += stria_sop_mismatches(sop, sop->q, s, e);
		atomic64_add(bad, &sop->sync->mismatches);
		if (!bad || sop->sync->op == STRIA_SYNC_OP_CHECK)
			break;
		fallthrough;
	case STRIA_SYNC_OP_RESYNC:
		masks[0] = 1ULL << sop->p;
		if (r->np == 2)
			masks[0] |= 1ULL << sop->q;
		break;
	case STRIA_SYNC_OP_REPLACE:	/* copied above */
		break;
	}
	stria_sop_write(sop, masks, STRIA_R56_NEW, REQ_OP_WRITE);
}

/* Reads are back (or none were needed): compute, then write. */
static void stria_sop_compute_write(struct stria_sop *sop)
{
	struct stria_raid56 *r = sop->r;
	struct stria_array *a = r->a;
	stria_opf_t opf = REQ_OP_WRITE | sop->opf_flags;
	u64 masks[STRIA_PARITY_ROW_SEGS];
	u32 k, i, n = a->nr_members;

	for (k = 0; k < sop->nsegs; k++) {
		struct stria_parity_seg *sg = &sop->segs[k];

		switch (sg->method) {
		case STRIA_PARITY_RMW:
			stria_sop_rmw(sop, sg->start, sg->end, sg->written);
			break;
		case STRIA_PARITY_DEGRADED_WRITE:
			if (stria_seg_needs_rebuild(sop, sg))
				stria_sop_rebuild(sop, sg->start, sg->end);
			fallthrough;
		default:
			stria_sop_gen(sop, sg->start, sg->end, sg->written);
			break;
		}
		masks[k] = stria_seg_writes(sop, sg);
		for (i = 0; i < r->nd; i++) {
			struct stria_member *m;

			m = stria_sop_member(sop, sop->dmember[i]);
			if (sg->written & (1ULL << i) ||
			    READ_ONCE(m->state) != STRIA_STATE_REBUILDING)
				continue;
			/* its rebuilt old data, so it stays current */
			stria_sop_old_to_new(sop, sop->dmember[i], sg->start,
					     sg->end);
			masks[k] |= 1ULL << sop->dmember[i];
		}
		for (i = 0; i < n; i++)
			if (stria_member_failed(stria_sop_member(sop, i)))
				masks[k] &= ~(1ULL << i);
	}
	stria_sop_write(sop, masks, STRIA_R56_NEW, opf);
}

/* The reads are back, or none were needed. Process context. */
static void stria_sop_after_reads(struct stria_sop *sop)
{
	struct stria_raid56 *r = sop->r;
	u32 i;

	if (READ_ONCE(sop->retry) && !sop->status) {
		/* a member failed under us: plan again around it */
		sop->retry = false;
		this_cpu_inc(r->stats->read_retries);
		stria_sop_free_pages(sop);
		stria_sop_run(sop);
		return;
	}
	if (sop->status) {
		stria_sop_done(sop);
		return;
	}
	if (sop->sync) {
		stria_sop_sync_compute(sop);
		return;
	}
	if (sop->write) {
		stria_sop_compute_write(sop);
		return;
	}
	stria_sop_rebuild(sop, sop->segs[0].start, sop->segs[0].end);
	for (i = 0; i < r->nd; i++)
		if (sop->ranges[i].start < sop->ranges[i].end)
			stria_sop_copy(sop, sop->rq, STRIA_R56_OLD, i,
				       sop->ranges[i].start,
				       sop->ranges[i].end, false);
	if (sop->repair) {
		/* the member failed this read: give it the data back */
		u64 masks[STRIA_PARITY_ROW_SEGS] = { 1ULL << sop->skip };

		this_cpu_inc(r->stats->read_repairs);
		stria_sop_write(sop, masks, STRIA_R56_OLD,
				REQ_OP_WRITE | REQ_SYNC);
		return;
	}
	stria_sop_done(sop);
}

/* Work: a sop's stripe lock came free, or its reads are back. */
static void stria_sop_work(struct work_struct *work)
{
	struct stria_sop *sop = container_of(work, struct stria_sop, work);

	if (sop->phase == STRIA_SOP_LOCK_WAIT) {
		if (sop->timed)
			stria_sop_run_parked(sop);
		else
			stria_sop_run(sop);
	} else
		stria_sop_after_reads(sop);
}

/*
 * The new data, in the NEW buffers: this sop's own, then that of the sops
 * merged into it, in the order they came (a later write to the same place
 * wins, as if it had waited for the lock).
 */
static void stria_sop_copy_mine(struct stria_sop *sop, struct stria_sop *c)
{
	u32 i;

	for (i = 0; i < sop->r->nd; i++)
		if (c->mine[i].start < c->mine[i].end)
			stria_sop_copy(sop, c->rq, STRIA_R56_NEW, i,
				       c->mine[i].start, c->mine[i].end, true);
}

static void stria_sop_copy_in(struct stria_sop *sop)
{
	struct stria_sop *c;

	stria_sop_copy_mine(sop, sop);
	list_for_each_entry(c, &sop->merged, wait_entry)
		stria_sop_copy_mine(sop, c);
}

/*
 * The sop holds its stripe lock: plan, allocate, read or go straight to the
 * writes. Process context.
 */
static void stria_sop_run(struct stria_sop *sop)
{
	struct stria_raid56 *r = sop->r;
	struct stria_array *a = r->a;
	u64 masks[STRIA_PARITY_ROW_SEGS];
	struct bio_list list = BIO_EMPTY_LIST;
	u32 nf, k, i, count;

	sop->missing = 0;
	for (i = 0; i < a->nr_members; i++)
		if (i == sop->skip || !stria_member_in_sync(&a->members[i]))
			sop->missing |= 1ULL << i;
	nf = hweight64(sop->missing);
	if (sop->sync && sop->sync->op == STRIA_SYNC_OP_REPLACE) {
		/* a copy needs the member it copies, nothing else */
		if (sop->missing & (1ULL << a->repl_role)) {
			sop->status = BLK_STS_IOERR;
			stria_sop_done(sop);
			return;
		}
		nf = 0;
	} else if (nf > r->np ||
		   (sop->sync && sop->sync->op != STRIA_SYNC_OP_REBUILD && nf)) {
		sop->status = BLK_STS_IOERR;
		stria_sop_done(sop);
		return;
	}
	stria_sop_plan(sop, nf > 0);
	for (k = 0; k < sop->nsegs; k++) {
		struct stria_parity_seg *sg = &sop->segs[k];
		u32 reads;

		masks[k] = stria_seg_reads(sop, sg);
		reads = hweight64(masks[k]);
		this_cpu_inc(r->stats->ops[sg->method]);
		trace_stria_stripe(a->index, sop->stripe, sg->start, sg->end,
				   sg->method, reads);
		/* every member's OLD buffer: what is read, or rebuilt */
		for (i = 0; i < a->nr_members; i++)
			if (masks[k] & (1ULL << i) ||
			    (sg->method >= STRIA_PARITY_DEGRADED_WRITE &&
			     !stria_sop_has(sop, i)))
				stria_sop_want(sop, STRIA_R56_OLD, i, sg->start,
					       sg->end);
		if (sop->write ||
		    (sop->sync && sop->sync->op != STRIA_SYNC_OP_REPLACE)) {
			stria_sop_want(sop, STRIA_R56_NEW, sop->p, sg->start,
				       sg->end);
			if (r->np == 2)
				stria_sop_want(sop, STRIA_R56_NEW, sop->q,
					       sg->start, sg->end);
		}
		/* members being rebuilt are written their rebuilt data */
		for (i = 0; nf && (sop->write || sop->sync) &&
		     i < a->nr_members; i++)
			if (READ_ONCE(stria_sop_member(sop, i)->state) ==
			    STRIA_STATE_REBUILDING)
				stria_sop_want(sop, STRIA_R56_NEW, i,
					       sg->start, sg->end);
	}
	if (sop->write)
		for (i = 0; i < r->nd; i++)
			stria_sop_want(sop, STRIA_R56_NEW, sop->dmember[i],
				       sop->ranges[i].start,
				       sop->ranges[i].end);
	stria_sop_alloc_pages(sop);
	if (sop->write)
		stria_sop_copy_in(sop);

	count = stria_sop_bios(sop, masks, STRIA_R56_OLD, REQ_OP_READ, &list);
	if (!count) {
		stria_sop_after_reads(sop);
		return;
	}
	this_cpu_add(r->stats->member_reads, count);
	sop->phase = STRIA_SOP_READING;
	stria_sop_submit(sop, &list, count);
}

/* ---- the stripe lock -------------------------------------------------- */

static struct stria_r56_bucket *stria_sop_bucket(struct stria_sop *sop)
{
	struct stria_raid56 *r = sop->r;

	return &r->buckets[hash_64(sop->key, r->bucket_bits)];
}

/* Does the write cover every column of its slice of every data chunk? */
static bool stria_sop_full(const struct stria_sop *sop)
{
	u32 i;

	for (i = 0; i < sop->r->nd; i++)
		if (sop->ranges[i].start != sop->lo ||
		    sop->ranges[i].end != sop->lo + sop->r->slice)
			return false;
	return true;
}

/*
 * Should a write that has just taken its stripe lock wait for others to
 * fill the slice? Only one that starts the stripe: it writes the first
 * data chunk from the slice's first column on, and every other chunk it
 * writes from there too; that continues a sequential stream (its request
 * starts where a recent write ended: the tail of a write the next one
 * continues); on a healthy array, when merging is on; when other
 * writes of its CPU are in flight, or parks have been merging lately.
 */
static bool stria_sop_should_park(const struct stria_sop *sop)
{
	struct stria_r56_stream *st = per_cpu_ptr(sop->r->streams, sop->cpu);
	u32 i, probe;

	if (!sop->seq || !READ_ONCE(merge_wait_us) || !sop->write ||
	    sop->sync || atomic_read(&sop->r->a->nr_failed) ||
	    stria_sop_full(sop) || sop->ranges[0].start != sop->lo ||
	    sop->ranges[0].end == sop->lo)
		return false;
	for (i = 1; i < sop->r->nd; i++)
		if (sop->ranges[i].start < sop->ranges[i].end &&
		    sop->ranges[i].start != sop->lo)
			return false;
	if (atomic_read(&st->busy) >= 2 || READ_ONCE(st->score) >= 0)
		return true;
	probe = READ_ONCE(st->probe) + 1;
	WRITE_ONCE(st->probe, probe);
	return !(probe % STRIA_R56_PROBE);
}

/*
 * Merge write @sop into parked @owner when the union is what one
 * contiguous write of the slice would write (stria_parity_mergeable()).
 * Caller holds the bucket lock.
 */
static bool stria_sop_merge(struct stria_sop *owner, struct stria_sop *sop)
{
	u32 nd = owner->r->nd, i;

	if (!stria_parity_mergeable(nd, owner->ranges, sop->ranges, owner->lo,
				    owner->lo + owner->r->slice))
		return false;
	for (i = 0; i < nd; i++)
		owner->ranges[i] = stria_range_union(&owner->ranges[i],
						     &sop->ranges[i]);
	owner->opf_flags |= sop->opf_flags;
	list_add_tail(&sop->wait_entry, &owner->merged);
	return true;
}

/*
 * Is the writer of parked @sop waiting for it? When no other write of its
 * CPU is in flight and the task that submitted it sleeps, nothing will
 * fill the stripe: the writer waits for this write (queue depth 1, or the
 * end of a stream). A writer woken by a completion counts as running.
 * When blk-mq's kblockd dispatched it, the writer is not known: an idle
 * CPU is enough.
 */
static bool stria_sop_writer_waits(struct stria_sop *sop)
{
	struct stria_r56_stream *st = per_cpu_ptr(sop->r->streams, sop->cpu);

	return !atomic_read(&st->busy) &&
	       (!sop->writer || !task_is_running(sop->writer));
}

/*
 * A parked sop goes on, and the CPU's record learns whether parking paid.
 * Caller holds the stream lock, @parked is set.
 */
static void stria_sop_unpark(struct stria_sop *sop)
{
	struct stria_r56_stream *st = per_cpu_ptr(sop->r->streams, sop->cpu);

	sop->parked = false;
	list_del_init(&sop->park_entry);
	if (sop->nr_merged)
		/* one merge is enough to park lone tails again */
		st->score = min(max(st->score, 0) + 1, STRIA_R56_SCORE_MAX);
	else
		st->score = max(st->score - 2, STRIA_R56_SCORE_MIN);
}

/* A write sop counts among its CPU's writes in flight. */
static void stria_sop_busy(struct stria_sop *sop)
{
	sop->busy = true;
	atomic_inc(&per_cpu_ptr(sop->r->streams, sop->cpu)->busy);
}

/* An unparked sop counts as busy again; its work runs it. */
static void stria_sop_resume(struct stria_sop *sop)
{
	stria_sop_busy(sop);
	/* the last touch: the work may end and free the sop */
	queue_work_on(sop->cpu, sop->r->wq, &sop->work);
}

/*
 * Hard irq, every STRIA_R56_PARK_POLL_NS: a parked sop goes on when its
 * writer waits for it or merge_wait_us is over. Only this callback
 * re-arms the timer.
 */
static enum hrtimer_restart stria_sop_park_poll(struct hrtimer *t)
{
	struct stria_sop *sop = container_of(t, struct stria_sop, park);
	struct stria_r56_stream *st = per_cpu_ptr(sop->r->streams, sop->cpu);
	bool run, late = false, waits = false;
	unsigned long flags;

	spin_lock_irqsave(&st->lock, flags);
	run = sop->parked;
	if (run) {
		late = !ktime_before(ktime_get(), sop->park_limit);
		waits = stria_sop_writer_waits(sop);
		if (!late && !waits) {
			hrtimer_forward_now(t, ns_to_ktime(STRIA_R56_PARK_POLL_NS));
			spin_unlock_irqrestore(&st->lock, flags);
			return HRTIMER_RESTART;
		}
		stria_sop_unpark(sop);
	}
	spin_unlock_irqrestore(&st->lock, flags);
	if (run) {
		if (waits)
			this_cpu_inc(sop->r->stats->merge_idle);
		else
			this_cpu_inc(sop->r->stats->merge_timeouts);
		stria_sop_resume(sop);
	}
	return HRTIMER_NORESTART;
}

/*
 * Any context: no write of @cpu is in flight but parked ones. Those whose
 * writer sleeps go on now (a writer at queue depth 1 waits for its last
 * write); the others are watched by their timers.
 */
static void stria_r56_stream_idle(struct stria_raid56 *r, int cpu)
{
	struct stria_r56_stream *st = per_cpu_ptr(r->streams, cpu);
	struct stria_sop *sop, *tmp;
	unsigned long flags;
	LIST_HEAD(go);

	spin_lock_irqsave(&st->lock, flags);
	list_for_each_entry_safe(sop, tmp, &st->parked, park_entry) {
		if (!stria_sop_writer_waits(sop))
			continue;
		stria_sop_unpark(sop);
		list_add_tail(&sop->park_entry, &go);
	}
	spin_unlock_irqrestore(&st->lock, flags);
	list_for_each_entry_safe(sop, tmp, &go, park_entry) {
		list_del_init(&sop->park_entry);
		this_cpu_inc(r->stats->merge_idle);
		stria_sop_resume(sop);
	}
}

/* A write sop of @cpu no longer counts as busy (it ended or parked). */
static void stria_r56_cpu_unbusy(struct stria_raid56 *r, int cpu)
{
	if (atomic_dec_and_test(&per_cpu_ptr(r->streams, cpu)->busy))
		stria_r56_stream_idle(r, cpu);
}

static void stria_sop_unbusy(struct stria_sop *sop)
{
	if (!sop->busy)
		return;
	sop->busy = false;
	stria_r56_cpu_unbusy(sop->r, sop->cpu);
}

/*
 * Run a sop that was parked: its timer may still be running (it cancels
 * itself when it finds the sop gone on), and its writer is let go.
 * Process context.
 */
static void stria_sop_run_parked(struct stria_sop *sop)
{
	hrtimer_cancel(&sop->park);
	sop->timed = false;
	if (sop->writer)
		put_task_struct(sop->writer);
	sop->writer = NULL;
	stria_sop_run(sop);
}

/*
 * Take the stripe lock and run, or wait on the sop that holds it, or merge
 * into it when it is a parked partial write this one continues.
 */
static void stria_sop_start(struct stria_sop *sop)
{
	struct stria_r56_bucket *b = stria_sop_bucket(sop);
	struct stria_sop *owner;
	unsigned long flags;
	bool park;

	spin_lock_irqsave(&b->lock, flags);
	hlist_for_each_entry(owner, &b->busy, hnode) {
		struct stria_r56_stream *ost;
		bool merged = false, full = false;

		if (owner->key != sop->key)
			continue;
		ost = per_cpu_ptr(owner->r->streams, owner->cpu);
		if (sop->write && !sop->sync) {
			spin_lock(&ost->lock);
			if (owner->parked && stria_sop_merge(owner, sop)) {
				merged = true;
				owner->nr_merged++;
				/* the stream goes on: wait for its next write */
				owner->park_limit =
					ktime_add_us(ktime_get(),
						     READ_ONCE(merge_wait_us));
				full = stria_sop_full(owner);
				if (full)
					stria_sop_unpark(owner);
			}
			spin_unlock(&ost->lock);
		}
		if (merged) {
			spin_unlock_irqrestore(&b->lock, flags);
			this_cpu_inc(sop->r->stats->merged);
			stria_sop_unbusy(sop);
			if (full) {
				stria_sop_busy(owner);
				stria_sop_run_parked(owner);
			}
			return;
		}
		list_add_tail(&sop->wait_entry, &owner->waiters);
		spin_unlock_irqrestore(&b->lock, flags);
		this_cpu_inc(sop->r->stats->lock_waits);
		return;
	}
	hlist_add_head(&sop->hnode, &b->busy);
	park = stria_sop_should_park(sop);
	if (park) {
		struct stria_r56_stream *st = per_cpu_ptr(sop->r->streams,
							   sop->cpu);

		stria_hrtimer_setup(&sop->park, stria_sop_park_poll,
				    CLOCK_MONOTONIC, HRTIMER_MODE_REL);
		sop->timed = true;
		sop->park_limit = ktime_add_us(ktime_get(),
					       READ_ONCE(merge_wait_us));
		if (in_task() && !(current->flags & PF_KTHREAD)) {
			get_task_struct(current);
			sop->writer = current;
		}
		spin_lock(&st->lock);
		sop->parked = true;
		list_add_tail(&sop->park_entry, &st->parked);
		spin_unlock(&st->lock);
		hrtimer_start(&sop->park, ns_to_ktime(STRIA_R56_PARK_POLL_NS),
			      HRTIMER_MODE_REL);
	}
	spin_unlock_irqrestore(&b->lock, flags);
	if (park)
		/* parked, it waits only while its CPU has others in flight */
		stria_sop_unbusy(sop);
	else
		stria_sop_run(sop);
}

/* Release the stripe lock to the first waiter, which inherits the rest. */
static void stria_sop_unlock(struct stria_sop *sop)
{
	struct stria_r56_bucket *b = stria_sop_bucket(sop);
	struct stria_sop *next = NULL;
	unsigned long flags;

	spin_lock_irqsave(&b->lock, flags);
	hlist_del(&sop->hnode);
	if (!list_empty(&sop->waiters)) {
		next = list_first_entry(&sop->waiters, struct stria_sop,
					wait_entry);
		list_del(&next->wait_entry);
		list_splice_tail(&sop->waiters, &next->waiters);
		hlist_add_head(&next->hnode, &b->busy);
	}
	spin_unlock_irqrestore(&b->lock, flags);
	if (next)
		queue_work_on(next->cpu, sop->r->wq, &next->work);
}

/* Any context: the sop is over. */
static void stria_sop_done(struct stria_sop *sop)
{
	struct stria_raid56 *r = sop->r;
	struct stria_r56_sync *sync = sop->sync;
	struct request *rq = sop->rq;
	blk_status_t st = sop->status;
	struct stria_sop *c, *tmp;
	int cpu = sop->cpu;
	bool busy = sop->busy;

	if (!st && (u32)atomic_read(&r->a->nr_failed) > r->np)
		st = BLK_STS_IOERR;
	stria_sop_free_pages(sop);
	stria_sop_unlock(sop);
	list_for_each_entry_safe(c, tmp, &sop->merged, wait_entry) {
		struct request *crq = c->rq;

		list_del(&c->wait_entry);
		mempool_free(c, r->sop_pool);
		stria_rq_put(crq, st);
	}
	mempool_free(sop, r->sop_pool);
	if (busy) {
		/*
		 * The request ends (and wakes its writer) before the CPU
		 * may look idle: a woken writer is not waiting for a
		 * parked write. The queue reference keeps the array.
		 */
		struct request_queue *q = rq->q;

		percpu_ref_get(&q->q_usage_counter);
		stria_rq_put(rq, st);
		stria_r56_cpu_unbusy(r, cpu);
		percpu_ref_put(&q->q_usage_counter);
		return;
	}
	if (!sync) {
		stria_rq_put(rq, st);
		return;
	}
	if (st)
		WRITE_ONCE(sync->err, blk_status_to_errno(st));
	if (atomic_dec_and_test(&sync->pending))
		complete(&sync->done);
}

/* A sop for slice @slice of stripe @stripe of @rq. Process context. */
static struct stria_sop *stria_sop_alloc(struct stria_raid56 *r,
					 struct request *rq, u64 stripe,
					 u32 slice, bool write)
{
	struct stria_sop *sop = mempool_alloc(r->sop_pool, GFP_NOIO);
	u32 i;

	memset(sop, 0, r->sop_clear);
	sop->r = r;
	sop->rq = rq;
	INIT_LIST_HEAD(&sop->waiters);
	INIT_LIST_HEAD(&sop->wait_entry);
	INIT_LIST_HEAD(&sop->merged);
	INIT_LIST_HEAD(&sop->park_entry);
	if (rq)
		sop->opf_flags = rq->cmd_flags & (REQ_FUA | REQ_SYNC);
	INIT_WORK(&sop->work, stria_sop_work);
	sop->stripe = stripe;
	sop->key = stripe * r->nr_slices + slice;
	sop->cpu = raw_smp_processor_id();
	sop->write = write;
	sop->skip = STRIA_GEOM_NONE;
	sop->lo = slice * r->slice;
	sop->ranges = (struct stria_range *)(sop + 1);
	sop->mine = sop->ranges + r->nd;
	sop->dmember = (u32 *)(sop->mine + r->nd);
	sop->slot = sop->dmember + r->nd;
	sop->used = (unsigned long *)ALIGN((unsigned long)(sop->slot + r->nd),
					   sizeof(long));
	sop->pages = (struct page **)(sop->used + BITS_TO_LONGS(r->nr_slots));
	stria_raid56_parity_members(&r->a->geom, stripe, &sop->p, &sop->q);
	for (i = 0; i < r->nd; i++) {
		sop->dmember[i] = stria_raid56_data_member(&r->a->geom, stripe,
							   i);
		sop->slot[i] = stria_raid56_slot(&r->a->geom, stripe, i);
	}
	return sop;
}

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

static blk_status_t stria_r56_write(struct stria_array *a, struct request *rq)
{
	struct stria_raid56 *r = a->r56;
	u32 off, len = blk_rq_sectors(rq), k, i, shift = a->geom.chunk_shift;
	u64 stripe;
	bool seq;

	if (!stria_r56_where(a, rq, &stripe, &off))
		return BLK_STS_IOERR;
	if (!stria_rq_bitmap_begin(a, rq, stripe << shift))
		return BLK_STS_RESOURCE;
	stria_rq_begin(rq);
	stria_count_io(a, rq);
	seq = stria_r56_sequential(r, blk_rq_pos(rq), len,
				   !off && len < stria_geom_stripe_sectors(&a->geom));
	for (k = 0; k < r->nr_slices; k++) {
		u32 lo = k * r->slice, hi = lo + r->slice;
		struct stria_sop *sop = NULL;

		for (i = 0; i < r->nd; i++) {
			struct stria_range rg = stria_r56_cols(shift, i, off,
							       len, lo, hi);

			if (rg.start == rg.end)
				continue;
			if (!sop)
				sop = stria_sop_alloc(r, rq, stripe, k, true);
			sop->ranges[i] = rg;
			sop->mine[i] = rg;
		}
		if (!sop)
			continue;
		stria_rq_get(rq);
		sop->seq = seq;
		stria_sop_busy(sop);
		stria_sop_start(sop);
	}
	stria_rq_put(rq, BLK_STS_OK);
	return BLK_STS_OK;
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
	u64 stripe;

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

	stria_rq_begin(rq);
	stria_count_io(a, rq);
	for (i = first; i <= last; i++) {
		u32 mi = stria_raid56_data_member(&a->geom, stripe, i);
		struct stria_member *m = &a->members[mi];
		u32 s = max(off, i << shift), e = min(off + len, (i + 1) << shift);
		u32 k;

		if (stria_member_in_sync(m) && mi != skip) {
			stria_r56_read_direct(a, rq, m, s - off, e - off,
					      a->data_offset +
					      (stripe << shift) +
					      (s & (chunk - 1)));
			continue;
		}
		/* rebuild it, a slice at a time */
		for (k = (s & (chunk - 1)) / r->slice;
		     k * r->slice < ((e - 1) & (chunk - 1)) + 1; k++) {
			struct stria_sop *sop;
			struct stria_range rg = stria_r56_cols(shift, i, off,
							       len, k * r->slice,
							       (k + 1) *
							       r->slice);

			if (rg.start == rg.end)
				continue;
			sop = stria_sop_alloc(r, rq, stripe, k, false);
			sop->ranges[i] = rg;
			sop->skip = skip;
			sop->repair = mi == skip;
			stria_rq_get(rq);
			stria_sop_start(sop);
		}
	}
	stria_rq_put(rq, BLK_STS_OK);
	return BLK_STS_OK;
}

/**
 * stria_raid56_sync_stripe() - background work on one stripe
 * @a: a RAID5 or RAID6 array
 * @stripe: the stripe
 * @op: what to do, see enum stria_sync_op
 * @mismatches: raised by the sectors of parity found wrong (CHECK, REPAIR);
 *	may be NULL otherwise
 *
 * One sop per slice of the stripe, all in flight at once, each under its
 * stripe lock like a write. Process context; sleeps until they are done.
 *
 * Return: 0, -EIO when a member failed a read or write, -ENODEV when the
 * members in sync do not allow @op (nothing is done then).
 */
static int stria_raid56_sync_stripe(struct stria_array *a, u64 stripe,
				    enum stria_sync_op op, u64 *mismatches)
{
	struct stria_raid56 *r = a->r56;
	u32 nf = atomic_read(&a->nr_failed), k;
	struct stria_r56_sync sync = { .op = op, .err = 0 };

	if (stripe >= a->geom.member_sectors >> a->geom.chunk_shift)
		return -ENODEV;
	if (op == STRIA_SYNC_OP_REPLACE) {
		if (a->repl_role == STRIA_NO_MEMBER ||
		    !stria_member_in_sync(&a->members[a->repl_role]) ||
		    READ_ONCE(a->repl.state) != STRIA_STATE_REPLACEMENT)
			return -ENODEV;
	} else if (nf > r->np || (op == STRIA_SYNC_OP_REBUILD ?
				  !stria_array_rebuilding_roles(a) : nf)) {
		return -ENODEV;
	}
	atomic_set(&sync.pending, r->nr_slices);
	atomic64_set(&sync.mismatches, 0);
	init_completion(&sync.done);
	for (k = 0; k < r->nr_slices; k++) {
		struct stria_sop *sop = stria_sop_alloc(r, NULL, stripe, k,
							false);

		sop->sync = &sync;
		stria_sop_start(sop);
	}
	wait_for_completion(&sync.done);
	if (mismatches)
		*mismatches += atomic64_read(&sync.mismatches);
	return READ_ONCE(sync.err);
}

static blk_status_t stria_raid56_queue_rq(struct stria_array *a,
					  struct request *rq)
{
	switch (req_op(rq)) {
	case REQ_OP_READ:
		return stria_r56_read(a, rq);
	case REQ_OP_WRITE:
		return stria_r56_write(a, rq);
	default:
		/* discard and write-zeroes would need parity updates */
		return BLK_STS_NOTSUPP;
	}
}

/* ---- setup ------------------------------------------------------------ */

static void stria_raid56_limits(struct stria_array *a,
				struct queue_limits *lim)
{
	u32 stripe = stria_geom_stripe_sectors(&a->geom);
	u32 io = min(stripe, STRIA_R56_MAX_IO_SECTORS);

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
	lim->max_discard_sectors = 0;
	lim->max_hw_discard_sectors = 0;
	lim->discard_granularity = 0;
	lim->max_write_zeroes_sectors = 0;
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
	mempool_destroy(r->page_pool);
	mempool_destroy(r->sop_pool);
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
	r->rmw_ok = r->np == 1 || raid6_call.xor_syndrome;
	mutex_init(&r->reserve_lock);

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
	r->sop_pool = mempool_create_node(1, mempool_kmalloc, mempool_kfree,
					  (void *)r->sop_size, GFP_KERNEL,
					  a->node);
	r->page_pool = mempool_create_node(2 * n * r->slice_pages,
					   mempool_alloc_pages,
					   mempool_free_pages, (void *)0,
					   GFP_KERNEL, a->node);
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
	}
	r->wq = alloc_workqueue("stria%d_r56", WQ_HIGHPRI | WQ_MEM_RECLAIM, 0,
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
};

const struct stria_level_ops stria_raid6_ops = {
	.level		= 6,
	.name		= "raid6",
	.queue_rq	= stria_raid56_queue_rq,
	.init		= stria_raid56_init,
	.exit		= stria_raid56_exit,
	.limits		= stria_raid56_limits,
	.sync_stripe	= stria_raid56_sync_stripe,
};
