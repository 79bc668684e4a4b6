// SPDX-License-Identifier: GPL-2.0
/*
 * stria array lifecycle: create, assemble, stop.
 *
 * Starting an array (create or assemble) goes through the same steps, and
 * nothing user-visible happens until every check has passed:
 *  1. open every member exclusively (a mounted or held device is refused)
 *     and refuse the same device twice;
 *  2. create: check sizes and the geometry; assemble: read and check every
 *     superblock, and that they describe one complete, current array;
 *  3. pick the NUMA node (the members' majority unless the admin chose one)
 *     and allocate the array, its bio_set and queue (RAID5/6: and tag
 *     set) there;
 *  4. write the superblocks (events + 1, state active);
 *  5. add the gendisk striaN and the holder/slave links.
 * Stopping is refused while striaN is open; otherwise the disk goes away,
 * the superblocks are marked clean and the members are released.
 *
 * Members that failed stay in the array, marked failed. The superblocks of
 * the others record them (a bitmap by role): when a member fails, from I/O
 * completion in any context or from STRIA_IOC_MEMBER, sb_work (state.c)
 * writes them.
 * Writes that skipped a failed member are held until then (io.c), so
 * sb_work never waits for array I/O: it runs on a WQ_MEM_RECLAIM queue of
 * its own, allocates with GFP_NOIO, takes only sb_lock, and leaves the
 * spares (which freeze the queue) to kick_work.
 * Assembly takes the bitmap of the freshest superblock, starts those
 * members failed (their own, older superblocks are not held against them;
 * they may also be missing) and refuses when more have failed or are being
 * rebuilt than the level tolerates. A role that is missing but not recorded
 * as failed is refused too, unless the request says STRIA_ARRAY_F_RUN:
 * then it starts failed as well, and the first superblock update records
 * it, so the device is stale when it comes back (a degraded start, as
 * md's --run).
 *
 * Failing members on request, spares, add, remove and replace are in
 * members.c.
 *
 * Layer: the lifecycle, on top (Documentation/stria/layers.rst): it calls
 * every layer below and only ctl.c and main.c call it.
 *
 * stria_arrays_lock serialises these requests and protects the array list;
 * the I/O path never takes it. A start holds it only to reserve the array's
 * name and UUID (stria_reserve()) and to add the array to the list: it reads
 * the superblocks and bitmaps and writes them without the lock, so a slow
 * member delays its own start only, and a fatal signal ends that start
 * between two of its reads with nothing written. Each array's member and
 * spare tables change under its cfg_lock and sb_lock together (the work
 * items that change them do not take stria_arrays_lock), and its superblock
 * writes and event count are serialised by its sb_lock. Lock order:
 * stria_arrays_lock, cfg_lock, sb_lock. Nothing holds cfg_lock or sb_lock
 * while waiting for sb_work or the sync worker, so stop can wait for both
 * under the global lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/delay.h>
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>
#include <linux/uuid.h>

#include "stria.h"
#include "start.h"
#include "trace.h"

static unsigned int hw_queues;
module_param(hw_queues, uint, 0444);
MODULE_PARM_DESC(hw_queues,
		 "Hardware queues per RAID5/6 array for interrupt-driven I/O (count; 0 = one per CPU, the default); poll queues come on top when the members poll, as many as a member's. RAID0 arrays have none: their I/O goes to the members' queues");

static unsigned int queue_depth = 128;
module_param(queue_depth, uint, 0444);
MODULE_PARM_DESC(queue_depth,
		 "Requests per hardware queue of a RAID5/6 array (count; 1..4096, default 128)");

static DEFINE_IDA(stria_index_ida);
int stria_major;

/*
 * The block layer calls ->open with the disk's open_mutex held, and
 * stria_array_stop() checks that nobody has the disk open and marks the
 * array stopping under the same mutex: an open cannot slip in between the
 * check and del_gendisk().
 */
static int stria_disk_open(stria_open_arg_t arg, stria_open_mode_t mode)
{
	struct stria_array *a = stria_open_disk(arg)->private_data;

	return READ_ONCE(a->stopping) ? -ENXIO : 0;
}

static const struct block_device_operations stria_disk_fops = {
	.owner	= THIS_MODULE,
	.open	= stria_disk_open,
};

/* A bio-based array (RAID0): stria_level_ops.submit_bio maps every bio. */
static void stria_submit_bio(struct bio *bio)
{
	struct stria_array *a = stria_bio_array(bio);

	if (unlikely(READ_ONCE(a->readonly)) && op_is_write(bio_op(bio))) {
		bio->bi_status = stria_ro_status(a, op_is_flush(bio->bi_opf) &&
						 !bio_sectors(bio));
		bio_endio(bio);
		return;
	}
	a->ops->submit_bio(a, bio);
}

static const struct block_device_operations stria_bio_disk_fops = {
	.owner		= THIS_MODULE,
	.open		= stria_disk_open,
	.submit_bio	= stria_submit_bio,
	STRIA_FOPS_POLL_BIO(stria_raid0_poll_bio)
};

/* arrays stacked on arrays: how deep stria_disk_stacks_on() looks */
#define STRIA_MAX_STACK		8

