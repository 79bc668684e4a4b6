// SPDX-License-Identifier: GPL-2.0
/*
 * stria I/O path: the blk-mq side of RAID5/6, and what every level shares
 * (freezes; member state changes are in state.c, polling in poll.c).
 * RAID0 is bio-based: raid0.c.
 *
 * Layer: services, member I/O (Documentation/stria/layers.rst): the levels
 * and the lifecycle call it; it calls services and the recorded state.
 *
 * queue_rq() runs on the CPU that submitted the request, in the submitting
 * task. Submitting a clone to a member may sleep (the member may have to
 * wait for a free tag, like any submit_bio() caller), so the tag set is
 * BLK_MQ_F_BLOCKING: blk-mq protects dispatch with SRCU instead of RCU and
 * still calls queue_rq() directly from the submitter; only queue runs
 * started from atomic context (e.g. a restart after a completion) go
 * through kblockd. The level
 * (raid56.c) maps it to one or more member ranges; for each, a clone bio
 * sharing the request's pages is prepared from the array's bio_set without
 * sleeping. Only when all clones exist is the request started and the clones
 * submitted, so a failed allocation returns BLK_STS_RESOURCE with nothing in
 * flight and blk-mq retries later. The last clone to complete ends the
 * request from the member's completion context: no worker thread, no lock,
 * only an atomic count in the request's PDU.
 *
 * A flush goes to every member; FUA stays on the one write that carries it.
 *
 * A RAID5/6 write (or flush) that skipped a member because it has failed,
 * or whose write to a member failed, is not acknowledged until the
 * superblocks of the other members record the failure: a crash before
 * that would bring the member back in sync with the chunks the write did
 * not give it, and the resync would then compute the parity from them. Such
 * a request is held on the array's list once its parts are done, and the
 * superblock writer ends it (stria_release_held()). Nothing on that path
 * waits for array I/O. A request that skipped nothing, the common case,
 * only reads its own PDU: no lock, nothing shared.
 *
 * Requests of the array's own flush sequence (RQF_FLUSH_SEQ) are the one
 * exception to ending inline: a member completes a flush from its
 * flush_end_io() with its flush queue's lock held, and ending our request
 * there would take our flush queue's lock of the same lock class inside it
 * (lockdep: possible recursive locking). They are ended from an irq_work
 * on the same CPU instead, once the member's lock is released.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/blk-crypto.h>
#include <linux/blk-mq.h>
#include <linux/irq_work.h>
#include <linux/moduleparam.h>
#include <linux/cpumask.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>
#include <linux/topology.h>

#include "stria.h"
#include "trace.h"

static unsigned int max_read_repairs = 20;
module_param(max_read_repairs, uint, 0644);
MODULE_PARM_DESC(max_read_repairs,
		 "recent failed reads a member in sync may have rebuilt (RAID5/6) or read from another copy (RAID1/10) and written back before it is failed (count, see read_error_decay_s; default 20, as md's max_corrected_read_errors)");

static unsigned int read_error_decay_s = 3600;
module_param(read_error_decay_s, uint, 0644);
MODULE_PARM_DESC(read_error_decay_s,
		 "a member's count of recent read errors, which max_read_repairs bounds, is halved for each such period since its last read error (seconds; default 3600, as md)");

/**
 * struct stria_cmd - per-request state (the blk-mq PDU)
 * @pending: clones in flight
 * @status: first error seen, BLK_STS_OK otherwise
 * @end_work: ends a flush-sequence request outside the member's flush lock
 * @retry: a RAID5/6 member failed a read of this request; once everything
 *	in flight is back the request is queued again and the level reads
 *	around the failed member
 * @repair: role + 1 of a member in sync that failed a read of this
 *	request and is kept: on RAID5/6 the request, queued again, rebuilds
 *	that member's part and writes it back there; on RAID1/10 the level
 *	writes another copy's data back there first (repair_read), then the
 *	request is queued again; 0 for none. Kept across the requeue
 *	(RQF_DONTPREP marks a request seen before)
 * @wib_held: a write holds its regions of the write-intent bitmap
 *	(stria_rq_bitmap_begin_ranges()) until it ends; kept across a requeue
 * @wib_ranges: in how many runs of regions: one on RAID5/6, one per copy
 *	far apart on RAID10 (its far layouts)
 * @wib_region: the first region of each run
 * @wib_nr: how many regions each run has: one for a RAID5/6 write, more
 *	for a discard or write-zeroes over stripes of several regions
 * @skipped: roles of the members a RAID5/6 write or flush left out because
 *	they failed: it is acknowledged once the superblocks record them
 * @held_entry: on the array's list of held requests
 * @write_held: a RAID5/6 write is counted by safe mode
 *	(stria_safe_write_start()) until it ends; kept across a requeue
 * @counted: counters the request is counted in until it ends or is sent
 *	back (stria_rq_count_inflight()): a RAID1/10 read's count of the
 *	reading CPU's reads to its copy, a RAID1/10 write's barrier slots
 *	(raid10.c)
 * @inline_used: @inline_clone carries this request's clone
 * @inline_clone: the clone of a request's first bio, so the common request
 *	(one bio, one member) allocates nothing; further clones come from the
 *	array's bio_set
 */
struct stria_cmd {
	atomic_t pending;
	blk_status_t status;
	struct irq_work end_work;
	bool retry;
	u32 repair;
	bool wib_held;
	u32 wib_ranges;
	u32 wib_region[STRIA_WIB_RANGES];
	u32 wib_nr[STRIA_WIB_RANGES];
	atomic64_t skipped;
	struct list_head held_entry;
	bool write_held;
	atomic_t *counted[2];
	bool inline_used;
	struct stria_clone inline_clone;
};

