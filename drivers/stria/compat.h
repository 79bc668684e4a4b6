/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stria: kernel API differences, and nothing else.
 *
 * Every wrapper below is chosen by a compile-test probe
 * (drivers/stria/probes/, run by scripts/probe-kernel into
 * compat_probes.h), never by LINUX_VERSION_CODE: distribution kernels
 * backport APIs. Each wrapper lists the history of the API it hides and ends
 * in #error when no known variant is present, so a new kernel fails loudly
 * at build time instead of doing the wrong thing at run time.
 *
 * Built and tested on Debian's 6.1, 6.12 and 7.3 (README: Supported
 * kernels). The variants of older kernels below (from 5.14) come from the
 * kernels' history and are not built here.
 */
#ifndef _STRIA_COMPAT_H
#define _STRIA_COMPAT_H

#include <linux/bio.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/err.h>
#include <linux/mm.h>
#include <linux/raid/pq.h>
#include <linux/raid/xor.h>
#include <compat_probes.h>

/*
 * Request operation and flags type:
 *   <6.0: unsigned int
 *   6.0:  blk_opf_t (a sparse __bitwise type)
 */
#if defined(STRIA_HAVE_BLK_OPF_T)
#define stria_opf_t	blk_opf_t
#else
#define stria_opf_t	unsigned int
#endif

/*
 * Tag set merge flag:
 *   <6.14: BLK_MQ_F_SHOULD_MERGE asks blk-mq to merge bios into requests
 *   6.14:  merging is the default and the flag is gone
 */
#if defined(STRIA_HAVE_BLK_MQ_F_SHOULD_MERGE)
#define STRIA_BLK_MQ_F_SHOULD_MERGE	BLK_MQ_F_SHOULD_MERGE
#else
#define STRIA_BLK_MQ_F_SHOULD_MERGE	0
#endif

/*
 * Allocating a blk-mq disk with its queue limits:
 *   5.14: blk_mq_alloc_disk(set, queuedata); limits set on disk->queue
 *         before add_disk (as dm does), write cache by blk_queue_write_cache()
 *   6.9:  blk_mq_alloc_disk(set, lim, queuedata)
 *   6.11: write cache and FUA are lim->features (BLK_FEAT_*)
 * stria_alloc_disk_limits() returns the disk with @lim applied and a
 * volatile write cache with FUA declared.
 */
static inline struct gendisk *stria_alloc_disk_limits(struct blk_mq_tag_set *set,
						      struct queue_limits *lim,
						      void *queuedata)
{
	struct gendisk *disk;

#if defined(STRIA_HAVE_BLK_FEAT_WRITE_CACHE)
	lim->features |= BLK_FEAT_WRITE_CACHE | BLK_FEAT_FUA;
#endif
#if defined(STRIA_HAVE_BLK_MQ_ALLOC_DISK_LIMITS)
	disk = blk_mq_alloc_disk(set, lim, queuedata);
#else
	disk = blk_mq_alloc_disk(set, queuedata);
	if (!IS_ERR(disk))
		disk->queue->limits = *lim;
#endif
#if !defined(STRIA_HAVE_BLK_FEAT_WRITE_CACHE)
	if (!IS_ERR(disk))
		blk_queue_write_cache(disk->queue, true, true);
#endif
	return disk;
}

/*
 * Allocating a bio-based disk (RAID0) with its queue limits:
 *   5.14: blk_alloc_disk(node); limits set on disk->queue; write cache,
 *         I/O statistics and nowait (REQ_NOWAIT bios, which io_uring sends)
 *         are queue flags, set here (nowait when every member has it)
 *   6.9:  blk_alloc_disk(lim, node)
 *   6.11: they are lim->features: stria_bio_disk_features() sets them
 *         before the members' limits are stacked (stria_limits()), and
 *         blk_stack_limits() drops nowait when a member lacks it; @nowait
 *         is not used
 * The queue's queuedata is @queuedata, as blk_mq_alloc_disk() sets it.
 */
