// SPDX-License-Identifier: GPL-2.0
/*
 * The stria.conf parser (tools/striactl/config.c): every keyword into its
 * fields, comments, quotes and both kinds of continuation lines, and a
 * clear "FILE:LINE: what" for each kind of bad line, with nothing left
 * allocated (ASan's leak check). TAP output on stdout.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../tools/striactl/config.c"
#include "tap.h"

static char err[256];

/* Parse @text as "stria.conf"; returns the result, @c filled on success. */
static int parse(const char *text, struct stria_conf *c)
{
	return conf_parse_text("stria.conf", text, c, err, sizeof(err));
}

/* @text is refused with exactly the message @want. */
static void refused(const char *text, const char *want)
{
	struct stria_conf c;
	int ret = parse(text, &c);

	tap(ret == -EINVAL && !strcmp(err, want), "refused: %s%s%s", want,
	    ret == -EINVAL && !strcmp(err, want) ? "" : " / got: ",
	    ret == -EINVAL && !strcmp(err, want) ? "" : err);
	if (!ret)
		conf_free(&c);
}

static void test_empty(void)
{
	struct stria_conf c;

	tap(!parse("", &c) && !c.nr_arrays && !c.nr_auto && !c.mailaddr_line &&
	    !c.program && c.homehost_kind == CONF_HOMEHOST_UNSET,
	    "an empty file sets nothing");
	conf_free(&c);
	tap(!parse("# only a comment\n\n   \n\t# indented comment\n", &c) &&
	    !c.nr_arrays && !c.program, "comments and blank lines set nothing");
	conf_free(&c);
}

static void test_every_keyword(void)
{
	static const uint8_t uuid[16] = {
		0x0b, 0x1c, 0x2d, 0x3e, 0x4f, 0x50, 0x61, 0x72,
		0x83, 0x94, 0xa5, 0xb6, 0xc7, 0xd8, 0xe9, 0xfa,
	};
	const char *text =
		"# stria.conf\n"
		"MAILADDR ops@example.com root   # two addresses\n"
		"PROGRAM /usr/local/sbin/stria-alert\n"
		"HOMEHOST <system>\n"
		"AUTO +homehost -scratch +all\n"
		"ARRAY data uuid=0b1c2d3e-4f50-6172-8394-a5b6c7d8e9fa level=raid6 members=8 spares=1\n"
		"  devices=/dev/nvme*n1,/dev/disk/by-id/nvme-ACME*\n"
		"array /dev/stria/scratch level=0\n";
	const struct conf_array *a;
	struct stria_conf c;
	int ret = parse(text, &c);

	tap(!ret, "a file with every keyword parses (%s)", err);
	if (ret)
		return;
	tap(c.nr_mailaddr == 2 && !strcmp(c.mailaddr[0], "ops@example.com") &&
	    !strcmp(c.mailaddr[1], "root") && c.mailaddr_line == 2,
	    "MAILADDR: both addresses, line 2");
	tap(c.program && !strcmp(c.program, "/usr/local/sbin/stria-alert") &&
	    c.program_line == 3, "PROGRAM: the path, line 3");
	tap(c.homehost_kind == CONF_HOMEHOST_SYSTEM && c.homehost_line == 4,
	    "HOMEHOST <system>");
	tap(c.nr_auto == 3 && c.auto_rules[0].allow &&
	    c.auto_rules[0].what == CONF_AUTO_HOMEHOST &&
	    !c.auto_rules[1].allow && c.auto_rules[1].what == CONF_AUTO_NAME &&
	    !strcmp(c.auto_rules[1].name, "scratch") &&
	    c.auto_rules[2].allow && c.auto_rules[2].what == CONF_AUTO_ALL,
	    "AUTO: three rules in order");
	tap(c.nr_arrays == 2, "two ARRAY lines");
	a = &c.arrays[0];
	tap(!strcmp(a->name, "data") && a->line == 6 && a->has_uuid &&
	    !memcmp(a->uuid, uuid, 16) && a->level == 6 && a->members == 8 &&
	    a->spares == 1, "ARRAY data: name, line, uuid, level, members, spares");
	tap(a->nr_devices == 2 && !strcmp(a->devices[0], "/dev/nvme*n1") &&
	    !strcmp(a->devices[1], "/dev/disk/by-id/nvme-ACME*"),
	    "ARRAY data: devices= from its continuation line");
	a = &c.arrays[1];
	tap(!strcmp(a->name, "scratch") && a->line == 8 && !a->has_uuid &&
	    a->level == 0 && a->members == -1 && a->spares == -1 &&
	    !a->nr_devices, "ARRAY /dev/stria/scratch: lower-case keyword, unset tags -1");
	tap(conf_find_array(&c, "scratch", NULL) == &c.arrays[1] &&
	    conf_find_array(&c, NULL, uuid) == &c.arrays[0] &&
	    !conf_find_array(&c, "other", NULL), "conf_find_array by name and by uuid");
	tap(conf_auto_allows(&c, "scratch", 1) && !conf_auto_allows(&c, "scratch", 0) &&
	    conf_auto_allows(&c, "x", 0),
	    "AUTO: the first rule that matches decides (+homehost before -scratch)");
	conf_free(&c);
	tap(!c.arrays && !c.program && !c.path, "conf_free empties the structure");
}

