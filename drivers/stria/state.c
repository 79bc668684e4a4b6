// SPDX-License-Identifier: GPL-2.0
/*
 * stria recorded state: the bottom layer of the driver. What the arrays
 * are and what their superblocks record: the list of arrays, the names of
 * states, a member's state changes (a failure from I/O completion in any
 * context, a replacement's failed write), the roles by state, and the
 * superblock write-out that records them (sb_work), with the members'
 * cache flush a checkpoint needs.
 *
 * Everything above calls it; it calls only its own layer (superblock.c,
 * events.c, bitmap.c) and, for the writes held until a failure is
 * recorded, the request path through a->sb_written (set by the
 * lifecycle). Documentation/stria/layers.rst has the map.
 *
 * Layer: recorded state, the bottom (Documentation/stria/layers.rst,
 * drivers/stria/layers.map): every layer above calls it; it calls only
 * superblock.c and events.c, and the request path through a->sb_written.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/blkdev.h>
#include <linux/delay.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "stria.h"
#include "trace.h"

DEFINE_MUTEX(stria_arrays_lock);
LIST_HEAD(stria_arrays);

static const char *const stria_state_names[] = {
	[STRIA_STATE_ACTIVE] = "active",
	[STRIA_STATE_FAILED] = "failed",
	[STRIA_STATE_DEGRADED] = "degraded",
	[STRIA_STATE_SPARE] = "spare",
	[STRIA_STATE_REBUILDING] = "rebuilding",
	[STRIA_STATE_REPLACEMENT] = "replacement",
};

/**
 * stria_state_name() - the name of an array's or a member's state
 * @state: STRIA_STATE_*
 *
 * Return: "active", "failed", "degraded", "spare", "rebuilding",
 * "replacement" or "unknown", as sysfs shows them.
 */
const char *stria_state_name(u32 state)
{
	return state < ARRAY_SIZE(stria_state_names) ?
	       stria_state_names[state] : "unknown";
}

static const char *const stria_sync_names[] = {
	[STRIA_SYNC_IDLE]	= "idle",
	[STRIA_SYNC_REBUILD]	= "rebuild",
	[STRIA_SYNC_CHECK]	= "check",
	[STRIA_SYNC_REPAIR]	= "repair",
	[STRIA_SYNC_RESYNC]	= "resync",
	[STRIA_SYNC_REPLACE]	= "replace",
	[STRIA_SYNC_RESHAPE]	= "reshape",
};

/**
 * stria_sync_action_name() - the sysfs name of a sync action
 * @action: STRIA_SYNC_*
 *
 * Return: "idle", "rebuild", "check", "repair", "resync", "replace", "reshape" or
 * "unknown".
 */
const char *stria_sync_action_name(u32 action)
{
	return action < ARRAY_SIZE(stria_sync_names) ?
	       stria_sync_names[action] : "unknown";
}

/**
 * stria_member_set_state() - change a member's state and trace it
 * @m: the member
 * @state: STRIA_STATE_*
 *
 * Safe from any context; only the first change to a state is traced and
 * told user space (events.c).
 * Concurrent changes of one member are not ordered: the caller that may
 * race with an I/O error (rebuild start and end) freezes the queue.
 */
void stria_member_set_state(struct stria_member *m, u32 state)
{
	u32 old = READ_ONCE(m->state);

	if (old == state || cmpxchg(&m->state, old, state) != old)
		return;
	/* nr_failed counts the members with a role that are not in sync */
	if (stria_state_missing(state) && !stria_state_missing(old))
		atomic_inc(&m->array->nr_failed);
	else if (stria_state_missing(old) && !stria_state_missing(state))
		atomic_dec(&m->array->nr_failed);
	trace_stria_member_state(m->array->index, m->role,
				 stria_member_devt(m), old, state);
	stria_event_member_state(m, old);
	if (state == STRIA_STATE_FAILED) {
		pr_err_ratelimited("stria%d: member %u (%pg) failed\n",
				   m->array->index, m->role, m->dev.bdev);
		stria_array_member_failed(m->array);
	}
}

