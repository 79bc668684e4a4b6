// SPDX-License-Identifier: GPL-2.0
/*
 * stria RAID5/6 stripe operations (sops) that hold their stripe lock:
 * stria_sop_run() plans a sop's column segments (stria_sop_plan()), takes
 * its pages, sends its member reads and, once they are back, in a work item
 * on the submitting CPU (stria_sop_work()), computes and writes: a write's
 * new data and parity (full stripe, read-modify-write, reconstruct-write,
 * degraded), a degraded read's rebuilt chunks and a read repair's write
 * back, a discard's or write-zeroes' zeroes; the member reads that failed
 * are judged there, rebuilt and rewritten or their member failed. Here too:
 * the member bios of a sop and their completion, the bio reserve, and the
 * spread of one writer's full-stripe writes over the CPUs of the array's
 * node (spread_writes). A sop ends in stria_sop_done().
 *
 * Layer: the levels, RAID5/6 (Documentation/stria/layers.rst). Called by
 * the stripe lock (stria_sop_start()), the work and the member bios'
 * completions; uses the buffers and parity of raid56_buf.c and hands a
 * sync's sops to stria_sop_sync_compute(); calls the member I/O services
 * (bios, read errors, a failed member recorded).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blk-mq.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/sched/clock.h>
#include <linux/workqueue.h>

#include "raid56.h"
#include "trace.h"

static bool spread_writes = true;
module_param(spread_writes, bool, 0644);
MODULE_PARM_DESC(spread_writes,
		 "RAID5/6: a submitting CPU that computes full-stripe writes back to back hands the next one to a CPU of the array's node that computes none, so one writer uses more than one CPU (default Y)");

/**
 * struct stria_r56_cpu - a CPU's full-stripe computations, for the spread
 * @start: local_clock() when its latest one in queue_rq started
 * @end: and when it ended
 * @busy: computations running on it or handed to its work (written by
 *	other CPUs only when they hand it one)
 */
struct stria_r56_cpu {
	u64 start;
	u64 end;
	atomic_t busy;
};

static DEFINE_PER_CPU(struct stria_r56_cpu, stria_r56_cpus);

/* CPUs of the node a spread looks at, at most, after the submitting one */
#define STRIA_R56_SPREAD_TRIES	8

static void stria_sop_go(struct stria_sop *sop, bool wait);

/* ---- I/O -------------------------------------------------------------- */

/*
 * A write-zeroes of member (or replacement) @m came back "not supported":
 * note it in @sop->zretry, which has it written with the zero page before
 * the sop ends (stria_sop_zero_retry()). Any context.
 */
static bool stria_sop_zero_refused(struct stria_sop *sop,
				   struct stria_member *m)
{
	struct stria_array *a = sop->r->a;
	u32 role = m == &a->repl ? READ_ONCE(a->repl_role) : m->role;

	if (role >= a->nr_members)
		return false;
	atomic64_or(BIT_ULL(role), &sop->zretry);
	return true;
}

static void stria_sop_endio(struct bio *bio)
{
	struct stria_sop *sop = bio->bi_private;
	struct stria_member *m = container_of(bio, struct stria_clone,
					      bio)->member;
	struct stria_array *a = sop->r->a;
	blk_status_t st = bio->bi_status;

	/*
	 * A device may find out only when it tries that it has no
	 * write-zeroes: NVMe and dm answer BLK_STS_NOTSUPP, SCSI's sd turns
	 * WRITE SAME off and answers BLK_STS_TARGET.
	 */
	if (unlikely(st) && bio_op(bio) == REQ_OP_WRITE_ZEROES &&
	    (st == BLK_STS_NOTSUPP || !bdev_write_zeroes_sectors(bio->bi_bdev)) &&
	    stria_sop_zero_refused(sop, m))
		st = BLK_STS_OK;	/* the zero page goes there instead */
	/*
	 * A write the member refused (a polled bio after the member stopped
	 * polling, a REQ_NOWAIT one) while the others of the stripe were
	 * written: the member's chunk no longer matches the stripe's parity,
	 * so it is failed like any member whose write failed.
	 */
	if (unlikely(st == BLK_STS_NOTSUPP || st == BLK_STS_AGAIN) &&
	    op_is_write(bio_op(bio)))
		st = BLK_STS_IOERR;
	if (unlikely(st) && m == &a->repl) {
		/* the copy stops; the request does not care */
		stria_repl_failed(a, st);
		if (sop->sync)
			WRITE_ONCE(sop->sync->err, -EIO);
	} else if (unlikely(st) && !op_is_write(bio_op(bio)) &&
		   st != BLK_STS_NOTSUPP && st != BLK_STS_AGAIN &&
		   stria_member_in_sync(m)) {
		/* judged in process context: rewritten, or failed */
		atomic64_or(BIT_ULL(m->role), &sop->bad);
	} else if (unlikely(st)) {
		if (sop->sync)
			WRITE_ONCE(sop->sync->err, -EIO);
		if (!stria_member_io_error(m, st))
			sop->status = st;
		else if (!op_is_write(bio_op(bio)))
			WRITE_ONCE(sop->retry, true);
		else
			atomic64_or(BIT_ULL(m->role), &sop->skipped);
	}
	bio_put(bio);
	if (!atomic_dec_and_test(&sop->pending))
		return;
	if (sop->phase == STRIA_SOP_READING ||
	    unlikely(atomic64_read(&sop->zretry)))
		queue_work_on(sop->cpu, sop->r->wq, &sop->work);
	else
		stria_sop_done(sop);
}

