// SPDX-License-Identifier: GPL-2.0
/*
 * The on-disk superblock (drivers/stria/ondisk.h) in user space: field
 * offsets as documented in Documentation/stria/ondisk-format.rst, the
 * CRC-32C check value, and stria_sb_check() on good, damaged, foreign and
 * newer superblocks, RAID0, RAID5 and RAID6, with and without failed
 * members, spares, rebuild and scrub checkpoints and write-intent bitmaps;
 * the bitmap's region-size helpers. TAP output on stdout.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ondisk.h"
#include "tap.h"


static void seal(struct stria_sb *sb)
{
	sb->crc = stria_cpu_le32(stria_crc32c(sb, STRIA_SB_CRC_OFFSET));
}

static int check(const struct stria_sb *sb, char *why, size_t len)
{
	return stria_sb_check(sb, stria_crc32c(sb, STRIA_SB_CRC_OFFSET), why,
			      len);
}

static void good_sb(struct stria_sb *sb)
{
	int i;

	memset(sb, 0, sizeof(*sb));
	memcpy(sb->magic, STRIA_SB_MAGIC, STRIA_SB_MAGIC_LEN);
	sb->format = stria_cpu_le32(STRIA_SB_FORMAT);
	sb->layout = stria_cpu_le32(STRIA_SB_LAYOUT_RAID0);
	for (i = 0; i < STRIA_SB_UUID_LEN; i++) {
		sb->array_uuid[i] = (unsigned char)i;
		sb->member_uuid[i] = (unsigned char)(0xa0 + i);
	}
	strcpy(sb->name, "golden");
	sb->level = 0;
	sb->chunk_sectors = stria_cpu_le32(128);
	sb->nr_members = stria_cpu_le32(4);
	sb->role = stria_cpu_le32(2);
	sb->data_offset = stria_cpu_le64(STRIA_SB_DATA_OFFSET);
	sb->data_sectors = stria_cpu_le64(522240);
	sb->dev_sectors = stria_cpu_le64(524288);
	sb->events = stria_cpu_le64(7);
	sb->state = stria_cpu_le32(STRIA_SB_STATE_ACTIVE);
	sb->ctime = stria_cpu_le64(1700000000);
	sb->utime = stria_cpu_le64(1700000100);
	seal(sb);
}

/* The golden RAID0 superblock turned into a 5-member RAID6, one failed. */
static void good_raid6(struct stria_sb *sb)
{
	good_sb(sb);
	sb->level = stria_cpu_le32(6);
	sb->layout = stria_cpu_le32(STRIA_SB_LAYOUT_RAID56);
	sb->nr_members = stria_cpu_le32(5);
	sb->parity_layout = stria_cpu_le32(STRIA_LAYOUT_RIGHT_SYMMETRIC);
	sb->failed = stria_cpu_le64(1ULL << 4);
	seal(sb);
}

/* A superblock of @level with @nr members, parity layout @pl, failed roles. */
static int check_shape(struct stria_sb *sb, unsigned int level,
		       unsigned int nr, unsigned int pl, unsigned long long failed,
		       char *why, size_t len)
{
	good_sb(sb);
	sb->level = stria_cpu_le32(level);
	sb->layout = stria_cpu_le32(stria_sb_layout_version(level));
	sb->nr_members = stria_cpu_le32(nr);
	sb->role = stria_cpu_le32(0);
	sb->parity_layout = stria_cpu_le32(pl);
	sb->failed = stria_cpu_le64(failed);
	seal(sb);
	return check(sb, why, len);
}

/* The golden RAID6 superblock with a bitmap of @bitmap_chunk-sector regions. */
static void good_bitmap(struct stria_sb *sb, __u32 bitmap_chunk)
{
	good_raid6(sb);
	sb->bitmap_offset = stria_cpu_le32(STRIA_SB_BITMAP_OFFSET);
	sb->bitmap_chunk = stria_cpu_le32(bitmap_chunk);
	sb->features_incompat = stria_cpu_le64(STRIA_SB_FEAT_INCOMPAT_BITMAP);
	seal(sb);
}

/* Make @sb's members hold @data_sectors (and the device just enough). */
static void set_data_sectors(struct stria_sb *sb, __u64 data_sectors)
{
	sb->data_sectors = stria_cpu_le64(data_sectors);
	sb->dev_sectors = stria_cpu_le64(STRIA_SB_DATA_OFFSET + data_sectors);
	seal(sb);
}

/* stria_bitmap_regions(), _chunk_ok() and _min_chunk() at their edges. */
static void test_bitmap_helpers(void)
{
	const __u64 full = (__u64)STRIA_SB_BITMAP_MAX_REGIONS * 128;
	const __u64 full_default = (__u64)STRIA_SB_BITMAP_MAX_REGIONS *
				   STRIA_SB_BITMAP_DEFAULT_CHUNK;
	const __u64 full_max = (__u64)STRIA_SB_BITMAP_MAX_REGIONS *
			       STRIA_SB_BITMAP_MAX_CHUNK;

	tap(STRIA_SB_BITMAP_BYTES == 1044480 &&
	    STRIA_SB_BITMAP_MAX_REGIONS == 8355840 &&
	    STRIA_SB_BITMAP_BYTES % STRIA_SB_BITMAP_BLOCK == 0,
	    "the bitmap area is 1044480 bytes (255 blocks), 8355840 regions");
	tap(stria_bitmap_shift(1) == 0 && stria_bitmap_shift(2048) == 11 &&
	    stria_bitmap_shift(STRIA_SB_BITMAP_MAX_CHUNK) == 31,
	    "bitmap shift of 1, 2048 and 2^31 is 0, 11 and 31");
	tap(stria_bitmap_regions(0, 128) == 0 &&
	    stria_bitmap_regions(1, 128) == 1 &&
	    stria_bitmap_regions(522240, 1024) == 510 &&
	    stria_bitmap_regions(522241, 1024) == 511,
	    "regions round up: 0, 1, 510 and 511");

	tap(stria_bitmap_regions(full, 128) == STRIA_SB_BITMAP_MAX_REGIONS &&
	    stria_bitmap_chunk_ok(full, 128, 128),
	    "a bitmap that fills the area exactly is accepted");
	tap(stria_bitmap_regions(full + 1, 128) ==
	    STRIA_SB_BITMAP_MAX_REGIONS + 1 &&
	    !stria_bitmap_chunk_ok(full + 1, 128, 128),
	    "one region over the area is refused");
	tap(stria_bitmap_chunk_ok(full + 1, 128, 256),
	    "twice the region size fits again");
	tap(stria_bitmap_min_chunk(full, 128, 128) == 128 &&
	    stria_bitmap_min_chunk(full + 1, 128, 128) == 256,
	    "min_chunk keeps 128 when it fits, doubles to 256 when one region over");

	tap(!stria_bitmap_chunk_ok(522240, 128, 3072) &&
	    !stria_bitmap_chunk_ok(522240, 128, 0) &&
	    !stria_bitmap_chunk_ok(522240, 2048, 1024) &&
	    stria_bitmap_chunk_ok(522240, 2048, 2048) &&
	    stria_bitmap_chunk_ok(522240, 128, STRIA_SB_BITMAP_MAX_CHUNK),
	    "chunk_ok: not 3072 (not a power of two), 0 or below the chunk; the chunk and 2^31 are");

	tap(stria_bitmap_min_chunk(522240, 128, 0) ==
	    STRIA_SB_BITMAP_DEFAULT_CHUNK,
	    "the default region is 64 MiB (131072 sectors) on a small member");
	tap(stria_bitmap_min_chunk(full_default, 128, 0) ==
	    STRIA_SB_BITMAP_DEFAULT_CHUNK &&
	    stria_bitmap_min_chunk(full_default + 1, 128, 0) ==
	    2 * STRIA_SB_BITMAP_DEFAULT_CHUNK,
	    "the default is kept up to a full area and doubled one sector beyond");
	tap(stria_bitmap_min_chunk(522240, 2048, 128) == 2048 &&
	    stria_bitmap_min_chunk(522240, 2048, 1024) == 2048,
	    "a region asked below the chunk is raised to the chunk");
	tap(stria_bitmap_min_chunk(522240, 128, 4096) == 4096,
	    "a region asked that fits is kept");
	tap(stria_bitmap_min_chunk(full_max, 128, 0) ==
	    STRIA_SB_BITMAP_MAX_CHUNK &&
	    stria_bitmap_min_chunk(full_max + 1, 128, 0) == 0 &&
	    stria_bitmap_min_chunk(~0ULL >> 2, 128, 0) == 0,
	    "1 TiB regions are the last resort; beyond, no region size fits (0)");
}