/**
 * stria_member_io_error() - account an I/O error a member returned
 * @m: the member
 * @st: the bio's status
 *
 * Any context. A member that returns a real I/O error is failed; "not
 * supported" and "would block" are the request's problem, not the member's.
 *
 * Return: true when @m is (now) failed.
 */
bool stria_member_io_error(struct stria_member *m, blk_status_t st)
{
	atomic64_inc(&m->errors);
	if (st != BLK_STS_NOTSUPP && st != BLK_STS_AGAIN)
		stria_member_set_state(m, STRIA_STATE_FAILED);
	return stria_member_failed(m);
}

/**
 * stria_repl_failed() - the replacement failed a write
 * @a: the array
 * @st: the write's status
 *
 * Any context. The copy stops at its next stripe; the array is not
 * affected.
 */
void stria_repl_failed(struct stria_array *a, blk_status_t st)
{
	atomic64_inc(&a->repl.errors);
	if (cmpxchg(&a->repl.state, STRIA_STATE_REPLACEMENT,
		    STRIA_STATE_FAILED) == STRIA_STATE_REPLACEMENT)
		pr_err_ratelimited("stria%d: replacement %pg of member %u failed a write (%d): the replace stops\n",
				   a->index, a->repl.dev.bdev, a->repl_role,
				   blk_status_to_errno(st));
}

/**
 * stria_array_member_failed() - a member of @a has just been marked failed
 * @a: the array
 *
 * Any context. The superblocks are updated later, from a work item.
 */
void stria_array_member_failed(struct stria_array *a)
{
	queue_work(a->sb_wq, &a->sb_work);
}

/**
 * stria_array_state() - how the array is doing
 * @a: the array
 *
 * Return: STRIA_STATE_ACTIVE when no member has failed, STRIA_STATE_DEGRADED
 * while no more have failed than the level tolerates, else
 * STRIA_STATE_FAILED.
 */
u32 stria_array_state(const struct stria_array *a)
{
	u32 nfail = atomic_read(&a->nr_failed);

	if (!nfail)
		return STRIA_STATE_ACTIVE;
	if (stria_geom_mirror(&a->geom))
		return stria_geom_survives(&a->geom, stria_array_missing(a)) ?
		       STRIA_STATE_DEGRADED : STRIA_STATE_FAILED;
	return nfail <= stria_geom_nr_parity(&a->geom) ? STRIA_STATE_DEGRADED :
	       STRIA_STATE_FAILED;
}

/* Roles of the members in @state: bit i for role i. */
static u64 stria_roles_in(const struct stria_array *a, u32 state)
{
	u64 roles = 0;
	u32 i;

	for (i = 0; i < a->nr_members; i++)
		if (READ_ONCE(a->members[i].state) == state)
			roles |= BIT_ULL(i);
	return roles;
}

/**
 * stria_array_failed_roles() - roles of the members that have failed
 * @a: the array
 *
 * Return: bit i for role i, as a superblock records them.
 */
u64 stria_array_failed_roles(const struct stria_array *a)
{
	return stria_roles_in(a, STRIA_STATE_FAILED);
}

/**
 * stria_array_rebuilding_roles() - roles of the members being rebuilt
 * @a: the array
 *
 * Return: bit i for role i, as a superblock records them.
 */
u64 stria_array_rebuilding_roles(const struct stria_array *a)
{
	return stria_roles_in(a, STRIA_STATE_REBUILDING);
}

/**
 * stria_array_readd_only() - are all members being rebuilt re-added ones?
 * @a: the array
 *
 * Return: true when at least one member is being rebuilt and each was
 * re-added into its old role (stria_readd_check()).
 */
bool stria_array_readd_only(const struct stria_array *a)
{
	bool any = false;
	u32 i;

	for (i = 0; i < a->nr_members; i++) {
		if (READ_ONCE(a->members[i].state) != STRIA_STATE_REBUILDING)
			continue;
		if (!a->members[i].readd)
			return false;
		any = true;
	}
	return any;
}

