// SPDX-License-Identifier: GPL-2.0
/*
 * stria RAID5/6 stripe buffers: their pages, the copies between requests
 * and buffers, parity computation and rebuild, and the plan that says which
 * members a stripe operation reads. raid56_sop.c drives the stripe
 * operations; everything here works on one sop and takes no lock but the
 * per-CPU page cache's.
 *
 * Layer: the levels, RAID5/6 (Documentation/stria/layers.rst,
 * drivers/stria/layers.map): calls no other file of the level.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blk-mq.h>
#include <linux/highmem.h>
#include <linux/local_lock.h>
#include <linux/mempool.h>
#include <linux/mm.h>
#include <linux/raid/pq.h>
#include <linux/raid/xor.h>

#include "raid56.h"

/* ---- pages ------------------------------------------------------------ */

/*
 * A page from this CPU's cache, else the page allocator: without reclaim
 * when the caller may not wait (queue_rq), else with a little of it.
 */
static struct page *stria_r56_page_get(struct stria_raid56 *r, bool wait)
{
	struct stria_r56_pcache *pc;
	struct page *pg = NULL;
	unsigned long flags;

	local_lock_irqsave(&r->pcache->lock, flags);
	pc = this_cpu_ptr(r->pcache);
	if (pc->nr)
		pg = pc->pages[--pc->nr];
	local_unlock_irqrestore(&r->pcache->lock, flags);
	if (pg)
		return pg;
	return alloc_pages_node(r->a->node, __GFP_NOWARN |
				(wait ? GFP_NOIO | __GFP_NORETRY : GFP_NOWAIT),
				0);
}

/* Any context. Refills the reserve first, then this CPU's cache. */
static void stria_r56_page_put(struct stria_raid56 *r, struct page *pg)
{
	struct stria_r56_pcache *pc;
	unsigned long flags;

	if (READ_ONCE(r->page_pool->curr_nr) < r->page_pool->min_nr) {
		mempool_free(pg, r->page_pool);
		return;
	}
	local_lock_irqsave(&r->pcache->lock, flags);
	pc = this_cpu_ptr(r->pcache);
	if (pc->nr < STRIA_R56_CACHE_PAGES) {
		pc->pages[pc->nr++] = pg;
		pg = NULL;
	}
	local_unlock_irqrestore(&r->pcache->lock, flags);
	if (pg)
		__free_page(pg);
}

/**
 * stria_sop_want() - plan a buffer of a sop to cover some columns
 * @sop: the sop
 * @which: STRIA_R56_NEW or STRIA_R56_OLD
 * @m: the member
 * @s: first column
 * @e: end column (exclusive); nothing is planned when @e <= @s
 *
 * Marks the pages of member @m's buffer @which over [@s, @e) used; they
 * are allocated by stria_sop_alloc_pages().
 */
void stria_sop_want(struct stria_sop *sop, u32 which, u32 m, u32 s, u32 e)
{
	u32 k, i;

	if (s >= e)
		return;
	for (k = (s - sop->lo) / STRIA_R56_PAGE_SECTORS;
	     k <= (e - 1 - sop->lo) / STRIA_R56_PAGE_SECTORS; k++) {
		i = stria_sop_slot_index(sop, which, m, k);
		if (!__test_and_set_bit(i, sop->used))
			sop->pages[i] = NULL;
	}
}

/**
 * stria_sop_alloc_pages() - allocate every planned page of a sop
 * @sop: the sop
 * @wait: the caller may wait for the reserve: a work item, not queue_rq
 *
 * Process context. When the cache and the page allocator both fail, the
 * rest comes from the reserve, which one sop at a time may wait on: the
 * sops in flight give their pages back to it first, so the one waiting
 * always gets its share. queue_rq() does not wait for them: it runs in
 * the submitter's task, often inside its submit_bio(), and holds back
 * what that task queued before while it waits (its plug, the rest of a
 * split bio on current->bio_list). Without @wait the reserve is not
 * touched.
 *
 * Return: true when every page is there (always with @wait); false when
 * the sop must wait for some (its pages so far stay in @sop->pages).
 */
