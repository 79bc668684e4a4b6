// SPDX-License-Identifier: GPL-2.0
/*
 * stria RAID0: bio-based, as md raid0 and dm-stripe are.
 *
 * A RAID0 array has no parity to compute and nothing to hold back, so it
 * needs no request of its own: each bio is remapped in the submitter's
 * context (submit_bio(), per CPU, no lock) and a clone goes to the member
 * holding it, which has its own hardware queues. A request of the array's
 * own would cost a second tag, request set-up, start, accounting and end on
 * every I/O (about 500 guest kernel instructions per 4K I/O here, measured
 * with selftests/bench/raid56-insn), the difference between stria RAID0 and
 * dm-stripe.
 *
 * - A read or write that lies within one chunk, every 4K I/O and the
 *   common case, lives on one member at one place (stria_raid0_map() in
 *   geom.h): one clone goes there. A larger one is cut at the chunk
 *   boundary (bio_split()), and the rest submitted again, as md raid0 and
 *   dm do: a loop of splits inside submit_bio() would hold split bios on
 *   current->bio_list that the bio_set's rescuer cannot free, and wait on
 *   its pool for good under memory pressure. The member splits the clone
 *   to its own limits.
 * - Discard, secure erase and write-zeroes may span many chunks: one bio
 *   per member covers that member's contiguous part of the range
 *   (stria_raid0_member_range()).
 * - A preflush flushes every member that has not failed first; data that
 *   comes with it is sent once they are done (from a work item, as md and
 *   dm do), so that no member writes it before the others have made what
 *   was written before durable. FUA goes with the data clone.
 * - Every member bio holds a usage reference of the array's queue, as a
 *   request would: a freeze (a member's state changes, the array stops)
 *   waits for the I/O in flight.
 * - Polled bios are cloned polled to members that poll, and end in their
 *   owner's poll, never in another task's: see "Polled bios" below.
 *
 * Layer: the levels, RAID0 (Documentation/stria/layers.rst,
 * drivers/stria/layers.map), behind stria_raid0_ops; calls the services.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <trace/events/block.h>

#include "stria.h"
#include "trace.h"

/**
 * struct stria_raid0 - what a RAID0 array keeps besides the common state
 * @split_set: the bios cut at chunk boundaries (not @a->bioset, which the
 *	clones of those bios come from)
 * @fan_set: the fans of stria_raid0_fan_out(), for the same reason: a fan
 *	waits for its member bios from @a->bioset, and fans from there too
 *	could take its whole reserve, each waiting for bios that only a
 *	fan's end would give back
 * @wq: sends the data of a preflush once the members are flushed
 * @lock: protects @deferred
 * @deferred: the bios @work sends
 * @work: sends them
 */
struct stria_raid0 {
	struct bio_set split_set;
	struct bio_set fan_set;
	struct workqueue_struct *wq;
	spinlock_t lock;
	struct bio_list deferred;
	struct work_struct work;
};

/*
 * DOC: Polled bios
 *
 * A polled bio (io_uring --hipri) is polled by its owner only: io_uring
 * calls bio_poll() on the bio it submitted, which it holds under RCU
 * alone, and which may end, be freed and be reused (bios are
 * SLAB_TYPESAFE_BY_RCU) as soon as anything ends it. A member's poll
 * queue holds the member bios of many tasks, and polling it completes
 * them all; if a member bio's end ended the array's bio there, one task
 * would end another's bio while that one is about to poll it, and the
 * owner's poll would read a bio that is gone (a NULL bi_bdev, or another
 * device's: the oops of several tasks polling one array).
 *
 * So, as dm does (dm_poll_bio()), a polled array bio ends only in its
 * owner's poll: the clone's end records its status and that it is done
 * (STRIA_CLONE_DONE) and keeps the clone; the owner's poll
 * (stria_raid0_poll_bio()) polls the clone itself, by the clone's own
 * cookie (bio_poll(), on the one member queue it went to), and once it is
 * done ends the array's bio. A bio is polled as one clone (a bio that
 * crosses a chunk is cut, and the cut bios are not polled), which the
 * array's bio names in its bi_next while it is ours (as md's raid5 links
 * its bios there). Nothing of a bio is read in a poll but that link and
 * the clone, which lives until the array's bio ends, and the clone is
 * polled only if it names the bio; only a poll whose claim (a
 * compare-and-swap from DONE to ENDED) wins ends it, so it ends once. A
 * stranger's stale pointer to a bio that was freed and reused as another
 * task's (the case iocb_bio_iopoll() allows for, which dm shares) may
 * still end that bio in the stranger's poll, once its clone is done.
 * Member queues are never polled by an index read from the member: the
 * clone's cookie is the queue it went to, as the block layer polls any
 * bio (the member's queues are remapped only frozen, after the clone has
 * ended).
 *
 * The array's bio and its clone hold the array's queue until the bio ends;
 * a clone is polled only while the queue polls (stria_clone_poll()), and a
 * change of polling freezes the queue first (stria_poll_update()), so its
 * owner's polls reach here until it ends. A freeze of the array (a member
 * failing, a spare or replace joining, a stop) therefore waits for the
 * owners of done clones to poll again, as dm's suspend does.
 */
