/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * stria control ABI: the only contract between stria.ko and user space.
 *
 * Rules (Documentation/driver-api/ioctl.rst, ublk, blksnap):
 *  - fixed-size __u* fields only, pointers travel as __u64;
 *  - every structure starts with its size as the caller knows it, so a
 *    structure can grow at its end without a new ioctl number;
 *  - reserved fields must be zero and are checked;
 *  - optional behaviour is negotiated with feature bits: the kernel reports
 *    what it supports in STRIA_IOC_INFO and masks requested flags to it.
 */
#ifndef _UAPI_LINUX_STRIA_H
#define _UAPI_LINUX_STRIA_H

#include <linux/ioctl.h>
#include <linux/types.h>

/*
 * The control device, /dev/stria-control (root only): misc device 10:248,
 * a minor of the range devices.txt reserves for local use (243-254), so
 * that the node exists before the module is loaded (kmod static-nodes,
 * from the module's "devname:" alias) and opening it loads the module. If
 * another driver holds that minor, the module takes a dynamic one (and
 * says so in the kernel log); striactl then loads it with modprobe.
 */
#define STRIA_CONTROL_NAME	"stria-control"
#define STRIA_CONTROL_MINOR	248

#define STRIA_IOC_MAGIC		0xb7

/* Features this build of the module supports (stria_ioc_info.features). */
#define STRIA_FEAT_INFO		(1ULL << 0)	/* STRIA_IOC_INFO */
#define STRIA_FEAT_RAID0	(1ULL << 1)	/* CREATE/ASSEMBLE/STOP/QUERY, level 0 */
#define STRIA_FEAT_RAID5	(1ULL << 2)	/* level 5, parity layouts */
#define STRIA_FEAT_RAID6	(1ULL << 3)	/* level 6, parity layouts */
#define STRIA_FEAT_FAIL		(1ULL << 4)	/* STRIA_IOC_MEMBER: OP_FAIL */
#define STRIA_FEAT_SPARES	(1ULL << 5)	/* STRIA_IOC_MEMBER: OP_ADD, OP_REMOVE; rebuild */
#define STRIA_FEAT_SYNC		(1ULL << 6)	/* scrub: check, repair, stop */
#define STRIA_FEAT_BITMAP	(1ULL << 7)	/* RAID5/6 write-intent bitmap, create's bitmap_chunk */
#define STRIA_FEAT_READD	(1ULL << 8)	/* OP_ADD of a former member: partial rebuild */
#define STRIA_FEAT_REPLACE	(1ULL << 9)	/* STRIA_IOC_MEMBER: OP_REPLACE */
#define STRIA_FEAT_RUN		(1ULL << 10)	/* ASSEMBLE: STRIA_ARRAY_F_RUN */
#define STRIA_FEAT_HOMEHOST	(1ULL << 11)	/* CREATE: homehost */
#define STRIA_FEAT_READONLY	(1ULL << 12)	/* ASSEMBLE: STRIA_ARRAY_F_READONLY; STRIA_IOC_MODE */
#define STRIA_FEAT_MIRROR	(1ULL << 13)	/* levels 1 and 10, md's layout words */
#define STRIA_FEAT_GROW_MIRROR	(1ULL << 14)	/* STRIA_IOC_GROW: members of RAID1 */
#define STRIA_FEAT_GROW_BITMAP	(1ULL << 15)	/* STRIA_IOC_GROW: bitmap added, removed */
#define STRIA_FEAT_GROW_SIZE	(1ULL << 16)	/* STRIA_IOC_GROW: into larger members */
#define STRIA_FEAT_GROW_RESTRIPE (1ULL << 17)	/* STRIA_IOC_GROW: members of RAID0, restriped */

#define STRIA_VERSION_LEN	32

/**
 * struct stria_ioc_info - what the loaded module is and supports
 * @size: in: sizeof(struct stria_ioc_info) as the caller knows it;
 *	out: the size the kernel filled in
 * @flags: in: must be zero
 * @features: out: STRIA_FEAT_* bits supported by this module
 * @nr_arrays: out: arrays currently registered
 * @max_members: out: largest member count an array may have
 * @version: out: module version, NUL-terminated
 * @max_spares: out: spares an array may hold (with STRIA_FEAT_SPARES)
 * @reserved0: in: must be zero
 * @reserved: in: must be zero
 */
