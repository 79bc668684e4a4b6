// SPDX-License-Identifier: GPL-2.0
/*
 * stria background sync: rebuild members onto spares, check and repair
 * parity (scrub), one stripe at a time.
 *
 * One work item per array (on system_long_wq, never on the I/O path) walks
 * the stripes from a start to an end position, in member sectors of the
 * data area, and hands each to the level's sync_stripe(); RAID0 has none
 * and refuses. It is throttled as md throttles resync: per array, between
 * sync_speed_min and sync_speed_max KiB/s of member data per member. It
 * runs at the maximum while the array has no other I/O (its per-CPU request
 * counters did not move within the last second, as md's is_mddev_idle())
 * and at the minimum while it has.
 *
 * Every STRIA_SYNC_CKPT_SECS and when it ends, the sync flushes the
 * members' caches and then writes the superblocks with its position: a
 * rebuild's rebuild_offset, an unfinished scrub's scrub_offset. After a
 * stop or a crash, assembly goes on from there. A stop request interrupts
 * the worker between stripes and in its throttle sleeps.
 *
 * Starting and ending a sync, and moving spares into failed roles, happen
 * under the array's cfg_lock; nothing that waits for the worker holds it.
 * The worker holds sync.stripe_sem for reading around each stripe, so
 * removing a member can wait for the stripe in flight.
 *
 * Layer: sync, on the levels' ops (Documentation/stria/layers.rst,
 * drivers/stria/layers.map); the role changes of a sync's start and end
 * are the lifecycle's, asked through a->roles (struct stria_roles_ops).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/workqueue.h>

#include "stria.h"
#include "trace.h"

#define STRIA_SYNC_CKPT_SECS	5	/* seconds between checkpoints */
#define STRIA_SYNC_MAX_SLEEP_MS	250	/* longest throttle sleep at a time */

static enum stria_sync_op stria_sync_op(u32 action)
{
	switch (action) {
	case STRIA_SYNC_CHECK:
		return STRIA_SYNC_OP_CHECK;
	case STRIA_SYNC_REPAIR:
		return STRIA_SYNC_OP_REPAIR;
	case STRIA_SYNC_RESYNC:
		return STRIA_SYNC_OP_RESYNC;
	case STRIA_SYNC_REPLACE:
		return STRIA_SYNC_OP_REPLACE;
	default:
		return STRIA_SYNC_OP_REBUILD;
	}
}

/**
 * stria_sync_stripes() - stripes of an array
 * @a: the array
 *
 * Return: member data sectors / chunk: each stripe is one chunk of every
 * member.
 */
u64 stria_sync_stripes(const struct stria_array *a)
{
	return a->geom.member_sectors >> a->geom.chunk_shift;
}

/**
 * stria_array_io_count() - requests the array has completed, all CPUs
 * @a: the array
 *
 * Reads, writes, flushes, discards: what tells the sync the array is busy.
 *
 * Return: the sum of the per-CPU counters.
 */
u64 stria_array_io_count(struct stria_array *a)
{
	u64 n = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		const struct stria_stats *s = per_cpu_ptr(a->stats, cpu);

		n += READ_ONCE(s->ios[0]) + READ_ONCE(s->ios[1]) +
		     READ_ONCE(s->flushes) + READ_ONCE(s->discards);
	}
	return n;
}

/*
 * The throttle's window: speed is measured, and the array found busy or
 * idle, over about a second.
 */
struct stria_throttle {
	unsigned long mark;
	u64 mark_pos;
	u64 mark_io;
	bool busy;
};

static void stria_throttle_init(struct stria_array *a,
				struct stria_throttle *t, u64 pos)
{
	t->mark = jiffies;
	t->mark_pos = pos;
	t->mark_io = stria_array_io_count(a);
	t->busy = false;
}

/*
 * After each stripe (or reshape window): sleep as long as it takes to bring
 * this window's rate down to the target: sync_speed_max while the array is
 * idle, sync_speed_min while it has I/O (the lower of the two when min >
 * max). Once the window is a second old it rolls (the speed it shows is
 * sync_speed), as soon as its work is paid for at sync_speed_max: a step
 * larger than a second's worth (a reshape's window) takes its time, and
 * work done while the array was idle is never priced again at the lower
 * busy target, so raising sync_speed_max takes effect at the next look.
 */