/* The disks of @b's members, spares and replacement; @disks has room. */
static u32 stria_member_disks(struct stria_array *b, struct gendisk **disks)
{
	u32 i, n = 0;

	/* the tables change under cfg_lock and sb_lock together */
	mutex_lock(&b->sb_lock);
	for (i = 0; i < b->nr_members; i++)
		if (b->members[i].dev.bdev)
			disks[n++] = b->members[i].dev.bdev->bd_disk;
	for (i = 0; i < b->nr_spares; i++)
		disks[n++] = b->spares[i].dev.bdev->bd_disk;
	if (b->repl_role != STRIA_NO_MEMBER && b->repl.dev.bdev)
		disks[n++] = b->repl.dev.bdev->bd_disk;
	mutex_unlock(&b->sb_lock);
	return n;
}

static int stria_stacks_on(struct gendisk *disk, struct stria_array *a,
			   u32 depth)
{
	struct gendisk **disks;
	u32 i, n;
	int ret = 0;

	if (disk == a->disk)
		return 1;
	if (disk->fops != &stria_disk_fops && disk->fops != &stria_bio_disk_fops)
		return 0;
	if (depth >= STRIA_MAX_STACK)
		return -ELOOP;
	disks = kmalloc_array(STRIA_GEOM_MAX_MEMBERS + STRIA_MAX_SPARES + 1,
			      sizeof(*disks), GFP_KERNEL);
	if (!disks)
		return -ENOMEM;
	n = stria_member_disks(disk->private_data, disks);
	for (i = 0; i < n && !ret; i++)
		ret = stria_stacks_on(disks[i], a, depth + 1);
	kfree(disks);
	return ret;
}

/**
 * stria_disk_stacks_on() - is @disk array @a, or built on it?
 * @disk: the disk of a device about to join @a (a partition's whole disk)
 * @a: the array
 *
 * A stria array among @a's members would hold @a through its own members:
 * neither could be stopped, and rebuild I/O would recurse. Follows stria
 * arrays down through their members, spares and replacements, at most
 * STRIA_MAX_STACK deep. Other stacking drivers (dm, md) are not looked
 * through. Caller holds stria_arrays_lock (no array stops, no device joins
 * one meanwhile) and may hold @a->cfg_lock; each array's tables are read
 * under its sb_lock.
 *
 * Return: 0 when not; 1 when @disk is @a or is built on it; -ELOOP when
 * the arrays are stacked deeper than that; -ENOMEM.
 */
int stria_disk_stacks_on(struct gendisk *disk, struct stria_array *a)
{
	lockdep_assert_held(&stria_arrays_lock);
	return stria_stacks_on(disk, a, 0);
}

static void stria_kick_work(struct work_struct *work)
{
	struct stria_array *a = container_of(work, struct stria_array,
					     kick_work);

	mutex_lock(&a->cfg_lock);
	/* read-only: no spare takes a role, nothing is rebuilt */
	if (!READ_ONCE(a->readonly))
		stria_sync_kick(a, false);
	mutex_unlock(&a->cfg_lock);
}

static void stria_limits(struct stria_array *a, struct queue_limits *lim)
{
	u32 chunk_bytes = 1U << (a->geom.chunk_shift + SECTOR_SHIFT);
	u32 i;

	blk_set_stacking_limits(lim);
	/* before the members': those that lack nowait take it away */
	if (stria_bio_based(a))
		stria_bio_disk_features(lim);
	for (i = 0; i < a->nr_members; i++)
		if (a->members[i].dev.bdev)
			blk_stack_limits(lim,
					 &bdev_get_queue(a->members[i].dev.bdev)->limits,
					 a->data_offset);
	lim->io_min = chunk_bytes;
	lim->io_opt = chunk_bytes * a->nr_members;
	lim->physical_block_size = max(lim->physical_block_size,
				       lim->logical_block_size);
	/*
	 * One range per discard request: RAID5/6 maps [pos, pos + sectors)
	 * of a request, and a request of several discard ranges (which the
	 * members' limit, NVMe's 256, would allow) is not one range. (RAID0
	 * maps bios, each one range, and has no requests to merge them in.)
	 */
	lim->max_discard_segments = 1;
	if (a->ops->limits)
		a->ops->limits(a, lim);
}

/**
 * stria_array_update_limits() - the members' devices changed
 * @a: the array; its member table does not change meanwhile (cfg_lock),
 *	its queue is not frozen (the update freezes it, after taking the
 *	queue's limits lock)
 *
 * The limits that follow from what every member offers are computed again:
 * RAID5/6 offer discard and write-zeroes only while every member has
 * write-zeroes (a member without them gets the zero page meanwhile, see
 * raid56_sop.c, so a request split under the old limits is safe). The
 * others stay as the array started with.
 */
void stria_array_update_limits(struct stria_array *a)
{
	struct queue_limits lim;

	stria_limits(a, &lim);
	if (stria_update_zero_limits(a->disk->queue, &lim))
		pr_warn("stria%d: discard and write-zeroes limits not updated\n",
			a->index);
}

