// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: everything stria reads from a member before it trusts
 * it, built from the module's own headers (drivers/stria/ondisk.h, geom.h):
 * the superblock check, the cross-member checks of an assembly, the
 * geometry, and the write-intent bitmap's header and region count. Every
 * superblock the checks accept must then hold the invariants the module
 * relies on; an invariant that does not hold aborts, as a sanitizer report
 * does.
 *
 * Input: one flags byte, then up to STRIA_FUZZ_MEMBERS superblocks of 4096
 * bytes (a short last one is zero-padded). Flags bit 0: seal each
 * superblock's CRC first, so that mutations reach the fields behind the
 * checksum. The seed corpus (selftests/fuzz/corpus/ondisk) holds the
 * superblocks of real arrays, each behind a flags byte of 1.
 *
 * Run by selftests/fuzz/run (make unit); Documentation/stria/testing.rst
 * has the long runs.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ondisk.h"

#define STRIA_FUZZ_MEMBERS	8

typedef unsigned __int128 u128;

static void fail(const char *what, const struct stria_sb *sb)
{
	fprintf(stderr, "invariant broken: %s (level %u, %u members, chunk %u, data %llu, dev %llu, bitmap %u)\n",
		what, stria_le32(sb->level), stria_le32(sb->nr_members),
		stria_le32(sb->chunk_sectors),
		(unsigned long long)stria_le64(sb->data_sectors),
		(unsigned long long)stria_le64(sb->dev_sectors),
		stria_le32(sb->bitmap_chunk));
	abort();
}

#define want(cond, sb) do { if (!(cond)) fail(#cond, sb); } while (0)

/* Map @sector of the array and check the place is inside every member. */
static void check_map(const struct stria_geom *g, const struct stria_sb *sb,
		      u64 sector)
{
	struct stria_stripe st;
	struct stria_loc loc;
	u64 back;

	if (g->level == 0) {
		stria_raid0_map(g, sector, &loc);
		want(stria_raid0_unmap(g, &loc) == sector, sb);
	} else {
		stria_raid56_map(g, sector, &loc, &st);
		want(st.p < g->nr_members, sb);
		want(g->level == 5 ? st.q == STRIA_GEOM_NONE :
		     st.q < g->nr_members && st.q != st.p, sb);
		want(loc.member != st.p && loc.member != st.q, sb);
		want(!stria_raid56_unmap(g, &loc, &back) && back == sector, sb);
	}
	want(loc.member < g->nr_members, sb);
	want(loc.sector < g->member_sectors, sb);
	/* the member sector, offset by the data area, is inside the device */
	want((u128)stria_le64(sb->data_offset) + loc.sector <
	     stria_le64(sb->dev_sectors), sb);
}

/* What the module relies on once stria_sb_check() said yes. */
static void check_accepted(const struct stria_sb *sb, u64 probe)
{
	u64 dsec = stria_le64(sb->data_sectors);
	u64 failed = stria_le64(sb->failed), rb = stria_le64(sb->rebuilding);
	u32 nr = stria_le32(sb->nr_members), role = stria_le32(sb->role);
	struct stria_geom g;
	u128 array;

	want(stria_sb_geom(sb, &g) == 0, sb);
	want(g.member_sectors == dsec && dsec, sb);
	array = (u128)g.member_sectors * stria_geom_nr_data(&g);
	/* sizes in bytes fit a loff_t, the member data areas together too */
	want(array * 512 <= LLONG_MAX, sb);
	want((u128)g.member_sectors * nr * 512 <= LLONG_MAX, sb);
	want((u128)stria_le64(sb->data_offset) + dsec <=
	     stria_le64(sb->dev_sectors), sb);
	want(stria_geom_array_sectors(&g) == (u64)array, sb);
	check_map(&g, sb, 0);
	check_map(&g, sb, (u64)array - 1);
	check_map(&g, sb, probe % (u64)array);
	/* roles and role bitmaps name members only */
	want(role < nr || (role == STRIA_SB_ROLE_SPARE && g.level), sb);
	want(nr == 64 || !((failed | rb) >> nr), sb);
	want(!(failed & rb), sb);
	want(stria_le64(sb->rebuild_offset) <= dsec, sb);
	want(stria_le64(sb->scrub_end) <= dsec, sb);
	want(stria_le64(sb->scrub_offset) <= stria_le64(sb->scrub_end), sb);
	/* the next superblock update cannot wrap the event count */
	want(stria_le64(sb->events) <= STRIA_SB_EVENTS_MAX, sb);
	want(stria_le64(sb->degraded_events) <= stria_le64(sb->events), sb);
	/* the name is safe for sysfs, /dev/stria/NAME, the log and udev */
	want(stria_name_valid(sb->name) && strlen(sb->name) < STRIA_SB_NAME_LEN,
	     sb);
	if (stria_le64(sb->features_incompat) & STRIA_SB_FEAT_INCOMPAT_BITMAP) {
		u32 bc = stria_le32(sb->bitmap_chunk);
		u32 shift = stria_bitmap_shift(bc);
		u64 regions = stria_bitmap_regions(dsec, bc);

		want(g.level && bc && !(bc & (bc - 1)), sb);
		want(bc >= (1U << g.chunk_shift), sb);
		want(shift < 32 && (1U << shift) == bc, sb);
		/* region count x region size covers the data, and no more */
		want(regions >= 1 && regions <= STRIA_SB_BITMAP_MAX_REGIONS, sb);
		want((u128)regions * bc >= dsec, sb);
		want((u128)(regions - 1) * bc < dsec, sb);
		want(((dsec - 1) >> shift) < regions, sb);
		/* the bits fit the area between superblock and data */
		want((regions + 7) / 8 <= STRIA_SB_BITMAP_BYTES, sb);
		want(stria_le32(sb->bitmap_offset) == STRIA_SB_BITMAP_OFFSET, sb);
	} else {
		want(!sb->bitmap_chunk && !sb->bitmap_offset, sb);
	}
}