static void test_syntax(void)
{
	struct stria_conf c;

	tap(!parse("PROGRAM \"/opt/my tools/alert\"  # quoted\n", &c) &&
	    !strcmp(c.program, "/opt/my tools/alert"), "a quoted word keeps its blank");
	conf_free(&c);
	tap(!parse("PROGRAM '/opt/a#b'\n", &c) && !strcmp(c.program, "/opt/a#b"),
	    "a # inside quotes is no comment");
	conf_free(&c);
	tap(!parse("MAILADDR a@b \\\n c@d\nPROGRAM /bin/true\n", &c) &&
	    c.nr_mailaddr == 2 && !strcmp(c.mailaddr[1], "c@d") && c.program_line == 3,
	    "a backslash at the end continues the line; line numbers go on");
	conf_free(&c);
	tap(!parse("MAILADDR a@b\r\n\tc@d\r\nPROGRAM /bin/true\r\n", &c) &&
	    c.nr_mailaddr == 2 && c.program_line == 3 && !strcmp(c.program, "/bin/true"),
	    "CRLF line ends, a tab continuation");
	conf_free(&c);
	tap(!parse("MailAddr root\nprogram /bin/true", &c) && c.nr_mailaddr == 1 &&
	    c.program, "keywords in any case; no newline at the end");
	conf_free(&c);
	tap(!parse("HOMEHOST backup-01.example.com\n", &c) &&
	    c.homehost_kind == CONF_HOMEHOST_NAME &&
	    !strcmp(c.homehost, "backup-01.example.com"), "HOMEHOST NAME");
	conf_free(&c);
	tap(!parse("HOMEHOST <none>\nAUTO no\n", &c) &&
	    c.homehost_kind == CONF_HOMEHOST_NONE && c.nr_auto == 1 &&
	    !conf_auto_allows(&c, "x", 1), "HOMEHOST <none>, AUTO no");
	conf_free(&c);
	tap(!parse("HOMEHOST <ignore>\nAUTO yes\n", &c) &&
	    c.homehost_kind == CONF_HOMEHOST_IGNORE && conf_auto_allows(&c, "x", 0),
	    "HOMEHOST <ignore>, AUTO yes");
	conf_free(&c);
	tap(!parse("ARRAY a uuid=0B1C2D3E:4F506172:8394A5B6:C7D8E9FA level=5\n", &c) &&
	    c.arrays[0].has_uuid && c.arrays[0].uuid[0] == 0x0b &&
	    c.arrays[0].level == 5, "uuid= in mdadm's colon form, upper case");
	conf_free(&c);
}

