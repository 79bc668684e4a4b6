/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the lifecycle's start (array.c) and its checks (start.c) share: the
 * members a start has opened, its reservation of a name and UUID, and the
 * checks of create and assemble. Private to the lifecycle layer
 * (Documentation/stria/layers.rst): nothing below it includes this.
 */
#ifndef STRIA_START_H
#define STRIA_START_H

#include "stria.h"

#define stria_fail(spec, i, fmt, ...) ({				\
	snprintf((spec)->msg, STRIA_MSG_LEN, fmt, ##__VA_ARGS__);	\
	(spec)->err_member = (i);					\
})

/* assemble: a device given but not used (an older superblock, replaced) */
#define STRIA_ROLE_LEFT_OUT	0xfffffffeU

/**
 * struct stria_opened - members opened for a start, before the array exists
 * @dev: the opened devices, by position in the request
 * @sb: their superblocks (assemble)
 * @holder: the exclusive-open identity, handed over to the array
 * @fresh: position of the superblock with the highest event count
 * @nr_roles: members of the array (create: the devices given)
 * @failed: roles that start failed, from that superblock, and @missing
 * @missing: roles neither given nor recorded as failed, that start failed
 *	because the request said STRIA_ARRAY_F_RUN
 * @rebuilding: roles that start being rebuilt, from that superblock
 * @rebuild_offset: where their rebuild goes on
 * @scrub_action: an interrupted scrub to resume, STRIA_SB_SCRUB_*
 * @scrub_offset: where it goes on
 * @scrub_end: where it ends
 * @bitmap_chunk: region size of the write-intent bitmap, 0 for none
 * @degraded_events: the degraded spell the superblocks record
 * @rebuild_partial: roles of @rebuilding that were re-added, rebuilt only
 *	where the write-intent bitmap has dirty
 * @reshape_from: the freshest superblock's reshape record: members before
 *	(0: none)
 * @reshape_pos: its checkpoint, new-layout rows
 * @reshape_backup: its critical rows' backup is whole
 * @dirty: the freshest superblock says active: the array was not stopped
 *	cleanly, and stripes written then may have parity that does not
 *	match their data
 */
struct stria_opened {
	struct stria_bdev *dev;
	struct stria_sb *sb;
	struct stria_holder *holder;
	u32 fresh;
	u32 nr_roles;
	u64 failed;
	u64 missing;
	u64 rebuilding;
	u64 rebuild_offset;
	u32 scrub_action;
	u64 scrub_offset;
	u64 scrub_end;
	u32 bitmap_chunk;
	u64 degraded_events;
	u64 rebuild_partial;
	u32 reshape_from;
	u64 reshape_pos;
	bool reshape_backup;
	bool dirty;
};

/**
 * struct stria_starting - the name and UUID of an array being started
 * @list: entry in stria_starting (stria_starting_lock)
 * @name: the name, taken until the array runs or its start fails
 * @uuid: the array's UUID (assemble); NULL for a create, whose UUID is new
 */
struct stria_starting {
	struct list_head list;
	const char *name;
	const u8 *uuid;
};

void stria_close_all(struct stria_opened *o, u32 n);
int stria_open_all(struct stria_spec *spec, struct stria_opened *o);
int stria_zero_parity_data(struct stria_spec *spec, struct stria_opened *o,
			   const struct stria_geom *g);
int stria_check_create(struct stria_spec *spec, struct stria_opened *o,
		       struct stria_geom *g);
int stria_reserve(struct stria_spec *spec, struct stria_starting *s);
void stria_release(struct stria_starting *s);
int stria_interrupted(struct stria_spec *spec);
int stria_check_assemble(struct stria_spec *spec, struct stria_opened *o,
			 struct stria_geom *g, u32 *roles);
int stria_majority_node(struct stria_opened *o, u32 n);

#endif
