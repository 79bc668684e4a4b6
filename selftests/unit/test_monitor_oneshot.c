// SPDX-License-Identifier: GPL-2.0
/*
 * striactl monitor --oneshot (and monitor's start) on arrays that owe a
 * resync of their parity without running it, or are read-only
 * (tools/striactl/cmd_monitor.c, on a made-up sysfs): a read-only array
 * is ArrayReadOnly (a warning: it refuses writes), one that owes a resync
 * is ArrayDirty whether the resync runs, waits for the array to become
 * read-write, or waits for a member to be rebuilt, each message saying
 * which; --oneshot exits 1 for them as for the other warnings, and 0 for
 * a healthy array, read-write, that owes nothing. TAP output on stdout.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "monitor_stubs.h"

static void sub(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	mkdir(path, 0755);
}

/*
 * RAID5 striaN named @name: its state, sync_action, whether it is
 * read-only (/sys/block/striaN/ro) and owes a resync (@owed, -1: a module
 * without that file).
 */
static void array(unsigned int n, const char *name, const char *state,
		  const char *action, int ro, int owed)
{
	char rel[128], text[160];

#define PUT(file, fmt, ...) do { \
		snprintf(rel, sizeof(rel), "block/stria%u/" file, n); \
		snprintf(text, sizeof(text), fmt, __VA_ARGS__); \
		put(rel, text); \
	} while (0)
	snprintf(rel, sizeof(rel), "block/stria%u", n);
	sub(rel);
	snprintf(rel, sizeof(rel), "block/stria%u/stria", n);
	sub(rel);
	PUT("ro", "%d\n", ro);
	PUT("stria/name", "%s\n", name);
	PUT("stria/uuid", "0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f%u\n", n);
	PUT("stria/level", "%d\n", 5);
	PUT("stria/state", "%s\n", state);
	PUT("stria/nr_members", "%d\n", 3);
	PUT("stria/sync_action", "%s\n", action);
	PUT("stria/sync_completed", "%s\n",
	    strcmp(action, "idle") ? "100 / 1000" : "none");
	PUT("stria/sync_speed", "%d\n", 0);
	PUT("stria/mismatch_cnt", "%d\n", 0);
	PUT("stria/events", "%d\n", 9);
	PUT("stria/array_state", "%s\n", ro ? "readonly" : "active");
	if (owed >= 0)
		PUT("stria/resync_owed", "%d\n", owed);
	PUT("stria/members", "%s",
	    strcmp(state, "degraded") ?
	    "0 nvme0n1 active 0 0\n1 nvme1n1 active 0 0\n2 nvme2n1 active 0 0\n" :
	    "0 nvme0n1 active 0 0\n1 nvme1n1 active 0 0\n2 - failed 0 0\n");
#undef PUT
}

static int count(const char *s, const char *what)
{
	int n = 0;

	for (; (s = strstr(s, what)); s += strlen(what))
		n++;
	return n;
}

/* Only array striaN, after removing every other. */
static void only(unsigned int n, const char *name, const char *state,
		 const char *action, int ro, int owed)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf %s/block/stria*", dir);
	if (system(cmd))
		exit(1);
	array(n, name, state, action, ro, owed);
}

