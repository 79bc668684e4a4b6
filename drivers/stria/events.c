// SPDX-License-Identifier: GPL-2.0
/*
 * stria events: what user space is told when an array's state changes.
 *
 * Every change that matters (a member failed, removed or added, a spare
 * rebuilt, the array degraded, failed or back to optimal, a sync started
 * or ended, mismatches found or located, a resync owed or done) becomes a KOBJ_CHANGE
 * uevent on the array's disk with STRIA_EVENT=<name> and the details as
 * STRIA_* properties (Documentation/ABI/testing/sysfs-block-stria), and a
 * sysfs_notify() on the attributes it changed, so that a poller on them
 * wakes up.
 *
 * Members fail in I/O completion, in interrupt context, where neither can
 * be sent. So each array queues its events in a ring under a spinlock
 * (nothing else: the I/O path pays one lock round trip per member state
 * change, never per request) and a work item sends them, in order, from
 * process context. Each event carries a sequence number (STRIA_SEQ) that
 * rises by one per event queued. Should the ring be full, the events that
 * found it full are counted and one "Changed" event stands in for them
 * after the others: a listener then reads the array's state again. Events
 * are sent while the disk exists: from stria_events_start(), right after
 * the disk is added, to stria_events_stop(), right before it is deleted.
 *
 * Layer: recorded state, the bottom (Documentation/stria/layers.rst,
 * drivers/stria/layers.map): state.c tells it every member state change.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/kobject.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/sysfs.h>
#include <linux/workqueue.h>

#include "stria.h"

/* The events, by the name STRIA_EVENT gives them. */
enum stria_ev_kind {
	STRIA_EV_MEMBER_FAILED,
	STRIA_EV_MEMBER_REMOVED,
	STRIA_EV_MEMBER_ADDED,
	STRIA_EV_SPARE_ADDED,
	STRIA_EV_SPARE_ACTIVE,
	STRIA_EV_ARRAY_DEGRADED,
	STRIA_EV_ARRAY_FAILED,
	STRIA_EV_ARRAY_OPTIMAL,
	STRIA_EV_ARRAY_DIRTY,
	STRIA_EV_ARRAY_CLEAN,
	STRIA_EV_SYNC_STARTED,
	STRIA_EV_SYNC_FINISHED,
	STRIA_EV_SYNC_INTERRUPTED,
	STRIA_EV_MISMATCHES_FOUND,
	STRIA_EV_MISMATCH_LOCATED,
	STRIA_EV_MISMATCH_UNLOCATABLE,
	STRIA_EV_CHANGED,
};

static const char *const stria_ev_names[] = {
	[STRIA_EV_MEMBER_FAILED]	= "MemberFailed",
	[STRIA_EV_MEMBER_REMOVED]	= "MemberRemoved",
	[STRIA_EV_MEMBER_ADDED]		= "MemberAdded",
	[STRIA_EV_SPARE_ADDED]		= "SpareAdded",
	[STRIA_EV_SPARE_ACTIVE]		= "SpareActive",
	[STRIA_EV_ARRAY_DEGRADED]	= "ArrayDegraded",
	[STRIA_EV_ARRAY_FAILED]		= "ArrayFailed",
	[STRIA_EV_ARRAY_OPTIMAL]	= "ArrayOptimal",
	[STRIA_EV_ARRAY_DIRTY]		= "ArrayDirty",
	[STRIA_EV_ARRAY_CLEAN]		= "ArrayClean",
	[STRIA_EV_SYNC_STARTED]		= "SyncStarted",
	[STRIA_EV_SYNC_FINISHED]	= "SyncFinished",
	[STRIA_EV_SYNC_INTERRUPTED]	= "SyncInterrupted",
	[STRIA_EV_MISMATCHES_FOUND]	= "MismatchesFound",
	[STRIA_EV_MISMATCH_LOCATED]	= "MismatchLocated",
	[STRIA_EV_MISMATCH_UNLOCATABLE]	= "MismatchUnlocatable",
	[STRIA_EV_CHANGED]		= "Changed",
};

/* events queued and not sent yet, per array */
#define STRIA_EVENTS_RING	64
/* STRIA_* properties of one event at most, and the length of each */
#define STRIA_EV_PROPS		12
#define STRIA_EV_PROP_LEN	64

