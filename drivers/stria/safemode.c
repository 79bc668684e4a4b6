// SPDX-License-Identifier: GPL-2.0
/*
 * stria safe mode: RAID5/6 superblocks say "clean" whenever the array has
 * been idle a moment, so a power loss or a plain reboot does not cost a
 * resync. The model is md's safe mode (drivers/md/md.c: safemode_timer,
 * md_write_start(), md_write_end(), set_in_sync()).
 *
 * The writes in flight are counted in a percpu_ref kept at zero when idle:
 * on the I/O path a write takes one per-CPU reference when it starts and
 * drops it when it ends, and reads one word of flags that is zero while the
 * array is dirty and nothing is being checked. No lock, no shared atomic.
 * When a write ends it pushes a timer safe_mode_delay_ms ahead, rounded
 * so that the timer's lock is taken at most once per period (mod_timer()
 * with an unchanged expiry returns without it).
 *
 * When the timer fires, a work item switches the count to atomic mode,
 * looks whether it is zero, and if so sets STRIA_SAFE_CLEAN, flushes every
 * member's cache (so the data and parity written before are durable
 * everywhere) and writes the superblocks with state clean. A write that
 * starts meanwhile is counted in atomic mode and seen; one that starts
 * after finds STRIA_SAFE_CLEAN and takes the slow path.
 *
 * The slow path of a write, under the array's safe-mode spinlock: if the
 * array is clean, mark it dirty in memory, set STRIA_SAFE_PENDING and queue
 * the work that writes the superblocks with state active. While PENDING is
 * set, writes are not started: queue_rq() returns BLK_STS_RESOURCE (it may
 * run inside the submitter's submit_bio() and must not wait for our own
 * superblock writes, as for the write-intent bitmap), and the work runs the
 * queues again once the superblocks say dirty. So no write reaches a member
 * while its superblock says clean.
 *
 * On reboot and power off a notifier marks every idle array clean at once
 * (waiting up to a second for writes in flight), as md_notify_reboot()
 * does, and from then on every write end arms the timer one jiffy ahead.
 *
 * RAID0 has no parity to resync and no safe mode: its superblocks say
 * active while it runs, as before.
 *
 * Layer: services (Documentation/stria/layers.rst), on the recorded state.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/mutex.h>
#include <linux/percpu-refcount.h>
#include <linux/reboot.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/workqueue.h>

#include "stria.h"

/* how long a reboot waits for the writes in flight of an array */
#define STRIA_SAFE_REBOOT_WAIT_MS	1000
#define STRIA_SAFE_REBOOT_POLL_MS	50

static void stria_safe_release(struct percpu_ref *ref)
{
	/* the count only ever drops to zero: nothing to free */
}

/* Write the superblocks with the state the array is in now. */
static void stria_safe_write_sbs(struct stria_array *a)
{
	int ret;

	ret = stria_array_update_sbs(a);
	if (ret)
		pr_warn("stria%d: a superblock could not be marked %s: %d\n",
			a->index, stria_array_sb_state(a) == STRIA_SB_STATE_CLEAN ?
			"clean" : "active", ret);
}

/* A write waits for this: the superblocks say active, then it goes on. */
static void stria_safe_dirty_work(struct work_struct *work)
{
	struct stria_array *a = container_of(work, struct stria_array,
					     safe.dirty_work);
	struct stria_safe *s = &a->safe;

	stria_safe_write_sbs(a);
	spin_lock(&s->lock);
	clear_bit(STRIA_SAFE_PENDING, &s->flags);
	spin_unlock(&s->lock);
	blk_mq_run_hw_queues(a->disk->queue, true);
}

/*
 * Mark @a clean when no write is in flight. Caller holds @a->cfg_lock
 * (one checker at a time: the switches of the count to atomic mode and
 * back must not interleave). Returns true when the array is clean.
 */