enum stria_clone_poll {
	STRIA_CLONE_NOT_POLLED,
	STRIA_CLONE_FLIGHT,	/* sent; its owner polls it */
	STRIA_CLONE_DONE,	/* ended; the owner's next poll ends the bio */
	STRIA_CLONE_ENDED,	/* a poll claimed it and ends the bio */
};

/* A member bio holds the array's queue until it ends (see above). */
static void stria_raid0_enter(struct stria_array *a)
{
	percpu_ref_get(&a->disk->queue->q_usage_counter);
}

/* Member bio @c has ended, and the bio it served with it, as far as @c goes. */
static void stria_raid0_end(struct stria_clone *c)
{
	struct stria_array *a = c->member->array;
	struct request_queue *q = a->disk->queue;
	struct bio *mbio = &c->bio;
	struct bio *bio = c->orig;

	if (c->acct)
		bio_end_io_acct(bio, c->start);
	/* a clone of a read or write; flushes and discards count as they start */
	if (bio_has_data(mbio))
		stria_count_bio(a, bio);
	bio_put(mbio);
	bio_endio(bio);
	percpu_ref_put(&q->q_usage_counter);
}

/*
 * A member bio ended: its status goes to the bio it served (the first
 * error wins), which ends when every bio it counts on has; a polled one's
 * ends in its owner's poll.
 */
static void stria_raid0_endio(struct bio *mbio)
{
	struct stria_clone *c = container_of(mbio, struct stria_clone, bio);
	struct stria_member *m = c->member;
	struct stria_array *a = m->array;
	struct bio *bio = c->orig;
	blk_status_t st = stria_member_bio_status(mbio);

	if (unlikely(st)) {
		/* "would block" and "not supported" are the bio's, not the member's */
		if (st != BLK_STS_AGAIN && st != BLK_STS_NOTSUPP) {
			stria_member_io_error(m, st);
			this_cpu_inc(a->stats->errors);
		}
		if (!bio->bi_status)
			bio->bi_status = st;
	}
	if (atomic_read(&c->poll) == STRIA_CLONE_FLIGHT) {
		/*
		 * "Would block" (a REQ_NOWAIT clone, its member's queue frozen
		 * or out of tags) while the clone is submitted, in its owner's
		 * submit_bio() and before anyone polls @bio: @bio ends now, for
		 * 6.1's io_uring reissues it only from there (told -EAGAIN in
		 * a poll, it neither reissues nor completes it). Later (a
		 * member that is itself an array ends it so from a work item)
		 * it is an end like any other, in the owner's poll.
		 */
		if (st == BLK_STS_AGAIN && c->submitter == current &&
		    current->bio_list) {
			atomic_set(&c->poll, STRIA_CLONE_ENDED);
			WRITE_ONCE(bio->bi_next, NULL);
			stria_raid0_end(c);
			return;
		}
		/* the status above before DONE, which the poller reads first */
		atomic_set_release(&c->poll, STRIA_CLONE_DONE);
		return;
	}
	stria_raid0_end(c);
}

