// SPDX-License-Identifier: GPL-2.0
/*
 * stria grow: a running array takes more copies (RAID1), gets or loses
 * its write-intent bitmap, or uses more of larger members.
 *
 * Each grow is checked first (a request may ask for the check alone,
 * STRIA_GROW_F_CHECK), then made with the queue frozen, so that no
 * request is in flight across the change, and recorded in the superblocks
 * before any write goes on. Documentation/stria/sync.rst says why each is
 * safe against a crash at any point.
 *
 * The requests come from ctl.c with stria_arrays_lock held; each takes
 * the array's cfg_lock.
 *
 * Layer: the lifecycle (Documentation/stria/layers.rst,
 * drivers/stria/layers.map), beside members.c, whose spares it uses.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/mutex.h>

#include "stria.h"

/*
 * Is a sync running, or a resync owed? Then @a cannot @what now: fills
 * @msg and returns -EBUSY. Caller holds @a->cfg_lock.
 */
static int stria_grow_busy(struct stria_array *a, const char *what, char *msg)
{
	u32 action = READ_ONCE(a->sync.action);

	if (action != STRIA_SYNC_IDLE) {
		snprintf(msg, STRIA_MSG_LEN, "a %s runs on '%s': wait for it (striactl wait), or stop the scrub, then %s",
			 stria_sync_action_name(action), a->name, what);
		return -EBUSY;
	}
	if (stria_resync_owed(a)) {
		snprintf(msg, STRIA_MSG_LEN, "'%s' owes a resync (it was not stopped cleanly): %s once it is done",
			 a->name, what);
		return -EBUSY;
	}
	return 0;
}

/*
 * May @a grow to @nr members now (@check: given the spares)? Fills @msg
 * and returns the error when not. Caller holds @a->cfg_lock.
 */
static int stria_grow_check(struct stria_array *a, u32 nr, bool check,
			    char *msg)
{
	u32 old = a->nr_members;
	int ret = stria_grow_busy(a, "grow", msg);

	if (ret)
		return ret;
	if (atomic_read(&a->nr_failed)) {
		snprintf(msg, STRIA_MSG_LEN, "'%s' is degraded (%d of %u members not in sync): rebuild it first, then grow",
			 a->name, atomic_read(&a->nr_failed), old);
		return -EINVAL;
	}
	if (!check && a->nr_spares < nr - old) {
		snprintf(msg, STRIA_MSG_LEN, "'%s' has %u spares, %u more members take %u: add devices (grow --add DEV)",
			 a->name, a->nr_spares, nr - old, nr - old);
		return -ENOSPC;
	}
	return 0;
}

/*
 * Roles @old .. @nr - 1 taken by the spares added last, in the order they
 * were added, in @state. Caller holds @a->cfg_lock and @a->sb_lock, with
 * the queue frozen, and publishes the count after.
 */
static void stria_grow_take_spares(struct stria_array *a, u32 old, u32 nr,
				   u32 state)
{
	u32 r;

	for (r = old; r < nr; r++) {
		struct stria_member *m = &a->members[r];

		memset(m, 0, sizeof(*m));
		m->array = a;
		m->role = r;
		m->state = STRIA_STATE_SPARE;
		stria_spare_into(a, m, a->nr_spares - (nr - r));
		if (state != STRIA_STATE_REBUILDING)
			stria_member_set_state(m, state);
	}
}

/*
 * RAID0 onto @nr members: the spares added last take the new roles, the
 * geometry becomes the new one with the old kept for the rows not moved
 * yet, all with the queue frozen; the superblocks record the reshape
 * (the added members' first, stria_write_sbs_now()) before anything
 * moves, and the sync "reshape" moves the rows (reshape.c). Caller holds
 * stria_arrays_lock.
 */
