// SPDX-License-Identifier: GPL-2.0
/*
 * striactl monitor when mail cannot be sent (tools/striactl/cmd_monitor.c,
 * cmd_monitor() as the command line runs it, on a made-up sysfs): with
 * MAILADDR set and no sendmail, monitor still starts (stria-monitor.service
 * would otherwise restart it for ever and no alert would go anywhere),
 * says once and why that mail cannot be sent, and reports every event on
 * its line and through PROGRAM as usual; --oneshot exits as the arrays
 * say; --test exits 1, the mail it was asked for not sent, after the
 * other channels had it; a sendmail that fails on a mail is said and is
 * not fatal. A configuration that does not parse stays fatal, before
 * anything is reported. Stand-in scripts take PROGRAM's and sendmail's
 * place. TAP output on stdout.
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

/* A healthy running RAID5 /dev/stria0 named "data". */
static void healthy_array(void)
{
	static const char *const files[][2] = {
		{ "name", "data\n" },
		{ "uuid", "0b1c2d3e-4f50-6172-8394-a5b6c7d8e9fa\n" },
		{ "level", "5\n" }, { "state", "active\n" },
		{ "nr_members", "3\n" }, { "sync_action", "idle\n" },
		{ "sync_completed", "none\n" }, { "sync_speed", "0\n" },
		{ "mismatch_cnt", "0\n" }, { "events", "9\n" },
		{ "members", "0 nvme0n1 active 0 0\n1 nvme1n1 active 0 0\n2 nvme2n1 active 0 0\n" },
	};
	char rel[128];
	size_t i;

	sub("block");
	sub("block/stria0");
	sub("block/stria0/stria");
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(rel, sizeof(rel), "block/stria0/stria/%s", files[i][0]);
		put(rel, files[i][1]);
	}
}

/*
 * striactl monitor ARGS... (NULL-terminated), as main() would run it,
 * with stdout into @out (@len bytes); its exit code. @all_errors holds
 * what it said on stderr.
 */