/* stria_sb_check() on the bitmap fields and feature bit. */
static void test_bitmap_sb(struct stria_sb *sb)
{
	char why[160];
	int ret;

	good_bitmap(sb, 1024);
	ret = check(sb, why, sizeof(why));
	tap(ret == 0, "a RAID6 superblock with a bitmap of 510 regions passes (%s)",
	    ret ? why : "");
	tap(stria_le32(sb->crc) == 0xb814f0adU,
	    "golden bitmap superblock CRC is b814f0ad (got %08x)",
	    stria_le32(sb->crc));

	good_raid6(sb);
	sb->features_incompat = stria_cpu_le64(STRIA_SB_FEAT_INCOMPAT_BITMAP);
	seal(sb);
	ret = check(sb, why, sizeof(why));
	tap(ret == -EBADMSG && strstr(why, "bitmap"),
	    "the bitmap bit without offset and region size refused (%s)", why);
	good_bitmap(sb, 1024);
	sb->bitmap_chunk = 0;
	seal(sb);
	tap(check(sb, why, sizeof(why)) == -EBADMSG,
	    "the bitmap bit and offset without a region size refused (%s)", why);
	good_bitmap(sb, 1024);
	sb->features_incompat = 0;
	seal(sb);
	ret = check(sb, why, sizeof(why));
	tap(ret == -EBADMSG && strstr(why, "bitmap"),
	    "bitmap fields without the incompat bit refused (%s)", why);
	good_raid6(sb);
	sb->bitmap_chunk = stria_cpu_le32(1024);
	seal(sb);
	tap(check(sb, why, sizeof(why)) == -EBADMSG,
	    "a region size alone refused (%s)", why);
	good_bitmap(sb, 1024);
	sb->bitmap_offset = stria_cpu_le32(16);
	seal(sb);
	ret = check(sb, why, sizeof(why));
	tap(ret == -EBADMSG && strstr(why, "offset 16"),
	    "a bitmap at sector 16 refused (%s)", why);
	good_bitmap(sb, 1024);
	sb->bitmap_offset = 0;
	seal(sb);
	tap(check(sb, why, sizeof(why)) == -EBADMSG,
	    "a bitmap at sector 0 refused (%s)", why);
	good_bitmap(sb, 3072);
	ret = check(sb, why, sizeof(why));
	tap(ret == -EBADMSG && strstr(why, "3072"),
	    "3072-sector regions (not a power of two) refused (%s)", why);
	good_bitmap(sb, 64);
	tap(check(sb, why, sizeof(why)) == -EBADMSG,
	    "64-sector regions below the 128-sector chunk refused (%s)", why);
	good_bitmap(sb, 128);
	ret = check(sb, why, sizeof(why));
	tap(ret == 0, "regions of exactly the chunk pass (%s)", ret ? why : "");

	good_bitmap(sb, 128);
	set_data_sectors(sb, (__u64)STRIA_SB_BITMAP_MAX_REGIONS * 128);
	ret = check(sb, why, sizeof(why));
	tap(ret == 0, "8355840 regions, a full area, pass (%s)", ret ? why : "");
	set_data_sectors(sb, (__u64)STRIA_SB_BITMAP_MAX_REGIONS * 128 + 128);
	ret = check(sb, why, sizeof(why));
	tap(ret == -EBADMSG && strstr(why, "bitmap"),
	    "8355841 regions, one more than the area holds, refused (%s)", why);
	sb->bitmap_chunk = stria_cpu_le32(256);
	seal(sb);
	ret = check(sb, why, sizeof(why));
	tap(ret == 0, "the same member with regions twice as large passes (%s)",
	    ret ? why : "");

	good_sb(sb);
	sb->bitmap_offset = stria_cpu_le32(STRIA_SB_BITMAP_OFFSET);
	sb->bitmap_chunk = stria_cpu_le32(1024);
	sb->features_incompat = stria_cpu_le64(STRIA_SB_FEAT_INCOMPAT_BITMAP);
	seal(sb);
	ret = check(sb, why, sizeof(why));
	tap(ret == -EBADMSG && strstr(why, "bitmap"),
	    "a bitmap on RAID0 refused (%s)", why);

	good_bitmap(sb, 1024);
	sb->rebuilding = stria_cpu_le64(1ULL << 1);
	sb->rebuild_offset = stria_cpu_le64(4096);
	sb->features_incompat = stria_cpu_le64(STRIA_SB_FEAT_INCOMPAT_BITMAP |
					       STRIA_SB_FEAT_INCOMPAT_REBUILD);
	seal(sb);
	ret = check(sb, why, sizeof(why));
	tap(ret == 0, "a bitmap and a rebuild record together pass (%s)",
	    ret ? why : "");
	good_bitmap(sb, 1024);
	sb->features_incompat = stria_cpu_le64(STRIA_SB_FEAT_INCOMPAT_BITMAP |
					       (1ULL << 7));
	seal(sb);
	ret = check(sb, why, sizeof(why));
	tap(ret == -EPROTONOSUPPORT && strstr(why, "0x80"),
	    "the bitmap bit does not hide another unknown one (%s)", why);
	good_bitmap(sb, 1024);
	sb->reserved[0] = 1;
	seal(sb);
	ret = check(sb, why, sizeof(why));
	tap(ret == -EBADMSG && strstr(why, "offset 320"),
	    "a nonzero byte 320, right after the reshape record, refused (%s)", why);
}

/* The home host at byte 240: behind its feature bit, checked like a name. */
static void test_homehost(struct stria_sb *sb)
{
	char why[160];
	int ret;

	good_sb(sb);
	ret = check(sb, why, sizeof(why));
	tap(ret == 0 && stria_sb_no_host(sb),
	    "a superblock without a home host (as before the field) passes");
	strcpy(sb->homehost, "node-01.example.com");
	sb->features_incompat |= stria_cpu_le64(STRIA_SB_FEAT_INCOMPAT_HOMEHOST);
	seal(sb);
	ret = check(sb, why, sizeof(why));
	tap(ret == 0 && !stria_sb_no_host(sb), "a home host with its bit passes (%s)",
	    ret ? why : "");
	sb->features_incompat = 0;
	seal(sb);
	ret = check(sb, why, sizeof(why));
	tap(ret == -EBADMSG && strstr(why, "home host"),
	    "a home host without its bit is refused (%s)", why);
	memset(sb->homehost, 0, sizeof(sb->homehost));
	sb->features_incompat = stria_cpu_le64(STRIA_SB_FEAT_INCOMPAT_HOMEHOST);
	seal(sb);
	ret = check(sb, why, sizeof(why));
	tap(ret == -EBADMSG && strstr(why, "home host"),
	    "the bit without a home host is refused (%s)", why);
	memset(sb->homehost, 'a', sizeof(sb->homehost));
	seal(sb);
	tap(check(sb, why, sizeof(why)) == -EBADMSG,
	    "an unterminated home host (64 bytes) is refused (%s)", why);
	memset(sb->homehost, 0, sizeof(sb->homehost));
	strcpy(sb->homehost, "a\nSTRIA_VALID=true");
	seal(sb);
	tap(check(sb, why, sizeof(why)) == -EBADMSG,
	    "a home host with a newline is refused (%s)", why);
	memset(sb->homehost, 0, sizeof(sb->homehost));
	strcpy(sb->homehost, "host\"$(x)");
	seal(sb);
	tap(check(sb, why, sizeof(why)) == -EBADMSG,
	    "a home host with a quote and $( is refused (%s)", why);
	memset(sb->homehost, 0, sizeof(sb->homehost));
	strcpy(sb->homehost, "host");
	sb->homehost[10] = 'x';
	seal(sb);
	tap(check(sb, why, sizeof(why)) == -EBADMSG,
	    "bytes after the home host's NUL are refused (%s)", why);
	memset(sb->homehost, 0, sizeof(sb->homehost));
	strcpy(sb->homehost, ".host");
	seal(sb);
	tap(check(sb, why, sizeof(why)) == -EBADMSG,
	    "a home host starting with . is refused (%s)", why);
	memset(sb->homehost, 'h', 63);
	sb->homehost[63] = '\0';
	seal(sb);
	ret = check(sb, why, sizeof(why));
	tap(ret == 0, "a home host of 63 characters passes (%s)", ret ? why : "");
	good_sb(sb);
}