/*
 * One queued event. @role is the member's role, STRIA_SB_ROLE_SPARE for a
 * spare, STRIA_NO_MEMBER when the event is about no member. @state is the
 * member's new state (member events), and @array_state the array's at the
 * time. @action, @result, @value: the sync's action, its result (errno)
 * and mismatch count (sync events); ArrayDirty: @value 1 when a resync
 * runs; Changed: @value the events it stands in for. MismatchLocated and
 * MismatchUnlocatable: @value the stripe, @sector the array sector, @chunk
 * "data", "P" or "Q" (located).
 */
struct stria_ev {
	u32 kind;
	u32 role;
	u32 state;
	u32 array_state;
	u32 action;
	int result;
	dev_t devt;
	u64 seq;
	u64 value;
	u64 sector;
	const char *chunk;
	char dev[BDEVNAME_SIZE];
};

/* Properties of one event as kobject_uevent_env() takes them. */
struct stria_ev_env {
	int n;
	char *envp[STRIA_EV_PROPS + 1];
	char buf[STRIA_EV_PROPS][STRIA_EV_PROP_LEN];
};

/**
 * struct stria_events - the events of one array
 * @array: the array
 * @lock: protects @live to @ring; taken in any context, irqs off
 * @work: sends what is queued, from process context (system_wq)
 * @live: the disk exists: events are sent (stria_events_start() to
 *	stria_events_stop())
 * @head: the oldest event queued
 * @len: events queued
 * @lost: events that found the ring full, since the last "Changed"
 * @seq: sequence number of the last event queued
 * @array_state: the array's state as the last event queued had it
 * @ring: the queue
 * @env: the properties of the event being sent (by @work only)
 */
struct stria_events {
	struct stria_array *array;
	spinlock_t lock;
	struct work_struct work;
	bool live;
	u32 head;
	u32 len;
	u32 lost;
	u64 seq;
	u32 array_state;
	struct stria_ev ring[STRIA_EVENTS_RING];
	struct stria_ev_env env;
};

/* Queue @ev (its seq is set here). Caller holds the lock. */
static void stria_ev_push(struct stria_events *ev, struct stria_ev *e)
{
	e->seq = ++ev->seq;
	if (ev->len == STRIA_EVENTS_RING) {
		ev->lost++;
		return;
	}
	ev->ring[(ev->head + ev->len++) % STRIA_EVENTS_RING] = *e;
}

/*
 * Queue an event of @kind about member @m (NULL: none) of @a, and after it
 * the array's change of state, if it has changed since the last event
 * queued. Any context.
 */
static void stria_ev_queue(struct stria_array *a, u32 kind,
			   const struct stria_member *m, u32 role,
			   struct stria_ev *e)
{
	struct stria_events *ev = a->uevents;
	u32 state = stria_array_state(a);
	unsigned long flags;

	e->kind = kind;
	e->role = role;
	e->array_state = state;
	if (m) {
		e->devt = stria_member_devt(m);
		if (m->dev.bdev)
			snprintf(e->dev, sizeof(e->dev), "%pg", m->dev.bdev);
	}
	if (!e->dev[0])
		strscpy(e->dev, "-", sizeof(e->dev));
	spin_lock_irqsave(&ev->lock, flags);
	stria_ev_push(ev, e);
	if (state != ev->array_state && ev->live) {
		struct stria_ev s = {
			.kind = state == STRIA_STATE_ACTIVE ?
				STRIA_EV_ARRAY_OPTIMAL :
				state == STRIA_STATE_DEGRADED ?
				STRIA_EV_ARRAY_DEGRADED : STRIA_EV_ARRAY_FAILED,
			.role = STRIA_NO_MEMBER,
			.array_state = state,
			.dev = "-",
		};

		ev->array_state = state;
		stria_ev_push(ev, &s);
	}
	spin_unlock_irqrestore(&ev->lock, flags);
	schedule_work(&ev->work);
}

/* A check or repair: its events carry the mismatch count. */
static bool stria_ev_scrub(u32 action)
{
	return action == STRIA_SYNC_CHECK || action == STRIA_SYNC_REPAIR;
}

