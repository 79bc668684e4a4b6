// SPDX-License-Identifier: GPL-2.0
/*
 * stria RAID0: requests to members.
 *
 * A read or write request that lies within one chunk, every 4K request and
 * the common case, lives on exactly one member at one place
 * (stria_raid0_map() in geom.h): each of its bios is cloned there. A
 * larger one is cut at the chunk boundaries here, each part of each bio
 * cloned to the member holding it, as md raid0 does. The queue has no
 * chunk_sectors limit: with one, blk-mq would cut every bio at the chunk
 * boundaries itself, which for a 4K bio means walking its pages in
 * bio_split_rw() on every I/O (about 140 instructions of the ~16000 a 4K
 * read costs, selftests/bench/raid56-insn), for a split that 4K I/O never
 * needs. Discard, secure erase and write-zeroes requests may span many
 * chunks; they become one request per member covering that member's
 * contiguous part of the range (stria_raid0_member_range()).
 */
#include <linux/blk-mq.h>

#include "stria.h"
#include "trace.h"

/*
 * A request that crosses chunks: one clone per chunk of each bio, each sent
 * as soon as it is made. They may wait for memory (the bio_set's reserve
 * refills as the ones sent complete), where clones all made before any is
 * sent could not: a request of many chunks needs more than the reserve.
 */
static blk_status_t stria_raid0_rw_parts(struct stria_array *a,
					 struct request *rq)
{
	struct stria_loc loc;
	struct bio *bio;
	u32 skip, len;
	u64 s;

	stria_rq_begin(rq);
	stria_count_io(a, rq);
	__rq_for_each_bio(bio, rq) {
		for (skip = 0; skip < bio_sectors(bio); skip += len) {
			s = bio->bi_iter.bi_sector + skip;
			len = min(bio_sectors(bio) - skip,
				  stria_geom_chunk_sectors_left(&a->geom, s));
			stria_raid0_map(&a->geom, s, &loc);
			trace_stria_map(a->index, (__force u32)req_op(rq), s,
					len, loc.member,
					a->data_offset + loc.sector);
			stria_clone_submit_part(a, rq, &a->members[loc.member],
						bio, skip, len,
						a->data_offset + loc.sector);
		}
	}
	stria_rq_put(rq, BLK_STS_OK);
	return BLK_STS_OK;
}

static blk_status_t stria_raid0_rw(struct stria_array *a, struct request *rq)
{
	sector_t pos = blk_rq_pos(rq);
	struct stria_loc loc;

	if (unlikely(blk_rq_sectors(rq) >
		     stria_geom_chunk_sectors_left(&a->geom, pos)))
		return stria_raid0_rw_parts(a, rq);
	stria_raid0_map(&a->geom, pos, &loc);
	return stria_rq_to_member(a, rq, &a->members[loc.member],
				  a->data_offset + loc.sector);
}

static blk_status_t stria_raid0_range(struct stria_array *a,
				      struct request *rq, stria_opf_t opf)
{
	struct bio_list clones = BIO_EMPTY_LIST;
	sector_t pos = blk_rq_pos(rq);
	u64 ms, len;
	u32 i;

	for (i = 0; i < a->nr_members; i++) {
		len = stria_raid0_member_range(&a->geom, pos,
					       blk_rq_sectors(rq), i, &ms);
		if (!len)
			continue;
		if (stria_clone_prepare_empty(a, rq, &a->members[i], opf,
					      a->data_offset + ms, len,
					      &clones)) {
			stria_clones_drop(&clones);
			return BLK_STS_RESOURCE;
		}
		trace_stria_map(a->index, (__force u32)req_op(rq), pos, blk_rq_sectors(rq),
				i, a->data_offset + ms);
	}
	this_cpu_inc(a->stats->discards);
	stria_clones_submit(rq, &clones);
	return BLK_STS_OK;
}

static blk_status_t stria_raid0_queue_rq(struct stria_array *a,
					 struct request *rq)
{
	switch (req_op(rq)) {
	case REQ_OP_READ:
	case REQ_OP_WRITE:
		return stria_raid0_rw(a, rq);
	case REQ_OP_DISCARD:
	case REQ_OP_SECURE_ERASE:
		return stria_raid0_range(a, rq, req_op(rq));
	case REQ_OP_WRITE_ZEROES:
		return stria_raid0_range(a, rq, REQ_OP_WRITE_ZEROES |
					 (rq->cmd_flags & REQ_NOUNMAP));
	default:
		return BLK_STS_NOTSUPP;
	}
}

const struct stria_level_ops stria_raid0_ops = {
	.level		= 0,
	.name		= "raid0",
	.queue_rq	= stria_raid0_queue_rq,
};
