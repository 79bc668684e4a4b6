/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stria on-disk superblock: the one definition of the format.
 *
 * Shared by the module (superblock.c) and user space (striactl examine,
 * selftests/unit/test_superblock.c), like geom.h: no kernel types beyond
 * fixed-width integers. All fields are little-endian. The format is
 * documented byte by byte in Documentation/stria/ondisk-format.rst; any
 * change here must be made there too and must bump the format version or
 * add a feature bit.
 *
 * A member starts with one 4 KiB superblock; the data area starts at
 * data_offset (1 MiB in format 1). The superblock's last four bytes are the
 * CRC-32C (Castagnoli) of the bytes before them.
 */
#ifndef _STRIA_ONDISK_H
#define _STRIA_ONDISK_H

#ifdef __KERNEL__
#include <linux/build_bug.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/types.h>
#include <asm/byteorder.h>
#define stria_le16(x)		le16_to_cpu(x)
#define stria_le32(x)		le32_to_cpu(x)
#define stria_le64(x)		le64_to_cpu(x)
#define stria_cpu_le32(x)	cpu_to_le32(x)
#define stria_cpu_le64(x)	cpu_to_le64(x)
#else
#include <assert.h>
#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <linux/types.h>
#define stria_le16(x)		le16toh(x)
#define stria_le32(x)		le32toh(x)
#define stria_le64(x)		le64toh(x)
#define stria_cpu_le32(x)	htole32(x)
#define stria_cpu_le64(x)	htole64(x)
#ifndef static_assert
#define static_assert _Static_assert
#endif
#endif

#include "geom_raid10.h"
#include "geom_reshape.h"

#define STRIA_SB_MAGIC		"STRIA-SB"	/* 8 bytes, no NUL */
#define STRIA_SB_MAGIC_LEN	8
#define STRIA_SB_SIZE		4096U		/* bytes */
#define STRIA_SB_CRC_OFFSET	(STRIA_SB_SIZE - 4)
#define STRIA_SB_FORMAT		1U		/* this format's version */
#define STRIA_SB_LAYOUT_RAID0	1U		/* geom.h RAID0 layout version */
#define STRIA_SB_LAYOUT_RAID56	1U		/* geom.h RAID5/6 layout version */
#define STRIA_SB_LAYOUT_RAID10	1U		/* geom_raid10.h RAID1/10 (md's) */
#define STRIA_SB_DATA_OFFSET	2048ULL		/* sectors: 1 MiB */
#define STRIA_SB_NAME_LEN	32		/* bytes, NUL-padded */
#define STRIA_SB_HOST_LEN	64		/* bytes, NUL-padded */
#define STRIA_SB_BITMAP_OFFSET	8U		/* sectors: right after the superblock */
#define STRIA_SB_BITMAP_BLOCK	4096U		/* bytes written at once */
/* bitmap bytes available between the superblock and the data area */
#define STRIA_SB_BITMAP_BYTES	((STRIA_SB_DATA_OFFSET - STRIA_SB_BITMAP_OFFSET) * 512U)
#define STRIA_SB_BITMAP_MAX_REGIONS	(STRIA_SB_BITMAP_BYTES * 8U)
/* region size when create names none: 64 MiB, mdadm's default */
#define STRIA_SB_BITMAP_DEFAULT_CHUNK	131072U	/* sectors */
#define STRIA_SB_BITMAP_MAX_CHUNK	(1U << 31)	/* sectors: 1 TiB */
#define STRIA_SB_UUID_LEN	16
/*
 * The highest event count a superblock may carry. Every superblock update
 * adds one: at one update per millisecond, 2^48 takes 8900 years. A count
 * near 2^64 can only be crafted, and would wrap at the next update and make
 * the freshest member look the stalest.
 */
#define STRIA_SB_EVENTS_MAX	(1ULL << 48)

/* state */
#define STRIA_SB_STATE_CLEAN	0U	/* stopped cleanly, or RAID5/6 idle */
#define STRIA_SB_STATE_ACTIVE	1U	/* written to, or stopped by a crash */

/* role of a spare: a member of the array that holds no role yet */
#define STRIA_SB_ROLE_SPARE	0xffffffffU

/* scrub_action: the scrub a checkpoint belongs to */
#define STRIA_SB_SCRUB_NONE	0U
#define STRIA_SB_SCRUB_CHECK	2U	/* = STRIA_SYNC_CHECK */
#define STRIA_SB_SCRUB_REPAIR	3U	/* = STRIA_SYNC_REPAIR */
#define STRIA_SB_SCRUB_RESYNC	4U	/* = STRIA_SYNC_RESYNC, after a crash */

/*
 * Feature bits. Unknown compat bits are ignored; an unknown incompat bit
 * means the member cannot be used safely and is refused.
 *
 * STRIA_SB_FEAT_INCOMPAT_REBUILD is set exactly while @rebuilding names a
 * role: such a member holds data only up to @rebuild_offset, and code that
 * does not know the field would assemble it as in sync and read garbage.
 *
 * STRIA_SB_FEAT_INCOMPAT_BITMAP: the array keeps a write-intent bitmap at
 * @bitmap_offset; code that does not maintain it would leave it stale, and
 * a later resync trusting it would skip regions written meanwhile.
 *
 * STRIA_SB_FEAT_INCOMPAT_HOMEHOST: @homehost names the host the array was
 * created on (mdadm's homehost). Harmless to ignore in itself, but code
 * from before it checks the bytes it occupies to be zero and would call
 * the superblock damaged: the incompatible bit makes such code say instead
 * that the member uses a feature it does not know. An array created
 * without a home host has neither the bit nor the field, and stays
 * readable by that code.
 *
 * STRIA_SB_FEAT_INCOMPAT_RESHAPE: the array is being restriped onto more
 * members (@reshape_from to @nr_members, geom_reshape.h): rows below
 * @reshape_pos are in the new layout, the others in the old one. Code that
 * does not know it would read every row in one layout.
 */
