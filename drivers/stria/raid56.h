/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stria RAID5/6: the state the files of the level share, and the functions
 * they call across files: raid56.c (requests, setup, ops tables),
 * raid56_lock.c (a sop's allocation, stripe lock, merge and end),
 * raid56_sop.c (what a sop does under its lock: member I/O, compute,
 * writes), raid56_buf.c (buffers, parity, plans) and raid56_sync.c
 * (background sync of a stripe).
 */
#ifndef STRIA_RAID56_H
#define STRIA_RAID56_H

#include <linux/blk-mq.h>
#include <linux/hrtimer.h>
#include <linux/local_lock.h>
#include <linux/mempool.h>
#include <linux/mm.h>
#include <linux/workqueue.h>

#include "stria.h"
#include "parity_plan.h"
#include "raid6_locate.h"

#define STRIA_R56_SLICE_SECTORS	128U	/* 64 KiB of columns per sop */
#define STRIA_R56_PAGE_SECTORS	(PAGE_SIZE >> SECTOR_SHIFT)
#define STRIA_R56_CACHE_PAGES	64U	/* per CPU */
#define STRIA_R56_BUCKETS_PER_CPU 64U
#define STRIA_R56_MAX_IO_SECTORS 16384U	/* 8 MiB: largest request */

/* the two buffers a member has in a sop */
#define STRIA_R56_NEW	0U	/* data to write, or the new parity */
#define STRIA_R56_OLD	1U	/* what was read from the member */
/* not a buffer: zeroes, by the member's write-zeroes or the zero page */
#define STRIA_R56_ZERO	2U

/*
 * Sops a discard or write-zeroes request is cut into, at most (about): its
 * size limit is as many whole stripes as fit in this many slices, one
 * stripe at least (stria_r56_zero_stripes())
 */
#define STRIA_R56_ZERO_SOPS	16U

/* write requests of a CPU remembered to tell a sequential write */
#define STRIA_R56_STREAMS	4U

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
 * @mem_retries: requests handed back to blk-mq (BLK_STS_RESOURCE) because
 *	their stripe operations could not be allocated without waiting
 * @mem_deferred: stripe operations whose pages could not be had without
 *	waiting in queue_rq, continued by the workqueue
 * @zeroed: slices of stripes that discard or write-zeroes requests covered
 *	whole, written as zeroes to every member, parity included
 * @zero_pages: of those, members written with the zero page because they
 *	lack write-zeroes or refused it
 * @spread: full-stripe writes handed by a submitting CPU busy with others
 *	to the work of an idle CPU (spread_writes)
 * @bio_reserve: sets of member bios (a sop's reads, or its writes) taken
 *	from the array's bio reserve because the allocator had none at once
 * @bio_deferred: sets of member bios queue_rq could not have at once,
 *	handed to the sop's CPU's work, which may wait for the reserve
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
	u64 mem_retries;
	u64 mem_deferred;
	u64 zeroed;
	u64 zero_pages;
	u64 spread;
	u64 bio_reserve;
	u64 bio_deferred;
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
 * @sop_cache: the slab of sops (stria<N>_sop)
 * @sop_pool: sops, the most one request needs (@np * @nr_slices) reserved
 * @page_pool: pages, one sop's worth reserved
 * @reserve_lock: one sop at a time allocates from @page_pool's reserve
 * @max_bios: the most member bios one set of a sop (its reads, or its
 *	writes) needs: a bio per run of segments per member, and the
 *	replacement's copies, STRIA_PARITY_ROW_SEGS * (members + 1)
 * @bio_reserve: member bios and their bvecs, @max_bios of each reserved
 * @bio_lock: one sop at a time allocates a set from @bio_reserve
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
	struct kmem_cache *sop_cache;
	mempool_t *sop_pool;
	mempool_t *page_pool;
	struct mutex reserve_lock;
	u32 max_bios;
	struct bio_set bio_reserve;
	struct mutex bio_lock;
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
 * @lock: protects @loc
 * @loc: RAID6 REPAIR, first pass: where P and Q differ, over the slices
 * @fix_member: RAID6 REPAIR, second pass: the one member @loc named, to
 *	rewrite; STRIA_GEOM_NONE otherwise
 * @raced: second pass: a slice no longer names @fix_member (a write came
 *	between the passes) and was left as it is
 */
struct stria_r56_sync {
	enum stria_sync_op op;
	atomic_t pending;
	int err;
	atomic64_t mismatches;
	struct completion done;
	spinlock_t lock;
	struct stria_locate loc;
	u32 fix_member;
	bool raced;
};

enum stria_sop_phase {
	STRIA_SOP_LOCK_WAIT,
	STRIA_SOP_READING,
	STRIA_SOP_WRITING,
	STRIA_SOP_BIO_WAIT,
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
 * @spread_cpu: the CPU whose work computes it instead of its submitting
 *	CPU (stria_sop_spread()), or -1
 * @key: lock key, stripe and slice
 * @stripe: stripe number
 * @cpu: the submitting CPU; work runs there
 * @phase: what @work does next
 * @may_wait: it runs in a work item or the sync thread, which may wait for
 *	the bio reserve; not in queue_rq
 * @io_masks: with @phase STRIA_SOP_BIO_WAIT: the members and segments of
 *	the set of bios @work allocates and sends (stria_sop_bios())
 * @io_which: with it, the buffer they read into or write from
 * @io_opf: with it, their operation and flags
 * @write: a write (else a degraded read)
 * @zeroes: a write of zeroes (a discard or write-zeroes request): the new
 *	data is zeroes, not copied from the request
 * @zero_full: @zeroes over every column of the slice of every member: no
 *	parity to compute (zeroes have zero P and Q), every member gets
 *	write-zeroes (the zero page where it lacks them, @zretry)
 * @nounmap: the write-zeroes request said REQ_NOUNMAP: passed on
 * @zretry: members whose write-zeroes of @zero_full failed as not
 *	supported: written again with the zero page before the sop ends
 * @skip: a member in sync whose read failed, read around like a failed
 *	one, or STRIA_GEOM_NONE
 * @repair: a read that rebuilds @skip's data, and writes it back there
 * @fix: members in sync whose reads for this sop failed: their columns are
 *	rebuilt from the others like a failed member's and written back to
 *	them (a write, a rebuild, a check or repair)
 * @bad: members whose reads failed in the reads just done, for the
 *	process context to judge (stria_sop_read_errors())
 * @skipped: members this write left out because they failed: its
 *	requests are acknowledged once the superblocks record them
 * @owed: the stripe owes a resync: its parity is not trusted
 * @missing: members whose data the plan rebuilds instead of reading: out
 *	of sync when it was made, @skip and @fix
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
	int spread_cpu;
	u64 key;
	u64 stripe;
	int cpu;
	enum stria_sop_phase phase;
	bool may_wait;
	u64 io_masks[STRIA_PARITY_ROW_SEGS];
	u32 io_which;
	stria_opf_t io_opf;
	bool write;
	bool zeroes;
	bool zero_full;
	bool nounmap;
	atomic64_t zretry;
	u32 skip;
	bool repair;
	u64 fix;
	atomic64_t bad;
	atomic64_t skipped;
	bool owed;
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

/*
 * Whole stripes a discard or write-zeroes request may cover (its queue
 * limit): as many as fit in STRIA_R56_ZERO_SOPS slices, one at least. Such
 * a request may touch one stripe more, in part, at either end.
 */
static inline u32 stria_r56_zero_stripes(const struct stria_raid56 *r)
{
	return max(STRIA_R56_ZERO_SOPS / r->nr_slices, 1U);
}

/* raid56_lock.c */
struct stria_sop *stria_sop_alloc(struct stria_raid56 *r, struct request *rq,
				  u64 stripe, u32 slice, bool write, gfp_t gfp);
void stria_sop_start(struct stria_sop *sop, struct list_head *filled,
		     bool wait);
bool stria_sop_full(const struct stria_sop *sop);
void stria_sop_busy(struct stria_sop *sop);
void stria_sop_run_parked(struct stria_sop *sop, bool wait);
void stria_sop_done(struct stria_sop *sop);

/* raid56_sop.c */
void stria_sop_run(struct stria_sop *sop, bool wait);
void stria_sop_work(struct work_struct *work);
void stria_sop_write(struct stria_sop *sop, const u64 *masks, u32 which,
		     stria_opf_t opf);
void stria_sop_old_to_new(struct stria_sop *sop, u32 m, u32 s, u32 e);

/* raid56_sync.c */
void stria_sop_sync_compute(struct stria_sop *sop);
int stria_raid56_sync_stripe(struct stria_array *a, u64 stripe,
			     enum stria_sync_op op, u64 *mismatches);

/* raid56_buf.c */
void stria_sop_want(struct stria_sop *sop, u32 which, u32 m, u32 s, u32 e);
bool stria_sop_alloc_pages(struct stria_sop *sop, bool wait);
void stria_sop_free_pages(struct stria_sop *sop);
void stria_sop_copy(struct stria_sop *sop, struct request *rq, u32 which,
		    u32 i, u32 s, u32 e, bool to_buf);
void stria_sop_zero_fill(struct stria_sop *sop, u32 which, u32 m, u32 s,
			 u32 e);
void stria_sop_gen(struct stria_sop *sop, u32 s, u32 e, u64 written);
void stria_sop_rmw(struct stria_sop *sop, u32 s, u32 e, u64 written);
void stria_sop_rebuild(struct stria_sop *sop, u32 s, u32 e);
bool stria_seg_needs_rebuild(struct stria_sop *sop,
			     const struct stria_parity_seg *sg);
u64 stria_seg_reads(struct stria_sop *sop, const struct stria_parity_seg *sg);
void stria_sop_plan(struct stria_sop *sop, bool degraded);

#endif /* STRIA_RAID56_H */