static inline void stria_bio_disk_features(struct queue_limits *lim)
{
#if defined(STRIA_HAVE_BLK_FEAT_WRITE_CACHE)
	lim->features |= BLK_FEAT_IO_STAT | BLK_FEAT_NOWAIT;
#endif
}

static inline struct gendisk *stria_alloc_bio_disk(struct queue_limits *lim,
						   int node, void *queuedata,
						   bool nowait)
{
	struct gendisk *disk;

#if defined(STRIA_HAVE_BLK_FEAT_WRITE_CACHE)
	lim->features |= BLK_FEAT_WRITE_CACHE | BLK_FEAT_FUA;
#endif
#if defined(STRIA_HAVE_BLK_MQ_ALLOC_DISK_LIMITS)
	disk = blk_alloc_disk(lim, node);
#else
	disk = blk_alloc_disk(node);
	if (disk)
		disk->queue->limits = *lim;
	else
		disk = ERR_PTR(-ENOMEM);
#endif
	if (IS_ERR(disk))
		return disk;
	disk->queue->queuedata = queuedata;
#if !defined(STRIA_HAVE_BLK_FEAT_WRITE_CACHE)
	blk_queue_write_cache(disk->queue, true, true);
	blk_queue_flag_set(QUEUE_FLAG_IO_STAT, disk->queue);
	if (nowait)
		blk_queue_flag_set(QUEUE_FLAG_NOWAIT, disk->queue);
#endif
	return disk;
}

/*
 * Cutting the front @sectors off @bio into a new bio from @bs:
 *   5.14 to 6.12: bio_split() returns NULL when it cannot allocate
 *   later:        it returns an ERR_PTR() (as md raid0 checks from 6.12)
 * stria_bio_split() returns NULL for either.
 */
static inline struct bio *stria_bio_split(struct bio *bio, int sectors,
					  gfp_t gfp, struct bio_set *bs)
{
	struct bio *split = bio_split(bio, sectors, gfp, bs);

	return IS_ERR_OR_NULL(split) ? NULL : split;
}

/*
 * A bio-based disk's polled bios (RAID0):
 *   5.18: block_device_operations.poll_bio polls them
 * STRIA_FOPS_POLL_BIO(fn) sets it in a block_device_operations where the
 * kernel has it and stria polls (STRIA_POLL); without it a RAID0 array does
 * not poll (stria_poll_member_queues()).
 */
#if defined(STRIA_HAVE_FOPS_POLL_BIO)
#define STRIA_HAVE_POLL_BIO	1
#define STRIA_FOPS_POLL_BIO(fn)	.poll_bio = (fn),
#else
#define STRIA_HAVE_POLL_BIO	0
#define STRIA_FOPS_POLL_BIO(fn)
#endif

/*
 * Releasing a blk-mq disk after del_gendisk():
 *   5.14: blk_cleanup_disk()
 *   6.0:  put_disk()
 */
static inline void stria_put_disk(struct gendisk *disk)
{
#if defined(STRIA_HAVE_BLK_CLEANUP_DISK)
	blk_cleanup_disk(disk);
#else
	put_disk(disk);
#endif
}

/*
 * block_device_operations.open:
 *   5.14: int (*)(struct block_device *, fmode_t)
 *   6.5:  int (*)(struct gendisk *, blk_mode_t)
 * An open method takes (stria_open_arg_t arg, stria_open_mode_t mode) and
 * finds its disk with stria_open_disk(arg).
 */
#if defined(STRIA_HAVE_FOPS_OPEN_GENDISK)
#define stria_open_arg_t	struct gendisk *
#define stria_open_mode_t	blk_mode_t
static inline struct gendisk *stria_open_disk(struct gendisk *disk)
{
	return disk;
}
#else
#define stria_open_arg_t	struct block_device *
#define stria_open_mode_t	fmode_t
static inline struct gendisk *stria_open_disk(struct block_device *bdev)
{
	return bdev->bd_disk;
}
#endif