struct stria_ioc_info {
	__u32 size;
	__u32 flags;
	__u64 features;
	__u32 nr_arrays;
	__u32 max_members;
	char version[STRIA_VERSION_LEN];
	__u32 max_spares;
	__u32 reserved0;
	__u64 reserved[7];
};

#define STRIA_IOC_INFO		_IOWR(STRIA_IOC_MAGIC, 0x00, struct stria_ioc_info)

#define STRIA_NAME_LEN		32	/* array name with its NUL */
#define STRIA_HOST_LEN		64	/* home host with its NUL */
#define STRIA_UUID_LEN		16
#define STRIA_MSG_LEN		128	/* human-readable reason for a failure */
#define STRIA_MAX_MEMBERS	64
#define STRIA_MAX_SPARES	8	/* spares of one array */
#define STRIA_NODE_AUTO		0xffffffffU	/* numa_node: choose by members */
#define STRIA_NO_MEMBER		0xffffffffU	/* err_member: not about one member */

/*
 * RAID5/6 parity layouts: where P (and Q) and the data of each stripe go.
 * The numbers are md's (ALGORITHM_* in drivers/md/raid5.h) and so is the
 * placement (Documentation/stria/ondisk-format.rst).
 */
#define STRIA_PARITY_LEFT_ASYMMETRIC	0
#define STRIA_PARITY_RIGHT_ASYMMETRIC	1
#define STRIA_PARITY_LEFT_SYMMETRIC	2	/* the default, as in md */
#define STRIA_PARITY_RIGHT_SYMMETRIC	3
#define STRIA_PARITY_NONE	0xffffffffU	/* query: RAID0 has no parity */

/*
 * RAID1 and RAID10 layouts: md's layout word, near copies in bits 0-7,
 * far copies in bits 8-15, bit 16 for the offset layout. RAID10's default
 * is near 2 (0x102); RAID1 is near N over its N members.
 */
#define STRIA_R10_LAYOUT(near, far, offset) \
	((__u32)(near) | (__u32)(far) << 8 | ((offset) ? 1U << 16 : 0))

/* stria_ioc_array.flags */
#define STRIA_ARRAY_F_LAYOUT	(1U << 0)	/* create: @layout is set */
#define STRIA_ARRAY_F_FORCE	(1U << 1)	/* assemble: even dirty and degraded */
#define STRIA_ARRAY_F_NO_BITMAP	(1U << 2)	/* create: RAID5/6 without a write-intent bitmap */
#define STRIA_ARRAY_F_RUN	(1U << 3)	/* assemble: even with members missing */
#define STRIA_ARRAY_F_READONLY	(1U << 4)	/* assemble: read-only, nothing written */

