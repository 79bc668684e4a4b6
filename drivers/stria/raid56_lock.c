// SPDX-License-Identifier: GPL-2.0
/*
 * stria RAID5/6 stripe lock and write merge: a stripe operation (sop)
 * from its allocation (stria_sop_alloc()) to its end (stria_sop_done()),
 * around its (stripe, slice) lock. stria_sop_start() looks the key up in
 * the array's hashed lock table: it takes the lock and runs the sop, or
 * queues it on the sop that holds it, or merges it into that sop when the
 * holder is a parked partial-stripe write this one continues. A
 * sequential write that starts a stripe without filling it parks, holding
 * its lock, while its writer is not waiting for it and for at most
 * merge_wait_us per write merged; a timer watches it. At its end a sop
 * hands its lock to the first waiter and ends its requests, those of the
 * sops merged into it too.
 *
 * Layer: the levels, RAID5/6 (Documentation/stria/layers.rst). Called by
 * the requests of raid56.c and by the background sync of raid56_sync.c;
 * runs the sops that hold their lock (stria_sop_run()); calls the member
 * I/O services for the requests' ends.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blk-mq.h>
#include <linux/hash.h>
#include <linux/hrtimer.h>
#include <linux/mempool.h>
#include <linux/moduleparam.h>

#include "raid56.h"

static unsigned int merge_wait_us = 50000;
module_param(merge_wait_us, uint, 0644);
MODULE_PARM_DESC(merge_wait_us,
		 "RAID5/6: a sequential partial-stripe write that starts a stripe waits for the writes that fill it while its writer is not waiting for it, at most this long for each next one (microseconds; 0 = never wait; default 50000)");

/* how often a parked sop looks whether its writer waits for it */
#define STRIA_R56_PARK_POLL_NS	(100 * NSEC_PER_USEC)
/* a CPU's record of parks: +1 for one that merged, -2 for one that did not */
#define STRIA_R56_SCORE_MAX	8
#define STRIA_R56_SCORE_MIN	(-8)
/* with a failing record, one lone sequential tail in this many parks */
#define STRIA_R56_PROBE		16U

/* ---- the stripe lock -------------------------------------------------- */

static struct stria_r56_bucket *stria_sop_bucket(struct stria_sop *sop)
{
	struct stria_raid56 *r = sop->r;

	return &r->buckets[hash_64(sop->key, r->bucket_bits)];
}

/**
 * stria_sop_full() - does a write fill its slice?
 * @sop: a write sop
 *
 * Return: true when the write covers every column of its slice of every
 * data chunk.
 */
bool stria_sop_full(const struct stria_sop *sop)
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
 * Never a polled write: its writer polls, never sleeps, so the park would
 * last all of merge_wait_us.
 */