static void stria_sync_throttle(struct stria_array *a,
				struct stria_throttle *t, u64 pos)
{
	struct stria_sync *s = &a->sync;
	unsigned long elapsed;
	u64 io, kib, want_ms, have_ms;
	u32 target;

	for (;;) {
		io = stria_array_io_count(a);
		elapsed = jiffies - t->mark;
		kib = (pos - t->mark_pos) >> 1;
		if (io != t->mark_io)
			t->busy = true;
		target = READ_ONCE(s->speed_max);
		if (t->busy && elapsed < HZ)
			target = min(target, READ_ONCE(s->speed_min));
		target = max(target, 1U);
		want_ms = div64_u64(kib * 1000, target);
		have_ms = jiffies_to_msecs(elapsed);
		if (want_ms <= have_ms || READ_ONCE(s->stop)) {
			if (elapsed >= HZ) {
				WRITE_ONCE(s->speed, div64_u64(kib * HZ, elapsed));
				t->mark = jiffies;
				t->mark_pos = pos;
				t->mark_io = io;
				t->busy = false;
			}
			return;
		}
		wait_event_timeout(s->wait, READ_ONCE(s->stop),
				   msecs_to_jiffies(min_t(u64, want_ms - have_ms,
							  STRIA_SYNC_MAX_SLEEP_MS)));
	}
}

/*
 * Make the work up to @pos durable, then record it in the superblocks.
 * Worker context, no lock held.
 */
static void stria_sync_checkpoint(struct stria_array *a, u32 action, u64 pos)
{
	struct stria_sync *s = &a->sync;
	int ret = 0;

	/*
	 * a replace starts over: its copy is a spare's after a stop; a
	 * reshape records each window itself (reshape.c)
	 */
	if (action == STRIA_SYNC_REPLACE || action == STRIA_SYNC_RESHAPE)
		return;
	down_read(&s->stripe_sem);
	if (action != STRIA_SYNC_CHECK)
		ret = stria_array_flush_members(a);
	up_read(&s->stripe_sem);
	/* not durable everywhere: the next checkpoint or the end records it */
	if (ret)
		return;
	mutex_lock(&a->sb_lock);
	if (action == STRIA_SYNC_REBUILD) {
		s->rebuild_ckpt = pos;
	} else {
		/* check, repair, resync: go on from here after a clean stop */
		s->scrub_action = action;
		s->scrub_pos = pos;
		s->scrub_end = s->end;
	}
	mutex_unlock(&a->sb_lock);
	stria_array_update_sbs(a);
	stria_event_sync_progress(a);
	trace_stria_sync(a->index, action, 1, pos, s->end,
			 READ_ONCE(s->mismatches), 0);
}

/* A rebuild reached the end: its members are in sync from now on. */
static void stria_rebuild_done(struct stria_array *a)
{
	unsigned int memflags;
	u32 i;

	memflags = stria_array_freeze(a);
	for (i = 0; i < a->nr_members; i++) {
		struct stria_member *m = &a->members[i];

		if (READ_ONCE(m->state) != STRIA_STATE_REBUILDING)
			continue;
		m->readd = false;
		stria_member_set_state(m, STRIA_STATE_ACTIVE);
		pr_info("stria%d: member %u (%pg) rebuilt, in sync\n",
			a->index, m->role, m->dev.bdev);
	}
	stria_array_unfreeze(a, memflags);
}

/*
 * The worker is done, at @pos, with @ret: record how far it got, end the
 * rebuild, and start what comes next (another spare's rebuild).
 */