/**
 * struct stria_ioc_array - create or assemble an array
 * @size: in: sizeof(struct stria_ioc_array) as the caller knows it
 * @flags: in: STRIA_ARRAY_F_*: LAYOUT and NO_BITMAP on create, FORCE,
 *	RUN and READONLY on assemble. With STRIA_ARRAY_F_READONLY
 *	(STRIA_FEAT_READONLY) nothing is written to any member while the
 *	array stays read-only: no superblock update (not even its state or
 *	event count), no resync, rebuild or scrub, no spare taken into a
 *	role, no write-intent bitmap update; the array device is read-only
 *	and the array refuses writes and discards (EIO). An array that was
 *	not stopped cleanly owes a resync everywhere its bitmap has dirty
 *	(everywhere without a bitmap): a read there that would rebuild data
 *	from parity fails with EIO. Such an array may be assembled read-only
 *	while degraded, without STRIA_ARRAY_F_FORCE; the two together are
 *	refused. STRIA_IOC_MODE switches it to read-write.
 * @level: in: RAID level 0, 5 or 6 (create; assemble takes it from the
 *	superblocks). RAID5 needs at least 3 members, RAID6 4.
 * @chunk_sectors: in: chunk size in 512-byte sectors, a power of two from
 *	8 (4 KiB) to 2048 (1 MiB) (create only; zero for assemble)
 * @nr_members: in: entries in @members, 2 .. STRIA_MAX_MEMBERS; assemble:
 *	up to STRIA_MAX_MEMBERS + STRIA_MAX_SPARES, spares included, and
 *	roles the superblocks record as failed may be left out. With
 *	STRIA_ARRAY_F_RUN (STRIA_FEAT_RUN) any role may be left out as long
 *	as the level tolerates the roles missing and failed together: the
 *	array starts degraded and its superblocks record the missing roles
 *	as failed, so a member that comes back later is stale (it is not
 *	assembled as current; STRIA_MEMBER_OP_ADD takes it back). A RAID5/6
 *	array that was not stopped cleanly needs STRIA_ARRAY_F_FORCE as
 *	well to start degraded.
 * @numa_node: in: node for the array's memory and queues, or
 *	STRIA_NODE_AUTO for the node most members are attached to
 * @members: in: user pointer to @nr_members __u64 user pointers, each to a
 *	NUL-terminated device path; for create, member i gets role i
 * @name: in: array name, 1..31 characters from [A-Za-z0-9._-], NUL-padded;
 *	for assemble it must match the superblocks. Refused when a running
 *	array has the name or the UUID, or another create or assemble under
 *	way has the name (EEXIST); when another assemble of the same array
 *	(its UUID) is under way (EALREADY). A fatal signal ends a start before
 *	it writes a superblock (EINTR), nothing started
 * @index: out: N of the new /dev/striaN
 * @err_member: out: on failure, the index in @members the failure is
 *	about, or STRIA_NO_MEMBER
 * @uuid: out: the array's UUID
 * @msg: out: on failure, why, NUL-terminated (also when the ioctl fails;
 *	the structure is copied back on every error after it was read)
 * @layout: in: with STRIA_ARRAY_F_LAYOUT, the parity layout of a RAID5 or
 *	RAID6 array, STRIA_PARITY_* (not STRIA_PARITY_NONE); without it, zero,
 *	and RAID5/6 get STRIA_PARITY_LEFT_SYMMETRIC. RAID0 has no parity
 *	layout: the flag is refused there. Assemble: zero, the layout comes
 *	from the superblocks. Out (create): the layout used.
 * @bitmap_chunk: in (create, RAID5/6): member data sectors one bit of the
 *	write-intent bitmap covers, a power of two from @chunk_sectors up;
 *	0 for the default (64 MiB, raised until the bitmap fits before the
 *	data area). Zero with STRIA_ARRAY_F_NO_BITMAP, on RAID0 (no bitmap;
 *	the flag is refused there too) and for assemble. Out (create): the
 *	region size used, 0 for none.
 * @homehost: (STRIA_FEAT_HOMEHOST) in (create): user pointer to the
 *	host the array belongs to, recorded in its superblocks: a
 *	NUL-terminated string of 1 to 63 characters from [A-Za-z0-9._-] (not
 *	starting with . or -); 0 for none. Zero for assemble (the home host
 *	comes from the superblocks; sysfs stria/homehost shows it). A
 *	pointer, so that the structure and its ioctl number stay as they were
 * @reserved: in: must be zero
 */
struct stria_ioc_array {
	__u32 size;
	__u32 flags;
	__u32 level;
	__u32 chunk_sectors;
	__u32 nr_members;
	__u32 numa_node;
	__u64 members;
	char name[STRIA_NAME_LEN];
	__u32 index;
	__u32 err_member;
	__u8 uuid[STRIA_UUID_LEN];
	char msg[STRIA_MSG_LEN];
	__u32 layout;
	__u32 bitmap_chunk;
	__u64 homehost;
	__u64 reserved[6];
};

/*
 * Which array a STOP, QUERY or MEMBER is about: by name when name[0], else
 * by index.
 */

/**
 * struct stria_ioc_stop - stop an array
 * @size: in: sizeof(struct stria_ioc_stop)
 * @flags: in: must be zero
 * @index: in: N of /dev/striaN, used when @name is empty
 * @reserved0: in: must be zero
 * @name: in: array name, or empty
 * @msg: out: on failure, why
 * @reserved: in: must be zero
 *
 * Fails with EBUSY while the array device is open (mounted, or held).
 */
struct stria_ioc_stop {
	__u32 size;
	__u32 flags;
	__u32 index;
	__u32 reserved0;
	char name[STRIA_NAME_LEN];
	char msg[STRIA_MSG_LEN];
	__u64 reserved[4];
};

/* stria_ioc_query.flags */
#define STRIA_QUERY_F_NEXT	(1U << 0)	/* the first array with index >= @index */

/* stria_ioc_query.array_flags */
#define STRIA_QUERY_A_READONLY	(1U << 0)	/* read-only: nothing is written */