static bool stria_safe_try_clean(struct stria_array *a)
{
	struct stria_safe *s = &a->safe;
	bool mark = false;

	lockdep_assert_held(&a->cfg_lock);
	spin_lock(&s->lock);
	if (test_bit(STRIA_SAFE_CLEAN, &s->flags) ||
	    test_bit(STRIA_SAFE_PENDING, &s->flags)) {
		spin_unlock(&s->lock);
		return test_bit(STRIA_SAFE_CLEAN, &s->flags);
	}
	set_bit(STRIA_SAFE_CHECKING, &s->flags);
	spin_unlock(&s->lock);

	percpu_ref_switch_to_atomic_sync(&s->writes);
	spin_lock(&s->lock);
	if (!test_bit(STRIA_SAFE_PENDING, &s->flags) &&
	    percpu_ref_is_zero(&s->writes)) {
		set_bit(STRIA_SAFE_CLEAN, &s->flags);
		mark = true;
	}
	/* CLEAN is visible before CHECKING goes: pairs with write_start */
	smp_mb__before_atomic();
	clear_bit(STRIA_SAFE_CHECKING, &s->flags);
	spin_unlock(&s->lock);
	percpu_ref_switch_to_percpu(&s->writes);

	if (mark) {
		/*
		 * Every member's cache first: a superblock's own flush covers
		 * its member only, and "clean" speaks for all of them.
		 */
		stria_array_flush_members(a);
		stria_safe_write_sbs(a);
	}
	return mark;
}

static void stria_safe_clean_work(struct work_struct *work)
{
	struct stria_array *a = container_of(work, struct stria_array,
					     safe.clean_work);

	mutex_lock(&a->cfg_lock);
	/* safe_mode_delay_ms 0: clean only at reboot (or stop) */
	if (!READ_ONCE(a->stopping) &&
	    (READ_ONCE(a->safe.delay_ms) || READ_ONCE(a->safe.shutdown)))
		stria_safe_try_clean(a);
	mutex_unlock(&a->cfg_lock);
}

static void stria_safe_timer(struct timer_list *t)
{
	struct stria_array *a = stria_timer_container_of(a, t, safe.timer);

	queue_work(system_long_wq, &a->safe.clean_work);
}

/**
 * stria_safe_init() - set up an array's safe mode, dirty
 * @a: the array; RAID5/6 get safe mode, RAID0 does not
 *
 * Return: 0 or -ENOMEM.
 */
int stria_safe_init(struct stria_array *a)
{
	struct stria_safe *s = &a->safe;
	int ret;

	spin_lock_init(&s->lock);
	timer_setup(&s->timer, stria_safe_timer, 0);
	INIT_WORK(&s->clean_work, stria_safe_clean_work);
	INIT_WORK(&s->dirty_work, stria_safe_dirty_work);
	s->delay_ms = STRIA_SAFE_DELAY_MS;
	s->enabled = stria_geom_redundant(&a->geom);
	ret = percpu_ref_init(&s->writes, stria_safe_release,
			      PERCPU_REF_ALLOW_REINIT, GFP_KERNEL);
	if (ret)
		return ret;
	/* idle: the count starts at zero */
	percpu_ref_put(&s->writes);
	return 0;
}

/**
 * stria_safe_start() - the array runs: go clean after the first idle period
 * @a: the array, its superblocks written active
 */
void stria_safe_start(struct stria_array *a)
{
	u32 ms = READ_ONCE(a->safe.delay_ms);

	/* read-only: the superblocks stay as they are */
	if (a->safe.enabled && ms && !READ_ONCE(a->readonly))
		mod_timer(&a->safe.timer, jiffies + msecs_to_jiffies(ms));
}

/**
 * stria_safe_stop() - no more marking clean or dirty: the array stops
 * @a: the array, with no I/O left (its disk deleted)
 */
void stria_safe_stop(struct stria_array *a)
{
	timer_delete_sync(&a->safe.timer);
	cancel_work_sync(&a->safe.clean_work);
	cancel_work_sync(&a->safe.dirty_work);
}

/**
 * stria_safe_exit() - undo stria_safe_init()
 * @a: the array, stopped (stria_safe_stop()) or never started
 */
void stria_safe_exit(struct stria_array *a)
{
	stria_safe_stop(a);
	percpu_ref_exit(&a->safe.writes);
}

/**
 * stria_safe_write_start_slow() - a write found a safe-mode flag set
 * @a: the array
 *
 * The reference the write took is dropped when it may not go on.
 *
 * Return: true when the write may go on, false to retry it later.
 */