/* Every member takes REQ_NOWAIT bios (for a bio-based array's queue). */
static bool stria_members_nowait(struct stria_array *a)
{
	u32 i;

	for (i = 0; i < a->nr_members; i++)
		if (!a->members[i].dev.bdev ||
		    !bdev_nowait(a->members[i].dev.bdev))
			return false;
	return true;
}

/*
 * The array's disk: a bio-based one (RAID0) has no tag set and no
 * hardware queues of its own, a blk-mq one (RAID5/6) has both.
 */
static struct gendisk *stria_alloc_disk(struct stria_array *a)
{
	struct blk_mq_tag_set *set = &a->tag_set;
	struct queue_limits lim;
	struct gendisk *disk;
	int ret;

	/* bio-based: not a count of queues, whether the members poll */
	a->poll_queues = stria_poll_member_queues(a);
	if (stria_bio_based(a)) {
		stria_limits(a, &lim);
		return stria_alloc_bio_disk(&lim, a->node, a,
					    stria_members_nowait(a));
	}
	set->ops = &stria_mq_ops;
	set->nr_hw_queues = hw_queues ? min(hw_queues, nr_cpu_ids) : nr_cpu_ids;
	set->nr_maps = 1;
	/* poll queues after the default ones (io.c: stria_map_poll()) */
	if (a->poll_queues) {
		set->nr_hw_queues += a->poll_queues;
		set->nr_maps = HCTX_MAX_TYPES;
	}
	set->queue_depth = clamp(queue_depth, 1U, 4096U);
	set->numa_node = a->node;
	/* queue_rq() submits bios, which may sleep: see io.c */
	set->flags = STRIA_BLK_MQ_F_SHOULD_MERGE | BLK_MQ_F_BLOCKING;
	set->driver_data = a;
	ret = blk_mq_alloc_tag_set(set);
	if (ret)
		return ERR_PTR(ret);

	stria_limits(a, &lim);
	disk = stria_alloc_disk_limits(set, &lim, a);
	if (IS_ERR(disk))
		blk_mq_free_tag_set(set);
	return disk;
}

/* Free the array's tag set, if it has one (not a bio-based array). */
static void stria_free_tag_set(struct stria_array *a)
{
	if (!stria_bio_based(a))
		blk_mq_free_tag_set(&a->tag_set);
}

static int stria_add_disk(struct stria_array *a)
{
	struct gendisk *disk;

	disk = stria_alloc_disk(a);
	if (IS_ERR(disk))
		return PTR_ERR(disk);
	disk->major = stria_major;
	disk->first_minor = a->index * STRIA_MINORS;
	disk->minors = STRIA_MINORS;
	disk->fops = stria_bio_based(a) ? &stria_bio_disk_fops :
					  &stria_disk_fops;
	disk->private_data = a;
	snprintf(disk->disk_name, DISK_NAME_LEN, "stria%d", a->index);
	/* a reshape grows it when it ends */
	set_capacity(disk, stria_geom_array_sectors(a->reshaping ?
						    &a->reshape.old : &a->geom));
	a->disk = disk;
	stria_poll_update(a);
	return 0;
}

/**
 * stria_unlink_holder() - drop the holder link of a member or spare
 * @a: the array
 * @m: the member; nothing happens when it has no link
 */
void stria_unlink_holder(struct stria_array *a, struct stria_member *m)
{
	if (m->linked)
		bd_unlink_disk_holder(m->dev.bdev, a->disk);
	m->linked = false;
}

/**
 * stria_link_holder() - link a member or spare to the array's disk in sysfs
 * @a: the array
 * @m: the member; nothing happens when it has no device
 *
 * A link that cannot be made is only warned about: it is informational.
 */
void stria_link_holder(struct stria_array *a, struct stria_member *m)
{
	if (!m->dev.bdev)
		return;
	if (bd_link_disk_holder(m->dev.bdev, a->disk))
		pr_warn("stria%d: no holder link for %pg\n", a->index,
			m->dev.bdev);
	else
		m->linked = true;
}

static void stria_unlink_holders(struct stria_array *a)
{
	u32 i;

	for (i = 0; i < a->nr_members; i++)
		stria_unlink_holder(a, &a->members[i]);
	for (i = 0; i < a->nr_spares; i++)
		stria_unlink_holder(a, &a->spares[i]);
}

static void stria_link_holders(struct stria_array *a)
{
	u32 i;

	for (i = 0; i < a->nr_members; i++)
		stria_link_holder(a, &a->members[i]);
	for (i = 0; i < a->nr_spares; i++)
		stria_link_holder(a, &a->spares[i]);
}

static void stria_array_free(struct stria_array *a)
{
	u32 i;

	/* nothing may fail a member any more; make sure no write is left */
	stria_holder_detach(a);
	cancel_work_sync(&a->sb_work);
	cancel_work_sync(&a->kick_work);
	cancel_work_sync(&a->sync.work);
	stria_events_free(a);
	if (a->sb_wq)
		destroy_workqueue(a->sb_wq);
	stria_bitmap_free(a);
	stria_reshape_free(a);
	mutex_destroy(&a->sb_lock);
	mutex_destroy(&a->cfg_lock);
	for (i = 0; i < a->nr_members; i++)
		if (a->members[i].dev.bdev)
			stria_bdev_close(&a->members[i].dev);
	for (i = 0; i < a->nr_spares; i++)
		stria_bdev_close(&a->spares[i].dev);
	if (a->index >= 0)
		ida_free(&stria_index_ida, a->index);
	kfree(a->holder);
	kfree(a);
}

