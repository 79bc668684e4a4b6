/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An array's state as sysfs shows it (/sys/block/striaN/stria/, documented
 * in Documentation/ABI/testing/sysfs-block-stria): what monitor compares
 * and status -o prometheus prints. sysfs is readable without root, so
 * both work for an unprivileged checker (Nagios, node_exporter's textfile
 * collector run by cron) too.
 */
#ifndef STRIACTL_SNAPSHOT_H
#define STRIACTL_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>
#include <linux/stria.h>

/* members, spares and a replacement */
#define SNAP_MAX_ENTRIES	(STRIA_MAX_MEMBERS + STRIA_MAX_SPARES + 1)
#define SNAP_MAX_STATS		32
#define SNAP_ROLE_SPARE		(-1)

/* one line of the members file */
struct snap_member {
	int role;		/* SNAP_ROLE_SPARE for a spare */
	int replacement;	/* the replacement of the member of @role */
	char dev[32];		/* kernel name ("nvme0n1"), "-" for none */
	char state[16];
	uint64_t errors;
	uint64_t read_repairs;
};

/* one "name value" line of raid56_stats */
struct snap_stat {
	char name[32];
	uint64_t value;
};

/* io_stat, in its order */
enum {
	SNAP_IO_READS, SNAP_IO_READ_SECTORS, SNAP_IO_WRITES,
	SNAP_IO_WRITE_SECTORS, SNAP_IO_FLUSHES, SNAP_IO_DISCARDS,
	SNAP_IO_ERRORS, SNAP_IO_NR
};

struct array_snap {
	unsigned int index;		/* N of striaN */
	char name[STRIA_NAME_LEN];
	char uuid[40];
	unsigned int level;
	char state[16];			/* active, degraded, failed */
	unsigned int nr_members;
	unsigned int nr_entries;	/* lines of the members file */
	struct snap_member m[SNAP_MAX_ENTRIES];
	char sync_action[16];		/* idle, rebuild, check, ... */
	uint64_t sync_done;		/* sync_completed, 0/0 when none */
	uint64_t sync_total;
	uint64_t sync_speed;		/* KiB/s per member */
	uint64_t mismatch_cnt;
	uint64_t mismatch_located;	/* 0 from a module without them */
	uint64_t mismatch_unlocatable;
	uint64_t events;
	int readonly;			/* /sys/block/striaN/ro */
	int resync_owed;		/* resync_owed; 0 without it (RAID0) */
	size_t nr_stats;		/* raid56_stats (RAID5/6 only) */
	struct snap_stat stats[SNAP_MAX_STATS];
	int has_io_stat;
	uint64_t io_stat[SNAP_IO_NR];
};

/* Where sysfs is: "/sys", or a test's copy of it. */
extern const char *snap_sysfs;

/*
 * Read array striaN. Returns 0, -ENOENT when it is not running (or
 * stopped while being read), another -errno when a file is unreadable or
 * not what it should be.
 */
int snap_read(unsigned int index, struct array_snap *s);
/*
 * The indexes of the running arrays, ascending, into @idx (at most @cap).
 * Returns how many there are (maybe more than @cap), or -errno.
 */
int snap_list(unsigned int *idx, size_t cap);
/* Is the stria module loaded (@snap_sysfs/module/stria)? 1 or 0. */
int snap_module_loaded(void);
/* The member (not spare, not replacement) with role @role, or NULL. */
const struct snap_member *snap_role(const struct array_snap *s, int role);
/* The entry on device @dev (kernel name), or NULL. */
const struct snap_member *snap_dev(const struct array_snap *s,
				   const char *dev);

#endif