static const char *stria_sync_result_name(int result)
{
	switch (result) {
	case 0:
		return "ok";
	case -EINTR:
		return "stopped";
	case -EIO:
		return "io-error";
	case -ENODEV:
		return "too-few-members";
	default:
		return "error";
	}
}

static __printf(2, 3) void stria_ev_prop(struct stria_ev_env *env,
					 const char *fmt, ...)
{
	va_list ap;

	if (WARN_ON_ONCE(env->n >= STRIA_EV_PROPS))
		return;
	va_start(ap, fmt);
	vsnprintf(env->buf[env->n], STRIA_EV_PROP_LEN, fmt, ap);
	va_end(ap);
	env->envp[env->n] = env->buf[env->n];
	env->envp[++env->n] = NULL;
}

/* The STRIA_* properties of @e. */
static void stria_ev_props(struct stria_array *a, const struct stria_ev *e,
			   struct stria_ev_env *env)
{
	bool scrub = stria_ev_scrub(e->action);

	env->n = 0;
	stria_ev_prop(env, "STRIA_EVENT=%s", stria_ev_names[e->kind]);
	stria_ev_prop(env, "STRIA_NAME=%s", a->name);
	stria_ev_prop(env, "STRIA_SEQ=%llu", e->seq);
	stria_ev_prop(env, "STRIA_ARRAY_STATE=%s",
		      stria_state_name(e->array_state));
	switch (e->kind) {
	case STRIA_EV_MEMBER_FAILED:
	case STRIA_EV_MEMBER_REMOVED:
	case STRIA_EV_MEMBER_ADDED:
	case STRIA_EV_SPARE_ADDED:
	case STRIA_EV_SPARE_ACTIVE:
		if (e->role == STRIA_SB_ROLE_SPARE)
			stria_ev_prop(env, "STRIA_MEMBER_ROLE=spare");
		else
			stria_ev_prop(env, "STRIA_MEMBER_ROLE=%u", e->role);
		stria_ev_prop(env, "STRIA_MEMBER_DEVICE=%s", e->dev);
		stria_ev_prop(env, "STRIA_MEMBER_DEV=%u:%u", MAJOR(e->devt),
			      MINOR(e->devt));
		stria_ev_prop(env, "STRIA_MEMBER_STATE=%s",
			      e->kind == STRIA_EV_MEMBER_REMOVED ? "removed" :
			      stria_state_name(e->state));
		break;
	case STRIA_EV_SYNC_FINISHED:
	case STRIA_EV_SYNC_INTERRUPTED:
		stria_ev_prop(env, "STRIA_SYNC_RESULT=%s",
			      stria_sync_result_name(e->result));
		fallthrough;
	case STRIA_EV_MISMATCHES_FOUND:
		stria_ev_prop(env, "STRIA_SYNC_ACTION=%s",
			      stria_sync_action_name(e->action));
		if (scrub)
			stria_ev_prop(env, "STRIA_MISMATCH_CNT=%llu", e->value);
		break;
	case STRIA_EV_SYNC_STARTED:
		stria_ev_prop(env, "STRIA_SYNC_ACTION=%s",
			      stria_sync_action_name(e->action));
		break;
	case STRIA_EV_MISMATCH_LOCATED:
		stria_ev_prop(env, "STRIA_MEMBER_ROLE=%u", e->role);
		stria_ev_prop(env, "STRIA_MEMBER_DEVICE=%s", e->dev);
		stria_ev_prop(env, "STRIA_CHUNK=%s", e->chunk);
		fallthrough;
	case STRIA_EV_MISMATCH_UNLOCATABLE:
		stria_ev_prop(env, "STRIA_STRIPE=%llu", e->value);
		stria_ev_prop(env, "STRIA_SECTOR=%llu", e->sector);
		break;
	case STRIA_EV_ARRAY_DIRTY:
		stria_ev_prop(env, "STRIA_RESYNC=%llu", e->value);
		break;
	case STRIA_EV_CHANGED:
		stria_ev_prop(env, "STRIA_LOST=%llu", e->value);
		break;
	}
}