/*
 * The array is set up from the opened members: they move into it, so from
 * here on freeing the array closes them.
 */
static const struct stria_level_ops *stria_level_ops(u32 level)
{
	switch (level) {
	case 5:
		return &stria_raid5_ops;
	case 6:
		return &stria_raid6_ops;
	case 1:
	case 10:
		return &stria_raid10_ops;
	default:
		return &stria_raid0_ops;
	}
}

static struct stria_array *stria_array_alloc(struct stria_spec *spec,
					     struct stria_opened *o,
					     const struct stria_geom *g,
					     const u32 *roles, int node)
{
	/*
	 * RAID1 grows by members: room for every copy it may hold; RAID0 is
	 * restriped onto more (reshape.c)
	 */
	u32 room = g->level == 1 ? max(o->nr_roles, STRIA_R10_MAX_COPIES) :
		   g->level == 0 ? STRIA_GEOM_MAX_MEMBERS : o->nr_roles;
	struct stria_array *a;
	u32 i;

	a = kzalloc_node(struct_size(a, members, room), GFP_KERNEL, node);
	if (!a)
		return NULL;
	a->max_members = room;
	a->index = -1;
	a->repl_role = STRIA_NO_MEMBER;
	a->node = node;
	a->geom = *g;
	a->ops = stria_level_ops(g->level);
	a->data_offset = STRIA_SB_DATA_OFFSET;
	a->sb_written = stria_release_held;
	a->roles = &stria_members_roles;
	a->nr_members = o->nr_roles;
	a->holder = o->holder;
	o->holder = NULL;
	strscpy(a->name, spec->name, sizeof(a->name));
	memcpy(a->homehost, spec->homehost, sizeof(a->homehost));
	INIT_LIST_HEAD(&a->list);
	INIT_WORK(&a->sb_work, stria_sb_work);
	INIT_WORK(&a->kick_work, stria_kick_work);
	INIT_WORK(&a->dead_work, stria_dead_work);
	mutex_init(&a->sb_lock);
	mutex_init(&a->cfg_lock);
	spin_lock_init(&a->held_lock);
	INIT_LIST_HEAD(&a->held);
	stria_sync_init(a);
	if (stria_events_init(a)) {
		stria_array_free(a);
		return NULL;
	}
	a->sb_wq = alloc_ordered_workqueue("stria_sb", WQ_MEM_RECLAIM);
	if (!a->sb_wq) {
		stria_array_free(a);
		return NULL;
	}
	a->sb_failed = o->failed;
	a->sb_failed_ondisk = o->failed;
	a->sb_rebuilding = o->rebuilding;
	/* a rebuilding role found missing has failed: not partial either */
	a->sb_rebuild_partial = o->rebuild_partial & o->rebuilding;
	a->degraded_events = o->degraded_events;
	/* what the superblocks say until the first update */
	a->sb_degraded = o->degraded_events || o->failed || o->rebuilding;
	a->sync.rebuild_ckpt = o->rebuilding ? o->rebuild_offset : 0;
	a->sync.scrub_action = o->scrub_action;
	a->sync.scrub_pos = o->scrub_offset;
	a->sync.scrub_end = o->scrub_end;
	a->readonly = spec->readonly;
	if (spec->readonly && o->dirty && stria_geom_redundant(g)) {
		/*
		 * Nothing runs, but every read goes by what a resync owes:
		 * degraded or not, no data is rebuilt from parity that
		 * may not match it. The readwrite switch plans the rest.
		 */
		if (!(o->failed | o->rebuilding))
			pr_warn("%s: was not stopped cleanly: assembled read-only, no resync until it is read-write; reads that would rebuild data from parity fail meanwhile\n",
				spec->name);
		a->ro_dirty = true;
		a->ro_scrub_action = o->scrub_action;
		a->ro_scrub_pos = o->scrub_offset;
		a->ro_scrub_end = o->scrub_end;
		a->sync.scrub_action = STRIA_SB_SCRUB_RESYNC;
		a->sync.scrub_pos = 0;
		a->sync.scrub_end = g->member_sectors;
	} else if (o->dirty && stria_geom_redundant(g) &&
		   !(o->failed | o->rebuilding)) {
		/* any stripe may have been cut short: all of them, from 0 */
		if (o->bitmap_chunk)
			pr_warn("%s: was not stopped cleanly: the parity of the regions its write-intent bitmap has dirty is resynced\n",
				spec->name);
		else if (stria_geom_mirror(g))
			pr_warn("%s: was not stopped cleanly: every chunk's copies are made the same again\n",
				spec->name);
		else
			pr_warn("%s: was not stopped cleanly: the parity of every stripe is resynced\n",
				spec->name);
		a->sync.scrub_action = STRIA_SB_SCRUB_RESYNC;
		a->sync.scrub_pos = 0;
		a->sync.scrub_end = g->member_sectors;
	} else if (o->dirty && stria_geom_redundant(g) && !o->failed &&
		   o->rebuilding && o->rebuild_offset) {
		/*
		 * Below the rebuild's checkpoint every member is in sync, and
		 * a stripe there may have been cut short as anywhere: its
		 * resync is owed, and runs once the rebuild ends. Above it the
		 * rebuild writes what the parity gives (the risk --force took).
		 */
		pr_warn("%s: was not stopped cleanly while being rebuilt: the parity below the rebuild's checkpoint is resynced once the rebuild ends\n",
			spec->name);
		a->sync.scrub_action = STRIA_SB_SCRUB_RESYNC;
		a->sync.scrub_pos = 0;
		a->sync.scrub_end = max_t(u64, o->rebuild_offset,
					  o->scrub_action == STRIA_SB_SCRUB_RESYNC ?
					  o->scrub_end : 0);
	}
	atomic_set(&a->nr_failed, hweight64(o->failed | o->rebuilding));
	for (i = 0; i < a->nr_members; i++) {
		struct stria_member *m = &a->members[i];

		m->array = a;
		m->role = i;
		m->node = NUMA_NO_NODE;
		m->state = o->failed & BIT_ULL(i) ? STRIA_STATE_FAILED :
			   o->rebuilding & BIT_ULL(i) ? STRIA_STATE_REBUILDING :
			   STRIA_STATE_ACTIVE;
		/* a stopped partial rebuild goes on partial (sync.c) */
		m->readd = !!(a->sb_rebuild_partial & BIT_ULL(i));
	}
	for (i = 0; i < spec->nr_members; i++) {
		struct stria_member *m;

		if (roles[i] == STRIA_ROLE_LEFT_OUT)
			continue;
		if (roles[i] == STRIA_SB_ROLE_SPARE) {
			m = &a->spares[a->nr_spares++];
			m->array = a;
			m->role = STRIA_SB_ROLE_SPARE;
			m->state = STRIA_STATE_SPARE;
		} else {
			m = &a->members[roles[i]];
		}
		m->dev = o->dev[i];
		o->dev[i].bdev = NULL;
		m->node = m->dev.bdev->bd_disk->node_id;
		m->dev_sectors = bdev_nr_sectors(m->dev.bdev);
		atomic64_set(&m->errors, 0);
		if (spec->assemble)
			memcpy(m->uuid, o->sb[i].member_uuid, STRIA_UUID_LEN);
		else
			generate_random_uuid(m->uuid);
	}
	if (o->reshape_from) {
		/* rows from the checkpoint on are still in the old layout */
		if (stria_reshape_setup(a, g, o->reshape_from, o->reshape_pos,
					o->reshape_backup)) {
			stria_array_free(a);
			return NULL;
		}
		a->reshaping = true;
	}
	if (spec->assemble) {
		memcpy(a->uuid, o->sb[o->fresh].array_uuid, STRIA_UUID_LEN);
		a->ctime = le64_to_cpu(o->sb[o->fresh].ctime);
		a->events = le64_to_cpu(o->sb[o->fresh].events);
	} else {
		generate_random_uuid(a->uuid);
		a->ctime = ktime_get_real_seconds();
		a->events = 0;
	}
	return a;
}