#if STRIA_POLL && STRIA_HAVE_POLL_BIO
/**
 * stria_raid0_poll_bio() - block_device_operations.poll_bio of a RAID0 array
 * @bio: the polled bio, its owner's
 * @iob: the caller's completion batch
 * @flags: BLK_POLL_*, passed on to the member's poll
 *
 * Polls @bio's clone on its member queue and ends @bio once the clone has
 * ended, in this poll or in an earlier one of any task (see "Polled bios"
 * above). bio_poll() holds the array's queue meanwhile.
 *
 * Return: 1 when @bio ended here, else 0.
 */
int stria_raid0_poll_bio(struct bio *bio, struct io_comp_batch *iob,
			 unsigned int flags)
{
	struct bio *mbio = READ_ONCE(bio->bi_next);
	struct stria_clone *c;

	if (!mbio)
		return 0;
	c = container_of(mbio, struct stria_clone, bio);
	if (READ_ONCE(c->orig) != bio)
		return 0;
	if (atomic_read(&c->poll) == STRIA_CLONE_FLIGHT)
		bio_poll(mbio, iob, flags);
	if (atomic_cmpxchg_acquire(&c->poll, STRIA_CLONE_DONE,
				   STRIA_CLONE_ENDED) != STRIA_CLONE_DONE)
		return 0;
	WRITE_ONCE(bio->bi_next, NULL);
	stria_raid0_end(c);
	return 1;
}
#endif

static gfp_t stria_raid0_gfp(const struct bio *bio)
{
	return bio->bi_opf & REQ_NOWAIT ? GFP_NOWAIT : GFP_NOIO;
}

/* End @bio: no memory now, and it may not wait for it (REQ_NOWAIT). */
static void stria_raid0_nomem(struct bio *bio)
{
	if (bio->bi_opf & REQ_NOWAIT)
		bio_wouldblock_error(bio);
	else
		bio_io_error(bio);
}

/*
 * Where @bio's chunk lives now. While a reshape restripes the array
 * (reshape.c), chunks below its checkpoint are in the new layout
 * (@a->geom), those past the window it moves in the old one, and I/O to
 * the window's chunks waits until the window is recorded and they are in
 * the new layout; the window opens only with the queue frozen, so never
 * under a bio routed here. When the reshape stops inside it (a member
 * failed), I/O to its chunks ends with an error (reshape.c). False: @bio
 * has ended: "would block" (REQ_NOWAIT) instead of waiting, or that error.
 */
static bool stria_raid0_moved(struct stria_array *a, u64 chunk, u32 dn)
{
	/* after the window's record: pairs with stria_reshape_advance() */
	return chunk < smp_load_acquire(&a->reshape.ckpt) * dn;
}

static bool stria_raid0_locate(struct stria_array *a, struct bio *bio,
			       struct stria_loc *loc)
{
	struct stria_reshape *rs = &a->reshape;
	sector_t sector = bio->bi_iter.bi_sector;
	u64 chunk = sector >> a->geom.chunk_shift;
	u32 dn = a->geom.nr_members;

	for (;;) {
		if (likely(!READ_ONCE(a->reshaping)) ||
		    stria_raid0_moved(a, chunk, dn)) {
			stria_raid0_map(&a->geom, sector, loc);
			return true;
		}
		if (chunk >= READ_ONCE(rs->win_end) * dn) {
			stria_raid0_map(&rs->old, sector, loc);
			return true;
		}
		if (bio->bi_opf & REQ_NOWAIT) {
			bio_wouldblock_error(bio);
			return false;
		}
		if (READ_ONCE(rs->broken)) {
			bio_io_error(bio);
			return false;
		}
		wait_event(rs->wait, !READ_ONCE(a->reshaping) ||
			   stria_raid0_moved(a, chunk, dn) ||
			   READ_ONCE(rs->broken));
	}
}

/*
 * Send read or write @bio, within one chunk, to the member holding it.
 * False when there was no memory for the clone (only for REQ_NOWAIT): @bio
 * has ended.
 */