#define STRIA_SB_FEAT_INCOMPAT_REBUILD	(1ULL << 0)
#define STRIA_SB_FEAT_INCOMPAT_BITMAP	(1ULL << 1)
#define STRIA_SB_FEAT_INCOMPAT_HOMEHOST	(1ULL << 2)
#define STRIA_SB_FEAT_INCOMPAT_RESHAPE	(1ULL << 3)
#define STRIA_SB_FEAT_COMPAT_KNOWN	0ULL
#define STRIA_SB_FEAT_INCOMPAT_KNOWN	(STRIA_SB_FEAT_INCOMPAT_REBUILD | \
					 STRIA_SB_FEAT_INCOMPAT_BITMAP | \
					 STRIA_SB_FEAT_INCOMPAT_HOMEHOST | \
					 STRIA_SB_FEAT_INCOMPAT_RESHAPE)

/* reshape_flags */
#define STRIA_SB_RESHAPE_BACKUP	(1U << 0)	/* the critical rows' backup is whole */
#define STRIA_SB_RESHAPE_KNOWN	STRIA_SB_RESHAPE_BACKUP

/**
 * struct stria_sb - the superblock at byte 0 of every member
 * @magic: STRIA_SB_MAGIC
 * @format: STRIA_SB_FORMAT; a newer format is refused
 * @layout: layout version of the level's geometry (geom.h)
 * @features_compat: features an older reader may ignore
 * @features_incompat: features an older reader must refuse
 * @array_uuid: identity of the array, the same on every member
 * @member_uuid: identity of this member
 * @name: array name, NUL-padded, at most 31 characters
 * @level: RAID level
 * @chunk_sectors: chunk size in 512-byte sectors
 * @nr_members: members in the array
 * @role: this member's index in the array (0 .. nr_members - 1), or
 *	STRIA_SB_ROLE_SPARE on a spare
 * @data_offset: start of the data area on this member, in sectors
 * @data_sectors: data sectors used on every member, a multiple of the chunk
 * @dev_sectors: this member's size in sectors when the superblock was written
 * @events: event counter, raised on every superblock update
 * @state: STRIA_SB_STATE_*
 * @flags: zero in format 1
 * @ctime: creation time, seconds since the epoch
 * @utime: time of this update, seconds since the epoch
 * @failed: members marked failed when this superblock was written, bit i
 *	for role i; only bits below @nr_members may be set
 * @parity_layout: RAID5/6 parity layout, md's algorithm number
 *	(STRIA_LAYOUT_* of geom.h); 0 on RAID0; on RAID1 and RAID10 md's
 *	layout word (geom_raid10.h)
 * @scrub_action: STRIA_SB_SCRUB_* of the scrub @scrub_offset belongs to
 * @rebuild_offset: member sectors (from the data area's start) rebuilt on
 *	the roles in @rebuilding; a multiple of the chunk
 * @rebuilding: roles being rebuilt, bit i for role i; disjoint from
 *	@failed; nonzero exactly when STRIA_SB_FEAT_INCOMPAT_REBUILD is set
 * @scrub_offset: member sectors where an interrupted scrub goes on
 * @scrub_end: member sectors where that scrub ends
 * @bitmap_offset: first sector of the write-intent bitmap on the member,
 *	STRIA_SB_BITMAP_OFFSET; 0 without a bitmap
 * @bitmap_chunk: member data sectors one bit of the bitmap covers (a
 *	region), a power of two, at least the chunk; 0 without a bitmap.
 *	Set, with @bitmap_offset, exactly when STRIA_SB_FEAT_INCOMPAT_BITMAP is
 * @degraded_events: with a bitmap, the event count of the first superblock
 *	update of the array's current degraded spell (a role failed or being
 *	rebuilt ever since, so no bit was cleared since); 0 while no role is
 *	failed or rebuilding, and always 0 without a bitmap. A former member
 *	that left during the spell missed only writes the bitmap has dirty,
 *	and may be re-added with a partial rebuild (stria_sb_readd()).
 * @rebuild_partial: roles among @rebuilding that are re-added former
 *	members, rebuilt only in the regions the bitmap has dirty; a stopped
 *	rebuild of such roles only goes on the same way. Only with a bitmap,
 *	and always a subset of @rebuilding
 * @homehost: the host the array was created on, NUL-padded, at most 63
 *	characters of stria_host_valid(); all zero (and
 *	STRIA_SB_FEAT_INCOMPAT_HOMEHOST clear) when it records none
 * @reshape_pos: with STRIA_SB_FEAT_INCOMPAT_RESHAPE, the reshape's
 *	checkpoint: new-layout rows (chunks of every member) below it hold
 *	their data and are durable; 0 or at least the plan's critical rows,
 *	below its rows_new (stria_reshape_plan_init()); else 0
 * @reshape_from: with the feature, the members before the reshape, fewer
 *	than @nr_members (roles from it on are the added members); else 0
 * @reshape_flags: with the feature, STRIA_SB_RESHAPE_*; BACKUP only at
 *	@reshape_pos 0; else 0
 * @reserved: zero
 * @crc: CRC-32C of bytes 0 .. STRIA_SB_CRC_OFFSET - 1
 */
