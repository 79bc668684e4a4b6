/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stria-crashlog's shared parts: the log in memory, the array its members
 * hold, and small I/O helpers (crashlog-common.c). The commands are in
 * stria-crashlog.c (dump, order, compare), crashlog-write.c (write,
 * verify) and crashlog-replay.c (replay).
 */
#ifndef _STRIA_CRASHLOG_H
#define _STRIA_CRASHLOG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ondisk.h"

#include "crashpat.h"
#include "logwrites.h"

#define EXIT_CHECK	1
#define EXIT_USAGE	2
#define EXIT_REORDERED	3	/* compare: the log holds the drive's writes, in another order */
#define SECTOR		512U
#define IO_CHUNK	(256U << 10)
#define MAX_REPORT	12U

/**
 * struct log - a log read into memory
 * @buf: its bytes, up to the end of the last complete entry
 * @lw: its super
 * @e: the entries, @n of them
 * @flags: @e[i].flags, for logwrites.h's cut model
 */
struct log {
	uint8_t *buf;
	size_t len;
	struct lw_log lw;
	struct lw_entry *e;
	long n;
	uint64_t *flags;
};

/**
 * struct arr - the array the members hold, and where they are
 * @nr: members
 * @member_bytes: size of each member (one slice of the logged device)
 * @g: the geometry, from the first member's superblock
 * @data_off: start of the data area on each member, bytes
 * @region_shift: log2 of the bitmap region in member sectors; 0: no bitmap
 * @nr_regions: bitmap regions
 * @name: the array's name
 */
struct arr {
	uint32_t nr;
	uint64_t member_bytes;
	struct stria_geom g;
	uint64_t data_off;
	uint32_t region_shift;
	uint32_t nr_regions;
	char name[STRIA_SB_NAME_LEN + 1];
};

/**
 * struct sbview - what the members' superblocks say
 * @ok: the superblock of member i is valid (bit i)
 * @fresh: the member with the highest events among the valid ones, or -1
 * @active: the freshest says the array was not stopped cleanly
 * @insync: roles in sync by the freshest: not failed, not rebuilding
 * @events: per member
 * @state: per member
 * @failed: roles failed by the freshest
 * @rebuilding: roles being rebuilt by the freshest
 * @rebuild_offset: member sectors of the data area rebuilt on @rebuilding
 */
struct sbview {
	uint64_t ok;
	int fresh;
	bool active;
	uint64_t insync;
	uint64_t failed, rebuilding, rebuild_offset;
	uint64_t events[STRIA_GEOM_MAX_MEMBERS];
	uint32_t state[STRIA_GEOM_MAX_MEMBERS];
};

void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void *xalloc(size_t len);
uint64_t num(const char *s, const char *what);
double now(void);
void pread_full(int fd, void *buf, size_t len, uint64_t off, const char *what);
void pwrite_full(int fd, const void *buf, size_t len, uint64_t off,
		 const char *what);
uint64_t dev_bytes(int fd, const char *what);

void log_load(struct log *l, const char *path);
uint64_t log_ambiguous(const struct log *l);
uint64_t log_version_regressions(const struct log *l, uint64_t img_len);
bool mark_is(const struct lw_entry *e, const char *name);
uint32_t mark_number(const struct lw_entry *e);
const char *flag_names(uint64_t f, char *buf, size_t len);

int sb_parse(const uint8_t *p, struct stria_sb *sb, char *why, size_t len);
void arr_init(struct arr *a, const uint8_t *img, uint32_t nr,
	      uint64_t member_bytes);
void sb_view(const struct arr *a, const uint8_t *img, struct sbview *v);
bool bit_le(const uint8_t *bm, uint32_t r);
const uint8_t *bitmap_of(const struct arr *a, const uint8_t *img, uint32_t m);
uint32_t resync_regions(const struct arr *a, const uint8_t *img,
			const struct sbview *v, uint8_t *out);
uint32_t region_of_stripe(const struct arr *a, uint64_t stripe);
uint8_t *image_load(const char *path, uint64_t *len);
void entry_bytes(const struct log *l, const struct lw_entry *e,
		 uint64_t img_len, uint64_t *off, uint64_t *len);

int cmd_write(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_replay(int argc, char **argv);

#endif /* _STRIA_CRASHLOG_H */