bool stria_sop_alloc_pages(struct stria_sop *sop, bool wait)
{
	struct stria_raid56 *r = sop->r;
	bool reserve = false;
	u32 i;

	for_each_set_bit(i, sop->used, r->nr_slots) {
		struct page *pg;

		if (sop->pages[i])
			continue;
		pg = reserve ? NULL : stria_r56_page_get(r, wait);
		if (!pg) {
			if (!wait)
				return false;
			if (!reserve) {
				mutex_lock(&r->reserve_lock);
				reserve = true;
			}
			pg = mempool_alloc(r->page_pool, GFP_NOIO);
		}
		sop->pages[i] = pg;
	}
	if (reserve)
		mutex_unlock(&r->reserve_lock);
	return true;
}

/**
 * stria_sop_free_pages() - give a sop's pages back and forget its plan
 * @sop: the sop
 *
 * Any context. The reserve is refilled first, then this CPU's cache.
 */
void stria_sop_free_pages(struct stria_sop *sop)
{
	struct stria_raid56 *r = sop->r;
	u32 i;

	for_each_set_bit(i, sop->used, r->nr_slots)
		if (sop->pages[i])
			stria_r56_page_put(r, sop->pages[i]);
	bitmap_zero(sop->used, r->nr_slots);
}

/* ---- copies between the request and the buffers ----------------------- */

/**
 * stria_sop_copy() - copy columns between a request and a sop's buffer
 * @sop: the sop
 * @rq: the request, which holds columns [@s, @e) of data index @i
 * @which: the buffer, STRIA_R56_NEW or STRIA_R56_OLD
 * @i: the data index
 * @s: first column
 * @e: end column (exclusive)
 * @to_buf: into the buffer when true, else into the request
 */
void stria_sop_copy(struct stria_sop *sop, struct request *rq, u32 which,
		    u32 i, u32 s, u32 e, bool to_buf)
{
	struct stria_raid56 *r = sop->r;
	u32 chunk_shift = r->a->geom.chunk_shift;
	u32 m = sop->dmember[i];
	u64 first = ((sop->stripe * r->nd + i) << chunk_shift) + s;
	u64 want = (first - blk_rq_pos(rq)) << SECTOR_SHIFT;
	u64 left = (u64)(e - s) << SECTOR_SHIFT, pos = 0;
	u32 col = s, coloff = 0;
	struct bvec_iter iter;
	struct bio_vec bv;
	struct bio *bio;

	__rq_for_each_bio(bio, rq) {
		if (pos + bio->bi_iter.bi_size <= want) {
			pos += bio->bi_iter.bi_size;
			continue;
		}
		bio_for_each_segment(bv, bio, iter) {
			u32 boff = 0;

			if (pos + bv.bv_len <= want) {
				pos += bv.bv_len;
				continue;
			}
			if (pos < want)
				boff = want - pos;
			while (boff < bv.bv_len && left) {
				u32 pend = stria_sop_piece_end(sop, col, e);
				u32 room = ((pend - col) << SECTOR_SHIFT) -
					   coloff;
				u32 n = min3(room, bv.bv_len - boff,
					     (u32)left);
				void *buf = stria_sop_addr(sop, which, m, col) +
					    coloff;

				if (to_buf)
					memcpy_from_page(buf, bv.bv_page,
							 bv.bv_offset + boff,
							 n);
				else
					memcpy_to_page(bv.bv_page,
						       bv.bv_offset + boff,
						       buf, n);
				boff += n;
				left -= n;
				coloff += n;
				if (coloff == (pend - col) << SECTOR_SHIFT) {
					col = pend;
					coloff = 0;
				}
			}
			pos += bv.bv_len;
			want = pos;
			if (!left)
				return;
		}
	}
}

/**
 * stria_sop_zero_fill() - zero columns of a sop's buffer
 * @sop: the sop
 * @which: the buffer, STRIA_R56_NEW or STRIA_R56_OLD
 * @m: the member
 * @s: first column
 * @e: end column (exclusive)
 *
 * The new data of a write-zeroes or discard request that covers part of a
 * slice: what stria_sop_copy() copies for a write.
 */
void stria_sop_zero_fill(struct stria_sop *sop, u32 which, u32 m, u32 s,
			 u32 e)
{
	u32 col, pend;

	for (col = s; col < e; col = pend) {
		pend = stria_sop_piece_end(sop, col, e);
		memset(stria_sop_addr(sop, which, m, col), 0,
		       (pend - col) << SECTOR_SHIFT);
	}
}