/* degraded_events: only with a bitmap, a failed or rebuilding role, <= events */
static void test_degraded_events(struct stria_sb *sb)
{
	char why[160];
	int ret;

	good_bitmap(sb, 1024);
	sb->events = stria_cpu_le64(40);
	sb->degraded_events = stria_cpu_le64(40);
	seal(sb);
	ret = check(sb, why, sizeof(why));
	tap(ret == 0, "degraded_events = events with a failed role passes (%s)",
	    ret ? why : "");
	sb->degraded_events = stria_cpu_le64(41);
	seal(sb);
	ret = check(sb, why, sizeof(why));
	tap(ret == -EBADMSG && strstr(why, "degraded_events 41"),
	    "degraded_events beyond events refused (%s)", why);
	sb->degraded_events = stria_cpu_le64(12);
	sb->failed = 0;
	seal(sb);
	ret = check(sb, why, sizeof(why));
	tap(ret == -EBADMSG && strstr(why, "degraded_events 12"),
	    "degraded_events with no failed or rebuilding role refused (%s)", why);
	sb->rebuilding = stria_cpu_le64(1ULL << 2);
	sb->rebuild_offset = stria_cpu_le64(2048);
	sb->features_incompat = stria_cpu_le64(STRIA_SB_FEAT_INCOMPAT_BITMAP |
					       STRIA_SB_FEAT_INCOMPAT_REBUILD);
	seal(sb);
	ret = check(sb, why, sizeof(why));
	tap(ret == 0, "degraded_events while a role is rebuilt passes (%s)",
	    ret ? why : "");
	good_raid6(sb);
	sb->degraded_events = stria_cpu_le64(1);
	seal(sb);
	ret = check(sb, why, sizeof(why));
	tap(ret == -EBADMSG && strstr(why, "degraded_events 1"),
	    "degraded_events without a bitmap refused (%s)", why);
}

/* rebuild_partial: only with a bitmap, a subset of rebuilding */
static void test_rebuild_partial(struct stria_sb *sb)
{
	char why[160];
	int ret;

	good_bitmap(sb, 1024);
	sb->failed = 0;
	sb->events = stria_cpu_le64(40);
	sb->degraded_events = stria_cpu_le64(38);
	sb->rebuilding = stria_cpu_le64(1ULL << 2);
	sb->rebuild_offset = stria_cpu_le64(2048);
	sb->rebuild_partial = stria_cpu_le64(1ULL << 2);
	sb->features_incompat = stria_cpu_le64(STRIA_SB_FEAT_INCOMPAT_BITMAP |
					       STRIA_SB_FEAT_INCOMPAT_REBUILD);
	seal(sb);
	ret = check(sb, why, sizeof(why));
	tap(ret == 0, "rebuild_partial naming the rebuilt role passes (%s)",
	    ret ? why : "");
	sb->rebuild_partial = stria_cpu_le64((1ULL << 2) | (1ULL << 1));
	seal(sb);
	ret = check(sb, why, sizeof(why));
	tap(ret == -EBADMSG && strstr(why, "rebuild_partial 0x6"),
	    "rebuild_partial naming a role not rebuilding refused (%s)", why);
	good_raid6(sb);
	sb->rebuilding = stria_cpu_le64(1ULL << 2);
	sb->rebuild_offset = stria_cpu_le64(2048);
	sb->rebuild_partial = stria_cpu_le64(1ULL << 2);
	sb->features_incompat = stria_cpu_le64(STRIA_SB_FEAT_INCOMPAT_REBUILD);
	seal(sb);
	ret = check(sb, why, sizeof(why));
	tap(ret == -EBADMSG && strstr(why, "rebuild_partial 0x4"),
	    "rebuild_partial without a bitmap refused (%s)", why);
}

/*
 * A former member's superblock for stria_sb_readd(): the golden RAID6 with
 * a bitmap (5 members, role 2), at @events, recording @failed and
 * @rebuilding roles and the degraded spell @de; stria_sb_check() must
 * accept it.
 */
static int readd_sb(struct stria_sb *sb, __u64 events, __u64 failed,
		    __u64 rebuilding, __u64 de)
{
	char why[160];
	int ret;

	good_bitmap(sb, 1024);
	sb->events = stria_cpu_le64(events);
	sb->failed = stria_cpu_le64(failed);
	sb->rebuilding = stria_cpu_le64(rebuilding);
	sb->rebuild_offset = stria_cpu_le64(rebuilding ? 2048 : 0);
	if (rebuilding)
		sb->features_incompat |=
			stria_cpu_le64(STRIA_SB_FEAT_INCOMPAT_REBUILD);
	sb->degraded_events = stria_cpu_le64(de);
	seal(sb);
	ret = check(sb, why, sizeof(why));
	if (ret)
		tap(0, "readd_sb: the superblock is refused (%s)", why);
	return ret;
}

/*
 * stria_sb_readd(): the running array is at event 50 in a degraded spell
 * from event 40, role 2 (the former member's) and role 4 failed, 0, 1 and
 * 3 in sync.
 */