/*
 * stria_ioc_query.state and stria_ioc_member.state. An array is active
 * while no member has failed, degraded while no more members have failed
 * than its level tolerates (RAID5: 1, RAID6: 2) and failed beyond that
 * (RAID0: at the first failed member). A member is active (in sync),
 * failed, a spare, or being rebuilt (it takes writes but is not read until
 * the rebuild has reached the end); a member being rebuilt counts as
 * missing for the array's state.
 */
#define STRIA_STATE_ACTIVE	0	/* no member failed / member in use */
#define STRIA_STATE_FAILED	1	/* array beyond repair / member failed */
#define STRIA_STATE_DEGRADED	2	/* array only: running on redundancy */
#define STRIA_STATE_SPARE	3	/* member only: a spare, no role yet */
#define STRIA_STATE_REBUILDING	4	/* member only: being rebuilt */
#define STRIA_STATE_REPLACEMENT	5	/* member only: being copied from its role's member */

/* background work on an array's stripes */
#define STRIA_SYNC_IDLE		0	/* none */
#define STRIA_SYNC_REBUILD	1	/* rebuild members being rebuilt */
#define STRIA_SYNC_CHECK	2	/* scrub: read, verify parity, count */
#define STRIA_SYNC_REPAIR	3	/* scrub: ... and rewrite wrong parity */
#define STRIA_SYNC_RESYNC	4	/* recompute parity after an unclean stop */
#define STRIA_SYNC_REPLACE	5	/* copy a member to its replacement */
#define STRIA_SYNC_RESHAPE	6	/* restripe onto added members (grow) */

/**
 * struct stria_ioc_member - one member, as reported by STRIA_IOC_QUERY
 * @role: position in the array; STRIA_NO_MEMBER for a spare
 * @state: STRIA_STATE_*
 * @major: device number of the member; 0 with @minor 0 when the role has
 *	no device (a failed member that was removed)
 * @minor: device number of the member
 * @numa_node: node the member's device is attached to, or STRIA_NODE_AUTO
 *	when unknown
 * @reserved0: zero
 * @dev_sectors: size of the member device in sectors (0 without a device)
 * @uuid: the member's UUID
 * @reserved: zero
 */
struct stria_ioc_member {
	__u32 role;
	__u32 state;
	__u32 major;
	__u32 minor;
	__u32 numa_node;
	__u32 reserved0;
	__u64 dev_sectors;
	__u8 uuid[STRIA_UUID_LEN];
	__u64 reserved[2];
};

/**
 * struct stria_ioc_query - describe one array
 * @size: in: sizeof(struct stria_ioc_query)
 * @flags: in: STRIA_QUERY_F_*
 * @index: in: N of /dev/striaN (with STRIA_QUERY_F_NEXT: the lowest index
 *	wanted), used when @name is empty; out: the array's index
 * @level: out: RAID level
 * @name: in: array name, or empty; out: the array's name
 * @uuid: out: array UUID
 * @chunk_sectors: out: chunk size in sectors
 * @nr_members: out: members in the array
 * @state: out: STRIA_STATE_*
 * @numa_node: out: node of the array's tag set and queue memory
 * @array_sectors: out: capacity in sectors
 * @data_offset: out: start of the data area on each member, in sectors
 * @member_sectors: out: data sectors used on each member
 * @events: out: superblock event counter
 * @members: in: user pointer to @members_cap struct stria_ioc_member, or 0
 * @members_cap: in: entries available at @members, at most
 *	STRIA_MAX_MEMBERS + STRIA_MAX_SPARES; the kernel fills
 *	min(@members_cap, @nr_members + @nr_spares): the members by role,
 *	then the spares (state STRIA_STATE_SPARE, role STRIA_NO_MEMBER); a
 *	replacement being copied is the last entry of these, with state
 *	STRIA_STATE_REPLACEMENT and the role it replaces
 * @nr_cpus: out: entries of the CPU -> hardware queue map (nr_cpu_ids)
 * @cpu_map: in: user pointer to @cpu_map_cap __u32, or 0; out: entry i is
 *	the hardware queue CPU i submits to
 * @cpu_map_cap: in: entries available at @cpu_map
 * @nr_hw_queues: out: hardware queues of the array device
 * @layout: out: parity layout, STRIA_PARITY_*; STRIA_PARITY_NONE on RAID0
 * @nr_failed: out: members not in sync: STRIA_STATE_FAILED or
 *	STRIA_STATE_REBUILDING
 * @sync_action: out: STRIA_SYNC_* running now (STRIA_SYNC_IDLE: none)
 * @nr_spares: out: spares of the array, and a replacement being copied
 * @sync_done: out: member sectors the running sync has done of
 *	@sync_total (a resumed rebuild or resync starts at its checkpoint); with no sync
 *	running, those of the last one
 * @sync_total: out: member sectors the running (or last) sync covers
 * @mismatch_cnt: out: sectors of parity the running or last check or
 *	repair found wrong
 * @sync_speed: out: KiB/s of member data the running sync does, per
 *	member; 0 when idle
 * @sync_speed_min: out: its floor while the array has other I/O, KiB/s
 * @sync_speed_max: out: its ceiling, KiB/s
 * @sync_result: out: 0 while a sync runs or when the last one ended
 *	well or none ran; -EIO when it stopped on a member error, -ENODEV when
 *	too few members were left, -EINTR when it was stopped on request
 * @bitmap_chunk: out: member data sectors per bit of the write-intent
 *	bitmap; 0 when the array has none
 * @bitmap_dirty: out: regions whose bit is set on the members now
 * @array_flags: in: must be zero; out: STRIA_QUERY_A_* (STRIA_FEAT_READONLY)
 * @reserved0: in: must be zero
 * @mismatch_located: out: stripes the running or last RAID6 repair found
 *	one wrong chunk in (data, P or Q), located and rewrote
 * @mismatch_unlocatable: out: stripes it found P or Q wrong in but could
 *	not trace to one chunk, and left as they are
 */
