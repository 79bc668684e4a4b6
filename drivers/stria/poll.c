// SPDX-License-Identifier: GPL-2.0
/*
 * stria polled I/O: which members can poll, polling them for the array's
 * poll queues, and those queues' count and CPU map. A service of the
 * member I/O layer, beside io.c: the levels (raid0.c, raid56_*.c) and the
 * request path call it; it calls nothing above it.
 * Documentation/stria/layers.rst has the map.
 *
 * Layer: services (Documentation/stria/layers.rst,
 * drivers/stria/layers.map), beside io.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/cpumask.h>

#include "stria.h"

/*
 * Polled I/O of RAID5/6 (RAID0, bio-based, polls its clones themselves:
 * raid0.c, "Polled bios"). A polled request (REQ_POLLED, on one of the
 * array's poll queues) sends its member bios polled too wherever the
 * member can poll:
 * they go to the members' poll queues and raise no interrupt, so they
 * complete only when someone polls those queues. That someone is whoever
 * polls the array request (io_uring): bio_poll() on it reaches
 * stria_poll(), which polls every poll queue of every member once
 * (BLK_POLL_ONESHOT) and returns; the waiting, if any, is the caller's
 * (blk-mq's loop and io_uring's), never ours.
 *
 * Every poll queue of every member, not only the one a CPU maps to:
 * queue_rq() may sleep and continue on another CPU (BLOCKING tag set) or run
 * from kblockd, and the member I/O of a stripe operation may be sent from
 * a work item, so which member queue a bio went to is not known when the
 * array request is polled. A member has few poll queues, and polling an
 * empty one reads one completion entry.
 *
 * A poll here completes other tasks' requests, as a poll of an NVMe queue
 * does: blk-mq ends them, and no poller reads a request or bio of the
 * array's: blk_mq_poll() finds the array's queue by the cookie, and
 * stria_poll() reads nothing of what it polls for. A member's poll queues
 * are read (stria_bdev_poll()) with its queue held: they are remapped
 * (blk_mq_update_nr_hw_queues(), after a controller reset that changes
 * them) and its tag set is freed (hot removal) only once the queue is
 * frozen, which waits for that hold; a dying queue is polled until it
 * has drained, and gets no new polled I/O (stria_bdev_polls()).
 *
 * Nothing is lost: a member bio is polled only on behalf of an array
 * request that is on a poll queue and has not ended, whose poller
 * therefore keeps polling until it ends; a member that cannot poll gets
 * the bio without REQ_POLLED and completes it by interrupt, as does every
 * member bio of a request that is not polled (syncs, flushes, discards).
 * The member table changes with the array frozen, and a poller holds a
 * reference on the array's queue (bio_poll()), so a member device is not
 * released under a poller.
 */
#if STRIA_POLL
/* Does blk-mq queue @q have poll queues, with polling on? */
static bool stria_mq_polls(struct request_queue *q)
{
	return queue_is_mq(q) && q->tag_set->nr_maps > HCTX_TYPE_POLL &&
	       READ_ONCE(q->tag_set->map[HCTX_TYPE_POLL].nr_queues) &&
	       stria_queue_polls(q);
}

/*
 * Can member device @bdev take polled I/O: its queue polls and is not
 * going away (a removed device's tag set is freed once its queue has
 * drained, while we may still hold the device open).
 */
static bool stria_bdev_polls(struct block_device *bdev)
{
	struct request_queue *q = bdev_get_queue(bdev);

	return !blk_queue_dying(q) && stria_mq_polls(q);
}

/*
 * Poll every poll queue of member device @bdev once, its queue held (see
 * above): a hold taken while a freeze waits, as bio_poll() takes it, so
 * that the requests a freeze waits for are still polled to their end. A
 * dying queue is polled too, while it drains (del_gendisk() marks it dying
 * and then waits for its requests, polled ones included); the hold fails
 * once it has drained, before its tag set can be freed.
 */
static int stria_bdev_poll(struct block_device *bdev,
			   struct io_comp_batch *iob)
{
	const struct blk_mq_queue_map *map;
	struct request_queue *q;
	unsigned int i, nr;
	int found = 0, ret;

	if (!bdev)
		return 0;
	q = bdev_get_queue(bdev);
	if (!percpu_ref_tryget(&q->q_usage_counter))
		return 0;
	if (!stria_mq_polls(q))
		goto out;
	map = &q->tag_set->map[HCTX_TYPE_POLL];
	nr = READ_ONCE(map->nr_queues);
	for (i = 0; i < nr; i++) {
		ret = stria_poll_queue(bdev, map->queue_offset + i, iob);
		if (ret > 0)
			found += ret;
	}
out:
	percpu_ref_put(&q->q_usage_counter);
	return found;
}