/*
 * The memory of a hardware queue's requests, to report which NUMA node it
 * is on (sysfs memory_nodes):
 *   5.14: struct blk_mq_tags is private to the block layer: unknown (NULL)
 *   5.16: hctx->tags->static_rqs[]
 */
static inline const void *stria_hctx_request_mem(struct blk_mq_hw_ctx *hctx)
{
#if defined(STRIA_HAVE_BLK_MQ_TAGS_PUBLIC)
	if (hctx->tags && hctx->tags->nr_tags)
		return hctx->tags->static_rqs[0];
#endif
	return NULL;
}

/*
 * How many have the disk open:
 *   5.14: disk->part0->bd_openers (int)
 *   5.19: disk_openers()
 */
static inline unsigned int stria_disk_openers(struct gendisk *disk)
{
#if defined(STRIA_HAVE_DISK_OPENERS)
	return disk_openers(disk);
#else
	return disk->part0->bd_openers;
#endif
}

/*
 * blk_mq_ops.map_queues:
 *   5.14: int (*)(struct blk_mq_tag_set *)
 *   6.1:  void (*)(struct blk_mq_tag_set *)
 * stria_map_queues() has the right type and calls stria_map_cpus() (io.c).
 */
void stria_map_cpus(struct blk_mq_tag_set *set);
#if defined(STRIA_HAVE_MAP_QUEUES_VOID)
static inline void stria_map_queues(struct blk_mq_tag_set *set)
{
	stria_map_cpus(set);
}
#else
static inline int stria_map_queues(struct blk_mq_tag_set *set)
{
	stria_map_cpus(set);
	return 0;
}
#endif

/*
 * bio_alloc() and bio_alloc_bioset():
 *   <5.18: bio_alloc(gfp, nr_vecs) / bio_alloc_bioset(gfp, nr_vecs, bs),
 *          then bio_set_dev() and bi_opf
 *   5.18:  bio_alloc(bdev, nr_vecs, opf, gfp) /
 *          bio_alloc_bioset(bdev, nr_vecs, opf, gfp, bs)
 */
static inline struct bio *stria_bio_alloc(struct block_device *bdev,
					  unsigned short nr_vecs,
					  stria_opf_t opf, gfp_t gfp)
{
#if defined(STRIA_HAVE_BIO_ALLOC_BDEV)
	return bio_alloc(bdev, nr_vecs, opf, gfp);
#else
	struct bio *bio = bio_alloc(gfp, nr_vecs);

	if (bio) {
		bio_set_dev(bio, bdev);
		bio->bi_opf = opf;
	}
	return bio;
#endif
}

static inline struct bio *stria_bio_alloc_bioset(struct block_device *bdev,
						 unsigned short nr_vecs,
						 stria_opf_t opf, gfp_t gfp,
						 struct bio_set *bs)
{
#if defined(STRIA_HAVE_BIO_ALLOC_BDEV)
	return bio_alloc_bioset(bdev, nr_vecs, opf, gfp, bs);
#else
	struct bio *bio = bio_alloc_bioset(gfp, nr_vecs, bs);

	if (bio) {
		bio_set_dev(bio, bdev);
		bio->bi_opf = opf;
	}
	return bio;
#endif
}

/*
 * Cloning a bio (sharing its pages) for another device:
 *   <5.18: bio_clone_fast(src, gfp, bs), then bio_set_dev()
 *   5.18:  bio_alloc_clone(bdev, src, gfp, bs)
 */
static inline struct bio *stria_bio_alloc_clone(struct block_device *bdev,
						struct bio *src, gfp_t gfp,
						struct bio_set *bs)
{
#if defined(STRIA_HAVE_BIO_ALLOC_CLONE)
	return bio_alloc_clone(bdev, src, gfp, bs);
#else
	struct bio *bio = bio_clone_fast(src, gfp, bs);

	if (bio)
		bio_set_dev(bio, bdev);
	return bio;
#endif
}