struct stria_ioc_query {
	__u32 size;
	__u32 flags;
	__u32 index;
	__u32 level;
	char name[STRIA_NAME_LEN];
	__u8 uuid[STRIA_UUID_LEN];
	__u32 chunk_sectors;
	__u32 nr_members;
	__u32 state;
	__u32 numa_node;
	__u64 array_sectors;
	__u64 data_offset;
	__u64 member_sectors;
	__u64 events;
	__u64 members;
	__u32 members_cap;
	__u32 nr_cpus;
	__u64 cpu_map;
	__u32 cpu_map_cap;
	__u32 nr_hw_queues;
	__u32 layout;
	__u32 nr_failed;
	__u32 sync_action;
	__u32 nr_spares;
	__u64 sync_done;
	__u64 sync_total;
	__u64 mismatch_cnt;
	__u32 sync_speed;
	__u32 sync_speed_min;
	__u32 sync_speed_max;
	__s32 sync_result;
	__u32 bitmap_chunk;
	__u32 bitmap_dirty;
	__u32 array_flags;
	__u32 reserved0;
	__u64 mismatch_located;
	__u64 mismatch_unlocatable;
};

/* stria_ioc_member_op.op */
#define STRIA_MEMBER_OP_FAIL	1	/* mark the member failed */
#define STRIA_MEMBER_OP_ADD	2	/* add the device as a spare */
#define STRIA_MEMBER_OP_REMOVE	3	/* remove a failed member or a spare */
#define STRIA_MEMBER_OP_REPLACE	4	/* copy a member to a spare, then swap */

/* stria_ioc_member_op.flags */
#define STRIA_MEMBER_F_FORCE	(1U << 0)	/* even beyond the level's tolerance */
#define STRIA_MEMBER_F_GROW	(1U << 1)	/* OP_ADD to RAID0: a spare for a grow */

/* stria_ioc_member_op.result */
#define STRIA_MEMBER_R_READD	(1U << 0)	/* OP_ADD: back in its old role, partial rebuild */

