/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the unit tests of striactl monitor (tools/striactl/cmd_monitor.c,
 * built here with the files it needs) take from striactl.c and the
 * control device: err_msg() keeps its last message in @errors (and all
 * of them, a line each, in @all_errors), a query of
 * an array finds none (monitor reads sysfs), put() writes a file of the
 * test's made-up sysfs under @dir (the test's mkdtemp()), slurp() reads
 * one back, and capture() ... captured() collects what a call prints.
 */
#ifndef STRIA_MONITOR_STUBS_H
#define STRIA_MONITOR_STUBS_H

#include <fcntl.h>
#include <unistd.h>

#include "../../tools/striactl/output.c"
#include "../../tools/striactl/config.c"
#include "../../tools/striactl/snapshot.c"
#include "../../tools/striactl/ident.c"
#include "../../tools/striactl/cmd_monitor.c"
#include "tap.h"

static char errors[1024];	/* what err_msg() said last */
static char all_errors[8192];	/* everything it said, a line each */
static char dir[] = "/tmp/stria-monitor-XXXXXX";

void err_msg(struct ctx *c, const char *fmt, ...)
{
	size_t n = strlen(all_errors);
	va_list ap;

	(void)c;
	va_start(ap, fmt);
	vsnprintf(errors, sizeof(errors), fmt, ap);
	va_end(ap);
	snprintf(all_errors + n, sizeof(all_errors) - n, "%s\n", errors);
}

void verbose_msg(const char *fmt, ...)
{
	(void)fmt;
}

int usage_error(struct ctx *c, const char *fmt, ...)
{
	(void)c, (void)fmt;
	return EXIT_USAGE;
}

int common_opt(struct ctx *c, int opt)
{
	(void)c, (void)opt;
	return EXIT_USAGE;
}

int query_array(int fd, const char *name, uint32_t index, int next,
		struct stria_ioc_query *q, struct stria_ioc_member *members,
		uint32_t *cpu_map, uint32_t cpu_cap)
{
	(void)fd, (void)name, (void)index, (void)next, (void)q, (void)members;
	(void)cpu_map, (void)cpu_cap;
	return ENOENT;
}

/* @text into @rel under @dir; the test ends (exit 1) when it cannot. */
static void put(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		tap(0, "cannot write %s", path);
		exit(1);
	}
}

/* @path's contents into @buf (@len bytes, NUL-terminated); its length. */
static size_t slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "rb");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, len - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return n;
}

static int saved_stdout __attribute__((unused)) = -1;

/* From now on, stdout into a file... */
static inline void capture(void)
{
	char path[600];
	int fd;

	snprintf(path, sizeof(path), "%s/stdout", dir);
	fflush(stdout);
	saved_stdout = dup(STDOUT_FILENO);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (saved_stdout < 0 || fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
		exit(1);
	close(fd);
}

/* ... until now: what it got, into @out (@len bytes). */
static inline void captured(char *out, size_t len)
{
	char path[600];

	fflush(stdout);
	dup2(saved_stdout, STDOUT_FILENO);
	close(saved_stdout);
	snprintf(path, sizeof(path), "%s/stdout", dir);
	slurp(path, out, len);
}

/* A test's start: its TAP header, and its made-up sysfs under @dir. */
static inline int monitor_test_start(void)
{
	printf("TAP version 13\n");
	if (!mkdtemp(dir)) {
		tap(0, "mkdtemp: %s", strerror(errno));
		return -1;
	}
	snap_sysfs = dir;
	return 0;
}

#endif