int main(void)
{
	struct ctx ctx = { .prog = "striactl", .fmt = OUT_NORMAL };
	struct mon m = { .c = &ctx };
	char out[8192], cmd[600];
	int ret;

	if (monitor_test_start())
		return 1;
	sub("block");
	sub("module");
	sub("module/stria");

	/* healthy, read-write, nothing owed: the oracle that can pass */
	only(0, "fine", "active", "idle", 0, 0);
	capture();
	ret = oneshot(&m);
	captured(out, sizeof(out));
	tap(ret == EXIT_OK && !out[0], "healthy, read-write, no resync owed: nothing, exit 0 (%d, '%s')",
	    ret, out);

	/* read-only, clean */
	only(1, "ro", "active", "idle", 1, 0);
	capture();
	ret = oneshot(&m);
	captured(out, sizeof(out));
	tap(ret == EXIT_FAIL && count(out, "\n") == 1 &&
	    strstr(out, " ArrayReadOnly on /dev/stria1 (ro): the array is read-only: it refuses writes, and nothing is written to its members until 'striactl readwrite ro'\n"),
	    "read-only, clean: ArrayReadOnly only, exit 1 (%d, '%s')", ret, out);

	/* read-only and not stopped cleanly: the resync waits for read-write */
	only(2, "rodirty", "active", "idle", 1, 1);
	capture();
	ret = oneshot(&m);
	captured(out, sizeof(out));
	tap(ret == EXIT_FAIL && count(out, "\n") == 2 &&
	    strstr(out, " ArrayReadOnly on /dev/stria2 (rodirty): ") &&
	    strstr(out, " ArrayDirty on /dev/stria2 (rodirty): the array was not stopped cleanly and is read-only: its parity is resynced once it is read-write ('striactl readwrite rodirty')\n"),
	    "read-only, owes a resync: ArrayReadOnly and ArrayDirty, exit 1 (%d, '%s')", ret, out);
	ctx.fmt = OUT_JSON;
	capture();
	ret = oneshot(&m);
	captured(out, sizeof(out));
	tap(count(out, "\"event\":\"ArrayReadOnly\",\"severity\":\"warning\"") == 1 &&
	    count(out, "\"event\":\"ArrayDirty\",\"severity\":\"warning\"") == 1 &&
	    strstr(out, "\"resync\":false"),
	    "JSON: both warnings (mailed), resync false: it does not run ('%s')", out);
	ctx.fmt = OUT_NORMAL;

	/* read-write, degraded: the resync owed waits for the rebuild */
	only(3, "waits", "degraded", "idle", 0, 1);
	capture();
	ret = oneshot(&m);
	captured(out, sizeof(out));
	tap(ret == EXIT_FAIL && count(out, "\n") == 3 &&
	    strstr(out, " ArrayDirty on /dev/stria3 (waits): the array was not stopped cleanly and is degraded: its parity is resynced once every member is in sync\n"),
	    "degraded, owes a resync not running: ArrayDirty besides MemberFailed and ArrayDegraded (%d, '%s')",
	    ret, out);

	/* owed, read-write, healthy: about to run (the kernel starts it) */
	only(5, "starts", "active", "idle", 0, 1);
	ctx.fmt = OUT_JSON;
	capture();
	ret = oneshot(&m);
	captured(out, sizeof(out));
	ctx.fmt = OUT_NORMAL;
	tap(ret == EXIT_FAIL && count(out, "\n") == 1 &&
	    strstr(out, "\"event\":\"ArrayDirty\"") && strstr(out, "\"resync\":true") &&
	    strstr(out, "\"message\":\"the array was not stopped cleanly: its parity is resynced\""),
	    "owed, healthy, not started yet: ArrayDirty, resync true, as the kernel's (%d, '%s')",
	    ret, out);

	/* the resync runs: ArrayDirty as before, once */
	only(4, "runs", "active", "resync", 0, 1);
	capture();
	ret = oneshot(&m);
	captured(out, sizeof(out));
	tap(ret == EXIT_FAIL && count(out, "\n") == 1 &&
	    strstr(out, " ArrayDirty on /dev/stria4 (runs): the array was not stopped cleanly: its parity is resynced\n"),
	    "a resync running: ArrayDirty once (%d, '%s')", ret, out);
	/* a module without resync_owed: the running resync still tells */
	only(4, "runs", "active", "resync", 0, -1);
	capture();
	ret = oneshot(&m);
	captured(out, sizeof(out));
	tap(ret == EXIT_FAIL && count(out, " ArrayDirty on /dev/stria4 (runs): ") == 1,
	    "no resync_owed file, a resync running: ArrayDirty (%d, '%s')", ret, out);

	/* monitor's start says the same */
	only(2, "rodirty", "active", "idle", 1, 1);
	capture();
	rescan_all(&m, 1);
	captured(out, sizeof(out));
	tap(m.nr == 1 && m.arrays[0]->dirty && count(out, "\n") == 2 &&
	    strstr(out, " ArrayReadOnly on /dev/stria2 (rodirty): ") &&
	    strstr(out, " ArrayDirty on /dev/stria2 (rodirty): "),
	    "at monitor's start: ArrayReadOnly and ArrayDirty, the resync known owed ('%s')", out);
	while (m.nr)
		drop_array(&m, m.arrays[0]);
	free(m.arrays);

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		return 1;
	return tap_exit_code();
}