static int stria_grow_restripe(struct stria_array *a, u32 nr, bool check,
			       char *msg)
{
	u32 old = a->nr_members;
	struct stria_reshape_plan plan;
	unsigned int memflags;
	struct stria_geom g;
	int ret;

	if (nr <= old || nr > a->max_members) {
		snprintf(msg, STRIA_MSG_LEN, "'%s' has %u members: it can grow to %u..%u",
			 a->name, old, old + 1, a->max_members);
		return -EINVAL;
	}
	if (stria_geom_setup(&g, 0, 0, nr, 1U << a->geom.chunk_shift,
			     a->geom.member_sectors)) {
		snprintf(msg, STRIA_MSG_LEN, "raid0 of %u members of %llu sectors is no valid geometry",
			 nr, a->geom.member_sectors);
		return -EINVAL;
	}
	ret = stria_reshape_plan_init(&plan, old, nr, nr - old,
				      a->geom.member_sectors >> a->geom.chunk_shift);
	if (ret) {
		snprintf(msg, STRIA_MSG_LEN, "'%s': members too small to back up the first rows from %u to %u; add more at once",
			 a->name, old, nr);
		return ret;
	}
	ret = stria_cfg_lock(a, msg);
	if (ret)
		return ret;
	if (a->reshaping) {
		snprintf(msg, STRIA_MSG_LEN, "'%s' is being restriped already: wait for it (striactl wait)",
			 a->name);
		ret = -EBUSY;
		goto out_unlock;
	}
	ret = stria_grow_check(a, nr, check, msg);
	if (ret || check)
		goto out_unlock;
	/* the buffer, the plan and the old geometry, before anything changes */
	ret = stria_reshape_setup(a, &g, old, 0, false);
	if (ret) {
		snprintf(msg, STRIA_MSG_LEN, "cannot set up the restripe of '%s': error %d",
			 a->name, ret);
		goto out_unlock;
	}
	memflags = stria_array_freeze(a);
	mutex_lock(&a->sb_lock);
	/* they hold nothing yet, and nothing is read from them before they do */
	stria_grow_take_spares(a, old, nr, STRIA_STATE_ACTIVE);
	a->geom = g;
	WRITE_ONCE(a->reshaping, true);
	/* the new entries are whole before a reader without the lock counts them */
	smp_store_release(&a->nr_members, nr);
	mutex_unlock(&a->sb_lock);
	stria_array_unfreeze(a, memflags);
	stria_array_update_limits(a);
	pr_info("stria%d: '%s' is restriped from %u to %u members (%llu rows, the first %llu through a backup)\n",
		a->index, a->name, old, nr, plan.rows_new, plan.critical);
	/* records the reshape before anything moves, then starts it */
	ret = stria_array_update_sbs(a);
	if (!ret)
		stria_sync_kick(a, false);
out_unlock:
	mutex_unlock(&a->cfg_lock);
	return ret;
}

/**
 * stria_array_grow_members() - add copies to a RAID1 array
 * @a: the array
 * @nr: the member count to grow to
 * @check: change nothing, only say whether it would be refused for
 *	anything but the spares it lacks
 * @msg: STRIA_MSG_LEN bytes for the reason on failure
 *
 * A RAID1 member holds all the data at the same offsets whatever the
 * member count, so a new role is a member to rebuild: the spares added
 * last take roles nr_members .. @nr - 1, in the order they were added,
 * with the queue frozen, in the state rebuilding; then the superblocks
 * record the new count and the roles being rebuilt, and the rebuild
 * copies the data to them. A crash while the superblocks are written
 * leaves some one update behind with the old count, which assembly takes
 * (stria_sb_count_follows()).
 *
 * Caller holds stria_arrays_lock; @a is read-write.
 *
 * Return: 0; -EOPNOTSUPP (not RAID1), -EINVAL (a count out of range, a
 * degraded array), -EBUSY (a sync runs or a resync is owed), -ENOSPC (too
 * few spares), -EINTR; nothing changed then.
 */
int stria_array_grow_members(struct stria_array *a, u32 nr, bool check,
			     char *msg)
{
	u32 old = a->nr_members;
	unsigned int memflags;
	struct stria_geom g;
	int ret;

	lockdep_assert_held(&stria_arrays_lock);
	if (a->geom.level == 0)
		return stria_grow_restripe(a, nr, check, msg);
	if (a->geom.level != 1) {
		snprintf(msg, STRIA_MSG_LEN, "'%s' is raid%u: only raid0 (restriped) and raid1 (copies) take more members yet",
			 a->name, a->geom.level);
		return -EOPNOTSUPP;
	}
	if (old >= a->max_members) {
		snprintf(msg, STRIA_MSG_LEN, "'%s' has %u members, the most copies raid1 keeps",
			 a->name, old);
		return -EINVAL;
	}
	if (nr <= old || nr > a->max_members) {
		snprintf(msg, STRIA_MSG_LEN, "'%s' has %u members: it can grow to %u..%u (raid1 copies)",
			 a->name, old, old + 1, a->max_members);
		return -EINVAL;
	}
	if (stria_geom_setup(&g, 1, stria_r10_layout(nr, 1, false), nr,
			     1U << a->geom.chunk_shift, a->geom.member_sectors)) {
		snprintf(msg, STRIA_MSG_LEN, "raid1 of %u members of %llu sectors is no valid geometry",
			 nr, a->geom.member_sectors);
		return -EINVAL;
	}
	ret = stria_cfg_lock(a, msg);
	if (ret)
		return ret;
	ret = stria_grow_check(a, nr, check, msg);
	if (ret || check)
		goto out_unlock;
	memflags = stria_array_freeze(a);
	mutex_lock(&a->sb_lock);
	stria_grow_take_spares(a, old, nr, STRIA_STATE_REBUILDING);
	a->geom = g;
	a->sync.rebuild_ckpt = 0;
	/* the new entries are whole before a reader without the lock counts them */
	smp_store_release(&a->nr_members, nr);
	mutex_unlock(&a->sb_lock);
	stria_array_unfreeze(a, memflags);
	stria_array_update_limits(a);
	pr_info("stria%d: '%s' grows from %u to %u members (copies); the new ones are rebuilt\n",
		a->index, a->name, old, nr);
	/* records the new count and starts the rebuild */
	stria_sync_kick(a, false);
out_unlock:
	mutex_unlock(&a->cfg_lock);
	return ret;
}