struct stria_sb {
	char	magic[STRIA_SB_MAGIC_LEN];	/*    0 */
	__le32	format;				/*    8 */
	__le32	layout;				/*   12 */
	__le64	features_compat;		/*   16 */
	__le64	features_incompat;		/*   24 */
	__u8	array_uuid[STRIA_SB_UUID_LEN];	/*   32 */
	__u8	member_uuid[STRIA_SB_UUID_LEN];	/*   48 */
	char	name[STRIA_SB_NAME_LEN];	/*   64 */
	__le32	level;				/*   96 */
	__le32	chunk_sectors;			/*  100 */
	__le32	nr_members;			/*  104 */
	__le32	role;				/*  108 */
	__le64	data_offset;			/*  112 */
	__le64	data_sectors;			/*  120 */
	__le64	dev_sectors;			/*  128 */
	__le64	events;				/*  136 */
	__le32	state;				/*  144 */
	__le32	flags;				/*  148 */
	__le64	ctime;				/*  152 */
	__le64	utime;				/*  160 */
	__le64	failed;				/*  168 */
	__le32	parity_layout;			/*  176 */
	__le32	scrub_action;			/*  180 */
	__le64	rebuild_offset;			/*  184 */
	__le64	rebuilding;			/*  192 */
	__le64	scrub_offset;			/*  200 */
	__le64	scrub_end;			/*  208 */
	__le32	bitmap_offset;			/*  216 */
	__le32	bitmap_chunk;			/*  220 */
	__le64	degraded_events;		/*  224 */
	__le64	rebuild_partial;		/*  232 */
	char	homehost[STRIA_SB_HOST_LEN];	/*  240 */
	__le64	reshape_pos;			/*  304 */
	__le32	reshape_from;			/*  312 */
	__le32	reshape_flags;			/*  316 */
	__u8	reserved[STRIA_SB_CRC_OFFSET - 320];	/*  320 */
	__le32	crc;				/* 4092 */
};

static_assert(sizeof(struct stria_sb) == STRIA_SB_SIZE, "superblock is 4 KiB");
static_assert(offsetof(struct stria_sb, crc) == STRIA_SB_CRC_OFFSET,
	      "CRC is the last word");
static_assert(offsetof(struct stria_sb, homehost) == 240,
	      "rebuild_partial ends at byte 240");
static_assert(offsetof(struct stria_sb, reshape_pos) == 304,
	      "homehost ends at byte 304");
static_assert(offsetof(struct stria_sb, reserved) == 320,
	      "the reshape record ends at byte 320");

/**
 * stria_name_char_ok() - may @c be part of an array name?
 * @c: the character
 *
 * Return: true for A-Z, a-z, 0-9, '.', '_' and '-'. Plain ASCII ranges, not
 * isalnum(): the kernel's ctype takes Latin-1 letters for letters too.
 */
static inline bool stria_name_char_ok(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

/* @len bytes at @buf: 1 to @len - 1 of stria_name_char_ok(), then NULs. */
static inline bool stria_ident_valid(const char *buf, size_t len)
{
	size_t i, n = 0;

	while (n < len && buf[n])
		n++;
	if (!n || n >= len || buf[0] == '.' || buf[0] == '-')
		return false;
	for (i = 0; i < len; i++)
		if (i < n ? !stria_name_char_ok(buf[i]) : buf[i] != '\0')
			return false;
	return true;
}

/**
 * stria_name_valid() - is this a valid array name?
 * @name: a buffer of STRIA_SB_NAME_LEN bytes (the superblock's, or an
 *	ioctl's, whose name field has the same size)
 *
 * An array name ends up in sysfs, in /dev/stria/NAME, in the kernel log and
 * in the KEY=value lines udev imports from striactl examine --export, so
 * it is held to one rule everywhere (module, striactl, on disk).
 *
 * Return: true when @name holds 1 to 31 characters of stria_name_char_ok(),
 * not starting with '.' or '-', and the rest of the buffer is NUL.
 */
static inline bool stria_name_valid(const char *name)
{
	return stria_ident_valid(name, STRIA_SB_NAME_LEN);
}

/**
 * stria_host_valid() - is this a valid home host?
 * @host: a buffer of STRIA_SB_HOST_LEN bytes (the superblock's, or an
 *	ioctl's)
 *
 * A home host reaches the same places as the name (sysfs, the kernel log,
 * udev's KEY=value lines) from any disk that is plugged in, so it is held
 * to the same rule: host names (RFC 1123 letters, digits, '-', and '.'
 * between labels) fit it, and '_' is allowed as in names.
 *
 * Return: true when @host holds 1 to 63 characters of stria_name_char_ok(),
 * not starting with '.' or '-', and the rest of the buffer is NUL.
 */
static inline bool stria_host_valid(const char *host)
{
	return stria_ident_valid(host, STRIA_SB_HOST_LEN);
}

/* Are the @len bytes at @p all zero? */
static inline bool stria_bytes_zero(const void *p, size_t len)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i])
			return false;
	return true;
}

/* Does a checked superblock record no home host? */
static inline bool stria_sb_no_host(const struct stria_sb *sb)
{
	return !(stria_le64(sb->features_incompat) &
		 STRIA_SB_FEAT_INCOMPAT_HOMEHOST);
}

/**
 * stria_range_fits() - does [@off, @off + @len) lie within @size?
 * @off: start
 * @len: length
 * @size: the size of what it must fit in
 *
 * The same units everywhere (sectors). Compares without adding, so a
 * crafted @len near 2^64 cannot wrap the sum to something small.
 *
 * Return: true when @off + @len <= @size, computed without overflow.
 */
static inline bool stria_range_fits(__u64 off, __u64 len, __u64 size)
{
	return off <= size && len <= size - off;
}