static bool stria_sop_should_park(const struct stria_sop *sop)
{
	struct stria_r56_stream *st = per_cpu_ptr(sop->r->streams, sop->cpu);
	u32 i, probe;

	if (!sop->seq || !READ_ONCE(merge_wait_us) || !sop->write ||
	    sop->sync || stria_rq_polled(sop->rq) ||
	    atomic_read(&sop->r->a->nr_failed) ||
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

/**
 * stria_sop_busy() - count a write sop among its CPU's writes in flight
 * @sop: a write sop
 */
void stria_sop_busy(struct stria_sop *sop)
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

/**
 * stria_sop_run_parked() - run a sop that was parked
 * @sop: the sop, no longer parked, holding its stripe lock
 * @wait: the caller may wait for memory (see stria_sop_run())
 *
 * Run a sop that was parked: its timer may still be running (it cancels
 * itself when it finds the sop gone on), and its writer is let go.
 * Process context.
 */
void stria_sop_run_parked(struct stria_sop *sop, bool wait)
{
	hrtimer_cancel(&sop->park);
	sop->timed = false;
	if (sop->writer)
		put_task_struct(sop->writer);
	sop->writer = NULL;
	stria_sop_run(sop, wait);
}

/**
 * stria_sop_start() - take a sop's stripe lock and run it
 * @sop: a sop from stria_sop_alloc()
 * @filled: where a parked sop this one fills goes, or NULL to run it here
 * @wait: the caller may wait for memory (see stria_sop_run())
 *
 * Take the stripe lock and run, or wait on the sop that holds it, or merge
 * into it when it is a parked partial write this one continues. A parked
 * sop the merge fills runs at once, or, with @filled, is put there for the
 * caller to run once it has started the rest of its request: running one
 * takes long enough (copies, parity) that the parks of the request's later
 * slices would run out of merge_wait_us meanwhile. @wait: the caller may
 * wait for memory (not queue_rq, see stria_sop_run()).
 *
 * Once the bucket lock is released, a sop that waits, merged or parked is
 * another CPU's to run, end and free: only what was read before is used
 * after it (the sop's array, CPU and busy count). A parked sop the merge
 * filled is the caller's, as nobody else runs a sop that is not parked.
 */
void stria_sop_start(struct stria_sop *sop, struct list_head *filled,
		     bool wait)
{
	struct stria_r56_bucket *b = stria_sop_bucket(sop);
	struct stria_raid56 *r = sop->r;
	int cpu = sop->cpu;
	struct stria_sop *owner;
	unsigned long flags;
	bool park, busy;

	/*
	 * Once the bucket lock is let go, @sop may be gone: merged, it is
	 * freed with the owner that runs it; waiting, it may be handed the
	 * lock, run and end; parked, its timer may send it on. What is
	 * needed after the lock comes from these copies.
	 */
	spin_lock_irqsave(&b->lock, flags);
	hlist_for_each_entry(owner, &b->busy, hnode) {
		struct stria_r56_stream *ost;
		bool merged = false, full = false;

		if (owner->key != sop->key)
			continue;
		ost = per_cpu_ptr(r->streams, owner->cpu);
		if (sop->write && !sop->sync && !sop->zeroes) {
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
			busy = sop->busy;
			sop->busy = false;
			spin_unlock_irqrestore(&b->lock, flags);
			stria_test_delay(STRIA_DELAY_SOP_MERGED);
			this_cpu_inc(r->stats->merged);
			if (busy)
				stria_r56_cpu_unbusy(r, cpu);
			if (full) {
				stria_sop_busy(owner);
				if (filled)
					/* unparked: park_entry is free */
					list_add_tail(&owner->park_entry, filled);
				else
					stria_sop_run_parked(owner, wait);
			}
			return;
		}
		list_add_tail(&sop->wait_entry, &owner->waiters);
		spin_unlock_irqrestore(&b->lock, flags);
		stria_test_delay(STRIA_DELAY_SOP_WAIT);
		this_cpu_inc(r->stats->lock_waits);
		return;
	}
	hlist_add_head(&sop->hnode, &b->busy);
	park = stria_sop_should_park(sop);
	if (park) {
		struct stria_r56_stream *st = per_cpu_ptr(r->streams, cpu);

		stria_hrtimer_setup(&sop->park, stria_sop_park_poll,
				    CLOCK_MONOTONIC, HRTIMER_MODE_REL);
		sop->timed = true;
		sop->park_limit = ktime_add_us(ktime_get(),
					       READ_ONCE(merge_wait_us));
		if (in_task() && !(current->flags & PF_KTHREAD)) {
			get_task_struct(current);
			sop->writer = current;
		}
		/*
		 * Not busy from here: the timer may send it on (busy again)
		 * as soon as it is on the list; its CPU's count drops below.
		 */
		busy = sop->busy;
		sop->busy = false;
		spin_lock(&st->lock);
		sop->parked = true;
		list_add_tail(&sop->park_entry, &st->parked);
		spin_unlock(&st->lock);
		hrtimer_start(&sop->park, ns_to_ktime(STRIA_R56_PARK_POLL_NS),
			      HRTIMER_MODE_REL);
	}
	spin_unlock_irqrestore(&b->lock, flags);
	if (park) {
		stria_test_delay(STRIA_DELAY_SOP_PARKED);
		/* parked, it waits only while its CPU has others in flight */
		if (busy)
			stria_r56_cpu_unbusy(r, cpu);
	} else {
		stria_sop_run(sop, wait);
	}
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

/**
 * stria_sop_done() - end a sop
 * @sop: the sop, its I/O over
 *
 * Any context: the sop is over. Its pages and its stripe lock go back, it
 * and the sops merged into it are freed, and their requests (or the sync
 * call) are told.
 */
void stria_sop_done(struct stria_sop *sop)
{
	struct stria_raid56 *r = sop->r;
	struct stria_r56_sync *sync = sop->sync;
	struct request *rq = sop->rq;
	blk_status_t st = sop->status;
	struct stria_sop *c, *tmp;
	u64 skipped = atomic64_read(&sop->skipped);
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
		if (skipped)
			stria_rq_skipped(crq, skipped);
		stria_rq_put(crq, st);
	}
	if (skipped && rq)
		stria_rq_skipped(rq, skipped);
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

/**
 * stria_sop_alloc() - a new sop
 * @r: the array's RAID5/6 state
 * @rq: the request it serves, or NULL for a background sync
 * @stripe: the stripe
 * @slice: the slice of the stripe
 * @write: a write (else a degraded read or a sync)
 * @gfp: how to allocate: GFP_NOWAIT in queue_rq
 *
 * A sop for slice @slice of stripe @stripe of @rq. Process context. With
 * GFP_NOWAIT (queue_rq, which must not wait for memory: see
 * stria_sop_alloc_pages()) it may fail; the reserve holds what one request
 * needs, and comes back as the sops in flight end.
 *
 * Return: the sop, or NULL (only when @gfp may not wait).
 */
struct stria_sop *stria_sop_alloc(struct stria_raid56 *r, struct request *rq,
				  u64 stripe, u32 slice, bool write, gfp_t gfp)
{
	struct stria_sop *sop = mempool_alloc(r->sop_pool, gfp);
	u32 i;

	if (!sop)
		return NULL;
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
	sop->spread_cpu = -1;
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