/*
 * May @a's bitmap be added (@on) or removed now? Fills @msg and returns
 * the error when not. Caller holds @a->cfg_lock.
 */
static int stria_grow_bitmap_check(struct stria_array *a, bool on, char *msg)
{
	int ret;

	if (on && a->wib) {
		snprintf(msg, STRIA_MSG_LEN, "'%s' has a write-intent bitmap already (%u-sector regions): remove it first",
			 a->name, stria_bitmap_chunk(a));
		return -EEXIST;
	}
	if (!on && !a->wib) {
		snprintf(msg, STRIA_MSG_LEN, "'%s' has no write-intent bitmap to remove",
			 a->name);
		return -EINVAL;
	}
	ret = stria_grow_busy(a, "change the bitmap", msg);
	if (ret)
		return ret;
	if (on && atomic_read(&a->nr_failed)) {
		snprintf(msg, STRIA_MSG_LEN, "'%s' is degraded: a bitmap added now could not say what the missing members missed; rebuild first",
			 a->name);
		return -EINVAL;
	}
	return 0;
}

/**
 * stria_array_grow_bitmap() - add or remove a running array's bitmap
 * @a: the array, RAID1, 5, 6 or 10, read-write
 * @on: add a bitmap (else remove it)
 * @chunk: with @on, its region size in member sectors, 0 for the default
 *	(raised until the bitmap fits, as at create)
 * @check: change nothing, only say whether it would be refused
 * @msg: STRIA_MSG_LEN bytes for the reason on failure
 *
 * The change is made with the queue frozen, so no write is in flight
 * across it, and the superblocks record it before any write goes on:
 *
 * - added: the members' caches are flushed first (every write before it
 *   is durable, so no region the bitmap says is clean can hold a torn
 *   write), then the clean bitmap is written to every member and spare,
 *   and the superblocks record it; a crash before that write leaves
 *   superblocks without a bitmap, and a full resync;
 * - removed: the superblocks stop recording it first; a crash before
 *   leaves a bitmap that had every write so far.
 *
 * Caller holds stria_arrays_lock.
 *
 * Return: 0; -EINVAL (RAID0, no bitmap to remove, a degraded array, a
 * region size that does not fit), -EEXIST (a bitmap there already),
 * -EBUSY (a sync runs or a resync is owed), -ENOMEM, -EINTR, or the
 * error of the members' flush; nothing changed then.
 */