static void stria_sync_finish(struct stria_array *a, u64 pos, int ret)
{
	struct stria_sync *s = &a->sync;
	u32 action = s->action;
	int flush_err = 0;

	mutex_lock(&a->cfg_lock);
	/* a member that cannot flush has failed: the sync did not end well */
	if (action != STRIA_SYNC_CHECK)
		flush_err = stria_array_flush_members(a);
	if (flush_err && !ret)
		ret = flush_err;
	mutex_lock(&a->sb_lock);
	if (action == STRIA_SYNC_REBUILD) {
		if (!ret || !stria_array_rebuilding_roles(a))
			s->rebuild_ckpt = 0;
		else if (!flush_err)
			s->rebuild_ckpt = pos;
		/* else the last checkpoint is the last durable position */
	} else if (action == STRIA_SYNC_RESYNC && ret) {
		/*
		 * A resync is owed until it is done: a stop, or an error
		 * (a member failed: it goes on after the rebuild), keeps
		 * it from where it got, or its last checkpoint when the
		 * members could not make the work since durable.
		 */
		s->scrub_action = action;
		if (!flush_err)
			s->scrub_pos = pos;
		s->scrub_end = s->end;
	} else if (action == STRIA_SYNC_RESHAPE) {
		/* its checkpoint is in the superblocks, window by window */
	} else if (action != STRIA_SYNC_REPLACE && ret == -EINTR &&
		   READ_ONCE(a->stopping) && pos < s->end) {
		/* the array stops: go on after assemble */
		s->scrub_action = action;
		s->scrub_pos = pos;
		s->scrub_end = s->end;
	} else if (s->scrub_action != STRIA_SB_SCRUB_RESYNC ||
		   action == STRIA_SYNC_RESYNC) {
		/* what ended or was dropped; never a resync still owed */
		s->scrub_action = STRIA_SB_SCRUB_NONE;
		s->scrub_pos = 0;
		s->scrub_end = 0;
	}
	mutex_unlock(&a->sb_lock);
	if (action == STRIA_SYNC_REBUILD && !ret)
		stria_rebuild_done(a);
	if (action == STRIA_SYNC_RESHAPE && !ret)
		stria_reshape_done(a);
	if (action == STRIA_SYNC_REPLACE)
		ret = a->roles->replace_end(a, ret, pos);
	WRITE_ONCE(s->pos, pos);
	WRITE_ONCE(s->speed, 0);
	WRITE_ONCE(s->result, ret);
	WRITE_ONCE(s->action, STRIA_SYNC_IDLE);
	stria_array_update_sbs(a);
	stria_event_sync_ended(a, action, ret, READ_ONCE(s->mismatches));
	trace_stria_sync(a->index, action, 2, pos, s->end,
			 READ_ONCE(s->mismatches), ret);
	if (!ret && (action == STRIA_SYNC_RESYNC || s->partial) && a->wib)
		pr_info("stria%d: %s done (%llu of %llu sectors per member in regions the write-intent bitmap had dirty)\n",
			a->index, stria_sync_action_name(action),
			s->end - s->start - s->skipped, s->end - s->start);
	else if (!ret && action == STRIA_SYNC_REBUILD && s->unverified)
		pr_warn("stria%d: rebuild done (%llu sectors per member): %llu sectors of stripes that owe a resync were rebuilt from parity that could not be verified: their data may be wrong (the log names them)\n",
			a->index, s->end - s->start, s->unverified);
	else if (!ret)
		pr_info("stria%d: %s done (%llu sectors per member%s)\n",
			a->index, stria_sync_action_name(action),
			s->end - s->start,
			action == STRIA_SYNC_CHECK || action == STRIA_SYNC_REPAIR ?
			", see mismatch_cnt" : "");
	else if (ret == -EINTR)
		pr_info("stria%d: %s stopped at %llu of %llu sectors\n",
			a->index, stria_sync_action_name(action), pos, s->end);
	else
		pr_warn("stria%d: %s stopped at %llu of %llu sectors: error %d\n",
			a->index, stria_sync_action_name(action), pos, s->end,
			ret);
	wake_up_all(&s->wait);
	if (ret != -EINTR)
		stria_sync_kick(a, ret != 0);
	mutex_unlock(&a->cfg_lock);
}