/* What create would pick for a bitmap over @dsec: it must fit or be 0. */
static void check_min_chunk(u64 dsec, u32 chunk, u32 want_chunk)
{
	u32 c = stria_bitmap_min_chunk(dsec, chunk, want_chunk);

	if (c && !stria_bitmap_chunk_ok(dsec, chunk, c)) {
		fprintf(stderr, "bitmap_min_chunk(%llu, %u, %u) = %u does not fit\n",
			(unsigned long long)dsec, chunk, want_chunk, c);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct stria_sb sb[STRIA_FUZZ_MEMBERS];
	char why[256];
	size_t n, i, fresh = 0, ok = 0;
	int valid[STRIA_FUZZ_MEMBERS];
	u64 probe = 0;
	uint8_t flags;

	if (!size)
		return 0;
	flags = data[0];
	data++;
	size--;
	n = (size + STRIA_SB_SIZE - 1) / STRIA_SB_SIZE;
	if (!n || n > STRIA_FUZZ_MEMBERS)
		return 0;
	memset(sb, 0, sizeof(sb));
	memcpy(sb, data, size);
	for (i = 0; i < size && i < 8; i++)
		probe = probe << 8 | data[size - 1 - i];

	for (i = 0; i < n; i++) {
		u32 crc;
		int ret;

		if (flags & 1)
			sb[i].crc = stria_cpu_le32(stria_crc32c(&sb[i],
							STRIA_SB_CRC_OFFSET));
		crc = stria_crc32c(&sb[i], STRIA_SB_CRC_OFFSET);
		why[0] = '\0';
		ret = stria_sb_check(&sb[i], crc, why, sizeof(why));
		if (ret != 0 && ret != -ENODATA && ret != -EBADMSG &&
		    ret != -EPROTONOSUPPORT)
			abort();
		/* a refusal always says why */
		if (ret && !why[0])
			abort();
		valid[i] = !ret;
		check_min_chunk(stria_le64(sb[i].data_sectors),
				stria_le32(sb[i].chunk_sectors),
				stria_le32(sb[i].bitmap_chunk));
		if (ret)
			continue;
		check_accepted(&sb[i], probe);
		if (!ok++ || stria_le64(sb[i].events) >
		    stria_le64(sb[fresh].events))
			fresh = i;
	}
	/*
	 * an assembly: members that agree with the freshest, and whose count
	 * and size follow it (older ones a grow's update missed)
	 */
	for (i = 0; ok > 1 && i < n; i++) {
		struct stria_geom g;

		if (!valid[i] || !stria_sb_same_array(&sb[i], &sb[fresh]) ||
		    !stria_sb_count_follows(&sb[i], &sb[fresh]))
			continue;
		/*
		 * one array, one shape: the freshest's geometry holds every
		 * member's data, at most as many members and sectors
		 */
		if (stria_sb_geom(&sb[fresh], &g) ||
		    g.member_sectors < stria_le64(sb[i].data_sectors) ||
		    g.nr_members < stria_le32(sb[i].nr_members))
			abort();
		if (!stria_sb_same_array(&sb[fresh], &sb[i]))
			abort();	/* the relation is symmetric */
	}
	return 0;
}
