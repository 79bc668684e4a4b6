// SPDX-License-Identifier: GPL-2.0
/*
 * stria RAID1 and RAID10: md's placement (geom_raid10.h), blk-mq requests
 * through io.c like RAID5/6.
 *
 * A read goes to one copy, chosen by stria_mirror_choose() from what the
 * reading CPU alone has sent (mirror_read.h): its reads in flight to each
 * member and where its last read of each member ended, kept per CPU here.
 * A read a member fails is queued again (io.c) once that member is failed,
 * and goes to another copy.
 *
 * A write, discard or write-zeroes goes to every copy whose member has not
 * failed (a member being rebuilt too). A copy left out for a failed member
 * holds the request until the superblocks record the failure
 * (stria_rq_skipped()), as on RAID5/6. Requests stay within a chunk
 * (chunk_sectors); discard and write-zeroes, which the block layer does not
 * cut at chunks, are cut here.
 *
 * Layering (Documentation/stria/layers.rst): a level, behind
 * stria_raid10_ops; calls the services.
 */
#include <linux/blk-mq.h>
#include <linux/percpu.h>

#include "stria.h"
#include "mirror_read.h"

/**
 * struct stria_r10_cpu - what one CPU has sent to each member
 * @inflight: its reads in flight, per member (dropped by whichever CPU
 *	completes them)
 * @last_end: member sector after its last read of each member; U64_MAX
 *	before the first
 */
struct stria_r10_cpu {
	atomic_t inflight[STRIA_GEOM_MAX_MEMBERS];
	u64 last_end[STRIA_GEOM_MAX_MEMBERS];
};

/**
 * struct stria_raid10 - RAID1/10 state
 * @cpu: per-CPU read state
 * @node: NUMA node of each member's device (NUMA_NO_NODE when unknown)
 */
struct stria_raid10 {
	struct stria_r10_cpu __percpu *cpu;
	int node[STRIA_GEOM_MAX_MEMBERS];
};

/* The member may serve a read of @msector: in sync, or rebuilt that far. */
static bool stria_r10_readable(struct stria_array *a, u32 role, u64 msector)
{
	struct stria_member *m = &a->members[role];

	if (stria_member_in_sync(m))
		return true;
	return READ_ONCE(m->state) == STRIA_STATE_REBUILDING &&
	       msector < READ_ONCE(a->sync.rebuild_ckpt);
}

static blk_status_t stria_r10_read(struct stria_array *a, struct request *rq)
{
	struct stria_raid10 *r = a->r10;
	struct stria_loc locs[STRIA_R10_MAX_COPIES];
	struct stria_mirror_copy c[STRIA_R10_MAX_COPIES];
	u32 k, n = stria_r10_copies(&a->geom.r10);
	u64 pos = blk_rq_pos(rq), chunk = pos >> a->geom.chunk_shift;
	struct stria_r10_cpu *pc;
	blk_status_t st;
	int pick;

	stria_r10_map(&a->geom.r10, pos, locs);
	pc = get_cpu_ptr(r->cpu);
	for (k = 0; k < n; k++) {
		u32 m = locs[k].member;

		c[k].usable = stria_r10_readable(a, m, locs[k].sector);
		c[k].node = r->node[m];
		c[k].inflight = atomic_read(&pc->inflight[m]);
		c[k].last_end = pc->last_end[m];
		c[k].sector = locs[k].sector;
	}
	pick = stria_mirror_choose(c, n, numa_node_id(), chunk,
				   stria_sync_owed(a, locs[0].sector));
	if (pick < 0) {
		put_cpu_ptr(r->cpu);
		return BLK_STS_IOERR;
	}
	k = pick;
	pc->last_end[locs[k].member] = locs[k].sector + blk_rq_sectors(rq);
	stria_rq_count_inflight(rq, &pc->inflight[locs[k].member]);
	put_cpu_ptr(r->cpu);
	st = stria_rq_to_member(a, rq, &a->members[locs[k].member],
				a->data_offset + locs[k].sector);
	return st;
}

/* Roles of the copies in @locs whose members failed: skipped by writes. */
static u64 stria_r10_failed_copies(struct stria_array *a,
				   const struct stria_loc *locs, u32 n)
{
	u64 skipped = 0;
	u32 k;

	for (k = 0; k < n; k++)
		if (stria_member_failed(&a->members[locs[k].member]))
			skipped |= BIT_ULL(locs[k].member);
	return skipped;
}

/* The bitmap regions a write at array sector @pos holds: all its copies. */
static bool stria_r10_bitmap_begin(struct stria_array *a, struct request *rq,
				   u64 pos, u64 end)
{
	struct stria_loc locs[STRIA_R10_MAX_COPIES];
	u32 k, n = stria_r10_copies(&a->geom.r10);
	u64 first = U64_MAX, last = 0;

	stria_r10_map(&a->geom.r10, pos, locs);
	for (k = 0; k < n; k++)
		first = min(first, locs[k].sector);
	stria_r10_map(&a->geom.r10, end - 1, locs);
	for (k = 0; k < n; k++)
		last = max(last, locs[k].sector);
	return stria_rq_bitmap_begin(a, rq, first, last);
}

