/* SPDX-License-Identifier: GPL-2.0 */
/*
 * striactl: declarations shared between its files.
 */
#ifndef STRIACTL_H
#define STRIACTL_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

#include "output.h"

/* Exit codes, documented in striactl.8 and `striactl --help`. */
enum {
	EXIT_OK		= 0,	/* success */
	EXIT_FAIL	= 1,	/* the operation failed or was refused */
	EXIT_USAGE	= 2,	/* bad command line */
	EXIT_NOTFOUND	= 3,	/* no such array, or no stria superblock */
	EXIT_NOMODULE	= 4,	/* /dev/stria-control missing: module not loaded */
};

/**
 * struct ctx - state of one striactl run
 * @prog: argv[0] basename
 * @cmd: the command being run
 * @fmt: output format (-o, --export)
 * @out: the output printer
 * @verbose: -v given (times); status then shows the detail
 * @quiet: -q given: no informational messages
 */
struct ctx {
	const char *prog;
	const struct command *cmd;
	enum out_format fmt;
	struct out out;
	int verbose;
	int quiet;
};

/**
 * struct command - one entry of the command table
 * @name: what the user types
 * @fn: the implementation; returns an EXIT_* code
 * @usage: synopsis after "striactl NAME"
 * @help: the paragraph shown by "striactl NAME --help"
 * @display: takes -o and --export (1), or -o only (2)
 */
struct command {
	const char *name;
	int (*fn)(struct ctx *c, int argc, char **argv);
	const char *usage;
	const char *help;
	int display;
};

struct stria_sb;
struct stria_ioc_query;
struct stria_ioc_info;
struct stria_ioc_member_op;
struct stria_ioc_member;
struct drive_ident;

/* striactl.c */
void err_msg(struct ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
extern int striactl_verbose;
void verbose_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int usage_error(struct ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int common_opt(struct ctx *c, int opt);
void print_cmd_help(const struct command *cmd, FILE *f);
int open_control(struct ctx *c);
int parse_common_only(struct ctx *c, int argc, char **argv);
int parse_scan_opt(struct ctx *c, int argc, char **argv, int *scan);
void array_attr(const char *dev, const char *attr, char *buf, size_t len);
void array_homehost(uint32_t index, char *buf, size_t len);
int parse_force_only(struct ctx *c, int argc, char **argv, int *force);
int stat_blockdev(struct ctx *c, const char *dev, struct stat *st);
int parse_size(const char *s, uint64_t *bytes);
void fmt_size(uint64_t bytes, char *buf, size_t len);
int confirm(const char *question);

/* ondisk.c */
void uuid_fmt(const uint8_t *u, char *buf);
int dev_size(const char *path, uint64_t *bytes);
int read_sb(const char *path, struct stria_sb *sb, char *why, size_t len);
const char *device_excluded(const char *kname);
int read_bitmap_dirty(const char *path, const struct stria_sb *sb,
		      uint64_t *dirty);
const char *foreign_signature(const char *path, char *buf, size_t len);
int blkid_signatures(const char *path, char *list, size_t len);
int scan_devices(void (*fn)(const char *path, const struct stria_sb *sb,
			    void *arg), void *arg);

/* cmd_array.c */
int cmd_create(struct ctx *c, int argc, char **argv);
int cmd_assemble(struct ctx *c, int argc, char **argv);
int cmd_stop(struct ctx *c, int argc, char **argv);
int cmd_readwrite(struct ctx *c, int argc, char **argv);
int cmd_fail(struct ctx *c, int argc, char **argv);
int cmd_add(struct ctx *c, int argc, char **argv);
int cmd_replace(struct ctx *c, int argc, char **argv);
int cmd_remove(struct ctx *c, int argc, char **argv);
int cmd_scrub(struct ctx *c, int argc, char **argv);
int cmd_wait(struct ctx *c, int argc, char **argv);
int cmd_zero_superblock(struct ctx *c, int argc, char **argv);
int cmd_home(struct ctx *c, int argc, char **argv);
int module_info(struct ctx *c, struct stria_ioc_info *info);
int parse_bitmap(const char *s);
int member_devnum(struct ctx *c, const char *dev, uint32_t *major,
		  uint32_t *minor);
int report_ctl_error(struct ctx *c, const char *what, char *msg, int err,
		     const char *old);
void member_req_init(struct stria_ioc_member_op *req, uint32_t op,
		     const char *name, uint32_t index);

/* cmd_grow.c */
int cmd_grow(struct ctx *c, int argc, char **argv);

/* cmd_monitor.c */
int cmd_monitor(struct ctx *c, int argc, char **argv);

/* cmd_slot.c */
int cmd_slot_spare(struct ctx *c, int argc, char **argv);

/* cmd_show.c */
const char *array_state_name(uint32_t state);
const char *state_name(uint32_t state);
const char *sync_name(uint32_t action);
void progress_bar(char *buf, size_t len, uint64_t permille, int width,
		  char empty);
void fmt_duration(uint64_t secs, char *buf, size_t len);
int resolve_array(const char *arg, char *name, uint32_t *index);
int query_array(int fd, const char *name, uint32_t index, int next,
		struct stria_ioc_query *q, struct stria_ioc_member *members,
		uint32_t *cpu_map, uint32_t cpu_cap);
void member_devname(uint32_t major, uint32_t minor, char *buf, size_t len);
int member_ident(const struct stria_ioc_query *q,
		 const struct stria_ioc_member *m, int with_role,
		 struct drive_ident *id);
/* room for every role of an array as "0,1,...,63" */
#define ROLES_BUF_LEN	(64 * 3 + 8)
const char *fmt_roles(uint64_t roles, char *buf);
int cmd_list(struct ctx *c, int argc, char **argv);
int cmd_status(struct ctx *c, int argc, char **argv);
int cmd_detail(struct ctx *c, int argc, char **argv);
int cmd_examine(struct ctx *c, int argc, char **argv);

/* human.c: status and detail for people */
void human_array(FILE *f, const struct stria_ioc_query *q,
		 const struct stria_ioc_member *m, int detail,
		 const uint32_t *cpu_map);
void human_summary(FILE *f, const struct stria_ioc_query *q,
		   const struct stria_ioc_member *m);

/*
 * The size of struct stria_ioc_query that has the bitmap fields. Not the
 * end of bitmap_dirty: the query before them was 208 bytes too (padding
 * and reserved), so only a module knowing the whole 216 bytes fills them.
 */
#define QUERY_SIZE_BITMAP \
	(offsetof(struct stria_ioc_query, reserved0) + sizeof(__u32))

/*
 * The size of struct stria_ioc_query from a module that counts the RAID6
 * stripes a repair located the wrong chunk of, or could not.
 */
#define QUERY_SIZE_LOCATE \
	(offsetof(struct stria_ioc_query, mismatch_unlocatable) + sizeof(__u64))

/* Options every command takes; append to a command's option table. */
#define COMMON_LONGOPTS \
	{ "output", required_argument, NULL, 'o' }, \
	{ "export", no_argument, NULL, 'E' }, \
	{ "help", no_argument, NULL, 'h' }
#define COMMON_SHORTOPTS "o:h"

#endif