static void stria_sync_work(struct work_struct *work)
{
	struct stria_array *a = container_of(work, struct stria_array,
					     sync.work);
	struct stria_sync *s = &a->sync;
	u32 action = READ_ONCE(s->action), shift = a->geom.chunk_shift;
	enum stria_sync_op op = stria_sync_op(action);
	unsigned long ckpt = jiffies;
	struct stria_throttle t;
	u64 pos = s->pos, mism = s->mismatches, skipped = 0;
	/* a rebuild counts what it could not verify, not mismatches */
	u64 *count = op == STRIA_SYNC_OP_REBUILD ? &s->unverified : &mism;
	int ret = 0;

	stria_throttle_init(a, &t, pos);
	while (pos < s->end) {
		if (READ_ONCE(s->stop)) {
			ret = -EINTR;
			break;
		}
		if (action == STRIA_SYNC_RESYNC || s->partial) {
			/*
			 * The write-intent bitmap says where writes were cut,
			 * or what re-added members missed.
			 */
			u64 next = min(stria_bitmap_next_dirty(a, pos), s->end);

			if (next > pos) {
				skipped += next - pos;
				pos = next;
				WRITE_ONCE(s->pos, pos);
				WRITE_ONCE(s->skipped, skipped);
				continue;
			}
		}
		if (action == STRIA_SYNC_RESHAPE) {
			/* a window at a time; @pos is its recorded end */
			down_read(&s->stripe_sem);
			ret = stria_reshape_step(a, &pos);
			up_read(&s->stripe_sem);
			if (ret)
				break;
			WRITE_ONCE(s->pos, pos);
			stria_sync_throttle(a, &t, pos);
			cond_resched();
			continue;
		}
		if (op == STRIA_SYNC_OP_REBUILD &&
		    !stria_array_rebuilding_roles(a)) {
			/* the members being rebuilt have failed */
			ret = -EIO;
			break;
		}
		if (op == STRIA_SYNC_OP_REPLACE &&
		    (!stria_member_in_sync(&a->members[a->repl_role]) ||
		     READ_ONCE(a->repl.state) != STRIA_STATE_REPLACEMENT)) {
			/* the member or its replacement has failed */
			ret = -EIO;
			break;
		}
		down_read(&s->stripe_sem);
		ret = a->ops->sync_stripe(a, pos >> shift, op, count);
		up_read(&s->stripe_sem);
		if (ret)
			break;
		pos += 1ULL << shift;
		WRITE_ONCE(s->pos, pos);
		WRITE_ONCE(s->mismatches, mism);
		if (time_after(jiffies, ckpt + STRIA_SYNC_CKPT_SECS * HZ)) {
			stria_sync_checkpoint(a, action, pos);
			ckpt = jiffies;
		}
		/* skipped regions cost nothing: only the work done counts */
		stria_sync_throttle(a, &t, pos - skipped);
		cond_resched();
	}
	if (action == STRIA_SYNC_REPLACE)
		stria_test_delay(STRIA_DELAY_REPLACE_END);
	stria_sync_finish(a, pos, ret);
}

/* Start @action over member sectors [@start, @end). Caller holds cfg_lock. */
static void stria_sync_begin(struct stria_array *a, u32 action, u64 start,
			     u64 end)
{
	struct stria_sync *s = &a->sync;

	lockdep_assert_held(&a->cfg_lock);
	s->start = start;
	s->base = action == STRIA_SYNC_REBUILD || action == STRIA_SYNC_RESYNC ||
		  action == STRIA_SYNC_RESHAPE ?
		  0 : start;
	s->end = end;
	WRITE_ONCE(s->pos, start);
	WRITE_ONCE(s->skipped, 0);
	WRITE_ONCE(s->stop, false);
	WRITE_ONCE(s->speed, 0);
	WRITE_ONCE(s->result, 0);
	if (action != STRIA_SYNC_REBUILD)
		s->partial = false;
	else
		s->unverified = 0;
	s->start_failed = stria_array_failed_roles(a);
	WRITE_ONCE(s->action, action);
	trace_stria_sync(a->index, action, 0, start, end, s->mismatches, 0);
	stria_event_sync_started(a, action);
	pr_info("stria%d: %s of '%s' %s at %llu of %llu sectors per member%s\n",
		a->index, stria_sync_action_name(action), a->name,
		start ? "goes on" : "starts", start, end,
		s->partial ? ", in the regions the write-intent bitmap has dirty" : "");
	queue_work(system_long_wq, &s->work);
}

/**
 * stria_sync_kick() - start the sync the array needs, if any
 * @a: the array
 * @after_error: the last sync just stopped on an error
 *
 * A reshape owed goes on from its checkpoint, and nothing else starts.
 * When no sync runs on a RAID5/6 array that is not beyond repair: spares
 * take the failed roles, and a rebuild starts (from 0 when a role was just
 * taken, else from the checkpoint) while any member is being rebuilt; else
 * a scrub interrupted by a stop goes on. After an error, only when a member
 * failed meanwhile (so this does not loop on an error that changes
 * nothing). Caller holds @a->cfg_lock.
 */
