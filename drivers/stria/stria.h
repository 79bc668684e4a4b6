/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stria: declarations shared between the module's files.
 */
#ifndef _STRIA_H
#define _STRIA_H

#include <linux/bio.h>
#include <linux/blk-mq.h>
#include <linux/jump_label.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/percpu-refcount.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/stria.h>

#include "compat.h"
#include "geom_raid10.h"
#include "ondisk.h"

/* The release, from the tree's VERSION file (drivers/stria/Kbuild) */
#ifndef STRIA_MODULE_VERSION
#error "STRIA_MODULE_VERSION is set by drivers/stria/Kbuild from VERSION"
#endif
#define STRIA_MINORS		16	/* per array: the disk and 15 partitions */
#define STRIA_MAX_ARRAYS	1024

struct stria_array;

/* sync_speed_min / _max defaults, KiB/s per member, as md's */
#define STRIA_SYNC_SPEED_MIN	1000U
#define STRIA_SYNC_SPEED_MAX	200000U

/**
 * struct stria_member - one member device of a running array, or a spare
 * @array: the array it belongs to
 * @dev: the exclusively opened block device; NULL in a failed role whose
 *	device was removed (state FAILED, never anything else then)
 * @role: position in the array; STRIA_SB_ROLE_SPARE for a spare
 * @state: STRIA_STATE_*; changes with READ_ONCE/cmpxchg, no lock
 * @node: NUMA node the device is attached to, or NUMA_NO_NODE
 * @dev_sectors: size of the device in sectors
 * @errors: I/O errors the member returned since the array started
 * @read_repairs: failed reads rebuilt from the other members and written
 *	back to this one (RAID5/6), since the array started
 * @read_errors: recent read errors, which max_read_repairs bounds: the
 *	count in the low 32 bits, the time of the last one (seconds) in the
 *	high 32; halved for each read_error_decay_s since then (io.c)
 * @uuid: the member's UUID
 * @linked: holder/slave sysfs links exist
 * @want_role: with @readd on a spare, the role it held
 * @readd: a spare that is a former member of this array, added back: it
 *	takes its old role (@want_role); a member so re-added: its rebuild
 *	covers only the regions the write-intent bitmap has dirty
 */
struct stria_member {
	struct stria_array *array;
	struct stria_bdev dev;
	u32 role;
	u32 state;
	int node;
	u64 dev_sectors;
	atomic64_t errors;
	atomic64_t read_repairs;
	atomic64_t read_errors;
	u8 uuid[STRIA_UUID_LEN];
	bool linked;
	u32 want_role;
	bool readd;
};

/**
 * struct stria_stats - per-CPU I/O counters of an array
 * @ios: requests completed, by direction (0 read, 1 write)
 * @sectors: sectors transferred, by direction
 * @flushes: flush requests
 * @discards: discard and write-zeroes requests
 * @errors: requests completed with an error
 */
struct stria_stats {
	u64 ios[2];
	u64 sectors[2];
	u64 flushes;
	u64 discards;
	u64 errors;
};

/**
 * enum stria_sync_op - what stria_level_ops.sync_stripe does to a stripe
 * @STRIA_SYNC_OP_REBUILD: rebuild the chunks of every member in
 *	STRIA_STATE_REBUILDING from the members in sync, and write them
 * @STRIA_SYNC_OP_CHECK: read every member, count parity that does not match
 *	the data; needs every member in sync
 * @STRIA_SYNC_OP_REPAIR: as CHECK, and rewrite the parity that is wrong
 * @STRIA_SYNC_OP_RESYNC: recompute and write the parity from the data,
 *	without comparing (after an unclean shutdown)
 * @STRIA_SYNC_OP_REPLACE: copy the chunk of the member being replaced to
 *	its replacement (stria_array.repl)
 */
enum stria_sync_op {
	STRIA_SYNC_OP_REBUILD,
	STRIA_SYNC_OP_CHECK,
	STRIA_SYNC_OP_REPAIR,
	STRIA_SYNC_OP_RESYNC,
	STRIA_SYNC_OP_REPLACE,
};

/**
 * struct stria_level_ops - what differs between RAID levels
 * @level: the RAID level
 * @name: "raid0", ...
 * @queue_rq: blk-mq levels (RAID5/6): map and submit a read, write, discard
 *	or write-zeroes request (flushes are handled by io.c); returns
 *	BLK_STS_RESOURCE to be retried later when nothing was submitted
 * @submit_bio: bio-based levels (RAID0), instead of @queue_rq: map and
 *	submit any bio of the array (flushes too), in the submitter's
 *	submit_bio()
 * @init: optional; allocate the level's state once members and geometry are
 *	set, before the disk exists
 * @exit: optional; free it, with no I/O in flight
 * @limits: optional; adjust the queue limits stacked from the members
 * @sync_stripe: optional (RAID5/6); background work on one stripe, see
 *	enum stria_sync_op. Process context, may sleep, returns when the
 *	stripe is done; serialised with the array's writes by the stripe
 *	locks. @mismatches (CHECK, REPAIR) is raised by the sectors of
 *	parity found wrong; on REBUILD by the sectors of data rebuilt from
 *	parity that could not be verified (the stripe owes a resync). Returns 0, -EIO when a member read or write
 *	failed (that member is failed by the usual error path), or -ENODEV
 *	when too few members are in sync to do it.
 * @log_waits: optional; logs what the level holds requests back for (a
 *	queue freeze waits long, see stria_array_freeze()). Any context that
 *	may sleep.
 * @repair_read: optional (RAID1/10); a member in sync failed a read of
 *	@rq and is kept (stria_rq_repair_member()): write the data back to it
 *	from elsewhere, then stria_rq_repaired() queues the read again. Any
 *	context; the repair itself runs later, in process context.
 */