int stria_array_grow_bitmap(struct stria_array *a, bool on, u32 chunk,
			    bool check, char *msg)
{
	unsigned int memflags;
	u32 fit;
	int ret;

	lockdep_assert_held(&stria_arrays_lock);
	if (!stria_geom_redundant(&a->geom)) {
		snprintf(msg, STRIA_MSG_LEN, "'%s' is raid0: it has no redundancy to resync and keeps no write-intent bitmap",
			 a->name);
		return -EINVAL;
	}
	if (on && chunk && ((chunk & (chunk - 1)) ||
			    chunk < 1U << a->geom.chunk_shift)) {
		snprintf(msg, STRIA_MSG_LEN, "bitmap regions of %u sectors: give a power of two of at least the chunk (%u sectors)",
			 chunk, 1U << a->geom.chunk_shift);
		return -EINVAL;
	}
	/* as create: the default region is raised to fit, one asked for is not */
	fit = stria_bitmap_min_chunk(a->geom.member_sectors,
				     1U << a->geom.chunk_shift, chunk);
	if (on && (!fit || (chunk && fit != chunk))) {
		snprintf(msg, STRIA_MSG_LEN, "bitmap regions of %u sectors are too many for '%s': give %u sectors or more",
			 chunk, a->name, fit);
		return -EINVAL;
	}
	chunk = fit;
	ret = stria_cfg_lock(a, msg);
	if (ret)
		return ret;
	ret = stria_grow_bitmap_check(a, on, msg);
	if (ret || check)
		goto out_unlock;
	memflags = stria_array_freeze(a);
	if (on) {
		/* every write so far durable: no clean region holds a torn one */
		ret = stria_array_flush_members(a);
		if (ret)
			snprintf(msg, STRIA_MSG_LEN, "'%s': a member's cache could not be flushed (error %d): no bitmap added",
				 a->name, ret);
		else
			ret = stria_bitmap_create(a, chunk);
		if (ret == -ENOMEM)
			snprintf(msg, STRIA_MSG_LEN, "out of memory for the bitmap of '%s'",
				 a->name);
	} else {
		stria_bitmap_remove(a);
	}
	if (!ret) {
		stria_array_update_sbs(a);
		stria_bitmap_run(a);
	}
	stria_array_unfreeze(a, memflags);
	if (!ret && on)
		pr_info("stria%d: write-intent bitmap added, regions of %u sectors\n",
			a->index, chunk);
	else if (!ret)
		pr_info("stria%d: write-intent bitmap removed\n", a->index);
out_unlock:
	mutex_unlock(&a->cfg_lock);
	return ret;
}

/*
 * The data sectors every member and spare can give, in whole chunks.
 * Caller holds @a->cfg_lock.
 */
static u64 stria_room(struct stria_array *a)
{
	u64 room = U64_MAX, size;
	u32 i;

	for (i = 0; i < a->nr_members + a->nr_spares; i++) {
		struct stria_member *m = i < a->nr_members ? &a->members[i] :
					 &a->spares[i - a->nr_members];

		if (!m->dev.bdev)
			continue;
		size = bdev_nr_sectors(m->dev.bdev);
		room = min(room, size > a->data_offset ? size - a->data_offset : 0);
	}
	return round_down(room, 1ULL << a->geom.chunk_shift);
}

/*
 * May @a grow to @want data sectors per member (0: all there is) now?
 * Fills @g with the new geometry, or @msg with why not. Caller holds
 * @a->cfg_lock.
 */
static int stria_grow_size_check(struct stria_array *a, u64 want,
				 struct stria_geom *g, char *msg)
{
	u64 old = a->geom.member_sectors, room = stria_room(a);
	int ret = stria_grow_busy(a, "grow", msg);

	if (ret)
		return ret;
	if (atomic_read(&a->nr_failed)) {
		snprintf(msg, STRIA_MSG_LEN, "'%s' is degraded: rebuild it first, then grow",
			 a->name);
		return -EINVAL;
	}
	if (want > room) {
		snprintf(msg, STRIA_MSG_LEN, "'%s': its members and spares give %llu sectors each, not %llu",
			 a->name, room, want);
		return -ENOSPC;
	}
	if ((want ?: room) <= old) {
		snprintf(msg, STRIA_MSG_LEN, "'%s' uses %llu sectors of each member, and %s %llu: nothing to grow",
			 a->name, old, want ? "was asked for" : "they give",
			 want ?: room);
		return -EINVAL;
	}
	if (stria_geom_setup(g, a->geom.level, a->geom.layout,
			     a->nr_members, 1U << a->geom.chunk_shift,
			     want ?: room) || g->member_sectors <= old) {
		snprintf(msg, STRIA_MSG_LEN, "'%s': no larger geometry fits %llu sectors per member",
			 a->name, want ?: room);
		return -EINVAL;
	}
	return 0;
}

/*
 * Zero member sectors [@from, @to) of every member: the space a grow adds
 * reads as zeroes and, zero being every level's parity of zeroes, matches
 * its parity and copies. Caller holds @a->cfg_lock.
 */
static int stria_zero_new_space(struct stria_array *a, u64 from, u64 to,
				char *msg)
{
	int ret;
	u32 i;

	for (i = 0; i < a->nr_members; i++) {
		struct stria_member *m = &a->members[i];

		ret = blkdev_issue_zeroout(m->dev.bdev, a->data_offset + from,
					   to - from, GFP_KERNEL, 0);
		if (ret) {
			snprintf(msg, STRIA_MSG_LEN, "cannot zero the new space of member %u (%pg): error %d; nothing changed",
				 m->role, m->dev.bdev, ret);
			return ret;
		}
	}
	return 0;
}

