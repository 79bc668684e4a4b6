// SPDX-License-Identifier: GPL-2.0
/*
 * The generators of stria.conf text, fed hostile strings (hostile.h), read
 * back by the parser striactl itself uses (tools/striactl/config.c):
 *
 * - striactl detail --scan's ARRAY line (conf_array_line()), from a running
 *   array's name, UUID, level and counts, which a crafted disk chose: it
 *   is written exactly when the name and the numbers follow the rules of
 *   stria.conf(5) (checked here by the test's own reading of them), and
 *   then parses to that one ARRAY and nothing else, every value as given;
 *   all the lines together parse to as many arrays;
 * - the HOMEHOST line the initramfs hook (initramfs/hooks/stria) adds
 *   from the host's name, run with stand-ins for hostname and
 *   initramfs-tools: the file it writes parses, holds HOMEHOST exactly
 *   when the name is a host name, then with that name, and nothing else;
 *   otherwise the hook says why, in printable ASCII.
 *
 * TAP output on stdout.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../tools/striactl/config.c"
#include "hostile.h"
#include "tap.h"

#define NR_RANDOM_LINES	2000	/* random names for the ARRAY line */
#define NR_RANDOM_HOSTS	40	/* and for the hook, which forks a lot */

/* stria.conf(5): 1 to 31 of A-Z a-z 0-9 . _ -, not starting with . or - */
static int doc_name_ok(const char *s)
{
	size_t i, n = strlen(s);

	if (!n || n > 31 || s[0] == '.' || s[0] == '-')
		return 0;
	for (i = 0; i < n; i++)
		if (!isascii((unsigned char)s[i]) ||
		    (!isalnum((unsigned char)s[i]) && !strchr("._-", s[i])))
			return 0;
	return 1;
}

/* stria.conf(5): 1 to 63 of A-Z a-z 0-9 . -, not starting with . or - */
static int doc_host_ok(const char *s)
{
	size_t i, n = strlen(s);

	if (!n || n > 63 || s[0] == '.' || s[0] == '-')
		return 0;
	for (i = 0; i < n; i++)
		if (!isascii((unsigned char)s[i]) ||
		    (!isalnum((unsigned char)s[i]) && !strchr(".-", s[i])))
			return 0;
	return 1;
}

/* Nothing but what an ARRAY line may set. */
static int only_arrays(const struct stria_conf *c)
{
	return !c->auto_line && !c->homehost_line && !c->mailaddr_line &&
	       !c->program_line && !c->nr_auto && !c->nr_mailaddr &&
	       !c->program;
}