/*
 * The write-intent bitmap: bit r (byte r / 8, bit r % 8) of the area at
 * bitmap_offset is set while member data sectors [r * bitmap_chunk,
 * (r + 1) * bitmap_chunk) of every member may hold a write whose parity is
 * not known to be on stable storage. The same bitmap is on every member;
 * an assembly takes the union of the members in sync.
 */

/* log2 of a power of two */
static inline __u32 stria_bitmap_shift(__u32 pow2)
{
	__u32 shift = 0;

	while (shift < 31 && (1U << shift) < pow2)
		shift++;
	return shift;
}

/**
 * stria_bitmap_regions() - bits of a bitmap
 * @data_sectors: member data sectors (stria_sb.data_sectors)
 * @bitmap_chunk: sectors per region, a power of two
 *
 * Rounds up without adding, so no @data_sectors can wrap the count.
 *
 * Return: the regions covering @data_sectors: 0 only for 0 sectors.
 */
static inline __u64 stria_bitmap_regions(__u64 data_sectors,
					 __u32 bitmap_chunk)
{
	__u32 shift = stria_bitmap_shift(bitmap_chunk);

	return (data_sectors >> shift) +
	       !!(data_sectors & (((__u64)1 << shift) - 1));
}

/**
 * stria_bitmap_chunk_ok() - can a bitmap with this region size be used?
 * @data_sectors: member data sectors
 * @chunk_sectors: the array's chunk
 * @bitmap_chunk: sectors per region
 *
 * Return: true when @bitmap_chunk is a power of two from @chunk_sectors
 * (and at least one sector) to STRIA_SB_BITMAP_MAX_CHUNK, and its bits,
 * at least one, fit in STRIA_SB_BITMAP_BYTES.
 */
static inline int stria_bitmap_chunk_ok(__u64 data_sectors,
					__u32 chunk_sectors, __u32 bitmap_chunk)
{
	__u64 regions = stria_bitmap_regions(data_sectors, bitmap_chunk);

	return bitmap_chunk && bitmap_chunk >= chunk_sectors &&
	       bitmap_chunk <= STRIA_SB_BITMAP_MAX_CHUNK &&
	       !(bitmap_chunk & (bitmap_chunk - 1)) &&
	       regions && regions <= STRIA_SB_BITMAP_MAX_REGIONS;
}

/**
 * stria_bitmap_min_chunk() - the smallest region size that fits
 * @data_sectors: member data sectors
 * @chunk_sectors: the array's chunk, a power of two
 * @want: the region size asked for, or 0 for STRIA_SB_BITMAP_DEFAULT_CHUNK
 *
 * Return: @want (or the default) raised to the chunk size and then doubled
 * until the bitmap fits in the area before the data; a bitmap smaller than
 * asked is never chosen. 0 when nothing fits (only for absurd sizes).
 */
static inline __u32 stria_bitmap_min_chunk(__u64 data_sectors,
					   __u32 chunk_sectors, __u32 want)
{
	__u64 c = want ? want : STRIA_SB_BITMAP_DEFAULT_CHUNK;

	if (c < chunk_sectors)
		c = chunk_sectors;
	while (c <= STRIA_SB_BITMAP_MAX_CHUNK &&
	       !stria_bitmap_chunk_ok(data_sectors, chunk_sectors, (__u32)c))
		c <<= 1;
	return c <= STRIA_SB_BITMAP_MAX_CHUNK ? (__u32)c : 0;
}

#ifndef __KERNEL__
/*
 * CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), init ~0, final
 * xor ~0: the same value as ~crc32c(~0, buf, len) in the kernel. Bitwise:
 * it only ever runs over one 4 KiB superblock.
 */
static inline uint32_t stria_crc32c(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint32_t crc = 0xffffffffU;
	int k;

	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78U & (0U - (crc & 1)));
	}
	return ~crc;
}
#endif

/**
 * stria_sb_layout_version() - the layout version a level's superblock holds
 * @level: RAID level
 */
static inline __u32 stria_sb_layout_version(__u32 level)
{
	switch (level) {
	case 0:
		return STRIA_SB_LAYOUT_RAID0;
	case 1:
	case 10:
		return STRIA_SB_LAYOUT_RAID10;
	default:
		return STRIA_SB_LAYOUT_RAID56;
	}
}

/**
 * stria_parity_layout_name() - md's name of a parity layout
 * @level: RAID level
 * @layout: STRIA_LAYOUT_* (geom.h), or md's RAID10 layout word, as in
 *	stria_sb.parity_layout
 *
 * Return: "left-asymmetric", "right-asymmetric", "left-symmetric" or
 * "right-symmetric"; "none" on RAID0; on RAID1 and RAID10 md's names of
 * the layout word ("n2", "f2", "o2", ...); "unknown" when out of range.
 */
static inline const char *stria_parity_layout_name(__u32 level, __u32 layout)
{
	static const char *const names[] = {
		[STRIA_LAYOUT_LEFT_ASYMMETRIC]	= "left-asymmetric",
		[STRIA_LAYOUT_RIGHT_ASYMMETRIC]	= "right-asymmetric",
		[STRIA_LAYOUT_LEFT_SYMMETRIC]	= "left-symmetric",
		[STRIA_LAYOUT_RIGHT_SYMMETRIC]	= "right-symmetric",
	};

	static const char *const mirrors[3][STRIA_R10_MAX_COPIES + 1] = {
		{ NULL, NULL, "n2", "n3", "n4" },
		{ NULL, NULL, "f2", "f3", "f4" },
		{ NULL, NULL, "o2", "o3", "o4" },
	};
	__u32 near = layout & STRIA_R10_NEAR_MASK;
	__u32 far = (layout >> STRIA_R10_FAR_SHIFT) & STRIA_R10_FAR_MASK;

	if (level == 0)
		return "none";
	if (level == 1 || level == 10) {
		if (!stria_r10_layout_valid(layout, STRIA_GEOM_MAX_MEMBERS))
			return "unknown";
		return far == 1 ? mirrors[0][near] :
		       mirrors[layout & STRIA_R10_OFFSET ? 2 : 1][far];
	}
	return layout <= STRIA_LAYOUT_RIGHT_SYMMETRIC ? names[layout] :
	       "unknown";
}

