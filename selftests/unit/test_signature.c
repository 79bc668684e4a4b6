// SPDX-License-Identifier: GPL-2.0
/*
 * What striactl create says is on a device (tools/striactl/signature.c),
 * with libblkid probing image files: a file system's label is chosen by
 * whoever made the disk, and libblkid hands it over raw, so the warning
 * must show an escape sequence in it as text, never send it to the
 * terminal. TAP output on stdout.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../tools/striactl/output.c"
#include "../../tools/striactl/ident.c"
#include "../../tools/striactl/ondisk.c"
#include "../../tools/striactl/signature.c"
#include "tap.h"

void verbose_msg(const char *fmt, ...)
{
	(void)fmt;
}

/*
 * A 1 MiB image holding an ext2 superblock (magic, size, revision) whose
 * 16-byte label is @label, at build/unit/ (O_DIRECT needs a disk file
 * system, not tmpfs). Returns its path.
 */
static const char *ext2_image(const char *label)
{
	static const char path[] = "build/unit/test_signature.img";
	static unsigned char img[1 << 20];
	unsigned char *sb = img + 1024;
	FILE *f;

	memset(img, 0, sizeof(img));
	sb[4] = 0x00, sb[5] = 0x04;		/* s_blocks_count: 1024 */
	sb[56] = 0x53, sb[57] = 0xef;		/* s_magic */
	sb[76] = 1;				/* s_rev_level */
	strncpy((char *)sb + 120, label, 16);	/* s_volume_name */
	f = fopen(path, "wb");
	if (!f || fwrite(img, sizeof(img), 1, f) != 1 || fclose(f)) {
		perror(path);
		exit(1);
	}
	return path;
}

/* No byte outside printable ASCII in @s. */
static int printable_ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			return 0;
	return 1;
}

static void test_label_is_escaped(void)
{
	char buf[512];
	const char *what = foreign_signature(ext2_image("ev\x1b]0;x\x07il\x1b[2J"),
					     buf, sizeof(buf));

	tap(what && strstr(what, "ext2 file system"), "the ext2 file system is found: %s",
	    what ? what : "(nothing)");
	tap(what && printable_ascii(what), "the description is printable ASCII only");
	tap(what && strstr(what, "label \"ev\\x1b]0;x\\x07il\\x1b[2J\""),
	    "the label shows its escape sequences as \\xHH text");
}

static void test_plain_label_unchanged(void)
{
	char buf[512];
	const char *what = foreign_signature(ext2_image("data-1"), buf, sizeof(buf));

	tap(what && strstr(what, "label \"data-1\""), "a plain label is shown as it is");
}

static void test_escape_text(void)
{
	char buf[16];

	escape_text(buf, sizeof(buf), "a\\b\"c\n\xc3\xa9");
	tap(!strcmp(buf, "a\\x5cb\"c\\x0a"), "escape_text: \\ and newline as \\xHH, cut before an escape that does not fit");
	escape_text(buf, 4, "\x1b[2J");
	tap(!strcmp(buf, ""), "escape_text: never half an escape: '%s'", buf);
}

int main(void)
{
	test_label_is_escaped();
	test_plain_label_unchanged();
	test_escape_text();
	unlink("build/unit/test_signature.img");
	return tap_exit_code();
}
