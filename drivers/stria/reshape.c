// SPDX-License-Identifier: GPL-2.0
/*
 * stria reshape: a running RAID0 array restriped onto added members.
 *
 * The data moves in place, forward, at the same data offset, one window of
 * rows after another, as geom_reshape.h plans it (Documentation/stria/
 * sync.rst, "Growing onto added members", has the figure): new rows below
 * the checkpoint hold their data, the others are still in the old layout.
 * The engine runs as the sync action "reshape" (sync.c calls
 * stria_reshape_step() for each window, with the sync's throttle, progress
 * and events), so it stops, and goes on from its checkpoint, like a
 * rebuild.
 *
 * Each window:
 *
 * 1. is opened with the queue frozen: no bio routed to the old layout is
 *    in flight into it, and from then on I/O to its chunks waits
 *    (raid0.c reads @a->reshape by position);
 * 2. its chunks are read from the old layout (old rows at or above its
 *    end, which no window has touched) and written to its new rows, which
 *    overwrite only old rows whose chunks are already below the
 *    checkpoint (stria_reshape_window_safe());
 * 3. the members are flushed, and the superblocks record the new
 *    checkpoint;
 * 4. only then does the I/O to its chunks go to the new layout.
 *
 * A crash before 3 moves the same window again from the same sources; a
 * user write into the window is never acknowledged before 4.
 *
 * The first K rows (the critical rows, where no window is safe yet) move
 * through a backup: their chunks are copied to the added members' last
 * rows and the superblocks mark the backup before the new rows are
 * written; a crash with the mark set moves them again from the backup.
 *
 * Layer: sync (Documentation/stria/layers.rst, drivers/stria/layers.map),
 * beside sync.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/highmem.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "stria.h"

/* the engine's buffer: about this much, and at least one chunk */
#define STRIA_RESHAPE_BUF_BYTES	(4U << 20)

/* pages of one chunk (the last in part where a page is larger than it) */
static u32 stria_reshape_pages_of(const struct stria_geom *g)
{
	return DIV_ROUND_UP(1U << (g->chunk_shift + SECTOR_SHIFT), PAGE_SIZE);
}

/**
 * stria_reshape_setup() - prepare a restripe of @a from @from members
 * @a: the array
 * @g: the geometry after, RAID0
 * @from: members before
 * @pos: the checkpoint to go on from (0 for a new reshape)
 * @backup: the superblocks mark the critical rows' backup as whole
 *
 * Plans the reshape, keeps the old geometry and allocates the engine's
 * buffer; @a's geometry is not touched (the caller sets it to @g with the
 * queue frozen). Nothing is routed by it until @a->reshaping is set.
 *
 * Return: 0; -EINVAL for a plan that is not valid here, -ENOSPC when the
 * backup would not fit, -ENOMEM.
 */
int stria_reshape_setup(struct stria_array *a, const struct stria_geom *g,
			u32 from, u64 pos, bool backup)
{
	struct stria_reshape *rs = &a->reshape;
	u32 chunk_pages, i;
	int ret;

	if (g->level != 0 || from >= g->nr_members)
		return -EINVAL;
	ret = stria_reshape_plan_init(&rs->plan, from, g->nr_members,
				      g->nr_members - from,
				      g->member_sectors >> g->chunk_shift);
	if (ret)
		return ret;
	/*
	 * @pos and @backup need no check here: a grow passes 0 and false,
	 * an assembly a record stria_sb_check() held to this same plan
	 */
	ret = stria_geom_setup(&rs->old, 0, 0, from, 1U << g->chunk_shift,
			       g->member_sectors);
	if (ret)
		return ret;
	chunk_pages = stria_reshape_pages_of(g);
	rs->slots = max_t(u32, 1, STRIA_RESHAPE_BUF_BYTES /
			  (chunk_pages << PAGE_SHIFT));
	/* a window moves about a buffer's worth, at least a row */
	rs->max_rows = max_t(u32, 1, rs->slots / g->nr_members);
	rs->nr_pages = rs->slots * chunk_pages;
	rs->pages = kvcalloc(rs->nr_pages, sizeof(*rs->pages), GFP_KERNEL);
	if (!rs->pages)
		return -ENOMEM;
	for (i = 0; i < rs->nr_pages; i++) {
		rs->pages[i] = alloc_page(GFP_KERNEL);
		if (!rs->pages[i]) {
			stria_reshape_free(a);
			return -ENOMEM;
		}
	}
	rs->from = from;
	rs->ckpt = pos;
	rs->win_end = pos;
	rs->sb_pos = pos;
	rs->backup = backup;
	init_waitqueue_head(&rs->wait);
	return 0;
}

/**
 * stria_reshape_free() - free the engine's buffer
 * @a: the array, not reshaping (or never started)
 */