/*
 * Cloning a bio into memory the caller owns (no allocation):
 *   <5.18: not offered here (-EOPNOTSUPP): callers use a bio_set
 *   5.18:  bio_init_clone(bdev, bio, src, gfp); undone by bio_uninit()
 */
static inline int stria_bio_init_clone(struct block_device *bdev,
				       struct bio *bio, struct bio *src,
				       gfp_t gfp)
{
#if defined(STRIA_HAVE_BIO_ALLOC_CLONE)
	return bio_init_clone(bdev, bio, src, gfp);
#else
	return -EOPNOTSUPP;
#endif
}

/**
 * struct stria_bdev - an exclusively opened member device
 * @bdev: the block device
 * @handle: what the open returned, for the matching close
 */
struct stria_bdev {
	struct block_device *bdev;
	void *handle;
};

/*
 * Told when a member goes away: the block layer calls ->mark_dead() of the
 * holder operations a device was opened with when the device is removed
 * (del_gendisk()) or found dead (blk_mark_disk_dead()):
 *   <6.5: no holder operations; a member that went away is noticed at its
 *         next I/O, or when udev's remove event runs striactl
 *   6.5:  struct blk_holder_ops { mark_dead(bdev) }, called with
 *         bd_holder_lock held across the call
 *   6.6:  mark_dead(bdev, surprise)
 *   6.8:  ->sync, ->freeze and ->thaw beside it; ->mark_dead() is called
 *         with bd_holder_lock held and releases it (fs_bdev_mark_dead())
 * stria registers its own (members.c) only where ->sync shows the 6.8
 * contract (probe blk_holder_ops_sync); elsewhere STRIA_HOLDER_OPS is NULL
 * and udev's rule is the only way a pulled member of an idle array fails.
 */
#if defined(STRIA_HAVE_BLK_HOLDER_OPS_SYNC)
extern const struct blk_holder_ops stria_holder_ops;
#define STRIA_HOLDER_OPS (&stria_holder_ops)
#else
#define STRIA_HOLDER_OPS NULL
#endif

/*
 * Opening a member by device number, read-write and exclusively (the
 * by-path and by-number calls were always introduced together, so the
 * by-path probes choose):
 *   <6.5: blkdev_get_by_dev(dev, FMODE_READ|FMODE_WRITE|FMODE_EXCL, holder)
 *   6.5:  blkdev_get_by_dev(dev, BLK_OPEN_*, holder, hops)
 *   6.7:  bdev_open_by_dev() -> struct bdev_handle
 *   6.9:  bdev_file_open_by_dev() -> struct file
 * Closed with stria_bdev_close(). Returns 0 or a negative errno.
 */
static inline int stria_bdev_open_dev(dev_t dev, void *holder,
				      struct stria_bdev *m)
{
#if defined(STRIA_HAVE_BDEV_FILE_OPEN_BY_PATH)
	struct file *f = bdev_file_open_by_dev(dev, BLK_OPEN_READ |
					       BLK_OPEN_WRITE, holder,
					       STRIA_HOLDER_OPS);

	if (IS_ERR(f))
		return PTR_ERR(f);
	m->handle = f;
	m->bdev = file_bdev(f);
#elif defined(STRIA_HAVE_BDEV_OPEN_BY_PATH)
	struct bdev_handle *h = bdev_open_by_dev(dev, BLK_OPEN_READ |
						 BLK_OPEN_WRITE, holder,
						 STRIA_HOLDER_OPS);

	if (IS_ERR(h))
		return PTR_ERR(h);
	m->handle = h;
	m->bdev = h->bdev;
#elif defined(STRIA_HAVE_BLKDEV_GET_BY_PATH_HOPS)
	struct block_device *b = blkdev_get_by_dev(dev, BLK_OPEN_READ |
						   BLK_OPEN_WRITE, holder,
						   NULL);

	if (IS_ERR(b))
		return PTR_ERR(b);
	m->handle = holder;
	m->bdev = b;
#elif defined(STRIA_HAVE_BLKDEV_GET_BY_PATH_FMODE)
	struct block_device *b = blkdev_get_by_dev(dev, FMODE_READ |
						   FMODE_WRITE | FMODE_EXCL,
						   holder);