struct stria_level_ops {
	u32 level;
	const char *name;
	blk_status_t (*queue_rq)(struct stria_array *a, struct request *rq);
	void (*submit_bio)(struct stria_array *a, struct bio *bio);
	int (*init)(struct stria_array *a);
	void (*exit)(struct stria_array *a);
	void (*limits)(struct stria_array *a, struct queue_limits *lim);
	int (*sync_stripe)(struct stria_array *a, u64 stripe,
			   enum stria_sync_op op, u64 *mismatches);
	void (*log_waits)(struct stria_array *a);
	void (*repair_read)(struct stria_array *a, struct request *rq);
};

struct stria_raid0;
struct stria_raid56;
struct stria_raid10;
struct stria_wib;
struct stria_events;

/* safe_mode_delay_ms: default (md's safe_mode_delay) and largest value */
#define STRIA_SAFE_DELAY_MS	200U
#define STRIA_SAFE_DELAY_MAX_MS	3600000U

/* stria_safe.flags: any bit set sends a write to the slow path */
#define STRIA_SAFE_CLEAN	0	/* the superblocks say clean */
#define STRIA_SAFE_PENDING	1	/* writes wait for them to say active */
#define STRIA_SAFE_CHECKING	2	/* the writes in flight are being counted */

/**
 * struct stria_safe - safe mode: clean superblocks while idle (safemode.c)
 * @writes: writes in flight, per CPU; zero when idle
 * @flags: STRIA_SAFE_* bits, changed under @lock, read without it
 * @lock: serialises the changes of @flags
 * @timer: fires @delay_ms after the last write ended
 * @clean_work: marks the array clean when no write is in flight
 * @dirty_work: marks it active again for a write that waits
 * @delay_ms: safe_mode_delay_ms (sysfs); 0: not marked clean while running
 * @enabled: the level has parity (RAID5/6)
 * @shutdown: the machine reboots or powers off: mark clean at once
 */
struct stria_safe {
	struct percpu_ref writes;
	unsigned long flags;
	spinlock_t lock;
	struct timer_list timer;
	struct work_struct clean_work;
	struct work_struct dirty_work;
	u32 delay_ms;
	bool enabled;
	bool shutdown;
};

/**
 * struct stria_sync - the array's background sync (sync.c)
 * @work: the worker, on system_long_wq; one per array, never on the I/O path
 * @wait: the worker's throttle sleeps (woken by a stop); waiters for idle
 * @stripe_sem: held for reading around each sync_stripe(); taken for
 *	writing to wait for the stripe in flight (removing a member)
 * @action: STRIA_SYNC_* running; changes under the array's cfg_lock
 * @stop: the running sync is asked to stop
 * @start: first member sector of the running (or last) sync
 * @base: where its progress counts from: 0 for a rebuild or resync, which
 *	cover the whole member (so a resumed one starts at its checkpoint),
 *	@start for a scrub of a range
 * @end: member sector it ends at
 * @pos: member sectors done up to (from the data area's start)
 * @mismatches: sectors of wrong parity the check or repair found
 * @located: RAID6 repair: stripes whose one wrong chunk it located and
 *	rewrote (raid6_locate.h)
 * @unlocatable: RAID6 repair: stripes with wrong parity it could not trace
 *	to one chunk, left as they are
 * @unverified: sectors the running or last rebuild rebuilt from parity it
 *	could not verify, in stripes that owe a resync
 * @skipped: member sectors the running or last resync, or partial
 *	rebuild, skipped because the write-intent bitmap had their region clean
 * @partial: the running rebuild is of re-added members only, and covers
 *	only the regions the write-intent bitmap has dirty
 * @speed: KiB/s per member over the last second, 0 when idle
 * @speed_min: floor while the array has other I/O, KiB/s (sysfs)
 * @speed_max: ceiling, KiB/s (sysfs)
 * @result: how the last sync ended: 0, -EIO, -ENODEV, -EINTR (stopped)
 * @start_failed: failed roles when the sync started
 * @rebuild_ckpt: member sectors durably rebuilt on the rebuilding roles
 * @scrub_action: STRIA_SB_SCRUB_* of an interrupted scrub to resume, or
 *	of the resync owed (kept until it is done, whatever stops it)
 * @scrub_pos: where it goes on, member sectors
 * @scrub_end: where it ends
 */