void stria_reshape_free(struct stria_array *a)
{
	struct stria_reshape *rs = &a->reshape;
	u32 i;

	if (!rs->pages)
		return;
	for (i = 0; i < rs->nr_pages && rs->pages[i]; i++)
		__free_page(rs->pages[i]);
	kvfree(rs->pages);
	rs->pages = NULL;
	rs->nr_pages = 0;
}

/*
 * Read or write one chunk of member @role at member sector @sector from or
 * to the buffer's chunk slot @slot. An error fails the member (the usual
 * rule), which fails a RAID0 array.
 */
static int stria_reshape_chunk_io(struct stria_array *a, u32 role, u64 sector,
				  u32 slot, stria_opf_t opf)
{
	struct stria_member *m = &a->members[role];
	u32 n = stria_reshape_pages_of(&a->geom), i;
	u32 left = 1U << (a->geom.chunk_shift + SECTOR_SHIFT);
	blk_status_t st;
	struct bio *bio;

	if (stria_member_failed(m) || !m->dev.bdev)
		return -EIO;
	bio = stria_bio_alloc(m->dev.bdev, n, opf, GFP_NOIO);
	bio->bi_iter.bi_sector = a->data_offset + sector;
	for (i = 0; i < n; i++, left -= PAGE_SIZE)
		__bio_add_page(bio, a->reshape.pages[slot * n + i],
			       min_t(u32, left, PAGE_SIZE), 0);
	submit_bio_wait(bio);
	st = bio->bi_status;
	bio_put(bio);
	if (!st)
		return 0;
	pr_err("stria%d: reshape: %s of member %u (%pg) at sector %llu failed: %d\n",
	       a->index, op_is_write(opf) ? "write" : "read", role,
	       m->dev.bdev, sector, blk_status_to_errno(st));
	if (stria_member_io_error(m, st))
		stria_array_member_failed(a);
	return -EIO;
}

static void stria_reshape_zero_slot(struct stria_array *a, u32 slot)
{
	u32 n = stria_reshape_pages_of(&a->geom), i;

	for (i = 0; i < n; i++)
		clear_highpage(a->reshape.pages[slot * n + i]);
}

/*
 * Read data chunk @c into slot @slot from where it is before the reshape:
 * the backup for the critical rows' chunks once it is whole, else the old
 * layout. Chunks past the old data (the last new row) read as zeroes.
 */
static int stria_reshape_read_chunk(struct stria_array *a, u64 c, u32 slot,
				    bool from_backup)
{
	const struct stria_reshape_plan *p = &a->reshape.plan;
	u32 shift = a->geom.chunk_shift, added;
	struct stria_loc loc;
	u64 row;

	if (c >= p->rows * p->from_data) {
		stria_reshape_zero_slot(a, slot);
		return 0;
	}
	if (from_backup && c < p->critical * p->from_data) {
		stria_reshape_backup_loc(p, c, &added, &row);
		return stria_reshape_chunk_io(a, p->from_data + added,
					      row << shift, slot, REQ_OP_READ);
	}
	stria_raid0_map(&a->reshape.old, c << shift, &loc);
	return stria_reshape_chunk_io(a, loc.member, loc.sector, slot,
				      REQ_OP_READ);
}

/*
 * Record @pos (and the backup mark) in the superblocks, once what they
 * name is durable: the members are flushed first.
 */
static int stria_reshape_record(struct stria_array *a, u64 pos, bool backup)
{
	int ret = stria_array_flush_members(a);

	if (ret)
		return ret;
	mutex_lock(&a->sb_lock);
	a->reshape.sb_pos = pos;
	a->reshape.backup = backup;
	mutex_unlock(&a->sb_lock);
	/* a member that cannot record it fails (and the RAID0 array with it) */
	return stria_array_update_sbs(a);
}

/* Open the window up to new row @end: I/O to its chunks waits from now on. */
static void stria_reshape_open(struct stria_array *a, u64 end)
{
	unsigned int memflags = stria_array_freeze(a);

	WRITE_ONCE(a->reshape.win_end, end);
	stria_array_unfreeze(a, memflags);
}

/* New rows below @ckpt are recorded: their chunks' I/O goes there now. */
static void stria_reshape_advance(struct stria_array *a, u64 ckpt)
{
	/* after the record: pairs with the acquire in stria_raid0_locate() */
	smp_store_release(&a->reshape.ckpt, ckpt);
	wake_up_all(&a->reshape.wait);
}

/*
 * Write new rows [@w0, @w0 + @w), reading each chunk from its place
 * before the reshape (from the backup where @from_backup), a buffer's
 * worth of chunks at a time. Any order is safe: the new rows overwrite
 * only old rows whose chunks are below @w0 in the new layout already (or,
 * in the critical rows, in the backup), and read only old rows they do not
 * overwrite.
 */