bool stria_safe_write_start_slow(struct stria_array *a)
{
	struct stria_safe *s = &a->safe;
	bool go;

	spin_lock(&s->lock);
	if (test_bit(STRIA_SAFE_CLEAN, &s->flags)) {
		clear_bit(STRIA_SAFE_CLEAN, &s->flags);
		set_bit(STRIA_SAFE_PENDING, &s->flags);
		queue_work(system_long_wq, &s->dirty_work);
	}
	go = !test_bit(STRIA_SAFE_PENDING, &s->flags);
	spin_unlock(&s->lock);
	if (!go)
		percpu_ref_put(&s->writes);
	return go;
}

/**
 * stria_safe_write_end() - a write begun with stria_safe_write_start() ended
 * @a: the array
 *
 * Any context.
 */
void stria_safe_write_end(struct stria_array *a)
{
	struct stria_safe *s = &a->safe;
	unsigned long delay;

	percpu_ref_put(&s->writes);
	if (unlikely(READ_ONCE(s->shutdown))) {
		mod_timer(&s->timer, jiffies + 1);
		return;
	}
	delay = msecs_to_jiffies(READ_ONCE(s->delay_ms));
	/* rounded: the same expiry, and no timer lock, for a whole period */
	if (delay)
		mod_timer(&s->timer, roundup(jiffies, delay) + delay);
}

/**
 * stria_safe_set_delay() - set safe_mode_delay_ms
 * @a: the array
 * @ms: 0 (never marked clean while it runs) to STRIA_SAFE_DELAY_MAX_MS
 *
 * Return: 0, or -EINVAL for a value out of range (nothing changes).
 */
int stria_safe_set_delay(struct stria_array *a, u32 ms)
{
	if (ms > STRIA_SAFE_DELAY_MAX_MS)
		return -EINVAL;
	WRITE_ONCE(a->safe.delay_ms, ms);
	if (ms)
		stria_safe_start(a);
	return 0;
}

/**
 * stria_safe_state_name() - safe mode's view of the array, for sysfs
 * @a: the array
 *
 * Return: "clean" (the superblocks say so), "write-pending" (a write waits
 * for them to say active) or "active".
 */
const char *stria_safe_state_name(const struct stria_array *a)
{
	unsigned long f = READ_ONCE(a->safe.flags);

	if (f & BIT(STRIA_SAFE_PENDING))
		return "write-pending";
	return f & BIT(STRIA_SAFE_CLEAN) ? "clean" : "active";
}

static int stria_safe_reboot(struct notifier_block *nb, unsigned long code,
			     void *unused)
{
	struct stria_array *a;
	bool any = false;

	mutex_lock(&stria_arrays_lock);
	list_for_each_entry(a, &stria_arrays, list) {
		u32 waited = 0;
		bool clean;

		if (!a->safe.enabled || READ_ONCE(a->readonly))
			continue;
		WRITE_ONCE(a->safe.shutdown, true);
		mutex_lock(&a->cfg_lock);
		while (!(clean = stria_safe_try_clean(a)) &&
		       waited < STRIA_SAFE_REBOOT_WAIT_MS) {
			mutex_unlock(&a->cfg_lock);
			msleep(STRIA_SAFE_REBOOT_POLL_MS);
			waited += STRIA_SAFE_REBOOT_POLL_MS;
			mutex_lock(&a->cfg_lock);
		}
		mutex_unlock(&a->cfg_lock);
		if (clean)
			pr_info("stria%d: marked clean for %s\n", a->index,
				code == SYS_POWER_OFF ? "power off" :
				code == SYS_HALT ? "halt" : "reboot");
		else
			pr_warn("stria%d: writes still in flight at %s: not marked clean\n",
				a->index, code == SYS_POWER_OFF ? "power off" :
				code == SYS_HALT ? "halt" : "reboot");
		any = true;
	}
	mutex_unlock(&stria_arrays_lock);
	return any ? NOTIFY_OK : NOTIFY_DONE;
}

static struct notifier_block stria_safe_reboot_nb = {
	.notifier_call = stria_safe_reboot,
};

/**
 * stria_safe_register() - mark arrays clean at reboot and power off
 *
 * Return: 0 or a negative errno.
 */
int stria_safe_register(void)
{
	return register_reboot_notifier(&stria_safe_reboot_nb);
}

/**
 * stria_safe_unregister() - undo stria_safe_register()
 */
void stria_safe_unregister(void)
{
	unregister_reboot_notifier(&stria_safe_reboot_nb);
}
