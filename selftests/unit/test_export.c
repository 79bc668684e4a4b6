// SPDX-License-Identifier: GPL-2.0
/*
 * striactl's --export printer (tools/striactl/output.c), whose KEY=value
 * lines udev imports for every block device that appears: whatever bytes a
 * value holds (an array name from a crafted disk, a device path), each
 * value stays on its one line, with nothing but printable ASCII in it.
 * TAP output on stdout.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tools/striactl/output.c"
#include "../../tools/striactl/ident.c"
#include "tap.h"

/* --export of one string value @val; returns the text (free it). */
static char *export_one(const char *key, const char *val)
{
	struct out o;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		exit(1);
	out_init(&o, f, OUT_EXPORT);
	out_begin(&o);
	out_str(&o, key, val);
	out_end(&o);
	fclose(f);
	return buf;
}

/* One "STRIA_KEY=..." line, newline-terminated, printable ASCII only. */
static int one_clean_line(const char *s, const char *key)
{
	size_t i, n = strlen(s);

	if (!n || s[n - 1] != '\n' || strncmp(s, key, strlen(key)))
		return 0;
	for (i = 0; i + 1 < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f)
			return 0;
	return 1;
}

int main(void)
{
	char val[8], *out;
	int c, bad = 0;

	printf("TAP version 13\n");
	for (c = 1; c < 256; c++) {
		snprintf(val, sizeof(val), "a%cb", c);
		out = export_one("name", val);
		if (!one_clean_line(out, "STRIA_NAME=")) {
			if (!bad)
				printf("# byte 0x%02x: %s", c, out);
			bad++;
		}
		free(out);
	}
	tap(!bad, "every byte 0x01-0xff in a value: one line of printable ASCII (%d bad)",
	    bad);

	out = export_one("name", "x\nSYSTEMD_WANTS=reboot.target\n");
	tap(one_clean_line(out, "STRIA_NAME=") &&
	    !strcmp(out, "STRIA_NAME='x\\x0aSYSTEMD_WANTS=reboot.target\\x0a'\n"),
	    "a name with newlines cannot add a property");
	free(out);

	out = export_one("device", "/dev/nvme0n1");
	tap(!strcmp(out, "STRIA_DEVICE=/dev/nvme0n1\n"), "a plain value stays plain");
	free(out);

	out = export_one("name", "it's");
	tap(!strcmp(out, "STRIA_NAME='it'\\''s'\n"), "a quote is quoted for the shell");
	free(out);

	out = export_one("error", "back\\slash");
	tap(!strcmp(out, "STRIA_ERROR='back\\x5cslash'\n"),
	    "a backslash is escaped too, so \\x is unambiguous");
	free(out);
	return tap_exit_code();
}