static int stria_reshape_move_rows(struct stria_array *a, u64 w0, u64 w,
				   bool from_backup)
{
	u32 dn = a->reshape.plan.to_data, shift = a->geom.chunk_shift, n, i;
	u64 c = w0 * dn, end = (w0 + w) * dn;
	int ret;

	for (; c < end; c += n) {
		n = (u32)min_t(u64, a->reshape.slots, end - c);
		for (i = 0; i < n; i++) {
			ret = stria_reshape_read_chunk(a, c + i, i, from_backup);
			if (ret)
				return ret;
		}
		for (i = 0; i < n; i++) {
			u32 m;
			u64 row = div_u64_rem(c + i, dn, &m);

			ret = stria_reshape_chunk_io(a, m, row << shift, i,
						     REQ_OP_WRITE);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/*
 * The critical rows: backed up to the added members' last rows, marked,
 * then written; a crash with the mark set goes on here from the backup.
 */
static int stria_reshape_critical(struct stria_array *a)
{
	struct stria_reshape *rs = &a->reshape;
	const struct stria_reshape_plan *p = &rs->plan;
	u32 shift = a->geom.chunk_shift, added;
	u64 c, row;
	int ret;

	/* every write into the critical rows' chunks waits from here on */
	stria_reshape_open(a, p->critical);
	if (!rs->backup) {
		for (c = 0; c < p->critical * p->from_data; c++) {
			ret = stria_reshape_read_chunk(a, c, 0, false);
			if (ret)
				return ret;
			stria_reshape_backup_loc(p, c, &added, &row);
			ret = stria_reshape_chunk_io(a, p->from_data + added,
						     row << shift, 0,
						     REQ_OP_WRITE);
			if (ret)
				return ret;
		}
		ret = stria_reshape_record(a, 0, true);
		if (ret)
			return ret;
	}
	ret = stria_reshape_move_rows(a, 0, p->critical, true);
	if (ret)
		return ret;
	ret = stria_reshape_record(a, p->critical, false);
	if (ret)
		return ret;
	stria_reshape_advance(a, p->critical);
	return 0;
}

/**
 * stria_reshape_step() - move the next window (or the critical rows)
 * @a: the array, reshaping, its sync action STRIA_SYNC_RESHAPE
 * @pos: set to the new checkpoint, in member sectors, once it is recorded
 *
 * Worker context, no lock held but the sync's stripe_sem for reading.
 *
 * Return: 0, or the error of a member (the array has failed then; the
 * last recorded checkpoint stands, and I/O to the window's chunks fails).
 */
int stria_reshape_step(struct stria_array *a, u64 *pos)
{
	struct stria_reshape *rs = &a->reshape;
	u64 w0 = rs->ckpt, w;
	int ret;

	if (w0 < rs->plan.critical) {
		ret = stria_reshape_critical(a);
	} else {
		w = stria_reshape_window(&rs->plan, w0, rs->max_rows);
		if (WARN_ON_ONCE(!w))
			return -EINVAL;
		stria_reshape_open(a, w0 + w);
		ret = stria_reshape_move_rows(a, w0, w, false);
		if (!ret)
			ret = stria_reshape_record(a, w0 + w, false);
		if (!ret)
			stria_reshape_advance(a, w0 + w);
	}
	if (!ret) {
		*pos = rs->ckpt << a->geom.chunk_shift;
		return 0;
	}
	/*
	 * Stopped inside the window (a member failed, so has the RAID0
	 * array): the window's chunks may be half moved, and in the critical
	 * rows their old places overwritten. I/O to them ends with an error
	 * rather than read either layout; a stop and an assembly go on from
	 * the recorded checkpoint.
	 */
	WRITE_ONCE(rs->broken, true);
	wake_up_all(&rs->wait);
	if (atomic_read(&a->nr_failed))
		pr_warn("stria%d: the restripe of '%s' stopped; the superblocks record it up to row %llu of %llu, where an assembly goes on: once the array is stopped, 'striactl assemble --force' takes back a failed member that still holds its data (after a pulled cable or a controller reset)\n",
			a->index, a->name, rs->sb_pos, rs->plan.rows_new);
	return ret;
}

/**
 * stria_reshape_done() - the last window is recorded: end the reshape
 * @a: the array; caller holds @a->cfg_lock
 *
 * Every chunk is in the new layout now: the routing ends with the queue
 * frozen, the superblocks stop recording the reshape, and the capacity
 * grows to the new layout's.
 */
void stria_reshape_done(struct stria_array *a)
{
	unsigned int memflags;

	lockdep_assert_held(&a->cfg_lock);
	memflags = stria_array_freeze(a);
	mutex_lock(&a->sb_lock);
	WRITE_ONCE(a->reshaping, false);
	mutex_unlock(&a->sb_lock);
	stria_array_unfreeze(a, memflags);
	wake_up_all(&a->reshape.wait);
	stria_array_update_sbs(a);
	stria_reshape_free(a);
	set_capacity_and_notify(a->disk, stria_geom_array_sectors(&a->geom));
	pr_info("stria%d: '%s' restriped onto %u members: %llu sectors\n",
		a->index, a->name, a->nr_members,
		stria_geom_array_sectors(&a->geom));
}