	if (IS_ERR(b))
		return PTR_ERR(b);
	m->handle = holder;
	m->bdev = b;
#else
#error "Unsupported kernel: no known way to open a block device by number"
#endif
	return 0;
}

/*
 * Opening a member by path: look the path up (what every version's by-path
 * call does first), then open it by number. Returns 0 or a negative errno:
 * -ENOENT, -ENOTBLK, or -EBUSY when another holder has it.
 */
static inline int stria_bdev_open(const char *path, void *holder,
				  struct stria_bdev *m)
{
	dev_t dev;
	int ret;

	ret = lookup_bdev(path, &dev);
	if (ret)
		return ret;
	return stria_bdev_open_dev(dev, holder, m);
}

/*
 * Freezing a queue (no request in flight until unfrozen):
 *   <6.14: blk_mq_freeze_queue(q) / blk_mq_unfreeze_queue(q)
 *   6.14:  blk_mq_freeze_queue(q) returns memalloc flags (a NOIO scope
 *          while frozen) that blk_mq_unfreeze_queue(q, memflags) restores
 * stria_array_freeze() (io.c: blk_freeze_queue_start() and a wait that
 * reports, in a NOIO scope on 6.14 as blk_mq_freeze_queue() has) returns
 * what stria_unfreeze_queue() takes.
 */
static inline unsigned int stria_freeze_queue(struct request_queue *q)
{
#if defined(STRIA_HAVE_BLK_MQ_FREEZE_QUEUE_MEMFLAGS)
	return blk_mq_freeze_queue(q);
#else
	blk_mq_freeze_queue(q);
	return 0;
#endif
}

static inline void stria_unfreeze_queue(struct request_queue *q,
					unsigned int memflags)
{
#if defined(STRIA_HAVE_BLK_MQ_FREEZE_QUEUE_MEMFLAGS)
	blk_mq_unfreeze_queue(q, memflags);
#else
	blk_mq_unfreeze_queue(q);
#endif
}

static inline void stria_bdev_close(struct stria_bdev *m)
{
#if defined(STRIA_HAVE_BDEV_FILE_OPEN_BY_PATH)
	fput(m->handle);
#elif defined(STRIA_HAVE_BDEV_OPEN_BY_PATH)
	bdev_release(m->handle);
#elif defined(STRIA_HAVE_BLKDEV_GET_BY_PATH_HOPS)
	blkdev_put(m->bdev, m->handle);
#else
	blkdev_put(m->bdev, FMODE_READ | FMODE_WRITE | FMODE_EXCL);
#endif
	m->bdev = NULL;
	m->handle = NULL;
}

/*
 * Taking the task's plug away for a while (current->plug = NULL), so that
 * bios submitted meanwhile go straight to their queues:
 *   <6.9: nothing else to do
 *   6.9:  the plug caches the time (plug->cur_ktime) while the task has
 *         PF_BLOCK_TS, and a context switch clears it through
 *         current->plug; 6.12 does so in finish_task_switch() without
 *         checking for NULL, so with the flag set and no plug the next
 *         reschedule oopses. Drop the cached time first, as
 *         __blk_flush_plug() does.
 * stria_plug_detach() returns what stria_plug_attach() puts back.
 */
#include <linux/sched.h>
static inline struct blk_plug *stria_plug_detach(void)
{
	struct blk_plug *plug = current->plug;

#if defined(STRIA_HAVE_PF_BLOCK_TS)
	if (plug && (current->flags & PF_BLOCK_TS)) {
		plug->cur_ktime = 0;
		current->flags &= ~PF_BLOCK_TS;
	}
#endif
	current->plug = NULL;
	return plug;
}

static inline void stria_plug_attach(struct blk_plug *plug)
{
	current->plug = plug;
}