/**
 * stria_sb_reshape_plan() - the plan of a superblock's reshape record
 * @sb: a superblock whose level, member count, chunk and data size are
 *	checked (stria_sb_check() does this once those are)
 * @p: filled with the plan
 *
 * Return: 0; -EINVAL when the record names no valid step for this array
 * (not RAID0, 5 or 6; a member count before that the level does not allow
 * or not below today's), -ENOSPC when its backup would not fit.
 */
static inline int stria_sb_reshape_plan(const struct stria_sb *sb,
					struct stria_reshape_plan *p)
{
	__u32 level = stria_le32(sb->level);
	__u32 nr = stria_le32(sb->nr_members);
	__u32 from = stria_le32(sb->reshape_from);
	__u32 parity = level == 6 ? 2 : level == 5 ? 1 : 0;
	__u32 chunk = stria_le32(sb->chunk_sectors), rem;

	if ((level != 0 && level != 5 && level != 6) || !chunk ||
	    from < parity + (level ? 2 : 1) || from >= nr)
		return -EINVAL;
	return stria_reshape_plan_init(p, from - parity, nr - parity,
				       nr - from,
				       div_u64_rem(stria_le64(sb->data_sectors),
						   chunk, &rem));
}

/**
 * stria_sb_check() - is this a superblock this code can use?
 * @sb: the 4 KiB read from the start of a member
 * @crc: CRC-32C of bytes 0 .. STRIA_SB_CRC_OFFSET - 1, computed by the
 *	caller (crc32c() in the kernel, stria_crc32c() in user space)
 * @why: buffer for the reason when the answer is no
 * @len: size of @why
 *
 * Checks the magic, the CRC, the format version and feature bits, and that
 * every field is in range and the reserved bytes are zero: level 0, 1, 5, 6
 * or 10
 * with at least 2, 3 or 4 members, a role below the member count or
 * STRIA_SB_ROLE_SPARE (a RAID0 holds spares only for a grow), a parity layout of 0..3 (0 on
 * RAID0), no failed or rebuilding bit at or beyond the member count, no
 * role both failed and rebuilding, a geometry stria_geom_init() accepts
 * as it is (the data a whole number of chunks, the array's size in bytes
 * within a loff_t), the rebuild feature bit set exactly when a role is
 * being rebuilt, sync checkpoints inside the data area, a bitmap of at
 * least one region that fits its area, a data area inside the device (no
 * sum that can wrap), a reshape record of a valid plan
 * (stria_sb_reshape_plan()) exactly with its feature bit, an event count
 * of at most STRIA_SB_EVENTS_MAX and a name of stria_name_valid(). Documentation/stria/ondisk-format.rst
 * ("Trust") lists the checks in order.
 *
 * Return: 0 when usable; -ENODATA when there is no stria superblock (wrong
 * magic); -EBADMSG when it is damaged; -EPROTONOSUPPORT when it is valid but
 * from a newer, unknown format or uses unknown incompatible features.
 */