/**
 * struct stria_ioc_member_op - change the state of one member
 * @size: in: sizeof(struct stria_ioc_member_op)
 * @flags: in: STRIA_MEMBER_F_*
 * @index: in: N of /dev/striaN, used when @name is empty
 * @op: in: STRIA_MEMBER_OP_*
 * @name: in: array name, or empty
 * @major: in: device number of the member
 * @minor: in: device number of the member
 * @role: out: the member's role
 * @result: in: must be zero; out: STRIA_MEMBER_R_* bits
 * @events: out: event count of the superblocks written for the change
 * @msg: out: on failure, why, NUL-terminated
 * @with_major: in: OP_REPLACE: device number of the replacement, 0 with
 *	@with_minor 0 for the last spare added; else must be zero
 * @with_minor: in: see @with_major
 * @reserved: in: must be zero
 *
 * STRIA_MEMBER_OP_FAIL marks an active member failed, as if it had failed
 * I/O, and returns once the superblocks of the remaining members record it.
 * Refused when the member has failed already, and, unless
 * STRIA_MEMBER_F_FORCE is set, with EBUSY when the array would then have
 * more failed members than its level tolerates (RAID0: any).
 *
 * STRIA_MEMBER_OP_ADD opens the device @major:@minor exclusively and adds
 * it to a RAID5/6 array as a spare (a spare superblock is written to it);
 * @role is STRIA_NO_MEMBER. When a role has failed, the spare takes it at
 * once and is rebuilt (@role says which). A RAID0 array takes a spare only
 * with STRIA_MEMBER_F_GROW (STRIA_FEAT_GROW_RESTRIPE), for a grow
 * (STRIA_GROW_MEMBERS) to restripe onto. Refused: RAID0 without
 * STRIA_MEMBER_F_GROW (EINVAL), a device
 * that is not a block device (ENOTBLK/ENXIO), too small for the data area
 * (ENOSPC), already a member or spare of this array (EEXIST), in use
 * (EBUSY), STRIA_MAX_SPARES spares already (ENOSPC).
 *
 * A device whose superblock says it was member N of this array, when role
 * N has failed, the array keeps a write-intent bitmap and has been
 * degraded ever since the device left (no bit was cleared since), takes
 * role N back at once and only the regions the bitmap has dirty are
 * rebuilt: STRIA_MEMBER_R_READD is set in @result (STRIA_FEAT_READD). Any
 * other former member is rebuilt in full, as a new spare would be.
 *
 * STRIA_MEMBER_OP_REPLACE (STRIA_FEAT_REPLACE) copies the active member
 * @major:@minor of a RAID5/6 array to a replacement while it stays in
 * service: the spare @with_major:@with_minor (a device not in the array is
 * added as a spare first), or the last spare added. Writes go to both
 * while a sync (STRIA_SYNC_REPLACE) copies the member; at the end the
 * replacement takes the role and the old device is released with its
 * superblock erased. When the copy stops (a stop of the array, scrub stop,
 * a failure of either device), the replacement is a spare again. Refused:
 * RAID0 (EINVAL), a member that is not active or a degraded array (EINVAL),
 * no spare to use (ENOSPC), a sync running (EBUSY).
 *
 * STRIA_MEMBER_OP_REMOVE releases a spare, or a failed member, whose role
 * then has no device (it stays failed). Refused with EBUSY for an active
 * or rebuilding member: fail it first.
 *
 * Every operation is refused with EROFS while the array is read-only
 * (STRIA_ARRAY_F_READONLY): each writes superblocks.
 */
struct stria_ioc_member_op {
	__u32 size;
	__u32 flags;
	__u32 index;
	__u32 op;
	char name[STRIA_NAME_LEN];
	__u32 major;
	__u32 minor;
	__u32 role;
	__u32 result;
	__u64 events;
	char msg[STRIA_MSG_LEN];
	__u32 with_major;
	__u32 with_minor;
	__u64 reserved[7];
};

/* stria_ioc_sync.flags */
#define STRIA_SYNC_F_RANGE	(1U << 0)	/* only stripes @first_stripe .. + @nr_stripes */

/**
 * struct stria_ioc_sync - start or stop a scrub of an array
 * @size: in: sizeof(struct stria_ioc_sync)
 * @flags: in: STRIA_SYNC_F_*
 * @index: in: N of /dev/striaN, used when @name is empty
 * @action: in: STRIA_SYNC_CHECK or STRIA_SYNC_REPAIR to start a scrub,
 *	STRIA_SYNC_IDLE to stop the running one (a rebuild is not stopped:
 *	EBUSY)
 * @name: in: array name, or empty
 * @first_stripe: in: with STRIA_SYNC_F_RANGE, the first stripe to scrub;
 *	out: the first stripe of the scrub started
 * @nr_stripes: in: with STRIA_SYNC_F_RANGE, stripes to scrub (not 0; cut
 *	at the array's end); out: stripes in the scrub started
 * @msg: out: on failure, why, NUL-terminated
 * @reserved: in: must be zero
 *
 * A stripe is one chunk of every member: chunk_sectors member sectors,
 * chunk_sectors * (nr_members - parity members) array sectors. A scrub is
 * refused on RAID0 and on a degraded or rebuilding array (EINVAL), while
 * another sync runs (EBUSY), and while the array is read-only (EROFS). It runs in the background, throttled
 * like a rebuild; STRIA_IOC_QUERY reports it.
 */
