/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stria tracepoints (TRACE_SYSTEM stria), for perf and bpftrace:
 *   stria:stria_array_start   an array starts (created or assembled)
 *   stria:stria_array_stop    an array stops
 *   stria:stria_member_state  a member changes state
 *   stria:stria_map           an array request is sent to a member
 *   stria:stria_stripe        a RAID5/6 stripe operation is planned
 *   stria:stria_spare         a spare is added, or a spare or failed member
 *                             removed
 *   stria:stria_sync          a rebuild or scrub starts, checkpoints, ends
 * e.g. bpftrace -e 'tracepoint:stria:stria_map { @[args->member] = count(); }'
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM stria

#if !defined(_STRIA_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _STRIA_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(stria_array_start,
	TP_PROTO(int index, const char *name, u32 level, u32 nr_members,
		 u32 chunk_sectors, bool created),
	TP_ARGS(index, name, level, nr_members, chunk_sectors, created),
	TP_STRUCT__entry(
		__field(int, index)
		__array(char, name, 32)
		__field(u32, level)
		__field(u32, nr_members)
		__field(u32, chunk_sectors)
		__field(bool, created)
	),
	TP_fast_assign(
		__entry->index = index;
		strscpy(__entry->name, name, sizeof(__entry->name));
		__entry->level = level;
		__entry->nr_members = nr_members;
		__entry->chunk_sectors = chunk_sectors;
		__entry->created = created;
	),
	TP_printk("stria%d name=%s level=%u members=%u chunk_sectors=%u %s",
		  __entry->index, __entry->name, __entry->level,
		  __entry->nr_members, __entry->chunk_sectors,
		  __entry->created ? "created" : "assembled")
);

/*
 * One column segment of a RAID5/6 stripe operation: columns [start, end)
 * sectors within the chunk of stripe @stripe. method: 0 full-stripe write,
 * 1 read-modify-write, 2 reconstruct-write, 3 degraded write, 4 degraded
 * (reconstructed) read; reads: member reads it issues.
 */
TRACE_EVENT(stria_stripe,
	TP_PROTO(int array, u64 stripe, u32 start, u32 end, u32 method,
		 u32 reads),
	TP_ARGS(array, stripe, start, end, method, reads),
	TP_STRUCT__entry(
		__field(int, array)
		__field(u64, stripe)
		__field(u32, start)
		__field(u32, end)
		__field(u32, method)
		__field(u32, reads)
	),
	TP_fast_assign(
		__entry->array = array;
		__entry->stripe = stripe;
		__entry->start = start;
		__entry->end = end;
		__entry->method = method;
		__entry->reads = reads;
	),
	TP_printk("stria%d stripe=%llu cols=%u-%u method=%u reads=%u",
		  __entry->array, __entry->stripe, __entry->start,
		  __entry->end, __entry->method, __entry->reads)
);

TRACE_EVENT(stria_array_stop,
	TP_PROTO(int index, const char *name),
	TP_ARGS(index, name),
	TP_STRUCT__entry(
		__field(int, index)
		__array(char, name, 32)
	),
	TP_fast_assign(
		__entry->index = index;
		strscpy(__entry->name, name, sizeof(__entry->name));
	),
	TP_printk("stria%d name=%s", __entry->index, __entry->name)
);

TRACE_EVENT(stria_member_state,
	TP_PROTO(int index, u32 role, dev_t dev, u32 old_state, u32 state),
	TP_ARGS(index, role, dev, old_state, state),
	TP_STRUCT__entry(
		__field(int, index)
		__field(u32, role)
		__field(dev_t, dev)
		__field(u32, old_state)
		__field(u32, state)
	),
	TP_fast_assign(
		__entry->index = index;
		__entry->role = role;
		__entry->dev = dev;
		__entry->old_state = old_state;
		__entry->state = state;
	),
	TP_printk("stria%d member=%u dev=%d:%d state %u -> %u",
		  __entry->index, __entry->role, MAJOR(__entry->dev),
		  MINOR(__entry->dev), __entry->old_state, __entry->state)
);

TRACE_EVENT(stria_spare,
	TP_PROTO(int index, dev_t dev, bool added),
	TP_ARGS(index, dev, added),
	TP_STRUCT__entry(
		__field(int, index)
		__field(dev_t, dev)
		__field(bool, added)
	),
	TP_fast_assign(
		__entry->index = index;
		__entry->dev = dev;
		__entry->added = added;
	),
	TP_printk("stria%d dev=%d:%d %s", __entry->index,
		  MAJOR(__entry->dev), MINOR(__entry->dev),
		  __entry->added ? "added" : "removed")
);

/*
 * A sync (action: 1 rebuild, 2 check, 3 repair, 4 resync) starts (event 0),
 * records a checkpoint (1) or ends (2, with result: 0, -EIO, -ENODEV, or
 * -EINTR when stopped). pos and end in member sectors.
 */
TRACE_EVENT(stria_sync,
	TP_PROTO(int index, u32 action, u32 event, u64 pos, u64 end,
		 u64 mismatches, int result),
	TP_ARGS(index, action, event, pos, end, mismatches, result),
	TP_STRUCT__entry(
		__field(int, index)
		__field(u32, action)
		__field(u32, event)
		__field(u64, pos)
		__field(u64, end)
		__field(u64, mismatches)
		__field(int, result)
	),
	TP_fast_assign(
		__entry->index = index;
		__entry->action = action;
		__entry->event = event;
		__entry->pos = pos;
		__entry->end = end;
		__entry->mismatches = mismatches;
		__entry->result = result;
	),
	TP_printk("stria%d action=%s %s pos=%llu end=%llu mismatches=%llu result=%d",
		  __entry->index,
		  __print_symbolic(__entry->action, { 1, "rebuild" },
				   { 2, "check" }, { 3, "repair" },
				   { 4, "resync" }),
		  __print_symbolic(__entry->event, { 0, "start" },
				   { 1, "checkpoint" }, { 2, "end" }),
		  __entry->pos, __entry->end, __entry->mismatches,
		  __entry->result)
);

TRACE_EVENT(stria_map,
	TP_PROTO(int index, u32 op, u64 sector, u32 nr_sectors, u32 member,
		 u64 member_sector),
	TP_ARGS(index, op, sector, nr_sectors, member, member_sector),
	TP_STRUCT__entry(
		__field(int, index)
		__field(u32, op)
		__field(u64, sector)
		__field(u32, nr_sectors)
		__field(u32, member)
		__field(u64, member_sector)
	),
	TP_fast_assign(
		__entry->index = index;
		__entry->op = op;
		__entry->sector = sector;
		__entry->nr_sectors = nr_sectors;
		__entry->member = member;
		__entry->member_sector = member_sector;
	),
	TP_printk("stria%d op=%u sector=%llu len=%u -> member=%u sector=%llu",
		  __entry->index, __entry->op, __entry->sector,
		  __entry->nr_sectors, __entry->member, __entry->member_sector)
);

#endif /* _STRIA_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