/*
 * A bio for columns [@s, @e) of member @m from or to its buffer @which,
 * to device @mem: the member's, or its replacement's. With @which
 * STRIA_R56_ZERO it writes zeroes: as write-zeroes (@opf says so) where
 * the device has them, else from the zero page. Process context. From
 * @bs with @gfp: NULL only when @gfp may not wait.
 */
static struct bio *stria_sop_bio(struct stria_sop *sop, u32 which, u32 m,
				 u32 s, u32 e, stria_opf_t opf,
				 struct stria_member *mem, gfp_t gfp,
				 struct bio_set *bs)
{
	struct stria_array *a = sop->r->a;
	u32 nr = (e - s + STRIA_R56_PAGE_SECTORS - 1) /
		 STRIA_R56_PAGE_SECTORS + 1, col, pend;
	bool wz = (opf & REQ_OP_MASK) == REQ_OP_WRITE_ZEROES;
	struct bio *bio;

	if (wz && !bdev_write_zeroes_sectors(mem->dev.bdev)) {
		/* replaced by a device without them since the array started */
		opf = REQ_OP_WRITE | (opf & (REQ_FUA | REQ_SYNC));
		wz = false;
		this_cpu_inc(sop->r->stats->zero_pages);
	}
	bio = stria_bio_alloc_bioset(mem->dev.bdev, wz ? 0 : nr, opf, gfp, bs);
	if (!bio)
		return NULL;
	container_of(bio, struct stria_clone, bio)->member = mem;
	container_of(bio, struct stria_clone, bio)->rq = sop->rq;
	bio->bi_iter.bi_sector = a->data_offset +
				 (sop->stripe << a->geom.chunk_shift) + s;
	bio->bi_private = sop;
	bio->bi_end_io = stria_sop_endio;
	if (wz) {
		bio->bi_iter.bi_size = (e - s) << SECTOR_SHIFT;
		return bio;
	}
	for (col = s; col < e; col = pend) {
		u32 rel = col - sop->lo;
		struct page *pg;
		u32 len, off;

		pend = stria_sop_piece_end(sop, col, e);
		len = (pend - col) << SECTOR_SHIFT;
		if (which == STRIA_R56_ZERO) {
			pg = ZERO_PAGE(0);
			off = 0;
		} else {
			pg = *stria_sop_slot(sop, which, m,
					     rel / STRIA_R56_PAGE_SECTORS);
			off = (rel % STRIA_R56_PAGE_SECTORS) << SECTOR_SHIFT;
		}
		if (WARN_ON_ONCE(bio_add_page(bio, pg, len, off) != len)) {
			bio->bi_status = BLK_STS_RESOURCE;
			break;
		}
	}
	/* polled with its request, which is polled until the sop ends */
	stria_bio_set_polled(bio, sop->rq);
	return bio;
}

/*
 * Add bios for the columns of every segment in @masks[k] to @list, one per
 * run of consecutive segments a member takes part in, from @bs with @gfp.
 * A member being replaced gets its writes twice, to its replacement too;
 * the copy of a replace writes the replacement only. So a set holds at
 * most STRIA_PARITY_ROW_SEGS * (members + 1) bios (@r->max_bios).
 *
 * Return: the number of bios, or -ENOMEM (only when @gfp may not wait)
 * with none left on @list.
 */