struct stria_sync {
	struct work_struct work;
	wait_queue_head_t wait;
	struct rw_semaphore stripe_sem;
	u32 action;
	bool stop;
	u64 start;
	u64 base;
	u64 end;
	u64 pos;
	u64 mismatches;
	u64 located;
	u64 unlocatable;
	u64 unverified;
	u64 skipped;
	bool partial;
	u32 speed;
	u32 speed_min;
	u32 speed_max;
	int result;
	u64 start_failed;
	u64 rebuild_ckpt;
	u32 scrub_action;
	u64 scrub_pos;
	u64 scrub_end;
};

/**
 * struct stria_reshape - a restripe onto added members (reshape.c)
 * @plan: its rows (geom_reshape.h)
 * @old: the geometry before, which rows at or above @ckpt still have
 * @from: members before
 * @ckpt: new rows below it hold their data durably and take the I/O of
 *	their chunks; only grows, after the superblocks record it
 * @win_end: rows [@ckpt, @win_end) are being moved: I/O to their chunks
 *	waits for @ckpt to pass them. Changes with the queue frozen, so no
 *	bio routed to the old layout is in flight into a new window
 * @backup: the critical rows' backup is whole (and marked on disk)
 * @broken: the engine stopped inside the window on an error: I/O to the
 *	window's chunks fails until the array stops
 * @sb_pos: the checkpoint the superblocks record (under sb_lock)
 * @wait: bios waiting for the window
 * @pages: the engine's buffer, @slots chunks
 * @nr_pages: pages in @pages
 * @slots: chunks the buffer holds
 * @max_rows: rows a window moves at most (a buffer's worth, at least one)
 */
struct stria_reshape {
	struct stria_reshape_plan plan;
	struct stria_geom old;
	u32 from;
	u64 ckpt;
	u64 win_end;
	bool backup;
	bool broken;
	u64 sb_pos;
	wait_queue_head_t wait;
	struct page **pages;
	u32 nr_pages;
	u32 slots;
	u32 max_rows;
};

/**
 * struct stria_holder - what an array claims its members with
 * @lock: protects @array
 * @array: the array, from the moment it runs until it stops; NULL while
 *	it starts or stops, when nothing may change its member table from
 *	outside (members.c's holder operations)
 *
 * The block layer keeps it as the members' bd_holder: the holder
 * operations find the array through it.
 */
struct stria_holder {
	spinlock_t lock;
	struct stria_array *array;
};

/**
 * struct stria_roles_ops - the role changes sync asks the lifecycle for
 * @take_spares: at a rebuild's start, spares into the failed roles
 *	(stria_array_take_spares())
 * @replace_end: a replace's copy is over: the replacement takes the role
 *	or is given up (stria_array_replace_end())
 *
 * Sync (sync.c) is below the lifecycle (members.c) in the driver's layers
 * (Documentation/stria/layers.rst), but who takes a role is the
 * lifecycle's to decide: sync calls up through this table, which the
 * lifecycle sets when it makes the array.
 */
struct stria_roles_ops {
	int (*take_spares)(struct stria_array *a);
	int (*replace_end)(struct stria_array *a, int ret, u64 pos);
};

