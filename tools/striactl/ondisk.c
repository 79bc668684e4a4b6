// SPDX-License-Identifier: GPL-2.0
/*
 * striactl: reading member devices directly, without the module.
 *
 * Superblocks are read with O_DIRECT: the module writes them with bios that
 * bypass the block device's page cache, so a buffered read could return a
 * stale copy. The format and its checks come from drivers/stria/ondisk.h,
 * the same code the module uses.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/fs.h>

#include "striactl.h"
#include "ondisk.h"

void uuid_fmt(const uint8_t *u, char *buf)
{
	sprintf(buf, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
		u[10], u[11], u[12], u[13], u[14], u[15]);
}

/*
 * Read @len bytes at @off from @path into an aligned buffer (O_DIRECT).
 * Returns 0, or -errno.
 */
static int read_direct(const char *path, off_t off, void **bufp, size_t len)
{
	void *buf;
	ssize_t n;
	int fd, err;

	fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (posix_memalign(&buf, 4096, len)) {
		close(fd);
		return -ENOMEM;
	}
	n = pread(fd, buf, len, off);
	err = errno;
	close(fd);
	if (n != (ssize_t)len) {
		free(buf);
		return n < 0 ? -err : -ENODATA;
	}
	*bufp = buf;
	return 0;
}

int dev_size(const char *path, uint64_t *bytes)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (ioctl(fd, BLKGETSIZE64, bytes))
		ret = -errno;
	close(fd);
	return ret;
}

/**
 * read_sb() - read and check the superblock of a device
 * @path: the device
 * @sb: filled with the 4 KiB superblock area (even when it is not valid)
 * @why: reason when not usable
 * @len: size of @why
 *
 * Return: 0 when valid, -ENODATA when there is no stria superblock (or the
 * device is too short to hold one), -EBADMSG / -EPROTONOSUPPORT as
 * stria_sb_check(), or another -errno when the device cannot be read.
 */
int read_sb(const char *path, struct stria_sb *sb, char *why, size_t len)
{
	void *buf;
	int ret;

	ret = read_direct(path, 0, &buf, STRIA_SB_SIZE);
	if (ret == -ENODATA || ret == -EINVAL) {
		snprintf(why, len, "too small to hold a stria superblock");
		return -ENODATA;
	}
	if (ret) {
		snprintf(why, len, "cannot read: %s", strerror(-ret));
		return ret;
	}
	memcpy(sb, buf, sizeof(*sb));
	free(buf);
	return stria_sb_check(sb, stria_crc32c(sb, STRIA_SB_CRC_OFFSET), why,
			      len);
}

/**
 * read_bitmap_dirty() - count the dirty regions of a member's bitmap
 * @path: the device
 * @sb: its valid superblock, with STRIA_SB_FEAT_INCOMPAT_BITMAP
 * @dirty: filled with the bits set among the bitmap's regions
 *
 * Reads only the blocks that hold the regions' bits; the rest of the area
 * is zero by the format and not looked at.
 *
 * Return: 0, or -errno when the area cannot be read.
 */
int read_bitmap_dirty(const char *path, const struct stria_sb *sb,
		      uint64_t *dirty)
{
	uint64_t regions = stria_bitmap_regions(stria_le64(sb->data_sectors),
						stria_le32(sb->bitmap_chunk));
	size_t bytes = (size_t)((regions + 7) / 8), len, i;
	unsigned char *bits;
	int ret;

	len = (bytes + STRIA_SB_BITMAP_BLOCK - 1) / STRIA_SB_BITMAP_BLOCK *
	      STRIA_SB_BITMAP_BLOCK;
	if (!len || len > STRIA_SB_BITMAP_BYTES) {
		*dirty = 0;
		return len ? -EINVAL : 0;
	}
	ret = read_direct(path, (off_t)stria_le32(sb->bitmap_offset) * 512,
			  (void **)&bits, len);
	if (ret)
		return ret;
	if (regions % 8)
		bits[bytes - 1] &= (unsigned char)((1U << (regions % 8)) - 1);
	*dirty = 0;
	for (i = 0; i < bytes; i++)
		*dirty += (uint64_t)__builtin_popcount(bits[i]);
	free(bits);
	return 0;
}

/*
 * Block devices no array is assembled from automatically, by kernel name
 * prefix: the same list as the KERNEL== exclusion of
 * udev/64-stria-assembly.rules (stria arrays apart, which the rule sends
 * elsewhere), so that --scan reads what udev would hand to --incremental.
 * Loop and network block devices carry what whoever attached them wants
 * (a desktop user can attach a loop device through udisks), RAM disks
 * nothing that outlives a boot, CD and floppy drives no array.
 */
static const struct {
	const char *prefix;
	const char *what;
} excluded_devices[] = {
	{ "stria", "a stria array" },
	{ "loop", "a loop device" },
	{ "nbd", "a network block device" },
	{ "ram", "a RAM disk" },
	{ "zram", "a compressed RAM disk" },
	{ "sr", "a CD drive" },
	{ "fd", "a floppy drive" },
};

/**
 * device_excluded() - is a block device one no array is assembled from
 *	without an operator naming its members?
 * @kname: the kernel's name of the device ("loop0"), or a /dev path
 *
 * Return: what it is ("a loop device"), or NULL when it may hold members.
 */
const char *device_excluded(const char *kname)
{
	const char *slash = strrchr(kname, '/');
	size_t i;

	if (slash)
		kname = slash + 1;
	for (i = 0; i < sizeof(excluded_devices) / sizeof(excluded_devices[0]); i++)
		if (!strncmp(kname, excluded_devices[i].prefix,
			     strlen(excluded_devices[i].prefix)))
			return excluded_devices[i].what;
	return NULL;
}

/**
 * scan_devices() - every block device that may hold a stria superblock
 * @fn: called with each /dev path and its valid superblock
 * @arg: passed to @fn
 *
 * Walks /sys/class/block, skipping device_excluded()'s devices and those
 * without a /dev node. Returns the number of superblocks found.
 */
int scan_devices(void (*fn)(const char *path, const struct stria_sb *sb,
			    void *arg), void *arg)
{
	struct stria_sb sb;
	struct dirent *de;
	char path[300], why[128];
	struct stat st;
	int found = 0;
	DIR *d;

	d = opendir("/sys/class/block");
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || device_excluded(de->d_name))
			continue;
		snprintf(path, sizeof(path), "/dev/%s", de->d_name);
		if (stat(path, &st) || !S_ISBLK(st.st_mode))
			continue;
		if (read_sb(path, &sb, why, sizeof(why)))
			continue;
		found++;
		fn(path, &sb, arg);
	}
	closedir(d);
	return found;
}