static void test_errors(void)
{
	refused("MAILADDR root\nMAILADR root\n",
		"stria.conf:2: unknown keyword 'MAILADR' (ARRAY, AUTO, HOMEHOST, MAILADDR, PROGRAM, POLICY)");
	refused("DEVICE /dev/nvme*\n",
		"stria.conf:1: unknown keyword 'DEVICE' (ARRAY, AUTO, HOMEHOST, MAILADDR, PROGRAM, POLICY)");
	refused("MAILADDR\n", "stria.conf:1: MAILADDR needs at least one address");
	refused("MAILADDR a@b\n# c\nMAILADDR c@d\n",
		"stria.conf:3: MAILADDR is given twice (first at line 1)");
	refused("MAILADDR -oQ/tmp\n",
		"stria.conf:1: '-oQ/tmp' is not a mail address (user or user@host, no blanks, quotes, brackets, commas, not starting with -)");
	refused("MAILADDR \"a b\"\n",
		"stria.conf:1: 'a b' is not a mail address (user or user@host, no blanks, quotes, brackets, commas, not starting with -)");
	refused("PROGRAM /bin/a /bin/b\n",
		"stria.conf:1: PROGRAM takes one word, the program's path (quote it if it has blanks)");
	refused("PROGRAM /bin/a\nPROGRAM /bin/b\n",
		"stria.conf:2: PROGRAM is given twice (first at line 1)");
	refused("PROGRAM \"/bin/a\n", "stria.conf:1: a \" quote is not closed");
	refused("PROGRAM ''\n", "stria.conf:1: PROGRAM is empty");
	refused("HOMEHOST\n",
		"stria.conf:1: HOMEHOST takes one word: <system>, <none>, <ignore> or a host name");
	refused("HOMEHOST bad_host\n",
		"stria.conf:1: HOMEHOST 'bad_host' is not a host name (1 to 63 of A-Z a-z 0-9 . -)");
	refused("AUTO\n",
		"stria.conf:1: AUTO needs at least one of yes, no, +all, -all, +homehost, -homehost, +NAME, -NAME");
	refused("AUTO +a/b\n",
		"stria.conf:1: AUTO: '+a/b' is neither yes, no, [+-]all, [+-]homehost nor [+-] and an array name");
	refused("AUTO yes\nAUTO no\n", "stria.conf:2: AUTO is given twice (first at line 1)");
	refused("ARRAY\n", "stria.conf:1: ARRAY needs the array's name");
	refused("ARRAY -x\n",
		"stria.conf:1: '-x' is not an array name (1 to 31 of A-Z a-z 0-9 . _ -, not starting with . or -)");
	refused("ARRAY a level=4\n",
		"stria.conf:1: level=4 is not a stria level (0, 1, 5, 6, 10, raid0, raid1, raid5, raid6, raid10)");
	refused("ARRAY a level=raid11\n",
		"stria.conf:1: level=raid11 is not a stria level (0, 1, 5, 6, 10, raid0, raid1, raid5, raid6, raid10)");
	refused("ARRAY a uuid=0b1c\n",
		"stria.conf:1: uuid=0b1c is not a UUID (32 hex digits, as striactl detail shows it)");
	refused("ARRAY a members=1\n", "stria.conf:1: members=1 is not a member count (2 to 64)");
	refused("ARRAY a spares=9\n", "stria.conf:1: spares=9 is not a spare count (0 to 8)");
	refused("ARRAY a level=5 level=6\n", "stria.conf:1: level= is given twice");
	refused("ARRAY a devices=/dev/a,,/dev/b\n",
		"stria.conf:1: devices= has an empty pattern: give GLOB,GLOB,... without empty ones");
	refused("ARRAY a devices=/dev/a,\n", "stria.conf:1: devices= ends with a comma");
	refused("ARRAY a colour=blue\n",
		"stria.conf:1: unknown ARRAY tag 'colour' (uuid, level, members, spares, devices)");
	refused("ARRAY a level\n",
		"stria.conf:1: 'level' is not a tag: ARRAY takes NAME, then uuid=, level=, members=, spares=, devices=");
	refused("ARRAY a\n\nARRAY a\n", "stria.conf:3: array 'a' is given twice (first at line 1)");
	refused("ARRAY a uuid=0b1c2d3e4f5061728394a5b6c7d8e9fa\n"
		"ARRAY b \\\n  uuid=0b1c2d3e4f5061728394a5b6c7d8e9fa\n",
		"stria.conf:2: array 'b' is given twice (first at line 1)");
	refused("ARRAY a devices=/dev/x\n  colour=red\nPROGRAM /bin/true\n",
		"stria.conf:1: unknown ARRAY tag 'colour' (uuid, level, members, spares, devices)");
}

