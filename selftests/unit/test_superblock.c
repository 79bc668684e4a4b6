// SPDX-License-Identifier: GPL-2.0
/*
 * The on-disk superblock (drivers/stria/ondisk.h) in user space: field
 * offsets as documented in Documentation/stria/ondisk-format.rst, the
 * CRC-32C check value, and stria_sb_check() on good, damaged, foreign and
 * newer superblocks. TAP output on stdout.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ondisk.h"
#include "tap.h"


static void seal(struct stria_sb *sb)
{
	sb->crc = stria_cpu_le32(stria_crc32c(sb, STRIA_SB_CRC_OFFSET));
}

static int check(const struct stria_sb *sb, char *why, size_t len)
{
	return stria_sb_check(sb, stria_crc32c(sb, STRIA_SB_CRC_OFFSET), why,
			      len);
}

static void good_sb(struct stria_sb *sb)
{
	int i;

	memset(sb, 0, sizeof(*sb));
	memcpy(sb->magic, STRIA_SB_MAGIC, STRIA_SB_MAGIC_LEN);
	sb->format = stria_cpu_le32(STRIA_SB_FORMAT);
	sb->layout = stria_cpu_le32(STRIA_SB_LAYOUT_RAID0);
	for (i = 0; i < STRIA_SB_UUID_LEN; i++) {
		sb->array_uuid[i] = (unsigned char)i;
		sb->member_uuid[i] = (unsigned char)(0xa0 + i);
	}
	strcpy(sb->name, "golden");
	sb->level = 0;
	sb->chunk_sectors = stria_cpu_le32(128);
	sb->nr_members = stria_cpu_le32(4);
	sb->role = stria_cpu_le32(2);
	sb->data_offset = stria_cpu_le64(STRIA_SB_DATA_OFFSET);
	sb->data_sectors = stria_cpu_le64(522240);
	sb->dev_sectors = stria_cpu_le64(524288);
	sb->events = stria_cpu_le64(7);
	sb->state = stria_cpu_le32(STRIA_SB_STATE_ACTIVE);
	sb->ctime = stria_cpu_le64(1700000000);
	sb->utime = stria_cpu_le64(1700000100);
	seal(sb);
}

struct field {
	const char *name;
	size_t off, want;
};

#define F(n, w) { #n, offsetof(struct stria_sb, n), w }

int main(void)
{
	static const struct field fields[] = {
		F(magic, 0), F(format, 8), F(layout, 12),
		F(features_compat, 16), F(features_incompat, 24),
		F(array_uuid, 32), F(member_uuid, 48), F(name, 64),
		F(level, 96), F(chunk_sectors, 100), F(nr_members, 104),
		F(role, 108), F(data_offset, 112), F(data_sectors, 120),
		F(dev_sectors, 128), F(events, 136), F(state, 144),
		F(flags, 148), F(ctime, 152), F(utime, 160),
		F(reserved, 168), F(crc, 4092),
	};
	struct stria_sb *sb = malloc(sizeof(*sb));
	char why[160];
	size_t i;
	int ret;

	if (!sb)
		return 1;
	printf("TAP version 13\n");
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		tap(fields[i].off == fields[i].want, "field %s at byte %zu",
		    fields[i].name, fields[i].want);
	tap(sizeof(*sb) == 4096, "superblock is 4096 bytes");
	tap(stria_crc32c("123456789", 9) == 0xe3069283U,
	    "CRC-32C check value of \"123456789\" is e3069283");

	good_sb(sb);
	ret = check(sb, why, sizeof(why));
	tap(ret == 0, "a good superblock passes (%d)", ret);
	/* Freezes the encoding: changes to the golden superblock's bytes show here. */
	tap(stria_le32(sb->crc) == 0x427d7a7aU,
	    "golden superblock CRC is 427d7a7a (got %08x)", stria_le32(sb->crc));

	good_sb(sb);
	sb->magic[0] = 'X';
	tap(check(sb, why, sizeof(why)) == -ENODATA, "wrong magic: not stria (%s)", why);

	good_sb(sb);
	sb->events ^= stria_cpu_le64(1);
	ret = check(sb, why, sizeof(why));
	tap(ret == -EBADMSG && strstr(why, "checksum"),
	    "one flipped bit fails the CRC (%s)", why);

	good_sb(sb);
	sb->format = stria_cpu_le32(2);
	seal(sb);
	ret = check(sb, why, sizeof(why));
	tap(ret == -EPROTONOSUPPORT && strstr(why, "format 2"),
	    "newer format refused (%s)", why);

	good_sb(sb);
	sb->features_incompat = stria_cpu_le64(1ULL << 5);
	seal(sb);
	ret = check(sb, why, sizeof(why));
	tap(ret == -EPROTONOSUPPORT && strstr(why, "0x20"),
	    "unknown incompat feature refused (%s)", why);

	good_sb(sb);
	sb->features_compat = stria_cpu_le64(1ULL << 9);
	seal(sb);
	tap(check(sb, why, sizeof(why)) == 0, "unknown compat feature accepted");

	good_sb(sb);
	sb->role = stria_cpu_le32(4);
	seal(sb);
	tap(check(sb, why, sizeof(why)) == -EBADMSG, "role >= members refused (%s)", why);

	good_sb(sb);
	sb->reserved[100] = 1;
	seal(sb);
	tap(check(sb, why, sizeof(why)) == -EBADMSG, "nonzero reserved refused (%s)", why);

	good_sb(sb);
	memset(sb->name, 'a', sizeof(sb->name));
	seal(sb);
	tap(check(sb, why, sizeof(why)) == -EBADMSG, "unterminated name refused (%s)", why);

	good_sb(sb);
	sb->data_sectors = stria_cpu_le64(524288);
	seal(sb);
	tap(check(sb, why, sizeof(why)) == -EBADMSG, "data area past the device refused (%s)", why);

	srand(1);
	for (i = 0; i < sizeof(*sb); i++)
		((unsigned char *)sb)[i] = (unsigned char)rand();
	tap(check(sb, why, sizeof(why)) == -ENODATA, "random bytes are not a superblock");

	free(sb);
	return tap_exit_code();
}