/*
 * Setting up an hrtimer:
 *   <6.13: hrtimer_init(timer, clock, mode), then timer->function = fn
 *   6.13:  hrtimer_setup(timer, fn, clock, mode); hrtimer_init() is gone
 *          from 6.15
 */
#include <linux/hrtimer.h>
static inline void stria_hrtimer_setup(struct hrtimer *t,
				       enum hrtimer_restart (*fn)(struct hrtimer *),
				       clockid_t clock, enum hrtimer_mode mode)
{
#if defined(STRIA_HAVE_HRTIMER_SETUP)
	hrtimer_setup(t, fn, clock, mode);
#else
	hrtimer_init(t, clock, mode);
	t->function = fn;
#endif
}

/*
 * The structure around a timer_list, in its callback:
 *   4.15:  from_timer(var, timer, field), with timer_setup()
 *   6.16:  timer_container_of(); from_timer() is gone
 */
#if defined(STRIA_HAVE_TIMER_CONTAINER_OF)
#define stria_timer_container_of	timer_container_of
#else
#define stria_timer_container_of	from_timer
#endif

/*
 * Changing the discard and write-zeroes limits of a live queue, frozen
 * meanwhile:
 *   5.14: blk_queue_max_discard_sectors(), blk_queue_max_write_zeroes_sectors()
 *         and q->limits.discard_granularity
 *   6.9:  a copy from queue_limits_start_update(), changed, then validated
 *         and applied by queue_limits_commit_update()
 * The values are those stria_limits() computes (max_hw_discard_sectors,
 * discard_granularity, max_write_zeroes_sectors of @lim). As
 * queue_limits_commit_update_frozen() (6.13) does: limits_lock first, then
 * the freeze, the order the kernel's own limit changes take (6.13's
 * lockdep knows a freeze as a lock); so the caller must not hold a freeze.
 */
static inline int stria_update_zero_limits(struct request_queue *q,
					   const struct queue_limits *lim)
{
	unsigned int memflags;
#if defined(STRIA_HAVE_QUEUE_LIMITS_START_UPDATE)
	struct queue_limits l;
	int ret;
#endif

	/* nothing to change: no freeze (only the caller changes these) */
	if (q->limits.max_hw_discard_sectors == lim->max_hw_discard_sectors &&
	    q->limits.discard_granularity == lim->discard_granularity &&
	    q->limits.max_write_zeroes_sectors == lim->max_write_zeroes_sectors)
		return 0;
#if defined(STRIA_HAVE_QUEUE_LIMITS_START_UPDATE)
	l = queue_limits_start_update(q);
	l.max_hw_discard_sectors = lim->max_hw_discard_sectors;
	l.discard_granularity = lim->discard_granularity;
	l.max_write_zeroes_sectors = lim->max_write_zeroes_sectors;
	memflags = stria_freeze_queue(q);
	ret = queue_limits_commit_update(q, &l);
	stria_unfreeze_queue(q, memflags);
	return ret;
#else
	memflags = stria_freeze_queue(q);
	blk_queue_max_discard_sectors(q, lim->max_hw_discard_sectors);
	q->limits.discard_granularity = lim->discard_granularity;
	blk_queue_max_write_zeroes_sectors(q, lim->max_write_zeroes_sectors);
	stria_unfreeze_queue(q, memflags);
	return 0;
#endif
}

