// SPDX-License-Identifier: GPL-2.0
/*
 * stria member management: fail on request, spares, add, remove, replace.
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
 * The requests (fail, add, remove, replace) come from ctl.c with
 * stria_arrays_lock held; the ends of a rebuild or a copy come from the sync
 * worker with the array's cfg_lock held. The member and spare tables change
 * under cfg_lock and sb_lock together; array.c gives the lock order. Each
 * function says what its caller holds.
 *
 * Layer: the lifecycle, on top (Documentation/stria/layers.rst,
 * drivers/stria/layers.map); sync asks it for role changes through
 * stria_members_roles.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/mutex.h>
#include <linux/slab.h>

#include "stria.h"
#include "trace.h"

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
	bool lost;
	int ret = 0;

	lockdep_assert_held(&stria_arrays_lock);
	ret = stria_cfg_lock(a, msg);
	if (ret)
		return ret;
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
	lost = !stria_geom_survives(&a->geom, stria_array_missing(a) |
				    BIT_ULL(m->role));
	if (lost && !force) {
		if (stria_geom_mirror(&a->geom))
			snprintf(msg, STRIA_MSG_LEN, "failing member %u (%pg) would leave chunks of '%s' with no copy in sync (raid%u, layout %s)",
				 m->role, m->dev.bdev, a->name, a->geom.level,
				 stria_parity_layout_name(a->geom.level,
							  a->geom.layout));
		else if (!tol)
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
		m->role, m->dev.bdev, lost ? ", beyond what the array tolerates" : "");
	stria_member_set_state(m, STRIA_STATE_FAILED);
	/*
	 * From here on a spare may take the role: only m->role is used.
	 * Writes that skip the member are held until the superblocks below
	 * record it.
	 */
	mutex_unlock(&a->cfg_lock);
	mutex_lock(&a->sb_lock);
	ret = stria_array_sync_failed(a);
	mutex_unlock(&a->sb_lock);
	/* a write error above failed another member: record that too */
	flush_work(&a->sb_work);
	flush_work(&a->kick_work);
	if (ret)
		snprintf(msg, STRIA_MSG_LEN, "member %u failed, but a superblock could not be written: error %d",
			 *role, ret);
	return ret;

out_unlock:
	mutex_unlock(&a->cfg_lock);
	return ret;
}

/**
 * stria_spare_into() - a spare moves into a role, to be rebuilt
 * @a: the array
 * @m: the role's entry in @a->members
 * @si: the spare's index in @a->spares
 *
 * The spare leaves the spare table. Caller holds @a->cfg_lock and
 * @a->sb_lock, with the queue frozen; @m's old device, if any, is the
 * caller's to release.
 */
void stria_spare_into(struct stria_array *a, struct stria_member *m, u32 si)
{
	struct stria_member *sp = &a->spares[si];

	m->dev = sp->dev;
	m->node = sp->node;
	m->dev_sectors = sp->dev_sectors;
	m->linked = sp->linked;
	m->readd = sp->readd;
	memcpy(m->uuid, sp->uuid, STRIA_UUID_LEN);
	atomic64_set(&m->errors, 0);
	atomic64_set(&m->read_repairs, 0);
	atomic64_set(&m->read_errors, 0);
	stria_member_set_state(m, STRIA_STATE_REBUILDING);
	memmove(sp, sp + 1, (a->nr_spares - si - 1) * sizeof(*sp));
	a->nr_spares--;
	memset(&a->spares[a->nr_spares], 0, sizeof(*sp));
}

/*
 * Spare @si takes the failed role @m, with the queue frozen; the failed
 * device is released. Caller holds @a->cfg_lock; no sync runs.
 */
static void stria_spare_take_role(struct stria_array *a,
				  struct stria_member *m, u32 si)
{
	struct stria_member old = *m;
	unsigned int memflags;

	memflags = stria_array_freeze(a);
	mutex_lock(&a->sb_lock);
	stria_spare_into(a, m, si);
	mutex_unlock(&a->sb_lock);
	stria_array_unfreeze(a, memflags);
	stria_array_update_limits(a);
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

/*
 * The member, spare or replacement that is device @dev, or NULL. Caller
 * holds @a->cfg_lock.
 */
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
	if (a->repl_role != STRIA_NO_MEMBER && stria_member_devt(&a->repl) == dev)
		return &a->repl;
	return NULL;
}