static void test_files(void)
{
	char path[] = "/tmp/stria-conf-XXXXXX";
	struct stria_conf c;
	int fd = mkstemp(path);
	char want[300];

	tap(conf_parse_file("/nonexistent/stria.conf", &c, err, sizeof(err)) == -ENOENT &&
	    !strcmp(err, "/nonexistent/stria.conf: No such file or directory"),
	    "a missing file: -ENOENT, said so");
	if (fd < 0 || write(fd, "PROGRAM /bin/true\nFOO\n", 22) != 22) {
		tap(0, "cannot write %s", path);
		return;
	}
	snprintf(want, sizeof(want),
		 "%s:2: unknown keyword 'FOO' (ARRAY, AUTO, HOMEHOST, MAILADDR, PROGRAM, POLICY)", path);
	tap(conf_parse_file(path, &c, err, sizeof(err)) == -EINVAL && !strcmp(err, want),
	    "a bad line of a file names the file and the line");
	if (ftruncate(fd, 0) || pwrite(fd, "PROGRAM /bin/true\n\0x\n", 21, 0) != 21)
		tap(0, "cannot rewrite %s", path);
	snprintf(want, sizeof(want), "%s: holds a NUL byte: not a text file", path);
	tap(conf_parse_file(path, &c, err, sizeof(err)) == -EINVAL && !strcmp(err, want),
	    "a file with a NUL byte is refused");
	if (ftruncate(fd, 0) || pwrite(fd, "PROGRAM /bin/true\n", 18, 0) != 18)
		tap(0, "cannot rewrite %s", path);
	tap(!conf_parse_file(path, &c, err, sizeof(err)) && c.program &&
	    !strcmp(c.path, path), "a good file parses, its path kept");
	conf_free(&c);
	close(fd);
	unlink(path);
}

/* conf_homehost(): --homehost over HOMEHOST over the system's name. */
static void test_homehost(void)
{
	char host[CONF_HOST_LEN], long_name[80];
	struct stria_conf c;

	tap(!parse("", &c) &&
	    conf_homehost(&c, NULL, "alpha", host, err, sizeof(err)) ==
	    CONF_HOMEHOST_NAME && !strcmp(host, "alpha"),
	    "no HOMEHOST: the system's name");
	tap(conf_homehost(&c, "beta", "alpha", host, err, sizeof(err)) ==
	    CONF_HOMEHOST_NAME && !strcmp(host, "beta"),
	    "--homehost NAME wins over the system's name");
	tap(conf_homehost(&c, NULL, "(none)", host, err, sizeof(err)) ==
	    CONF_HOMEHOST_NONE && conf_homehost(&c, NULL, "", host, err, sizeof(err)) ==
	    CONF_HOMEHOST_NONE, "a system without a name (an initramfs): no host");
	tap(conf_homehost(&c, "<none>", "alpha", host, err, sizeof(err)) ==
	    CONF_HOMEHOST_NONE && !host[0], "--homehost <none>: no host");
	memset(long_name, 'a', 64);
	long_name[64] = '\0';
	tap(conf_homehost(&c, NULL, long_name, host, err, sizeof(err)) == -1 &&
	    strstr(err, "this host's name") && strstr(err, "--homehost"),
	    "a 64-character system name is refused, saying what to do (%s)", err);
	tap(conf_homehost(&c, "a\nb", "alpha", host, err, sizeof(err)) == -1 &&
	    strstr(err, "--homehost 'a"), "--homehost with a newline is refused");
	tap(conf_homehost(&c, "-x", "alpha", host, err, sizeof(err)) == -1,
	    "--homehost starting with - is refused");
	conf_free(&c);
	tap(!parse("HOMEHOST gamma.example.com\n", &c) &&
	    conf_homehost(&c, NULL, "alpha", host, err, sizeof(err)) ==
	    CONF_HOMEHOST_NAME && !strcmp(host, "gamma.example.com") &&
	    conf_homehost(&c, "<system>", "alpha", host, err, sizeof(err)) ==
	    CONF_HOMEHOST_NAME && !strcmp(host, "alpha"),
	    "HOMEHOST NAME over the system's name, --homehost <system> over both");
	conf_free(&c);
	tap(!parse("HOMEHOST <ignore>\n", &c) &&
	    conf_homehost(&c, NULL, "alpha", host, err, sizeof(err)) ==
	    CONF_HOMEHOST_IGNORE, "HOMEHOST <ignore>");
	conf_free(&c);
}