/* The attributes whose pollers @e wakes, NULL-terminated. */
static void stria_ev_attrs(const struct stria_ev *e, const char **attrs)
{
	static const char *const all[] = {
		"members", "state", "sync_action", "sync_completed",
		"mismatch_cnt",
	};
	bool scrub = stria_ev_scrub(e->action);
	int n = 0;

	switch (e->kind) {
	case STRIA_EV_MEMBER_FAILED:
	case STRIA_EV_MEMBER_REMOVED:
	case STRIA_EV_MEMBER_ADDED:
	case STRIA_EV_SPARE_ADDED:
	case STRIA_EV_SPARE_ACTIVE:
		attrs[n++] = "members";
		break;
	case STRIA_EV_ARRAY_DEGRADED:
	case STRIA_EV_ARRAY_FAILED:
	case STRIA_EV_ARRAY_OPTIMAL:
		attrs[n++] = "state";
		break;
	case STRIA_EV_SYNC_STARTED:
	case STRIA_EV_SYNC_FINISHED:
	case STRIA_EV_SYNC_INTERRUPTED:
		attrs[n++] = "sync_action";
		attrs[n++] = "sync_completed";
		/* a scrub sets it to 0 when it starts */
		if (scrub)
			attrs[n++] = "mismatch_cnt";
		break;
	case STRIA_EV_MISMATCHES_FOUND:
		attrs[n++] = "mismatch_cnt";
		break;
	case STRIA_EV_MISMATCH_LOCATED:
		attrs[n++] = "mismatch_located";
		break;
	case STRIA_EV_MISMATCH_UNLOCATABLE:
		attrs[n++] = "mismatch_unlocatable";
		break;
	case STRIA_EV_CHANGED:
		for (n = 0; n < ARRAY_SIZE(all); n++)
			attrs[n] = all[n];
		break;
	}
	attrs[n] = NULL;
}

/* Send @e as a uevent, then wake the pollers of what it changed. */
static void stria_ev_send(struct stria_array *a, const struct stria_ev *e,
			  struct stria_ev_env *env)
{
	struct kobject *kobj = &disk_to_dev(a->disk)->kobj;
	const char *attrs[8];
	int ret, i;

	stria_ev_props(a, e, env);
	ret = kobject_uevent_env(kobj, KOBJ_CHANGE, env->envp);
	if (ret)
		pr_warn_ratelimited("stria%d: cannot send the %s event: error %d\n",
				    a->index, stria_ev_names[e->kind], ret);
	stria_ev_attrs(e, attrs);
	for (i = 0; attrs[i]; i++)
		sysfs_notify(kobj, "stria", attrs[i]);
}

/* Send what is queued, oldest first, then a "Changed" for what was lost. */
static void stria_events_work(struct work_struct *work)
{
	struct stria_events *ev = container_of(work, struct stria_events,
					       work);
	struct stria_ev e;
	unsigned long flags;

	for (;;) {
		spin_lock_irqsave(&ev->lock, flags);
		if (!ev->live || (!ev->len && !ev->lost)) {
			spin_unlock_irqrestore(&ev->lock, flags);
			return;
		}
		if (ev->len) {
			e = ev->ring[ev->head];
			ev->head = (ev->head + 1) % STRIA_EVENTS_RING;
			ev->len--;
		} else {
			memset(&e, 0, sizeof(e));
			e.kind = STRIA_EV_CHANGED;
			e.role = STRIA_NO_MEMBER;
			e.array_state = ev->array_state;
			e.seq = ev->seq;
			e.value = ev->lost;
			ev->lost = 0;
		}
		spin_unlock_irqrestore(&ev->lock, flags);
		stria_ev_send(ev->array, &e, &ev->env);
		cond_resched();
	}
}

/**
 * stria_events_init() - set up an array's events, not sent yet
 * @a: the array, allocated
 *
 * Return: 0 or -ENOMEM.
 */
int stria_events_init(struct stria_array *a)
{
	struct stria_events *ev = kzalloc_node(sizeof(*ev), GFP_KERNEL,
					       a->node);

	if (!ev)
		return -ENOMEM;
	ev->array = a;
	spin_lock_init(&ev->lock);
	INIT_WORK(&ev->work, stria_events_work);
	ev->array_state = STRIA_STATE_ACTIVE;
	a->uevents = ev;
	return 0;
}

