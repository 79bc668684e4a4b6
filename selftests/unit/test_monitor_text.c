// SPDX-License-Identifier: GPL-2.0
/*
 * striactl monitor's mail and PROGRAM (tools/striactl/cmd_monitor.c), fed
 * hostile strings (hostile.h) where a device or the system supplies them:
 * the array's name, the member's device name, the states in sysfs, the
 * host's name (which DHCP may set). The oracle is what reads them:
 *
 * - the mail, as sendmail -t reads it (a capture script stands in for
 *   sendmail), has exactly the headers To and Subject, each on one line,
 *   in printable ASCII; the Subject, its \xHH escapes undone, holds the
 *   name and the host as they were; then Python's email parser
 *   (selftests/unit/mail_headers.py) finds the same two headers and no
 *   defect in every one of the mails;
 * - the event's line on stdout (the journal's) is one line of printable
 *   ASCII;
 * - PROGRAM (a capture script) gets exactly EVENT, /dev/striaN and the
 *   member as its arguments, byte for byte, and STRIA_NAME as it was.
 *
 * TAP output on stdout.
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
#include "hostile.h"

#define NR_RANDOM	200	/* random strings after the fixed ones */

/* A fake sysfs for /dev/stria3, named @name, member 0 on device @dev. */
static void make_sysfs(const char *name, const char *dev)
{
	char text[2 * HOSTILE_MAX];

	snap_sysfs = dir;
	snprintf(text, sizeof(text), "%s\n", name);
	put("block/stria3/stria/name", text);
	snprintf(text, sizeof(text), "0 %s active 3 0\n1 - failed 0 0\n", dev);
	put("block/stria3/stria/members", text);
}