/* Release a clone: bio_uninit() for the inline one, bio_put() otherwise. */
static void stria_clone_release(struct bio *bio)
{
	struct stria_clone *c = container_of(bio, struct stria_clone, bio);
	struct stria_cmd *cmd = blk_mq_rq_to_pdu(c->rq);

	if (c == &cmd->inline_clone)
		bio_uninit(bio);
	else
		bio_put(bio);
}

static void stria_end_work(struct irq_work *work)
{
	struct stria_cmd *cmd = container_of(work, struct stria_cmd, end_work);

	blk_mq_end_request(blk_mq_rq_from_pdu(cmd), READ_ONCE(cmd->status));
}

/* The recent read errors of @v (stria_member.read_errors) at @now. */
static u32 stria_read_errors_at(u64 v, u32 now)
{
	u32 period = max(READ_ONCE(read_error_decay_s), 1U);
	u32 halvings = (now - (u32)(v >> 32)) / period;

	return halvings >= 32 ? 0 : (u32)v >> halvings;
}

/**
 * stria_member_read_errors() - a member's recent read errors
 * @m: the member
 *
 * Return: its count of read errors, halved for each read_error_decay_s
 * since the last one.
 */
u32 stria_member_read_errors(const struct stria_member *m)
{
	return stria_read_errors_at(atomic64_read(&m->read_errors),
				    (u32)ktime_get_seconds());
}

/**
 * stria_member_read_error() - count a failed read of a member in sync
 * @m: a member in sync whose read failed
 *
 * Any context. As md's check_decay_read_errors(): the count of recent
 * read errors is halved for each read_error_decay_s since the last one,
 * then raised. Within max_read_repairs the data is to be rebuilt from the
 * other members (RAID5/6) or read from another copy (RAID1/10) and written
 * back (counted in @m->read_repairs); beyond,
 * the member is to be failed.
 *
 * Return: true when the read may be repaired.
 */
bool stria_member_read_error(struct stria_member *m)
{
	u32 now = (u32)ktime_get_seconds(), n;
	u32 max = READ_ONCE(max_read_repairs);
	s64 old = atomic64_read(&m->read_errors);

	do {
		n = stria_read_errors_at(old, now);
		if (n < U32_MAX)
			n++;
	} while (!atomic64_try_cmpxchg(&m->read_errors, &old,
				       (s64)(((u64)now << 32) | n)));
	if (n <= max) {
		atomic64_inc(&m->read_repairs);
		return true;
	}
	pr_warn_ratelimited("stria%d: member %u (%pg) failed more than %u reads\n",
			    m->array->index, m->role, m->dev.bdev, max);
	return false;
}

/**
 * stria_rq_repaired() - a RAID1/10 read's failed copy has been written back
 * @rq: the read, whose level's repair_read took it
 *
 * Process context. The read is queued again and reads any copy, as new.
 */
void stria_rq_repaired(struct request *rq)
{
	struct stria_cmd *cmd = blk_mq_rq_to_pdu(rq);

	cmd->repair = 0;
	blk_mq_requeue_request(rq, true);
}

/**
 * stria_rq_repair_member() - the member a read must rebuild or repair
 * @rq: a read request
 *
 * Return: the role of the member in sync that failed an earlier attempt of
 * @rq, whose part the request rebuilds and writes back; STRIA_GEOM_NONE
 * when there is none.
 */
u32 stria_rq_repair_member(struct request *rq)
{
	struct stria_cmd *cmd = blk_mq_rq_to_pdu(rq);

	return cmd->repair ? cmd->repair - 1 : STRIA_GEOM_NONE;
}

static void stria_cmd_drop_counts(struct stria_cmd *cmd)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(cmd->counted); i++) {
		if (cmd->counted[i])
			atomic_dec(cmd->counted[i]);
		cmd->counted[i] = NULL;
	}
}

/**
 * stria_rq_count_inflight() - count @rq in @counter until it ends
 * @rq: a request about to be sent, counted in at most one other counter
 * @counter: raised here, dropped when @rq ends or is sent back
 */
void stria_rq_count_inflight(struct request *rq, atomic_t *counter)
{
	struct stria_cmd *cmd = blk_mq_rq_to_pdu(rq);

	atomic_inc(counter);
	cmd->counted[cmd->counted[0] ? 1 : 0] = counter;
}

/**
 * stria_rq_drop_inflight() - drop @rq's counts now
 * @rq: a request counted by stria_rq_count_inflight()
 */
void stria_rq_drop_inflight(struct request *rq)
{
	stria_cmd_drop_counts(blk_mq_rq_to_pdu(rq));
}

/**
 * stria_rq_skipped() - a RAID5/6 write left members out
 * @rq: the write
 * @roles: the members (bit = role) it did not write because they failed
 *
 * Any context, before the part that saw it drops its reference.
 */
void stria_rq_skipped(struct request *rq, u64 roles)
{
	struct stria_cmd *cmd = blk_mq_rq_to_pdu(rq);

	atomic64_or(roles, &cmd->skipped);
}

/* Start @rq with @pending references on it. */
static void stria_rq_start(struct request *rq, unsigned int pending)
{
	struct stria_cmd *cmd = blk_mq_rq_to_pdu(rq);

	cmd->status = BLK_STS_OK;
	cmd->retry = false;
	atomic_set(&cmd->pending, pending);
	if (rq->rq_flags & RQF_FLUSH_SEQ)
		init_irq_work(&cmd->end_work, stria_end_work);
	blk_mq_start_request(rq);
}