/**
 * stria_array_sb_state() - the state superblocks written now record
 * @a: the array
 *
 * Return: STRIA_SB_STATE_CLEAN while safe mode has the array clean, else
 * STRIA_SB_STATE_ACTIVE.
 */
u32 stria_array_sb_state(const struct stria_array *a)
{
	return test_bit(STRIA_SAFE_CLEAN, &a->safe.flags) ?
	       STRIA_SB_STATE_CLEAN : STRIA_SB_STATE_ACTIVE;
}

/**
 * stria_write_sbs_now() - write the superblocks now
 * @a: the array
 * @state: STRIA_SB_STATE_*
 * @errors: (optional) gets the roles whose write failed
 *
 * Raise the event count and write the superblocks of the members that have
 * not failed, recording those that have; then acknowledge the writes held
 * for that (@a->sb_written). Caller holds @a->sb_lock. No allocation here
 * may wait for I/O: held writes wait for this.
 *
 * Return: 0 or the first write error.
 */
int stria_write_sbs_now(struct stria_array *a, u32 state, u64 *errors)
{
	unsigned int noio = memalloc_noio_save();
	struct stria_sb *sb = kmalloc(sizeof(*sb), GFP_NOIO);
	bool degraded, landed = false;
	int ret = 0, err;
	u32 i, j;

	lockdep_assert_held(&a->sb_lock);
	if (errors)
		*errors = 0;
	if (!sb) {
		memalloc_noio_restore(noio);
		return -ENOMEM;
	}
	a->sb_failed = stria_array_failed_roles(a);
	a->sb_rebuilding = stria_array_rebuilding_roles(a);
	a->sb_rebuild_partial = 0;
	for (i = 0; a->wib && i < a->nr_members; i++)
		if ((a->sb_rebuilding & BIT_ULL(i)) && a->members[i].readd)
			a->sb_rebuild_partial |= BIT_ULL(i);
	WRITE_ONCE(a->events, a->events + 1);
	/* the bitmap clears nothing from before this write until after it */
	degraded = a->wib && (a->sb_failed | a->sb_rebuilding);
	if (degraded) {
		WRITE_ONCE(a->sb_degraded, true);
		if (!a->degraded_events)
			a->degraded_events = a->events;
	} else {
		a->degraded_events = 0;
	}
	for (j = 0; j < a->nr_members; j++) {
		/*
		 * While a reshape is recorded, the added members (the last
		 * roles) first: a crash in between leaves the old members
		 * one update behind the record, which assembly takes
		 * (stria_sb_reshape_begun_before()), never an old member
		 * ahead of added ones that still say they are spares.
		 */
		i = a->reshaping ? a->nr_members - 1 - j : j;
		if ((a->sb_failed & BIT_ULL(i)) || !a->members[i].dev.bdev)
			continue;
		stria_sb_fill(sb, a, &a->members[i], state);
		err = stria_sb_write(a->members[i].dev.bdev, sb);
		if (err) {
			pr_err("stria%d: cannot write the superblock of %pg: %d\n",
			       a->index, a->members[i].dev.bdev, err);
			ret = ret ?: err;
			if (errors)
				*errors |= BIT_ULL(i);
		} else {
			landed = true;
		}
	}
	/* a spare that cannot be written is only worth a line in the log */
	for (i = 0; i < a->nr_spares; i++) {
		stria_sb_fill(sb, a, &a->spares[i], state);
		err = stria_sb_write(a->spares[i].dev.bdev, sb);
		if (err)
			pr_err("stria%d: cannot write the superblock of spare %pg: %d\n",
			       a->index, a->spares[i].dev.bdev, err);
	}
	/* a replacement is a spare on disk until it takes the role */
	if (a->repl_role != STRIA_NO_MEMBER &&
	    READ_ONCE(a->repl.state) == STRIA_STATE_REPLACEMENT) {
		stria_sb_fill(sb, a, &a->repl, state);
		err = stria_sb_write(a->repl.dev.bdev, sb);
		if (err)
			pr_err("stria%d: cannot write the superblock of replacement %pg: %d\n",
			       a->index, a->repl.dev.bdev, err);
	}
	kfree(sb);
	memalloc_noio_restore(noio);
	if (!degraded)
		WRITE_ONCE(a->sb_degraded, false);
	a->sb_written(a, landed, a->sb_failed);
	return ret;
}