/* conf_policy() for @text with this host "alpha": 1 start, 0 not. */
static int policy(const char *text, const char *name, const uint8_t *uuid,
		  const char *sbhost, char *why, size_t len)
{
	struct conf_candidate cand = { name, uuid, sbhost };
	char host[CONF_HOST_LEN];
	struct stria_conf c;
	int kind, ret;

	if (parse(text, &c))
		return -1;
	kind = conf_homehost(&c, NULL, "alpha", host, err, sizeof(err));
	ret = conf_policy(&c, &cand, kind, host, why, len);
	conf_free(&c);
	return ret;
}

static void test_policy(void)
{
	static const uint8_t u1[16] = { 0x0b, 0x1c, [15] = 0xfa };
	static const uint8_t u2[16] = { 0x77 };
	/* config, array name, its UUID, the host it records, start?, why has */
	static const struct {
		const char *text, *name;
		const uint8_t *uuid;
		const char *host;
		int start;
		const char *why, *what;
	} cases[] = {
		{ "", "d", u1, "alpha", 1, "", "no config: this host's array starts" },
		{ "", "d", u1, "", 0, "records no home host",
		  "no config: an array that records no host is not provably this host's: it does not start" },
		{ "", "d", u1, "", 0,
		  "add 'ARRAY d uuid=0b1c0000-0000-0000-0000-0000000000fa' to stria.conf",
		  "... saying which ARRAY line allows it" },
		{ "ARRAY d uuid=0b1c00000000000000000000000000fa\n", "d", u1, "", 1,
		  "stria.conf:1", "an ARRAY line with its UUID allows an array that records no host" },
		{ "AUTO +all\n", "d", u1, "", 1, "allowed by AUTO",
		  "AUTO +all allows an array that records no host" },
		{ "AUTO +homehost\n", "d", u1, "", 0, "records no home host",
		  "AUTO +homehost: an array that records no host is not this host's" },
		{ "", "d", u1, "beta", 0, "created on host 'beta', this host is 'alpha'",
		  "no config: another host's array does not start" },
		{ "", "d", u1, "beta", 0,
		  "add 'ARRAY d uuid=0b1c0000-0000-0000-0000-0000000000fa' to stria.conf",
		  "... saying which ARRAY line allows it" },
		{ "", "d", u1, "beta", 0, "'striactl assemble d DEV...'",
		  "... and how to start it by hand" },
		{ "ARRAY d uuid=0b1c00000000000000000000000000fa\n", "d", u1, "beta", 1,
		  "stria.conf:1", "an ARRAY line with its UUID allows another host's array" },
		{ "ARRAY d\n", "d", u1, "beta", 1, "by name",
		  "an ARRAY line with its name only allows it" },
		{ "ARRAY d uuid=77000000000000000000000000000000\n", "d", u1, "alpha", 0,
		  "another UUID", "an ARRAY line of that name with another UUID refuses it" },
		{ "ARRAY x uuid=0b1c00000000000000000000000000fa\nAUTO -all\n", "d", u1,
		  "beta", 1, "", "ARRAY by UUID under another name, before AUTO -all, allows it" },
		{ "AUTO +all\n", "d", u1, "beta", 1, "allowed by AUTO",
		  "AUTO +all allows another host's array" },
		{ "AUTO +d\n", "d", u1, "beta", 1, "", "AUTO +NAME allows that array" },
		{ "AUTO +d\n", "e", u2, "beta", 0, "", "... and not another" },
		{ "AUTO +homehost -all\n", "d", u1, "alpha", 1, "",
		  "AUTO +homehost -all: this host's array starts" },
		{ "AUTO +homehost -all\n", "d", u1, "beta", 0,
		  "AUTO (stria.conf:1) does not allow", "... another host's does not" },
		{ "AUTO -all\n", "d", u1, "alpha", 0, "", "AUTO -all: not even this host's" },
		{ "AUTO -homehost\n", "d", u1, "alpha", 0, "", "AUTO -homehost: not this host's" },
		{ "AUTO -homehost\n", "d", u1, "beta", 0, "",
		  "... nor another host's (that needs allowing anyway)" },
		{ "HOMEHOST <ignore>\n", "d", u1, "beta", 1, "",
		  "HOMEHOST <ignore>: every array counts as this host's" },
		{ "HOMEHOST <none>\n", "d", u1, "alpha", 0, "HOMEHOST <none>",
		  "HOMEHOST <none>: an array that records a host is another host's" },
		{ "HOMEHOST <none>\n", "d", u1, "", 0, "records no home host",
		  "... and one that records none is not provably this host's either" },
		{ "HOMEHOST beta\n", "d", u1, "beta", 1, "", "HOMEHOST NAME: that name is this host" },
	};
	char why[512];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ret = policy(cases[i].text, cases[i].name, cases[i].uuid,
				 cases[i].host, why, sizeof(why));

		tap(ret == cases[i].start && strstr(why, cases[i].why), "%s (%s)",
		    cases[i].what, why);
	}
}