/**
 * struct stria_array - a running array
 * @list: entry in the list of arrays (stria_arrays_lock)
 * @index: N of /dev/striaN
 * @name: array name
 * @homehost: the host the superblocks record, NUL-padded; empty for none
 * @uuid: array UUID
 * @geom: data geometry
 * @ops: level behaviour
 * @data_offset: start of the data area on every member, in sectors
 * @events: superblock event counter (written under @sb_lock)
 * @ctime: creation time, seconds since the epoch
 * @node: NUMA node of the array memory, and of the tag set and queues of a
 *	blk-mq array
 * @stopping: set by stop under the disk's open_mutex; opens fail from then
 * @readonly: assembled read-only (STRIA_ARRAY_F_READONLY): nothing is
 *	written to the members, writes to the array fail; cleared by
 *	stria_array_readwrite() under stria_arrays_lock and @cfg_lock
 * @ro_dirty: read-only, and the superblocks said the array was not stopped
 *	cleanly: a resync is owed until it becomes read-write
 * @ro_scrub_action: read-only and dirty: the scrub the superblocks
 *	recorded (STRIA_SB_SCRUB_*), which a forced read-write switch of a
 *	degraded array goes on with, as its forced assembly would have
 * @ro_scrub_pos: where it goes on
 * @ro_scrub_end: where it ends
 * @holder: identity used to claim the members exclusively
 * @disk: the array's gendisk
 * @tag_set: RAID5/6: blk-mq tag set, one hardware queue per CPU by default,
 *	then @poll_queues poll queues (io.c); unused by a bio-based array
 *	(RAID0)
 * @poll_queues: RAID5/6: the tag set's poll queues (HCTX_TYPE_POLL); RAID0:
 *	non-zero when the array polls its members. 0 when no member polled
 *	when the array started, or the kernel cannot poll the array's I/O
 * @bioset: clones sent to members
 * @stats: per-CPU counters
 * @r0: RAID0 state (raid0.c), NULL on RAID5/6
 * @r56: RAID5/6 state (raid56.c), NULL on RAID0
 * @r10: RAID1/10 state (raid10.c), NULL on the other levels
 * @wib: write-intent bitmap (bitmap.c), NULL when the array has none
 * @wib_chunk: its region size in member sectors, 0 when it has none: set
 *	with @wib, so that the superblock (superblock.c), below the bitmap,
 *	can record it without calling up into bitmap.c
 * @uevents: the uevents queued for user space (events.c)
 * @nr_failed: members not in sync: STRIA_STATE_FAILED or _REBUILDING
 * @sb_wq: runs @sb_work; WQ_MEM_RECLAIM, as writes wait for it
 * @sb_work: writes the superblocks after a member state change (array.c);
 *	never waits for array I/O
 * @kick_work: after @sb_work, lets a spare take a failed role
 * @dead_work: fails the members whose device went away (members.c)
 * @sb_lock: serialises superblock writes and @events, @sb_failed
 * @sb_failed: failed-member bitmap (bit = role) the superblocks record
 * @sb_failed_ondisk: failed-member bitmap the superblocks on the members
 *	record: @sb_failed once a write of it reached a member (@held_lock)
 * @held_lock: protects @held and @sb_failed_ondisk's changes
 * @held: writes done but not acknowledged: they skipped a member whose
 *	failure the superblocks do not record yet (io.c)
 * @sb_written: called by every superblock update, @sb_lock held, to end
 *	the writes of @held it records (stria_release_held(), set by the
 *	lifecycle: the request path is above the superblock writer)
 * @roles: the role changes sync asks for (&stria_members_roles, set by
 *	the lifecycle)
 * @sb_rebuilding: rebuilding-role bitmap the superblocks record
 * @sb_rebuild_partial: the roles of @sb_rebuilding that are re-added
 *	members, rebuilt where the write-intent bitmap has dirty only
 * @degraded_events: event count of the first superblock update of the
 *	current degraded spell, 0 when not degraded (with @sb_lock)
 * @sb_degraded: the superblocks on disk may record a degraded spell: the
 *	write-intent bitmap clears nothing (set before such a write, cleared
 *	after the write that ends it)
 * @cfg_lock: serialises changes of the member and spare tables (with
 *	@sb_lock held too, so superblock writers see them whole), and the
 *	start and end of syncs; taken after stria_arrays_lock, before @sb_lock
 * @sync: background sync state
 * @safe: safe mode (clean superblocks while idle)
 * @nr_spares: entries in @spares
 * @spares: the spares, in the order they were added
 * @repl_role: the role whose member is being copied to @repl, or
 *	STRIA_NO_MEMBER; changes with the queue frozen and @sync.stripe_sem
 *	held for writing
 * @repl: the replacement being copied (role STRIA_SB_ROLE_SPARE for its
 *	superblock, state STRIA_STATE_REPLACEMENT, or _FAILED once it failed
 *	a write)
 * @reshaping: a restripe runs or is owed (@reshape); set and cleared
 *	with the queue frozen
 * @reshape: the restripe
 * @nr_members: entries in @members; grows (RAID0 and RAID1, under
 *	@cfg_lock and @sb_lock, the queue frozen) once the new entries are
 *	set up
 * @max_members: room in @members: @nr_members, STRIA_R10_MAX_COPIES on
 *	RAID1, which can take more copies (stria_array_grow_members()), or
 *	STRIA_GEOM_MAX_MEMBERS on RAID0, which can be restriped onto more
 * @members: the members, by role
 */
struct stria_array {
	struct list_head list;
	int index;
	char name[STRIA_NAME_LEN];
	char homehost[STRIA_HOST_LEN];
	u8 uuid[STRIA_UUID_LEN];
	struct stria_geom geom;
	const struct stria_level_ops *ops;
	u64 data_offset;
	u64 events;
	u64 ctime;
	int node;
	bool stopping;
	bool readonly;
	bool ro_dirty;
	u32 ro_scrub_action;
	u64 ro_scrub_pos;
	u64 ro_scrub_end;
	struct stria_holder *holder;
	struct gendisk *disk;
	struct blk_mq_tag_set tag_set;
	u32 poll_queues;
	struct bio_set bioset;
	struct stria_stats __percpu *stats;
	struct stria_raid0 *r0;
	struct stria_raid56 *r56;
	struct stria_raid10 *r10;
	struct stria_wib *wib;
	u32 wib_chunk;
	struct stria_events *uevents;
	atomic_t nr_failed;
	struct workqueue_struct *sb_wq;
	struct work_struct sb_work;
	struct work_struct kick_work;
	struct work_struct dead_work;
	struct mutex sb_lock;
	u64 sb_failed;
	u64 sb_failed_ondisk;
	spinlock_t held_lock;
	struct list_head held;
	void (*sb_written)(struct stria_array *a, bool landed, u64 ondisk);
	const struct stria_roles_ops *roles;
	u64 sb_rebuilding;
	u64 sb_rebuild_partial;
	u64 degraded_events;
	bool sb_degraded;
	struct mutex cfg_lock;
	struct stria_sync sync;
	struct stria_safe safe;
	u32 nr_spares;
	struct stria_member spares[STRIA_MAX_SPARES];
	u32 repl_role;
	struct stria_member repl;
	bool reshaping;
	struct stria_reshape reshape;
	u32 nr_members;
	u32 max_members;
	struct stria_member members[];
};

