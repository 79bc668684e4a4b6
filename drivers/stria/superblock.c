// SPDX-License-Identifier: GPL-2.0
/*
 * stria superblock I/O: read, fill and write the 4 KiB superblock at the
 * start of each member. The format itself (struct stria_sb and
 * stria_sb_check()) is in ondisk.h, shared with user space, and documented
 * in Documentation/stria/ondisk-format.rst.
 *
 * Layer: recorded state, the bottom (Documentation/stria/layers.rst,
 * drivers/stria/layers.map), with state.c and events.c; it calls no
 * other file of the driver.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/crc32c.h>
#include <linux/gfp.h>
#include <linux/string.h>

#include "stria.h"

/**
 * stria_sb_crc() - the CRC-32C a superblock must carry
 * @sb: the superblock
 *
 * Return: the standard CRC-32C (init and final xor ~0) of every byte before
 * the crc field.
 */
u32 stria_sb_crc(const struct stria_sb *sb)
{
	return ~crc32c(~0U, sb, STRIA_SB_CRC_OFFSET);
}

/**
 * stria_sb_page_io() - read or write 4 KiB of a member's metadata, and wait
 * @bdev: the member
 * @page: the data
 * @sector: where: 0 for the superblock, the bitmap area after it
 * @opf: REQ_OP_READ or _WRITE and flags
 *
 * Return: 0 or a negative errno.
 */
int stria_sb_page_io(struct block_device *bdev, struct page *page,
		     u64 sector, stria_opf_t opf)
{
	struct bio *bio;
	int ret;

	bio = stria_bio_alloc(bdev, 1, opf, GFP_KERNEL);
	if (!bio)
		return -ENOMEM;
	bio->bi_iter.bi_sector = sector;
	__bio_add_page(bio, page, STRIA_SB_SIZE, 0);
	ret = submit_bio_wait(bio);
	bio_put(bio);
	return ret;
}

/**
 * stria_sb_read() - read the superblock area of a member
 * @bdev: the member
 * @sb: filled with the first 4 KiB of @bdev; not checked
 *
 * Return: 0 or a negative errno (-EIO on a read error).
 */
int stria_sb_read(struct block_device *bdev, struct stria_sb *sb)
{
	struct page *page = alloc_page(GFP_KERNEL);
	int ret;

	if (!page)
		return -ENOMEM;
	ret = stria_sb_page_io(bdev, page, 0, REQ_OP_READ | REQ_SYNC | REQ_META);
	if (!ret)
		memcpy(sb, page_address(page), sizeof(*sb));
	__free_page(page);
	return ret;
}

/**
 * stria_sb_write() - write a superblock to a member, durably
 * @bdev: the member
 * @sb: the superblock, sealed (crc set)
 *
 * Earlier writes to @bdev are flushed first, and the superblock is written
 * with FUA.
 *
 * Return: 0 or a negative errno.
 */
int stria_sb_write(struct block_device *bdev, const struct stria_sb *sb)
{
	struct page *page = alloc_page(GFP_KERNEL);
	int ret;

	if (!page)
		return -ENOMEM;
	memcpy(page_address(page), sb, sizeof(*sb));
	ret = stria_sb_page_io(bdev, page, 0, REQ_OP_WRITE | REQ_SYNC | REQ_META |
			  REQ_PREFLUSH | REQ_FUA);
	__free_page(page);
	return ret;
}

/**
 * stria_sb_fill() - build the superblock of one member, sealed
 * @sb: filled
 * @a: the array (geometry, identity, events, failed and rebuilding roles in
 *	@a->sb_failed and @a->sb_rebuilding, the sync checkpoints)
 * @m: the member, or a spare (m->role STRIA_SB_ROLE_SPARE)
 * @state: STRIA_SB_STATE_*
 */
void stria_sb_fill(struct stria_sb *sb, const struct stria_array *a,
		   const struct stria_member *m, u32 state)
{
	memset(sb, 0, sizeof(*sb));
	memcpy(sb->magic, STRIA_SB_MAGIC, STRIA_SB_MAGIC_LEN);
	sb->format = cpu_to_le32(STRIA_SB_FORMAT);
	sb->layout = cpu_to_le32(stria_sb_layout_version(a->geom.level));
	memcpy(sb->array_uuid, a->uuid, STRIA_UUID_LEN);
	memcpy(sb->member_uuid, m->uuid, STRIA_UUID_LEN);
	strscpy(sb->name, a->name, sizeof(sb->name));
	sb->level = cpu_to_le32(a->geom.level);
	sb->chunk_sectors = cpu_to_le32(1U << a->geom.chunk_shift);
	sb->nr_members = cpu_to_le32(a->nr_members);
	sb->role = cpu_to_le32(m->role);
	sb->data_offset = cpu_to_le64(a->data_offset);
	sb->data_sectors = cpu_to_le64(a->geom.member_sectors);
	sb->dev_sectors = cpu_to_le64(m->dev_sectors);
	sb->events = cpu_to_le64(a->events);
	sb->state = cpu_to_le32(state);
	sb->ctime = cpu_to_le64(a->ctime);
	sb->utime = cpu_to_le64(ktime_get_real_seconds());
	sb->failed = cpu_to_le64(a->sb_failed);
	sb->parity_layout = cpu_to_le32(a->geom.layout);
	if (a->homehost[0]) {
		sb->features_incompat |=
			cpu_to_le64(STRIA_SB_FEAT_INCOMPAT_HOMEHOST);
		memcpy(sb->homehost, a->homehost, sizeof(sb->homehost));
	}
	if (a->sb_rebuilding) {
		sb->features_incompat |=
			cpu_to_le64(STRIA_SB_FEAT_INCOMPAT_REBUILD);
		sb->rebuilding = cpu_to_le64(a->sb_rebuilding);
		sb->rebuild_offset = cpu_to_le64(a->sync.rebuild_ckpt);
	}
	if (a->wib) {
		sb->features_incompat |=
			cpu_to_le64(STRIA_SB_FEAT_INCOMPAT_BITMAP);
		sb->bitmap_offset = cpu_to_le32(STRIA_SB_BITMAP_OFFSET);
		sb->bitmap_chunk = cpu_to_le32(stria_bitmap_chunk(a));
		sb->degraded_events = cpu_to_le64(a->degraded_events);
		sb->rebuild_partial = cpu_to_le64(a->sb_rebuild_partial);
	}
	if (a->reshaping) {
		sb->features_incompat |=
			cpu_to_le64(STRIA_SB_FEAT_INCOMPAT_RESHAPE);
		sb->reshape_pos = cpu_to_le64(a->reshape.sb_pos);
		sb->reshape_from = cpu_to_le32(a->reshape.from);
		sb->reshape_flags = cpu_to_le32(a->reshape.backup ?
						STRIA_SB_RESHAPE_BACKUP : 0);
	}
	if (a->sync.scrub_action != STRIA_SB_SCRUB_NONE) {
		sb->scrub_action = cpu_to_le32(a->sync.scrub_action);
		sb->scrub_offset = cpu_to_le64(a->sync.scrub_pos);
		sb->scrub_end = cpu_to_le64(a->sync.scrub_end);
	}
	sb->crc = cpu_to_le32(stria_sb_crc(sb));
}