/*
 * conf_owned(): whose file systems may take /dev/disk/by-uuid and by-label
 * names first. This host "alpha".
 */
static void test_owned(void)
{
	static const uint8_t u1[16] = { 0x0b, 0x1c, [15] = 0xfa };
	static const struct {
		const char *text, *host;
		int owned;
		const char *what;
	} cases[] = {
		{ "", "alpha", 1, "it records this host: owned" },
		{ "", "beta", 0, "another host's: not owned" },
		{ "", "", 0, "it records no host: not provably this host's" },
		{ "AUTO +all\n", "", 0, "AUTO +all starts it, but does not make it this host's" },
		{ "AUTO +all\n", "beta", 0, "... nor another host's array" },
		{ "ARRAY d\n", "beta", 0, "an ARRAY line by name only does not either" },
		{ "ARRAY x uuid=0b1c00000000000000000000000000fa\n", "", 1,
		  "an ARRAY line with its UUID does (whatever the name)" },
		{ "ARRAY d uuid=77000000000000000000000000000000\n", "alpha", 1,
		  "an ARRAY line of another UUID leaves this host's array this host's" },
		{ "HOMEHOST <ignore>\n", "beta", 1, "HOMEHOST <ignore>: every array is this host's" },
		{ "HOMEHOST <none>\n", "alpha", 0, "HOMEHOST <none>: no array records this host" },
		{ "HOMEHOST beta\n", "beta", 1, "HOMEHOST NAME: that name is this host" },
		{ "HOMEHOST beta\n", "alpha", 0, "... and the system's name no more" },
	};
	char host[CONF_HOST_LEN];
	struct stria_conf c;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct conf_candidate cand = { "d", u1, cases[i].host };
		int kind, ret = -1;

		if (!parse(cases[i].text, &c)) {
			kind = conf_homehost(&c, NULL, "alpha", host, err, sizeof(err));
			ret = conf_owned(&c, &cand, kind, host);
			conf_free(&c);
		}
		tap(ret == cases[i].owned, "%s", cases[i].what);
	}
}