/* ---- parity ----------------------------------------------------------- */

/*
 * Data chunk @i over one piece: the new data where the segment writes it,
 * else what was read (or rebuilt) there.
 */
static void *stria_sop_data(struct stria_sop *sop, u32 i, u32 col,
			    u64 written)
{
	return stria_sop_addr(sop, written & (1ULL << i) ? STRIA_R56_NEW :
			      STRIA_R56_OLD, sop->dmember[i], col);
}

/**
 * stria_sop_gen() - compute parity from all the data
 * @sop: the sop
 * @s: first column
 * @e: end column (exclusive)
 * @written: data indexes (by bit) whose new data is in their NEW buffers;
 *	the others' data is in their OLD buffers (read or rebuilt)
 *
 * P (and Q) of columns [@s, @e) into the parity members' NEW buffers: for
 * full-stripe, reconstruct-write and degraded writes, and for sync.
 */
void stria_sop_gen(struct stria_sop *sop, u32 s, u32 e, u64 written)
{
	struct stria_raid56 *r = sop->r;
	u32 n = r->a->nr_members, i, col, pend;
	void *ptrs[STRIA_GEOM_MAX_MEMBERS];

	for (col = s; col < e; col = pend) {
		u32 bytes;

		pend = stria_sop_piece_end(sop, col, e);
		bytes = (pend - col) << SECTOR_SHIFT;
		for (i = 0; i < r->nd; i++)
			ptrs[sop->slot[i]] = stria_sop_data(sop, i, col,
							    written);
		ptrs[r->nd] = stria_sop_addr(sop, STRIA_R56_NEW, sop->p, col);
		if (r->np == 1) {
			memcpy(ptrs[r->nd], ptrs[0], bytes);
			stria_xor_blocks(ptrs[r->nd], ptrs + 1, r->nd - 1,
					 bytes);
			continue;
		}
		ptrs[r->nd + 1] = stria_sop_addr(sop, STRIA_R56_NEW, sop->q,
						 col);
		stria_raid6_gen_syndrome(n, bytes, ptrs);
	}
}

/**
 * stria_sop_rmw() - compute new parity from the old: read-modify-write
 * @sop: the sop
 * @s: first column
 * @e: end column (exclusive)
 * @written: data indexes (by bit) written; their old data and the old
 *	parity are in the OLD buffers, their new data in the NEW ones
 *
 * New P (and Q, with xor_syndrome) of columns [@s, @e) into the parity
 * members' NEW buffers.
 */
void stria_sop_rmw(struct stria_sop *sop, u32 s, u32 e, u64 written)
{
	struct stria_raid56 *r = sop->r;
	u32 n = r->a->nr_members, i, col, pend, first = ~0U, last = 0;
	void *ptrs[STRIA_GEOM_MAX_MEMBERS];

	for (i = 0; i < r->nd; i++) {
		if (!(written & (1ULL << i)))
			continue;
		first = min(first, sop->slot[i]);
		last = max(last, sop->slot[i]);
	}
	for (col = s; col < e; col = pend) {
		void *pp, *qq;
		u32 bytes, c = 0;

		pend = stria_sop_piece_end(sop, col, e);
		bytes = (pend - col) << SECTOR_SHIFT;
		pp = stria_sop_addr(sop, STRIA_R56_NEW, sop->p, col);
		memcpy(pp, stria_sop_addr(sop, STRIA_R56_OLD, sop->p, col),
		       bytes);
		if (r->np == 1) {
			for (i = 0; i < r->nd; i++) {
				if (!(written & (1ULL << i)))
					continue;
				ptrs[c++] = stria_sop_addr(sop, STRIA_R56_OLD,
							   sop->dmember[i],
							   col);
				ptrs[c++] = stria_sop_addr(sop, STRIA_R56_NEW,
							   sop->dmember[i],
							   col);
			}
			stria_xor_blocks(pp, ptrs, c, bytes);
			continue;
		}
		qq = stria_sop_addr(sop, STRIA_R56_NEW, sop->q, col);
		memcpy(qq, stria_sop_addr(sop, STRIA_R56_OLD, sop->q, col),
		       bytes);
		/* P, Q ^= syndrome(old data), then ^= syndrome(new data) */
		for (i = 0; i < r->nd; i++)
			ptrs[sop->slot[i]] = stria_raid6_zero_page();
		ptrs[r->nd] = pp;
		ptrs[r->nd + 1] = qq;
		for (c = 0; c < 2; c++) {
			for (i = 0; i < r->nd; i++)
				if (written & (1ULL << i))
					ptrs[sop->slot[i]] =
						stria_sop_addr(sop, c ?
							STRIA_R56_NEW :
							STRIA_R56_OLD,
							sop->dmember[i], col);
			stria_raid6_xor_syndrome(n, first, last, bytes, ptrs);
		}
	}
}