struct stria_ioc_sync {
	__u32 size;
	__u32 flags;
	__u32 index;
	__u32 action;
	char name[STRIA_NAME_LEN];
	__u64 first_stripe;
	__u64 nr_stripes;
	char msg[STRIA_MSG_LEN];
	__u64 reserved[8];
};

/* stria_ioc_mode.mode */
#define STRIA_MODE_READWRITE	1	/* a read-only array becomes read-write */

/* stria_ioc_mode.flags */
#define STRIA_MODE_F_FORCE	(1U << 0)	/* even dirty and degraded */

/**
 * struct stria_ioc_mode - switch a read-only array to read-write
 * @size: in: sizeof(struct stria_ioc_mode)
 * @flags: in: STRIA_MODE_F_*
 * @index: in: N of /dev/striaN, used when @name is empty
 * @mode: in: STRIA_MODE_READWRITE
 * @name: in: array name, or empty
 * @events: out: event count of the superblocks written for the change
 * @msg: out: on failure, why, NUL-terminated
 * @reserved: in: must be zero
 *
 * (STRIA_FEAT_READONLY) An array assembled with STRIA_ARRAY_F_READONLY
 * becomes what a plain assembly would have made it: its superblocks are
 * written (state active, events + 1, the members that failed meanwhile
 * recorded), it takes writes, a resync it owes starts, a spare takes a
 * failed role. One that was not stopped cleanly and is degraded needs
 * STRIA_MODE_F_FORCE, as its assembly would have. Refused with EINVAL
 * when the array is not read-only, EUCLEAN without the force it needs;
 * nothing changes then.
 */
struct stria_ioc_mode {
	__u32 size;
	__u32 flags;
	__u32 index;
	__u32 mode;
	char name[STRIA_NAME_LEN];
	__u64 events;
	char msg[STRIA_MSG_LEN];
	__u64 reserved[4];
};

/* stria_ioc_grow.op */
#define STRIA_GROW_MEMBERS	1	/* spares take new roles */
#define STRIA_GROW_BITMAP	2	/* a write-intent bitmap added or removed */
#define STRIA_GROW_SIZE		3	/* more of each member used */

/* stria_ioc_grow.bitmap */
#define STRIA_GROW_BITMAP_NONE		0	/* remove the bitmap */
#define STRIA_GROW_BITMAP_INTERNAL	1	/* add one, between superblock and data */

/* stria_ioc_grow.flags */
#define STRIA_GROW_F_CHECK	(1U << 0)	/* only say whether it would be refused */

