// SPDX-License-Identifier: GPL-2.0
/*
 * stria-craft: write a stria superblock with any field set to any value,
 * as an attacker's disk would carry it. Built from drivers/stria/ondisk.h,
 * so the layout and the CRC are the module's own.
 *
 *   stria-craft [-f FROM] [-o OFFSET] [-k] FILE [FIELD=VALUE...]
 *
 * Starts from the superblock of FROM (a member, or a file), else from a
 * fresh one (RAID0, 2 members, role 0, 64 KiB chunks, data offset 2048,
 * events 1, name "crafted", random UUIDs); sets each FIELD (any field of
 * struct stria_sb: numbers in C notation, name, homehost and magic as
 * given (homehost without touching the feature bit),
 * array_uuid and member_uuid as 32 hex digits); seals the CRC unless -k
 * or crc= is given; writes the 4 KiB at byte OFFSET (default 0) of FILE,
 * directly to a block device.
 *
 * Exit: 0 done, 1 I/O error, 2 usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ondisk.h"

#define FIELD(f) { #f, offsetof(struct stria_sb, f), \
		   sizeof(((struct stria_sb *)0)->f) }

static const struct {
	const char *name;
	size_t off, size;
} fields[] = {
	FIELD(format), FIELD(layout), FIELD(features_compat),
	FIELD(features_incompat), FIELD(level), FIELD(chunk_sectors),
	FIELD(nr_members), FIELD(role), FIELD(data_offset),
	FIELD(data_sectors), FIELD(dev_sectors), FIELD(events), FIELD(state),
	FIELD(flags), FIELD(ctime), FIELD(utime), FIELD(failed),
	FIELD(parity_layout), FIELD(scrub_action), FIELD(rebuild_offset),
	FIELD(rebuilding), FIELD(scrub_offset), FIELD(scrub_end),
	FIELD(bitmap_offset), FIELD(bitmap_chunk), FIELD(degraded_events),
	FIELD(rebuild_partial), FIELD(reshape_pos), FIELD(reshape_from),
	FIELD(reshape_flags), FIELD(crc),
};

static int usage(void)
{
	fprintf(stderr, "usage: stria-craft [-f FROM] [-o OFFSET] [-k] FILE [FIELD=VALUE...]\n");
	return 2;
}

static void fresh(struct stria_sb *sb)
{
	int fd = open("/dev/urandom", O_RDONLY);
	__u8 u[2 * STRIA_SB_UUID_LEN];

	memset(sb, 0, sizeof(*sb));
	if (fd < 0 || read(fd, u, sizeof(u)) != (ssize_t)sizeof(u))
		memset(u, 0x5a, sizeof(u));
	if (fd >= 0)
		close(fd);
	memcpy(sb->array_uuid, u, STRIA_SB_UUID_LEN);
	memcpy(sb->member_uuid, u + STRIA_SB_UUID_LEN, STRIA_SB_UUID_LEN);
	memcpy(sb->magic, STRIA_SB_MAGIC, STRIA_SB_MAGIC_LEN);
	sb->format = stria_cpu_le32(STRIA_SB_FORMAT);
	sb->layout = stria_cpu_le32(STRIA_SB_LAYOUT_RAID0);
	strcpy(sb->name, "crafted");
	sb->chunk_sectors = stria_cpu_le32(128);
	sb->nr_members = stria_cpu_le32(2);
	sb->data_offset = stria_cpu_le64(STRIA_SB_DATA_OFFSET);
	sb->events = stria_cpu_le64(1);
}

static int hex_uuid(const char *s, __u8 *u)
{
	int i;

	for (i = 0; i < STRIA_SB_UUID_LEN; i++)
		if (sscanf(s + 2 * i, "%2hhx", &u[i]) != 1)
			return -1;
	return s[2 * STRIA_SB_UUID_LEN] ? -1 : 0;
}

static int set_field(struct stria_sb *sb, const char *arg, int *seal)
{
	const char *eq = strchr(arg, '=');
	unsigned long long v;
	size_t i, klen;
	char *end;

	if (!eq)
		return -1;
	klen = (size_t)(eq - arg);
	eq++;
	if (klen == 4 && !strncmp(arg, "name", 4)) {
		memset(sb->name, 0, sizeof(sb->name));
		memcpy(sb->name, eq, strnlen(eq, sizeof(sb->name)));
		return 0;
	}
	if (klen == 8 && !strncmp(arg, "homehost", 8)) {
		memset(sb->homehost, 0, sizeof(sb->homehost));
		memcpy(sb->homehost, eq, strnlen(eq, sizeof(sb->homehost)));
		return 0;
	}
	if (klen == 5 && !strncmp(arg, "magic", 5)) {
		memset(sb->magic, 0, sizeof(sb->magic));
		memcpy(sb->magic, eq, strnlen(eq, sizeof(sb->magic)));
		return 0;
	}
	if (klen == 10 && !strncmp(arg, "array_uuid", 10))
		return hex_uuid(eq, sb->array_uuid);
	if (klen == 11 && !strncmp(arg, "member_uuid", 11))
		return hex_uuid(eq, sb->member_uuid);
	errno = 0;
	v = strtoull(eq, &end, 0);
	if (errno || *end || !*eq)
		return -1;
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		unsigned char *p = (unsigned char *)sb + fields[i].off;

		if (strlen(fields[i].name) != klen ||
		    strncmp(fields[i].name, arg, klen))
			continue;
		if (fields[i].size == 4) {
			__le32 x = stria_cpu_le32((__u32)v);

			memcpy(p, &x, 4);
		} else {
			__le64 x = stria_cpu_le64((__u64)v);

			memcpy(p, &x, 8);
		}
		if (!strcmp(fields[i].name, "crc"))
			*seal = 0;
		return 0;
	}
	return -1;
}

/* Read or write 4 KiB at @off, O_DIRECT on a block device. */
static int io(const char *path, int wr, off_t off, void *buf)
{
	struct stat st;
	int flags = wr ? O_WRONLY | O_CREAT : O_RDONLY, fd, ret = 0;

	if (!stat(path, &st) && S_ISBLK(st.st_mode))
		flags |= O_DIRECT;
	fd = open(path, flags | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	if ((wr ? pwrite(fd, buf, STRIA_SB_SIZE, off) :
	     pread(fd, buf, STRIA_SB_SIZE, off)) != STRIA_SB_SIZE)
		ret = -1;
	if (wr && !ret && fsync(fd))
		ret = -1;
	close(fd);
	return ret;
}

int main(int argc, char **argv)
{
	const char *from = NULL;
	struct stria_sb *sb;
	int opt, seal = 1, i;
	long long off = 0;

	while ((opt = getopt(argc, argv, "f:o:k")) != -1) {
		switch (opt) {
		case 'f':
			from = optarg;
			break;
		case 'o':
			off = strtoll(optarg, NULL, 0);
			break;
		case 'k':
			seal = 0;
			break;
		default:
			return usage();
		}
	}
	if (optind >= argc || off < 0 || off % STRIA_SB_SIZE)
		return usage();
	if (posix_memalign((void **)&sb, STRIA_SB_SIZE, STRIA_SB_SIZE))
		return 1;
	if (from) {
		if (io(from, 0, 0, sb)) {
			perror(from);
			return 1;
		}
	} else {
		fresh(sb);
	}
	for (i = optind + 1; i < argc; i++) {
		if (set_field(sb, argv[i], &seal)) {
			fprintf(stderr, "stria-craft: bad field or value: %s\n",
				argv[i]);
			return 2;
		}
	}
	if (seal)
		sb->crc = stria_cpu_le32(stria_crc32c(sb, STRIA_SB_CRC_OFFSET));
	if (io(argv[optind], 1, (off_t)off, sb)) {
		perror(argv[optind]);
		return 1;
	}
	free(sb);
	return 0;
}