static void test_readd(struct stria_sb *sb)
{
	const __u64 now = 50, de = 40, in_sync = 0xb;	/* roles 0, 1, 3 */
	int r;

	/* an honest member that left as the spell began */
	readd_sb(sb, 38, 0, 0, 0);
	r = stria_sb_readd(sb, now, de, in_sync);
	tap(r == STRIA_READD_PARTIAL,
	    "readd: written 2 updates before the spell began: partial (%d)", r);
	readd_sb(sb, 39, 0, 0, 0);
	r = stria_sb_readd(sb, now, de, in_sync);
	tap(r == STRIA_READD_PARTIAL,
	    "readd: written 1 update before the spell began: partial (%d)", r);
	readd_sb(sb, 37, 0, 0, 0);
	r = stria_sb_readd(sb, now, de, in_sync);
	tap(r == STRIA_READD_SPELL,
	    "readd: written 3 updates before the spell began: full (%d)", r);
	r = stria_sb_readd(sb, now, 0, in_sync);
	tap(r == STRIA_READD_SPELL,
	    "readd: the array in no degraded spell: full (%d)", r);

	/* an honest member that left during the spell: its sb records it */
	readd_sb(sb, 45, 1ULL << 4, 0, de);
	r = stria_sb_readd(sb, now, de, in_sync);
	tap(r == STRIA_READD_PARTIAL,
	    "readd: left during the spell, role 4 failed as in the array: partial (%d)", r);
	readd_sb(sb, 40, 1ULL << 4, 0, de);
	r = stria_sb_readd(sb, now, de, in_sync);
	tap(r == STRIA_READD_PARTIAL,
	    "readd: written at the spell's first update: partial (%d)", r);
	readd_sb(sb, 49, 1ULL << 4, 0, de);
	r = stria_sb_readd(sb, now, de, in_sync);
	tap(r == STRIA_READD_PARTIAL,
	    "readd: written one update before the array's last: partial (%d)", r);
	readd_sb(sb, 50, 1ULL << 4, 0, de);
	r = stria_sb_readd(sb, now, de, in_sync);
	tap(r == STRIA_READD_SPELL,
	    "readd: as new as the array (written without it): full (%d)", r);
	readd_sb(sb, 45, 1ULL << 4, 0, 41);
	r = stria_sb_readd(sb, now, de, in_sync);
	tap(r == STRIA_READD_SPELL,
	    "readd: its superblock records another spell (41, the array's 40): full (%d)", r);
	readd_sb(sb, 45, 0, 0, 0);
	r = stria_sb_readd(sb, now, de, in_sync);
	tap(r == STRIA_READD_SPELL,
	    "readd: inside the spell by its count but in sync on its own (recovered apart): full (%d)", r);

	/* it was being rebuilt itself */
	readd_sb(sb, 45, 1ULL << 4, 1ULL << 2, de);
	r = stria_sb_readd(sb, now, de, in_sync);
	tap(r == STRIA_READD_REBUILDING,
	    "readd: its own role was being rebuilt: full (%d)", r);

	/* a split brain: it ran without members the array holds in sync */
	readd_sb(sb, 45, 0x3, 0, de);
	r = stria_sb_readd(sb, now, de, in_sync);
	tap(r == STRIA_READD_APART,
	    "readd: older half of a split brain (roles 0, 1 failed in its view): full (%d)", r);
	readd_sb(sb, 39, 0x3, 0, 0);
	r = stria_sb_readd(sb, now, de, in_sync);
	tap(r == STRIA_READD_APART,
	    "readd: its count just before the spell, its view without roles 0, 1: full (%d)", r);
	readd_sb(sb, 60, 0x3, 0, de);
	r = stria_sb_readd(sb, now, de, in_sync);
	tap(r == STRIA_READD_APART,
	    "readd: newer half of a split brain: full (%d)", r);
	readd_sb(sb, 45, 1ULL << 4, 1ULL << 3, de);
	r = stria_sb_readd(sb, now, de, in_sync);
	tap(r == STRIA_READD_APART,
	    "readd: it records role 3 as rebuilding, which the array holds in sync: full (%d)", r);
	readd_sb(sb, 45, 1ULL << 4, 0, de);
	r = stria_sb_readd(sb, now, de, in_sync & ~(1ULL << 3));
	tap(r == STRIA_READD_PARTIAL,
	    "readd: roles it records failed that the array holds failed too do not count (%d)", r);

	/* a spare's superblock is no former member's */
	readd_sb(sb, 45, 1ULL << 4, 0, de);
	sb->role = stria_cpu_le32(STRIA_SB_ROLE_SPARE);
	seal(sb);
	tap(check(sb, NULL, 0) == 0, "readd: a spare's superblock passes the check");
	r = stria_sb_readd(sb, now, de, in_sync);
	tap(r == STRIA_READD_ROLE, "readd: a spare's superblock: no role (%d)", r);
}

struct field {
	const char *name;
	size_t off, want;
};

#define F(n, w) { #n, offsetof(struct stria_sb, n), w }

/* A name of @len bytes from @name (no NUL added), the rest NUL, sealed. */
static int check_name(struct stria_sb *sb, const char *name, size_t len)
{
	char why[160];

	good_sb(sb);
	memset(sb->name, 0, sizeof(sb->name));
	memcpy(sb->name, name, len);
	seal(sb);
	return check(sb, why, sizeof(why));
}

/*
 * What a crafted disk tries: sizes that wrap a sum, names that reach udev,
 * event counts at the edge, geometries that overflow the array's size.
 */