/**
 * stria_write_sbs() - write the superblocks, unless the array is read-only
 * @a: the array
 * @state: STRIA_SB_STATE_*
 * @errors: (optional) gets the roles whose write failed
 *
 * stria_write_sbs_now(), unless the array is read-only: then nothing is
 * written, and the next write after the switch to read-write records
 * what changed meanwhile (members that failed).
 *
 * Return: 0 or the first write error.
 */
int stria_write_sbs(struct stria_array *a, u32 state, u64 *errors)
{
	if (READ_ONCE(a->readonly)) {
		if (errors)
			*errors = 0;
		return 0;
	}
	return stria_write_sbs_now(a, state, errors);
}

/**
 * stria_array_sync_failed() - record the failed members in the superblocks
 * @a: the array
 *
 * Brings the superblocks of a running array up to date with its failed
 * members. A member whose superblock cannot be written fails too (which
 * queues sb_work again to record that). Caller holds @a->sb_lock.
 *
 * Return: 0 or the first write error; -ENOMEM when nothing was written.
 */
int stria_array_sync_failed(struct stria_array *a)
{
	u64 errors;
	u32 i;
	int ret;

	lockdep_assert_held(&a->sb_lock);
	if (stria_array_failed_roles(a) == READ_ONCE(a->sb_failed_ondisk))
		return 0;
	ret = stria_write_sbs(a, stria_array_sb_state(a), &errors);
	for (i = 0; i < a->nr_members; i++)
		if (errors & BIT_ULL(i))
			/* counted in its errors, as a failed data write */
			stria_member_io_error(&a->members[i], BLK_STS_IOERR);
	return ret;
}

/**
 * stria_array_update_sbs() - write every superblock now (events + 1)
 * @a: the array
 *
 * Records the member states, the spares, the sync checkpoints and whether
 * the array is clean (safe mode, stria_array_sb_state()). A member
 * whose superblock cannot be written fails (and is recorded by the next
 * update). Caller does not hold @a->sb_lock.
 *
 * Return: 0 or the first write error.
 */
int stria_array_update_sbs(struct stria_array *a)
{
	u64 errors;
	u32 i;
	int ret;

	mutex_lock(&a->sb_lock);
	ret = stria_write_sbs(a, stria_array_sb_state(a), &errors);
	for (i = 0; i < a->nr_members; i++)
		if (errors & BIT_ULL(i))
			/* counted in its errors, as a failed data write */
			stria_member_io_error(&a->members[i], BLK_STS_IOERR);
	mutex_unlock(&a->sb_lock);
	return ret;
}

/**
 * stria_array_flush_members() - flush the caches of the members in use
 * @a: the array
 *
 * Every member that has not failed, rebuilding ones included, so what the
 * sync wrote is durable before a checkpoint records it. A member whose
 * flush fails is failed, as one whose superblock cannot be written. Caller
 * holds @a->sync.stripe_sem or @a->cfg_lock, so the member table stays.
 *
 * Return: 0, or -EIO when a member failed its flush.
 */
int stria_array_flush_members(struct stria_array *a)
{
	int ret = 0;
	u32 i;

	for (i = 0; i < a->nr_members; i++) {
		struct stria_member *m = &a->members[i];

		if (!m->dev.bdev || stria_member_failed(m) ||
		    !blkdev_issue_flush(m->dev.bdev))
			continue;
		pr_warn("stria%d: member %u (%pg): cache flush failed\n",
			a->index, m->role, m->dev.bdev);
		stria_member_io_error(m, BLK_STS_IOERR);
		ret = -EIO;
	}
	return ret;
}

/**
 * stria_sb_work() - record member state changes in the superblocks
 * @work: the array's sb_work
 *
 * Queued by stria_array_member_failed(); runs on the array's sb_wq.
 */