static bool stria_raid0_clone(struct stria_array *a, struct bio *bio)
{
	sector_t sector = bio->bi_iter.bi_sector;
	struct stria_loc loc;
	struct stria_clone *c;
	struct stria_member *m;
	struct bio *mbio;

	if (!stria_raid0_locate(a, bio, &loc))
		return false;
	m = &a->members[loc.member];
	mbio = stria_bio_alloc_clone(m->dev.bdev, bio, stria_raid0_gfp(bio),
				     &a->bioset);
	if (unlikely(!mbio)) {
		stria_raid0_nomem(bio);
		return false;
	}
	c = container_of(mbio, struct stria_clone, bio);
	c->orig = bio;
	c->member = m;
	c->acct = blk_queue_io_stat(a->disk->queue);
	if (c->acct)
		c->start = bio_start_io_acct(bio);
	mbio->bi_iter.bi_sector = a->data_offset + loc.sector;
	mbio->bi_end_io = stria_raid0_endio;
	/*
	 * Polled as @bio where the member can poll, else neither is. A polled
	 * one is @bio's until @bio ends, in its owner's poll (see above).
	 */
	if (stria_clone_poll(mbio, bio)) {
		atomic_set(&c->poll, STRIA_CLONE_FLIGHT);
		c->submitter = current;
		WRITE_ONCE(bio->bi_next, mbio);
		WRITE_ONCE(bio->bi_cookie, 0);
	} else {
		atomic_set(&c->poll, STRIA_CLONE_NOT_POLLED);
	}
	trace_stria_map(a->index, (__force u32)bio_op(bio), sector,
			bio_sectors(bio), loc.member,
			a->data_offset + loc.sector);
	trace_block_bio_remap(mbio, disk_devt(a->disk), sector);
	stria_raid0_enter(a);
	submit_bio_noacct(mbio);
	return true;
}

/*
 * Send a bio without data (@nr_sectors 0: a flush) for the array's @bio to
 * member @m, ending into @parent, which counts it (bio_inc_remaining()). It
 * is charged to @bio's cgroup, at @bio's priority, as a clone would be.
 */
static bool stria_raid0_child(struct stria_array *a, struct bio *bio,
			      struct bio *parent, struct stria_member *m,
			      stria_opf_t opf, u64 sector, u64 nr_sectors,
			      gfp_t gfp)
{
	struct stria_clone *c;
	struct bio *mbio;

	mbio = stria_bio_alloc_bioset(m->dev.bdev, 0, opf, gfp, &a->bioset);
	if (!mbio)
		return false;
	bio_clone_blkg_association(mbio, bio);
	mbio->bi_ioprio = bio->bi_ioprio;
	c = container_of(mbio, struct stria_clone, bio);
	c->orig = parent;
	c->member = m;
	c->acct = false;
	atomic_set(&c->poll, STRIA_CLONE_NOT_POLLED);
	mbio->bi_iter.bi_sector = sector;
	mbio->bi_iter.bi_size = nr_sectors << SECTOR_SHIFT;
	mbio->bi_end_io = stria_raid0_endio;
	bio_inc_remaining(parent);
	stria_raid0_enter(a);
	submit_bio_noacct(mbio);
	return true;
}

/*
 * Every member bio of a preflush, discard, secure erase or write-zeroes
 * ended into a bio of our own (the "fan"): end the array's bio with their
 * status, or send the data of a preflush now that the members are flushed.
 */
static void stria_raid0_fan_end(struct bio *fan)
{
	struct stria_clone *c = container_of(fan, struct stria_clone, bio);
	struct bio *bio = c->orig;
	struct stria_array *a = stria_bio_array(bio);
	struct stria_raid0 *r0 = a->r0;
	blk_status_t st = fan->bi_status;
	unsigned long flags;

	if (c->acct)
		bio_end_io_acct(bio, c->start);
	bio_put(fan);
	if (!st && bio_op(bio) == REQ_OP_WRITE && bio_sectors(bio)) {
		/*
		 * The flush is done: the data goes as a plain write, from a
		 * work item (this may be an interrupt). It holds the queue
		 * meanwhile (a member bio ending into the fan holds it now, or
		 * the submitter), so that a freeze waits for it too.
		 */
		bio->bi_opf &= ~(REQ_PREFLUSH | REQ_NOWAIT);
		stria_raid0_enter(a);
		spin_lock_irqsave(&r0->lock, flags);
		bio_list_add(&r0->deferred, bio);
		spin_unlock_irqrestore(&r0->lock, flags);
		queue_work(r0->wq, &r0->work);
		return;
	}
	if (st)
		bio->bi_status = st;
	bio_endio(bio);
}

