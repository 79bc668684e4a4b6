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
 *     and allocate the array, its tag set, bio_set and queue there;
 *  4. write the superblocks (events + 1, state active);
 *  5. add the gendisk striaN and the holder/slave links.
 * Stopping is refused while striaN is open; otherwise the disk goes away,
 * the superblocks are marked clean and the members are released.
 *
 * Members that failed stay in the array, marked failed. The superblocks of
 * the others record them (a bitmap by role): when a member fails, from I/O
 * completion in any context or from STRIA_IOC_MEMBER, sb_work writes them.
 * Assembly takes the bitmap of the freshest superblock, starts those
 * members failed (their own, older superblocks are not held against them;
 * they may also be missing) and refuses when more have failed or are being
 * rebuilt than the level tolerates.
 *
 * RAID5/6 arrays hold up to STRIA_MAX_SPARES spares, opened with the
 * array's holder and written with every superblock update. When a role has
 * failed and a spare is there (a spare added, a member failed, an array
 * assembled), the spare takes the role: with the queue frozen it moves into
 * the member slot, state rebuilding, and the failed device is released (its
 * holder link dropped, closed); then the superblocks record the role as
 * being rebuilt and sync.c rebuilds it. A failed member removed on request
 * leaves its role without a device (dev.bdev NULL, state failed).
 *
 * stria_arrays_lock serialises all of this and protects the array list; the
 * I/O path never takes it. Each array's member and spare tables change
 * under its cfg_lock and sb_lock together (the work items that change them
 * do not take stria_arrays_lock), and its superblock writes and event count
 * are serialised by its sb_lock. Lock order: stria_arrays_lock, cfg_lock,
 * sb_lock. Nothing holds cfg_lock or sb_lock while waiting for sb_work or
 * the sync worker, so stop can wait for both under the global lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/uuid.h>

#include "stria.h"
#include "trace.h"

static unsigned int hw_queues;
module_param(hw_queues, uint, 0444);
MODULE_PARM_DESC(hw_queues,
		 "Hardware queues per array (count; 0 = one per CPU, the default)");

static unsigned int queue_depth = 128;
module_param(queue_depth, uint, 0444);
MODULE_PARM_DESC(queue_depth,
		 "Requests per hardware queue (count; 1..4096, default 128)");

DEFINE_MUTEX(stria_arrays_lock);
LIST_HEAD(stria_arrays);
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

#define stria_fail(spec, i, fmt, ...) ({				\
	snprintf((spec)->msg, STRIA_MSG_LEN, fmt, ##__VA_ARGS__);	\
	(spec)->err_member = (i);					\
})

/* assemble: a device given but not used (an older superblock, replaced) */
#define STRIA_ROLE_LEFT_OUT	0xfffffffeU

/**
 * struct stria_opened - members opened for a start, before the array exists
 * @dev: the opened devices, by position in the request
 * @sb: their superblocks (assemble)
 * @holder: the exclusive-open identity, handed over to the array
 * @fresh: position of the superblock with the highest event count
 * @nr_roles: members of the array (create: the devices given)
 * @failed: roles that start failed, from that superblock
 * @rebuilding: roles that start being rebuilt, from that superblock
 * @rebuild_offset: where their rebuild goes on
 * @scrub_action: an interrupted scrub to resume, STRIA_SB_SCRUB_*
 * @scrub_offset: where it goes on
 * @scrub_end: where it ends
 * @bitmap_chunk: region size of the write-intent bitmap, 0 for none
 * @degraded_events: the degraded spell the superblocks record
 * @rebuild_partial: roles of @rebuilding that were re-added, rebuilt only
 *	where the write-intent bitmap has dirty
 * @dirty: the freshest superblock says active: the array was not stopped
 *	cleanly, and stripes written then may have parity that does not
 *	match their data
 */
struct stria_opened {
	struct stria_bdev *dev;
	struct stria_sb *sb;
	void *holder;
	u32 fresh;
	u32 nr_roles;
	u64 failed;
	u64 rebuilding;
	u64 rebuild_offset;
	u32 scrub_action;
	u64 scrub_offset;
	u64 scrub_end;
	u32 bitmap_chunk;
	u64 degraded_events;
	u64 rebuild_partial;
	bool dirty;
};

static void stria_close_all(struct stria_opened *o, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (o->dev[i].bdev)
			stria_bdev_close(&o->dev[i]);
}

