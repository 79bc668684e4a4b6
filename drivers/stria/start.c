// SPDX-License-Identifier: GPL-2.0
/*
 * stria array start: the checks a create or an assembly makes before
 * anything is written (array.c, "Starting an array", steps 1 to 3): open
 * every member exclusively, zero the members' data areas for a RAID5/6
 * create, check the sizes (create) or the superblocks (assemble: one
 * complete, current array, its failed and missing members within what the
 * level tolerates, an unclean shutdown only by force), pick the NUMA node,
 * and reserve the array's name and UUID against other starts.
 *
 * Layer: the lifecycle, on top (Documentation/stria/layers.rst), with
 * array.c, whose start is the only caller.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/blkdev.h>
#include <linux/delay.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>
#include <linux/uuid.h>

#include "stria.h"
#include "start.h"

/**
 * stria_close_all() - close the members a start opened
 * @o: the start's members
 * @n: how many it was given (those not opened are skipped)
 */
void stria_close_all(struct stria_opened *o, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (o->dev[i].bdev)
			stria_bdev_close(&o->dev[i]);
}

/**
 * stria_open_all() - open every member of a start exclusively
 * @spec: the request; a refusal says why in @spec->msg
 * @o: the start's members, opened into @o->dev
 *
 * A mounted or held device, or the same device given twice, is refused.
 *
 * Return: 0, or a negative errno with nothing left open.
 */
int stria_open_all(struct stria_spec *spec, struct stria_opened *o)
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

/* create: members are zeroed this many sectors at a time (64 MiB) */
#define STRIA_ZERO_STEP		(1ULL << 17)
/* and the progress logged at most this often */
#define STRIA_ZERO_LOG_SECS	5

/**
 * stria_zero_parity_data() - create, RAID1/5/6/10: zero the members' data areas
 * @spec: the request; a failure says why in @spec->msg
 * @o: the start's members
 * @g: the array's geometry
 *
 * Create, RAID5/6: zero every member's data area, so that each stripe's
 * parity matches its data from the start. Read-modify-write carries a
 * stripe's parity forward (P' = P ^ D ^ D'): over a drive's old contents it
 * would keep old garbage in P, and a later failure would rebuild data
 * written after create from it. On mirrors it makes the copies equal, so a
 * scrub check of a new array finds no mismatch. Members with Write Zeroes do this at once;
 * others get written, which takes minutes to hours. So it runs without
 * stria_arrays_lock (the members are held exclusively already), in steps
 * of STRIA_ZERO_STEP, logs its progress, and a fatal signal ends it (the
 * create then fails with nothing written but zeroes). A background initial
 * sync replaces this with the failure-handling work.
 *
 * Return: 0, -EINTR at a fatal signal, or the error of a member write.
 */
int stria_zero_parity_data(struct stria_spec *spec, struct stria_opened *o,
			   const struct stria_geom *g)
{
	/* the write-intent bitmap's area too: no region dirty */
	u64 len = STRIA_SB_DATA_OFFSET - STRIA_SB_BITMAP_OFFSET +
		  g->member_sectors, done, step;
	unsigned long next = jiffies + STRIA_ZERO_LOG_SECS * HZ;
	u32 i;
	int ret;

	pr_info("creating '%s': zeroing %u members of %llu MiB each so the %s\n",
		spec->name, spec->nr_members, len >> 11,
		stria_geom_mirror(g) ? "copies start equal" :
		"parity starts consistent");
	for (done = 0; done < len; done += step) {
		step = min(len - done, STRIA_ZERO_STEP);
		for (i = 0; i < spec->nr_members; i++) {
			ret = blkdev_issue_zeroout(o->dev[i].bdev,
						   STRIA_SB_BITMAP_OFFSET + done,
						   step, GFP_KERNEL, 0);
			if (ret) {
				stria_fail(spec, i, "%s: cannot zero the data area so the parity starts consistent: error %d",
					   spec->paths[i], ret);
				return ret;
			}
		}
		if (fatal_signal_pending(current)) {
			stria_fail(spec, STRIA_NO_MEMBER, "create of '%s' interrupted while zeroing the members: nothing but zeroes was written",
				   spec->name);
			pr_info("creating '%s': interrupted at %llu of %llu MiB\n",
				spec->name, (done + step) >> 11, len >> 11);
			return -EINTR;
		}
		if (time_after(jiffies, next)) {
			pr_info("creating '%s': members zeroed %llu%% (%llu of %llu MiB)\n",
				spec->name, div64_u64((done + step) * 100, len),
				(done + step) >> 11, len >> 11);
			next = jiffies + STRIA_ZERO_LOG_SECS * HZ;
		}
		cond_resched();
	}
	return 0;
}