/**
 * stria_rq_begin() - start a request whose parts are counted references
 * @rq: the request
 *
 * The caller holds one reference; it and every part (stria_rq_get()) are
 * dropped with stria_rq_put(), and the last one ends the request.
 */
void stria_rq_begin(struct request *rq)
{
	stria_rq_start(rq, 1);
}

/**
 * stria_rq_get() - count one more part of a request in flight
 * @rq: a request started with stria_rq_begin()
 */
void stria_rq_get(struct request *rq)
{
	struct stria_cmd *cmd = blk_mq_rq_to_pdu(rq);

	atomic_inc(&cmd->pending);
}

/*
 * A request ends, or was not started: let go of its counts
 * (stria_rq_count_inflight()), and a write of its bitmap region and of its
 * count in safe mode.
 */
static void stria_rq_let_go(struct stria_array *a, struct stria_cmd *cmd)
{
	u32 i, k;

	stria_cmd_drop_counts(cmd);
	if (cmd->wib_held) {
		for (k = 0; k < cmd->wib_ranges; k++)
			for (i = 0; i < cmd->wib_nr[k]; i++)
				stria_bitmap_write_end(a, cmd->wib_region[k] + i);
		cmd->wib_held = false;
	}
	if (cmd->write_held) {
		stria_safe_write_end(a);
		cmd->write_held = false;
	}
}

/* End @rq with @st: its parts are done, nothing holds it back. */
static void stria_rq_end(struct stria_array *a, struct request *rq,
			 blk_status_t st)
{
	struct stria_cmd *cmd = blk_mq_rq_to_pdu(rq);

	stria_rq_let_go(a, cmd);
	if (unlikely(st))
		this_cpu_inc(a->stats->errors);
	if (rq->rq_flags & RQF_FLUSH_SEQ) {
		WRITE_ONCE(cmd->status, st);
		irq_work_queue(&cmd->end_work);
	} else {
		blk_mq_end_request(rq, st);
	}
}

/*
 * Hold a done write that skipped members whose failure the superblocks on
 * the members do not record yet; stria_release_held() ends it. Any context.
 */
static bool stria_rq_hold(struct stria_array *a, struct request *rq)
{
	struct stria_cmd *cmd = blk_mq_rq_to_pdu(rq);
	u64 skipped = atomic64_read(&cmd->skipped);
	unsigned long flags;
	bool held = false;

	if (!(skipped & ~READ_ONCE(a->sb_failed_ondisk)))
		return false;
	spin_lock_irqsave(&a->held_lock, flags);
	if (skipped & ~a->sb_failed_ondisk) {
		list_add_tail(&cmd->held_entry, &a->held);
		held = true;
	}
	spin_unlock_irqrestore(&a->held_lock, flags);
	/* the failure queued an update; make sure one comes after this */
	if (held)
		queue_work(a->sb_wq, &a->sb_work);
	return held;
}

/**
 * stria_release_held() - the superblocks were written: end held writes
 * @a: the array
 * @landed: the superblock of at least one member was written; false when
 *	every write failed (or no member was left to write)
 * @ondisk: the failed roles the superblocks written record
 *
 * Process context; called by every superblock update, with @a->sb_lock
 * held. The held writes whose skipped members are all recorded now are
 * acknowledged. When the update reached no member nothing records their
 * failure, and nothing ever will: the held writes end with EIO.
 */
void stria_release_held(struct stria_array *a, bool landed, u64 ondisk)
{
	struct stria_cmd *cmd, *tmp;
	unsigned long flags;
	LIST_HEAD(done);

	spin_lock_irqsave(&a->held_lock, flags);
	if (landed)
		WRITE_ONCE(a->sb_failed_ondisk, ondisk);
	list_for_each_entry_safe(cmd, tmp, &a->held, held_entry) {
		if (landed && (atomic64_read(&cmd->skipped) & ~ondisk))
			continue;
		WRITE_ONCE(cmd->status, landed ? BLK_STS_OK : BLK_STS_IOERR);
		list_move_tail(&cmd->held_entry, &done);
	}
	spin_unlock_irqrestore(&a->held_lock, flags);
	list_for_each_entry_safe(cmd, tmp, &done, held_entry) {
		list_del_init(&cmd->held_entry);
		stria_rq_end(a, blk_mq_rq_from_pdu(cmd), READ_ONCE(cmd->status));
	}
}

/**
 * stria_rq_put() - one part of a request is done
 * @rq: the request
 * @st: the part's status; the first error is the request's
 *
 * Any context. The last part ends the request; or queues it again when a
 * RAID5/6 read failed on a member that is now failed and the array can
 * still reconstruct its data (EIO when it cannot: the data is lost); or
 * holds a write that skipped failed members until the superblocks record
 * them.
 */
void stria_rq_put(struct request *rq, blk_status_t st)
{
	struct stria_cmd *cmd = blk_mq_rq_to_pdu(rq);
	struct stria_array *a = rq->q->queuedata;

	if (unlikely(st))
		WRITE_ONCE(cmd->status, st);
	if (!atomic_dec_and_test(&cmd->pending))
		return;
	if (unlikely(READ_ONCE(cmd->retry))) {
		/* a mirror's copy failed a read: the level writes it back first */
		if (cmd->repair && a->ops->repair_read) {
			a->ops->repair_read(a, rq);
			return;
		}
		if (stria_geom_survives(&a->geom, stria_array_missing(a))) {
			blk_mq_requeue_request(rq, true);
			return;
		}
		/* the members it would be rebuilt from have failed too */
		WRITE_ONCE(cmd->status, BLK_STS_IOERR);
	}
	st = READ_ONCE(cmd->status);
	if (unlikely(atomic64_read(&cmd->skipped)) && !st &&
	    stria_rq_hold(a, rq))
		return;
	stria_rq_end(a, rq, st);
}