static void test_hostile(struct stria_sb *sb)
{
	static const char *const bad_names[] = {
		"x\nSYSTEMD_WANTS=reboot.target\n", "a b", "a/b", "-a", ".a",
		"a'b", "a\"b", "a\\b", "a$b", "\x7f", "caf\xe9", "\xc3\xa9t\xc3\xa9",
		"a\tb", "a\x01",
	};
	const __u64 wrap = 0ULL - STRIA_SB_DATA_OFFSET;
	struct stria_sb other;
	struct stria_geom g;
	char why[160];
	size_t i;
	int ret;

	/* data_offset + data_sectors == 2^64 == 0: the sum must not be taken */
	good_bitmap(sb, STRIA_SB_BITMAP_MAX_CHUNK);
	sb->level = stria_cpu_le32(5);
	sb->data_sectors = stria_cpu_le64(wrap);
	sb->dev_sectors = stria_cpu_le64(524288);
	seal(sb);
	ret = check(sb, why, sizeof(why));
	tap(ret == -EBADMSG, "data_sectors 2^64 - 2048 (the sum wraps to 0) refused (%s)",
	    why);
	tap(!stria_range_fits(STRIA_SB_DATA_OFFSET, wrap, 524288) &&
	    !stria_range_fits(1, ~0ULL, ~0ULL) &&
	    stria_range_fits(0, ~0ULL, ~0ULL) &&
	    stria_range_fits(2048, 522240, 524288) &&
	    !stria_range_fits(2048, 522241, 524288) &&
	    !stria_range_fits(524289, 0, 524288),
	    "stria_range_fits() compares without wrapping");
	tap(stria_bitmap_regions(wrap, STRIA_SB_BITMAP_MAX_CHUNK) ==
	    (wrap >> 31) + 1 &&
	    stria_bitmap_regions(~0ULL, 1) == ~0ULL &&
	    stria_bitmap_regions(~0ULL, 8) == (~0ULL >> 3) + 1,
	    "stria_bitmap_regions() does not wrap near 2^64");
	tap(!stria_bitmap_chunk_ok(wrap, 128, STRIA_SB_BITMAP_MAX_CHUNK) &&
	    !stria_bitmap_chunk_ok(0, 128, 1024) &&
	    !stria_bitmap_chunk_ok(1024, 0, 0),
	    "a bitmap of 0 or too many regions is refused");

	/* the geometry must fit a loff_t, and be whole chunks */
	tap(stria_geom_init(&g, 0, 0, 2, 128, STRIA_GEOM_MAX_SECTORS / 2 &
			    ~127ULL) == 0 &&
	    stria_geom_init(&g, 0, 0, 2, 128,
			    (STRIA_GEOM_MAX_SECTORS / 2 + 128) & ~127ULL) == -EINVAL &&
	    stria_geom_init(&g, 6, 2, 64, 2048, 1ULL << 50) == -EINVAL &&
	    stria_geom_init(&g, 0, 0, 2, 128, wrap) == -EINVAL,
	    "stria_geom_init() refuses arrays of more than 2^63 bytes");
	good_sb(sb);
	set_data_sectors(sb, 1ULL << 53);
	ret = check(sb, why, sizeof(why));
	tap(ret == -EBADMSG && strstr(why, "geometry"),
	    "4 x 2^53 data sectors (2^64 bytes) refused (%s)", why);
	good_sb(sb);
	set_data_sectors(sb, 522240 + 8);
	ret = check(sb, why, sizeof(why));
	tap(ret == -EBADMSG && strstr(why, "geometry"),
	    "data not a whole number of chunks refused (%s)", why);
	for (i = 0; i < 4; i++) {
		static const __u32 chunks[] = { 0, 4, 96, 4096 };

		good_sb(sb);
		sb->chunk_sectors = stria_cpu_le32(chunks[i]);
		seal(sb);
		ret = check(sb, why, sizeof(why));
		tap(ret == -EBADMSG, "chunk of %u sectors refused (%s)",
		    chunks[i], why);
	}

	/* names: the same rule as the module's and striactl's */
	for (i = 0; i < sizeof(bad_names) / sizeof(bad_names[0]); i++) {
		ret = check_name(sb, bad_names[i], strlen(bad_names[i]));
		tap(ret == -EBADMSG && !stria_name_valid(sb->name),
		    "name #%zu with a character outside [A-Za-z0-9._-] refused", i);
	}
	tap(check_name(sb, "ab\0c", 4) == -EBADMSG,
	    "bytes after the name's NUL refused");
	tap(check_name(sb, "", 0) == -EBADMSG, "empty name refused");
	tap(check_name(sb, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 31) == 0,
	    "31-character name accepted");
	tap(check_name(sb, "Data_01.b-x", 11) == 0 &&
	    check_name(sb, "0", 1) == 0, "names from [A-Za-z0-9._-] accepted");
	tap(!stria_name_char_ok((char)0xe9) && !stria_name_char_ok('\0') &&
	    stria_name_char_ok('Z'), "stria_name_char_ok() is plain ASCII");

	/* event counters */
	good_sb(sb);
	sb->events = stria_cpu_le64(~0ULL);
	seal(sb);
	ret = check(sb, why, sizeof(why));
	tap(ret == -EBADMSG && strstr(why, "event"),
	    "events 2^64 - 1 refused (%s)", why);
	good_sb(sb);
	sb->events = stria_cpu_le64(STRIA_SB_EVENTS_MAX + 1);
	seal(sb);
	tap(check(sb, why, sizeof(why)) == -EBADMSG, "events 2^48 + 1 refused");
	good_sb(sb);
	sb->events = stria_cpu_le64(STRIA_SB_EVENTS_MAX);
	seal(sb);
	tap(check(sb, why, sizeof(why)) == 0, "events 2^48 accepted");

	/* members of one array agree on its identity and shape */
	good_sb(sb);
	good_sb(&other);
	other.role = stria_cpu_le32(1);
	other.events = stria_cpu_le64(9);
	tap(stria_sb_same_array(sb, &other), "two members of one array match");
	other.data_sectors = stria_cpu_le64(522240 - 128);
	seal(&other);
	tap(stria_sb_same_array(sb, &other), "a member of another size is of the array");
	tap(!stria_sb_count_follows(&other, sb),
	    "but a smaller size does not follow at as many events");
	other.events = stria_cpu_le64(6);
	seal(&other);
	tap(stria_sb_count_follows(&other, sb),
	    "an older superblock with a smaller size follows (a grow into larger members)");
	other.data_sectors = stria_cpu_le64(522240 + 128);
	seal(&other);
	tap(!stria_sb_count_follows(&other, sb),
	    "an older superblock with a larger size does not");
	good_sb(&other);
	strcpy(other.name, "other");
	tap(!stria_sb_same_array(sb, &other), "a member of another name does not");
	good_sb(&other);
	strcpy(other.homehost, "other");
	tap(!stria_sb_same_array(sb, &other), "a member of another home host does not");
	good_sb(&other);
	other.parity_layout = stria_cpu_le32(1);
	tap(!stria_sb_same_array(sb, &other), "a member of another layout does not");
	/* each field that never changes in an array's life, alone */
	good_sb(&other);
	other.chunk_sectors = stria_cpu_le32(256);
	tap(!stria_sb_same_array(sb, &other), "a member of another chunk size does not");
	good_sb(&other);
	other.array_uuid[5] ^= 1;
	tap(!stria_sb_same_array(sb, &other), "a member of another array UUID does not");
	good_sb(&other);
	other.level = stria_cpu_le32(5);
	tap(!stria_sb_same_array(sb, &other), "a member of another level does not");
	good_sb(&other);
	other.nr_members = stria_cpu_le32(5);
	tap(!stria_sb_same_array(sb, &other), "a member of another member count does not");
	good_sb(&other);
	other.data_offset = stria_cpu_le64(STRIA_SB_DATA_OFFSET + 8);
	tap(!stria_sb_same_array(sb, &other), "a member of another data offset does not");
	good_sb(&other);
	other.layout = stria_cpu_le32(STRIA_SB_LAYOUT_RAID0 + 1);
	tap(!stria_sb_same_array(sb, &other), "a member of another layout version does not");
	tap(stria_sb_geom(sb, &g) == 0 && g.member_sectors == 522240 &&
	    g.nr_members == 4, "stria_sb_geom() gives the superblock's geometry");
	tap(stria_sb_count_follows(&other, sb), "the same count follows");

	/* RAID1 grows by copies: a superblock one update behind has fewer */
	tap(check_shape(sb, 1, 3, 0x103, 0, why, sizeof(why)) == 0,
	    "a RAID1 superblock of 3 members");
	sb->events = stria_cpu_le64(12);
	seal(sb);
	tap(check_shape(&other, 1, 2, 0x102, 0, why, sizeof(why)) == 0,
	    "one of 2 members");
	other.events = stria_cpu_le64(11);
	seal(&other);
	tap(stria_sb_same_array(&other, sb) && stria_sb_same_array(sb, &other),
	    "RAID1 members of 2 and 3 copies are one array");
	tap(stria_sb_count_follows(&other, sb),
	    "an older RAID1 superblock with fewer members follows");
	tap(!stria_sb_count_follows(sb, &other),
	    "a newer one with more does not follow an older one");
	other.events = stria_cpu_le64(12);
	seal(&other);
	tap(!stria_sb_count_follows(&other, sb),
	    "fewer members at the same events do not follow");
	other.events = stria_cpu_le64(11);
	other.nr_members = stria_cpu_le32(4);
	other.parity_layout = stria_cpu_le32(0x104);
	seal(&other);
	tap(!stria_sb_count_follows(&other, sb),
	    "an older superblock with more members does not follow");
	/* the other levels' counts never change */
	tap(check_shape(sb, 10, 4, 0x102, 0, why, sizeof(why)) == 0 &&
	    check_shape(&other, 10, 3, 0x102, 0, why, sizeof(why)) == 0,
	    "RAID10 superblocks of 4 and 3 members");
	other.events = stria_cpu_le64(6);
	seal(&other);
	tap(!stria_sb_same_array(&other, sb) && !stria_sb_count_follows(&other, sb),
	    "are not one array, older or not");
	good_raid6(sb);
	good_raid6(&other);
	other.events = stria_cpu_le64(6);
	other.nr_members = stria_cpu_le32(4);
	seal(&other);
	tap(!stria_sb_same_array(&other, sb) && !stria_sb_count_follows(&other, sb),
	    "nor RAID6 superblocks of 5 and 4 members");
}

/* A RAID0 superblock (good_sb: 4080 rows) reshaped from @from to its 4 members. */
static void reshaping(struct stria_sb *sb, unsigned int from,
		      unsigned long long pos, unsigned int flags)
{
	good_sb(sb);
	sb->features_incompat = stria_cpu_le64(STRIA_SB_FEAT_INCOMPAT_RESHAPE);
	sb->reshape_from = stria_cpu_le32(from);
	sb->reshape_pos = stria_cpu_le64(pos);
	sb->reshape_flags = stria_cpu_le32(flags);
	seal(sb);
}