static int stria_sop_bios(struct stria_sop *sop, const u64 *masks,
			  u32 which, stria_opf_t opf, struct bio_list *list,
			  gfp_t gfp, struct bio_set *bs)
{
	struct stria_array *a = sop->r->a;
	u32 n = a->nr_members, m, k, rr = STRIA_NO_MEMBER;
	bool copy = op_is_write(opf) && sop->sync &&
		    sop->sync->op == STRIA_SYNC_OP_REPLACE;
	struct bio *bio;
	int count = 0;

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
				bio = stria_sop_bio(sop, which, m, s, e, opf,
						    stria_sop_member(sop, m),
						    gfp, bs);
				if (!bio)
					goto nomem;
				bio_list_add(list, bio);
				count++;
			}
			if (m == rr) {
				bio = stria_sop_bio(sop, which, m, s, e, opf,
						    &a->repl, gfp, bs);
				if (!bio)
					goto nomem;
				bio_list_add(list, bio);
				count++;
			}
		}
	}
	return count;

nomem:
	while ((bio = bio_list_pop(list)))
		bio_put(bio);
	return -ENOMEM;
}

/*
 * Allocate and send the bios of @masks (stria_sop_bios()) from or to
 * buffer @which, and set the sop's phase for their completion: READING
 * for reads, WRITING for writes. The sop may end before this returns: the
 * caller must not touch it afterwards.
 *
 * Every bio of a set must exist before the first is sent, and bio_sets
 * keep only BIO_POOL_SIZE bios and bvecs in reserve: two sops that each
 * took part of a reserve and wait for the rest would wait for each other
 * forever, as their bios go nowhere until all are there. So the set is
 * first taken from the array's clone bio_set without waiting, which
 * succeeds unless memory is short, and given back whole when a bio is
 * missing; then it comes from the array's bio reserve, which holds a
 * whole set (@r->max_bios bios and bvecs) and which one sop at a time
 * (@r->bio_lock) draws on: every other bio taken from it belongs to a set
 * that was sent, and comes back when it completes. queue_rq does not wait
 * (see stria_sop_alloc_pages()): it hands the set to the sop's CPU's work.
 *
 * Return: false when there was nothing to send (the sop goes on).
 */