static inline int stria_sb_check(const struct stria_sb *sb, __u32 crc,
				 char *why, size_t len)
{
	__u32 nr = stria_le32(sb->nr_members);
	__u32 level = stria_le32(sb->level);
	__u32 playout = stria_le32(sb->parity_layout);
	__u64 incompat = stria_le64(sb->features_incompat);
	__u64 failed = stria_le64(sb->failed);
	__u64 rebuilding = stria_le64(sb->rebuilding);
	__u64 dsec = stria_le64(sb->data_sectors);
	__u32 role = stria_le32(sb->role);
	__u32 scrub = stria_le32(sb->scrub_action);
	__u32 min_members;
	struct stria_geom g;
	bool bad_reshape;
	size_t i;

	if (memcmp(sb->magic, STRIA_SB_MAGIC, STRIA_SB_MAGIC_LEN)) {
		snprintf(why, len, "no stria superblock");
		return -ENODATA;
	}
	if (crc != stria_le32(sb->crc)) {
		snprintf(why, len,
			 "superblock checksum mismatch (stored %08x, computed %08x)",
			 stria_le32(sb->crc), crc);
		return -EBADMSG;
	}
	if (stria_le32(sb->format) != STRIA_SB_FORMAT) {
		snprintf(why, len,
			 "superblock format %u is not supported (this code knows format %u)",
			 stria_le32(sb->format), STRIA_SB_FORMAT);
		return -EPROTONOSUPPORT;
	}
	if (incompat & ~STRIA_SB_FEAT_INCOMPAT_KNOWN) {
		snprintf(why, len,
			 "superblock uses unknown incompatible features 0x%llx",
			 (unsigned long long)(incompat &
					      ~STRIA_SB_FEAT_INCOMPAT_KNOWN));
		return -EPROTONOSUPPORT;
	}
	if ((level != 0 && level != 1 && level != 5 && level != 6 &&
	     level != 10) ||
	    stria_le32(sb->layout) != stria_sb_layout_version(level)) {
		snprintf(why, len, "unsupported level %u layout %u",
			 level, stria_le32(sb->layout));
		return -EPROTONOSUPPORT;
	}
	min_members = level == 6 ? 4 : level == 5 ? 3 : 2;
	if (nr < min_members || nr > STRIA_GEOM_MAX_MEMBERS ||
	    (role >= nr && role != STRIA_SB_ROLE_SPARE)) {
		snprintf(why, len, "bad member count %u or role %u (RAID%u: %u to %u members)",
			 nr, role, level, min_members, STRIA_GEOM_MAX_MEMBERS);
		return -EBADMSG;
	}
	if (level == 5 || level == 6 ? playout > STRIA_LAYOUT_RIGHT_SYMMETRIC :
	    level == 10 ? !stria_r10_layout_valid(playout, nr) :
	    level == 1 ? playout != stria_r10_layout(nr, 1, false) :
	    playout != 0) {
		snprintf(why, len, level == 1 || level == 10 ?
			 "bad mirror layout 0x%x for RAID%u of %u members" :
			 "bad parity layout %u for RAID%u", playout, level, nr);
		return -EBADMSG;
	}
	if (stria_geom_setup(&g, level, playout, nr,
			     stria_le32(sb->chunk_sectors), dsec) ||
	    g.member_sectors != dsec) {
		snprintf(why, len, "bad geometry: %u-sector chunks, %llu data sectors x %u members",
			 stria_le32(sb->chunk_sectors),
			 (unsigned long long)dsec, nr);
		return -EBADMSG;
	}
	if (nr < 64 && failed >> nr) {
		snprintf(why, len, "failed-member bitmap 0x%llx names roles beyond the %u members",
			 (unsigned long long)failed, nr);
		return -EBADMSG;
	}
	if ((nr < 64 && rebuilding >> nr) || (rebuilding & failed) ||
	    !rebuilding != !(incompat & STRIA_SB_FEAT_INCOMPAT_REBUILD)) {
		snprintf(why, len, "bad rebuild record: roles 0x%llx, failed 0x%llx, features 0x%llx",
			 (unsigned long long)rebuilding,
			 (unsigned long long)failed,
			 (unsigned long long)incompat);
		return -EBADMSG;
	}
	if ((!rebuilding && stria_le64(sb->rebuild_offset)) ||
	    stria_le64(sb->rebuild_offset) > dsec) {
		snprintf(why, len, "bad rebuild offset %llu of %llu sectors",
			 (unsigned long long)stria_le64(sb->rebuild_offset),
			 (unsigned long long)dsec);
		return -EBADMSG;
	}
	if ((scrub != STRIA_SB_SCRUB_NONE && scrub != STRIA_SB_SCRUB_CHECK &&
	     scrub != STRIA_SB_SCRUB_REPAIR &&
	     scrub != STRIA_SB_SCRUB_RESYNC) ||
	    (scrub == STRIA_SB_SCRUB_NONE && (sb->scrub_offset || sb->scrub_end)) ||
	    (scrub != STRIA_SB_SCRUB_NONE &&
	     (!level || stria_le64(sb->scrub_offset) >=
	      stria_le64(sb->scrub_end) || stria_le64(sb->scrub_end) > dsec))) {
		snprintf(why, len, "bad scrub record: action %u from %llu to %llu of %llu sectors",
			 scrub, (unsigned long long)stria_le64(sb->scrub_offset),
			 (unsigned long long)stria_le64(sb->scrub_end),
			 (unsigned long long)dsec);
		return -EBADMSG;
	}
	if ((incompat & STRIA_SB_FEAT_INCOMPAT_BITMAP) ?
	    (!level || stria_le32(sb->bitmap_offset) != STRIA_SB_BITMAP_OFFSET ||
	     !stria_bitmap_chunk_ok(dsec, stria_le32(sb->chunk_sectors),
				    stria_le32(sb->bitmap_chunk))) :
	    (sb->bitmap_offset || sb->bitmap_chunk)) {
		snprintf(why, len, "bad write-intent bitmap: offset %u, %u-sector regions, features 0x%llx",
			 stria_le32(sb->bitmap_offset),
			 stria_le32(sb->bitmap_chunk),
			 (unsigned long long)incompat);
		return -EBADMSG;
	}
	if (stria_le64(sb->degraded_events) &&
	    (!(incompat & STRIA_SB_FEAT_INCOMPAT_BITMAP) || !(failed | rebuilding) ||
	     stria_le64(sb->degraded_events) > stria_le64(sb->events))) {
		snprintf(why, len, "bad degraded_events %llu: events %llu, failed 0x%llx, rebuilding 0x%llx, features 0x%llx",
			 (unsigned long long)stria_le64(sb->degraded_events),
			 (unsigned long long)stria_le64(sb->events),
			 (unsigned long long)failed,
			 (unsigned long long)rebuilding,
			 (unsigned long long)incompat);
		return -EBADMSG;
	}
	if (stria_le64(sb->rebuild_partial) &&
	    (!(incompat & STRIA_SB_FEAT_INCOMPAT_BITMAP) ||
	     (stria_le64(sb->rebuild_partial) & ~rebuilding))) {
		snprintf(why, len, "bad rebuild_partial 0x%llx: rebuilding 0x%llx, features 0x%llx",
			 (unsigned long long)stria_le64(sb->rebuild_partial),
			 (unsigned long long)rebuilding,
			 (unsigned long long)incompat);
		return -EBADMSG;
	}
	if (stria_le64(sb->data_offset) != STRIA_SB_DATA_OFFSET ||
	    !stria_range_fits(stria_le64(sb->data_offset), dsec,
			      stria_le64(sb->dev_sectors))) {
		snprintf(why, len, "bad data area: offset %llu size %llu on a device of %llu sectors",
			 (unsigned long long)stria_le64(sb->data_offset),
			 (unsigned long long)stria_le64(sb->data_sectors),
			 (unsigned long long)stria_le64(sb->dev_sectors));
		return -EBADMSG;
	}
	if (stria_le64(sb->events) > STRIA_SB_EVENTS_MAX) {
		snprintf(why, len, "implausible event count %llu (at most 2^48)",
			 (unsigned long long)stria_le64(sb->events));
		return -EBADMSG;
	}
	if (stria_le32(sb->state) > STRIA_SB_STATE_ACTIVE ||
	    stria_le32(sb->flags)) {
		snprintf(why, len, "bad state %u or flags 0x%x",
			 stria_le32(sb->state), stria_le32(sb->flags));
		return -EBADMSG;
	}
	if (!stria_name_valid(sb->name)) {
		snprintf(why, len, "bad array name (1 to 31 of A-Z a-z 0-9 . _ -)");
		return -EBADMSG;
	}
	if ((incompat & STRIA_SB_FEAT_INCOMPAT_HOMEHOST) ?
	    !stria_host_valid(sb->homehost) :
	    !stria_bytes_zero(sb->homehost, STRIA_SB_HOST_LEN)) {
		snprintf(why, len, "bad home host (1 to 63 of A-Z a-z 0-9 . _ -, set exactly with feature 0x%llx)",
			 (unsigned long long)STRIA_SB_FEAT_INCOMPAT_HOMEHOST);
		return -EBADMSG;
	}
	if (incompat & STRIA_SB_FEAT_INCOMPAT_RESHAPE) {
		struct stria_reshape_plan plan;
		__u64 pos = stria_le64(sb->reshape_pos);
		__u32 rflags = stria_le32(sb->reshape_flags);

		bad_reshape = rebuilding || stria_sb_reshape_plan(sb, &plan) ||
			      (rflags & ~STRIA_SB_RESHAPE_KNOWN) ||
			      ((rflags & STRIA_SB_RESHAPE_BACKUP) && pos) ||
			      (pos && (pos < plan.critical ||
				       pos >= plan.rows_new));
	} else {
		bad_reshape = sb->reshape_pos || sb->reshape_from ||
			      sb->reshape_flags;
	}
	if (bad_reshape) {
		snprintf(why, len, "bad reshape record: from %u to %u members, row %llu, flags 0x%x, rebuilding 0x%llx, features 0x%llx",
			 stria_le32(sb->reshape_from), nr,
			 (unsigned long long)stria_le64(sb->reshape_pos),
			 stria_le32(sb->reshape_flags),
			 (unsigned long long)rebuilding,
			 (unsigned long long)incompat);
		return -EBADMSG;
	}
	for (i = 0; i < sizeof(sb->reserved); i++) {
		if (sb->reserved[i]) {
			snprintf(why, len, "nonzero reserved byte at offset %zu",
				 offsetof(struct stria_sb, reserved) + i);
			return -EBADMSG;
		}
	}
	return 0;
}