/*
 * blk_mq_ops.poll: poll the members' poll queues once; see above. bio_poll()
 * holds a usage reference of the array's queue meanwhile, and a member's
 * device leaves the table only under a freeze of that queue and is closed
 * after it, so a device read here stays open until this returns.
 */
static int stria_poll_members(struct stria_array *a,
			      struct io_comp_batch *iob)
{
	int found = 0;
	u32 i;

	for (i = 0; i < a->nr_members; i++)
		found += stria_bdev_poll(READ_ONCE(a->members[i].dev.bdev), iob);
	if (READ_ONCE(a->repl_role) != STRIA_NO_MEMBER)
		found += stria_bdev_poll(READ_ONCE(a->repl.dev.bdev), iob);
	return found;
}

/**
 * stria_poll() - blk_mq_ops.poll: poll every member's poll queues once
 * @hctx: a poll queue of the array
 * @iob: the caller's completion batch
 *
 * Return: the completions found.
 */
int stria_poll(struct blk_mq_hw_ctx *hctx, struct io_comp_batch *iob)
{
	return stria_poll_members(hctx->queue->queuedata, iob);
}
#endif

/**
 * stria_bio_poll_if() - poll a member bio if asked and its member can
 * @bio: a bio for a member, its device set
 * @polled: it serves a polled request or bio
 *
 * Return: whether @bio is polled (REQ_POLLED) now; it completes by
 * interrupt otherwise, whatever it inherited.
 */
bool stria_bio_poll_if(struct bio *bio, bool polled)
{
#if STRIA_POLL
	if (polled &&
	    (bio_op(bio) == REQ_OP_READ || bio_op(bio) == REQ_OP_WRITE) &&
	    bio_sectors(bio) && !(bio->bi_opf & REQ_PREFLUSH) &&
	    stria_bdev_polls(bio->bi_bdev)) {
		bio->bi_opf |= REQ_POLLED;
		return true;
	}
	bio->bi_opf &= ~REQ_POLLED;
#endif
	return false;
}

/**
 * stria_bio_unpoll() - a bio of a bio-based array will not be polled
 * @bio: the array's bio (RAID0), to be split or sent to a member that
 *	cannot poll
 *
 * Its poller then waits for the interrupt. bio_clear_polled() also drops
 * 6.1's bio cache, whose bios must be freed in process context: the bio
 * now ends from the member's interrupt.
 */
void stria_bio_unpoll(struct bio *bio)
{
#if STRIA_POLL
	if (bio->bi_opf & REQ_POLLED)
		bio_clear_polled(bio);
#endif
}

/**
 * stria_clone_poll() - poll a bio-based array's clone as its bio, if it can be
 * @clone: the clone, its member device set
 * @bio: the array's bio (RAID0)
 *
 * Polled only while the array's queue polls too: 6.1 checks that in
 * submit_bio_noacct(), and blk-throttle may hold a bio after that and send
 * it on once polling has been turned off, when bio_poll() no longer polls
 * the array (its owner would then never end it). Inside ->submit_bio()
 * the queue is held, and polling changes only with it frozen.
 *
 * Return: whether @clone is polled; when it is not, neither is @bio
 * (stria_bio_unpoll()).
 */
bool stria_clone_poll(struct bio *clone, struct bio *bio)
{
#if STRIA_POLL
	if (stria_bio_poll_if(clone, (bio->bi_opf & REQ_POLLED) &&
			      stria_queue_polls(bdev_get_queue(bio->bi_bdev))))
		return true;
	stria_bio_unpoll(bio);
#endif
	return false;
}

/**
 * stria_bio_set_polled() - poll a member bio, or not
 * @bio: a bio for a member, its device set
 * @rq: the array request it serves, or NULL (a sync)
 *
 * The bio is polled (REQ_POLLED) when @rq is a polled request, the bio
 * reads or writes data and its device can poll now; else it completes by
 * interrupt, whatever it inherited from the request's bio.
 */
void stria_bio_set_polled(struct bio *bio, struct request *rq)
{
	stria_bio_poll_if(bio, stria_rq_polled(rq));
}

/**
 * stria_poll_member_queues() - the poll queues an array gets
 * @a: the array, its members open
 *
 * As many as the first member that polls has, so that the array's poll
 * queues map to the CPUs as the members' do (stria_map_poll()). None when
 * no member polls, or the kernel has no polled bios: the array then has
 * the hardware queues it always had, and does not poll until it is
 * assembled again on members that do.
 *
 * Return: the number of poll queues.
 */