static int run(char *out, size_t len, ...)
{
	struct ctx ctx = { .prog = "striactl", .fmt = OUT_NORMAL };
	char *argv[16];
	va_list ap;
	int argc = 0, ret;

	argv[argc++] = "monitor";
	va_start(ap, len);
	while (argc < 15 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	all_errors[0] = '\0';
	capture();
	optind = 0;
	ret = cmd_monitor(&ctx, argc, argv);
	captured(out, len);
	return ret;
}

static int count(const char *s, const char *what)
{
	int n = 0;

	for (; (s = strstr(s, what)); s += strlen(what))
		n++;
	return n;
}

int main(void)
{
	char out[8192], text[4096], path[600], conf[600], bad[600];
	char prog[600], mailer[600], failing[600], cmd[700];
	char conf_text[2048], want[1400];
	int ret;

	if (monitor_test_start())
		return 1;
	healthy_array();
	sub("module");
	sub("module/stria");
	sub("out");
	snprintf(path, sizeof(path), "%s/out", dir);
	setenv("STRIA_TEST_OUT", path, 1);
	snprintf(prog, sizeof(prog), "%s/program", dir);
	put("program", "#!/bin/sh\necho \"$*\" >>\"$STRIA_TEST_OUT/program.log\"\n");
	chmod(prog, 0755);
	snprintf(mailer, sizeof(mailer), "%s/sendmail", dir);
	put("sendmail", "#!/bin/sh\ncat >>\"$STRIA_TEST_OUT/mail\"\n");
	chmod(mailer, 0755);
	snprintf(failing, sizeof(failing), "%s/failing-sendmail", dir);
	put("failing-sendmail", "#!/bin/sh\ncat >/dev/null\nexit 75\n");
	chmod(failing, 0755);

	/* MAILADDR, PROGRAM, and an ARRAY line of an array that is not running */
	snprintf(conf, sizeof(conf), "%s/stria.conf", dir);
	snprintf(conf_text, sizeof(conf_text),
		 "MAILADDR root@example.com\nPROGRAM %s\nARRAY gone\n", prog);
	put("stria.conf", conf_text);
	snprintf(bad, sizeof(bad), "%s/bad.conf", dir);
	put("bad.conf", "MAILADDR root@example.com\nNOSUCHKEYWORD x\n");
#define CLEAR() do { \
		snprintf(cmd, sizeof(cmd), "rm -f %s/out/*", dir); \
		if (system(cmd)) \
			return 1; \
	} while (0)
#define PROGRAM_LOG() do { \
		snprintf(path, sizeof(path), "%s/out/program.log", dir); \
		slurp(path, text, sizeof(text)); \
	} while (0)

	/* --oneshot, no sendmail: the event on its line and to PROGRAM */
	CLEAR();
	ret = run(out, sizeof(out), "--oneshot", "--no-syslog", "--config", conf,
		  "--sendmail", "/nonexistent/sendmail", NULL);
	PROGRAM_LOG();
	tap(ret == EXIT_FAIL && count(out, " DeviceDisappeared on /dev/stria/gone (gone): ") == 1 &&
	    !strcmp(text, "DeviceDisappeared /dev/stria/gone\n"),
	    "--oneshot without sendmail: DeviceDisappeared on stdout and to PROGRAM, exit 1 (%d, '%s', '%s')",
	    ret, out, text);
	snprintf(want, sizeof(want), "%s:1: MAILADDR: cannot mail: sendmail /nonexistent/sendmail: No such file or directory: events go to standard output and PROGRAM only\n",
		 conf);
	tap(strstr(all_errors, want) && count(all_errors, "cannot mail") == 1,
	    "said once, with the file and line, why and where events go ('%s')", all_errors);

	/* healthy and nothing configured that is missing: exit 0 */
	snprintf(conf_text, sizeof(conf_text), "MAILADDR root@example.com\n");
	put("mail-only.conf", conf_text);
	snprintf(path, sizeof(path), "%s/mail-only.conf", dir);
	ret = run(out, sizeof(out), "--oneshot", "--no-syslog", "--config", path,
		  "--sendmail", "/nonexistent/sendmail", NULL);
	tap(ret == EXIT_OK && !out[0] && count(all_errors, "cannot mail") == 1,
	    "--oneshot without sendmail, nothing wrong: exit 0, the mail warning said (%d, '%s')",
	    ret, all_errors);

	/* following (the service): it starts and runs */
	CLEAR();
	mon_stop = 1;	/* as if stopped at once: follow() returns */
	ret = run(out, sizeof(out), "--no-syslog", "--config", conf, "--sendmail",
		  "/nonexistent/sendmail", NULL);
	mon_stop = 0;
	PROGRAM_LOG();
	tap(ret == EXIT_OK && count(out, " DeviceDisappeared on /dev/stria/gone (gone): ") == 1 &&
	    !strcmp(text, "DeviceDisappeared /dev/stria/gone\n") &&
	    count(all_errors, "cannot mail") == 1,
	    "following without sendmail: starts, reports to stdout and PROGRAM, says it once (%d, '%s', '%s')",
	    ret, out, all_errors);

	/* --test: every other channel, then exit 1 for the mail not sent */
	CLEAR();
	ret = run(out, sizeof(out), "--test", "--no-syslog", "--config", conf,
		  "--sendmail", "/nonexistent/sendmail", NULL);
	PROGRAM_LOG();
	tap(ret == EXIT_FAIL && count(out, " TestMessage on /dev/stria0 (data): ") == 1 &&
	    !strcmp(text, "TestMessage /dev/stria0\n") &&
	    strstr(all_errors, "the TestMessage mail was not sent"),
	    "--test without sendmail: TestMessage out and to PROGRAM, the mail said not sent, exit 1 (%d, '%s')",
	    ret, all_errors);

	/* --test with a working sendmail: mailed, exit 0 */
	CLEAR();
	ret = run(out, sizeof(out), "--test", "--no-syslog", "--config", conf,
		  "--sendmail", mailer, NULL);
	snprintf(path, sizeof(path), "%s/out/mail", dir);
	slurp(path, text, sizeof(text));
	tap(ret == EXIT_OK && !all_errors[0] &&
	    !strncmp(text, "To: root@example.com\nSubject: TestMessage event on /dev/stria0 (data):", 70),
	    "--test with sendmail: mailed, exit 0 (%d, '%s')", ret, all_errors);

	/* a sendmail that fails on a mail: said, following goes on */
	CLEAR();
	mon_stop = 1;
	ret = run(out, sizeof(out), "--no-syslog", "--config", conf, "--sendmail",
		  failing, NULL);
	mon_stop = 0;
	tap(ret == EXIT_OK && count(out, "DeviceDisappeared") == 1 &&
	    strstr(all_errors, "exited 75: the DeviceDisappeared mail may not have gone out"),
	    "a mail that fails is said, following starts all the same (%d, '%s')", ret, all_errors);

	/* a configuration that does not parse: fatal, nothing reported */
	CLEAR();
	ret = run(out, sizeof(out), "--oneshot", "--no-syslog", "--config", bad,
		  "--sendmail", "/nonexistent/sendmail", NULL);
	snprintf(want, sizeof(want), "%s:2: ", bad);
	tap(ret == EXIT_FAIL && !out[0] && !strncmp(all_errors, want, strlen(want)),
	    "a configuration that does not parse: exit 1, FILE:LINE, nothing reported (%d, '%s')",
	    ret, all_errors);
	mon_stop = 1;
	ret = run(out, sizeof(out), "--no-syslog", "--config", bad, NULL);
	mon_stop = 0;
	tap(ret == EXIT_FAIL && !out[0] && !strncmp(all_errors, want, strlen(want)),
	    "... following too (%d)", ret);

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		return 1;
	return tap_exit_code();
}