/**
 * stria_sb_same_array() - do two checked superblocks describe one array?
 * @a: a superblock stria_sb_check() accepted
 * @b: another one
 *
 * Assembly takes the array's identity and shape from one member and the
 * state from the freshest: every member must agree on everything that
 * never changes in an array's life. A RAID1 array's member count (and its
 * layout word, which follows from it), the count of an array being
 * reshaped and any array's data size grow: stria_sb_count_follows()
 * judges them against the freshest superblock.
 *
 * Return: true when the array UUID, name, home host, level, layout
 * versions, member count (but on RAID1, or when either records a
 * reshape), chunk and data offset are the same.
 */
static inline bool stria_sb_same_array(const struct stria_sb *a,
				       const struct stria_sb *b)
{
	return !memcmp(a->array_uuid, b->array_uuid, STRIA_SB_UUID_LEN) &&
	       !memcmp(a->name, b->name, STRIA_SB_NAME_LEN) &&
	       !memcmp(a->homehost, b->homehost, STRIA_SB_HOST_LEN) &&
	       a->level == b->level && a->layout == b->layout &&
	       ((a->parity_layout == b->parity_layout &&
		 a->nr_members == b->nr_members) || stria_le32(a->level) == 1 ||
		((a->features_incompat | b->features_incompat) &
		 stria_cpu_le64(STRIA_SB_FEAT_INCOMPAT_RESHAPE))) &&
	       a->chunk_sectors == b->chunk_sectors &&
	       a->data_offset == b->data_offset;
}

/**
 * stria_sb_reshape_begun_before() - is @sb from just before @fresh's reshape?
 * @sb: a member's superblock
 * @fresh: the superblock with the most events of the members given
 *
 * A reshape is recorded in every superblock before any data moves: a
 * crash in between leaves some with the count before and no record. Such
 * a superblock is one update behind a record at row 0 without a backup,
 * and nothing has moved yet.
 *
 * Return: true when @fresh records a reshape from @sb's member count that
 * has moved nothing, @sb records none, and has the same size.
 */
static inline bool stria_sb_reshape_begun_before(const struct stria_sb *sb,
						 const struct stria_sb *fresh)
{
	return (stria_le64(fresh->features_incompat) &
		STRIA_SB_FEAT_INCOMPAT_RESHAPE) &&
	       !(stria_le64(sb->features_incompat) &
		 STRIA_SB_FEAT_INCOMPAT_RESHAPE) &&
	       !fresh->reshape_pos && !fresh->reshape_flags &&
	       sb->nr_members == fresh->reshape_from &&
	       sb->parity_layout == fresh->parity_layout &&
	       sb->data_sectors == fresh->data_sectors;
}