static int stria_array_build(struct stria_array *a)
{
	int ret;

	ret = ida_alloc_max(&stria_index_ida, STRIA_MAX_ARRAYS - 1,
			    GFP_KERNEL);
	if (ret < 0)
		return ret;
	a->index = ret;
	ret = stria_io_init(a);
	if (ret)
		return ret;
	ret = stria_add_disk(a);
	if (ret)
		goto out_io_exit;
	/* read-only: the superblocks stay as they are, the disk says so */
	if (a->readonly)
		set_disk_ro(a->disk, true);
	mutex_lock(&a->sb_lock);
	ret = stria_write_sbs(a, STRIA_SB_STATE_ACTIVE, NULL);
	mutex_unlock(&a->sb_lock);
	if (ret)
		goto out_put_disk;
	ret = device_add_disk(NULL, a->disk, stria_disk_groups);
	if (ret)
		goto out_put_disk;
	stria_link_holders(a);
	stria_holder_attach(a);
	return 0;

out_put_disk:
	stria_put_disk(a->disk);
	stria_free_tag_set(a);
out_io_exit:
	stria_io_exit(a);
	return ret;
}

/* A degraded start (STRIA_ARRAY_F_RUN): which roles it started without. */
static void stria_log_missing(struct stria_array *a, u64 missing)
{
	DECLARE_BITMAP(mb, STRIA_GEOM_MAX_MEMBERS);

	bitmap_from_u64(mb, missing);
	pr_warn("stria%d: array '%s' started degraded: member%s %*pbl missing, recorded as failed%s\n",
		a->index, a->name, hweight64(missing) > 1 ? "s" : "",
		(int)STRIA_GEOM_MAX_MEMBERS, mb,
		a->readonly ? " once it is read-write" : "");
}

