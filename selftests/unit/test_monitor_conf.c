// SPDX-License-Identifier: GPL-2.0
/*
 * striactl monitor against the ARRAY lines of stria.conf
 * (tools/striactl/cmd_monitor.c), from a made-up sysfs: a configured
 * array that is not running is DeviceDisappeared (critical), one with
 * fewer spares than its spares= is SparesMissing (warning), once when the
 * shortage starts; both go through every output (the line, JSON, PROGRAM,
 * mail) as the other events do, and --oneshot exits 1 for them. While
 * monitor runs, a configured array that goes (a re-read, a remove uevent)
 * is DeviceDisappeared once, and NewArray when back. An array the file
 * does not name, or one as configured, is no event. A stand-in
 * script takes PROGRAM's and sendmail's place. TAP output on stdout.
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

/* A healthy running array striaN named @name, with @uuid and @members. */
static void array(unsigned int n, const char *name, const char *uuid,
		  const char *members)
{
	char rel[128], text[128];

	snprintf(rel, sizeof(rel), "block/stria%u", n);
	sub(rel);
	snprintf(rel, sizeof(rel), "block/stria%u/stria", n);
	sub(rel);
#define PUT(file, fmt, ...) do { \
		snprintf(rel, sizeof(rel), "block/stria%u/stria/" file, n); \
		snprintf(text, sizeof(text), fmt, __VA_ARGS__); \
		put(rel, text); \
	} while (0)
	PUT("name", "%s\n", name);
	PUT("uuid", "%s\n", uuid);
	PUT("level", "%d\n", 5);
	PUT("state", "%s\n", "active");
	PUT("nr_members", "%d\n", 3);
	PUT("sync_action", "%s\n", "idle");
	PUT("sync_completed", "%s\n", "none");
	PUT("sync_speed", "%d\n", 0);
	PUT("mismatch_cnt", "%d\n", 0);
	PUT("events", "%d\n", 9);
#undef PUT
	snprintf(rel, sizeof(rel), "block/stria%u/stria/members", n);
	put(rel, members);
}

#define UUID_DATA	"0b1c2d3e-4f50-6172-8394-a5b6c7d8e9fa"
#define UUID_SCRATCH	"11111111-2222-3333-4444-555555555555"
#define MEMBERS		"0 nvme0n1 active 0 0\n1 nvme1n1 active 0 0\n2 nvme2n1 active 0 0\n"