/**
 * stria_events_free() - free an array's events
 * @a: the array; its events are stopped, or were never started
 */
void stria_events_free(struct stria_array *a)
{
	if (!a->uevents)
		return;
	cancel_work_sync(&a->uevents->work);
	kfree(a->uevents);
	a->uevents = NULL;
}

/**
 * stria_events_start() - the array's disk exists: send events from now on
 * @a: the array, its disk just added
 * @dirty: the array starts with a resync of its parity owed (it was not
 *	stopped cleanly, or a resync was stopped before its end)
 *
 * What the array starts with is told at once: ArrayDegraded or ArrayFailed
 * when it starts so, ArrayDirty when @dirty on RAID5/6 (STRIA_RESYNC=1
 * when the resync will run, 0 when it cannot, the array being degraded).
 */
void stria_events_start(struct stria_array *a, bool dirty)
{
	struct stria_events *ev = a->uevents;
	u32 state = stria_array_state(a);
	struct stria_ev e = { .role = STRIA_NO_MEMBER, .dev = "-" };
	unsigned long flags;

	spin_lock_irqsave(&ev->lock, flags);
	ev->live = true;
	ev->array_state = state;
	e.array_state = state;
	if (state != STRIA_STATE_ACTIVE) {
		e.kind = state == STRIA_STATE_DEGRADED ?
			 STRIA_EV_ARRAY_DEGRADED : STRIA_EV_ARRAY_FAILED;
		stria_ev_push(ev, &e);
	}
	if (dirty && stria_geom_redundant(&a->geom)) {
		e.kind = STRIA_EV_ARRAY_DIRTY;
		e.value = state == STRIA_STATE_ACTIVE;
		stria_ev_push(ev, &e);
	}
	spin_unlock_irqrestore(&ev->lock, flags);
	schedule_work(&ev->work);
}

/**
 * stria_events_stop() - the array's disk is about to go: send what is
 *	queued, and nothing after it
 * @a: the array
 *
 * Process context; the caller holds no lock the work items of the system
 * workqueue may wait for.
 */
void stria_events_stop(struct stria_array *a)
{
	struct stria_events *ev = a->uevents;
	unsigned long flags;

	flush_work(&ev->work);
	spin_lock_irqsave(&ev->lock, flags);
	ev->live = false;
	spin_unlock_irqrestore(&ev->lock, flags);
	cancel_work_sync(&ev->work);
}

/**
 * stria_event_member_state() - a member changed state
 * @m: the member, in its new state
 * @old: the state it had, STRIA_STATE_*
 *
 * Any context (stria_member_set_state()). Failed: MemberFailed; failed to
 * rebuilding (a spare took the role): MemberAdded; rebuilding to active:
 * SpareActive; and the array's new state when that changed with it.
 */
void stria_event_member_state(struct stria_member *m, u32 old)
{
	struct stria_ev e = { .state = READ_ONCE(m->state) };
	u32 kind;

	if (e.state == STRIA_STATE_FAILED)
		kind = STRIA_EV_MEMBER_FAILED;
	else if (e.state == STRIA_STATE_REBUILDING &&
		 old == STRIA_STATE_FAILED)
		kind = STRIA_EV_MEMBER_ADDED;
	else if (e.state == STRIA_STATE_ACTIVE &&
		 old == STRIA_STATE_REBUILDING)
		kind = STRIA_EV_SPARE_ACTIVE;
	else
		return;
	stria_ev_queue(m->array, kind, m, m->role, &e);
}

/**
 * stria_event_spare_added() - a device was added to the array as a spare
 * @a: the array
 * @sp: the spare
 */
void stria_event_spare_added(struct stria_array *a,
			     const struct stria_member *sp)
{
	struct stria_ev e = { .state = STRIA_STATE_SPARE };

	stria_ev_queue(a, STRIA_EV_SPARE_ADDED, sp, STRIA_SB_ROLE_SPARE, &e);
}