/*
 * What a running array does in the background: the bitmap's clearing,
 * safe mode, and a rebuild or scrub to resume, or a spare for a failed
 * role. Not while it is read-only. Caller holds @a->cfg_lock.
 */
static void stria_array_run(struct stria_array *a)
{
	lockdep_assert_held(&a->cfg_lock);
	stria_bitmap_run(a);
	stria_safe_start(a);
	stria_sync_kick(a, false);
}

/**
 * stria_array_refuse_ro() - refuse a change to a read-only array
 * @a: the array
 * @msg: STRIA_MSG_LEN bytes for the reason
 *
 * For the requests that would write to the members (member changes,
 * scrubs). An array only goes from read-only to read-write, so a caller
 * that saw it read-write may go on.
 *
 * Return: true, with the reason in @msg, when @a is read-only.
 */
bool stria_array_refuse_ro(struct stria_array *a, char *msg)
{
	if (!READ_ONCE(a->readonly))
		return false;
	snprintf(msg, STRIA_MSG_LEN, "'%s' is read-only: nothing is written until 'striactl readwrite %s'",
		 a->name, a->name);
	return true;
}

/*
 * Read-only and not stopped cleanly: the resync a plain assembly would
 * have planned (stria_array_alloc()), now that the array becomes
 * read-write: every stripe where the bitmap has dirty when no member is
 * missing (as read-only), else what the superblocks recorded (the write
 * hole, forced). @owed: back to owing it everywhere (the switch failed).
 * Caller holds @a->sb_lock, which the superblock writes read them under.
 */
static void stria_ro_plan_resync(struct stria_array *a, bool owed)
{
	struct stria_sync *s = &a->sync;

	if (!a->ro_dirty || (!owed && !atomic_read(&a->nr_failed)))
		return;
	s->scrub_action = owed ? STRIA_SB_SCRUB_RESYNC : a->ro_scrub_action;
	s->scrub_pos = owed ? 0 : a->ro_scrub_pos;
	s->scrub_end = owed ? a->geom.member_sectors : a->ro_scrub_end;
}

/**
 * stria_array_readwrite() - a read-only array becomes read-write
 * @a: the array
 * @force: even when it was not stopped cleanly and is degraded
 * @msg: STRIA_MSG_LEN bytes for the reason on failure
 *
 * Caller holds stria_arrays_lock. The superblocks are written first
 * (state active, events + 1, the members that failed meanwhile recorded),
 * so no write reaches a member before they say the array is in use; a
 * member whose superblock cannot be written fails. Then the array takes
 * writes, and what its plain assembly would have started starts: a resync
 * owed, a rebuild, a spare taking a failed role, the bitmap's clearing.
 *
 * Return: 0; -EINVAL when @a is not read-only; -EUCLEAN when it needs
 * @force; -ENOMEM when no superblock could be written (it stays read-only).
 * On failure nothing has changed.
 */
int stria_array_readwrite(struct stria_array *a, bool force, char *msg)
{
	bool degraded;
	u64 errors;
	u32 i;
	int ret;

	lockdep_assert_held(&stria_arrays_lock);
	mutex_lock(&a->cfg_lock);
	ret = -EINVAL;
	if (!a->readonly) {
		snprintf(msg, STRIA_MSG_LEN, "stria%d ('%s') is not read-only: nothing to do",
			 a->index, a->name);
		goto out;
	}
	degraded = atomic_read(&a->nr_failed);
	ret = -EUCLEAN;
	if (a->ro_dirty && degraded && !force) {
		snprintf(msg, STRIA_MSG_LEN, "'%s' was not stopped cleanly and is degraded (write hole risk); --force makes it read-write anyway",
			 a->name);
		goto out;
	}
	mutex_lock(&a->sb_lock);
	stria_ro_plan_resync(a, false);
	ret = stria_write_sbs_now(a, STRIA_SB_STATE_ACTIVE, &errors);
	if (ret == -ENOMEM) {
		stria_ro_plan_resync(a, true);
		mutex_unlock(&a->sb_lock);
		snprintf(msg, STRIA_MSG_LEN, "out of memory: '%s' is still read-only",
			 a->name);
		goto out;
	}
	if (a->ro_dirty && degraded)
		pr_warn("%s: was not stopped cleanly and is degraded; made read-write by force: data of the missing members may be rebuilt wrong where writes were cut short\n",
			a->name);
	else if (a->ro_dirty)
		pr_warn("%s: was not stopped cleanly: its parity is resynced where writes may have been cut short\n",
			a->name);
	a->ro_dirty = false;
	WRITE_ONCE(a->readonly, false);
	mutex_unlock(&a->sb_lock);
	for (i = 0; i < a->nr_members; i++)
		if (errors & BIT_ULL(i))
			/* counted in its errors, as a failed data write */
			stria_member_io_error(&a->members[i], BLK_STS_IOERR);
	set_disk_ro(a->disk, false);
	pr_info("stria%d: array '%s' is read-write\n", a->index, a->name);
	stria_array_run(a);
	ret = 0;
out:
	mutex_unlock(&a->cfg_lock);
	return ret;
}