static void stria_raid0_rw(struct stria_array *a, struct bio *bio);

/*
 * Not through submit_bio_noacct(): that would wait for a freeze to end,
 * which waits for the reference these bios hold. Here, outside any
 * submit_bio(), every member bio goes out as soon as it is made.
 */
static void stria_raid0_deferred_work(struct work_struct *work)
{
	struct stria_raid0 *r0 = container_of(work, struct stria_raid0, work);
	struct bio_list bios;
	struct bio *bio;

	spin_lock_irq(&r0->lock);
	bios = r0->deferred;
	bio_list_init(&r0->deferred);
	spin_unlock_irq(&r0->lock);
	while ((bio = bio_list_pop(&bios))) {
		struct stria_array *a = stria_bio_array(bio);
		struct request_queue *q = a->disk->queue;

		stria_raid0_rw(a, bio);
		percpu_ref_put(&q->q_usage_counter);
	}
}

/*
 * The member bios @bio becomes: a flush of every member that has not
 * failed (a preflush), or each member's part of a discard, secure erase or
 * write-zeroes range. They end into a fan bio, which ends @bio.
 */
static void stria_raid0_fan_out(struct stria_array *a, struct bio *bio)
{
	bool flush = bio->bi_opf & REQ_PREFLUSH;
	gfp_t gfp = stria_raid0_gfp(bio);
	u64 pos = bio->bi_iter.bi_sector, ms, len;
	struct stria_clone *c;
	stria_opf_t opf;
	struct bio *fan;
	u32 i;

	/* its member bios are not polled (nor the data of a preflush after) */
	stria_bio_unpoll(bio);
	fan = stria_bio_alloc_bioset(NULL, 0, 0, gfp, &a->r0->fan_set);
	if (unlikely(!fan)) {
		stria_raid0_nomem(bio);
		return;
	}
	c = container_of(fan, struct stria_clone, bio);
	c->orig = bio;
	c->member = NULL;
	atomic_set(&c->poll, STRIA_CLONE_NOT_POLLED);
	c->acct = !flush && blk_queue_io_stat(a->disk->queue);
	if (c->acct)
		c->start = bio_start_io_acct(bio);
	fan->bi_end_io = stria_raid0_fan_end;
	if (flush) {
		this_cpu_inc(a->stats->flushes);
		opf = REQ_OP_WRITE | REQ_PREFLUSH | REQ_SYNC;
	} else {
		this_cpu_inc(a->stats->discards);
		opf = bio_op(bio) | (bio->bi_opf & REQ_NOUNMAP);
	}
	for (i = 0; i < a->nr_members; i++) {
		struct stria_member *m = &a->members[i];

		if (flush) {
			/* a failed member holds nothing the array counts on */
			if (stria_member_failed(m))
				continue;
			ms = 0;
			len = 0;
		} else {
			len = stria_raid0_member_range(&a->geom, pos,
						       bio_sectors(bio), i,
						       &ms);
			if (!len)
				continue;
			ms += a->data_offset;
			trace_stria_map(a->index, (__force u32)bio_op(bio), pos,
					bio_sectors(bio), i, ms);
		}
		if (!stria_raid0_child(a, bio, fan, m, opf, ms, len, gfp)) {
			/*
			 * Only a REQ_NOWAIT bio's allocation fails: what was
			 * sent ends, and the submitter sends it all again
			 * without REQ_NOWAIT.
			 */
			fan->bi_status = BLK_STS_AGAIN;
			break;
		}
	}
	bio_endio(fan);
}

/*
 * A read or write: cut at the chunk boundary, the first part cloned to the
 * member holding it. Inside submit_bio() (current->bio_list set) the rest
 * is submitted again, and comes back here once the clone has gone down;
 * outside (the work item), where each clone goes down at once, the rest is
 * cut and sent here.
 */