u32 stria_poll_member_queues(struct stria_array *a)
{
#if STRIA_POLL
	u32 i;

	/* a bio-based array polls through poll_bio, if the kernel has it */
	if (stria_bio_based(a) && !STRIA_HAVE_POLL_BIO)
		return 0;

	for (i = 0; i < a->nr_members; i++) {
		struct block_device *bdev = a->members[i].dev.bdev;

		if (bdev && stria_bdev_polls(bdev))
			return clamp(bdev_get_queue(bdev)->tag_set->map[HCTX_TYPE_POLL].nr_queues,
				     1U, nr_cpu_ids);
	}
	return 0;
#else
	return 0;
#endif
}

/**
 * stria_map_poll() - blk_mq_ops.map_queues, the poll part
 * @set: the array's tag set
 *
 * With poll queues, the default queues come first, no read queues, then
 * the poll queues, each with the CPUs of the same poll queue of the first
 * member that has as many (blk-mq's spread when none has).
 */
void stria_map_poll(struct blk_mq_tag_set *set)
{
#if STRIA_POLL
	struct stria_array *a = set->driver_data;
	struct blk_mq_queue_map *pmap = &set->map[HCTX_TYPE_POLL];
	const struct blk_mq_queue_map *src = NULL;
	unsigned int npoll = a->poll_queues, cpu, q;
	u32 i;

	if (set->nr_maps <= HCTX_TYPE_POLL)
		return;
	set->map[HCTX_TYPE_DEFAULT].nr_queues = set->nr_hw_queues - npoll;
	set->map[HCTX_TYPE_DEFAULT].queue_offset = 0;
	set->map[HCTX_TYPE_READ].nr_queues = 0;
	pmap->nr_queues = npoll;
	pmap->queue_offset = set->nr_hw_queues - npoll;
	for (i = 0; i < a->nr_members && !src; i++) {
		struct block_device *bdev = a->members[i].dev.bdev;
		const struct blk_mq_queue_map *m;

		if (!bdev || !stria_bdev_polls(bdev))
			continue;
		m = &bdev_get_queue(bdev)->tag_set->map[HCTX_TYPE_POLL];
		if (m->nr_queues == npoll)
			src = m;
	}
	if (!src) {
		blk_mq_map_queues(pmap);
		return;
	}
	for_each_possible_cpu(cpu) {
		q = src->mq_map[cpu] - src->queue_offset;
		pmap->mq_map[cpu] = pmap->queue_offset +
				    (q < npoll ? q : cpu % npoll);
	}
#endif
}

/**
 * stria_poll_update() - advertise polling when every member can poll
 * @a: the array; its member table does not change meanwhile (cfg_lock, or
 *	not yet live)
 *
 * Polling is on while every member device (and a replacement being
 * copied) is a blk-mq queue with poll queues and polling on; off
 * otherwise, so that polled I/O is not offered where a member would take
 * it by interrupt. Called at creation and after every reconfiguration
 * (stria_array_unfreeze()). A change freezes the queue again
 * (stria_queue_set_poll()): the polled requests in flight end first,
 * polled to their end, and none is left to a poller that no longer polls.
 * Meanwhile polled requests are safe: a member that cannot poll gets
 * their bios unpolled (stria_bio_set_polled()).
 */
void stria_poll_update(struct stria_array *a)
{
#if STRIA_POLL
	struct request_queue *q = a->disk->queue;
	struct stria_member *bad = NULL;
	bool on;
	u32 i;

	for (i = 0; i < a->nr_members && !bad; i++)
		if (a->members[i].dev.bdev &&
		    !stria_bdev_polls(a->members[i].dev.bdev))
			bad = &a->members[i];
	if (!bad && a->repl_role != STRIA_NO_MEMBER && a->repl.dev.bdev &&
	    !stria_bdev_polls(a->repl.dev.bdev))
		bad = &a->repl;
	on = a->poll_queues && !bad;
	if (on == stria_queue_polls(q) ||
	    stria_queue_set_poll(q, on, disk_live(a->disk)) ||
	    !disk_live(a->disk))
		return;
	if (on)
		pr_info("stria%d: every member can poll: polled I/O on\n",
			a->index);
	else
		pr_info("stria%d: %pg cannot poll: polled I/O off\n",
			a->index, bad ? bad->dev.bdev : NULL);
#endif
}
