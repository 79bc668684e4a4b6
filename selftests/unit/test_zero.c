// SPDX-License-Identifier: GPL-2.0
/*
 * striactl zero-superblock (tools/striactl/cmd_zero.c) on image files made
 * from the fuzz corpus's real superblocks: it erases the 4 KiB and reports
 * the role the superblock recorded (member N, or a spare), not what is
 * left after erasing; a damaged superblock over which libblkid finds a
 * file system is refused without --force, naming it. The checks that need a block device and a running
 * array are the VM tests'; here the device check accepts a file. TAP
 * output on stdout.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../tools/striactl/output.c"
#include "../../tools/striactl/ident.c"
#include "../../tools/striactl/ondisk.c"
#include "../../tools/striactl/signature.c"
#include "../../tools/striactl/cmd_zero.c"
#include "tap.h"

#define IMG "build/unit/test_zero.img"

static char errors[1024];	/* what err_msg() said last */

void verbose_msg(const char *fmt, ...)
{
	(void)fmt;
}

int stat_blockdev(struct ctx *c, const char *dev, struct stat *st)
{
	(void)c;
	return stat(dev, st) ? EXIT_FAIL : EXIT_OK;
}

int query_array(int fd, const char *name, uint32_t index, int next,
		struct stria_ioc_query *q, struct stria_ioc_member *members,
		uint32_t *cpu_map, uint32_t cpu_cap)
{
	(void)fd, (void)name, (void)index, (void)next, (void)q, (void)members;
	(void)cpu_map, (void)cpu_cap;
	return -1;
}

void err_msg(struct ctx *c, const char *fmt, ...)
{
	va_list ap;

	(void)c;
	va_start(ap, fmt);
	vsnprintf(errors, sizeof(errors), fmt, ap);
	va_end(ap);
}

int usage_error(struct ctx *c, const char *fmt, ...)
{
	(void)c, (void)fmt;
	return EXIT_USAGE;
}

int parse_force_only(struct ctx *c, int argc, char **argv, int *force)
{
	(void)c, (void)argc, (void)argv, (void)force;
	return 0;
}

/* The 4 KiB superblock of corpus file @seed (after its flag byte) to IMG. */
static void image_from(const char *seed)
{
	char path[256], sb[STRIA_SB_SIZE];
	FILE *f;

	snprintf(path, sizeof(path), "selftests/fuzz/corpus/ondisk/%s", seed);
	f = fopen(path, "rb");
	if (!f || fgetc(f) == EOF || fread(sb, sizeof(sb), 1, f) != 1) {
		perror(path);
		exit(1);
	}
	fclose(f);
	f = fopen(IMG, "wb");
	if (!f || fwrite(sb, sizeof(sb), 1, f) != 1 || fclose(f)) {
		perror(IMG);
		exit(1);
	}
}

/* An ext2 superblock (magic, size, revision, label) at byte 1024 of IMG. */
static void ext2_over_image(void)
{
	unsigned char sb[1024] = { 0 };
	FILE *f = fopen(IMG, "r+b");

	sb[4] = 0x00, sb[5] = 0x04;		/* s_blocks_count: 1024 */
	sb[56] = 0x53, sb[57] = 0xef;		/* s_magic */
	sb[76] = 1;				/* s_rev_level */
	memcpy(sb + 120, "homes", 5);		/* s_volume_name */
	if (!f || fseek(f, 1024, SEEK_SET) || fwrite(sb, sizeof(sb), 1, f) != 1 ||
	    fclose(f)) {
		perror(IMG);
		exit(1);
	}
}

/* zero_one() on IMG; what it printed on stdout goes to @out. */
static int zero_image(char *out, size_t len)
{
	struct ctx c = { .prog = "striactl" };
	int saved, fd, ret;
	ssize_t n;

	fflush(stdout);
	saved = dup(1);
	fd = open("build/unit/test_zero.out", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (saved < 0 || fd < 0 || dup2(fd, 1) < 0)
		exit(1);
	ret = zero_one(&c, IMG, 0);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	n = pread(fd, out, len - 1, 0);
	n = n > 0 ? n : 0;
	while (n > 0 && out[n - 1] == '\n')
		n--;
	out[n] = '\0';
	close(fd);
	unlink("build/unit/test_zero.out");
	return ret;
}

/* IMG's first 4 KiB are all zero. */
static int erased(void)
{
	char sb[STRIA_SB_SIZE];
	FILE *f = fopen(IMG, "rb");
	size_t i, n = f ? fread(sb, 1, sizeof(sb), f) : 0;

	if (f)
		fclose(f);
	for (i = 0; i < n; i++)
		if (sb[i])
			return 0;
	return n == sizeof(sb);
}

static void test_reports_the_recorded_role(void)
{
	char out[512];
	int ret;

	image_from("raid6-la-scrub-nvme2n1");
	ret = zero_image(out, sizeof(out));
	tap(ret == EXIT_OK && erased(), "member 2: erased");
	tap(strstr(out, "(member 2 of array 'r6')") != NULL,
	    "member 2: reported as member 2: %s", out);

	image_from("raid5-bitmap-spare-nvme3n1");
	ret = zero_image(out, sizeof(out));
	tap(ret == EXIT_OK && erased(), "spare: erased");
	tap(strstr(out, "(a spare of array 'r5')") != NULL,
	    "spare: reported as a spare: %s", out);
}

static void test_damaged_over_a_file_system(void)
{
	char out[512];
	int ret;

	image_from("raid0-nvme1n1");
	ext2_over_image();
	errors[0] = '\0';
	ret = zero_image(out, sizeof(out));
	tap(ret == EXIT_FAIL && !erased() && !out[0], "damaged, ext2 over it: refused, unchanged");
	tap(strstr(errors, "ext2 file system") && strstr(errors, "label \"homes\"") &&
	    strstr(errors, "--force"), "and the refusal names the file system: %s", errors);
}

int main(void)
{
	test_reports_the_recorded_role();
	test_damaged_over_a_file_system();
	unlink(IMG);
	return tap_exit_code();
}