static bool stria_sop_issue(struct stria_sop *sop, const u64 *masks,
			    u32 which, stria_opf_t opf)
{
	struct stria_raid56 *r = sop->r;
	struct bio_list list = BIO_EMPTY_LIST;
	struct bio *bio;
	int count;

	count = stria_sop_bios(sop, masks, which, opf, &list,
			       GFP_NOWAIT | __GFP_NOWARN, &r->a->bioset);
	if (unlikely(count < 0)) {
		if (!sop->may_wait) {
			this_cpu_inc(r->stats->bio_deferred);
			memcpy(sop->io_masks, masks,
			       sop->nsegs * sizeof(*masks));
			sop->io_which = which;
			sop->io_opf = opf;
			sop->phase = STRIA_SOP_BIO_WAIT;
			/* the last touch: the work may run it to its end */
			queue_work_on(sop->cpu, r->wq, &sop->work);
			return true;
		}
		this_cpu_inc(r->stats->bio_reserve);
		mutex_lock(&r->bio_lock);
		count = stria_sop_bios(sop, masks, which, opf, &list, GFP_NOIO,
				       &r->bio_reserve);
		mutex_unlock(&r->bio_lock);
	}
	if (!count)
		return false;
	if (op_is_write(opf)) {
		sop->phase = STRIA_SOP_WRITING;
	} else {
		this_cpu_add(r->stats->member_reads, count);
		sop->phase = STRIA_SOP_READING;
	}
	atomic_set(&sop->pending, count);
	while ((bio = bio_list_pop(&list))) {
		if (unlikely(bio->bi_status))
			bio_endio(bio);
		else
			stria_bio_submit(bio);
	}
	return true;
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

/**
 * stria_sop_old_to_new() - copy a member's OLD buffer to its NEW one
 * @sop: the sop
 * @m: the member
 * @s: first column
 * @e: end column (exclusive)
 *
 * Copies member @m's OLD buffer to its NEW one over columns [@s, @e).
 */
void stria_sop_old_to_new(struct stria_sop *sop, u32 m, u32 s, u32 e)
{
	u32 col, pend;

	for (col = s; col < e; col = pend) {
		pend = stria_sop_piece_end(sop, col, e);
		memcpy(stria_sop_addr(sop, STRIA_R56_NEW, m, col),
		       stria_sop_addr(sop, STRIA_R56_OLD, m, col),
		       (pend - col) << SECTOR_SHIFT);
	}
}

/**
 * stria_sop_write() - write a buffer of some members, then end the sop
 * @sop: the sop
 * @masks: per segment of the plan, the members written
 * @which: the buffer: STRIA_R56_NEW, STRIA_R56_OLD or STRIA_R56_ZERO
 * @opf: the operation and flags of the writes
 *
 * Writes buffer @which of the members in @masks, then ends the sop. The
 * sop may end before this returns: the caller must not touch it
 * afterwards.
 */
void stria_sop_write(struct stria_sop *sop, const u64 *masks, u32 which,
		     stria_opf_t opf)
{
	if (!stria_sop_issue(sop, masks, which, opf)) {
		sop->phase = STRIA_SOP_WRITING;
		stria_sop_done(sop);
	}
}

/* The members (by role) that have failed: they get no writes. */
static u64 stria_sop_failed(struct stria_sop *sop)
{
	u64 failed = 0;
	u32 i;

	for (i = 0; i < sop->r->a->nr_members; i++)
		if (stria_member_failed(stria_sop_member(sop, i)))
			failed |= BIT_ULL(i);
	return failed;
}

/*
 * Write zeroes (@opf: write-zeroes, or a write of the zero page) over the
 * sop's segment to the members of @mask that have not failed; the failed
 * ones are skipped as by any write.
 */
static void stria_sop_zero_members(struct stria_sop *sop, u64 mask,
				   stria_opf_t opf)
{
	u64 masks[STRIA_PARITY_ROW_SEGS] = { mask }, failed = stria_sop_failed(sop);

	if (masks[0] & failed)
		atomic64_or(masks[0] & failed, &sop->skipped);
	masks[0] &= ~failed;
	stria_sop_write(sop, masks, STRIA_R56_ZERO, opf);
}

/*
 * A discard or write-zeroes request covers the sop's slice of every data
 * chunk: every member, parity included, gets write-zeroes over the slice
 * (the parity of zeroes is zeroes), which lets it unmap them unless the
 * request said REQ_NOUNMAP. No reads, no buffers, no parity to compute:
 * the stripe's parity is right afterwards whatever it was before, owed
 * resync or not, and a member being rebuilt is current there too.
 */
static void stria_sop_zero_write(struct stria_sop *sop)
{
	struct stria_raid56 *r = sop->r;
	stria_opf_t opf = REQ_OP_WRITE_ZEROES | sop->opf_flags;

	if (sop->nounmap)
		opf |= REQ_NOUNMAP;
	sop->nsegs = 1;
	sop->segs[0] = (struct stria_parity_seg){
		.start = sop->lo,
		.end = sop->lo + r->slice,
		.written = GENMASK_ULL(r->nd - 1, 0),
		.method = STRIA_PARITY_FULL,
	};
	this_cpu_inc(r->stats->zeroed);
	stria_sop_zero_members(sop, GENMASK_ULL(r->a->nr_members - 1, 0), opf);
}

/*
 * Work: members refused the write-zeroes of stria_sop_zero_write() as not
 * supported (a device may find out only when it tries, as SCSI's WRITE
 * SAME does). The others have zeroes there now: these get the zero page
 * written, or the stripe's parity would not match.
 */
static void stria_sop_zero_retry(struct stria_sop *sop)
{
	u64 mask = atomic64_xchg(&sop->zretry, 0);

	this_cpu_add(sop->r->stats->zero_pages, hweight64(mask));
	stria_sop_zero_members(sop, mask, REQ_OP_WRITE | sop->opf_flags);
}

/* Reads are back (or none were needed): compute, then write. */
static void stria_sop_compute_write(struct stria_sop *sop)
{
	struct stria_raid56 *r = sop->r;
	stria_opf_t opf = REQ_OP_WRITE | sop->opf_flags;
	u64 masks[STRIA_PARITY_ROW_SEGS], failed = stria_sop_failed(sop);
	u32 k, i;

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
			u32 mi = sop->dmember[i];

			if (sg->written & (1ULL << i) ||
			    (READ_ONCE(stria_sop_member(sop, mi)->state) !=
			     STRIA_STATE_REBUILDING && !(sop->fix & BIT_ULL(mi))))
				continue;
			/* its rebuilt old data: it stays current, or is fixed */
			stria_sop_old_to_new(sop, mi, sg->start, sg->end);
			masks[k] |= 1ULL << mi;
		}
		/* the request waits until the superblocks record these */
		if (masks[k] & failed)
			atomic64_or(masks[k] & failed, &sop->skipped);
		masks[k] &= ~failed;
	}
	if (sop->fix)
		this_cpu_add(r->stats->read_repairs, hweight64(sop->fix));
	stria_sop_write(sop, masks, STRIA_R56_NEW, opf);
}