/* Let go of the @n runs of regions [@start[k], @end[k]) taken. */
static void stria_rq_bitmap_drop(struct stria_array *a, const u32 *start,
				 const u32 *end, u32 n)
{
	u32 i, k;

	for (k = 0; k < n; k++)
		for (i = start[k]; i < end[k]; i++)
			stria_bitmap_write_end(a, i);
}

/**
 * stria_rq_bitmap_begin_ranges() - hold a write's regions of the
 *	write-intent bitmap
 * @a: the array
 * @rq: a write request (or discard, write-zeroes), before it starts
 * @first: for each of @n ranges, the first member sector it writes
 * @last: and the last one (in the same stripe as @first for a RAID5/6
 *	write)
 * @n: ranges, 1 to STRIA_WIB_RANGES: the copies of a RAID10 far layout
 *	lie far apart on the members; ranges that share regions are held as
 *	one
 *
 * The regions are let go when the request ends. Nothing to do without a
 * bitmap, or when @rq holds its regions already (queued again).
 *
 * Return: true when the write may go on; false when a region's bit is
 * being written to the members: return BLK_STS_RESOURCE, the queue is run
 * again once it is there (the regions taken meanwhile are let go).
 */
bool stria_rq_bitmap_begin_ranges(struct stria_array *a, struct request *rq,
				  const u64 *first, const u64 *last, u32 n)
{
	struct stria_cmd *cmd = blk_mq_rq_to_pdu(rq);
	u32 start[STRIA_WIB_RANGES], end[STRIA_WIB_RANGES];
	u32 i, j, k, r0, r1, runs = 0;

	if (!a->wib || cmd->wib_held)
		return true;
	for (k = 0; k < n && k < STRIA_WIB_RANGES; k++) {
		r0 = stria_bitmap_region(a, first[k]);
		r1 = stria_bitmap_region(a, last[k]) + 1;
		for (j = 0; j < runs; j++) {
			if (r0 <= end[j] && start[j] <= r1) {
				start[j] = min(start[j], r0);
				end[j] = max(end[j], r1);
				break;
			}
		}
		if (j == runs) {
			start[runs] = r0;
			end[runs++] = r1;
		}
	}
	for (k = 0; k < runs; k++) {
		for (i = start[k]; i < end[k]; i++) {
			if (stria_bitmap_write_begin(a, i))
				continue;
			/* this run up to @i, and the runs before it */
			stria_rq_bitmap_drop(a, &start[k], &i, 1);
			stria_rq_bitmap_drop(a, start, end, k);
			return false;
		}
	}
	for (k = 0; k < runs; k++) {
		cmd->wib_region[k] = start[k];
		cmd->wib_nr[k] = end[k] - start[k];
	}
	cmd->wib_ranges = runs;
	cmd->wib_held = true;
	return true;
}

/*
 * Does the stripe of RAID5/6 request @rq owe a resync? Its parity may then
 * not match its data, and nothing may be rebuilt from it.
 */
static bool stria_rq_owed(struct stria_array *a, struct request *rq)
{
	u64 stripe = div_u64(blk_rq_pos(rq),
			     stria_geom_stripe_sectors(&a->geom));

	return stria_sync_owed(a, stripe << a->geom.chunk_shift);
}

/* A mirror keeps every chunk's data without member @m too. */
static bool stria_mirror_spares(struct stria_member *m)
{
	struct stria_array *a = m->array;

	return stria_geom_survives(&a->geom,
				   stria_array_missing(a) | BIT_ULL(m->role));
}

/*
 * A member in sync failed a read: keep it, and have the data rebuilt (RAID5/6)
 * or read from another copy (RAID1/10) and written back to it, as md does,
 * while the array can spare the member and it has not done this too often.
 */
static bool stria_read_repairable(struct stria_member *m, blk_status_t st)
{
	struct stria_array *a = m->array;
	bool spare_it = stria_geom_mirror(&a->geom) ? stria_mirror_spares(m) :
		(u32)atomic_read(&a->nr_failed) < stria_geom_nr_parity(&a->geom);

	/* read-only: nothing is written back */
	if (st == BLK_STS_NOTSUPP || st == BLK_STS_AGAIN ||
	    READ_ONCE(a->readonly) || !stria_member_in_sync(m) || !spare_it)
		return false;
	return stria_member_read_error(m);
}

/*
 * Member @m, now failed, failed a flush of @rq: on RAID5/6 the flush
 * succeeds while the array still has the redundancy to do without it, once
 * the superblocks record the failure (the request is held until then).
 */
static bool stria_flush_survives(struct request *rq, struct stria_member *m)
{
	struct stria_array *a = m->array;

	if (!stria_geom_redundant(&a->geom) || req_op(rq) != REQ_OP_FLUSH ||
	    !stria_geom_survives(&a->geom, stria_array_missing(a)))
		return false;
	stria_rq_skipped(rq, BIT_ULL(m->role));
	return true;
}