/**
 * stria_event_member_removed() - a spare, or a failed member's device,
 *	left the array
 * @a: the array
 * @m: what it was (a copy: the device is released)
 */
void stria_event_member_removed(struct stria_array *a,
				const struct stria_member *m)
{
	struct stria_ev e = { .state = m->state };

	stria_ev_queue(a, STRIA_EV_MEMBER_REMOVED, m, m->role, &e);
}

/**
 * stria_event_member_added() - a device took a role outside a rebuild
 * @a: the array
 * @m: the member, with its new device (a replacement at the end of its
 *	copy)
 */
void stria_event_member_added(struct stria_array *a,
			      const struct stria_member *m)
{
	struct stria_ev e = { .state = READ_ONCE(m->state) };

	stria_ev_queue(a, STRIA_EV_MEMBER_ADDED, m, m->role, &e);
}

/**
 * stria_event_sync_started() - a sync started, or goes on
 * @a: the array
 * @action: STRIA_SYNC_*
 */
void stria_event_sync_started(struct stria_array *a, u32 action)
{
	struct stria_ev e = { .action = action };

	stria_ev_queue(a, STRIA_EV_SYNC_STARTED, NULL, STRIA_NO_MEMBER, &e);
}

/**
 * stria_event_sync_ended() - a sync ended
 * @a: the array
 * @action: STRIA_SYNC_* it ran
 * @result: 0 when it reached its end; else -EINTR (stopped), -EIO, ...
 * @mismatches: sectors of wrong parity a check or repair found
 *
 * SyncFinished or SyncInterrupted; then MismatchesFound when a check or
 * repair found any, and ArrayClean when a resync reached its end.
 */
void stria_event_sync_ended(struct stria_array *a, u32 action, int result,
			    u64 mismatches)
{
	struct stria_ev e = { .action = action, .result = result,
			      .value = mismatches };
	bool scrub = stria_ev_scrub(action);

	stria_ev_queue(a, result ? STRIA_EV_SYNC_INTERRUPTED :
		       STRIA_EV_SYNC_FINISHED, NULL, STRIA_NO_MEMBER, &e);
	if (scrub && mismatches)
		stria_ev_queue(a, STRIA_EV_MISMATCHES_FOUND, NULL,
			       STRIA_NO_MEMBER, &e);
	if (action == STRIA_SYNC_RESYNC && !result) {
		memset(&e, 0, sizeof(e));
		stria_ev_queue(a, STRIA_EV_ARRAY_CLEAN, NULL, STRIA_NO_MEMBER,
			       &e);
	}
}

/**
 * stria_event_mismatch() - a RAID6 repair located a wrong chunk, or not
 * @a: the array
 * @stripe: the stripe
 * @sector: the array sector of the located data chunk, else of the stripe
 * @role: the member it rewrote; STRIA_NO_MEMBER when it could not locate
 *	the wrong chunk and left the stripe as it is
 * @chunk: "data", "P" or "Q" (a string literal); NULL with STRIA_NO_MEMBER
 *
 * MismatchLocated or MismatchUnlocatable. The sync worker's context.
 */
void stria_event_mismatch(struct stria_array *a, u64 stripe, u64 sector,
			  u32 role, const char *chunk)
{
	struct stria_ev e = { .action = STRIA_SYNC_REPAIR, .value = stripe,
			      .sector = sector, .chunk = chunk };

	if (role == STRIA_NO_MEMBER) {
		stria_ev_queue(a, STRIA_EV_MISMATCH_UNLOCATABLE, NULL, role, &e);
		return;
	}
	stria_ev_queue(a, STRIA_EV_MISMATCH_LOCATED, &a->members[role], role,
		       &e);
}

/**
 * stria_event_sync_progress() - a sync recorded a checkpoint
 * @a: the array
 *
 * Wakes the pollers of sync_completed and mismatch_cnt; no uevent. The
 * sync worker's context.
 */
void stria_event_sync_progress(struct stria_array *a)
{
	struct kobject *kobj = &disk_to_dev(a->disk)->kobj;

	if (!READ_ONCE(a->uevents->live))
		return;
	sysfs_notify(kobj, "stria", "sync_completed");
	sysfs_notify(kobj, "stria", "mismatch_cnt");
}