/*
 * Polled I/O (io_uring IORING_SETUP_IOPOLL, preadv2 RWF_HIPRI):
 *   <5.16: blk_poll(q, cookie, spin) on the cookie submit_bio() returned:
 *          not supported, the array has no poll queues (STRIA_POLL 0)
 *   5.16:  the bio is REQ_POLLED and bio_poll(bio, iob, flags) polls the
 *          hardware queue its request went to (bio->bi_cookie);
 *          blk_mq_ops.poll(hctx, iob). A queue polls while it has
 *          QUEUE_FLAG_POLL, which blk-mq sets when the tag set has poll
 *          queues; a REQ_POLLED bio to a queue without it loses the flag
 *          and completes by interrupt
 *   6.11:  the flag is BLK_FEAT_POLL in queue_limits.features, changed with
 *          queue_limits_start_update()/queue_limits_commit_update(); a
 *          REQ_POLLED bio to a queue without it fails (BLK_STS_NOTSUPP)
 * stria_queue_polls() says whether @q polls now; stria_queue_set_poll()
 * turns polling on or off. On a live queue it does so frozen, as the
 * kernel's own switches do: a poller stops polling a queue that does not
 * poll (bio_poll(), blk_mq_poll()), so no polled request may be in flight
 * when it goes off. 6.11's limits are updated as
 * queue_limits_commit_update_frozen() does: limits_lock, then the freeze.
 */
#if defined(STRIA_HAVE_BIO_POLL)
#define STRIA_POLL	1
static inline bool stria_queue_polls(struct request_queue *q)
{
#if defined(STRIA_HAVE_BLK_FEAT_POLL)
	return q->limits.features & BLK_FEAT_POLL;
#elif defined(STRIA_HAVE_QUEUE_FLAG_POLL)
	return test_bit(QUEUE_FLAG_POLL, &q->queue_flags);
#else
#error "Unsupported kernel: no known way to tell whether a queue polls"
#endif
}

static inline int stria_queue_set_poll(struct request_queue *q, bool on,
				       bool live)
{
	unsigned int memflags = 0;
#if defined(STRIA_HAVE_BLK_FEAT_POLL)
	struct queue_limits lim = queue_limits_start_update(q);
	int ret;

	if (on)
		lim.features |= BLK_FEAT_POLL;
	else
		lim.features &= ~BLK_FEAT_POLL;
	if (live)
		memflags = stria_freeze_queue(q);
	ret = queue_limits_commit_update(q, &lim);
	if (live)
		stria_unfreeze_queue(q, memflags);
	return ret;
#elif defined(STRIA_HAVE_QUEUE_FLAG_POLL)
	if (live)
		memflags = stria_freeze_queue(q);
	if (on)
		blk_queue_flag_set(QUEUE_FLAG_POLL, q);
	else
		blk_queue_flag_clear(QUEUE_FLAG_POLL, q);
	if (live)
		stria_unfreeze_queue(q, memflags);
	return 0;
#else
#error "Unsupported kernel: no known way to turn a queue's polling on or off"
#endif
}

/*
 * Polling one hardware queue of a member: bio_poll() on a bio that only
 * names the device and the queue's cookie (what blk-mq wrote in
 * bio->bi_cookie when it started a request there), once, without sleeping:
 *   5.16: cookie = queue_num << 16 | tag, the tag only for hybrid polling
 *         (sleeping first, when io_poll_delay >= 0), which BLK_POLL_NOSLEEP
 *         keeps out
 *   6.4:  hybrid polling and BLK_POLL_NOSLEEP are gone: cookie = queue_num
 */
static inline int stria_poll_queue(struct block_device *bdev,
				   unsigned int queue_num,
				   struct io_comp_batch *iob)
{
	struct bio probe = { .bi_bdev = bdev };

#if defined(STRIA_HAVE_BLK_POLL_NOSLEEP)
	probe.bi_cookie = queue_num << 16;
	return bio_poll(&probe, iob, BLK_POLL_ONESHOT | BLK_POLL_NOSLEEP);
#else
	probe.bi_cookie = queue_num;
	return bio_poll(&probe, iob, BLK_POLL_ONESHOT);
#endif
}
#else
#define STRIA_POLL	0
#endif

/*
 * A workqueue whose work runs on the CPU that queued it (queue_work_on()
 * honours the CPU), what alloc_workqueue() without WQ_UNBOUND has always
 * given:
 *   <6.17: no flag for it: bound unless WQ_UNBOUND
 *   6.17:  WQ_PERCPU says so, on the way to unbound by default (Debian's
 *          6.12.117 has the flag too); Debian's 7.3.4 WARNs at a workqueue
 *          with neither WQ_PERCPU nor WQ_UNBOUND
 * Every alloc_workqueue() of stria that is not unbound passes this.
 */