/**
 * stria_bitmap_chunk() - the bitmap's region size
 * @a: the array
 *
 * Return: member sectors per region, 0 when the array has no bitmap.
 */
static inline u32 stria_bitmap_chunk(const struct stria_array *a)
{
	return a->wib_chunk;
}

/**
 * stria_cfg_lock() - take an array's cfg_lock for a request, killably
 * @a: the array
 * @msg: STRIA_MSG_LEN bytes for the reason when interrupted
 *
 * Its holder may be writing superblocks to slow members (safe mode, a
 * failing drive's timeouts): a request waiting for it can be killed, and
 * is no hung task meanwhile.
 *
 * Return: 0 with the lock held, or -EINTR (a fatal signal) without it.
 */
static inline int stria_cfg_lock(struct stria_array *a, char *msg)
{
	if (!mutex_lock_killable(&a->cfg_lock))
		return 0;
	if (msg)
		snprintf(msg, STRIA_MSG_LEN, "interrupted while array '%s' was busy (superblock writes, or another request): nothing was done",
			 a->name);
	return -EINTR;
}

/**
 * stria_resync_owed() - does the array owe a resync of its parity?
 * @a: the array
 *
 * Any context, no lock.
 *
 * Return: true while a resync runs, or one is recorded that waits (for
 * the array to become read-write, or for a rebuild to end).
 */
static inline bool stria_resync_owed(const struct stria_array *a)
{
	return READ_ONCE(a->sync.action) == STRIA_SYNC_RESYNC ||
	       READ_ONCE(a->sync.scrub_action) == STRIA_SB_SCRUB_RESYNC;
}

/**
 * struct stria_clone - a bio sent to a member on behalf of a request or bio
 * @rq: the array request (blk-mq levels)
 * @orig: the bio it serves (bio-based RAID0), which it ends into
 * @member: the member it goes to (NULL for a RAID0 fan bio, raid0.c)
 * @acct: RAID0: the I/O statistics of @orig end with it, started at @start
 * @poll: RAID0: 0, or where a polled clone is (enum stria_clone_poll,
 *	raid0.c): @orig then ends in its owner's poll, not in this bio's end
 * @submitter: RAID0, a polled clone: the task that submitted it
 * @start: RAID0: what bio_start_io_acct() returned
 * @bio: the bio itself; must be last (bio_set front_pad)
 */
struct stria_clone {
	union {
		struct request *rq;
		struct bio *orig;
	};
	struct stria_member *member;
	bool acct;
	atomic_t poll;
	struct task_struct *submitter;
	unsigned long start;
	struct bio bio;
};

/**
 * struct stria_spec - a validated create or assemble request from ctl.c
 * @assemble: assemble from superblocks instead of creating
 * @force: assemble a RAID5/6 array that was not stopped cleanly even while
 *	degraded (its parity may be wrong where writes were cut short)
 * @run: assemble even with members missing, within the level's tolerance:
 *	they start failed, and the superblocks record them so
 * @readonly: assemble read-only: nothing is written to any member until
 *	stria_array_readwrite()
 * @level: RAID level (create)
 * @layout: RAID5/6 parity layout, STRIA_LAYOUT_* (create; 0 on RAID0)
 * @chunk_sectors: chunk size (create)
 * @bitmap: create a write-intent bitmap (RAID5/6)
 * @bitmap_chunk: its region size, 0 for the default; on success, the
 *	region size the array runs with (0: no bitmap)
 * @nr_members: entries in @paths
 * @node: requested NUMA node, or NUMA_NO_NODE for automatic
 * @name: array name (assemble: filled from the superblocks)
 * @homehost: create: the home host to record (empty for none); assemble:
 *	filled from the superblocks
 * @paths: member device paths
 * @msg: filled with the reason on failure
 * @err_member: filled with the index in @paths a failure is about
 * @index: on success, N of the array's striaN
 * @uuid: on success, the array's UUID
 */
struct stria_spec {
	bool assemble;
	bool force;
	bool run;
	bool readonly;
	u32 level;
	u32 layout;
	u32 chunk_sectors;
	bool bitmap;
	u32 bitmap_chunk;
	u32 nr_members;
	int node;
	char name[STRIA_NAME_LEN];
	char homehost[STRIA_HOST_LEN];
	char **paths;
	char *msg;
	u32 err_member;
	int index;
	u8 uuid[STRIA_UUID_LEN];
};

/* A member in this state holds no current data: failed or being rebuilt. */
static inline bool stria_state_missing(u32 state)
{
	return state == STRIA_STATE_FAILED || state == STRIA_STATE_REBUILDING;
}

/* A member that has failed gets no more I/O. */
static inline bool stria_member_failed(const struct stria_member *m)
{
	return READ_ONCE(m->state) == STRIA_STATE_FAILED;
}

/*
 * Only a member in sync may be read. One being rebuilt is written (so what
 * the rebuild has passed stays current) but its data is rebuilt from the
 * others until the rebuild is done.
 */