/**
 * stria_array_grow_size() - use more of every member
 * @a: the array, read-write
 * @sectors: in: the data sectors each member is to give, 0 for all there
 *	is; out: what each gives now (or, with @check, would give)
 * @check: change nothing, only say whether it would be refused
 * @msg: STRIA_MSG_LEN bytes for the reason on failure
 *
 * For the operator who replaced every member by a larger drive. The new
 * space of each member is zeroed first (levels with redundancy), while the
 * array cannot reach it yet. Then, with the queue frozen and the members'
 * caches flushed, the geometry grows; a bitmap is made again for the new
 * size (its bits may all be clear: no write is in flight, every one is
 * durable), the superblocks record the size, and the capacity grows. A
 * crash before every superblock is written leaves some with the old size,
 * which assembly takes (stria_sb_count_follows()): a superblock that
 * records the new size exists only once the new space is zeroed.
 *
 * The placement of every sector the array had does not change: RAID0,
 * RAID5/6, RAID1 and RAID10's near and offset layouts place by rows. A
 * far layout, whose copies lie a fraction of the member apart, is refused.
 *
 * Caller holds stria_arrays_lock.
 *
 * Return: 0; -EOPNOTSUPP, -EINVAL, -ENOSPC, -EBUSY, -EINTR, or the error
 * of the zeroing (nothing changed then).
 */
int stria_array_grow_size(struct stria_array *a, u64 *sectors, bool check,
			  char *msg)
{
	u32 far = (a->geom.layout >> STRIA_R10_FAR_SHIFT) & STRIA_R10_FAR_MASK;
	u64 old = a->geom.member_sectors;
	u32 bchunk = 0;
	unsigned int memflags;
	struct stria_geom g;
	int ret;

	lockdep_assert_held(&stria_arrays_lock);
	if (a->geom.level == 10 && far > 1 &&
	    !(a->geom.layout & STRIA_R10_OFFSET)) {
		snprintf(msg, STRIA_MSG_LEN, "'%s' is raid10 far %u: its far copies lie a fraction of the member apart and would move",
			 a->name, far);
		return -EOPNOTSUPP;
	}
	ret = stria_cfg_lock(a, msg);
	if (ret)
		return ret;
	ret = stria_grow_size_check(a, *sectors, &g, msg);
	if (ret)
		goto out_unlock;
	if (a->wib) {
		bchunk = stria_bitmap_min_chunk(g.member_sectors,
						1U << g.chunk_shift,
						stria_bitmap_chunk(a));
		if (!bchunk) {
			snprintf(msg, STRIA_MSG_LEN, "'%s': no write-intent bitmap fits %llu sectors per member",
				 a->name, g.member_sectors);
			ret = -EINVAL;
			goto out_unlock;
		}
	}
	*sectors = g.member_sectors;
	if (check)
		goto out_unlock;
	if (stria_geom_redundant(&a->geom)) {
		ret = stria_zero_new_space(a, old, g.member_sectors, msg);
		if (ret)
			goto out_unlock;
	}
	memflags = stria_array_freeze(a);
	if (a->wib) {
		/* every write durable: the bitmap made again may start clear */
		ret = stria_array_flush_members(a);
		if (ret) {
			snprintf(msg, STRIA_MSG_LEN, "'%s': a member's cache could not be flushed (error %d): the size did not change",
				 a->name, ret);
			stria_array_unfreeze(a, memflags);
			goto out_unlock;
		}
		stria_bitmap_remove(a);
	}
	mutex_lock(&a->sb_lock);
	a->geom = g;
	mutex_unlock(&a->sb_lock);
	if (bchunk && stria_bitmap_create(a, bchunk))
		pr_warn("stria%d: no memory for the bitmap of the new size: the array goes on without one\n",
			a->index);
	stria_array_update_sbs(a);
	stria_bitmap_run(a);
	stria_array_unfreeze(a, memflags);
	set_capacity_and_notify(a->disk, stria_geom_array_sectors(&a->geom));
	pr_info("stria%d: '%s' grows from %llu to %llu sectors per member, %llu sectors in all\n",
		a->index, a->name, old, g.member_sectors,
		stria_geom_array_sectors(&a->geom));
out_unlock:
	mutex_unlock(&a->cfg_lock);
	return ret;
}