/* Run oneshot() with stdout into @out (@len bytes); its exit code. */
static int run_oneshot(struct mon *m, char *out, size_t len)
{
	int ret;

	capture();
	ret = oneshot(m);
	captured(out, len);
	return ret;
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

int main(void)
{
	struct ctx ctx = { .prog = "striactl", .fmt = OUT_NORMAL };
	char *addr[] = { "root@example.com" };
	struct mon m = { .c = &ctx };
	struct stria_conf conf;
	char out[8192], text[4096], path[600], cmd[700], err[256];
	struct array_snap *old, *cur;
	const char *cf;
	int ret;

	if (monitor_test_start())
		return 1;
	sub("block");
	/* data: one spare; scratch: none, not configured by UUID */
	array(0, "data", UUID_DATA, MEMBERS "- nvme3n1 spare 0 0\n");
	array(1, "scratch", UUID_SCRATCH, MEMBERS);
	array(2, "other", "22222222-2222-3333-4444-555555555555", MEMBERS);
	put("program", "#!/bin/sh\nprintf '%s|%s|%s\\n' \"$*\" \"$STRIA_DEVICE\" \"$STRIA_SEVERITY\" >>\"$STRIA_TEST_OUT/program.log\"\n");
	put("sendmail", "#!/bin/sh\nn=$(ls \"$STRIA_TEST_OUT\" | grep -c '^mail')\ncat >\"$STRIA_TEST_OUT/mail$n\"\n");
	snprintf(path, sizeof(path), "%s/program", dir);
	chmod(path, 0755);
	snprintf(path, sizeof(path), "%s/sendmail", dir);
	chmod(path, 0755);
	sub("out");
	snprintf(path, sizeof(path), "%s/out", dir);
	setenv("STRIA_TEST_OUT", path, 1);

	/* nothing configured: nothing to say about healthy arrays */
	cf = "# no arrays\n";
	if (conf_parse_text("stria.conf", cf, &conf, err, sizeof(err))) {
		tap(0, "the configuration does not parse: %s", err);
		return 1;
	}
	m.conf = &conf;
	ret = run_oneshot(&m, out, sizeof(out));
	tap(ret == EXIT_OK && !out[0], "no ARRAY lines, healthy arrays: no event, exit 0 (%d, '%s')",
	    ret, out);
	conf_free(&conf);

	cf = "ARRAY /dev/stria/data uuid=" UUID_DATA " spares=2\n"
	     "ARRAY scratch spares=0\n"
	     "ARRAY gone uuid=33333333-2222-3333-4444-555555555555\n"
	     "# the name of a running array, another UUID\n"
	     "ARRAY other uuid=44444444-2222-3333-4444-555555555555\n";
	if (conf_parse_text("/etc/stria/stria.conf", cf, &conf, err, sizeof(err))) {
		tap(0, "the configuration does not parse: %s", err);
		return 1;
	}
	ret = run_oneshot(&m, out, sizeof(out));
	tap(ret == EXIT_FAIL, "--oneshot: exit 1 (%d)", ret);
	tap(count_lines(out) == 3, "three events, no more: %d lines", count_lines(out));
	tap(strstr(out, " SparesMissing on /dev/stria0 (data): the array has 1 spare, /etc/stria/stria.conf:1 wants 2: add one ('striactl add data DEV')\n") != NULL,
	    "SparesMissing for data: 1 spare of 2, FILE:LINE, what to do");
	tap(strstr(out, " DeviceDisappeared on /dev/stria/gone (gone): the array configured at /etc/stria/stria.conf:3 is not running: the stria module is not loaded ('modprobe stria', then 'striactl assemble --scan')\n") != NULL,
	    "DeviceDisappeared for gone, as /dev/stria/gone; no module here: said so");
	tap(strstr(out, " DeviceDisappeared on /dev/stria/other (other): the array configured at /etc/stria/stria.conf:5 ") != NULL,
	    "DeviceDisappeared for other: its name runs, with another UUID");
	tap(!strstr(out, "scratch"), "scratch, configured by name with spares=0: no event");

	/* the module loaded: the advice is to start the array */
	sub("module");
	sub("module/stria");
	ctx.fmt = OUT_JSON;
	ret = run_oneshot(&m, out, sizeof(out));
	tap(ret == EXIT_FAIL && strstr(out, "\"event\":\"DeviceDisappeared\",\"severity\":\"critical\",\"source\":\"scan\",\"array\":\"gone\",\"device\":\"/dev/stria/gone\",\"uuid\":\"33333333-2222-3333-4444-555555555555\",\"message\":\"the array configured at /etc/stria/stria.conf:3 is not running: start it ('striactl assemble --scan'), or take its ARRAY line out\"}"),
	    "JSON: DeviceDisappeared critical, its device, UUID and message; the module loaded: start it");
	tap(strstr(out, "\"event\":\"SparesMissing\",\"severity\":\"warning\",\"source\":\"scan\",\"array\":\"data\",\"device\":\"/dev/stria0\",\"uuid\":\"" UUID_DATA "\",\"array_state\":\"active\",\"spares\":1,\"spares_expected\":2,") != NULL,
	    "JSON: SparesMissing warning, spares 1, spares_expected 2");
	ctx.fmt = OUT_NORMAL;

	/* PROGRAM and mail get them as every other event */
	snprintf(path, sizeof(path), "%s/program", dir);
	m.program = strdup(path);
	snprintf(path, sizeof(path), "%s/sendmail", dir);
	m.sendmail = strdup(path);
	m.mail = addr;
	m.nr_mail = 1;
	snprintf(m.host, sizeof(m.host), "stria-test");
	ret = run_oneshot(&m, out, sizeof(out));
	snprintf(path, sizeof(path), "%s/out/program.log", dir);
	slurp(path, text, sizeof(text));
	ret = ret == EXIT_FAIL && !m.delivery_failed &&
	      !strcmp(text, "SparesMissing /dev/stria0|/dev/stria0|warning\n"
			    "DeviceDisappeared /dev/stria/gone|/dev/stria/gone|critical\n"
			    "DeviceDisappeared /dev/stria/other|/dev/stria/other|critical\n");
	tap(ret, "PROGRAM ran as 'PROGRAM EVENT DEVICE' for each, STRIA_DEVICE and STRIA_SEVERITY set");
	if (!ret)
		printf("# PROGRAM's log:\n# %s\n", text);
	snprintf(path, sizeof(path), "%s/out/mail1", dir);
	slurp(path, text, sizeof(text));
	tap(!strncmp(text, "To: root@example.com\nSubject: DeviceDisappeared event on /dev/stria/gone (gone):stria-test\n\n", 90) &&
	    strstr(text, "/etc/stria/stria.conf:3 is not running") &&
	    !strstr(text, "The array now"),
	    "mailed: DeviceDisappeared, no state of an array that does not run");
	snprintf(path, sizeof(path), "%s/out/mail0", dir);
	slurp(path, text, sizeof(text));
	tap(!strncmp(text, "To: root@example.com\nSubject: SparesMissing event on /dev/stria0 (data):stria-test\n\n", 84) &&
	    strstr(text, "The array now") && strstr(text, "spare   nvme3n1"),
	    "mailed: SparesMissing, with the array as it is");
	free((char *)m.program);
	m.program = NULL;
	m.nr_mail = 0;

	/* follow: at start, what is wrong; a shortage once, as it starts */
	capture();
	rescan_all(&m, 1);
	tracked_configured(&m);
	captured(out, sizeof(out));
	tap(m.nr == 3 && count_lines(out) == 3 && strstr(out, "SparesMissing on /dev/stria0 (data)") &&
	    strstr(out, "DeviceDisappeared on /dev/stria/gone") &&
	    strstr(out, "DeviceDisappeared on /dev/stria/other"),
	    "follow, at start: SparesMissing, and DeviceDisappeared for the two not running");

	old = malloc(sizeof(*old));
	cur = malloc(sizeof(*cur));
	if (!old || !cur || snap_read(0, old) || snap_read(0, cur))
		return 1;
	put("block/stria0/stria/members", MEMBERS "- nvme3n1 spare 0 0\n- nvme4n1 spare 0 0\n");
	snap_read(0, old);
	put("block/stria0/stria/members", MEMBERS "- nvme3n1 spare 0 0\n");
	snap_read(0, cur);
	ctx.fmt = OUT_JSON;
	capture();
	ret = check_spares(&m, cur, nr_spares(old), "scan");
	/* still short: not again */
	ret += 2 * check_spares(&m, cur, nr_spares(cur), "scan");
	/* enough again, and then short once more: again */
	ret += 4 * check_spares(&m, old, nr_spares(cur), "scan");
	ret += 8 * check_spares(&m, cur, nr_spares(old), "scan");
	captured(out, sizeof(out));
	tap(ret == 9 && count_lines(out) == 2 && strstr(out, "\"event\":\"SparesMissing\""),
	    "a shortage is reported when it starts, not while it lasts (%d)", ret);
	free(old);
	free(cur);
	ctx.fmt = OUT_NORMAL;

	/*
	 * While monitor runs, a configured array that goes away is
	 * DeviceDisappeared (critical, mailed), once; back, it is NewArray.
	 */
	m.nr_mail = 1;
	snprintf(cmd, sizeof(cmd), "rm -rf %s/block/stria0 %s/out/mail*", dir, dir);
	if (system(cmd))
		return 1;
	capture();
	rescan_all(&m, 0);
	captured(out, sizeof(out));
	tap(count_lines(out) == 2 && strstr(out, " ArrayStopped on /dev/stria0 (data): ") &&
	    strstr(out, " DeviceDisappeared on /dev/stria/data (data): the array configured at /etc/stria/stria.conf:1 is not running: start it ('striactl assemble --scan'), or take its ARRAY line out\n"),
	    "running: a configured array gone at a re-read is ArrayStopped and DeviceDisappeared ('%s')", out);
	snprintf(path, sizeof(path), "%s/out/mail0", dir);
	slurp(path, text, sizeof(text));
	tap(!strncmp(text, "To: root@example.com\nSubject: DeviceDisappeared event on /dev/stria/data (data):stria-test\n\n", 91),
	    "running: the DeviceDisappeared is mailed");
	capture();
	rescan_all(&m, 0);
	captured(out, sizeof(out));
	tap(!out[0], "running: gone still at the next re-read: not again ('%s')", out);
	array(0, "data", UUID_DATA, MEMBERS "- nvme3n1 spare 0 0\n- nvme4n1 spare 0 0\n");
	capture();
	rescan_all(&m, 0);
	captured(out, sizeof(out));
	tap(count_lines(out) == 1 && strstr(out, " NewArray on /dev/stria0 (data): "),
	    "running: back, with its spares: NewArray only ('%s')", out);

	/* a spare used up while running: SparesMissing, once */
	put("block/stria0/stria/members", MEMBERS "- nvme3n1 spare 0 0\n");
	capture();
	rescan_all(&m, 0);
	rescan_all(&m, 0);
	captured(out, sizeof(out));
	tap(count_lines(out) == 2 && strstr(out, " MemberRemoved on /dev/stria0 (data): spare /dev/nvme4n1 ") &&
	    strstr(out, " SparesMissing on /dev/stria0 (data): the array has 1 spare, /etc/stria/stria.conf:1 wants 2"),
	    "running: a spare gone below spares=: SparesMissing once ('%s')", out);

	/* the kernel says it is gone (a uevent): the same, at once */
	{
		char ev[] = "remove@/devices/virtual/block/stria0\0ACTION=remove\0SUBSYSTEM=block\0DEVTYPE=disk\0DEVNAME=stria0";
		struct uev u;

		if (uev_parse(ev, sizeof(ev), &u))
			return 1;
		capture();
		handle_uevent(&m, &u);
		captured(out, sizeof(out));
	}
	tap(count_lines(out) == 2 && strstr(out, " ArrayStopped on /dev/stria0 (data): ") &&
	    strstr(out, " DeviceDisappeared on /dev/stria/data (data): "),
	    "running: a remove uevent of a configured array: ArrayStopped and DeviceDisappeared ('%s')", out);
	/* not for an array no ARRAY line names */
	snprintf(cmd, sizeof(cmd), "rm -rf %s/block/stria1", dir);
	if (system(cmd))
		return 1;
	array(1, "unnamed", "55555555-2222-3333-4444-555555555555", MEMBERS);
	capture();
	rescan_all(&m, 0);
	captured(out, sizeof(out));
	snprintf(cmd, sizeof(cmd), "rm -rf %s/block/stria1", dir);
	if (system(cmd))
		return 1;
	capture();
	rescan_all(&m, 0);
	captured(text, sizeof(text));
	tap(strstr(out, "DeviceDisappeared on /dev/stria/scratch") &&
	    count_lines(text) == 1 && strstr(text, " ArrayStopped on /dev/stria1 (unnamed): "),
	    "an array no ARRAY line names going: ArrayStopped only ('%s')", text);
	m.nr_mail = 0;
	while (m.nr)
		drop_array(&m, m.arrays[0]);
	free(m.arrays);
	free((char *)m.sendmail);
	conf_free(&conf);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		return 1;
	return tap_exit_code();
}