/*
 * The built array joins the list, its start reservation @s goes, and it
 * starts working. The wait for stria_arrays_lock is not killable: by now
 * the superblocks say the array runs (events counted up, state active),
 * its disk is added and user space may have opened it; giving up here
 * would take a second teardown with superblock writes of its own (as a
 * stop) that can fail in turn, where waiting ends as soon as the holder's
 * request does. The lock is held for short steps or by requests on running
 * arrays, never for this array's members.
 */
static void stria_register(struct stria_spec *spec, struct stria_array *a,
			   struct stria_opened *o, struct stria_starting *s)
{
	mutex_lock(&stria_arrays_lock);
	stria_release(s);
	list_add_tail(&a->list, &stria_arrays);
	trace_stria_array_start(a->index, a->name, a->geom.level,
				a->nr_members, 1U << a->geom.chunk_shift,
				!spec->assemble);
	pr_info("stria%d: %s array '%s': raid%u, layout %s, %u members (%u failed or rebuilding), %u spares, %u KiB chunks, %llu sectors, node %d\n",
		a->index, spec->assemble ? "assembled" : "created", a->name,
		a->geom.level,
		stria_parity_layout_name(a->geom.level, a->geom.layout),
		a->nr_members, atomic_read(&a->nr_failed), a->nr_spares,
		1U << (a->geom.chunk_shift - 1),
		stria_geom_array_sectors(&a->geom), a->node);
	if (o->missing)
		stria_log_missing(a, o->missing);
	/* user space hears of the array's state from here on */
	stria_events_start(a, o->dirty ||
			   a->sync.scrub_action == STRIA_SB_SCRUB_RESYNC);
	if (a->readonly) {
		pr_info("stria%d: array '%s' is read-only: nothing is written to its members until 'striactl readwrite %s'\n",
			a->index, a->name, a->name);
	} else {
		mutex_lock(&a->cfg_lock);
		stria_array_run(a);
		mutex_unlock(&a->cfg_lock);
	}
	/* what the caller reports: the array may stop once the lock is gone */
	spec->index = a->index;
	spec->bitmap_chunk = stria_bitmap_chunk(a);
	memcpy(spec->uuid, a->uuid, sizeof(spec->uuid));
	strscpy(spec->name, a->name, sizeof(spec->name));
	mutex_unlock(&stria_arrays_lock);
}

/**
 * stria_array_start() - create or assemble an array
 * @spec: the validated request; @spec->msg and @spec->err_member say why
 *	on failure; on success @spec->index, @spec->uuid, @spec->name and
 *	@spec->bitmap_chunk say what started
 *
 * Caller does not hold stria_arrays_lock: the start takes it to reserve
 * the name and UUID (create: before it opens the members; assemble: once
 * their superblocks are read and checked) and to add the array to the list
 * at the end. Reading the superblocks and bitmaps, a RAID5/6 create's
 * zeroing and the superblock writes run without it, so other requests do
 * not wait for this one's members; a fatal signal ends the start before it
 * writes a superblock. On failure nothing has changed: no superblock
 * written, no device left open, no name or UUID taken.
 *
 * Return: 0 or a negative errno.
 */
int stria_array_start(struct stria_spec *spec)
{
	u32 roles[STRIA_GEOM_MAX_MEMBERS + STRIA_MAX_SPARES];
	struct stria_starting res = { .name = spec->name };
	struct stria_opened o = { };
	struct stria_array *a;
	struct stria_geom g;
	bool reserved = false;
	int ret, node;
	u32 i;

	lockdep_assert_not_held(&stria_arrays_lock);
	ret = -ENOMEM;
	o.dev = kcalloc(spec->nr_members, sizeof(*o.dev), GFP_KERNEL);
	o.sb = kvcalloc(spec->nr_members, sizeof(*o.sb), GFP_KERNEL);
	o.holder = kzalloc(sizeof(*o.holder), GFP_KERNEL);
	if (o.holder)
		spin_lock_init(&o.holder->lock);
	if (!o.dev || !o.sb || !o.holder) {
		stria_fail(spec, STRIA_NO_MEMBER, "out of memory");
		goto out_free;
	}
	/* a create's name first, as ever: before its members are opened */
	if (!spec->assemble) {
		ret = stria_reserve(spec, &res);
		if (ret)
			goto out_free;
		reserved = true;
	}
	ret = stria_open_all(spec, &o);
	if (ret)
		goto out_close;
	if (spec->assemble) {
		ret = stria_check_assemble(spec, &o, &g, roles);
		/* the name and UUID the superblocks gave */
		res.uuid = o.sb[o.fresh].array_uuid;
		if (!ret)
			ret = stria_reserve(spec, &res);
		reserved = !ret;
	} else {
		for (i = 0; i < spec->nr_members; i++)
			roles[i] = i;
		o.nr_roles = spec->nr_members;
		ret = stria_check_create(spec, &o, &g);
		if (!ret && stria_geom_redundant(&g))
			ret = stria_zero_parity_data(spec, &o, &g);
	}
	if (ret)
		goto out_close;

	node = spec->node;
	if (node == NUMA_NO_NODE)
		node = stria_majority_node(&o, spec->nr_members);
	ret = -ENOMEM;
	a = stria_array_alloc(spec, &o, &g, roles, node);
	if (!a) {
		stria_fail(spec, STRIA_NO_MEMBER, "out of memory");
		goto out_close;
	}
	ret = stria_bitmap_init(a, o.bitmap_chunk, spec->assemble);
	if (ret == -EINTR)
		stria_interrupted(spec);
	else if (ret)
		stria_fail(spec, STRIA_NO_MEMBER, "cannot set up the write-intent bitmap: error %d",
			   ret);
	/* the last moment a kill leaves the members as they were */
	if (!ret)
		ret = stria_interrupted(spec);
	if (!ret) {
		ret = stria_array_build(a);
		if (ret)
			stria_fail(spec, STRIA_NO_MEMBER, "cannot set up the array device: error %d",
				   ret);
	}
	if (ret) {
		/* the members went into the array: this closes them */
		stria_array_free(a);
		goto out_release;
	}
	stria_register(spec, a, &o, &res);
	/* devices left out of the array */
	stria_close_all(&o, spec->nr_members);
	goto out_free;

out_close:
	stria_close_all(&o, spec->nr_members);
out_release:
	if (reserved)
		stria_release(&res);
out_free:
	kfree(o.holder);
	kvfree(o.sb);
	kfree(o.dev);
	return ret;
}