static inline bool stria_member_in_sync(const struct stria_member *m)
{
	return READ_ONCE(m->state) == STRIA_STATE_ACTIVE;
}

/**
 * stria_array_missing() - the roles not in sync
 * @a: the array
 *
 * Return: bit i set for each role i whose member failed or is being
 * rebuilt. Any context, no lock: a snapshot.
 */
static inline u64 stria_array_missing(const struct stria_array *a)
{
	u64 roles = 0;
	u32 i;

	for (i = 0; i < a->nr_members; i++)
		if (!stria_member_in_sync(&a->members[i]))
			roles |= BIT_ULL(i);
	return roles;
}

/* The device of a member or spare, 0 for a role without one. */
static inline dev_t stria_member_devt(const struct stria_member *m)
{
	return m->dev.bdev ? m->dev.bdev->bd_dev : 0;
}

/* Count a read or write request in the array's per-CPU stats. */
static inline void stria_count_io(struct stria_array *a, struct request *rq)
{
	unsigned int dir = rq_data_dir(rq);

	this_cpu_inc(a->stats->ios[dir]);
	this_cpu_add(a->stats->sectors[dir], blk_rq_sectors(rq));
}

/* Count a read or write bio of a bio-based array (RAID0), as above. */
static inline void stria_count_bio(struct stria_array *a, struct bio *bio)
{
	unsigned int dir = op_is_write(bio_op(bio));

	this_cpu_inc(a->stats->ios[dir]);
	this_cpu_add(a->stats->sectors[dir], bio_sectors(bio));
}

/* The array a bio sent to the array's disk belongs to. */
static inline struct stria_array *stria_bio_array(const struct bio *bio)
{
	return bio->bi_bdev->bd_disk->private_data;
}

/*
 * The status of a member bio that ended: a member that turned out to have
 * no write-zeroes (SCSI's sd turns WRITE SAME off and answers
 * BLK_STS_TARGET) has not failed: the caller is told "not supported" and
 * writes zeroes itself.
 */
static inline blk_status_t stria_member_bio_status(struct bio *mbio)
{
	blk_status_t st = mbio->bi_status;

	if (unlikely(st) && bio_op(mbio) == REQ_OP_WRITE_ZEROES &&
	    !bdev_write_zeroes_sectors(mbio->bi_bdev))
		return BLK_STS_NOTSUPP;
	return st;
}

/*
 * A bio-based array (RAID0: submit_bio() remaps each bio) rather than a
 * blk-mq one (RAID5/6: a request per I/O, queue_rq()).
 */
static inline bool stria_bio_based(const struct stria_array *a)
{
	return a->ops->submit_bio;
}

/* state.c */
extern struct mutex stria_arrays_lock;
extern struct list_head stria_arrays;
const char *stria_state_name(u32 state);
const char *stria_sync_action_name(u32 action);
void stria_member_set_state(struct stria_member *m, u32 state);
bool stria_member_io_error(struct stria_member *m, blk_status_t st);
void stria_repl_failed(struct stria_array *a, blk_status_t st);
void stria_array_member_failed(struct stria_array *a);
u32 stria_array_state(const struct stria_array *a);
u64 stria_array_failed_roles(const struct stria_array *a);
u64 stria_array_rebuilding_roles(const struct stria_array *a);
bool stria_array_readd_only(const struct stria_array *a);
u32 stria_array_sb_state(const struct stria_array *a);
int stria_write_sbs_now(struct stria_array *a, u32 state, u64 *errors);
int stria_write_sbs(struct stria_array *a, u32 state, u64 *errors);
int stria_array_sync_failed(struct stria_array *a);
int stria_array_update_sbs(struct stria_array *a);
int stria_array_flush_members(struct stria_array *a);
void stria_sb_work(struct work_struct *work);
void stria_dead_work(struct work_struct *work);
void stria_holder_attach(struct stria_array *a);
void stria_holder_detach(struct stria_array *a);

/* ctl.c */
int stria_ctl_init(void);
void stria_ctl_exit(void);

/* array.c */
extern int stria_major;
int stria_array_start(struct stria_spec *spec);
int stria_array_stop(struct stria_array *a, char *msg);
int stria_array_readwrite(struct stria_array *a, bool force, char *msg);
bool stria_array_refuse_ro(struct stria_array *a, char *msg);
void stria_array_update_limits(struct stria_array *a);
void stria_link_holder(struct stria_array *a, struct stria_member *m);
void stria_unlink_holder(struct stria_array *a, struct stria_member *m);
struct stria_array *stria_array_find(const char *name, u32 index, bool next);
void stria_array_stop_all(void);
int stria_disk_stacks_on(struct gendisk *disk, struct stria_array *a);
unsigned int stria_array_count(void);

/* members.c */
int stria_array_fail_member(struct stria_array *a, dev_t dev, bool force,
			    char *msg, u32 *role);
int stria_array_add_spare(struct stria_array *a, dev_t dev, bool grow,
			  char *msg, u32 *role, bool *readd);
int stria_array_remove(struct stria_array *a, dev_t dev, char *msg,
		       u32 *role);
