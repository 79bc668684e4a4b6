// SPDX-License-Identifier: GPL-2.0
/*
 * stria RAID5/6 background sync of one stripe: stria_raid56_sync_stripe(),
 * the levels' sync_stripe op that sync.c drives (rebuild, resync, check,
 * repair, the copy of a replace), and what its sops compute once their
 * reads are back (stria_sop_sync_compute()): the parity compared or
 * rewritten, the data of a member being rebuilt, and where a RAID6 repair
 * finds P and Q wrong, the one chunk they name, rewritten in a second pass.
 *
 * Layer: the levels, RAID5/6 (Documentation/stria/layers.rst). Called
 * through struct stria_level_ops by sync; runs its sops through the stripe
 * lock and stripe operations of raid56.c, with the buffers and parity of
 * raid56_buf.c; calls the services (events) and the array's roles.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>

#include "raid56.h"

/*
 * Parity columns [@s, @e) of member @m that differ between what was read
 * (OLD) and what the data gives (NEW), in sectors, counted by 4 KiB page
 * pieces as md counts them.
 */
static u64 stria_sop_mismatches(struct stria_sop *sop, u32 m, u32 s, u32 e)
{
	u32 col, pend;
	u64 bad = 0;

	for (col = s; col < e; col = pend) {
		pend = stria_sop_piece_end(sop, col, e);
		if (memcmp(stria_sop_addr(sop, STRIA_R56_NEW, m, col),
			   stria_sop_addr(sop, STRIA_R56_OLD, m, col),
			   (pend - col) << SECTOR_SHIFT))
			bad += pend - col;
	}
	return bad;
}

/*
 * The members of @sop->fix get back their columns [@s, @e) as rebuilt:
 * data from OLD to NEW, P and Q already in NEW. Returns them.
 */
static u64 stria_sop_fix_writes(struct stria_sop *sop, u32 s, u32 e)
{
	u64 fix = sop->fix;
	u32 i;

	while (fix) {
		i = __ffs64(fix);
		fix &= fix - 1;
		if (i != sop->p && i != sop->q)
			stria_sop_old_to_new(sop, i, s, e);
	}
	return sop->fix;
}

/*
 * RAID6 repair of columns [@s, @e), P' and Q' in NEW. First pass: count
 * the parity sectors found wrong and add where P and Q differ to the
 * stripe's evidence. Second pass: when these columns name the member the
 * whole stripe's evidence named, give it its right bytes (in NEW: a data
 * chunk's are D ^ P ^ P') and return it, to be written; else leave them.
 */
static u64 stria_sop_locate(struct stria_sop *sop, u32 s, u32 e)
{
	struct stria_r56_sync *sync = sop->sync;
	u32 fm = sync->fix_member, col, pend, len, slot = 0, i;
	enum stria_locate_verdict v;
	struct stria_locate l;
	u64 bad;

	bad = stria_sop_mismatches(sop, sop->p, s, e) +
	      stria_sop_mismatches(sop, sop->q, s, e);
	if (!bad)
		return 0;
	stria_locate_init(&l);
	for (col = s; col < e; col = pend) {
		pend = stria_sop_piece_end(sop, col, e);
		stria_locate_add(&l, sop->r->nd,
				 stria_sop_addr(sop, STRIA_R56_OLD, sop->p, col),
				 stria_sop_addr(sop, STRIA_R56_NEW, sop->p, col),
				 stria_sop_addr(sop, STRIA_R56_OLD, sop->q, col),
				 stria_sop_addr(sop, STRIA_R56_NEW, sop->q, col),
				 (pend - col) << SECTOR_SHIFT);
	}
	if (fm == STRIA_GEOM_NONE) {
		atomic64_add(bad, &sync->mismatches);
		spin_lock(&sync->lock);
		stria_locate_merge(&sync->loc, &l);
		spin_unlock(&sync->lock);
		return 0;
	}
	v = stria_locate_one(&l, &slot);
	if (v == STRIA_LOCATE_DATA) {
		for (i = 0; i < sop->r->nd && sop->slot[i] != slot; i++)
			;
		if (i < sop->r->nd && sop->dmember[i] == fm) {
			stria_sop_old_to_new(sop, fm, s, e);
			for (col = s; col < e; col = pend) {
				pend = stria_sop_piece_end(sop, col, e);
				len = (pend - col) << SECTOR_SHIFT;
				stria_locate_fix_data(
					stria_sop_addr(sop, STRIA_R56_NEW, fm, col),
					stria_sop_addr(sop, STRIA_R56_OLD, sop->p, col),
					stria_sop_addr(sop, STRIA_R56_NEW, sop->p, col),
					len);
			}
			return BIT_ULL(fm);
		}
	} else if ((v == STRIA_LOCATE_P && fm == sop->p) ||
		   (v == STRIA_LOCATE_Q && fm == sop->q)) {
		return BIT_ULL(fm);
	}
	WRITE_ONCE(sync->raced, true);
	return 0;
}