static void make_sysfs_dirs(void)
{
	char path[512];

	if (!mkdtemp(dir)) {
		tap(0, "mkdtemp: %s", strerror(errno));
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/block", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/block/stria3", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/block/stria3/stria", dir);
	mkdir(path, 0755);
	put("block/stria3/stria/uuid", "0b1c2d3e-4f50-6172-8394-a5b6c7d8e9fa\n");
	put("block/stria3/stria/level", "5\n");
	put("block/stria3/stria/state", "degraded\n");
	put("block/stria3/stria/nr_members", "2\n");
	put("block/stria3/stria/sync_action", "idle\n");
	put("block/stria3/stria/sync_completed", "none\n");
	put("block/stria3/stria/sync_speed", "0\n");
	put("block/stria3/stria/mismatch_cnt", "0\n");
	put("block/stria3/stria/events", "9\n");
	/* the stand-ins for sendmail and PROGRAM */
	put("sendmail", "#!/bin/sh\ncat >\"$STRIA_TEST_OUT\"\n");
	put("program", "#!/bin/sh\nprintf '%s\\0' \"$#\" \"$@\" \"$STRIA_NAME\" >\"$STRIA_TEST_OUT\"\n");
	snprintf(path, sizeof(path), "%s/sendmail", dir);
	chmod(path, 0755);
	snprintf(path, sizeof(path), "%s/program", dir);
	chmod(path, 0755);
}

/* @src into @dst (@len bytes), cut to fit, as a field of that size. */
static void cut(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* A device name as the members file can hold it: one word, one line. */
static void as_word(char *s)
{
	for (; *s; s++)
		if (*s == ' ' || *s == '\n')
			*s = '_';
}

/*
 * The mail in @text: exactly "To: root@example.com" and "Subject: ..." (into @subj),
 * one line each, then an empty line; printable ASCII and newlines only.
 * Returns NULL or what is wrong.
 */
static const char *check_mail(const char *text, char *subj, size_t len)
{
	const char *p, *nl;

	for (p = text; *p; p++)
		if (*p != '\n' && (*p < 0x20 || *p >= 0x7f))
			return "a byte that is not printable ASCII";
	if (strncmp(text, "To: root@example.com\n", 21))
		return "the first line is not \"To: root@example.com\"";
	p = text + 21;
	if (strncmp(p, "Subject: ", 9))
		return "the second line is not the Subject";
	nl = strchr(p, '\n');
	if (!nl || (size_t)(nl - p - 9) >= len)
		return "the Subject has no end";
	memcpy(subj, p + 9, (size_t)(nl - p - 9));
	subj[nl - p - 9] = '\0';
	if (nl[1] != '\n')
		return "a third header line";
	return NULL;
}

/* What the Subject must say, the name and the host as they are. */
static int subject_holds(const char *subj, const char *name, const char *host)
{
	static const char pre[] = "MemberFailed event on /dev/stria3 (";
	char a[4 * HOSTILE_MAX], b[4 * HOSTILE_MAX], body[4 * HOSTILE_MAX];
	const char *sep;

	if (strncmp(subj, pre, sizeof(pre) - 1))
		return 0;
	cut(body, sizeof(body), subj + sizeof(pre) - 1);
	/* the escaped name has no "):" of its own unless the name has */
	for (sep = strstr(body, "):"); sep; sep = strstr(sep + 1, "):")) {
		snprintf(a, sizeof(a), "%.*s", (int)(sep - body), body);
		if (unescape_hex(a, a, sizeof(a)) || strcmp(a, name))
			continue;
		if (!unescape_hex(sep + 2, b, sizeof(b)) && !strcmp(b, host))
			return 1;
	}
	return 0;
}

/*
 * report() @e with no PROGRAM and no mail, its stdout into @buf: one line,
 * printable ASCII, that ends in the message? 1 or 0.
 */
static int line_of(struct mon *m, struct mon_event *e, char *buf, size_t len)
{
	char path[600];
	const char *prog = m->program;
	size_t nr = m->nr_mail, n;
	int fd, saved;

	snprintf(path, sizeof(path), "%s/line", dir);
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (saved < 0 || fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
		exit(1);
	close(fd);
	m->program = NULL;
	m->nr_mail = 0;
	report(m, e);
	m->program = prog;
	m->nr_mail = nr;
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	n = slurp(path, buf, len);
	if (!n || buf[n - 1] != '\n' || strchr(buf, '\n') != buf + n - 1)
		return 0;
	for (n = 0; buf[n] != '\n'; n++)
		if (buf[n] < 0x20 || buf[n] >= 0x7f)
			return 0;
	return strstr(buf, " MemberFailed on /dev/stria3 (") != NULL;
}

int main(void)
{
	char h[HOSTILE_MAX], dev[HOSTILE_MAX], mail[16384], subj[4096];
	char args[4096], expect[4096], path[600], cmd[1024];
	struct ctx ctx = { .prog = "striactl" };
	char *addr[] = { "root@example.com" };
	struct mon m = { .c = &ctx, .mail = addr, .nr_mail = 1 };
	unsigned int i, bad_mail = 0, bad_prog = 0, bad_log = 0, n;
	struct array_snap s;
	struct mon_event e;
	const char *why;
	size_t len, elen;
	FILE *py;

	printf("TAP version 13\n");
	make_sysfs_dirs();
	snprintf(path, sizeof(path), "%s/sendmail", dir);
	m.sendmail = strdup(path);
	snprintf(path, sizeof(path), "%s/program", dir);
	m.program = strdup(path);
	snprintf(path, sizeof(path), "%s/out", dir);
	setenv("STRIA_TEST_OUT", path, 1);
	n = (unsigned int)HOSTILE_FIXED + NR_RANDOM;
	for (i = 0; i < n; i++) {
		hostile_str(i, h);
		snprintf(dev, sizeof(dev), "%s", h);
		as_word(dev);
		make_sysfs(h, dev);
		if (snap_read(3, &s)) {
			tap(0, "the fake sysfs of string %u does not read", i);
			continue;
		}
		/* the host's name, as gethostname() may give it */
		cut(m.host, sizeof(m.host), h);
		/* the name as a kernel event could carry it, and the member */
		cut(s.name, sizeof(s.name), h);
		event_init(&e, "MemberFailed", "kernel", &s);
		event_member(&e, 0, dev, "failed");
		e.prio = LOG_CRIT;
		event_text(&e);

		/* the line on stdout, which the journal takes */
		if (!line_of(&m, &e, mail, sizeof(mail)) && !bad_log++)
			printf("# string %u '%s': the event's line is '%s'\n", i,
			       hostile_show(h), hostile_show(mail));

		snprintf(path, sizeof(path), "%s/mail-%u", dir, i);
		setenv("STRIA_TEST_OUT", path, 1);
		send_mail(&m, &e);
		slurp(path, mail, sizeof(mail));
		why = check_mail(mail, subj, sizeof(subj));
		if (!why && !subject_holds(subj, e.array, m.host))
			why = "the Subject does not hold the name and the host";
		if (why && !bad_mail++)
			printf("# string %u '%s': %s:\n# %s\n", i, hostile_show(h),
			       why, hostile_show(mail));

		snprintf(path, sizeof(path), "%s/args", dir);
		setenv("STRIA_TEST_OUT", path, 1);
		m.delivery_failed = 0;
		run_program(&m, &e);
		len = slurp(path, args, sizeof(args));
		/* PROGRAM EVENT /dev/striaN [MEMBER], none for a missing one */
		if (!strcmp(e.member, "missing"))
			elen = (size_t)snprintf(expect, sizeof(expect), "2%cMemberFailed%c/dev/stria3%c%s%c",
						0, 0, 0, e.array, 0);
		else
			elen = (size_t)snprintf(expect, sizeof(expect), "3%cMemberFailed%c/dev/stria3%c%s%c%s%c",
						0, 0, 0, e.member, 0, e.array, 0);
		if ((len != elen || memcmp(args, expect, len) ||
		     m.delivery_failed) && !bad_prog++)
			printf("# string %u '%s': PROGRAM got '%s'\n", i,
			       hostile_show(h), hostile_show(args));
	}
	tap(!bad_log, "the event's line on stdout (the journal): %u of %u hostile names and devices make more than one line of printable ASCII",
	    bad_log, n);
	tap(!bad_mail, "mail: %u of %u hostile names, hosts and devices add a header, a line or a raw byte, or do not come through",
	    bad_mail, n);
	tap(!bad_prog, "PROGRAM: %u of %u hostile names and devices change its arguments or STRIA_NAME",
	    bad_prog, n);

	/* every mail through Python's email parser */
	snprintf(cmd, sizeof(cmd), "%s selftests/unit/mail_headers.py %s/mail-*",
		 getenv("PYTHON") ? getenv("PYTHON") : "/usr/bin/python3", dir);
	py = popen(cmd, "r");
	len = py ? fread(mail, 1, sizeof(mail) - 1, py) : 0;
	mail[len] = '\0';
	mail[strcspn(mail, "\n")] = '\0';
	tap(py && !pclose(py) && strstr(mail, "mails: "),
	    "Python's email parser finds To and Subject alone and no defect in every mail: %s",
	    mail[0] ? mail : "it did not run");
	free((char *)m.sendmail);
	free((char *)m.program);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		return 1;
	return tap_exit_code();
}