void stria_sb_work(struct work_struct *work)
{
	struct stria_array *a = container_of(work, struct stria_array, sb_work);

	mutex_lock(&a->sb_lock);
	/* writes wait for this: try until it can be written at all */
	while (stria_array_sync_failed(a) == -ENOMEM) {
		mutex_unlock(&a->sb_lock);
		msleep(20);
		mutex_lock(&a->sb_lock);
	}
	mutex_unlock(&a->sb_lock);
	/*
	 * A spare may take the role that just failed. Not from here: that
	 * freezes the queue, which waits for the writes held for this work.
	 */
	schedule_work(&a->kick_work);
}

/*
 * A member whose device went away (a drive pulled, its controller removed)
 * fails at once, idle array or not, where the kernel tells the holder
 * (compat.h: STRIA_HOLDER_OPS): the failure is recorded, the event sent,
 * a spare takes the role, as after a failed I/O. Elsewhere udev's remove
 * event runs "striactl fail --incremental", which does the same through
 * STRIA_IOC_MEMBER.
 */

/* Has the disk of @bdev been removed, or found dead? */
static bool stria_bdev_gone(struct block_device *bdev)
{
#if defined(STRIA_HAVE_BLK_HOLDER_OPS_SYNC)
	return !disk_live(bdev->bd_disk) ||
	       test_bit(GD_DEAD, &bdev->bd_disk->state);
#else
	return false;
#endif
}

/**
 * stria_dead_work() - fail the members whose device went away
 * @work: the array's dead_work
 *
 * Queued by the holder operation; takes cfg_lock, so the member table
 * holds still.
 */
void stria_dead_work(struct work_struct *work)
{
	struct stria_array *a = container_of(work, struct stria_array,
					     dead_work);
	struct stria_member *m;
	u32 i;

	mutex_lock(&a->cfg_lock);
	for (i = 0; i < a->nr_members; i++) {
		m = &a->members[i];
		if (!m->dev.bdev || !stria_bdev_gone(m->dev.bdev) ||
		    READ_ONCE(m->state) == STRIA_STATE_FAILED)
			continue;
		pr_warn("stria%d: member %u (%pg) went away\n", a->index,
			m->role, m->dev.bdev);
		stria_member_set_state(m, STRIA_STATE_FAILED);
	}
	mutex_unlock(&a->cfg_lock);
}

/**
 * stria_holder_attach() - let the holder operations reach a running array
 * @a: the array, just started
 */
void stria_holder_attach(struct stria_array *a)
{
	spin_lock(&a->holder->lock);
	a->holder->array = a;
	spin_unlock(&a->holder->lock);
	/* a member that went away while the array started */
	schedule_work(&a->dead_work);
}

/**
 * stria_holder_detach() - no holder operation reaches @a any more
 * @a: the array, stopping (or never started)
 *
 * Returns once none is left running.
 */
void stria_holder_detach(struct stria_array *a)
{
	spin_lock(&a->holder->lock);
	a->holder->array = NULL;
	spin_unlock(&a->holder->lock);
	cancel_work_sync(&a->dead_work);
}

#if defined(STRIA_HAVE_BLK_HOLDER_OPS_SYNC)
/*
 * ->mark_dead(): @bdev, a member or spare, was removed (@surprise: it is
 * gone already) or is going. Called with bd_holder_lock held, which keeps
 * the claim, and so the holder, alive; releases it. No array lock here:
 * the block layer calls this from the device's removal, which may wait for
 * I/O the array holds.
 */
static void stria_mark_dead(struct block_device *bdev, bool surprise)
{
	struct stria_holder *h = bdev->bd_holder;

	spin_lock(&h->lock);
	if (h->array)
		schedule_work(&h->array->dead_work);
	spin_unlock(&h->lock);
	mutex_unlock(&bdev->bd_holder_lock);
}

const struct blk_holder_ops stria_holder_ops = {
	.mark_dead = stria_mark_dead,
};
#endif