static void test_reshape_record(struct stria_sb *sb)
{
	struct stria_reshape_plan p;
	struct stria_sb other;
	char why[160];
	int ret;

	/* 2 to 4 data chunks: K = 1 critical row, 2040 new rows */
	reshaping(sb, 2, 0, STRIA_SB_RESHAPE_BACKUP);
	ret = check(sb, why, sizeof(why));
	tap(ret == 0, "reshape 2 to 4 at row 0 with the backup mark passes (%s)",
	    ret ? why : "");
	tap(stria_sb_reshape_plan(sb, &p) == 0 && p.critical == 1 &&
	    p.rows_new == 2040, "its plan: 1 critical row, 2040 new rows");
	reshaping(sb, 2, 1, 0);
	tap(check(sb, why, sizeof(why)) == 0, "at row 1 (the critical row done) passes");
	reshaping(sb, 2, 2039, 0);
	tap(check(sb, why, sizeof(why)) == 0, "at the last row passes");
	reshaping(sb, 3, 0, 0);
	tap(check(sb, why, sizeof(why)) == 0, "3 to 4 at row 0 passes");
	/* 3 to 4: K = 3; row 2 is inside the critical rows */
	reshaping(sb, 3, 2, 0);
	ret = check(sb, why, sizeof(why));
	tap(ret == -EBADMSG && strstr(why, "bad reshape record: from 3 to 4 members, row 2"),
	    "a checkpoint inside the critical rows refused (%s)", why);
	reshaping(sb, 2, 2040, 0);
	ret = check(sb, why, sizeof(why));
	tap(ret == -EBADMSG && strstr(why, "bad reshape record"),
	    "a checkpoint at the end (the record is cleared then) refused (%s)", why);
	reshaping(sb, 2, 1, STRIA_SB_RESHAPE_BACKUP);
	tap(check(sb, why, sizeof(why)) == -EBADMSG,
	    "the backup mark past row 0 refused (%s)", why);
	reshaping(sb, 2, 0, 2);
	tap(check(sb, why, sizeof(why)) == -EBADMSG, "an unknown reshape flag refused (%s)", why);
	reshaping(sb, 4, 0, 0);
	tap(check(sb, why, sizeof(why)) == -EBADMSG, "from as many members refused (%s)", why);
	reshaping(sb, 0, 0, 0);
	tap(check(sb, why, sizeof(why)) == -EBADMSG,
	    "the feature without a record (from 0) refused (%s)", why);
	reshaping(sb, 2, 0, 0);
	sb->features_incompat = 0;
	seal(sb);
	ret = check(sb, why, sizeof(why));
	tap(ret == -EBADMSG && strstr(why, "bad reshape record"),
	    "a record without the feature refused (%s)", why);
	/* RAID1 does not restripe; a rebuild does not run with a reshape */
	check_shape(sb, 1, 2, stria_r10_layout(2, 1, false), 0, why, sizeof(why));
	sb->features_incompat = stria_cpu_le64(STRIA_SB_FEAT_INCOMPAT_RESHAPE);
	sb->reshape_from = stria_cpu_le32(1);
	seal(sb);
	tap(check(sb, why, sizeof(why)) == -EBADMSG, "a RAID1 reshape refused (%s)", why);
	good_raid6(sb);
	sb->features_incompat = stria_cpu_le64(STRIA_SB_FEAT_INCOMPAT_RESHAPE);
	sb->reshape_from = stria_cpu_le32(4);
	sb->failed = 0;
	seal(sb);
	ret = check(sb, why, sizeof(why));
	tap(ret == 0, "a RAID6 reshape 4 to 5 is a valid record (%s)", ret ? why : "");
	sb->reshape_from = stria_cpu_le32(3);
	seal(sb);
	tap(check(sb, why, sizeof(why)) == -EBADMSG,
	    "a RAID6 from 3 members (below its least) refused (%s)", why);
	sb->reshape_from = stria_cpu_le32(4);
	sb->features_incompat = stria_cpu_le64(STRIA_SB_FEAT_INCOMPAT_RESHAPE |
					       STRIA_SB_FEAT_INCOMPAT_REBUILD);
	sb->rebuilding = stria_cpu_le64(1);
	seal(sb);
	tap(check(sb, why, sizeof(why)) == -EBADMSG,
	    "a reshape while a member is rebuilt refused (%s)", why);
	/* a backup that does not fit: 20 data chunks to 21 on 400 rows */
	check_shape(sb, 0, 21, 0, 0, why, sizeof(why));
	sb->data_sectors = stria_cpu_le64(400 * 128);
	sb->features_incompat = stria_cpu_le64(STRIA_SB_FEAT_INCOMPAT_RESHAPE);
	sb->reshape_from = stria_cpu_le32(20);
	seal(sb);
	tap(check(sb, why, sizeof(why)) == -EBADMSG,
	    "a reshape whose backup does not fit refused (%s)", why);

	/* superblocks a crash left one update before the reshape's record */
	reshaping(sb, 2, 0, 0);
	sb->events = stria_cpu_le64(8);
	seal(sb);
	good_sb(&other);
	other.nr_members = stria_cpu_le32(2);
	other.role = stria_cpu_le32(1);
	seal(&other);
	tap(stria_sb_same_array(&other, sb) && stria_sb_same_array(sb, &other) &&
	    stria_sb_count_follows(&other, sb),
	    "a member one update before the record (2 members) follows it");
	other.role = stria_cpu_le32(STRIA_SB_ROLE_SPARE);
	seal(&other);
	tap(stria_sb_count_follows(&other, sb), "an added device's spare superblock follows it");
	tap(!stria_sb_count_follows(sb, &other), "the record does not follow the older one");
	other.nr_members = stria_cpu_le32(3);
	seal(&other);
	tap(!stria_sb_count_follows(&other, sb), "3 members before a reshape from 2 do not follow");
	other.nr_members = stria_cpu_le32(2);
	other.events = stria_cpu_le64(8);
	seal(&other);
	tap(!stria_sb_count_follows(&other, sb), "2 members at the same events do not follow");
	other.events = stria_cpu_le64(7);
	seal(&other);
	reshaping(sb, 2, 1, 0);
	sb->events = stria_cpu_le64(8);
	seal(sb);
	tap(!stria_sb_count_follows(&other, sb),
	    "2 members do not follow a reshape that has moved rows");
	reshaping(sb, 2, 0, STRIA_SB_RESHAPE_BACKUP);
	sb->events = stria_cpu_le64(8);
	seal(sb);
	tap(!stria_sb_count_follows(&other, sb),
	    "2 members do not follow a reshape whose backup is marked");
	good_sb(&other);
	other.events = stria_cpu_le64(7);
	seal(&other);
	reshaping(sb, 2, 0, 0);
	sb->events = stria_cpu_le64(8);
	seal(sb);
	tap(stria_sb_same_array(&other, sb) && stria_sb_count_follows(&other, sb),
	    "an older member with the new count (written, the record not) follows");
	good_sb(&other);
	other.nr_members = stria_cpu_le32(2);
	other.role = stria_cpu_le32(1);
	seal(&other);
	good_sb(sb);
	tap(!stria_sb_same_array(&other, sb),
	    "without a reshape, 2 and 4 members are not one array");
}