/* Member @m failed I/O of @rq with @st: the status @rq takes from it. */
static blk_status_t stria_member_failed_io(struct request *rq,
					   struct stria_member *m,
					   blk_status_t st)
{
	if (stria_member_io_error(m, st) && stria_flush_survives(rq, m))
		return BLK_STS_OK;
	return st;
}

static void stria_clone_endio(struct bio *bio)
{
	struct stria_clone *c = container_of(bio, struct stria_clone, bio);
	struct request *rq = c->rq;
	struct stria_cmd *cmd = blk_mq_rq_to_pdu(rq);
	struct stria_member *m = c->member;
	blk_status_t st = stria_member_bio_status(bio);

	if (unlikely(st) && stria_geom_redundant(&m->array->geom) &&
	    !op_is_write(bio_op(bio))) {
		if (!m->array->r56) {
			/* a mirror: repair the copy from another, or fail it */
			if (stria_read_repairable(m, st)) {
				atomic64_inc(&m->errors);
				cmpxchg(&cmd->repair, 0, m->role + 1);
				WRITE_ONCE(cmd->retry, true);
				st = BLK_STS_OK;
			} else if (!stria_mirror_spares(m)) {
				/* the last copy: kept, as md; this read fails */
				atomic64_inc(&m->errors);
			} else if (stria_member_io_error(m, st)) {
				WRITE_ONCE(cmd->retry, true);
				st = BLK_STS_OK;
			}
		} else if (st != BLK_STS_NOTSUPP && st != BLK_STS_AGAIN &&
		    stria_member_in_sync(m) && stria_rq_owed(m->array, rq)) {
			/* no trusted parity to rebuild from: EIO, keep it */
			atomic64_inc(&m->errors);
		} else if (stria_read_repairable(m, st)) {
			/* read it again, rebuilt from the other members */
			atomic64_inc(&m->errors);
			cmpxchg(&cmd->repair, 0, m->role + 1);
			WRITE_ONCE(cmd->retry, true);
			st = BLK_STS_OK;
		} else if (stria_member_io_error(m, st)) {
			WRITE_ONCE(cmd->retry, true);
			st = BLK_STS_OK;
		}
	} else if (unlikely(st) && m == &m->array->repl) {
		/* a mirror's replacement: the replace stops, the write stands */
		stria_repl_failed(m->array, st);
		st = BLK_STS_OK;
	} else if (unlikely(st)) {
		st = stria_member_failed_io(rq, m, st);
	}
	stria_clone_release(bio);
	stria_rq_put(rq, st);
}

static void stria_clone_init(struct bio *bio, struct request *rq,
			     struct stria_member *m, u64 sector,
			     struct bio_list *clones)
{
	struct stria_clone *c = container_of(bio, struct stria_clone, bio);

	c->rq = rq;
	c->member = m;
	bio->bi_iter.bi_sector = sector;
	bio->bi_end_io = stria_clone_endio;
	stria_bio_set_polled(bio, rq);
	bio_list_add(clones, bio);
}

/*
 * The flags of a data clone of @rq: the array's preflush is not the
 * member's (blk-mq's flush machinery has made it a request of its own),
 * FUA is the request's.
 */
static void stria_clone_flags(struct bio *bio, struct request *rq)
{
	bio->bi_opf &= ~(REQ_PREFLUSH | REQ_FUA);
	bio->bi_opf |= rq->cmd_flags & REQ_FUA;
	/*
	 * A mirror's write goes to every copy: one that ended it with EAGAIN
	 * while the others took it would leave them different. queue_rq()
	 * may sleep (BLK_MQ_F_BLOCKING), so the clone may wait for a tag.
	 */
	if (op_is_write(bio_op(bio)))
		bio->bi_opf &= ~REQ_NOWAIT;
}

/**
 * stria_clone_prepare() - prepare a clone of one of a request's bios
 * @a: the array
 * @rq: the request @src belongs to
 * @m: the member it goes to
 * @src: the request's bio
 * @sector: where on the member (absolute, data offset included)
 * @clones: list to add the clone to
 *
 * Does not sleep. The first clone of a request lives in its PDU; the others
 * come from the array's bio_set. FUA is taken from the request (blk-mq's
 * flush machinery has already turned a preflush into a separate flush
 * request).
 *
 * Return: 0, or -ENOMEM.
 */
int stria_clone_prepare(struct stria_array *a, struct request *rq,
			struct stria_member *m, struct bio *src, u64 sector,
			struct bio_list *clones)
{
	struct stria_cmd *cmd = blk_mq_rq_to_pdu(rq);
	struct bio *bio = NULL;

	if (!cmd->inline_used &&
	    !stria_bio_init_clone(m->dev.bdev, &cmd->inline_clone.bio, src,
				  GFP_NOWAIT)) {
		cmd->inline_used = true;
		bio = &cmd->inline_clone.bio;
	}
	if (!bio)
		bio = stria_bio_alloc_clone(m->dev.bdev, src, GFP_NOWAIT,
					    &a->bioset);
	if (!bio)
		return -ENOMEM;
	stria_clone_flags(bio, rq);
	stria_clone_init(bio, rq, m, sector, clones);
	return 0;
}

/**
 * stria_rq_to_member() - send a whole request to one place on one member
 * @a: the array
 * @rq: a read or write request
 * @m: the member holding all of it
 * @base: where the request's first sector lives on @m (absolute)
 *
 * Every bio of @rq is cloned to @m (the first one in the PDU), the request
 * is counted and started, and the clones go out.
 *
 * Return: BLK_STS_OK, or BLK_STS_RESOURCE with nothing sent (@rq is not
 * started).
 */