int stria_array_replace(struct stria_array *a, dev_t dev, dev_t with,
			char *msg, u32 *role);
int stria_array_replace_end(struct stria_array *a, int ret, u64 pos);
int stria_array_take_spares(struct stria_array *a);
void stria_spare_into(struct stria_array *a, struct stria_member *m, u32 si);
extern const struct stria_roles_ops stria_members_roles;

/* grow.c */
int stria_array_grow_members(struct stria_array *a, u32 nr, bool check,
			     char *msg);
int stria_array_grow_bitmap(struct stria_array *a, bool on, u32 chunk,
			    bool check, char *msg);
int stria_array_grow_size(struct stria_array *a, u64 *sectors, bool check,
			  char *msg);

/* bitmap.c */
int stria_bitmap_init(struct stria_array *a, u32 chunk, bool load);
int stria_bitmap_create(struct stria_array *a, u32 chunk);
void stria_bitmap_remove(struct stria_array *a);
void stria_bitmap_run(struct stria_array *a);
void stria_bitmap_add(struct stria_array *a, struct stria_member *m);
void stria_bitmap_stop(struct stria_array *a);
void stria_bitmap_free(struct stria_array *a);
bool stria_bitmap_write_begin(struct stria_array *a, u32 region);
void stria_bitmap_write_end(struct stria_array *a, u32 region);
u32 stria_bitmap_region(const struct stria_array *a, u64 member_sector);
bool stria_bitmap_test(struct stria_array *a, u64 member_sector);
bool stria_sync_owed(struct stria_array *a, u64 member_sector);
u64 stria_bitmap_next_dirty(struct stria_array *a, u64 pos);
u32 stria_bitmap_dirty(struct stria_array *a);
void stria_bitmap_log_waits(struct stria_array *a);
ssize_t stria_bitmap_show(struct stria_array *a, char *buf);

/* events.c */
int stria_events_init(struct stria_array *a);
void stria_events_free(struct stria_array *a);
void stria_events_start(struct stria_array *a, bool dirty);
void stria_events_stop(struct stria_array *a);
void stria_event_member_state(struct stria_member *m, u32 old);
void stria_event_spare_added(struct stria_array *a,
			     const struct stria_member *sp);
void stria_event_member_removed(struct stria_array *a,
				const struct stria_member *m);
void stria_event_member_added(struct stria_array *a,
			      const struct stria_member *m);
void stria_event_sync_started(struct stria_array *a, u32 action);
void stria_event_sync_ended(struct stria_array *a, u32 action, int result,
			    u64 mismatches);
void stria_event_sync_progress(struct stria_array *a);
void stria_event_mismatch(struct stria_array *a, u64 stripe, u64 sector,
			  u32 role, const char *chunk);

/* superblock.c */
int stria_sb_page_io(struct block_device *bdev, struct page *page,
		     u64 sector, stria_opf_t opf);
int stria_sb_read(struct block_device *bdev, struct stria_sb *sb);
int stria_sb_write(struct block_device *bdev, const struct stria_sb *sb);
u32 stria_sb_crc(const struct stria_sb *sb);
void stria_sb_fill(struct stria_sb *sb, const struct stria_array *a,
		   const struct stria_member *m, u32 state);

/* io.c */
blk_status_t stria_ro_status(struct stria_array *a, bool empty_flush);
extern const struct blk_mq_ops stria_mq_ops;
int stria_io_init(struct stria_array *a);
void stria_io_exit(struct stria_array *a);
int stria_clone_prepare(struct stria_array *a, struct request *rq,
			struct stria_member *m, struct bio *src, u64 sector,
			struct bio_list *clones);
int stria_clone_prepare_empty(struct stria_array *a, struct request *rq,
			      struct stria_member *m, stria_opf_t opf,
			      u64 sector, u64 nr_sectors,
			      struct bio_list *clones);
void stria_clones_submit(struct request *rq, struct bio_list *clones);
void stria_clones_drop(struct bio_list *clones);
blk_status_t stria_rq_to_member(struct stria_array *a, struct request *rq,
				struct stria_member *m, u64 base);
bool stria_member_read_error(struct stria_member *m);
u32 stria_member_read_errors(const struct stria_member *m);
void stria_release_held(struct stria_array *a, bool landed, u64 ondisk);
u32 stria_rq_repair_member(struct request *rq);
void stria_rq_repaired(struct request *rq);
void stria_rq_skipped(struct request *rq, u64 roles);
void stria_rq_begin(struct request *rq);
void stria_rq_get(struct request *rq);
void stria_rq_put(struct request *rq, blk_status_t st);
unsigned int stria_array_freeze(struct stria_array *a);
void stria_array_unfreeze(struct stria_array *a, unsigned int memflags);
void stria_bio_set_polled(struct bio *bio, struct request *rq);
bool stria_bio_poll_if(struct bio *bio, bool polled);
void stria_bio_unpoll(struct bio *bio);
bool stria_clone_poll(struct bio *clone, struct bio *bio);
#if STRIA_POLL && STRIA_HAVE_POLL_BIO
int stria_raid0_poll_bio(struct bio *bio, struct io_comp_batch *iob,
			 unsigned int flags);