/*
 * A rebuild in a stripe that owes a resync (@sop->owed), columns [@s, @e)
 * rebuilt and P (and Q) computed from the data into NEW: can what the
 * missing data members get be trusted? Parity alone is always computed
 * from the data. A lost data chunk comes from parity that may not match
 * the data: on RAID6 with one data chunk lost and P and Q read, Q computed
 * from the data with the rebuilt chunk must equal Q as read (the chunk
 * then is the one value both parities agree on); else nothing can tell.
 * Columns it cannot verify are counted in the sync's mismatches and
 * logged: the member gets them (it must hold something to be in sync),
 * but their data may be wrong.
 */
static void stria_sop_rebuild_verify(struct stria_sop *sop, u32 s, u32 e)
{
	struct stria_raid56 *r = sop->r;
	struct stria_array *a = r->a;
	u32 i, nfd = 0, lost = 0;

	for (i = 0; i < r->nd; i++)
		if (!stria_sop_has(sop, sop->dmember[i]) && !nfd++)
			lost = i;
	if (!nfd)
		return;
	if (nfd == 1 && r->np == 2 && stria_sop_has(sop, sop->p) &&
	    stria_sop_has(sop, sop->q) &&
	    !stria_sop_mismatches(sop, sop->q, s, e))
		return;
	atomic64_add(e - s, &sop->sync->mismatches);
	pr_warn_ratelimited("stria%d: stripe %llu owes a resync: member %u's chunk rebuilt from parity that cannot be verified, array sectors %llu-%llu may be wrong\n",
			    a->index, sop->stripe, sop->dmember[lost],
			    sop->stripe * stria_geom_stripe_sectors(&a->geom) +
			    ((u64)lost << a->geom.chunk_shift) + s,
			    sop->stripe * stria_geom_stripe_sectors(&a->geom) +
			    ((u64)lost << a->geom.chunk_shift) + e - 1);
}

/**
 * stria_sop_sync_compute() - a background sync's sop, after its reads
 * @sop: a sop of stria_raid56_sync_stripe(), its reads back
 *
 * Background sync, the reads are back: rebuild the members being rebuilt,
 * or compare (and repair) or rewrite the parity. Members whose reads
 * failed (@sop->fix) get their rebuilt columns back. Process context; the
 * sop ends with its writes.
 */