blk_status_t stria_rq_to_member(struct stria_array *a, struct request *rq,
				struct stria_member *m, u64 base)
{
	struct bio_list clones = BIO_EMPTY_LIST;
	sector_t pos = blk_rq_pos(rq);
	struct bio *bio;

	__rq_for_each_bio(bio, rq) {
		if (stria_clone_prepare(a, rq, m, bio,
					base + (bio->bi_iter.bi_sector - pos),
					&clones)) {
			stria_clones_drop(&clones);
			return BLK_STS_RESOURCE;
		}
	}
	trace_stria_map(a->index, (__force u32)req_op(rq), pos,
			blk_rq_sectors(rq), m->role, base);
	stria_count_io(a, rq);
	stria_clones_submit(rq, &clones);
	return BLK_STS_OK;
}

/**
 * stria_clone_prepare_empty() - prepare a bio without data for a member
 * @a: the array
 * @rq: the request it serves
 * @m: the member it goes to
 * @opf: operation and flags (flush, discard, write-zeroes, ...)
 * @sector: where on the member (absolute)
 * @nr_sectors: length; 0 for a flush
 * @clones: list to add the bio to
 *
 * Return: 0, or -ENOMEM.
 */
int stria_clone_prepare_empty(struct stria_array *a, struct request *rq,
			      struct stria_member *m, stria_opf_t opf,
			      u64 sector, u64 nr_sectors,
			      struct bio_list *clones)
{
	struct bio *bio;

	bio = stria_bio_alloc_bioset(m->dev.bdev, 0, opf, GFP_NOWAIT,
				     &a->bioset);
	if (!bio)
		return -ENOMEM;
	bio->bi_iter.bi_size = nr_sectors << SECTOR_SHIFT;
	stria_clone_init(bio, rq, m, sector, clones);
	return 0;
}

/**
 * stria_clones_drop() - free prepared clones that were never submitted
 * @clones: the list
 */
void stria_clones_drop(struct bio_list *clones)
{
	struct bio *bio;

	while ((bio = bio_list_pop(clones)))
		stria_clone_release(bio);
}

/*
 * queue_rq() is often called while blk-mq flushes the submitting task's
 * plug into this queue. A clone submitted then would be added to that same
 * half-flushed plug (blk_add_rq_to_plug() then dereferences a request that
 * is no longer on the list), so clones go out with no plug: the member's
 * queue issues them directly. The plug is taken away with
 * stria_plug_detach(): submit_bio_noacct() may reschedule, and a context
 * switch must not find a plug time cached (6.9+) with no plug to clear it
 * in.
 *
 * Nor do they go on current->bio_list when queue_rq() runs inside the
 * submitter's submit_bio() (a direct issue, or a plug flushed there as
 * the next request is added): that list may hold the rest of a bio
 * blk_mq_submit_bio() split for this queue, which comes off it first and
 * waits in bio_queue_enter() while the queue is frozen, and the freeze
 * would wait for good for the request whose member I/O is queued behind
 * it (tests/sync/012-freeze-split-io). With the list hidden they are
 * submitted now, each with a list of its own, as they are when kblockd
 * runs queue_rq(): one level of recursion per stacked device, no more.
 */
static void stria_submit_unplugged(struct bio_list *clones)
{
	struct blk_plug *plug = stria_plug_detach();
	struct bio_list *on_stack = current->bio_list;
	struct bio *bio;

	current->bio_list = NULL;
	while ((bio = bio_list_pop(clones)))
		submit_bio_noacct(bio);
	current->bio_list = on_stack;
	stria_plug_attach(plug);
}

/**
 * stria_bio_submit() - send one bio to a member, outside any plug
 * @bio: the bio
 *
 * See stria_submit_unplugged() for why there is no plug.
 */
void stria_bio_submit(struct bio *bio)
{
	struct bio_list one = BIO_EMPTY_LIST;

	bio_list_add(&one, bio);
	stria_submit_unplugged(&one);
}

/**
 * stria_clone_submit_part() - send part of one of a request's bios
 * @a: the array
 * @rq: a request started with stria_rq_begin()
 * @m: the member it goes to
 * @src: the request's bio
 * @skip: sectors of @src before the part
 * @len: sectors in the part
 * @sector: where on the member (absolute, data offset included)
 *
 * Process context; may sleep for memory, never fails (the bio_set has a
 * rescuer). FUA is taken from the request. The clone holds a reference on
 * @rq until it completes.
 */
void stria_clone_submit_part(struct stria_array *a, struct request *rq,
			     struct stria_member *m, struct bio *src,
			     u32 skip, u32 len, u64 sector)
{
	struct bio_list clones = BIO_EMPTY_LIST;
	struct bio *bio;

	bio = stria_bio_alloc_clone(m->dev.bdev, src, GFP_NOIO, &a->bioset);
	bio_trim(bio, skip, len);
	stria_clone_flags(bio, rq);
	stria_clone_init(bio, rq, m, sector, &clones);
	stria_rq_get(rq);
	stria_submit_unplugged(&clones);
}

/**
 * stria_clones_submit() - start @rq and send its prepared clones
 * @rq: the request
 * @clones: its clones; the request ends when the last one completes (at
 *	once, successfully, when the list is empty)
 */
void stria_clones_submit(struct request *rq, struct bio_list *clones)
{
	unsigned int n = bio_list_size(clones);

	stria_rq_start(rq, n);
	if (!n) {
		blk_mq_end_request(rq, BLK_STS_OK);
		return;
	}
	stria_submit_unplugged(clones);
}