#if defined(STRIA_HAVE_WQ_PERCPU)
#define STRIA_WQ_PERCPU	WQ_PERCPU
#else
#define STRIA_WQ_PERCPU	0
#endif

/*
 * crc32c() (the superblock checksum), the same call on every kernel; only
 * the option that builds it moved:
 *   2.6.23: libcrc32c (CONFIG_LIBCRC32C), <linux/crc32c.h>
 *   6.15:   the CRC32 library (CONFIG_CRC32), declared in <linux/crc32.h>;
 *           CONFIG_LIBCRC32C is gone
 * No wrapper: scripts/probe-kernel refuses a kernel that has neither
 * (probes crc32c_libcrc32c and crc32c_crc32).
 */

/*
 * The RAID6 syndrome library (raid6_pq.ko):
 *   2.6.18: a call table chosen at load: raid6_call.gen_syndrome();
 *           raid6_2data_recov() and raid6_datap_recov() are function
 *           pointers set with it
 *   4.1:    raid6_call.xor_syndrome for read-modify-write, NULL where the
 *           chosen implementation has none; the data it leaves unchanged
 *           is raid6_empty_zero_page
 *   7.2:    (Debian's 7.2.13 and 7.3.4 have it; 6.12 does not) plain
 *           functions behind static calls: raid6_gen_syndrome(),
 *           raid6_xor_syndrome() with raid6_can_xor_syndrome(),
 *           raid6_recov_2data(), raid6_recov_datap(); no zero page of its
 *           own, the kernel's ZERO_PAGE serves. They WARN outside task
 *           context (stria computes parity in its workqueue).
 */
#if defined(STRIA_HAVE_RAID6_GEN_SYNDROME)
#define stria_raid6_gen_syndrome	raid6_gen_syndrome
#define stria_raid6_xor_syndrome	raid6_xor_syndrome
#define stria_raid6_recov_2data		raid6_recov_2data
#define stria_raid6_recov_datap		raid6_recov_datap
static inline bool stria_raid6_can_xor_syndrome(void)
{
	return raid6_can_xor_syndrome();
}

static inline void *stria_raid6_zero_page(void)
{
	return page_address(ZERO_PAGE(0));
}
#elif defined(STRIA_HAVE_RAID6_CALL)
#define stria_raid6_gen_syndrome	raid6_call.gen_syndrome
#define stria_raid6_xor_syndrome	raid6_call.xor_syndrome
#define stria_raid6_recov_2data		raid6_2data_recov
#define stria_raid6_recov_datap		raid6_datap_recov
static inline bool stria_raid6_can_xor_syndrome(void)
{
	return raid6_call.xor_syndrome;
}

static inline void *stria_raid6_zero_page(void)
{
	return (void *)raid6_empty_zero_page;
}
#else
#error "Unsupported kernel: no known raid6_pq interface"
#endif

/*
 * XOR of blocks (xor.ko):
 *   2.6.18: xor_blocks(count, bytes, dest, srcs): dest ^= srcs[0..count),
 *           at most MAX_XOR_BLOCKS (4) sources a call
 *   7.2:    (with the raid6 functions above) xor_gen(dest, srcs, count,
 *           bytes), any number of sources
 */
static inline void stria_xor_blocks(void *dest, void **srcs,
				    unsigned int count, unsigned int bytes)
{
#if defined(STRIA_HAVE_XOR_GEN)
	xor_gen(dest, srcs, count, bytes);
#elif defined(STRIA_HAVE_XOR_BLOCKS)
	while (count) {
		unsigned int n = min_t(unsigned int, count, MAX_XOR_BLOCKS);

		xor_blocks(n, bytes, dest, srcs);
		srcs += n;
		count -= n;
	}
#else
#error "Unsupported kernel: no known xor interface"
#endif
}

#endif /* _STRIA_COMPAT_H */