void stria_sop_sync_compute(struct stria_sop *sop)
{
	struct stria_raid56 *r = sop->r;
	u32 s = sop->segs[0].start, e = sop->segs[0].end, i;
	u64 masks[STRIA_PARITY_ROW_SEGS] = { 0 }, bad = 0;

	if (sop->sync->op == STRIA_SYNC_OP_REPLACE) {
		/* what was read from the member goes to its replacement */
		masks[0] = 1ULL << r->a->repl_role;
		stria_sop_write(sop, masks, STRIA_R56_OLD, REQ_OP_WRITE);
		return;
	}
	stria_sop_rebuild(sop, s, e);
	stria_sop_gen(sop, s, e, 0);
	switch (sop->sync->op) {
	case STRIA_SYNC_OP_REBUILD:
		if (sop->owed)
			stria_sop_rebuild_verify(sop, s, e);
		for (i = 0; i < r->a->nr_members; i++) {
			if (READ_ONCE(stria_sop_member(sop, i)->state) !=
			    STRIA_STATE_REBUILDING)
				continue;
			if (i != sop->p && i != sop->q)
				stria_sop_old_to_new(sop, i, s, e);
			masks[0] |= 1ULL << i;
		}
		break;
	case STRIA_SYNC_OP_CHECK:
	case STRIA_SYNC_OP_REPAIR:
		/* a member's columns were rebuilt: nothing to compare them to */
		if (sop->fix)
			break;
		if (r->np == 2 && sop->sync->op == STRIA_SYNC_OP_REPAIR) {
			/* RAID6: only the one chunk located, if any */
			masks[0] = stria_sop_locate(sop, s, e);
			break;
		}
		bad = stria_sop_mismatches(sop, sop->p, s, e);
		if (r->np == 2)
			bad += stria_sop_mismatches(sop, sop->q, s, e);
		atomic64_add(bad, &sop->sync->mismatches);
		if (!bad || sop->sync->op == STRIA_SYNC_OP_CHECK)
			break;
		fallthrough;
	case STRIA_SYNC_OP_RESYNC:
		masks[0] = 1ULL << sop->p;
		if (r->np == 2)
			masks[0] |= 1ULL << sop->q;
		break;
	case STRIA_SYNC_OP_REPLACE:	/* copied above */
		break;
	}
	if (sop->fix) {
		masks[0] |= stria_sop_fix_writes(sop, s, e);
		this_cpu_add(r->stats->read_repairs, hweight64(sop->fix));
	}
	stria_sop_write(sop, masks, STRIA_R56_NEW, REQ_OP_WRITE);
}

/* One pass of @sync over @stripe: a sop per slice, all in flight at once. */
static void stria_r56_sync_pass(struct stria_raid56 *r, u64 stripe,
				struct stria_r56_sync *sync)
{
	u32 k;

	atomic_set(&sync->pending, r->nr_slices);
	init_completion(&sync->done);
	for (k = 0; k < r->nr_slices; k++) {
		/* the sync worker may wait: its sops in flight give theirs back */
		struct stria_sop *sop = stria_sop_alloc(r, NULL, stripe, k,
							false, GFP_NOIO);

		sop->sync = sync;
		stria_sop_start(sop, NULL, true);
	}
	wait_for_completion(&sync->done);
}

/*
 * A RAID6 repair's first pass found P or Q wrong in @stripe: rewrite the
 * one chunk the evidence names, if it names one, in a second pass; else
 * report the stripe and leave it as it is. Counted in the array's
 * mismatch_located or mismatch_unlocatable, logged, and sent as an event.
 */
static void stria_r56_locate_repair(struct stria_array *a, u64 stripe,
				    struct stria_r56_sync *sync)
{
	struct stria_geom *g = &a->geom;
	struct stria_sync *s = &a->sync;
	u64 first = stripe * stria_geom_stripe_sectors(g), sector = first;
	u32 p, q, slot = 0, member, i, nd = stria_geom_nr_data(g);
	enum stria_locate_verdict v = stria_locate_result(&sync->loc, &slot);
	const char *what = "data";