static int stria_open_all(struct stria_spec *spec, struct stria_opened *o)
{
	u32 i, j;
	int ret;

	for (i = 0; i < spec->nr_members; i++) {
		ret = stria_bdev_open(spec->paths[i], o->holder, &o->dev[i]);
		if (ret) {
			o->dev[i].bdev = NULL;
			if (ret == -EBUSY)
				stria_fail(spec, i, "%s is in use (mounted, or held by md, dm or another array)",
					   spec->paths[i]);
			else if (ret == -ENOENT || ret == -ENOTBLK ||
				 ret == -ENXIO)
				stria_fail(spec, i, "%s is not a block device",
					   spec->paths[i]);
			else
				stria_fail(spec, i, "cannot open %s: error %d",
					   spec->paths[i], ret);
			return ret;
		}
		for (j = 0; j < i; j++) {
			if (o->dev[j].bdev->bd_dev == o->dev[i].bdev->bd_dev) {
				stria_fail(spec, i, "%s is given twice (members %u and %u)",
					   spec->paths[i], j, i);
				stria_bdev_close(&o->dev[i]);
				o->dev[i].bdev = NULL;
				return -EINVAL;
			}
		}
		if (bdev_logical_block_size(o->dev[i].bdev) > STRIA_SB_SIZE) {
			stria_fail(spec, i, "%s has %u-byte blocks; at most %u are supported",
				   spec->paths[i],
				   bdev_logical_block_size(o->dev[i].bdev),
				   STRIA_SB_SIZE);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * Create, RAID5/6: zero every member's data area, so that each stripe's
 * parity matches its data from the start. Read-modify-write carries a
 * stripe's parity forward (P' = P ^ D ^ D'): over a drive's old contents it
 * would keep old garbage in P, and a later failure would rebuild data
 * written after create from it. Members with Write Zeroes do this at once;
 * others get written. A background initial sync replaces this with the
 * failure-handling work.
 */
static int stria_zero_parity_data(struct stria_spec *spec,
				  struct stria_opened *o,
				  const struct stria_geom *g)
{
	u32 i;
	int ret;

	if (!stria_geom_nr_parity(g))
		return 0;
	for (i = 0; i < spec->nr_members; i++) {
		/* the write-intent bitmap's area too: no region dirty */
		ret = blkdev_issue_zeroout(o->dev[i].bdev, STRIA_SB_BITMAP_OFFSET,
					   STRIA_SB_DATA_OFFSET -
					   STRIA_SB_BITMAP_OFFSET +
					   g->member_sectors, GFP_KERNEL, 0);
		if (ret) {
			stria_fail(spec, i, "%s: cannot zero the data area so the parity starts consistent: error %d",
				   spec->paths[i], ret);
			return ret;
		}
	}
	return 0;
}

/* Create: every member must hold the superblock area plus one chunk. */
static int stria_check_create(struct stria_spec *spec, struct stria_opened *o,
			      struct stria_geom *g)
{
	u64 min = U64_MAX, need = STRIA_SB_DATA_OFFSET + spec->chunk_sectors;
	u32 i;

	for (i = 0; i < spec->nr_members; i++) {
		u64 s = bdev_nr_sectors(o->dev[i].bdev);

		if (s < need) {
			stria_fail(spec, i, "%s is too small: %llu sectors, needs at least %llu (1 MiB superblock area + one chunk)",
				   spec->paths[i], s, need);
			return -ENOSPC;
		}
		min = min(min, s);
	}
	if (stria_geom_init(g, spec->level, spec->layout, spec->nr_members,
			    spec->chunk_sectors, min - STRIA_SB_DATA_OFFSET)) {
		stria_fail(spec, STRIA_NO_MEMBER, "invalid geometry");
		return -EINVAL;
	}
	if (!spec->bitmap)
		return 0;
	o->bitmap_chunk = stria_bitmap_min_chunk(g->member_sectors,
						 spec->chunk_sectors,
						 spec->bitmap_chunk);
	if (!o->bitmap_chunk || (spec->bitmap_chunk &&
				 o->bitmap_chunk != spec->bitmap_chunk)) {
		stria_fail(spec, STRIA_NO_MEMBER, "bitmap regions of %u sectors: %llu regions of %llu member sectors do not fit in the %u bits before the data; use %u sectors or more",
			   spec->bitmap_chunk,
			   stria_bitmap_regions(g->member_sectors,
						spec->bitmap_chunk),
			   g->member_sectors, (u32)STRIA_SB_BITMAP_MAX_REGIONS,
			   o->bitmap_chunk);
		return -EINVAL;
	}
	return 0;
}

static struct stria_array *stria_find_uuid(const u8 *uuid)
{
	struct stria_array *a;

	list_for_each_entry(a, &stria_arrays, list)
		if (!memcmp(a->uuid, uuid, STRIA_UUID_LEN))
			return a;
	return NULL;
}

/*
 * Assembly refuses an array with more failed members than its level
 * tolerates, naming them.
 */
static int stria_check_failed(struct stria_spec *spec, struct stria_opened *o,
			      const struct stria_geom *g, const u32 *roles)
{
	DECLARE_BITMAP(fb, STRIA_GEOM_MAX_MEMBERS);
	u64 missing = o->failed | o->rebuilding;
	u32 i, nfail = hweight64(missing), tol = stria_geom_nr_parity(g);

	if (nfail <= tol)
		return 0;
	if (nfail == 1) {
		for (i = 0; i < spec->nr_members; i++)
			if (roles[i] < 64 && (o->failed & BIT_ULL(roles[i])))
				break;
		if (i < spec->nr_members)
			stria_fail(spec, i, "array '%s' cannot start: member %u (%s) is marked failed and raid%u tolerates none",
				   spec->name, roles[i], spec->paths[i],
				   g->level);
		else
			stria_fail(spec, STRIA_NO_MEMBER, "array '%s' cannot start: member %u is marked failed and raid%u tolerates none",
				   spec->name, (u32)__ffs64(missing), g->level);
		return -EINVAL;
	}
	bitmap_from_u64(fb, missing);
	stria_fail(spec, STRIA_NO_MEMBER, "array '%s' cannot start: %u members (roles %*pbl) are marked failed%s, raid%u tolerates %u",
		   spec->name, nfail, (int)STRIA_GEOM_MAX_MEMBERS, fb,
		   o->rebuilding ? " or being rebuilt" : "", g->level, tol);
	return -EINVAL;
}

/*
 * Assemble, once the freshest superblock is known: which device holds
 * which role. Current superblocks hold their roles (or are spares); an
 * older one is a failed member the freshest superblock records, or was
 * replaced (its role taken by a spare, or a spare since removed) and is
 * left out, or is stale and refused. Every role without a device must be
 * recorded as failed, or as being rebuilt (it then starts failed).
 */
static int stria_assign_roles(struct stria_spec *spec, struct stria_opened *o,
			      u64 maxev, u32 *roles)
{
	unsigned long seen[BITS_TO_LONGS(STRIA_GEOM_MAX_MEMBERS)] = { 0 };
	u32 i, role, nspares = 0;
	bool older;

	for (older = false; ; older = true) {
		for (i = 0; i < spec->nr_members; i++) {
			struct stria_sb *sb = &o->sb[i];

			if ((le64_to_cpu(sb->events) < maxev) != older)
				continue;
			role = le32_to_cpu(sb->role);
			if (older && (role == STRIA_SB_ROLE_SPARE ||
				      test_bit(role, seen))) {
				pr_info("%s: left out of array '%.31s': its superblock is older than the array's (events %llu, the array's %llu) and its %s\n",
					spec->paths[i], sb->name,
					le64_to_cpu(sb->events), maxev,
					role == STRIA_SB_ROLE_SPARE ?
					"spare place is gone" :
					"role has another device");
				roles[i] = STRIA_ROLE_LEFT_OUT;
				continue;
			}
			if (role == STRIA_SB_ROLE_SPARE) {
				if (++nspares > STRIA_MAX_SPARES) {
					stria_fail(spec, i, "%s: an array has at most %u spares",
						   spec->paths[i],
						   STRIA_MAX_SPARES);
					return -EINVAL;
				}
				roles[i] = role;
				continue;
			}
			if (test_and_set_bit(role, seen)) {
				stria_fail(spec, i, "%s has role %u, which another member has too",
					   spec->paths[i], role);
				return -EINVAL;
			}
			if (older && !(o->failed & BIT_ULL(role))) {
				stria_fail(spec, i, "%s is stale: events %llu, the others have %llu",
					   spec->paths[i],
					   le64_to_cpu(sb->events), maxev);
				return -ESTALE;
			}
			roles[i] = role;
		}
		if (older)
			break;
	}
	for (role = 0; role < o->nr_roles; role++) {
		if (test_bit(role, seen) || (o->failed & BIT_ULL(role)))
			continue;
		if (!(o->rebuilding & BIT_ULL(role))) {
			stria_fail(spec, STRIA_NO_MEMBER, "member %u of array '%.31s' is missing (not given, and not recorded as failed)",
				   role, o->sb[o->fresh].name);
			return -ENODEV;
		}
		/* half rebuilt and gone: it has failed, another spare may come */
		pr_info("array '%.31s': member %u, being rebuilt, is missing: it starts failed\n",
			o->sb[o->fresh].name, role);
		o->rebuilding &= ~BIT_ULL(role);
		o->failed |= BIT_ULL(role);
	}
	return 0;
}

/*
 * An array that was not stopped cleanly may have stripes whose parity does
 * not match their data: writes cut short by the crash. With every member
 * in sync a resync recomputes the parity (stria_array_alloc() plans it).
 * With a member missing, such a stripe's lost chunk would be rebuilt from
 * wrong parity, silently: the RAID5/6 write hole. That start is refused
 * unless forced, as md refuses a dirty degraded array.
 */
static int stria_check_dirty(struct stria_spec *spec, struct stria_opened *o,
			     const struct stria_geom *g)
{
	u64 missing = o->failed | o->rebuilding;

	if (!o->dirty || !stria_geom_nr_parity(g) || !missing)
		return 0;
	if (!spec->force) {
		stria_fail(spec, STRIA_NO_MEMBER, "'%s' was not stopped cleanly and is degraded (write hole risk); --force starts it anyway",
			   spec->name);
		return -EUCLEAN;
	}
	pr_warn("%s: was not stopped cleanly and is degraded; started by force: data of the missing members may be rebuilt wrong where writes were cut short\n",
		spec->name);
	return 0;
}

/*
 * Assemble: every member carries a valid superblock of the same array, with
 * its own role, and none is older than the others unless the freshest
 * superblock marks it failed.
 */
static int stria_check_assemble(struct stria_spec *spec,
				struct stria_opened *o, struct stria_geom *g,
				u32 *roles)
{
	struct stria_sb *s0 = &o->sb[0], *f;
	char why[96];
	u64 maxev = 0;
	u32 i;
	int ret;

	for (i = 0; i < spec->nr_members; i++) {
		struct stria_sb *sb = &o->sb[i];

		ret = stria_sb_read(o->dev[i].bdev, sb);
		if (ret) {
			stria_fail(spec, i, "cannot read the superblock of %s: error %d",
				   spec->paths[i], ret);
			return ret;
		}
		ret = stria_sb_check(sb, stria_sb_crc(sb), why, sizeof(why));
		if (ret) {
			stria_fail(spec, i, "%s: %s", spec->paths[i], why);
			return ret == -ENODATA ? -ENODATA : -EINVAL;
		}
		if (memcmp(sb->array_uuid, s0->array_uuid, STRIA_UUID_LEN) ||
		    sb->nr_members != s0->nr_members ||
		    sb->chunk_sectors != s0->chunk_sectors ||
		    sb->data_sectors != s0->data_sectors ||
		    sb->level != s0->level) {
			stria_fail(spec, i, "%s belongs to array '%.31s', not to '%.31s' like %s",
				   spec->paths[i], sb->name, s0->name,
				   spec->paths[0]);
			return -EINVAL;
		}
		if (sb->parity_layout != s0->parity_layout) {
			stria_fail(spec, i, "%s has parity layout %u, %s has %u: damaged superblock",
				   spec->paths[i], le32_to_cpu(sb->parity_layout),
				   spec->paths[0],
				   le32_to_cpu(s0->parity_layout));
			return -EINVAL;
		}
		if (bdev_nr_sectors(o->dev[i].bdev) <
		    STRIA_SB_DATA_OFFSET + le64_to_cpu(sb->data_sectors)) {
			stria_fail(spec, i, "%s is smaller than its data area (%llu sectors, needs %llu)",
				   spec->paths[i],
				   (u64)bdev_nr_sectors(o->dev[i].bdev),
				   STRIA_SB_DATA_OFFSET +
				   le64_to_cpu(sb->data_sectors));
			return -EINVAL;
		}
		if (!i || le64_to_cpu(sb->events) > maxev) {
			maxev = le64_to_cpu(sb->events);
			o->fresh = i;
		}
	}
	f = &o->sb[o->fresh];
	o->nr_roles = le32_to_cpu(f->nr_members);
	o->failed = le64_to_cpu(f->failed);
	o->rebuilding = le64_to_cpu(f->rebuilding);
	o->rebuild_offset = le64_to_cpu(f->rebuild_offset);
	o->scrub_action = le32_to_cpu(f->scrub_action);
	o->scrub_offset = le64_to_cpu(f->scrub_offset);
	o->scrub_end = le64_to_cpu(f->scrub_end);
	o->dirty = le32_to_cpu(f->state) == STRIA_SB_STATE_ACTIVE;
	o->bitmap_chunk = le32_to_cpu(f->bitmap_chunk);
	o->degraded_events = le64_to_cpu(f->degraded_events);
	o->rebuild_partial = le64_to_cpu(f->rebuild_partial);
	if (spec->nr_members > o->nr_roles + STRIA_MAX_SPARES) {
		stria_fail(spec, STRIA_NO_MEMBER, "array '%.31s' has %u members and at most %u spares, %u devices given",
			   s0->name, o->nr_roles, STRIA_MAX_SPARES,
			   spec->nr_members);
		return -EINVAL;
	}
	ret = stria_assign_roles(spec, o, maxev, roles);
	if (ret)
		return ret;
	if (spec->name[0] && strncmp(spec->name, s0->name, STRIA_NAME_LEN)) {
		stria_fail(spec, STRIA_NO_MEMBER, "the members belong to array '%.31s', not '%s'",
			   s0->name, spec->name);
		return -EINVAL;
	}
	if (stria_geom_init(g, le32_to_cpu(f->level),
			    le32_to_cpu(f->parity_layout),
			    le32_to_cpu(f->nr_members),
			    le32_to_cpu(f->chunk_sectors),
			    le64_to_cpu(f->data_sectors)) ||
	    g->member_sectors != le64_to_cpu(f->data_sectors)) {
		stria_fail(spec, STRIA_NO_MEMBER, "the superblocks describe an invalid geometry");
		return -EINVAL;
	}
	if (stria_find_uuid(s0->array_uuid)) {
		stria_fail(spec, STRIA_NO_MEMBER, "array '%.31s' is already running as stria%d",
			   s0->name, stria_find_uuid(s0->array_uuid)->index);
		return -EEXIST;
	}
	strscpy(spec->name, s0->name, sizeof(spec->name));
	ret = stria_check_failed(spec, o, g, roles);
	if (ret)
		return ret;
	return stria_check_dirty(spec, o, g);
}

/* The node most members are attached to, or NUMA_NO_NODE. */
static int stria_majority_node(struct stria_opened *o, u32 n)
{
	int best = NUMA_NO_NODE, bestcount = 0, node, count;
	u32 i, j;

	for (i = 0; i < n; i++) {
		if (!o->dev[i].bdev)
			continue;
		node = o->dev[i].bdev->bd_disk->node_id;
		if (node == NUMA_NO_NODE)
			continue;
		count = 0;
		for (j = 0; j < n; j++)
			if (o->dev[j].bdev &&
			    o->dev[j].bdev->bd_disk->node_id == node)
				count++;
		if (count > bestcount) {
			best = node;
			bestcount = count;
		}
	}
	return best;
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

/*
 * Raise the event count and write the superblocks of the members that have
 * not failed, recording those that have. Caller holds @a->sb_lock.
 * @errors (optional) gets the roles whose write failed.
 */
static int stria_write_sbs(struct stria_array *a, u32 state, u64 *errors)
{
	struct stria_sb *sb = kmalloc(sizeof(*sb), GFP_KERNEL);
	bool degraded;
	int ret = 0, err;
	u32 i;

	lockdep_assert_held(&a->sb_lock);
	if (errors)
		*errors = 0;
	if (!sb)
		return -ENOMEM;
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
	for (i = 0; i < a->nr_members; i++) {
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
	if (!degraded)
		WRITE_ONCE(a->sb_degraded, false);
	return ret;
}

/*
 * Bring the superblocks of a running array up to date with its failed
 * members. A member whose superblock cannot be written fails too (which
 * queues sb_work again to record that). Caller holds @a->sb_lock.
 */
static int stria_sync_failed(struct stria_array *a)
{
	u64 errors;
	u32 i;
	int ret;

	lockdep_assert_held(&a->sb_lock);
	if (stria_array_failed_roles(a) == a->sb_failed)
		return 0;
	ret = stria_write_sbs(a, STRIA_SB_STATE_ACTIVE, &errors);
	for (i = 0; i < a->nr_members; i++)
		if (errors & BIT_ULL(i))
			stria_member_set_state(&a->members[i],
					       STRIA_STATE_FAILED);
	return ret;
}

/**
 * stria_array_update_sbs() - write every superblock now (events + 1)
 * @a: the array
 *
 * Records the member states, the spares and the sync checkpoints. A member
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
	ret = stria_write_sbs(a, STRIA_SB_STATE_ACTIVE, &errors);
	for (i = 0; i < a->nr_members; i++)
		if (errors & BIT_ULL(i))
			stria_member_set_state(&a->members[i],
					       STRIA_STATE_FAILED);
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
		stria_member_set_state(m, STRIA_STATE_FAILED);
		ret = -EIO;
	}
	return ret;
}

static void stria_sb_work(struct work_struct *work)
{
	struct stria_array *a = container_of(work, struct stria_array, sb_work);

	mutex_lock(&a->sb_lock);
	stria_sync_failed(a);
	mutex_unlock(&a->sb_lock);
	/* a spare may take the role that just failed */
	mutex_lock(&a->cfg_lock);
	stria_sync_kick(a, false);
	mutex_unlock(&a->cfg_lock);
}

static void stria_limits(struct stria_array *a, struct queue_limits *lim)
{
	u32 chunk_bytes = 1U << (a->geom.chunk_shift + SECTOR_SHIFT);
	u32 i;

	blk_set_stacking_limits(lim);
	for (i = 0; i < a->nr_members; i++)
		if (a->members[i].dev.bdev)
			blk_stack_limits(lim,
					 &bdev_get_queue(a->members[i].dev.bdev)->limits,
					 a->data_offset);
	lim->chunk_sectors = 1U << a->geom.chunk_shift;
	lim->max_hw_sectors = min(lim->max_hw_sectors, lim->chunk_sectors);
	lim->max_sectors = min(lim->max_sectors, lim->chunk_sectors);
	lim->io_min = chunk_bytes;
	lim->io_opt = chunk_bytes * a->nr_members;
	lim->physical_block_size = max(lim->physical_block_size,
				       lim->logical_block_size);
	if (a->ops->limits)
		a->ops->limits(a, lim);
}

static int stria_add_disk(struct stria_array *a)
{
	struct blk_mq_tag_set *set = &a->tag_set;
	struct queue_limits lim;
	struct gendisk *disk;
	int ret;

	set->ops = &stria_mq_ops;
	set->nr_hw_queues = hw_queues ? min(hw_queues, nr_cpu_ids) : nr_cpu_ids;
	set->nr_maps = 1;
	set->queue_depth = clamp(queue_depth, 1U, 4096U);
	set->numa_node = a->node;
	/* queue_rq() submits bios, which may sleep: see io.c */
	set->flags = STRIA_BLK_MQ_F_SHOULD_MERGE | BLK_MQ_F_BLOCKING;
	set->driver_data = a;
	ret = blk_mq_alloc_tag_set(set);
	if (ret)
		return ret;

	stria_limits(a, &lim);
	disk = stria_alloc_disk_limits(set, &lim, a);
	if (IS_ERR(disk)) {
		ret = PTR_ERR(disk);
		goto out_free_tag_set;
	}
	disk->major = stria_major;
	disk->first_minor = a->index * STRIA_MINORS;
	disk->minors = STRIA_MINORS;
	disk->fops = &stria_disk_fops;
	disk->private_data = a;
	snprintf(disk->disk_name, DISK_NAME_LEN, "stria%d", a->index);
	set_capacity(disk, stria_geom_array_sectors(&a->geom));
	a->disk = disk;
	return 0;

out_free_tag_set:
	blk_mq_free_tag_set(set);
	return ret;
}

static void stria_unlink_holder(struct stria_array *a, struct stria_member *m)
{
	if (m->linked)
		bd_unlink_disk_holder(m->dev.bdev, a->disk);
	m->linked = false;
}

static void stria_link_holder(struct stria_array *a, struct stria_member *m)
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
	cancel_work_sync(&a->sb_work);
	cancel_work_sync(&a->sync.work);
	stria_bitmap_free(a);
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
	default:
		return &stria_raid0_ops;
	}
}

static struct stria_array *stria_array_alloc(struct stria_spec *spec,
					     struct stria_opened *o,
					     const struct stria_geom *g,
					     const u32 *roles, int node)
{
	struct stria_array *a;
	u32 i;

	a = kzalloc_node(struct_size(a, members, o->nr_roles), GFP_KERNEL,
			 node);
	if (!a)
		return NULL;
	a->index = -1;
	a->repl_role = STRIA_NO_MEMBER;
	a->node = node;
	a->geom = *g;
	a->ops = stria_level_ops(g->level);
	a->data_offset = STRIA_SB_DATA_OFFSET;
	a->nr_members = o->nr_roles;
	a->holder = o->holder;
	o->holder = NULL;
	strscpy(a->name, spec->name, sizeof(a->name));
	INIT_LIST_HEAD(&a->list);
	INIT_WORK(&a->sb_work, stria_sb_work);
	mutex_init(&a->sb_lock);
	mutex_init(&a->cfg_lock);
	stria_sync_init(a);
	a->sb_failed = o->failed;
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
	if (o->dirty && stria_geom_nr_parity(g) &&
	    !(o->failed | o->rebuilding)) {
		/* any stripe may have been cut short: all of them, from 0 */
		if (o->bitmap_chunk)
			pr_warn("%s: was not stopped cleanly: the parity of the regions its write-intent bitmap has dirty is resynced\n",
				spec->name);
		else
			pr_warn("%s: was not stopped cleanly: the parity of every stripe is resynced\n",
				spec->name);
		a->sync.scrub_action = STRIA_SB_SCRUB_RESYNC;
		a->sync.scrub_pos = 0;
		a->sync.scrub_end = g->member_sectors;
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
	mutex_lock(&a->sb_lock);
	ret = stria_write_sbs(a, STRIA_SB_STATE_ACTIVE, NULL);
	mutex_unlock(&a->sb_lock);
	if (ret)
		goto out_put_disk;
	ret = device_add_disk(NULL, a->disk, stria_disk_groups);
	if (ret)
		goto out_put_disk;
	stria_link_holders(a);
	return 0;

out_put_disk:
	stria_put_disk(a->disk);
	blk_mq_free_tag_set(&a->tag_set);
out_io_exit:
	stria_io_exit(a);
	return ret;
}

/**
 * stria_array_start() - create or assemble an array
 * @spec: the validated request; @spec->msg and @spec->err_member say why
 *	on failure
 * @out: the running array on success
 *
 * Caller holds stria_arrays_lock. On failure nothing has changed: no
 * superblock written, no device left open.
 *
 * Return: 0 or a negative errno.
 */
int stria_array_start(struct stria_spec *spec, struct stria_array **out)
{
	u32 roles[STRIA_GEOM_MAX_MEMBERS + STRIA_MAX_SPARES];
	struct stria_opened o = { };
	struct stria_array *a;
	struct stria_geom g;
	int ret, node;
	u32 i;

	lockdep_assert_held(&stria_arrays_lock);
	if (!spec->assemble) {
		list_for_each_entry(a, &stria_arrays, list) {
			if (!strcmp(a->name, spec->name)) {
				stria_fail(spec, STRIA_NO_MEMBER, "an array named '%s' is already running as stria%d",
					   spec->name, a->index);
				return -EEXIST;
			}
		}
	}
	ret = -ENOMEM;
	o.dev = kcalloc(spec->nr_members, sizeof(*o.dev), GFP_KERNEL);
	o.sb = kvcalloc(spec->nr_members, sizeof(*o.sb), GFP_KERNEL);
	o.holder = kzalloc(1, GFP_KERNEL);
	if (!o.dev || !o.sb || !o.holder) {
		stria_fail(spec, STRIA_NO_MEMBER, "out of memory");
		goto out_free;
	}
	ret = stria_open_all(spec, &o);
	if (ret)
		goto out_close;
	if (spec->assemble) {
		ret = stria_check_assemble(spec, &o, &g, roles);
	} else {
		for (i = 0; i < spec->nr_members; i++)
			roles[i] = i;
		o.nr_roles = spec->nr_members;
		ret = stria_check_create(spec, &o, &g);
		if (!ret)
			ret = stria_zero_parity_data(spec, &o, &g);
	}
	if (ret)
		goto out_close;
	if (spec->assemble) {
		list_for_each_entry(a, &stria_arrays, list) {
			if (!strcmp(a->name, spec->name)) {
				stria_fail(spec, STRIA_NO_MEMBER, "another array named '%s' is running as stria%d",
					   spec->name, a->index);
				ret = -EEXIST;
				goto out_close;
			}
		}
	}

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
	if (ret) {
		stria_fail(spec, STRIA_NO_MEMBER, "cannot set up the write-intent bitmap: error %d",
			   ret);
		stria_array_free(a);
		goto out_free;
	}
	ret = stria_array_build(a);
	if (ret) {
		stria_fail(spec, STRIA_NO_MEMBER, "cannot set up the array device: error %d",
			   ret);
		stria_array_free(a);
		goto out_free;
	}
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
	stria_bitmap_run(a);
	/* a rebuild or scrub to resume, or a spare for a failed role */
	mutex_lock(&a->cfg_lock);
	stria_sync_kick(a, false);
	mutex_unlock(&a->cfg_lock);
	*out = a;
	ret = 0;
	/* devices left out of the array */
	stria_close_all(&o, spec->nr_members);
	goto out_free;

out_close:
	stria_close_all(&o, spec->nr_members);
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
	/* a running sync records where it was, to go on after assemble */
	stria_sync_stop(a, true, msg);
	list_del_init(&a->list);
	stria_unlink_holders(a);
	del_gendisk(a->disk);
	/*
	 * No I/O is left to fail a member: finish or drop a pending update,
	 * the clean superblocks below record the failed members too.
	 */
	cancel_work_sync(&a->sb_work);
	stria_bitmap_stop(a);
	mutex_lock(&a->sb_lock);
	ret = stria_write_sbs(a, STRIA_SB_STATE_CLEAN, NULL);
	mutex_unlock(&a->sb_lock);
	if (ret)
		pr_warn("stria%d: stopped, but a superblock could not be marked clean\n",
			a->index);
	trace_stria_array_stop(a->index, a->name);
	pr_info("stria%d: array '%s' stopped\n", a->index, a->name);
	stria_put_disk(a->disk);
	blk_mq_free_tag_set(&a->tag_set);
	stria_io_exit(a);
	stria_array_free(a);
	return 0;
}

/**
 * stria_array_member_failed() - a member of @a has just been marked failed
 * @a: the array
 *
 * Any context. The superblocks are updated later, from a work item.
 */
void stria_array_member_failed(struct stria_array *a)
{
	schedule_work(&a->sb_work);
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
	return nfail <= stria_geom_nr_parity(&a->geom) ? STRIA_STATE_DEGRADED :
	       STRIA_STATE_FAILED;
}

/**
 * stria_array_fail_member() - mark a member failed on request
 * @a: the array
 * @dev: the member's device number
 * @force: even when the array then has more failed members than it
 *	tolerates
 * @msg: STRIA_MSG_LEN bytes for the reason on failure
 * @role: set to the member's role once it is found
 *
 * Caller holds stria_arrays_lock. Returns once the superblocks of the
 * remaining members record the failure.
 *
 * Return: 0; -ENODEV when @dev is not a member, -EALREADY when it has
 * failed already, -EBUSY when refused for the tolerance, or the error of a
 * superblock write.
 */
int stria_array_fail_member(struct stria_array *a, dev_t dev, bool force,
			    char *msg, u32 *role)
{
	u32 i, nfail, tol = stria_geom_nr_parity(&a->geom);
	struct stria_member *m = NULL;
	int ret = 0;

	lockdep_assert_held(&stria_arrays_lock);
	mutex_lock(&a->cfg_lock);
	for (i = 0; i < a->nr_members; i++)
		if (a->members[i].dev.bdev &&
		    stria_member_devt(&a->members[i]) == dev)
			m = &a->members[i];
	for (i = 0; i < a->nr_spares; i++) {
		if (stria_member_devt(&a->spares[i]) == dev) {
			snprintf(msg, STRIA_MSG_LEN, "%pg is a spare of array '%s', not a member: remove it instead",
				 a->spares[i].dev.bdev, a->name);
			ret = -EINVAL;
			goto out_unlock;
		}
	}
	if (!m) {
		snprintf(msg, STRIA_MSG_LEN, "device %u:%u is not a member of array '%s' (stria%d)",
			 MAJOR(dev), MINOR(dev), a->name, a->index);
		ret = -ENODEV;
		goto out_unlock;
	}
	*role = m->role;
	if (READ_ONCE(m->state) == STRIA_STATE_FAILED) {
		snprintf(msg, STRIA_MSG_LEN, "member %u (%pg) of array '%s' has already failed",
			 m->role, m->dev.bdev, a->name);
		ret = -EALREADY;
		goto out_unlock;
	}
	/* a member being rebuilt counts as missing already */
	nfail = atomic_read(&a->nr_failed) +
		!stria_state_missing(READ_ONCE(m->state));
	if (nfail > tol && !force) {
		if (!tol)
			snprintf(msg, STRIA_MSG_LEN, "failing member %u (%pg) would fail '%s': raid%u tolerates no failed member",
				 m->role, m->dev.bdev, a->name, a->geom.level);
		else
			snprintf(msg, STRIA_MSG_LEN, "failing member %u (%pg) would leave '%s' with %u failed members; raid%u tolerates %u",
				 m->role, m->dev.bdev, a->name, nfail,
				 a->geom.level, tol);
		ret = -EBUSY;
		goto out_unlock;
	}
	pr_warn("stria%d: member %u (%pg) failed by request%s\n", a->index,
		m->role, m->dev.bdev, nfail > tol ? ", beyond what the array tolerates" : "");
	stria_member_set_state(m, STRIA_STATE_FAILED);
	/* from here on a spare may take the role: only m->role is used */
	mutex_unlock(&a->cfg_lock);
	mutex_lock(&a->sb_lock);
	ret = stria_sync_failed(a);
	mutex_unlock(&a->sb_lock);
	/* a write error above failed another member: record that too */
	flush_work(&a->sb_work);
	if (ret)
		snprintf(msg, STRIA_MSG_LEN, "member %u failed, but a superblock could not be written: error %d",
			 *role, ret);
	return ret;

out_unlock:
	mutex_unlock(&a->cfg_lock);
	return ret;
}

/*
 * Spare @si takes the failed role @m, with the queue frozen; the failed
 * device is released. Caller holds @a->cfg_lock; no sync runs.
 */
static void stria_spare_take_role(struct stria_array *a,
				  struct stria_member *m, u32 si)
{
	struct stria_member *sp = &a->spares[si];
	struct stria_member old = *m;
	unsigned int memflags;

	memflags = stria_freeze_queue(a->disk->queue);
	mutex_lock(&a->sb_lock);
	m->dev = sp->dev;
	m->node = sp->node;
	m->dev_sectors = sp->dev_sectors;
	m->linked = sp->linked;
	m->readd = sp->readd;
	memcpy(m->uuid, sp->uuid, STRIA_UUID_LEN);
	atomic64_set(&m->errors, 0);
	atomic64_set(&m->read_repairs, 0);
	stria_member_set_state(m, STRIA_STATE_REBUILDING);
	memmove(sp, sp + 1, (a->nr_spares - si - 1) * sizeof(*sp));
	a->nr_spares--;
	memset(&a->spares[a->nr_spares], 0, sizeof(*sp));
	mutex_unlock(&a->sb_lock);
	stria_unfreeze_queue(a->disk->queue, memflags);
	if (m->readd)
		pr_info("stria%d: %pg is member %u again; only the regions the write-intent bitmap has dirty (%u) are rebuilt\n",
			a->index, m->dev.bdev, m->role, stria_bitmap_dirty(a));
	else if (old.dev.bdev)
		pr_info("stria%d: spare %pg takes role %u from failed %pg and is rebuilt\n",
			a->index, m->dev.bdev, m->role, old.dev.bdev);
	else
		pr_info("stria%d: spare %pg takes role %u and is rebuilt\n",
			a->index, m->dev.bdev, m->role);
	if (old.dev.bdev) {
		stria_unlink_holder(a, &old);
		stria_bdev_close(&old.dev);
	}
}

/**
 * stria_array_take_spares() - move spares into the failed roles
 * @a: the array
 *
 * A re-added former member takes its old role; the other failed roles are
 * taken lowest first, by the spare added last. Caller holds @a->cfg_lock
 * and no sync runs; the superblocks are not written here.
 *
 * Return: the roles a spare took.
 */
int stria_array_take_spares(struct stria_array *a)
{
	int n = 0;
	u32 i;

	lockdep_assert_held(&a->cfg_lock);
	for (i = 0; i < a->nr_spares; ) {
		struct stria_member *sp = &a->spares[i];

		if (sp->readd && READ_ONCE(a->members[sp->want_role].state) ==
		    STRIA_STATE_FAILED) {
			stria_spare_take_role(a, &a->members[sp->want_role], i);
			n++;
			continue;
		}
		/* its role is taken: an ordinary spare from now on */
		sp->readd = false;
		i++;
	}
	for (i = 0; i < a->nr_members && a->nr_spares; i++) {
		if (READ_ONCE(a->members[i].state) != STRIA_STATE_FAILED)
			continue;
		stria_spare_take_role(a, &a->members[i], a->nr_spares - 1);
		n++;
	}
	return n;
}

/* The member or spare that is device @dev, or NULL. */
static struct stria_member *stria_find_dev(struct stria_array *a, dev_t dev)
{
	u32 i;

	for (i = 0; i < a->nr_members; i++)
		if (a->members[i].dev.bdev &&
		    stria_member_devt(&a->members[i]) == dev)
			return &a->members[i];
	for (i = 0; i < a->nr_spares; i++)
		if (stria_member_devt(&a->spares[i]) == dev)
			return &a->spares[i];
	return NULL;
}

/* Open @dev as a spare of @a and check it; fills @sp->dev. */
static int stria_spare_open(struct stria_array *a, dev_t dev,
			    struct stria_member *sp, char *msg)
{
	u64 need = a->data_offset + a->geom.member_sectors, size;
	struct block_device *b;
	int ret;

	ret = stria_bdev_open_dev(dev, a->holder, &sp->dev);
	if (ret) {
		if (ret == -EBUSY)
			snprintf(msg, STRIA_MSG_LEN, "device %u:%u is in use (mounted, or held by md, dm or another array)",
				 MAJOR(dev), MINOR(dev));
		else if (ret == -ENXIO || ret == -ENODEV || ret == -ENOENT)
			snprintf(msg, STRIA_MSG_LEN, "device %u:%u is not a block device",
				 MAJOR(dev), MINOR(dev));
		else
			snprintf(msg, STRIA_MSG_LEN, "cannot open device %u:%u: error %d",
				 MAJOR(dev), MINOR(dev), ret);
		return ret;
	}
	b = sp->dev.bdev;
	size = bdev_nr_sectors(b);
	if (b->bd_disk == a->disk) {
		snprintf(msg, STRIA_MSG_LEN, "%pg is array '%s' itself", b,
			 a->name);
		ret = -EINVAL;
	} else if (size < need) {
		snprintf(msg, STRIA_MSG_LEN, "%pg is too small: %llu sectors, the array needs %llu (1 MiB superblock area + %llu data sectors)",
			 b, size, need, a->geom.member_sectors);
		ret = -ENOSPC;
	} else if (bdev_logical_block_size(b) >
		   queue_logical_block_size(a->disk->queue)) {
		snprintf(msg, STRIA_MSG_LEN, "%pg has %u-byte blocks, the array %u-byte ones",
			 b, bdev_logical_block_size(b),
			 queue_logical_block_size(a->disk->queue));
		ret = -EINVAL;
	}
	if (ret)
		stria_bdev_close(&sp->dev);
	return ret;
}

/*
 * Is the device of spare @sp a former member of @a that missed only writes
 * the write-intent bitmap has dirty? Then it goes back into its old role,
 * and only those regions are rebuilt. That holds when its role has failed,
 * it was in sync when it left (its superblock does not say it was being
 * rebuilt), and it left during the array's current degraded spell, since
 * which no bit was cleared: it was written at most two updates before the
 * spell's first (the update that failed its superblock write, then the one
 * recording the failure). Caller holds @a->cfg_lock.
 */
static void stria_readd_check(struct stria_array *a, struct stria_member *sp)
{
	struct stria_sb *sb = kmalloc(sizeof(*sb), GFP_KERNEL);
	char why[STRIA_MSG_LEN];
	u64 ev, de;
	u32 role;

	if (!sb)
		return;
	if (stria_sb_read(sp->dev.bdev, sb) ||
	    stria_sb_check(sb, stria_sb_crc(sb), why, sizeof(why)) ||
	    memcmp(sb->array_uuid, a->uuid, STRIA_UUID_LEN))
		goto out;
	role = le32_to_cpu(sb->role);
	ev = le64_to_cpu(sb->events);
	if (role >= a->nr_members)
		goto out;
	mutex_lock(&a->sb_lock);
	de = a->degraded_events;
	mutex_unlock(&a->sb_lock);
	if (READ_ONCE(a->members[role].state) != STRIA_STATE_FAILED)
		pr_info("stria%d: %pg was member %u of '%s', a role another device holds now\n",
			a->index, sp->dev.bdev, role, a->name);
	else if (!a->wib)
		pr_info("stria%d: %pg was member %u of '%s', which has no write-intent bitmap: it is rebuilt in full\n",
			a->index, sp->dev.bdev, role, a->name);
	else if (le64_to_cpu(sb->rebuilding) & BIT_ULL(role))
		pr_info("stria%d: %pg was member %u of '%s' but was being rebuilt itself: it is rebuilt in full\n",
			a->index, sp->dev.bdev, role, a->name);
	else if (!de || ev + 2 < de || ev >= a->events)
		pr_info("stria%d: %pg was member %u of '%s' until event %llu, before the array's degraded spell (from event %llu): it is rebuilt in full\n",
			a->index, sp->dev.bdev, role, a->name, ev, de);
	else {
		sp->readd = true;
		sp->want_role = role;
	}
out:
	kfree(sb);
}

/**
 * stria_array_add_spare() - add a device to a RAID5/6 array as a spare
 * @a: the array
 * @dev: the device
 * @msg: STRIA_MSG_LEN bytes for the reason on failure
 * @role: set to the role the spare took at once, else STRIA_NO_MEMBER
 * @readd: set when @dev is a former member that took its old role back
 *	for a partial rebuild (see stria_readd_check())
 *
 * Caller holds stria_arrays_lock. Opens @dev exclusively with the array's
 * holder, writes its spare superblock, then every superblock (events + 1).
 * When a role has failed the spare takes it and a rebuild starts.
 *
 * Return: 0, or -EINVAL (RAID0, the array itself), -ENOSPC (too small,
 * too many spares), -EEXIST (already in the array), -EBUSY (in use), an
 * open error, or the error of the spare's superblock write.
 */
int stria_array_add_spare(struct stria_array *a, dev_t dev, char *msg,
			  u32 *role, bool *readd)
{
	struct stria_member tmp = { }, *sp, *m;
	struct stria_sb *sb;
	int ret;
	u32 i;

	lockdep_assert_held(&stria_arrays_lock);
	*role = STRIA_NO_MEMBER;
	*readd = false;
	if (!stria_geom_nr_parity(&a->geom)) {
		snprintf(msg, STRIA_MSG_LEN, "array '%s' is raid0: spares are for raid5 and raid6, which can rebuild a member",
			 a->name);
		return -EINVAL;
	}
	mutex_lock(&a->cfg_lock);
	m = stria_find_dev(a, dev);
	if (m) {
		if (m->role == STRIA_SB_ROLE_SPARE)
			snprintf(msg, STRIA_MSG_LEN, "%pg is a spare of array '%s' already",
				 m->dev.bdev, a->name);
		else if (READ_ONCE(m->state) == STRIA_STATE_FAILED)
			snprintf(msg, STRIA_MSG_LEN, "%pg is failed member %u of '%s': remove it first (striactl remove), then add it back",
				 m->dev.bdev, m->role, a->name);
		else
			snprintf(msg, STRIA_MSG_LEN, "%pg is member %u of array '%s' already",
				 m->dev.bdev, m->role, a->name);
		ret = -EEXIST;
		goto out_unlock;
	}
	if (a->nr_spares >= STRIA_MAX_SPARES) {
		snprintf(msg, STRIA_MSG_LEN, "array '%s' has %u spares, the most it can hold",
			 a->name, a->nr_spares);
		ret = -ENOSPC;
		goto out_unlock;
	}
	ret = stria_spare_open(a, dev, &tmp, msg);
	if (ret)
		goto out_unlock;
	tmp.array = a;
	tmp.role = STRIA_SB_ROLE_SPARE;
	tmp.state = STRIA_STATE_SPARE;
	tmp.node = tmp.dev.bdev->bd_disk->node_id;
	tmp.dev_sectors = bdev_nr_sectors(tmp.dev.bdev);
	generate_random_uuid(tmp.uuid);
	stria_readd_check(a, &tmp);

	/* its own superblock first: a spare that cannot be written is none */
	ret = -ENOMEM;
	sb = kmalloc(sizeof(*sb), GFP_KERNEL);
	if (sb) {
		mutex_lock(&a->sb_lock);
		stria_sb_fill(sb, a, &tmp, STRIA_SB_STATE_ACTIVE);
		ret = stria_sb_write(tmp.dev.bdev, sb);
		if (!ret) {
			sp = &a->spares[a->nr_spares++];
			*sp = tmp;
		}
		mutex_unlock(&a->sb_lock);
		kfree(sb);
	}
	if (ret) {
		snprintf(msg, STRIA_MSG_LEN, "cannot write the spare superblock of %pg: error %d",
			 tmp.dev.bdev, ret);
		stria_bdev_close(&tmp.dev);
		goto out_unlock;
	}
	stria_link_holder(a, sp);
	stria_bitmap_add(a, sp);
	trace_stria_spare(a->index, dev, true);
	pr_info("stria%d: %pg added to '%s' as a spare\n", a->index,
		sp->dev.bdev, a->name);
	stria_array_update_sbs(a);
	stria_sync_kick(a, false);
	for (i = 0; i < a->nr_members; i++) {
		if (stria_member_devt(&a->members[i]) != dev)
			continue;
		*role = i;
		*readd = a->members[i].readd;
	}
	ret = 0;
out_unlock:
	mutex_unlock(&a->cfg_lock);
	return ret;
}

/* Zero the superblock of a spare leaving the array: it is no spare now. */
static void stria_sb_erase(struct stria_array *a, struct stria_member *sp)
{
	struct stria_sb *sb = kzalloc(sizeof(*sb), GFP_KERNEL);

	if (!sb || stria_sb_write(sp->dev.bdev, sb))
		pr_warn("stria%d: could not erase the spare superblock of %pg\n",
			a->index, sp->dev.bdev);
	kfree(sb);
}

/**
 * stria_array_remove() - release a spare, or a failed member's device
 * @a: the array
 * @dev: the device
 * @msg: STRIA_MSG_LEN bytes for the reason on failure
 * @role: set to the role of a failed member, STRIA_NO_MEMBER for a spare
 *
 * Caller holds stria_arrays_lock. A spare's superblock is erased; a failed
 * member's is left alone (it is stale, and assembly leaves it out), and
 * its role keeps no device. The other superblocks are written (events + 1).
 *
 * Return: 0, -EINVAL on RAID0, -ENODEV when @dev is neither a member nor a
 * spare, -EBUSY for a member in use.
 */
int stria_array_remove(struct stria_array *a, dev_t dev, char *msg,
		       u32 *role)
{
	struct stria_member old, *m;
	unsigned int memflags;
	u32 i;
	int ret = 0;

	lockdep_assert_held(&stria_arrays_lock);
	*role = STRIA_NO_MEMBER;
	if (!stria_geom_nr_parity(&a->geom)) {
		snprintf(msg, STRIA_MSG_LEN, "array '%s' is raid0: it has no spares, and a failed raid0 array can only be stopped",
			 a->name);
		return -EINVAL;
	}
	mutex_lock(&a->cfg_lock);
	m = stria_find_dev(a, dev);
	if (!m) {
		snprintf(msg, STRIA_MSG_LEN, "device %u:%u is neither a member nor a spare of array '%s' (stria%d)",
			 MAJOR(dev), MINOR(dev), a->name, a->index);
		ret = -ENODEV;
		goto out_unlock;
	}
	if (m->role == STRIA_SB_ROLE_SPARE) {
		mutex_lock(&a->sb_lock);
		old = *m;
		i = m - a->spares;
		memmove(&a->spares[i], &a->spares[i + 1],
			(a->nr_spares - i - 1) * sizeof(*m));
		a->nr_spares--;
		memset(&a->spares[a->nr_spares], 0, sizeof(*m));
		mutex_unlock(&a->sb_lock);
		stria_sb_erase(a, &old);
		pr_info("stria%d: spare %pg removed from '%s'\n", a->index,
			old.dev.bdev, a->name);
	} else if (READ_ONCE(m->state) != STRIA_STATE_FAILED) {
		*role = m->role;
		snprintf(msg, STRIA_MSG_LEN, "member %u (%pg) of '%s' is %s: fail it first (striactl fail)",
			 m->role, m->dev.bdev, a->name,
			 READ_ONCE(m->state) == STRIA_STATE_REBUILDING ?
			 "being rebuilt" : "active");
		ret = -EBUSY;
		goto out_unlock;
	} else {
		*role = m->role;
		/* no request, no sync stripe may still use the device */
		memflags = stria_freeze_queue(a->disk->queue);
		down_write(&a->sync.stripe_sem);
		mutex_lock(&a->sb_lock);
		old = *m;
		m->dev.bdev = NULL;
		m->dev.handle = NULL;
		m->linked = false;
		m->node = NUMA_NO_NODE;
		m->dev_sectors = 0;
		mutex_unlock(&a->sb_lock);
		up_write(&a->sync.stripe_sem);
		stria_unfreeze_queue(a->disk->queue, memflags);
		pr_info("stria%d: failed member %u (%pg) removed from '%s'; the role has no device now\n",
			a->index, old.role, old.dev.bdev, a->name);
	}
	trace_stria_spare(a->index, dev, false);
	stria_unlink_holder(a, &old);
	stria_bdev_close(&old.dev);
	stria_array_update_sbs(a);
out_unlock:
	mutex_unlock(&a->cfg_lock);
	return ret;
}

/*
 * Can member @m of @a be replaced now? Fills @msg when not. Caller holds
 * @a->cfg_lock.
 */
static int stria_replace_check(struct stria_array *a, struct stria_member *m,
			       dev_t dev, char *msg)
{
	struct stria_sync *s = &a->sync;

	if (!m) {
		snprintf(msg, STRIA_MSG_LEN, "device %u:%u is not a member of array '%s' (stria%d)",
			 MAJOR(dev), MINOR(dev), a->name, a->index);
		return -ENODEV;
	}
	if (m->role == STRIA_SB_ROLE_SPARE) {
		snprintf(msg, STRIA_MSG_LEN, "%pg is a spare of array '%s': give the member to replace",
			 m->dev.bdev, a->name);
		return -EINVAL;
	}
	if (READ_ONCE(m->state) != STRIA_STATE_ACTIVE) {
		snprintf(msg, STRIA_MSG_LEN, "member %u (%pg) of '%s' is %s: only an active member can be replaced (a spare rebuilds a failed one)",
			 m->role, m->dev.bdev, a->name,
			 READ_ONCE(m->state) == STRIA_STATE_REBUILDING ?
			 "being rebuilt" : "failed");
		return -EINVAL;
	}
	if (atomic_read(&a->nr_failed)) {
		snprintf(msg, STRIA_MSG_LEN, "array '%s' is %s: a replace needs every member in sync",
			 a->name, stria_array_rebuilding_roles(a) ?
			 "being rebuilt" : "degraded");
		return -EINVAL;
	}
	if (READ_ONCE(a->stopping)) {
		snprintf(msg, STRIA_MSG_LEN, "array '%s' is stopping", a->name);
		return -ENXIO;
	}
	if (s->action != STRIA_SYNC_IDLE) {
		snprintf(msg, STRIA_MSG_LEN, "a %s of '%s' is running: wait for it (striactl wait), or stop a scrub first",
			 stria_sync_action_name(s->action), a->name);
		return -EBUSY;
	}
	return 0;
}

/**
 * stria_array_replace() - start copying a member to a replacement
 * @a: the array
 * @dev: the member's device
 * @with: the replacement: a spare of @a, a device to add as a spare
 *	first, or 0 for the spare added last
 * @msg: STRIA_MSG_LEN bytes for the reason on failure
 * @role: set to the member's role once it is found
 *
 * Caller holds stria_arrays_lock. The replacement leaves the spares, gets
 * every write the member gets from now on, and a sync (STRIA_SYNC_REPLACE)
 * copies the member to it; stria_array_replace_end() ends it.
 *
 * Return: 0; -EINVAL on RAID0, for a member not active, a degraded array,
 * or a @with that is a member; -ENODEV when @dev is no member; -ENOSPC
 * when there is no spare; -EBUSY while a sync runs; -ENXIO while the array
 * stops; or the error of adding @with.
 */
int stria_array_replace(struct stria_array *a, dev_t dev, dev_t with,
			char *msg, u32 *role)
{
	struct stria_member *m, *sp = NULL, repl;
	unsigned int memflags;
	bool readd;
	u32 si, r;
	int ret;

	lockdep_assert_held(&stria_arrays_lock);
	*role = STRIA_NO_MEMBER;
	if (!stria_geom_nr_parity(&a->geom) || !a->ops->sync_stripe) {
		snprintf(msg, STRIA_MSG_LEN, "array '%s' is raid0: a member can be replaced in raid5 and raid6 arrays, which can rebuild one",
			 a->name);
		return -EINVAL;
	}
	mutex_lock(&a->cfg_lock);
	m = stria_find_dev(a, dev);
	ret = stria_replace_check(a, m, dev, msg);
	if (ret)
		goto out_unlock;
	*role = m->role;
	if (with == dev) {
		snprintf(msg, STRIA_MSG_LEN, "%pg cannot replace itself", m->dev.bdev);
		ret = -EINVAL;
		goto out_unlock;
	}
	if (with) {
		sp = stria_find_dev(a, with);
		if (sp && sp->role != STRIA_SB_ROLE_SPARE) {
			snprintf(msg, STRIA_MSG_LEN, "%pg is member %u of '%s': the replacement must be a spare or a new device",
				 sp->dev.bdev, sp->role, a->name);
			ret = -EINVAL;
			goto out_unlock;
		}
		if (!sp) {
			/* not degraded: it stays a spare */
			mutex_unlock(&a->cfg_lock);
			ret = stria_array_add_spare(a, with, msg, &r, &readd);
			if (ret)
				return ret;
			mutex_lock(&a->cfg_lock);
			m = stria_find_dev(a, dev);
			ret = stria_replace_check(a, m, dev, msg);
			if (ret)
				goto out_unlock;
			sp = stria_find_dev(a, with);
			if (!sp || sp->role != STRIA_SB_ROLE_SPARE) {
				snprintf(msg, STRIA_MSG_LEN, "device %u:%u left the spares of '%s' meanwhile",
					 MAJOR(with), MINOR(with), a->name);
				ret = -EAGAIN;
				goto out_unlock;
			}
		}
	} else if (!a->nr_spares) {
		snprintf(msg, STRIA_MSG_LEN, "array '%s' has no spare: add one (striactl add), or name the new device (--with)",
			 a->name);
		ret = -ENOSPC;
		goto out_unlock;
	} else {
		sp = &a->spares[a->nr_spares - 1];
	}
	si = sp - a->spares;

	/* no request, no sync stripe may see the replacement half set up */
	memflags = stria_freeze_queue(a->disk->queue);
	down_write(&a->sync.stripe_sem);
	mutex_lock(&a->sb_lock);
	repl = *sp;
	memmove(sp, sp + 1, (a->nr_spares - si - 1) * sizeof(*sp));
	a->nr_spares--;
	memset(&a->spares[a->nr_spares], 0, sizeof(*sp));
	a->repl = repl;
	a->repl.readd = false;
	a->repl.state = STRIA_STATE_REPLACEMENT;
	WRITE_ONCE(a->repl_role, m->role);
	mutex_unlock(&a->sb_lock);
	up_write(&a->sync.stripe_sem);
	stria_unfreeze_queue(a->disk->queue, memflags);
	pr_info("stria%d: member %u (%pg) is copied to %pg, which then replaces it\n",
		a->index, m->role, m->dev.bdev, a->repl.dev.bdev);
	stria_sync_replace_start(a);
out_unlock:
	mutex_unlock(&a->cfg_lock);
	return ret;
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
 * stria_array_replace_end() - the copy of a replace is over
 * @a: the array
 * @ret: how the copy ended: 0 when it reached the end
 * @pos: where it got to, member sectors
 *
 * Caller holds @a->cfg_lock; the sync worker, with no stripe in flight. On
 * success the replacement takes the member's role (the queue is frozen
 * until the superblocks say so) and the old device is released with its
 * superblock erased. Else the replacement is a spare again, or is released
 * when it failed.
 *
 * Return: @ret, or -EIO when the replacement could not flush its cache.
 */
int stria_array_replace_end(struct stria_array *a, int ret, u64 pos)
{
	u32 r = a->repl_role;
	struct stria_member *m = &a->members[r], old = { }, repl;
	unsigned int memflags;

	lockdep_assert_held(&a->cfg_lock);
	if (!ret && blkdev_issue_flush(a->repl.dev.bdev)) {
		stria_repl_failed(a, BLK_STS_IOERR);
		ret = -EIO;
	}
	if (!ret && !stria_member_in_sync(m))
		ret = -EIO;
	memflags = stria_freeze_queue(a->disk->queue);
	down_write(&a->sync.stripe_sem);
	mutex_lock(&a->sb_lock);
	repl = a->repl;
	WRITE_ONCE(a->repl_role, STRIA_NO_MEMBER);
	memset(&a->repl, 0, sizeof(a->repl));
	if (!ret) {
		old = *m;
		m->dev = repl.dev;
		m->node = repl.node;
		m->dev_sectors = repl.dev_sectors;
		m->linked = repl.linked;
		memcpy(m->uuid, repl.uuid, STRIA_UUID_LEN);
		atomic64_set(&m->errors, 0);
		atomic64_set(&m->read_repairs, 0);
	} else if (repl.state == STRIA_STATE_REPLACEMENT &&
		   a->nr_spares < STRIA_MAX_SPARES) {
		repl.state = STRIA_STATE_SPARE;
		a->spares[a->nr_spares++] = repl;
		repl.dev.bdev = NULL;
	}
	mutex_unlock(&a->sb_lock);
	up_write(&a->sync.stripe_sem);
	/* the superblocks name the new member before a write reaches it alone */
	if (!ret)
		stria_array_update_sbs(a);
	stria_unfreeze_queue(a->disk->queue, memflags);
	if (!ret) {
		stria_bitmap_add(a, m);
		pr_info("stria%d: member %u replaced: %pg holds it now, %pg is released\n",
			a->index, r, m->dev.bdev, old.dev.bdev);
		stria_sb_erase(a, &old);
		stria_unlink_holder(a, &old);
		stria_bdev_close(&old.dev);
		return 0;
	}
	if (repl.dev.bdev) {
		pr_warn("stria%d: the replace of member %u stopped at %llu of %llu sectors: %pg failed and is released\n",
			a->index, r, pos, a->geom.member_sectors, repl.dev.bdev);
		stria_unlink_holder(a, &repl);
		stria_bdev_close(&repl.dev);
	} else {
		pr_info("stria%d: the replace of member %u stopped at %llu of %llu sectors: %pg is a spare again\n",
			a->index, r, pos, a->geom.member_sectors,
			a->spares[a->nr_spares - 1].dev.bdev);
	}
	stria_array_update_sbs(a);
	return ret;
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
 */
unsigned int stria_array_count(void)
{
	struct stria_array *a;
	unsigned int n = 0;

	mutex_lock(&stria_arrays_lock);
	list_for_each_entry(a, &stria_arrays, list)
		n++;
	mutex_unlock(&stria_arrays_lock);
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