/**
 * struct stria_ioc_grow - grow a running array
 * @size: in: sizeof(struct stria_ioc_grow)
 * @flags: in: STRIA_GROW_F_*
 * @index: in: N of /dev/striaN, used when @name is empty
 * @op: in: STRIA_GROW_MEMBERS, STRIA_GROW_BITMAP or STRIA_GROW_SIZE
 * @name: in: array name, or empty
 * @nr_members: in: STRIA_GROW_MEMBERS: the member count to grow to; else 0
 * @bitmap: in: STRIA_GROW_BITMAP: STRIA_GROW_BITMAP_*; else 0
 * @bitmap_chunk: in: STRIA_GROW_BITMAP_INTERNAL: the region size in
 *	member sectors, 0 for the default (raised until the bitmap fits, as
 *	at create); else 0
 * @reserved0: in: must be zero
 * @events: out: event count of the superblocks written for the change
 * @msg: out: on failure, why, NUL-terminated
 * @member_sectors: in: STRIA_GROW_SIZE: the data sectors each member is to
 *	give, 0 for all that every member and spare holds; else 0. Out
 *	(STRIA_GROW_SIZE): what each member gives now (with
 *	STRIA_GROW_F_CHECK: would give)
 * @reserved: in: must be zero
 *
 * STRIA_GROW_MEMBERS (STRIA_FEAT_GROW_MIRROR) adds copies to a RAID1
 * array: roles nr_members .. @nr_members - 1 are taken by the spares
 * added last, in the order they were added, and rebuilt from the members
 * in sync in the background (STRIA_IOC_QUERY reports a rebuild); the
 * superblocks record the new count before the rebuild starts. The
 * capacity does not change. Refused: another level (EOPNOTSUPP), a count
 * not above the current one or above 4 copies (EINVAL), a degraded array
 * (EINVAL), a sync running or a resync owed (EBUSY), fewer spares than
 * new roles (ENOSPC), a read-only array (EROFS). Nothing changes then.
 * With STRIA_GROW_F_CHECK nothing changes either way: the request is
 * refused as it would be, but for the spares it lacks, or succeeds (so a
 * tool can check before it adds the spares).
 *
 * STRIA_GROW_MEMBERS on RAID0 (STRIA_FEAT_GROW_RESTRIPE) restripes the
 * array onto more members: the spares added last (STRIA_MEMBER_F_GROW)
 * take roles nr_members .. @nr_members - 1, the superblocks record the
 * reshape, and a sync (STRIA_SYNC_RESHAPE) moves the data in place to the
 * new layout in the background while the array stays in use, recording
 * its checkpoint in the superblocks as it goes; a stop or a crash goes on
 * from there at the next assembly. The capacity grows when it ends.
 * Refused as above, and when the members are too small for the step's
 * backup (ENOSPC); RAID5 and RAID6 are not restriped yet (EOPNOTSUPP).
 *
 * STRIA_GROW_BITMAP (STRIA_FEAT_GROW_BITMAP) adds a write-intent bitmap to
 * a running RAID1, 5, 6 or 10 array, or removes it. Added: the members'
 * caches are flushed with the queue frozen, a clean bitmap is written to
 * every member and spare, and the superblocks record it before any write
 * goes on. Removed: the superblocks stop recording it before any write
 * goes on, so a crash never trusts a bitmap that missed a write. Refused:
 * RAID0 (EINVAL), a bitmap there already (EEXIST) or none to remove
 * (EINVAL), a region size that does not fit (EINVAL), adding to
 * a degraded array (EINVAL: the bitmap could not say what the missing
 * members missed), a sync running or a resync owed (EBUSY), a read-only
 * array (EROFS).
 *
 * STRIA_GROW_SIZE (STRIA_FEAT_GROW_SIZE) makes the array use more of its
 * members, once every member (and spare) is larger than the array uses:
 * after its drives were replaced by larger ones, or grew. The new space of
 * each member is zeroed first on the levels with copies or parity (so it
 * reads as zeroes and its parity matches), then, with the queue frozen,
 * the geometry and the bitmap (whose regions may have to grow) change and
 * the superblocks record the size; the capacity grows last. Refused: a
 * RAID10 far layout, whose copies would move (EOPNOTSUPP); a size not above
 * the current one, or above what the members hold (EINVAL, ENOSPC); a
 * degraded array (EINVAL); a sync running or a resync owed (EBUSY); a
 * read-only array (EROFS).
 */
struct stria_ioc_grow {
	__u32 size;
	__u32 flags;
	__u32 index;
	__u32 op;
	char name[STRIA_NAME_LEN];
	__u32 nr_members;
	__u32 bitmap;
	__u32 bitmap_chunk;
	__u32 reserved0;
	__u64 events;
	char msg[STRIA_MSG_LEN];
	__u64 member_sectors;
	__u64 reserved[6];
};

#define STRIA_IOC_CREATE	_IOWR(STRIA_IOC_MAGIC, 0x01, struct stria_ioc_array)
#define STRIA_IOC_ASSEMBLE	_IOWR(STRIA_IOC_MAGIC, 0x02, struct stria_ioc_array)
#define STRIA_IOC_STOP		_IOWR(STRIA_IOC_MAGIC, 0x03, struct stria_ioc_stop)
#define STRIA_IOC_QUERY		_IOWR(STRIA_IOC_MAGIC, 0x04, struct stria_ioc_query)
#define STRIA_IOC_MEMBER	_IOWR(STRIA_IOC_MAGIC, 0x05, struct stria_ioc_member_op)
#define STRIA_IOC_SYNC		_IOWR(STRIA_IOC_MAGIC, 0x06, struct stria_ioc_sync)
#define STRIA_IOC_MODE		_IOWR(STRIA_IOC_MAGIC, 0x07, struct stria_ioc_mode)
#define STRIA_IOC_GROW		_IOWR(STRIA_IOC_MAGIC, 0x08, struct stria_ioc_grow)

#endif /* _UAPI_LINUX_STRIA_H */