	if (v == STRIA_LOCATE_CLEAN)
		return;
	stria_raid56_parity_members(g, stripe, &p, &q);
	if (v == STRIA_LOCATE_UNLOCATABLE) {
		WRITE_ONCE(s->unlocatable, s->unlocatable + 1);
		pr_warn_ratelimited("stria%d: repair: stripe %llu (array sectors %llu-%llu): P and Q disagree with the data in %llu bytes that do not name one chunk: not repaired\n",
				    a->index, stripe, first,
				    first + stria_geom_stripe_sectors(g) - 1,
				    sync->loc.bytes);
		stria_event_mismatch(a, stripe, first, STRIA_NO_MEMBER, NULL);
		return;
	}
	if (v == STRIA_LOCATE_P) {
		member = p;
		what = "P";
	} else if (v == STRIA_LOCATE_Q) {
		member = q;
		what = "Q";
	} else {
		for (i = 0; i < nd && stria_raid56_slot(g, stripe, i) != slot; i++)
			;
		if (WARN_ON_ONCE(i == nd))
			return;
		member = stria_raid56_data_member(g, stripe, i);
		sector = first + ((u64)i << g->chunk_shift);
	}
	sync->fix_member = member;
	stria_r56_sync_pass(a->r56, stripe, sync);
	sync->fix_member = STRIA_GEOM_NONE;
	if (READ_ONCE(sync->err))
		return;
	if (READ_ONCE(sync->raced)) {
		WRITE_ONCE(s->unlocatable, s->unlocatable + 1);
		pr_warn_ratelimited("stria%d: repair: stripe %llu (array sectors %llu-%llu) changed while its %s chunk on member %u was being rewritten: the rest is left as it is\n",
				    a->index, stripe, first,
				    first + stria_geom_stripe_sectors(g) - 1,
				    what, member);
		stria_event_mismatch(a, stripe, first, STRIA_NO_MEMBER, NULL);
		return;
	}
	WRITE_ONCE(s->located, s->located + 1);
	pr_warn_ratelimited("stria%d: repair: stripe %llu: the %s chunk on member %u (%pg, array sector %llu) was wrong in %llu bytes: rewritten\n",
			    a->index, stripe, what, member,
			    a->members[member].dev.bdev, sector,
			    sync->loc.bytes);
	stria_event_mismatch(a, stripe, sector, member, what);
}

/**
 * stria_raid56_sync_stripe() - background work on one stripe
 * @a: a RAID5 or RAID6 array
 * @stripe: the stripe
 * @op: what to do, see enum stria_sync_op
 * @mismatches: raised by the sectors of parity found wrong (CHECK, REPAIR),
 *	or of data rebuilt from parity that could not be verified where the
 *	stripe owes a resync (REBUILD); may be NULL otherwise
 *
 * One sop per slice of the stripe, all in flight at once, each under its
 * stripe lock like a write. A RAID6 repair reads the stripe once to find
 * what is wrong, and again to rewrite the one chunk it located
 * (stria_r56_locate_repair()). Process context; sleeps until they are
 * done.
 *
 * Return: 0, -EIO when a member failed a read or write, -ENODEV when the
 * members in sync do not allow @op (nothing is done then).
 */
int stria_raid56_sync_stripe(struct stria_array *a, u64 stripe,
			     enum stria_sync_op op, u64 *mismatches)
{
	struct stria_raid56 *r = a->r56;
	u32 nf = atomic_read(&a->nr_failed);
	struct stria_r56_sync sync = { .op = op, .err = 0,
				       .fix_member = STRIA_GEOM_NONE };

	if (stripe >= a->geom.member_sectors >> a->geom.chunk_shift)
		return -ENODEV;
	if (op == STRIA_SYNC_OP_REPLACE) {
		if (a->repl_role == STRIA_NO_MEMBER ||
		    !stria_member_in_sync(&a->members[a->repl_role]) ||
		    READ_ONCE(a->repl.state) != STRIA_STATE_REPLACEMENT)
			return -ENODEV;
	} else if (nf > r->np || (op == STRIA_SYNC_OP_REBUILD ?
				  !stria_array_rebuilding_roles(a) : nf)) {
		return -ENODEV;
	}
	atomic64_set(&sync.mismatches, 0);
	spin_lock_init(&sync.lock);
	stria_locate_init(&sync.loc);
	stria_r56_sync_pass(r, stripe, &sync);
	if (op == STRIA_SYNC_OP_REPAIR && r->np == 2 && !READ_ONCE(sync.err))
		stria_r56_locate_repair(a, stripe, &sync);
	if (mismatches)
		*mismatches += atomic64_read(&sync.mismatches);
	return READ_ONCE(sync.err);
}