/**
 * stria_sb_count_follows() - may a member record this member count and size?
 * @sb: a member's superblock, stria_sb_same_array() with @fresh
 * @fresh: the superblock with the most events of the members given
 *
 * Only a RAID1 array's count changes, and only up (a grow adds copies),
 * or an array's that begins a reshape (stria_sb_reshape_begun_before()),
 * and the data size only up (a grow into larger members): the superblocks
 * a crash kept a grow's update from reach record fewer members or fewer
 * sectors, and are older. Their roles are below their own count, so below
 * the freshest's too.
 *
 * Return: true when the counts and sizes are equal, or @sb is older than
 * @fresh and records fewer members (RAID1 only) or fewer sectors, and
 * none of either more.
 */
static inline bool stria_sb_count_follows(const struct stria_sb *sb,
					  const struct stria_sb *fresh)
{
	bool same_count = sb->nr_members == fresh->nr_members &&
			  sb->parity_layout == fresh->parity_layout;
	bool older = stria_le64(sb->events) < stria_le64(fresh->events);

	if (same_count && sb->data_sectors == fresh->data_sectors)
		return true;
	if (!older ||
	    stria_le64(sb->data_sectors) > stria_le64(fresh->data_sectors))
		return false;
	if (stria_sb_reshape_begun_before(sb, fresh))
		return true;
	return same_count ||
	       (stria_le32(sb->level) == 1 &&
		stria_le32(sb->nr_members) < stria_le32(fresh->nr_members));
}

/* stria_sb_readd(): may a former member go back with a partial rebuild? */
#define STRIA_READD_PARTIAL	0	/* yes: only the bitmap's dirty regions */
#define STRIA_READD_REBUILDING	1	/* no: it was being rebuilt itself */
#define STRIA_READD_APART	2	/* no: it ran without members in sync */
#define STRIA_READD_SPELL	3	/* no: it left outside the degraded spell */
#define STRIA_READD_ROLE	4	/* no: it held no role (a spare's superblock) */

/**
 * stria_sb_readd() - may a former member be rebuilt only where the bitmap
 *	is dirty?
 * @sb: the former member's superblock, stria_sb_check() accepted, of the
 *	running array (same array UUID), its role below the member count
 * @events: the running array's event count
 * @degraded_events: the running array's degraded spell, as its superblocks
 *	record it (stria_sb.degraded_events): 0 when none
 * @in_sync: the roles the running array holds in sync, bit i for role i
 *
 * The running array keeps a write-intent bitmap and the role of @sb has
 * failed in it (the caller checks both). Only writes that the running
 * array made while the device was away are in its bitmap: writes made to
 * the device while it ran without the array are in no bitmap of the
 * array's. Event counts alone cannot tell those apart: two halves of a
 * split brain, each started degraded from the same stop, count from the
 * same number, and either may be ahead. So, as mdadm ignores a device
 * whose superblock reports the freshest device as failed, the device's
 * own view of the members counts too. It may go back partially when:
 *
 * - its superblock does not name its own role as rebuilding (it held
 *   data everywhere when it left);
 * - its superblock names no role as failed or rebuilding that the running
 *   array holds in sync (@in_sync): one that does ran without those
 *   members, so it lived apart from the array (or left before they came
 *   back, where a full rebuild is merely slower than needed);
 * - it left during the array's current degraded spell: either just as it
 *   began (its @events at most two updates before @degraded_events: the
 *   update whose write failed on it, then the one recording the failure)
 *   or later, and then its own superblock records the same spell (its
 *   degraded_events equals @degraded_events) and is behind @events.
 *
 * Return: STRIA_READD_PARTIAL, or why not: STRIA_READD_REBUILDING,
 * STRIA_READD_APART, STRIA_READD_SPELL, or STRIA_READD_ROLE for a role of
 * 64 or more (a spare's).
 */
static inline int stria_sb_readd(const struct stria_sb *sb, __u64 events,
				 __u64 degraded_events, __u64 in_sync)
{
	__u64 ev = stria_le64(sb->events);
	__u64 not_in_sync = stria_le64(sb->failed) | stria_le64(sb->rebuilding);
	__u32 role = stria_le32(sb->role);

	if (role >= 64)
		return STRIA_READD_ROLE;
	if ((stria_le64(sb->rebuilding) >> role) & 1)
		return STRIA_READD_REBUILDING;
	if (not_in_sync & in_sync)
		return STRIA_READD_APART;
	if (!degraded_events || ev >= events)
		return STRIA_READD_SPELL;
	if (ev + 2 >= degraded_events && ev < degraded_events)
		return STRIA_READD_PARTIAL;
	if (ev >= degraded_events &&
	    stria_le64(sb->degraded_events) == degraded_events)
		return STRIA_READD_PARTIAL;
	return STRIA_READD_SPELL;
}

/**
 * stria_sb_geom() - the geometry of a checked superblock
 * @sb: a superblock stria_sb_check() accepted
 * @g: filled
 *
 * Return: 0; -EINVAL only for a superblock stria_sb_check() refuses.
 */
static inline int stria_sb_geom(const struct stria_sb *sb,
				struct stria_geom *g)
{
	int ret = stria_geom_setup(g, stria_le32(sb->level),
				  stria_le32(sb->parity_layout),
				  stria_le32(sb->nr_members),
				  stria_le32(sb->chunk_sectors),
				  stria_le64(sb->data_sectors));

	return ret ? ret :
	       g->member_sectors == stria_le64(sb->data_sectors) ? 0 : -EINVAL;
}

#endif /* _STRIA_ONDISK_H */