/* Can the reads of a member that failed in @sop be rebuilt and rewritten? */
static bool stria_sop_fixable(struct stria_sop *sop)
{
	if (!sop->sync)
		return sop->write;
	/* a rebuild where the parity is owed: nothing trusted to fix from */
	return (sop->sync->op == STRIA_SYNC_OP_REBUILD && !sop->owed) ||
	       sop->sync->op == STRIA_SYNC_OP_CHECK ||
	       sop->sync->op == STRIA_SYNC_OP_REPAIR;
}

/*
 * Reads of the members in @bad (by role), in sync, failed. As md does, a
 * member keeps its place: its columns are rebuilt from the others and
 * written back (@sop->fix; the sop is planned again), while the stripe
 * has the redundancy to spare it and it has not failed too many reads
 * lately (stria_member_read_error()). Else it is failed, and the sop
 * planned again around it. Where the stripe owes a resync its parity is
 * not trusted: nothing is rebuilt, a request's sop ends with EIO and the
 * member stays; a rebuild's fails the member, as a resync's does. Process
 * context.
 */
static void stria_sop_read_errors(struct stria_sop *sop, u64 bad)
{
	struct stria_array *a = sop->r->a;
	u32 i;

	while (bad) {
		struct stria_member *m;

		i = __ffs64(bad);
		bad &= bad - 1;
		m = &a->members[i];
		if (sop->owed && !sop->sync) {
			atomic64_inc(&m->errors);
			sop->status = BLK_STS_IOERR;
			continue;
		}
		if (stria_sop_fixable(sop) &&
		    hweight64(sop->missing | sop->fix) < sop->r->np &&
		    stria_member_read_error(m)) {
			atomic64_inc(&m->errors);
			sop->fix |= BIT_ULL(i);
			WRITE_ONCE(sop->retry, true);
			continue;
		}
		if (sop->sync)
			WRITE_ONCE(sop->sync->err, -EIO);
		stria_member_io_error(m, BLK_STS_IOERR);
		WRITE_ONCE(sop->retry, true);
	}
}