void stria_sync_kick(struct stria_array *a, bool after_error)
{
	struct stria_sync *s = &a->sync;

	lockdep_assert_held(&a->cfg_lock);
	if (READ_ONCE(a->stopping) || s->action != STRIA_SYNC_IDLE ||
	    stria_array_state(a) == STRIA_STATE_FAILED)
		return;
	if (READ_ONCE(a->reshaping)) {
		/* a reshape goes on from its checkpoint; nothing else runs */
		if (!after_error)
			stria_sync_begin(a, STRIA_SYNC_RESHAPE,
					 a->reshape.ckpt << a->geom.chunk_shift,
					 a->reshape.plan.rows_new <<
					 a->geom.chunk_shift);
		return;
	}
	if (!stria_geom_redundant(&a->geom))
		return;
	if (after_error && stria_array_failed_roles(a) == s->start_failed)
		return;
	if (!a->ops->sync_stripe) {
		if (a->nr_spares && stria_array_failed_roles(a))
			pr_warn_once("stria%d: this build of stria cannot rebuild raid%u yet: the spares stay spares\n",
				     a->index, a->geom.level);
		return;
	}
	if (a->roles->take_spares(a)) {
		mutex_lock(&a->sb_lock);
		s->rebuild_ckpt = 0;
		mutex_unlock(&a->sb_lock);
	}
	if (stria_array_rebuilding_roles(a)) {
		/* only re-added members: what the bitmap has dirty */
		s->partial = a->wib && stria_array_readd_only(a);
		/* the superblocks name the roles being rebuilt before it runs */
		stria_array_update_sbs(a);
		stria_sync_begin(a, STRIA_SYNC_REBUILD, s->rebuild_ckpt,
				 a->geom.member_sectors);
		return;
	}
	if (s->scrub_action != STRIA_SB_SCRUB_NONE && !after_error &&
	    !atomic_read(&a->nr_failed))
		stria_sync_begin(a, s->scrub_action, s->scrub_pos,
				 s->scrub_end);
}

/**
 * stria_sync_replace_start() - start the copy of a replace
 * @a: the array, with @a->repl set up and no sync running
 *
 * Caller holds @a->cfg_lock.
 */
void stria_sync_replace_start(struct stria_array *a)
{
	stria_sync_begin(a, STRIA_SYNC_REPLACE, 0, a->geom.member_sectors);
}

/**
 * stria_sync_scrub() - start a check or repair
 * @a: the array
 * @action: STRIA_SYNC_CHECK or STRIA_SYNC_REPAIR
 * @first_stripe: first stripe
 * @nr_stripes: in: stripes, 0 for all from @first_stripe; out: the
 *	stripes the scrub covers (cut at the array's end)
 * @msg: STRIA_MSG_LEN bytes for the reason on failure
 *
 * Return: 0; -EINVAL on RAID0, a degraded or rebuilding array or a range
 * beyond the end; -EOPNOTSUPP when the level cannot sync; -EBUSY while
 * another sync runs or a resync is owed; -ENXIO while the array stops.
 */