int main(void)
{
	static const struct field fields[] = {
		F(magic, 0), F(format, 8), F(layout, 12),
		F(features_compat, 16), F(features_incompat, 24),
		F(array_uuid, 32), F(member_uuid, 48), F(name, 64),
		F(level, 96), F(chunk_sectors, 100), F(nr_members, 104),
		F(role, 108), F(data_offset, 112), F(data_sectors, 120),
		F(dev_sectors, 128), F(events, 136), F(state, 144),
		F(flags, 148), F(ctime, 152), F(utime, 160),
		F(failed, 168), F(parity_layout, 176),
		F(scrub_action, 180), F(rebuild_offset, 184),
		F(rebuilding, 192), F(scrub_offset, 200), F(scrub_end, 208),
		F(bitmap_offset, 216), F(bitmap_chunk, 220),
		F(degraded_events, 224), F(rebuild_partial, 232),
		F(homehost, 240), F(reshape_pos, 304), F(reshape_from, 312),
		F(reshape_flags, 316), F(reserved, 320), F(crc, 4092),
	};
	struct stria_sb *sb = malloc(sizeof(*sb));
	char why[160];
	size_t i;
	int ret;

	if (!sb)
		return 1;
	printf("TAP version 13\n");
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		tap(fields[i].off == fields[i].want, "field %s at byte %zu",
		    fields[i].name, fields[i].want);
	tap(sizeof(*sb) == 4096, "superblock is 4096 bytes");
	tap(stria_crc32c("123456789", 9) == 0xe3069283U,
	    "CRC-32C check value of \"123456789\" is e3069283");

	good_sb(sb);
	ret = check(sb, why, sizeof(why));
	tap(ret == 0, "a good superblock passes (%d)", ret);
	/* Freezes the encoding: changes to the golden superblock's bytes show here. */
	tap(stria_le32(sb->crc) == 0x427d7a7aU,
	    "golden superblock CRC is 427d7a7a (got %08x)", stria_le32(sb->crc));

	good_sb(sb);
	sb->magic[0] = 'X';
	tap(check(sb, why, sizeof(why)) == -ENODATA, "wrong magic: not stria (%s)", why);

	good_sb(sb);
	sb->events ^= stria_cpu_le64(1);
	ret = check(sb, why, sizeof(why));
	tap(ret == -EBADMSG && strstr(why, "checksum"),
	    "one flipped bit fails the CRC (%s)", why);

	good_sb(sb);
	sb->format = stria_cpu_le32(2);
	seal(sb);
	ret = check(sb, why, sizeof(why));
	tap(ret == -EPROTONOSUPPORT && strstr(why, "format 2"),
	    "newer format refused (%s)", why);

	good_sb(sb);
	sb->features_incompat = stria_cpu_le64(1ULL << 5);
	seal(sb);
	ret = check(sb, why, sizeof(why));
	tap(ret == -EPROTONOSUPPORT && strstr(why, "0x20"),
	    "unknown incompat feature refused (%s)", why);

	good_sb(sb);
	sb->features_compat = stria_cpu_le64(1ULL << 9);
	seal(sb);
	tap(check(sb, why, sizeof(why)) == 0, "unknown compat feature accepted");

	good_sb(sb);
	sb->role = stria_cpu_le32(4);
	seal(sb);
	tap(check(sb, why, sizeof(why)) == -EBADMSG, "role >= members refused (%s)", why);

	good_sb(sb);
	sb->reserved[100] = 1;
	seal(sb);
	tap(check(sb, why, sizeof(why)) == -EBADMSG, "nonzero reserved refused (%s)", why);

	good_sb(sb);
	memset(sb->name, 'a', sizeof(sb->name));
	seal(sb);
	tap(check(sb, why, sizeof(why)) == -EBADMSG, "unterminated name refused (%s)", why);

	good_sb(sb);
	sb->data_sectors = stria_cpu_le64(524288);
	seal(sb);
	tap(check(sb, why, sizeof(why)) == -EBADMSG, "data area past the device refused (%s)", why);

	/* RAID5 and RAID6: what the format accepts and what it refuses */
	good_raid6(sb);
	ret = check(sb, why, sizeof(why));
	tap(ret == 0, "a RAID6 superblock with a failed member passes (%d %s)",
	    ret, ret ? why : "");
	tap(stria_le32(sb->crc) == 0x5accad29U,
	    "golden RAID6 superblock CRC is 5accad29 (got %08x)",
	    stria_le32(sb->crc));
	for (i = 0; i <= STRIA_LAYOUT_RIGHT_SYMMETRIC; i++) {
		ret = check_shape(sb, 5, 3, (unsigned int)i, 0, why, sizeof(why));
		tap(ret == 0, "RAID5, 3 members, parity layout %zu passes (%s)",
		    i, ret ? why : "");
		ret = check_shape(sb, 6, 4, (unsigned int)i, 0, why, sizeof(why));
		tap(ret == 0, "RAID6, 4 members, parity layout %zu passes (%s)",
		    i, ret ? why : "");
	}
	ret = check_shape(sb, 0, 2, 0, 0, why, sizeof(why));
	tap(ret == 0, "RAID0 with 2 members passes (%s)", ret ? why : "");
	ret = check_shape(sb, 5, 2, 2, 0, why, sizeof(why));
	tap(ret == -EBADMSG && strstr(why, "RAID5: 3 to 64"),
	    "RAID5 with 2 members refused (%s)", why);
	ret = check_shape(sb, 6, 3, 2, 0, why, sizeof(why));
	tap(ret == -EBADMSG && strstr(why, "RAID6: 4 to 64"),
	    "RAID6 with 3 members refused (%s)", why);
	ret = check_shape(sb, 0, 1, 0, 0, why, sizeof(why));
	tap(ret == -EBADMSG && strstr(why, "RAID0: 2 to 64"),
	    "RAID0 with 1 member refused (%s)", why);
	ret = check_shape(sb, 6, 65, 2, 0, why, sizeof(why));
	tap(ret == -EBADMSG, "RAID6 with 65 members refused (%s)", why);
	ret = check_shape(sb, 4, 4, 0, 0, why, sizeof(why));
	tap(ret == -EPROTONOSUPPORT && strstr(why, "level 4"),
	    "RAID4 refused as unsupported (%s)", why);
	ret = check_shape(sb, 2, 2, 0, 0, why, sizeof(why));
	tap(ret == -EPROTONOSUPPORT && strstr(why, "level 2"),
	    "RAID2 refused as unsupported (%s)", why);
	ret = check_shape(sb, 1, 2, 0, 0, why, sizeof(why));
	tap(ret == -EBADMSG && strstr(why, "mirror layout 0x0 for RAID1 of 2"),
	    "RAID1 with layout 0 refused (%s)", why);
	ret = check_shape(sb, 1, 3, 0x103, 0x3, why, sizeof(why));
	tap(ret == 0, "RAID1 of 3 (near 3), two failed, passes (%s)", ret ? why : "");
	ret = check_shape(sb, 1, 3, 0x102, 0, why, sizeof(why));
	tap(ret == -EBADMSG && strstr(why, "mirror layout 0x102"),
	    "RAID1 of 3 with 2 copies refused: RAID1 has a copy per member (%s)", why);
	ret = check_shape(sb, 10, 4, 0x102, 0x5, why, sizeof(why));
	tap(ret == 0, "RAID10 n2 over 4 passes (%s)", ret ? why : "");
	ret = check_shape(sb, 10, 4, 0x10201, 0, why, sizeof(why));
	tap(ret == 0, "RAID10 o2 over 4 passes (%s)", ret ? why : "");
	ret = check_shape(sb, 10, 4, 0x202, 0, why, sizeof(why));
	tap(ret == -EBADMSG && strstr(why, "mirror layout 0x202"),
	    "RAID10 with near and far copies refused (%s)", why);
	ret = check_shape(sb, 10, 2, 0x103, 0, why, sizeof(why));
	tap(ret == -EBADMSG, "RAID10 with more copies than members refused (%s)", why);
	ret = check_shape(sb, 5, 3, 4, 0, why, sizeof(why));
	tap(ret == -EBADMSG && strstr(why, "parity layout 4"),
	    "RAID5 with parity layout 4 refused (%s)", why);
	ret = check_shape(sb, 6, 4, 0xffffffffU, 0, why, sizeof(why));
	tap(ret == -EBADMSG && strstr(why, "parity layout"),
	    "RAID6 with parity layout 0xffffffff refused (%s)", why);
	ret = check_shape(sb, 0, 2, 2, 0, why, sizeof(why));
	tap(ret == -EBADMSG && strstr(why, "parity layout 2 for RAID0"),
	    "RAID0 with a parity layout refused (%s)", why);
	good_raid6(sb);
	sb->layout = stria_cpu_le32(2);
	seal(sb);
	ret = check(sb, why, sizeof(why));
	tap(ret == -EPROTONOSUPPORT && strstr(why, "layout 2"),
	    "RAID6 geometry layout version 2 refused (%s)", why);

	/* the failed-member bitmap: only roles that exist */
	ret = check_shape(sb, 5, 3, 2, 0x7, why, sizeof(why));
	tap(ret == 0, "every one of 3 members failed is a valid record (%s)",
	    ret ? why : "");
	ret = check_shape(sb, 5, 3, 2, 0x8, why, sizeof(why));
	tap(ret == -EBADMSG && strstr(why, "0x8") && strstr(why, "3 members"),
	    "failed bit for role 3 of 3 members refused (%s)", why);
	ret = check_shape(sb, 0, 2, 0, 1ULL << 63, why, sizeof(why));
	tap(ret == -EBADMSG, "failed bit 63 of 2 members refused (%s)", why);
	ret = check_shape(sb, 6, 64, 2, 1ULL << 63, why, sizeof(why));
	tap(ret == 0, "failed bit 63 of 64 members passes (%s)", ret ? why : "");
	ret = check_shape(sb, 0, 4, 0, 0x2, why, sizeof(why));
	tap(ret == 0, "a RAID0 record of a failed member is a valid superblock (%s)",
	    ret ? why : "");

	/* spares on any level, and no other role beyond the members */
	good_raid6(sb);
	sb->role = stria_cpu_le32(STRIA_SB_ROLE_SPARE);
	seal(sb);
	ret = check(sb, why, sizeof(why));
	tap(ret == 0, "a RAID6 spare (role 0xffffffff) passes (%s)", ret ? why : "");
	good_sb(sb);
	sb->role = stria_cpu_le32(STRIA_SB_ROLE_SPARE);
	seal(sb);
	ret = check(sb, why, sizeof(why));
	tap(ret == 0, "a RAID0 spare (held for a grow) passes (%s)", ret ? why : "");
	good_raid6(sb);
	sb->role = stria_cpu_le32(STRIA_SB_ROLE_SPARE - 1);
	seal(sb);
	tap(check(sb, why, sizeof(why)) == -EBADMSG,
	    "role 0xfffffffe refused (%s)", why);

	/* the rebuild record and its incompat bit */
	good_raid6(sb);
	sb->rebuilding = stria_cpu_le64(1ULL << 1);
	sb->rebuild_offset = stria_cpu_le64(4096);
	sb->features_incompat = stria_cpu_le64(STRIA_SB_FEAT_INCOMPAT_REBUILD);
	seal(sb);
	ret = check(sb, why, sizeof(why));
	tap(ret == 0, "role 1 rebuilt up to 4096 sectors passes (%s)", ret ? why : "");
	sb->features_incompat = 0;
	seal(sb);
	ret = check(sb, why, sizeof(why));
	tap(ret == -EBADMSG && strstr(why, "rebuild"),
	    "a rebuild record without the incompat bit refused (%s)", why);
	good_raid6(sb);
	sb->features_incompat = stria_cpu_le64(STRIA_SB_FEAT_INCOMPAT_REBUILD);
	seal(sb);
	tap(check(sb, why, sizeof(why)) == -EBADMSG,
	    "the rebuild bit without a role being rebuilt refused (%s)", why);
	good_raid6(sb);
	sb->rebuilding = sb->failed;
	sb->features_incompat = stria_cpu_le64(STRIA_SB_FEAT_INCOMPAT_REBUILD);
	seal(sb);
	tap(check(sb, why, sizeof(why)) == -EBADMSG,
	    "a role both failed and rebuilding refused (%s)", why);
	good_raid6(sb);
	sb->rebuilding = stria_cpu_le64(1ULL << 5);
	sb->features_incompat = stria_cpu_le64(STRIA_SB_FEAT_INCOMPAT_REBUILD);
	seal(sb);
	tap(check(sb, why, sizeof(why)) == -EBADMSG,
	    "rebuilding role 5 of 5 members refused (%s)", why);
	good_raid6(sb);
	sb->rebuilding = stria_cpu_le64(1);
	sb->rebuild_offset = stria_cpu_le64(522240 + 8);
	sb->features_incompat = stria_cpu_le64(STRIA_SB_FEAT_INCOMPAT_REBUILD);
	seal(sb);
	tap(check(sb, why, sizeof(why)) == -EBADMSG,
	    "a rebuild offset past the data area refused (%s)", why);
	good_raid6(sb);
	sb->rebuild_offset = stria_cpu_le64(8);
	seal(sb);
	tap(check(sb, why, sizeof(why)) == -EBADMSG,
	    "a rebuild offset with no role being rebuilt refused (%s)", why);
	good_raid6(sb);
	sb->rebuilding = stria_cpu_le64(1);
	sb->features_incompat = stria_cpu_le64(STRIA_SB_FEAT_INCOMPAT_REBUILD |
					       (1ULL << 7));
	seal(sb);
	ret = check(sb, why, sizeof(why));
	tap(ret == -EPROTONOSUPPORT && strstr(why, "0x80"),
	    "the rebuild bit does not hide another unknown one (%s)", why);

	/* the scrub checkpoint */
	good_raid6(sb);
	sb->scrub_action = stria_cpu_le32(STRIA_SB_SCRUB_REPAIR);
	sb->scrub_offset = stria_cpu_le64(128);
	sb->scrub_end = stria_cpu_le64(522240);
	seal(sb);
	ret = check(sb, why, sizeof(why));
	tap(ret == 0, "a repair checkpoint passes (%s)", ret ? why : "");
	sb->scrub_end = stria_cpu_le64(128);
	seal(sb);
	tap(check(sb, why, sizeof(why)) == -EBADMSG,
	    "an empty scrub range refused (%s)", why);
	sb->scrub_end = stria_cpu_le64(522240 + 128);
	seal(sb);
	tap(check(sb, why, sizeof(why)) == -EBADMSG,
	    "a scrub range past the data area refused (%s)", why);
	sb->scrub_action = stria_cpu_le32(1);
	sb->scrub_end = stria_cpu_le64(522240);
	seal(sb);
	tap(check(sb, why, sizeof(why)) == -EBADMSG,
	    "scrub action 1 refused (%s)", why);
	sb->scrub_action = 0;
	seal(sb);
	tap(check(sb, why, sizeof(why)) == -EBADMSG,
	    "a scrub offset without an action refused (%s)", why);
	good_sb(sb);
	sb->scrub_action = stria_cpu_le32(STRIA_SB_SCRUB_CHECK);
	sb->scrub_end = stria_cpu_le64(8);
	seal(sb);
	tap(check(sb, why, sizeof(why)) == -EBADMSG,
	    "a RAID0 scrub checkpoint refused (%s)", why);

	test_bitmap_sb(sb);
	test_degraded_events(sb);
	test_rebuild_partial(sb);
	test_readd(sb);
	test_hostile(sb);
	test_reshape_record(sb);
	test_homehost(sb);
	test_bitmap_helpers();

	tap(!strcmp(stria_parity_layout_name(5, 0), "left-asymmetric") &&
	    !strcmp(stria_parity_layout_name(5, 1), "right-asymmetric") &&
	    !strcmp(stria_parity_layout_name(6, 2), "left-symmetric") &&
	    !strcmp(stria_parity_layout_name(6, 3), "right-symmetric") &&
	    !strcmp(stria_parity_layout_name(0, 0), "none") &&
	    !strcmp(stria_parity_layout_name(5, 4), "unknown"),
	    "parity layout names are md's");

	srand(1);
	for (i = 0; i < sizeof(*sb); i++)
		((unsigned char *)sb)[i] = (unsigned char)rand();
	tap(check(sb, why, sizeof(why)) == -ENODATA, "random bytes are not a superblock");

	free(sb);
	return tap_exit_code();
}