/**
 * stria_array_stop() - stop a running array
 * @a: the array
 * @msg: STRIA_MSG_LEN bytes for the reason on failure
 *
 * Caller holds stria_arrays_lock. Refused while the array device is open;
 * from the check on, opening it fails with -ENXIO.
 *
 * Return: 0 or -EBUSY.
 */
int stria_array_stop(struct stria_array *a, char *msg)
{
	int ret;

	lockdep_assert_held(&stria_arrays_lock);
	mutex_lock(&a->disk->open_mutex);
	if (stria_disk_openers(a->disk)) {
		mutex_unlock(&a->disk->open_mutex);
		snprintf(msg, STRIA_MSG_LEN, "stria%d ('%s') is open: unmount it or close it first",
			 a->index, a->name);
		return -EBUSY;
	}
	WRITE_ONCE(a->stopping, true);
	mutex_unlock(&a->disk->open_mutex);
	/* a member that goes away from here on is not failed: the array stops */
	stria_holder_detach(a);
	/* a running sync records where it was, to go on after assemble */
	stria_sync_stop(a, true, msg);
	/* what happened until now reaches user space before the disk goes */
	stria_events_stop(a);
	list_del_init(&a->list);
	stria_unlink_holders(a);
	del_gendisk(a->disk);
	stria_safe_stop(a);
	/*
	 * No I/O is left to fail a member: finish or drop a pending update,
	 * the clean superblocks below record the failed members too.
	 */
	cancel_work_sync(&a->sb_work);
	cancel_work_sync(&a->kick_work);
	stria_bitmap_stop(a);
	mutex_lock(&a->sb_lock);
	/* read-only: the superblocks stay as they were found */
	ret = stria_write_sbs(a, STRIA_SB_STATE_CLEAN, NULL);
	mutex_unlock(&a->sb_lock);
	if (ret)
		pr_warn("stria%d: stopped, but a superblock could not be marked clean\n",
			a->index);
	trace_stria_array_stop(a->index, a->name);
	pr_info("stria%d: array '%s' stopped\n", a->index, a->name);
	stria_put_disk(a->disk);
	stria_free_tag_set(a);
	stria_io_exit(a);
	stria_array_free(a);
	return 0;
}

/**
 * stria_array_find() - look an array up
 * @name: its name, or NULL/"" to look up by @index
 * @index: N of striaN
 * @next: return the array with the lowest index >= @index instead
 *
 * Caller holds stria_arrays_lock.
 *
 * Return: the array or NULL.
 */
struct stria_array *stria_array_find(const char *name, u32 index, bool next)
{
	struct stria_array *a, *best = NULL;

	list_for_each_entry(a, &stria_arrays, list) {
		if (name && name[0]) {
			if (!strcmp(a->name, name))
				return a;
		} else if (next) {
			if (a->index >= index && (!best || a->index < best->index))
				best = a;
		} else if (a->index == index) {
			return a;
		}
	}
	return best;
}

/**
 * stria_array_count() - running arrays
 *
 * Caller holds stria_arrays_lock.
 */
unsigned int stria_array_count(void)
{
	struct stria_array *a;
	unsigned int n = 0;

	lockdep_assert_held(&stria_arrays_lock);
	list_for_each_entry(a, &stria_arrays, list)
		n++;
	return n;
}

/**
 * stria_array_stop_all() - stop every array, open or not (module unload)
 */
void stria_array_stop_all(void)
{
	struct stria_array *a, *tmp;
	char msg[STRIA_MSG_LEN];

	mutex_lock(&stria_arrays_lock);
	list_for_each_entry_safe(a, tmp, &stria_arrays, list) {
		if (stria_array_stop(a, msg))
			pr_err("stria%d: %s\n", a->index, msg);
	}
	mutex_unlock(&stria_arrays_lock);
}