static void test_array_line(void)
{
	static char all[1 << 20];
	char h[HOSTILE_MAX], line[256], err[512] = "", name[HOSTILE_MAX + 16];
	unsigned int i, n, level, members, spares, bad = 0, wrong = 0;
	unsigned int written = 0, refused = 0;
	size_t used = 0;
	uint8_t uuid[16];
	struct stria_conf c;
	int ret, k;

	n = (unsigned int)HOSTILE_FIXED + NR_RANDOM_LINES;
	for (i = 0; i < n; i++) {
		hostile_str(i, h);
		/* valid names too: the hostile ones cut to the name's alphabet */
		if (i % 3 == 2) {
			size_t a = 0, b;

			for (b = 0; h[b] && a < 31; b++)
				if (isascii((unsigned char)h[b]) &&
				    (isalnum((unsigned char)h[b]) || strchr("._-", h[b])))
					h[a++] = h[b];
			h[a] = '\0';
		}
		hostile_rng ^= i;
		for (k = 0; k < 16; k++)
			uuid[k] = (uint8_t)hostile_next();
		uuid[0] = (uint8_t)i, uuid[1] = (uint8_t)(i >> 8);	/* unique */
		level = i % 11 == 0 ? hostile_next() % 12 : (unsigned int[]){ 0, 1, 5, 6, 10 }[i % 5];
		members = i % 13 == 0 ? hostile_next() % 70 : 2 + hostile_next() % 63;
		spares = i % 17 == 0 ? hostile_next() % 12 : hostile_next() % 9;
		ret = conf_array_line(line, sizeof(line), h, uuid, level, members,
				      spares);
		if ((ret >= 0) != (doc_name_ok(h) && (level == 0 || level == 1 || level == 5 ||
						    level == 6 || level == 10) &&
				   members >= 2 && members <= 64 && spares <= 8)) {
			if (!wrong++)
				printf("# '%s' raid%u members %u spares %u: %s\n",
				       hostile_show(h), level, members, spares,
				       ret >= 0 ? "written" : "refused");
			continue;
		}
		if (ret < 0) {
			refused++;
			if (ret != -EINVAL && !bad++)
				printf("# '%s': refused with %d, not -EINVAL\n",
				       hostile_show(h), ret);
			continue;
		}
		written++;
		memset(&c, 0, sizeof(c));
		if (strchr(line, '\n') != line + ret - 1 ||
		    conf_parse_text("detail", line, &c, err, sizeof(err)) ||
		    c.nr_arrays != 1 || !only_arrays(&c) ||
		    strcmp(c.arrays[0].name, h) || !c.arrays[0].has_uuid ||
		    memcmp(c.arrays[0].uuid, uuid, 16) ||
		    c.arrays[0].level != (int)level ||
		    c.arrays[0].members != (int)members ||
		    c.arrays[0].spares != (int)spares || c.arrays[0].nr_devices) {
			if (!bad++)
				printf("# '%s': the line '%s' does not read back (%s)\n",
				       hostile_show(h), hostile_show(line), err);
		}
		conf_free(&c);
		/* a name twice is refused by the parser: keep the first */
		snprintf(name, sizeof(name), "/dev/stria/%s ", h);
		if (used + (size_t)ret < sizeof(all) && !strstr(all, name)) {
			memcpy(all + used, line, (size_t)ret + 1);
			used += (size_t)ret;
		}
	}
	tap(!wrong, "ARRAY line: written exactly for the names and numbers stria.conf(5) allows (%u written, %u refused, %u not so)",
	    written, refused, wrong);
	tap(!bad && written > 100 && refused > 100,
	    "ARRAY line: each written one parses back to that one array, as given, and nothing else (%u do not)",
	    bad);
	memset(&c, 0, sizeof(c));
	ret = conf_parse_text("detail", all, &c, err, sizeof(err));
	for (k = 0, i = 0; all[i]; i++)
		k += all[i] == '\n';
	tap(!ret && c.nr_arrays == (size_t)k && k > 50 && only_arrays(&c),
	    "ARRAY lines: %d together parse to as many arrays (%zu) %s", k,
	    c.nr_arrays, ret ? err : "");
	conf_free(&c);
	{
		char small[40];

		tap(conf_array_line(small, sizeof(small), "data", uuid, 5, 4, 0) == -ENOSPC,
		    "ARRAY line: a buffer too short is -ENOSPC, not a cut line");
	}
}

static char dir[] = "/tmp/stria-hook-XXXXXX";

static void put(const char *rel, const char *text, mode_t mode)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) || chmod(path, mode)) {
		tap(0, "cannot write %s", path);
		exit(1);
	}
}

/*
 * The hook as initramfs-tools runs it, with hostname, modinfo and
 * hook-functions stood in for and the system's stria.conf replaced by
 * @conf (NULL: none); the host's name from $STRIA_TEST_HOST. Returns its
 * exit status; its stria.conf is $dir/root/etc/stria/stria.conf.
 */
static int run_hook(const char *conf)
{
	char cmd[2048];

	if (conf)
		put("etc.conf", conf, 0644);
	else
		unlink(strcat(strcpy(cmd, dir), "/etc.conf"));
	snprintf(cmd, sizeof(cmd),
		 "rm -rf %1$s/root && mkdir %1$s/root && "
		 "sed -e 's#/usr/share/initramfs-tools/hook-functions#%1$s/hook-functions#' "
		 "-e 's#\\[ -f /etc/stria/stria.conf \\]#[ -f %1$s/etc.conf ]#' "
		 "-e 's#cp /etc/stria/stria.conf #cp %1$s/etc.conf #' "
		 "initramfs/hooks/stria >%1$s/hook && "
		 "! grep -qE '(-f|cp) /etc/stria/stria.conf' %1$s/hook && "
		 "DESTDIR=%1$s/root version=0 PATH=%1$s/bin:/usr/bin:/bin "
		 "sh %1$s/hook >%1$s/out 2>%1$s/err", dir);
	return system(cmd);
}