/* POLICY: what a new blank drive in the slot of a failed member becomes */
static void test_spare_policy(void)
{
	struct stria_conf c;
	int line = -1;

	tap(!parse("# nothing\n", &c) &&
	    conf_spare_action(&c, "data", &line) == CONF_SPARE_NONE && line == 0 &&
	    !conf_spare_any(&c),
	    "no POLICY: nothing is added (off by default)");
	conf_free(&c);
	tap(!parse("POLICY action=spare-same-slot\n", &c) &&
	    conf_spare_action(&c, "data", &line) == CONF_SPARE_SAME_SLOT &&
	    line == 1 && conf_spare_any(&c),
	    "POLICY action=spare-same-slot: for every array, line 1");
	conf_free(&c);
	tap(!parse("MAILADDR root\nPOLICY action=spare-same-slot\n"
		   "policy Array=/dev/stria/scratch ACTION=none\n", &c) &&
	    conf_spare_action(&c, "data", &line) == CONF_SPARE_SAME_SLOT && line == 2 &&
	    conf_spare_action(&c, "scratch", &line) == CONF_SPARE_NONE && line == 3,
	    "an array's own line decides for it (before or after the one for all), the rest by the one for all");
	conf_free(&c);
	tap(!parse("POLICY array=scratch action=none\nPOLICY action=spare-same-slot array=data\n", &c) &&
	    conf_spare_action(&c, "data", NULL) == CONF_SPARE_SAME_SLOT &&
	    conf_spare_action(&c, "scratch", NULL) == CONF_SPARE_NONE &&
	    conf_spare_action(&c, "other", &line) == CONF_SPARE_NONE && line == 0 &&
	    conf_spare_any(&c),
	    "only the arrays named: another array gets nothing");
	conf_free(&c);
	tap(!parse("POLICY action=none\n", &c) && !conf_spare_any(&c),
	    "POLICY action=none: nothing to do");
	conf_free(&c);
	refused("POLICY\n",
		"stria.conf:1: POLICY needs action=none or action=spare-same-slot");
	refused("POLICY array=data\n",
		"stria.conf:1: POLICY needs action=none or action=spare-same-slot");
	refused("# c\nPOLICY action=spare\n",
		"stria.conf:2: POLICY: action 'spare' is neither none nor spare-same-slot (a new blank drive in the slot of a failed member becomes a spare of its array)");
	refused("POLICY action=\n",
		"stria.conf:1: POLICY: action '' is neither none nor spare-same-slot (a new blank drive in the slot of a failed member becomes a spare of its array)");
	refused("POLICY action=none action=spare-same-slot\n",
		"stria.conf:1: POLICY: action= is given twice");
	refused("POLICY action=none array=a array=b\n",
		"stria.conf:1: POLICY: array= is given twice");
	refused("POLICY action=none array=a/b\n",
		"stria.conf:1: POLICY: array 'a/b' is not an array name (1 to 31 of A-Z a-z 0-9 . _ -)");
	refused("POLICY action=none domain=x\n",
		"stria.conf:1: POLICY: 'domain=x' is neither action=ACTION nor array=NAME");
	refused("POLICY action=none spare\n",
		"stria.conf:1: POLICY: 'spare' is neither action=ACTION nor array=NAME");
	refused("POLICY action=spare-same-slot\nPOLICY action=none\n",
		"stria.conf:2: POLICY for every array (no array=) is given twice (first at line 1)");
	refused("POLICY action=none array=d\n\nPOLICY array=/dev/stria/d action=none\n",
		"stria.conf:3: POLICY for array 'd' is given twice (first at line 1)");
}

int main(void)
{
	test_empty();
	test_every_keyword();
	test_syntax();
	test_errors();
	test_files();
	test_homehost();
	test_policy();
	test_spare_policy();
	test_owned();
	return tap_exit_code();
}