/**
 * stria_check_create() - create: the members' sizes and the geometry
 * @spec: the request; a refusal says why in @spec->msg
 * @o: the start's members
 * @g: the geometry, filled in
 *
 * Every member must hold the superblock area plus one chunk.
 *
 * Return: 0, or a negative errno.
 */
int stria_check_create(struct stria_spec *spec, struct stria_opened *o,
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
	if (stria_geom_setup(g, spec->level, spec->layout, spec->nr_members,
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
		stria_fail(spec, STRIA_NO_MEMBER, "bitmap chunk %u sectors: %llu regions, over the %u that fit; use %u or more",
			   spec->bitmap_chunk,
			   stria_bitmap_regions(g->member_sectors,
						spec->bitmap_chunk),
			   (u32)STRIA_SB_BITMAP_MAX_REGIONS, o->bitmap_chunk);
		return -EINVAL;
	}
	return 0;
}

/*
 * Starts between stria_reserve() and stria_register() or stria_release().
 * Entries are added under stria_arrays_lock and stria_starting_lock
 * together (the check for a clash needs the array list too), removed
 * under stria_starting_lock alone: giving a reservation back then never
 * waits for stria_arrays_lock, which a request on a running array may hold
 * across its superblock writes.
 */
static LIST_HEAD(stria_starting);
static DEFINE_SPINLOCK(stria_starting_lock);

/*
 * Is @s's name or UUID taken, by a running array or one being started?
 * Then says so in @spec->msg and returns -EEXIST, or -EALREADY when the
 * same array (its UUID) is being started by another request. Caller holds
 * stria_arrays_lock and stria_starting_lock.
 */
static int stria_taken(struct stria_spec *spec, const struct stria_starting *s)
{
	struct stria_starting *o;
	struct stria_array *a;

	lockdep_assert_held(&stria_arrays_lock);
	list_for_each_entry(a, &stria_arrays, list) {
		if (s->uuid && !memcmp(a->uuid, s->uuid, STRIA_UUID_LEN)) {
			stria_fail(spec, STRIA_NO_MEMBER, "array '%s' is already running as stria%d",
				   a->name, a->index);
			return -EEXIST;
		}
	}
	list_for_each_entry(a, &stria_arrays, list) {
		if (!strcmp(a->name, s->name)) {
			stria_fail(spec, STRIA_NO_MEMBER, "an array named '%s' is already running as stria%d",
				   s->name, a->index);
			return -EEXIST;
		}
	}
	lockdep_assert_held(&stria_starting_lock);
	list_for_each_entry(o, &stria_starting, list) {
		if (s->uuid && o->uuid &&
		    !memcmp(o->uuid, s->uuid, STRIA_UUID_LEN)) {
			/* two udev events of its members: not a clash */
			stria_fail(spec, STRIA_NO_MEMBER, "array '%s' is being started by another request",
				   o->name);
			return -EALREADY;
		}
		if (!strcmp(o->name, s->name)) {
			stria_fail(spec, STRIA_NO_MEMBER, "an array named '%s' is being started by another request",
				   s->name);
			return -EEXIST;
		}
	}
	return 0;
}

/**
 * stria_reserve() - take a name and UUID for a start
 * @spec: the request; a refusal says why in @spec->msg
 * @s: the reservation (its name and UUID)
 *
 * Takes @s's name and UUID for a start, unless a running array or another
 * start has either. The wait for the lock ends at a fatal signal.
 *
 * Return: 0; -EEXIST or -EALREADY when taken; -EINTR.
 */
int stria_reserve(struct stria_spec *spec, struct stria_starting *s)
{
	int ret;

	if (mutex_lock_killable(&stria_arrays_lock)) {
		stria_fail(spec, STRIA_NO_MEMBER, "interrupted while waiting for another array request to finish: nothing was started");
		return -EINTR;
	}
	spin_lock(&stria_starting_lock);
	ret = stria_taken(spec, s);
	if (!ret)
		list_add_tail(&s->list, &stria_starting);
	spin_unlock(&stria_starting_lock);
	mutex_unlock(&stria_arrays_lock);
	return ret;
}

/**
 * stria_release() - give a start's name and UUID back
 * @s: the reservation
 *
 * A start that failed, or that registered its array, gives its name and
 * UUID back. It cannot be given up on (a reservation left behind would
 * keep the name taken for good), so it takes only stria_starting_lock,
 * held for list steps: no wait for stria_arrays_lock, which a request on
 * another array may hold across member I/O.
 */
void stria_release(struct stria_starting *s)
{
	spin_lock(&stria_starting_lock);
	list_del(&s->list);
	spin_unlock(&stria_starting_lock);
}

/**
 * stria_interrupted() - end a start at a fatal signal, before it writes
 * @spec: the request; says why in @spec->msg
 *
 * Return: 0, or -EINTR at a fatal signal.
 */
int stria_interrupted(struct stria_spec *spec)
{
	if (!fatal_signal_pending(current))
		return 0;
	stria_fail(spec, STRIA_NO_MEMBER, "%s interrupted: nothing was started or written",
		   spec->assemble ? "assembly" : "create");
	return -EINTR;
}

/*
 * Assembly refuses an array with more failed (or, started with
 * STRIA_ARRAY_F_RUN, missing) members than its level tolerates, naming
 * them.
 */
static int stria_check_failed(struct stria_spec *spec, struct stria_opened *o,
			      const struct stria_geom *g, const u32 *roles)
{
	DECLARE_BITMAP(fb, STRIA_GEOM_MAX_MEMBERS);
	u64 missing = o->failed | o->rebuilding;
	u32 i, nfail = hweight64(missing), tol = stria_geom_nr_parity(g);
	const char *what = o->missing ? "missing or marked failed" :
			   "marked failed";

	if (stria_geom_survives(g, missing))
		return 0;
	if (stria_geom_mirror(g)) {
		bitmap_from_u64(fb, missing);
		stria_fail(spec, STRIA_NO_MEMBER, "array '%s' cannot start: members (roles %*pbl) are %s%s, and some chunks have no other copy",
			   spec->name, (int)STRIA_GEOM_MAX_MEMBERS, fb, what,
			   o->rebuilding ? " or being rebuilt" : "");
		return -EINVAL;
	}
	if (nfail == 1) {
		for (i = 0; i < spec->nr_members; i++)
			if (roles[i] < 64 && (o->failed & BIT_ULL(roles[i])))
				break;
		if (i < spec->nr_members)
			stria_fail(spec, i, "array '%s' cannot start: member %u (%s) is marked failed and raid%u tolerates none",
				   spec->name, roles[i], spec->paths[i],
				   g->level);
		else
			stria_fail(spec, STRIA_NO_MEMBER, "array '%s' cannot start: member %u is %s and raid%u tolerates none",
				   spec->name, (u32)__ffs64(missing),
				   o->missing ? "missing" : "marked failed",
				   g->level);
		return -EINVAL;
	}
	bitmap_from_u64(fb, missing);
	stria_fail(spec, STRIA_NO_MEMBER, "array '%s' cannot start: %u members (roles %*pbl) are %s%s, raid%u tolerates %u",
		   spec->name, nfail, (int)STRIA_GEOM_MAX_MEMBERS, fb, what,
		   o->rebuilding ? " or being rebuilt" : "", g->level, tol);
	return -EINVAL;
}

/*
 * Nothing to force when the array starts as it is; a mirror is never
 * forced (stria_force_failed()), which the log says.
 */
static bool stria_survives_or_mirror(const struct stria_spec *spec,
				     const struct stria_opened *o,
				     const struct stria_geom *g)
{
	if (stria_geom_survives(g, o->failed | o->rebuilding))
		return true;
	if (!stria_geom_mirror(g))
		return false;
	pr_info("array '%s': raid%u members marked failed are not taken back by force: the copies left took writes after they failed\n",
		spec->name, g->level);
	return true;
}

/*
 * Did member @i fail while the array ran on without it? Its own superblock
 * stopped getting updates when it failed: the roles it records as failed
 * had failed before it, and a failed member given with the same events
 * failed at the same update. If the array survives those and @i's role, it went
 * on writing without the member, which then missed writes. A role being
 * rebuilt counts as working here: it takes writes.
 */
static bool stria_failed_early(const struct stria_spec *spec,
			       const struct stria_opened *o,
			       const struct stria_geom *g, const u32 *roles,
			       u32 i)
{
	u64 ev = le64_to_cpu(o->sb[i].events);
	u64 gone = le64_to_cpu(o->sb[i].failed) | BIT_ULL(roles[i]);
	u32 k;

	for (k = 0; k < spec->nr_members; k++)
		if (roles[k] < STRIA_GEOM_MAX_MEMBERS &&
		    (o->failed & BIT_ULL(roles[k])) &&
		    le64_to_cpu(o->sb[k].events) == ev)
			gone |= BIT_ULL(roles[k]);
	return stria_geom_survives(g, gone);
}

/*
 * Forced, a RAID0, 5 or 6 array that could not start otherwise takes back
 * members the superblocks mark failed whose devices are given, until its
 * level tolerates what is left, as mdadm's --assemble --force does; but
 * only members whose failure the array did not survive
 * (stria_failed_early()): once more members had failed than it tolerates,
 * every write that needed such a member failed: it missed none that was
 * acknowledged. Writes cut short may be torn on the others, so RAID5/6
 * start dirty (resynced when whole; still degraded: the write hole). Members
 * that failed while the array ran on stay failed (a rebuild brings them
 * back). A mirror is not forced: it writes each chunk to whatever copies
 * of it are left, after the array has failed too. Return: the roles given
 * that failed early.
 */
static u64 stria_force_failed(struct stria_spec *spec, struct stria_opened *o,
			      const struct stria_geom *g, const u32 *roles,
			      u64 maxev)
{
	u64 early = 0;
	u32 i, best;

	if (!spec->force || stria_survives_or_mirror(spec, o, g))
		return 0;
	while (!stria_geom_survives(g, o->failed | o->rebuilding)) {
		best = spec->nr_members;
		for (i = 0; i < spec->nr_members; i++) {
			if (roles[i] >= STRIA_GEOM_MAX_MEMBERS ||
			    !(o->failed & ~o->missing & BIT_ULL(roles[i])))
				continue;
			if (stria_failed_early(spec, o, g, roles, i)) {
				if (!(early & BIT_ULL(roles[i])))
					pr_info("array '%s': member %u (%s), marked failed, is not taken back by force: the array ran on without it, and it missed writes (add it as a spare to rebuild it)\n",
						spec->name, roles[i],
						spec->paths[i]);
				early |= BIT_ULL(roles[i]);
				continue;
			}
			if (best == spec->nr_members ||
			    le64_to_cpu(o->sb[i].events) >
			    le64_to_cpu(o->sb[best].events))
				best = i;
		}
		if (best == spec->nr_members)
			return early;
		o->failed &= ~BIT_ULL(roles[best]);
		o->dirty |= stria_geom_redundant(g);
		pr_warn("array '%s': member %u (%s), marked failed, taken back by force: the array failed with it (its superblock's events %llu, the array's %llu)\n",
			spec->name, roles[best], spec->paths[best],
			le64_to_cpu(o->sb[best].events), maxev);
	}
	return early;
}

/*
 * Assemble, once the freshest superblock is known: which device holds
 * which role. Current superblocks hold their roles (or are spares); an
 * older one is a failed member the freshest superblock records, or was
 * replaced (its role taken by a spare, or a spare since removed) and is
 * left out, or is one update behind (a crash cut that update short) and
 * holds its role, or is stale and refused. Every role without a device must
 * be recorded as failed, or as being rebuilt (it then starts failed), or the
 * request says STRIA_ARRAY_F_RUN (it then starts failed: @o->missing).
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
			/*
			 * One update behind and not recorded as failed: the
			 * power went while an update wrote the superblocks,
			 * one member after the other. Such a member missed no
			 * write, only the update's record; md's assembly takes
			 * it too (super_1_validate()).
			 */
			if (older && !(o->failed & BIT_ULL(role)) &&
			    le64_to_cpu(sb->events) + 1 < maxev) {
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
		if (o->rebuilding & BIT_ULL(role)) {
			/* half rebuilt and gone: it has failed, another spare may come */
			pr_info("array '%.31s': member %u, being rebuilt, is missing: it starts failed\n",
				o->sb[o->fresh].name, role);
			o->rebuilding &= ~BIT_ULL(role);
			o->failed |= BIT_ULL(role);
			continue;
		}
		if (!spec->run) {
			stria_fail(spec, STRIA_NO_MEMBER, "member %u of array '%.31s' is missing (not given, and not recorded as failed)",
				   role, o->sb[o->fresh].name);
			return -ENODEV;
		}
		o->missing |= BIT_ULL(role);
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

	/* a mirror has no parity to trust: its resync copies the first copy */
	if (!o->dirty || !stria_geom_nr_parity(g) || !missing)
		return 0;
	if (spec->readonly) {
		pr_warn("%s: was not stopped cleanly and is degraded: assembled read-only, reads that would rebuild data from parity where writes may have been cut short fail\n",
			spec->name);
		return 0;
	}
	if (!spec->force) {
		stria_fail(spec, STRIA_NO_MEMBER, "'%s' was not stopped cleanly and is degraded (write hole risk); --force starts it anyway",
			   spec->name);
		return -EUCLEAN;
	}
	pr_warn("%s: was not stopped cleanly and is degraded; started by force: data of the missing members may be rebuilt wrong where writes were cut short\n",
		spec->name);
	return 0;
}

/**
 * stria_check_assemble() - assemble: the superblocks describe one array
 * @spec: the request; a refusal says why in @spec->msg
 * @o: the start's members, their superblocks read into @o->sb
 * @g: the geometry, filled in from them
 * @roles: each member's role, filled in
 *
 * Assemble: every member carries a valid superblock of the same array, with
 * its own role, and none is older than the others unless the freshest
 * superblock marks it failed.
 *
 * Return: 0, or a negative errno.
 */
int stria_check_assemble(struct stria_spec *spec, struct stria_opened *o,
			 struct stria_geom *g, u32 *roles)
{
	struct stria_sb *s0 = &o->sb[0], *f;
	char why[96];
	u64 maxev = 0, early;
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
		/* a member that answers slowly: a kill ends the wait */
		ret = stria_interrupted(spec);
		if (ret)
			return ret;
		ret = stria_sb_check(sb, stria_sb_crc(sb), why, sizeof(why));
		if (ret) {
			stria_fail(spec, i, "%s: %s", spec->paths[i], why);
			return ret == -ENODATA ? -ENODATA : -EINVAL;
		}
		if (memcmp(sb->array_uuid, s0->array_uuid, STRIA_UUID_LEN)) {
			stria_fail(spec, i, "%s belongs to array '%.31s', not to '%.31s' like %s",
				   spec->paths[i], sb->name, s0->name,
				   spec->paths[0]);
			return -EINVAL;
		}
		if (!stria_sb_same_array(sb, s0)) {
			stria_fail(spec, i, "%s and %s disagree on the array's name or shape: damaged or crafted superblock",
				   spec->paths[i], spec->paths[0]);
			return -EINVAL;
		}
		/* compared without adding: a crafted size must not wrap */
		if (!stria_range_fits(STRIA_SB_DATA_OFFSET,
				      le64_to_cpu(sb->data_sectors),
				      bdev_nr_sectors(o->dev[i].bdev))) {
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
	for (i = 0; i < spec->nr_members; i++) {
		if (stria_sb_count_follows(&o->sb[i], f))
			continue;
		stria_fail(spec, i, "%s: %u members of %llu sectors at events %llu, %s: %u of %llu at %llu: damaged or crafted superblock",
			   spec->paths[i], le32_to_cpu(o->sb[i].nr_members),
			   le64_to_cpu(o->sb[i].data_sectors),
			   le64_to_cpu(o->sb[i].events), spec->paths[o->fresh],
			   le32_to_cpu(f->nr_members),
			   le64_to_cpu(f->data_sectors), le64_to_cpu(f->events));
		return -EINVAL;
	}
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
	o->reshape_from = le32_to_cpu(f->reshape_from);
	o->reshape_pos = le64_to_cpu(f->reshape_pos);
	o->reshape_backup = le32_to_cpu(f->reshape_flags) &
			    STRIA_SB_RESHAPE_BACKUP;
	if (o->reshape_from && le32_to_cpu(f->level)) {
		stria_fail(spec, STRIA_NO_MEMBER, "'%.31s': raid%u restriped from %u to %u members, which this stria cannot go on with",
			   s0->name, le32_to_cpu(f->level), o->reshape_from,
			   o->nr_roles);
		return -EOPNOTSUPP;
	}
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
	if (stria_sb_geom(f, g)) {
		stria_fail(spec, STRIA_NO_MEMBER, "the superblocks describe an invalid geometry");
		return -EINVAL;
	}
	/*
	 * stria_sb_check() held the on-disk name to stria_name_valid() and
	 * the home host to stria_host_valid() (or all zero)
	 */
	strscpy(spec->name, s0->name, sizeof(spec->name));
	memcpy(spec->homehost, s0->homehost, sizeof(spec->homehost));
	early = stria_force_failed(spec, o, g, roles, maxev);
	ret = stria_check_failed(spec, o, g, roles);
	if (ret && early) {
		DECLARE_BITMAP(eb, STRIA_GEOM_MAX_MEMBERS);

		bitmap_from_u64(eb, early);
		stria_fail(spec, STRIA_NO_MEMBER, "'%s' cannot start, even by force: roles %*pbl missed writes (it ran on without them)",
			   spec->name, (int)STRIA_GEOM_MAX_MEMBERS, eb);
	}
	if (ret)
		return ret;
	return stria_check_dirty(spec, o, g);
}

/**
 * stria_majority_node() - the NUMA node most members are attached to
 * @o: the start's members
 * @n: how many
 *
 * Return: that node, or NUMA_NO_NODE.
 */
int stria_majority_node(struct stria_opened *o, u32 n)
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