/* The reads are back, or none were needed. Process context. */
static void stria_sop_after_reads(struct stria_sop *sop)
{
	struct stria_raid56 *r = sop->r;
	u64 bad = atomic64_xchg(&sop->bad, 0);
	u32 i;

	if (bad)
		stria_sop_read_errors(sop, bad);
	if (READ_ONCE(sop->retry) && !sop->status) {
		/* a member failed under us, or is fixed: plan again */
		sop->retry = false;
		this_cpu_inc(r->stats->read_retries);
		stria_sop_free_pages(sop);
		/* reads were out: this is the work, which may wait */
		stria_sop_run(sop, true);
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

/**
 * stria_sop_work() - a sop's work item
 * @work: the sop's @work
 *
 * Work: a sop's stripe lock came free, it waits for memory, or its reads
 * are back. It runs with no bio of its own on current->bio_list, so it
 * may wait for the page reserve.
 */
void stria_sop_work(struct work_struct *work)
{
	struct stria_sop *sop = container_of(work, struct stria_sop, work);
	int spread = sop->spread_cpu;

	sop->may_wait = true;
	if (spread >= 0) {
		/* handed here by stria_sop_spread(): @sop may end in there */
		sop->spread_cpu = -1;
		stria_sop_go(sop, true);
		atomic_dec(&per_cpu_ptr(&stria_r56_cpus, spread)->busy);
	} else if (sop->phase == STRIA_SOP_LOCK_WAIT) {
		if (sop->timed)
			stria_sop_run_parked(sop, true);
		else
			stria_sop_run(sop, true);
	} else if (sop->phase == STRIA_SOP_BIO_WAIT) {
		/* queue_rq had no bios at once: here they may wait */
		if (stria_sop_issue(sop, sop->io_masks, sop->io_which,
				    sop->io_opf))
			return;
		/* none to send after all: a replacement left meanwhile */
		if (op_is_write(sop->io_opf))
			stria_sop_done(sop);
		else
			stria_sop_after_reads(sop);
	} else if (sop->phase == STRIA_SOP_WRITING) {
		stria_sop_zero_retry(sop);
	} else {
		stria_sop_after_reads(sop);
	}
}

/*
 * The new data, in the NEW buffers: this sop's own, then that of the sops
 * merged into it, in the order they came (a later write to the same place
 * wins, as if it had waited for the lock).
 */
static void stria_sop_copy_mine(struct stria_sop *sop, struct stria_sop *c)
{
	u32 i;

	for (i = 0; i < sop->r->nd; i++) {
		if (c->mine[i].start >= c->mine[i].end)
			continue;
		if (c->zeroes)
			stria_sop_zero_fill(sop, STRIA_R56_NEW, sop->dmember[i],
					    c->mine[i].start, c->mine[i].end);
		else
			stria_sop_copy(sop, c->rq, STRIA_R56_NEW, i,
				       c->mine[i].start, c->mine[i].end, true);
	}
}

static void stria_sop_copy_in(struct stria_sop *sop)
{
	struct stria_sop *c;

	stria_sop_copy_mine(sop, sop);
	list_for_each_entry(c, &sop->merged, wait_entry)
		stria_sop_copy_mine(sop, c);
}

/* Count and trace the plan of a sop that runs: @reads per segment. */
static void stria_sop_account(struct stria_sop *sop, const u64 *reads)
{
	struct stria_raid56 *r = sop->r;
	u32 k;

	for (k = 0; k < sop->nsegs; k++) {
		struct stria_parity_seg *sg = &sop->segs[k];

		this_cpu_inc(r->stats->ops[sg->method]);
		trace_stria_stripe(r->a->index, sop->stripe, sg->start, sg->end,
				   sg->method, hweight64(reads[k]));
	}
}

/*
 * Where the stripe owes a resync its parity may not match its data: a sop
 * that would rebuild a missing member's data from it (a degraded read, a
 * degraded write that does not replace that data) ends with EIO instead.
 */
static bool stria_sop_untrusted(struct stria_sop *sop)
{
	u32 k;

	if (!sop->owed || !sop->missing || sop->sync)
		return false;
	if (!sop->write)
		return true;
	for (k = 0; k < sop->nsegs; k++)
		if (stria_seg_needs_rebuild(sop, &sop->segs[k]))
			return true;
	return false;
}

/*
 * The sop holds its stripe lock: plan, allocate, read or go straight to the
 * writes. Process context. Without @wait (queue_rq) a sop whose pages
 * cannot be had at once goes to its CPU's work, which may wait for them
 * (see stria_sop_alloc_pages()): it holds its stripe lock meanwhile.
 */
static void stria_sop_go(struct stria_sop *sop, bool wait)
{
	struct stria_raid56 *r = sop->r;
	struct stria_array *a = r->a;
	u64 masks[STRIA_PARITY_ROW_SEGS];
	u32 nf, k, i;

	sop->may_wait = wait;
	sop->missing = sop->fix;
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
		   (sop->sync && sop->sync->op != STRIA_SYNC_OP_REBUILD &&
		    nf > hweight64(sop->fix))) {
		sop->status = BLK_STS_IOERR;
		stria_sop_done(sop);
		return;
	}
	if (sop->zero_full) {
		stria_sop_zero_write(sop);
		return;
	}
	/* a rebuild checks what it rebuilds there (stria_sop_sync_compute) */
	if (!sop->sync || sop->sync->op == STRIA_SYNC_OP_REBUILD)
		sop->owed = stria_sync_owed(a, sop->stripe << a->geom.chunk_shift);
	stria_sop_plan(sop, nf > 0);
	if (stria_sop_untrusted(sop)) {
		sop->status = BLK_STS_IOERR;
		stria_sop_done(sop);
		return;
	}
	for (k = 0; k < sop->nsegs; k++) {
		struct stria_parity_seg *sg = &sop->segs[k];

		masks[k] = stria_seg_reads(sop, sg);
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
		/* the data chunk a RAID6 repair located gets its right bytes */
		if (sop->sync && sop->sync->fix_member < a->nr_members)
			stria_sop_want(sop, STRIA_R56_NEW,
				       sop->sync->fix_member, sg->start,
				       sg->end);
		/* members being rebuilt or fixed get their rebuilt data */
		for (i = 0; nf && (sop->write || sop->sync) &&
		     i < a->nr_members; i++)
			if (READ_ONCE(stria_sop_member(sop, i)->state) ==
			    STRIA_STATE_REBUILDING || (sop->fix & BIT_ULL(i)))
				stria_sop_want(sop, STRIA_R56_NEW, i,
					       sg->start, sg->end);
	}
	if (sop->write)
		for (i = 0; i < r->nd; i++)
			stria_sop_want(sop, STRIA_R56_NEW, sop->dmember[i],
				       sop->ranges[i].start,
				       sop->ranges[i].end);
	if (!stria_sop_alloc_pages(sop, wait)) {
		stria_sop_free_pages(sop);
		this_cpu_inc(r->stats->mem_deferred);
		sop->phase = STRIA_SOP_LOCK_WAIT;
		/* the last touch: the work may run it to its end */
		queue_work_on(sop->cpu, r->wq, &sop->work);
		return;
	}
	stria_sop_account(sop, masks);
	if (sop->write)
		stria_sop_copy_in(sop);

	if (!stria_sop_issue(sop, masks, STRIA_R56_OLD, REQ_OP_READ))
		stria_sop_after_reads(sop);
}

/*
 * Hand full-stripe write @sop, which holds its stripe lock, to the work of
 * another CPU instead of computing it in this queue_rq? Only when this CPU
 * (@self, at @now) computes them back to back: the time since its last one
 * ended is shorter than that one took, as when one writer submits a long
 * sequential write. Then to a CPU of the array's node that computes none
 * and has none handed to it, so that one writer's stripes are copied and
 * their parity computed on several CPUs at once (as md's stripe threads
 * do); many writers, each CPU busy with its own, stay where they are.
 */
static bool stria_sop_spread(struct stria_sop *sop, int self, u64 now)
{
	struct stria_r56_cpu *me = per_cpu_ptr(&stria_r56_cpus, self);
	u64 start = READ_ONCE(me->start), end = READ_ONCE(me->end);
	int node = sop->r->a->node, tries = 0, cpu;

	if (now - end >= end - start)
		return false;
	if (node == NUMA_NO_NODE)
		node = cpu_to_node(self);
	for_each_cpu_wrap(cpu, cpumask_of_node(node), (self + 1) % nr_cpu_ids) {
		struct stria_r56_cpu *c = per_cpu_ptr(&stria_r56_cpus, cpu);

		if (cpu == self || !cpu_online(cpu))
			continue;
		if (++tries > STRIA_R56_SPREAD_TRIES)
			break;
		if (atomic_read(&c->busy))
			continue;
		atomic_inc(&c->busy);
		sop->spread_cpu = cpu;
		sop->phase = STRIA_SOP_LOCK_WAIT;
		this_cpu_inc(sop->r->stats->spread);
		/* the last touch: the work may run it to its end */
		queue_work_on(cpu, sop->r->wq, &sop->work);
		return true;
	}
	return false;
}

/**
 * stria_sop_run() - run a sop that holds its stripe lock
 * @sop: the sop
 * @wait: the caller may wait for memory (a work item or the sync thread,
 *	not queue_rq)
 *
 * Run a sop that holds its stripe lock (stria_sop_go()). A full-stripe
 * write from queue_rq may go to another CPU (stria_sop_spread()); one
 * computed here is timed for the next one's decision. The sop may end
 * before this returns: the caller must not touch it afterwards.
 */
void stria_sop_run(struct stria_sop *sop, bool wait)
{
	struct stria_r56_cpu *me;
	int self;
	u64 start;

	if (wait || !READ_ONCE(spread_writes) || !sop->write || sop->sync ||
	    sop->zeroes || stria_rq_polled(sop->rq) || !stria_sop_full(sop)) {
		stria_sop_go(sop, wait);
		return;
	}
	self = raw_smp_processor_id();
	start = local_clock();
	if (stria_sop_spread(sop, self, start))
		return;
	me = per_cpu_ptr(&stria_r56_cpus, self);
	atomic_inc(&me->busy);
	stria_sop_go(sop, false);
	atomic_dec(&me->busy);
	WRITE_ONCE(me->start, start);
	WRITE_ONCE(me->end, local_clock());
}