static blk_status_t stria_r10_write(struct stria_array *a, struct request *rq)
{
	struct stria_loc locs[STRIA_R10_MAX_COPIES];
	u32 k, n = stria_r10_copies(&a->geom.r10);
	struct bio_list clones = BIO_EMPTY_LIST;
	u64 pos = blk_rq_pos(rq), skipped;
	struct bio *bio;

	if (!stria_r10_bitmap_begin(a, rq, pos, pos + blk_rq_sectors(rq)))
		return BLK_STS_RESOURCE;
	stria_r10_map(&a->geom.r10, pos, locs);
	skipped = stria_r10_failed_copies(a, locs, n);
	/* no copy left: the array has failed */
	if (hweight64(skipped) == n)
		return BLK_STS_IOERR;
	for (k = 0; k < n; k++) {
		struct stria_member *m = &a->members[locs[k].member];

		if (skipped & BIT_ULL(locs[k].member))
			continue;
		__rq_for_each_bio(bio, rq) {
			if (stria_clone_prepare(a, rq, m, bio, a->data_offset +
						locs[k].sector +
						(bio->bi_iter.bi_sector - pos),
						&clones)) {
				stria_clones_drop(&clones);
				return BLK_STS_RESOURCE;
			}
		}
	}
	if (skipped)
		stria_rq_skipped(rq, skipped);
	stria_count_io(a, rq);
	stria_clones_submit(rq, &clones);
	return BLK_STS_OK;
}

/*
 * Discard and write-zeroes, which may cross chunks: each chunk's piece
 * goes to that chunk's copies.
 */
static blk_status_t stria_r10_zero(struct stria_array *a, struct request *rq)
{
	struct stria_loc locs[STRIA_R10_MAX_COPIES];
	u32 k, n = stria_r10_copies(&a->geom.r10);
	struct bio_list clones = BIO_EMPTY_LIST;
	u64 pos = blk_rq_pos(rq), end = pos + blk_rq_sectors(rq), len;
	stria_opf_t opf = (stria_opf_t)req_op(rq) |
			  (rq->cmd_flags & REQ_NOUNMAP);
	u64 skipped = 0;

	if (!stria_r10_bitmap_begin(a, rq, pos, end))
		return BLK_STS_RESOURCE;
	for (; pos < end; pos += len) {
		len = min_t(u64, end - pos,
			    stria_geom_chunk_sectors_left(&a->geom, pos));
		stria_r10_map(&a->geom.r10, pos, locs);
		for (k = 0; k < n; k++) {
			struct stria_member *m = &a->members[locs[k].member];

			if (stria_member_failed(m)) {
				skipped |= BIT_ULL(locs[k].member);
				continue;
			}
			if (stria_clone_prepare_empty(a, rq, m, opf,
						      a->data_offset +
						      locs[k].sector, len,
						      &clones)) {
				stria_clones_drop(&clones);
				return BLK_STS_RESOURCE;
			}
		}
	}
	if (skipped)
		stria_rq_skipped(rq, skipped);
	this_cpu_inc(a->stats->discards);
	stria_clones_submit(rq, &clones);
	return BLK_STS_OK;
}

static blk_status_t stria_raid10_queue_rq(struct stria_array *a,
					  struct request *rq)
{
	switch (req_op(rq)) {
	case REQ_OP_READ:
		return stria_r10_read(a, rq);
	case REQ_OP_WRITE:
		return stria_r10_write(a, rq);
	case REQ_OP_DISCARD:
	case REQ_OP_WRITE_ZEROES:
		return stria_r10_zero(a, rq);
	default:
		return BLK_STS_NOTSUPP;
	}
}

static void stria_raid10_limits(struct stria_array *a,
				struct queue_limits *lim)
{
	u32 chunk = 1U << a->geom.chunk_shift;

	/* a read or write stays within a chunk: one place per copy */
	lim->chunk_sectors = chunk;
	lim->io_opt = chunk << SECTOR_SHIFT;
	/*
	 * Discard and write-zeroes go to every copy, cut at chunks here;
	 * at most 64 chunks at a time keeps the clones of one request few.
	 */
	if (lim->max_write_zeroes_sectors)
		lim->max_write_zeroes_sectors = chunk * 64;
	if (lim->max_hw_discard_sectors) {
		lim->max_hw_discard_sectors = chunk * 64;
		lim->max_discard_sectors = chunk * 64;
	}
}

static int stria_raid10_init(struct stria_array *a)
{
	struct stria_raid10 *r;
	int cpu;
	u32 i;

	r = kzalloc_node(sizeof(*r), GFP_KERNEL, a->node);
	if (!r)
		return -ENOMEM;
	r->cpu = alloc_percpu(struct stria_r10_cpu);
	if (!r->cpu) {
		kfree(r);
		return -ENOMEM;
	}
	for_each_possible_cpu(cpu) {
		struct stria_r10_cpu *pc = per_cpu_ptr(r->cpu, cpu);

		for (i = 0; i < STRIA_GEOM_MAX_MEMBERS; i++)
			pc->last_end[i] = U64_MAX;
	}
	for (i = 0; i < a->nr_members; i++)
		r->node[i] = a->members[i].dev.bdev ?
			     a->members[i].dev.bdev->bd_disk->node_id :
			     NUMA_NO_NODE;
	a->r10 = r;
	return 0;
}

static void stria_raid10_exit(struct stria_array *a)
{
	struct stria_raid10 *r = a->r10;

	if (!r)
		return;
	free_percpu(r->cpu);
	kfree(r);
	a->r10 = NULL;
}

const struct stria_level_ops stria_raid10_ops = {
	.level = 10,
	.name = "raid10",
	.queue_rq = stria_raid10_queue_rq,
	.init = stria_raid10_init,
	.exit = stria_raid10_exit,
	.limits = stria_raid10_limits,
};