/* a queue freeze that waits this long logs what it waits for, and again */
#define STRIA_FREEZE_REPORT_SECS	20
/* requests logged per report */
#define STRIA_FREEZE_REPORT_RQS		8

struct stria_freeze_report {
	struct stria_array *a;
	u32 seen;
};

/* blk_mq_tagset_busy_iter(): log a request of the array still in flight. */
static bool stria_freeze_report_rq(struct request *rq, void *data)
{
	struct stria_freeze_report *fr = data;
	struct stria_cmd *cmd = blk_mq_rq_to_pdu(rq);

	if (rq->q != fr->a->disk->queue)
		return true;
	if (fr->seen++ < STRIA_FREEZE_REPORT_RQS)
		pr_warn("stria%d: in flight: op %u at sector %llu, %u sectors, state %d, %d parts pending%s%s\n",
			fr->a->index, (__force u32)req_op(rq),
			(u64)blk_rq_pos(rq), blk_rq_sectors(rq),
			(int)blk_mq_rq_state(rq), atomic_read(&cmd->pending),
			READ_ONCE(cmd->retry) ? ", to be retried" : "",
			cmd->wib_held ? ", holds its bitmap region" : "");
	return true;
}

/*
 * A freeze of @a has waited @secs seconds: log the requests it waits for,
 * and what the level and the bitmap hold back (parked writes, bitmap
 * updates), so that a freeze that never ends says why.
 */
static void stria_freeze_report(struct stria_array *a, unsigned int secs)
{
	struct stria_freeze_report fr = { .a = a };

	pr_warn("stria%d: a reconfiguration has waited %u s for the %s in flight to end\n",
		a->index, secs,
		stria_bio_based(a) ? "member bios" : "requests");
	/* a bio-based array has no requests to list */
	if (!stria_bio_based(a)) {
		blk_mq_tagset_busy_iter(&a->tag_set, stria_freeze_report_rq,
					&fr);
		pr_warn("stria%d: %u requests in flight%s\n", a->index,
			fr.seen, fr.seen > STRIA_FREEZE_REPORT_RQS ?
			" (the first ones logged)" : "");
	}
	if (a->ops->log_waits)
		a->ops->log_waits(a);
	stria_bitmap_log_waits(a);
}

/**
 * stria_array_freeze() - wait until no request of an array is in flight
 * @a: the array
 *
 * blk_mq_freeze_queue(): no request enters until stria_array_unfreeze(),
 * and the ones in flight end first. Its callers hold the array's cfg_lock
 * (a replace or a removal also stria_arrays_lock), so a request that never
 * ends blocks every member operation. Such a wait is not silent: every
 * STRIA_FREEZE_REPORT_SECS it logs the requests it waits for and what
 * holds them back.
 *
 * Return: what stria_array_unfreeze() takes.
 */
unsigned int stria_array_freeze(struct stria_array *a)
{
	struct request_queue *q = a->disk->queue;
	unsigned int memflags = 0, secs = 0;

#if defined(STRIA_HAVE_BLK_MQ_FREEZE_QUEUE_MEMFLAGS)
	memflags = memalloc_noio_save();
#endif
	blk_freeze_queue_start(q);
	while (!blk_mq_freeze_queue_wait_timeout(q, STRIA_FREEZE_REPORT_SECS * HZ)) {
		secs += STRIA_FREEZE_REPORT_SECS;
		stria_freeze_report(a, secs);
	}
	return memflags;
}

/**
 * stria_array_unfreeze() - let requests in again after stria_array_freeze()
 * @a: the array
 * @memflags: what stria_array_freeze() returned
 */
void stria_array_unfreeze(struct stria_array *a, unsigned int memflags)
{
	stria_unfreeze_queue(a->disk->queue, memflags);
	/* the members may have changed: polled I/O only if they all poll */
	stria_poll_update(a);
}

/**
 * stria_ro_status() - the status of a write to a read-only array
 * @a: the array, read-only
 * @empty_flush: the write is a flush without data
 *
 * A flush without data has nothing to make durable: nothing was written.
 * Anything else that would write (data, discard, write zeroes) is refused.
 *
 * Return: BLK_STS_OK for @empty_flush, else BLK_STS_IOERR.
 */
blk_status_t stria_ro_status(struct stria_array *a, bool empty_flush)
{
	if (empty_flush)
		return BLK_STS_OK;
	pr_warn_ratelimited("stria%d: array '%s' is read-only: write refused\n",
			    a->index, a->name);
	return BLK_STS_IOERR;
}

static blk_status_t stria_flush(struct stria_array *a, struct request *rq)
{
	struct bio_list clones = BIO_EMPTY_LIST;
	u32 i;

	for (i = 0; i < a->nr_members; i++) {
		/* a failed member holds nothing the array still counts on */
		if (stria_member_failed(&a->members[i]))
			continue;
		if (stria_clone_prepare_empty(a, rq, &a->members[i],
					      REQ_OP_WRITE | REQ_PREFLUSH |
					      REQ_SYNC, 0, 0, &clones)) {
			stria_clones_drop(&clones);
			return BLK_STS_RESOURCE;
		}
	}
	this_cpu_inc(a->stats->flushes);
	stria_clones_submit(rq, &clones);
	return BLK_STS_OK;
}