int stria_sync_scrub(struct stria_array *a, u32 action, u64 first_stripe,
		     u64 *nr_stripes, char *msg)
{
	struct stria_sync *s = &a->sync;
	u64 total = stria_sync_stripes(a);
	u32 shift = a->geom.chunk_shift;
	int ret = 0;

	if (!stria_geom_redundant(&a->geom)) {
		snprintf(msg, STRIA_MSG_LEN, "array '%s' is raid0: it has no parity or copies to check",
			 a->name);
		return -EINVAL;
	}
	if (!a->ops->sync_stripe) {
		snprintf(msg, STRIA_MSG_LEN, "this build of stria cannot scrub raid%u yet",
			 a->geom.level);
		return -EOPNOTSUPP;
	}
	if (first_stripe >= total) {
		snprintf(msg, STRIA_MSG_LEN, "stripe %llu is beyond the end of '%s' (%llu stripes)",
			 first_stripe, a->name, total);
		return -EINVAL;
	}
	if (!*nr_stripes || *nr_stripes > total - first_stripe)
		*nr_stripes = total - first_stripe;
	ret = stria_cfg_lock(a, msg);
	if (ret)
		return ret;
	if (READ_ONCE(a->stopping)) {
		snprintf(msg, STRIA_MSG_LEN, "array '%s' is stopping", a->name);
		ret = -ENXIO;
	} else if (s->action != STRIA_SYNC_IDLE) {
		snprintf(msg, STRIA_MSG_LEN, "a %s of '%s' is running (%llu of %llu sectors): stop it first",
			 stria_sync_action_name(s->action), a->name,
			 READ_ONCE(s->pos) - s->base, s->end - s->base);
		ret = -EBUSY;
	} else if (atomic_read(&a->nr_failed)) {
		snprintf(msg, STRIA_MSG_LEN, "array '%s' is %s: a scrub needs every member in sync",
			 a->name, stria_array_rebuilding_roles(a) ?
			 "being rebuilt" : "degraded");
		ret = -EINVAL;
	} else if (s->scrub_action == STRIA_SB_SCRUB_RESYNC) {
		snprintf(msg, STRIA_MSG_LEN, "array '%s' owes a resync from sector %llu (not stopped cleanly): it comes first",
			 a->name, s->scrub_pos);
		ret = -EBUSY;
	} else {
		mutex_lock(&a->sb_lock);
		s->scrub_action = STRIA_SB_SCRUB_NONE;
		s->scrub_pos = 0;
		s->scrub_end = 0;
		mutex_unlock(&a->sb_lock);
		WRITE_ONCE(s->mismatches, 0);
		WRITE_ONCE(s->located, 0);
		WRITE_ONCE(s->unlocatable, 0);
		stria_sync_begin(a, action, first_stripe << shift,
				 (first_stripe + *nr_stripes) << shift);
	}
	mutex_unlock(&a->cfg_lock);
	return ret;
}

/**
 * stria_sync_stop() - stop the running sync and wait for it
 * @a: the array
 * @shutdown: the array stops (@a->stopping is set): stop any sync, and
 *	record an unfinished scrub to go on after assemble
 * @msg: STRIA_MSG_LEN bytes for the reason on failure
 *
 * On request (not @shutdown) only a check or repair stops, and its
 * checkpoint is dropped; a rebuild, resync or reshape runs on. No lock held by the caller
 * but possibly stria_arrays_lock.
 *
 * Return: 0 (also when nothing ran), -EBUSY for a rebuild, resync or
 * reshape, or -EINTR
 * when a request was killed while it waited for the array.
 */
int stria_sync_stop(struct stria_array *a, bool shutdown, char *msg)
{
	struct stria_sync *s = &a->sync;

	/* a request (scrub stop) may be killed while it waits; a stop not */
	if (!shutdown) {
		if (stria_cfg_lock(a, msg))
			return -EINTR;
	} else {
		mutex_lock(&a->cfg_lock);
	}
	if (!shutdown && (s->action == STRIA_SYNC_REBUILD ||
			  s->action == STRIA_SYNC_RESYNC ||
			  s->action == STRIA_SYNC_RESHAPE)) {
		snprintf(msg, STRIA_MSG_LEN, "a %s cannot be stopped: it ends with the array (striactl stop)",
			 stria_sync_action_name(s->action));
		mutex_unlock(&a->cfg_lock);
		return -EBUSY;
	}
	WRITE_ONCE(s->stop, true);
	mutex_unlock(&a->cfg_lock);
	wake_up_all(&s->wait);
	flush_work(&s->work);
	return 0;
}

/**
 * stria_sync_init() - set up an array's sync state, idle
 * @a: the array
 */
void stria_sync_init(struct stria_array *a)
{
	struct stria_sync *s = &a->sync;

	INIT_WORK(&s->work, stria_sync_work);
	init_waitqueue_head(&s->wait);
	init_rwsem(&s->stripe_sem);
	s->action = STRIA_SYNC_IDLE;
	s->speed_min = STRIA_SYNC_SPEED_MIN;
	s->speed_max = STRIA_SYNC_SPEED_MAX;
}