#endif

/* Is @rq polled: on one of the array's poll queues (REQ_POLLED)? */
static inline bool stria_rq_polled(const struct request *rq)
{
	return rq && rq->mq_hctx && rq->mq_hctx->type == HCTX_TYPE_POLL;
}

u32 stria_poll_member_queues(struct stria_array *a);
void stria_poll_update(struct stria_array *a);
void stria_map_poll(struct blk_mq_tag_set *set);
#if STRIA_POLL
int stria_poll(struct blk_mq_hw_ctx *hctx, struct io_comp_batch *iob);
#endif
/* runs of bitmap regions one request may hold: a RAID10 far layout's copies */
#define STRIA_WIB_RANGES	4
bool stria_rq_bitmap_begin_ranges(struct stria_array *a, struct request *rq,
				  const u64 *first, const u64 *last, u32 n);

/* The regions of member sectors @first..@last (see the function above). */
static inline bool stria_rq_bitmap_begin(struct stria_array *a,
					 struct request *rq, u64 first,
					 u64 last)
{
	return stria_rq_bitmap_begin_ranges(a, rq, &first, &last, 1);
}
void stria_bio_submit(struct bio *bio);
void stria_rq_count_inflight(struct request *rq, atomic_t *counter);
void stria_rq_drop_inflight(struct request *rq);
void stria_clone_submit_part(struct stria_array *a, struct request *rq,
			     struct stria_member *m, struct bio *src,
			     u32 skip, u32 len, u64 sector);

/* raid0.c */
extern const struct stria_level_ops stria_raid0_ops;

/* raid56.c */
ssize_t stria_raid56_stats_show(struct stria_array *a, char *buf);
extern const struct stria_level_ops stria_raid5_ops;
extern const struct stria_level_ops stria_raid6_ops;

/* raid10.c */
extern const struct stria_level_ops stria_raid10_ops;

/* safemode.c */
int stria_safe_init(struct stria_array *a);
void stria_safe_start(struct stria_array *a);
void stria_safe_stop(struct stria_array *a);
void stria_safe_exit(struct stria_array *a);
bool stria_safe_write_start_slow(struct stria_array *a);
void stria_safe_write_end(struct stria_array *a);
int stria_safe_set_delay(struct stria_array *a, u32 ms);
const char *stria_safe_state_name(const struct stria_array *a);
int stria_safe_register(void);
void stria_safe_unregister(void);

/**
 * stria_safe_write_start() - a write request is about to start
 * @a: the array
 *
 * The fast path: one per-CPU reference and one read of the flags. Paired
 * with stria_safe_write_end() once the write, parity included, is done;
 * RAID5/6 only (@a->safe.enabled).
 *
 * Return: true when the write may go on; false when the superblocks are
 * being marked active first: return BLK_STS_RESOURCE, the queue is run
 * again when they are.
 */
static inline bool stria_safe_write_start(struct stria_array *a)
{
	percpu_ref_get(&a->safe.writes);
	smp_mb(); /* the count before the flags: pairs with the clean check */
	if (likely(!READ_ONCE(a->safe.flags)))
		return true;
	return stria_safe_write_start_slow(a);
}

/* reshape.c */
int stria_reshape_setup(struct stria_array *a, const struct stria_geom *g,
			u32 from, u64 pos, bool backup);
void stria_reshape_free(struct stria_array *a);
int stria_reshape_step(struct stria_array *a, u64 *pos);
void stria_reshape_done(struct stria_array *a);

/* sync.c */
void stria_sync_init(struct stria_array *a);
void stria_sync_kick(struct stria_array *a, bool after_error);
void stria_sync_replace_start(struct stria_array *a);
int stria_sync_scrub(struct stria_array *a, u32 action, u64 first_stripe,
		     u64 *nr_stripes, char *msg);
int stria_sync_stop(struct stria_array *a, bool shutdown, char *msg);
u64 stria_sync_stripes(const struct stria_array *a);
u64 stria_array_io_count(struct stria_array *a);

/* sysfs.c */
extern const struct attribute_group *stria_disk_groups[];

/* inject.c: spots where tests may have the code sleep (test_delay_at) */
enum stria_delay_point {
	STRIA_DELAY_SOP_WAIT	= 1U << 0,	/* a sop queued on a busy stripe */
	STRIA_DELAY_SOP_MERGED	= 1U << 1,	/* merged into a parked sop */
	STRIA_DELAY_SOP_PARKED	= 1U << 2,	/* a sop parked */
	STRIA_DELAY_REPLACE_END	= 1U << 3,	/* before a replacement's swap */
	STRIA_DELAY_QUEUE_RQ	= 1U << 4,	/* queue_rq started a request */
	STRIA_DELAY_ALL		= (1U << 5) - 1,
};

DECLARE_STATIC_KEY_FALSE(stria_delay_key);
void __stria_test_delay(u32 point);

/* Sleep at @point if a test asked for it; one untaken branch otherwise. */
static inline void stria_test_delay(u32 point)
{
	if (static_branch_unlikely(&stria_delay_key))
		__stria_test_delay(point);
}

#endif /* _STRIA_H */