static blk_status_t stria_queue_rq(struct blk_mq_hw_ctx *hctx,
				   const struct blk_mq_queue_data *bd)
{
	struct stria_array *a = hctx->queue->queuedata;
	struct request *rq = bd->rq;
	struct stria_cmd *cmd = blk_mq_rq_to_pdu(rq);
	blk_status_t st;

	cmd->inline_used = false;
	if (!(rq->rq_flags & RQF_DONTPREP)) {
		/* a new request, not one queued again */
		cmd->repair = 0;
		cmd->wib_held = false;
		atomic64_set(&cmd->skipped, 0);
		cmd->write_held = false;
		cmd->counted[0] = NULL;
		cmd->counted[1] = NULL;
		rq->rq_flags |= RQF_DONTPREP;
	}
	if (unlikely(READ_ONCE(a->readonly)) && op_is_write(req_op(rq))) {
		struct bio_list none = BIO_EMPTY_LIST;

		/* nothing written, nothing to flush; the rest is refused */
		if (stria_ro_status(a, req_op(rq) == REQ_OP_FLUSH))
			return BLK_STS_IOERR;
		stria_clones_submit(rq, &none);
		return BLK_STS_OK;
	}
	if (req_op(rq) == REQ_OP_FLUSH)
		return stria_flush(a, rq);
	/* the superblocks say active before a write reaches a member */
	if (a->safe.enabled && op_is_write(req_op(rq)) && !cmd->write_held) {
		if (!stria_safe_write_start(a))
			return BLK_STS_RESOURCE;
		cmd->write_held = true;
	}
	st = a->ops->queue_rq(a, rq);
	/* not started: blk-mq retries it or ends it without us */
	if (unlikely(st != BLK_STS_OK))
		stria_rq_let_go(a, cmd);
	else
		stria_test_delay(STRIA_DELAY_QUEUE_RQ);
	return st;
}

/*
 * CPU -> hardware queue map, grouped by NUMA node: each node gets a share
 * of the queues proportional to its CPUs (a node shares one queue when
 * there are fewer queues than nodes), and its CPUs are spread over its own
 * queues, so a queue's CPUs and therefore its hctx memory stay on one node.
 * With one queue per CPU (the default) every CPU has its own queue and the
 * queues of a node are consecutive.
 */
void stria_map_cpus(struct blk_mq_tag_set *set)
{
	struct blk_mq_queue_map *qmap = &set->map[HCTX_TYPE_DEFAULT];
	unsigned int nq, total = 0, before = 0;
	unsigned int cpu, node, first, count, k;

	stria_map_poll(set);
	nq = qmap->nr_queues;
	for_each_possible_cpu(cpu)
		total++;
	for_each_node(node) {
		unsigned int ncpus = 0;

		for_each_possible_cpu(cpu)
			if (cpu_to_node(cpu) == node)
				ncpus++;
		if (!ncpus)
			continue;
		first = (u64)nq * before / total;
		count = (u64)nq * (before + ncpus) / total - first;
		if (!count)
			count = 1;
		if (first >= nq)
			first = nq - 1;
		k = 0;
		for_each_possible_cpu(cpu) {
			if (cpu_to_node(cpu) != node)
				continue;
			qmap->mq_map[cpu] = qmap->queue_offset + first +
					    k++ % count;
		}
		before += ncpus;
	}
	/* CPUs of no node (NUMA_NO_NODE): spread them over all queues */
	k = 0;
	for_each_possible_cpu(cpu)
		if (cpu_to_node(cpu) == NUMA_NO_NODE || cpu_to_node(cpu) < 0)
			qmap->mq_map[cpu] = qmap->queue_offset + k++ % nq;
}

const struct blk_mq_ops stria_mq_ops = {
	.queue_rq	= stria_queue_rq,
	.map_queues	= stria_map_queues,
#if STRIA_POLL
	.poll		= stria_poll,
#endif
};

/**
 * stria_io_init() - set up an array's clone pool and counters
 * @a: the array, with @a->node set
 *
 * Return: 0 or -ENOMEM.
 */
int stria_io_init(struct stria_array *a)
{
	int ret;

	/*
	 * Every level allocates member bios that may sleep inside
	 * submit_bio() (RAID0's submit_bio(), RAID5/6's queue_rq()) with
	 * bios parked on current->bio_list: the rescuer keeps that from
	 * waiting on itself. RAID5/6 bios carry stria's own pages, hence
	 * bvecs.
	 */
	ret = bioset_init(&a->bioset, BIO_POOL_SIZE,
			  offsetof(struct stria_clone, bio),
			  BIOSET_NEED_RESCUER |
			  (a->geom.level ? BIOSET_NEED_BVECS : 0));
	if (ret)
		return ret;
	a->stats = alloc_percpu(struct stria_stats);
	if (!a->stats) {
		ret = -ENOMEM;
		goto out_bioset;
	}
	a->tag_set.cmd_size = sizeof(struct stria_cmd);
	ret = stria_safe_init(a);
	if (ret)
		goto out_stats;
	if (a->ops->init) {
		ret = a->ops->init(a);
		if (ret)
			goto out_safe;
	}
	return 0;

out_safe:
	stria_safe_exit(a);
out_stats:
	free_percpu(a->stats);
out_bioset:
	bioset_exit(&a->bioset);
	return ret;
}

/**
 * stria_io_exit() - undo stria_io_init()
 * @a: the array, with no I/O in flight
 */
void stria_io_exit(struct stria_array *a)
{
	if (a->ops->exit)
		a->ops->exit(a);
	stria_safe_exit(a);
	free_percpu(a->stats);
	bioset_exit(&a->bioset);
}