/*
 * Is @m the replacement of a running replace? Then it is none of @a's
 * spares any more and may take no other place: fills @msg and returns
 * true.
 */
static bool stria_is_repl(struct stria_array *a, struct stria_member *m,
			  char *msg)
{
	if (m != &a->repl)
		return false;
	snprintf(msg, STRIA_MSG_LEN, "%pg is replacing member %u of array '%s': wait for the replace to end, or end it first (striactl scrub NAME stop)",
		 m->dev.bdev, a->repl_role, a->name);
	return true;
}

/* Open @dev as a spare of @a and check it; fills @sp->dev. */
static int stria_spare_open(struct stria_array *a, dev_t dev,
			    struct stria_member *sp, char *msg)
{
	/* bounded by stria_geom_init(): for the message only */
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
	ret = stria_disk_stacks_on(b->bd_disk, a);
	if (ret) {
		if (b->bd_disk == a->disk)
			snprintf(msg, STRIA_MSG_LEN, "%pg is array '%s' itself",
				 b, a->name);
		else if (ret > 0)
			snprintf(msg, STRIA_MSG_LEN, "%pg is built on array '%s': it cannot hold the array it stands on",
				 b, a->name);
		else
			snprintf(msg, STRIA_MSG_LEN, "%pg: cannot tell whether it is built on array '%s' (arrays stacked too deep, or out of memory): error %d",
				 b, a->name, ret);
		ret = -EINVAL;
	} else if (!stria_range_fits(a->data_offset, a->geom.member_sectors,
				     size)) {
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
 * the array keeps a bitmap, and stria_sb_readd() finds that it was in
 * sync when it left, that it never ran without members the array holds in
 * sync (a split brain), and that it left during the array's current
 * degraded spell, since which no bit was cleared. Caller holds
 * @a->cfg_lock.
 */
static void stria_readd_check(struct stria_array *a, struct stria_member *sp)
{
	DECLARE_BITMAP(mb, STRIA_GEOM_MAX_MEMBERS);
	struct stria_sb *sb = kmalloc(sizeof(*sb), GFP_KERNEL);
	char why[STRIA_MSG_LEN];
	u64 ev, de, now, in_sync = 0;
	u32 role, i;

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
	for (i = 0; i < a->nr_members; i++)
		if (stria_member_in_sync(&a->members[i]))
			in_sync |= BIT_ULL(i);
	mutex_lock(&a->sb_lock);
	de = a->degraded_events;
	now = a->events;
	mutex_unlock(&a->sb_lock);
	if (READ_ONCE(a->members[role].state) != STRIA_STATE_FAILED) {
		pr_info("stria%d: %pg was member %u of '%s', a role another device holds now\n",
			a->index, sp->dev.bdev, role, a->name);
		goto out;
	}
	if (!a->wib) {
		pr_info("stria%d: %pg was member %u of '%s', which has no write-intent bitmap: it is rebuilt in full\n",
			a->index, sp->dev.bdev, role, a->name);
		goto out;
	}
	switch (stria_sb_readd(sb, now, de, in_sync)) {
	case STRIA_READD_PARTIAL:
		sp->readd = true;
		sp->want_role = role;
		break;
	case STRIA_READD_REBUILDING:
		pr_info("stria%d: %pg was member %u of '%s' but was being rebuilt itself: it is rebuilt in full\n",
			a->index, sp->dev.bdev, role, a->name);
		break;
	case STRIA_READD_APART:
		bitmap_from_u64(mb, (le64_to_cpu(sb->failed) |
				     le64_to_cpu(sb->rebuilding)) & in_sync);
		pr_warn("stria%d: %pg was member %u of '%s' but its superblock records members %*pbl as failed or being rebuilt, which the array holds in sync: it ran apart from the array (a split brain) or left before they were back, and is rebuilt in full\n",
			a->index, sp->dev.bdev, role, a->name,
			(int)STRIA_GEOM_MAX_MEMBERS, mb);
		break;
	default:
		if (!de || ev < de)
			pr_info("stria%d: %pg was member %u of '%s' until event %llu, before the array's degraded spell (from event %llu): it is rebuilt in full\n",
				a->index, sp->dev.bdev, role, a->name, ev, de);
		else
			pr_warn("stria%d: %pg was member %u of '%s' until event %llu, but not in the array's degraded spell (from event %llu, the array at event %llu; its superblock's spell from event %llu): it ran apart from the array and is rebuilt in full\n",
				a->index, sp->dev.bdev, role, a->name, ev, de,
				now, le64_to_cpu(sb->degraded_events));
		break;
	}
out:
	kfree(sb);
}

/**
 * stria_array_add_spare() - add a device to an array as a spare
 * @a: the array
 * @dev: the device
 * @grow: for a grow: a RAID0 array takes it too (it only waits there for
 *	stria_array_grow_members())
 * @msg: STRIA_MSG_LEN bytes for the reason on failure
 * @role: set to the role the spare took at once, else STRIA_NO_MEMBER
 * @readd: set when @dev is a former member that took its old role back
 *	for a partial rebuild (see stria_readd_check())
 *
 * Caller holds stria_arrays_lock. Opens @dev exclusively with the array's
 * holder, writes its spare superblock, then every superblock (events + 1).
 * When a role has failed the spare takes it and a rebuild starts.
 *
 * Return: 0, or -EINVAL (RAID0 without @grow, the array itself), -ENOSPC (too small,
 * too many spares), -EEXIST (already in the array), -EBUSY (in use), an
 * open error, or the error of the spare's superblock write.
 */
int stria_array_add_spare(struct stria_array *a, dev_t dev, bool grow,
			  char *msg, u32 *role, bool *readd)
{
	struct stria_member tmp = { }, *sp, *m;
	struct stria_sb *sb;
	int ret;
	u32 i;

	lockdep_assert_held(&stria_arrays_lock);
	*role = STRIA_NO_MEMBER;
	*readd = false;
	if (!stria_geom_redundant(&a->geom) && !grow) {
		snprintf(msg, STRIA_MSG_LEN, "array '%s' is raid0: it rebuilds nothing, and takes devices only to grow (striactl grow)",
			 a->name);
		return -EINVAL;
	}
	ret = stria_cfg_lock(a, msg);
	if (ret)
		return ret;
	m = stria_find_dev(a, dev);
	if (m && stria_is_repl(a, m, msg)) {
		ret = -EBUSY;
		goto out_unlock;
	}
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
	stria_event_spare_added(a, sp);
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
 * Return: 0, -EINVAL for a member of a RAID0 array, -ENODEV when @dev is
 * neither a member nor a spare, -EBUSY for a member in use.
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
	ret = stria_cfg_lock(a, msg);
	if (ret)
		return ret;
	m = stria_find_dev(a, dev);
	if (!m) {
		snprintf(msg, STRIA_MSG_LEN, "device %u:%u is neither a member nor a spare of array '%s' (stria%d)",
			 MAJOR(dev), MINOR(dev), a->name, a->index);
		ret = -ENODEV;
		goto out_unlock;
	}
	/* a raid0's spares only wait for a grow */
	if (!stria_geom_redundant(&a->geom) && m->role != STRIA_SB_ROLE_SPARE) {
		snprintf(msg, STRIA_MSG_LEN, "array '%s' is raid0: only spares added for a grow go; a failed raid0 array can only be stopped",
			 a->name);
		ret = -EINVAL;
		goto out_unlock;
	}
	if (stria_is_repl(a, m, msg)) {
		ret = -EBUSY;
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
		memflags = stria_array_freeze(a);
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
		stria_array_unfreeze(a, memflags);
		stria_array_update_limits(a);
		pr_info("stria%d: failed member %u (%pg) removed from '%s'; the role has no device now\n",
			a->index, old.role, old.dev.bdev, a->name);
	}
	trace_stria_spare(a->index, dev, false);
	stria_event_member_removed(a, &old);
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
	if (stria_is_repl(a, m, msg))
		return -EBUSY;
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
	if (!stria_geom_redundant(&a->geom) || !a->ops->sync_stripe) {
		snprintf(msg, STRIA_MSG_LEN, "array '%s' is raid0: replace needs a level that can rebuild a member (raid1, 5, 6 or 10)",
			 a->name);
		return -EINVAL;
	}
	ret = stria_cfg_lock(a, msg);
	if (ret)
		return ret;
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
		if (sp && stria_is_repl(a, sp, msg)) {
			ret = -EBUSY;
			goto out_unlock;
		}
		if (sp && sp->role != STRIA_SB_ROLE_SPARE) {
			snprintf(msg, STRIA_MSG_LEN, "%pg is member %u of '%s': the replacement must be a spare or a new device",
				 sp->dev.bdev, sp->role, a->name);
			ret = -EINVAL;
			goto out_unlock;
		}
		if (!sp) {
			/* not degraded: it stays a spare */
			mutex_unlock(&a->cfg_lock);
			ret = stria_array_add_spare(a, with, false, msg, &r, &readd);
			if (ret)
				return ret;
			mutex_lock(&a->cfg_lock);
			m = stria_find_dev(a, dev);
			ret = stria_replace_check(a, m, dev, msg);
			if (ret)
				goto out_unlock;
			sp = stria_find_dev(a, with);
			if (!sp || sp == &a->repl ||
			    sp->role != STRIA_SB_ROLE_SPARE) {
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
	memflags = stria_array_freeze(a);
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
	stria_array_unfreeze(a, memflags);
	pr_info("stria%d: member %u (%pg) is copied to %pg, which then replaces it\n",
		a->index, m->role, m->dev.bdev, a->repl.dev.bdev);
	/* a mirror's replacement gets writes: what it cannot take is not offered */
	stria_array_update_limits(a);
	stria_sync_replace_start(a);
out_unlock:
	mutex_unlock(&a->cfg_lock);
	return ret;
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
 * The copy looks at the replacement before each stripe only, and user
 * writes go on until the queue is frozen: the replacement may fail one
 * after the copy's last look. So the swap is decided with the queue
 * frozen, when every write the member got has ended: the replacement must
 * not have failed one, and must flush its cache. Else the swap is refused
 * and the member stays in service.
 *
 * Return: @ret, or -EIO when the replacement failed a write or could not
 * flush its cache, or the member failed.
 */
int stria_array_replace_end(struct stria_array *a, int ret, u64 pos)
{
	u32 r = a->repl_role;
	struct stria_member *m = &a->members[r], old = { }, repl;
	const char *refused = NULL;
	unsigned int memflags;

	lockdep_assert_held(&a->cfg_lock);
	memflags = stria_array_freeze(a);
	down_write(&a->sync.stripe_sem);
	if (!ret && blkdev_issue_flush(a->repl.dev.bdev)) {
		stria_repl_failed(a, BLK_STS_IOERR);
		refused = "could not flush its cache";
	} else if (!ret &&
		   READ_ONCE(a->repl.state) != STRIA_STATE_REPLACEMENT) {
		refused = "failed a write during the copy";
	}
	if (refused || (!ret && !stria_member_in_sync(m)))
		ret = -EIO;
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
		atomic64_set(&m->read_errors, 0);
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
	stria_array_unfreeze(a, memflags);
	/* the new member's, or no replacement's any more */
	stria_array_update_limits(a);
	if (!ret) {
		stria_bitmap_add(a, m);
		stria_event_member_added(a, m);
		pr_info("stria%d: member %u replaced: %pg holds it now, %pg is released\n",
			a->index, r, m->dev.bdev, old.dev.bdev);
		stria_sb_erase(a, &old);
		stria_unlink_holder(a, &old);
		stria_bdev_close(&old.dev);
		return 0;
	}
	if (refused)
		pr_warn("stria%d: the replace of member %u is refused: %pg %s; %pg stays in service, %pg is released\n",
			a->index, r, repl.dev.bdev, refused, m->dev.bdev,
			repl.dev.bdev);
	if (repl.dev.bdev) {
		if (!refused)
			pr_warn("stria%d: the replace of member %u stopped at %llu of %llu sectors: %pg failed and is released\n",
				a->index, r, pos, a->geom.member_sectors,
				repl.dev.bdev);
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

/* what sync asks of the lifecycle, through the array (struct stria_roles_ops) */
const struct stria_roles_ops stria_members_roles = {
	.take_spares = stria_array_take_spares,
	.replace_end = stria_array_replace_end,
};