static void test_hook(void)
{
	char h[HOSTILE_MAX], host[HOSTILE_MAX], path[512], err[512];
	unsigned int i, n, bad = 0, added = 0, warned = 0;
	struct stria_conf c;
	size_t len;
	int ret, want;

	if (!mkdtemp(dir)) {
		tap(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/bin", dir);
	mkdir(path, 0755);
	put("bin/hostname", "#!/bin/sh\nprintf '%s\\n' \"$STRIA_TEST_HOST\"\n", 0755);
	put("bin/modinfo", "#!/bin/sh\nexit 0\n", 0755);
	put("hook-functions", "manual_add_modules() { :; }\ncopy_file() { :; }\ncopy_exec() { :; }\n", 0644);
	snprintf(path, sizeof(path), "%s/root/etc/stria/stria.conf", dir);

	n = (unsigned int)HOSTILE_FIXED + NR_RANDOM_HOSTS;
	for (i = 0; i < n; i++) {
		hostile_str(i, h);
		setenv("STRIA_TEST_HOST", h, 1);
		/* $(hostname) drops the newlines at the end, as for a real one */
		snprintf(host, sizeof(host), "%s", h);
		len = strlen(host);
		while (len && host[len - 1] == '\n')
			host[--len] = '\0';
		want = doc_host_ok(host);
		ret = run_hook(i % 2 ? "ARRAY data uuid=0b1c2d3e4f5061728394a5b6c7d8e9fa\n" : NULL);
		memset(&c, 0, sizeof(c));
		if (ret) {
			if (!bad++)
				printf("# host '%s': the hook failed (%d)\n",
				       hostile_show(h), ret);
			continue;
		}
		ret = conf_parse_file(path, &c, err, sizeof(err));
		if (want) {
			added++;
			if (ret || c.homehost_kind != CONF_HOMEHOST_NAME ||
			    strcmp(c.homehost, host) || c.auto_line ||
			    c.mailaddr_line || c.program_line ||
			    c.nr_arrays != (i % 2 ? 1u : 0u)) {
				if (!bad++)
					printf("# host '%s': the hook's stria.conf does not read back as HOMEHOST of it (%s)\n",
					       hostile_show(h), ret ? err : "");
			}
		} else {
			char out[1024] = "";
			FILE *f;

			snprintf(err, sizeof(err), "%s/err", dir);
			f = fopen(err, "r");
			if (f) {
				out[fread(out, 1, sizeof(out) - 1, f)] = '\0';
				fclose(f);
			}
			if (strstr(out, "is not usable as HOMEHOST"))
				warned++;
			/* the warning is for a terminal: printable ASCII */
			for (len = 0; out[len]; len++)
				if (out[len] != '\n' &&
				    (out[len] < 0x20 || out[len] >= 0x7f))
					out[0] = '\0';
			/* no file (nothing to copy) or one without HOMEHOST */
			if ((ret && ret != -ENOENT) || c.homehost_line ||
			    c.auto_line || c.mailaddr_line || c.program_line ||
			    !strstr(out, "is not usable as HOMEHOST")) {
				if (!bad++)
					printf("# host '%s': no HOMEHOST line wanted, but: parse %d, HOMEHOST at line %d, hook said '%s'\n",
					       hostile_show(h), ret, c.homehost_line,
					       hostile_show(out));
			}
		}
		conf_free(&c);
	}
	tap(!bad && added > 5 && warned > 20,
	    "initramfs hook: for %u host names, HOMEHOST exactly for host names, reading back as given (%u), a warning for the rest (%u); %u not so",
	    n, added, warned, bad);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	if (system(path))
		tap(0, "cannot remove %s", dir);
}

int main(void)
{
	printf("TAP version 13\n");
	test_array_line();
	test_hook();
	return tap_exit_code();
}