/* Data indexes on failed members, up to two; returns how many. */
static u32 stria_sop_failed_data(struct stria_sop *sop, u32 *fd)
{
	u32 i, nfd = 0;

	for (i = 0; i < sop->r->nd && nfd < 2; i++)
		if (!stria_sop_has(sop, sop->dmember[i]))
			fd[nfd++] = i;
	return nfd;
}

/**
 * stria_sop_rebuild() - rebuild the data of failed members
 * @sop: the sop
 * @s: first column
 * @e: end column (exclusive)
 *
 * Rebuilds the old data of the failed data members over [@s, @e) into
 * their OLD buffers, from the OLD buffers of the others (P by XOR, else
 * stria_raid6_recov_datap()/_2data()). The caller read every
 * surviving member there.
 */
void stria_sop_rebuild(struct stria_sop *sop, u32 s, u32 e)
{
	struct stria_raid56 *r = sop->r;
	u32 n = r->a->nr_members, i, col, pend, fd[2], nfd, c;
	bool p_ok = stria_sop_has(sop, sop->p);
	void *ptrs[STRIA_GEOM_MAX_MEMBERS];

	nfd = stria_sop_failed_data(sop, fd);
	if (!nfd)
		return;
	for (col = s; col < e; col = pend) {
		u32 bytes;

		pend = stria_sop_piece_end(sop, col, e);
		bytes = (pend - col) << SECTOR_SHIFT;
		if (nfd == 1 && p_ok) {
			void *dest = stria_sop_addr(sop, STRIA_R56_OLD,
						    sop->dmember[fd[0]], col);

			memcpy(dest, stria_sop_addr(sop, STRIA_R56_OLD, sop->p,
						    col), bytes);
			for (i = 0, c = 0; i < r->nd; i++)
				if (i != fd[0])
					ptrs[c++] = stria_sop_addr(sop,
						STRIA_R56_OLD, sop->dmember[i],
						col);
			stria_xor_blocks(dest, ptrs, c, bytes);
			continue;
		}
		for (i = 0; i < r->nd; i++)
			ptrs[sop->slot[i]] = stria_sop_addr(sop, STRIA_R56_OLD,
							    sop->dmember[i],
							    col);
		/* a failed P's OLD buffer is scratch for the recovery */
		ptrs[r->nd] = stria_sop_addr(sop, STRIA_R56_OLD, sop->p, col);
		ptrs[r->nd + 1] = stria_sop_addr(sop, STRIA_R56_OLD, sop->q,
						 col);
		if (nfd == 1) {
			stria_raid6_recov_datap(n, bytes, sop->slot[fd[0]],
						ptrs);
		} else {
			u32 a = sop->slot[fd[0]], b = sop->slot[fd[1]];

			stria_raid6_recov_2data(n, bytes, min(a, b), max(a, b),
						ptrs);
		}
	}
}

/* ---- planning --------------------------------------------------------- */

/**
 * stria_seg_needs_rebuild() - does a segment need a failed member's data
 * @sop: the sop
 * @sg: one of its segments
 *
 * Return: true when @sg needs the old data of a failed member it does not
 * write.
 */
bool stria_seg_needs_rebuild(struct stria_sop *sop,
			     const struct stria_parity_seg *sg)
{
	u32 fd[2], nfd = stria_sop_failed_data(sop, fd), k;

	for (k = 0; k < nfd; k++)
		if (!(sg->written & (1ULL << fd[k])))
			return true;
	return false;
}

/**
 * stria_seg_reads() - the members a segment reads
 * @sop: the sop
 * @sg: one of its segments
 *
 * RMW reads the written data and the parity, RCW the data not written, a
 * degraded write what it needs to rebuild, a degraded read every surviving
 * member but an unneeded Q, a sync what its operation checks or copies.
 * Members the sop does not have are never read.
 *
 * Return: the members, by bit.
 */