static void stria_raid0_rw(struct stria_array *a, struct bio *bio)
{
	struct bio *split;
	u32 left;

	while (bio_sectors(bio) >
	       (left = stria_geom_chunk_sectors_left(&a->geom,
						     bio->bi_iter.bi_sector))) {
		/* as the block layer's own splits: a split bio is not polled */
		stria_bio_unpoll(bio);
		/*
		 * Nor "nowait": a REQ_NOWAIT bio may end "would block" only
		 * while none of it has reached a member (its submitter then
		 * issues it again, waiting). Once one part is on a member,
		 * the next part's member (its queue frozen by a reset, or
		 * out of tags) must not end the whole bio so, from a
		 * completion where io_uring cannot issue it again (6.1 hands
		 * the EAGAIN to the application): the parts wait instead.
		 */
		bio->bi_opf &= ~REQ_NOWAIT;
		split = stria_bio_split(bio, left, stria_raid0_gfp(bio),
					&a->r0->split_set);
		if (unlikely(!split)) {
			stria_raid0_nomem(bio);
			return;
		}
		bio_chain(split, bio);
		trace_block_split(split, bio->bi_iter.bi_sector);
		if (!stria_raid0_clone(a, split)) {
			/* @split ended into @bio, which ends with it */
			stria_raid0_nomem(bio);
			return;
		}
		if (current->bio_list) {
			submit_bio_noacct(bio);
			return;
		}
	}
	stria_raid0_clone(a, bio);
}

static void stria_raid0_submit_bio(struct stria_array *a, struct bio *bio)
{
	if (unlikely(bio->bi_opf & REQ_PREFLUSH)) {
		stria_raid0_fan_out(a, bio);
		return;
	}
	switch (bio_op(bio)) {
	case REQ_OP_READ:
	case REQ_OP_WRITE:
		stria_raid0_rw(a, bio);
		return;
	case REQ_OP_DISCARD:
	case REQ_OP_SECURE_ERASE:
	case REQ_OP_WRITE_ZEROES:
		/* while two layouts hold the data: a chunk at a time */
		if (unlikely(READ_ONCE(a->reshaping)))
			stria_raid0_rw(a, bio);
		else
			stria_raid0_fan_out(a, bio);
		return;
	default:
		bio->bi_status = BLK_STS_NOTSUPP;
		bio_endio(bio);
	}
}

static int stria_raid0_init(struct stria_array *a)
{
	struct stria_raid0 *r0;
	int ret;

	r0 = kzalloc_node(sizeof(*r0), GFP_KERNEL, a->node);
	if (!r0)
		return -ENOMEM;
	ret = bioset_init(&r0->split_set, BIO_POOL_SIZE, 0, 0);
	if (ret)
		goto out_free;
	/* never submitted, so no rescuer */
	ret = bioset_init(&r0->fan_set, BIO_POOL_SIZE,
			  offsetof(struct stria_clone, bio), 0);
	if (ret)
		goto out_split_set;
	r0->wq = alloc_workqueue("stria%d_flush",
				 WQ_MEM_RECLAIM | STRIA_WQ_PERCPU, 0, a->index);
	if (!r0->wq) {
		ret = -ENOMEM;
		goto out_fan_set;
	}
	spin_lock_init(&r0->lock);
	bio_list_init(&r0->deferred);
	INIT_WORK(&r0->work, stria_raid0_deferred_work);
	a->r0 = r0;
	return 0;

out_fan_set:
	bioset_exit(&r0->fan_set);
out_split_set:
	bioset_exit(&r0->split_set);
out_free:
	kfree(r0);
	return ret;
}

static void stria_raid0_exit(struct stria_array *a)
{
	struct stria_raid0 *r0 = a->r0;

	/* empty: the disk's removal waited for every bio (and the deferred) */
	destroy_workqueue(r0->wq);
	bioset_exit(&r0->fan_set);
	bioset_exit(&r0->split_set);
	kfree(r0);
	a->r0 = NULL;
}

const struct stria_level_ops stria_raid0_ops = {
	.level		= 0,
	.name		= "raid0",
	.submit_bio	= stria_raid0_submit_bio,
	.init		= stria_raid0_init,
	.exit		= stria_raid0_exit,
};