u64 stria_seg_reads(struct stria_sop *sop, const struct stria_parity_seg *sg)
{
	struct stria_raid56 *r = sop->r;
	u32 n = r->a->nr_members, i, fd[2];
	u64 mask = 0;

	switch (sg->method) {
	case STRIA_PARITY_RMW:
		mask = 1ULL << sop->p;
		if (r->np == 2)
			mask |= 1ULL << sop->q;
		fallthrough;
	case STRIA_PARITY_RCW:
		for (i = 0; i < r->nd; i++)
			if (sg->read & (1ULL << i))
				mask |= 1ULL << sop->dmember[i];
		return mask;
	case STRIA_PARITY_DEGRADED_WRITE:
		if (!stria_seg_needs_rebuild(sop, sg)) {
			for (i = 0; i < r->nd; i++)
				if (!(sg->written & (1ULL << i)))
					mask |= 1ULL << sop->dmember[i];
			break;
		}
		fallthrough;
	case STRIA_PARITY_DEGRADED_READ:
		mask = n == 64 ? ~0ULL : (1ULL << n) - 1;
		/* one lost data chunk and P: P rebuilds it, Q is not needed */
		if (r->np == 2 && stria_sop_failed_data(sop, fd) == 1 &&
		    stria_sop_has(sop, sop->p))
			mask &= ~(1ULL << sop->q);
		break;
	case STRIA_PARITY_SYNC:
		/* rebuild: every member in sync; scrub and resync: all */
		mask = n == 64 ? ~0ULL : (1ULL << n) - 1;
		if (sop->sync->op == STRIA_SYNC_OP_REPLACE)
			mask = 1ULL << r->a->repl_role;
		if (sop->sync->op == STRIA_SYNC_OP_RESYNC) {
			mask = 0;
			for (i = 0; i < r->nd; i++)
				mask |= 1ULL << sop->dmember[i];
		}
		break;
	default:
		return 0;
	}
	for (i = 0; i < n; i++)
		if (!stria_sop_has(sop, i))
			mask &= ~(1ULL << i);
	return mask;
}

/**
 * stria_sop_plan() - cut a sop into column segments and pick their methods
 * @sop: the sop, with its ranges set
 * @degraded: a member the sop writes to or reads from is out of sync
 *
 * A sync is one segment over the slice, a degraded read one over the
 * wanted columns; a write is planned by stria_parity_plan(), with
 * reconstruct-write where the stripe owes a resync.
 */
void stria_sop_plan(struct stria_sop *sop, bool degraded)
{
	struct stria_raid56 *r = sop->r;
	struct stria_parity_seg *sg;
	u32 k, i;

	if (sop->sync) {
		/* background sync: the whole slice, nothing from a request */
		sg = &sop->segs[0];
		sg->start = sop->lo;
		sg->end = sop->lo + r->slice;
		sg->written = 0;
		sg->read = 0;
		sg->method = STRIA_PARITY_SYNC;
		sop->nsegs = 1;
	} else if (!sop->write) {
		/* one segment: the wanted columns of the one lost chunk */
		for (i = 0; i < r->nd; i++)
			if (sop->ranges[i].start < sop->ranges[i].end)
				break;
		sg = &sop->segs[0];
		sg->start = sop->ranges[i].start;
		sg->end = sop->ranges[i].end;
		sg->written = 0;
		sg->read = 0;
		sg->method = STRIA_PARITY_DEGRADED_READ;
		sop->nsegs = 1;
	} else {
		/* RMW carries the old parity forward: not one owed a resync */
		sop->nsegs = stria_parity_plan(r->nd, r->np,
					       r->rmw_ok && !degraded &&
					       !sop->owed,
					       sop->ranges, sop->segs,
					       STRIA_PARITY_ROW_SEGS);
		if (WARN_ON_ONCE(sop->nsegs > STRIA_PARITY_ROW_SEGS))
			sop->nsegs = STRIA_PARITY_ROW_SEGS;
		if (degraded)
			for (k = 0; k < sop->nsegs; k++)
				sop->segs[k].method = STRIA_PARITY_DEGRADED_WRITE;
	}
}
