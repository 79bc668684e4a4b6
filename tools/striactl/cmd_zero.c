// SPDX-License-Identifier: GPL-2.0
/*
 * striactl zero-superblock: erase the stria superblock of a device that is
 * no longer wanted as a member, as mdadm --zero-superblock does.
 *
 * Only the 4 KiB superblock is zeroed: without it nothing reads the rest of
 * the superblock area (the write-intent bitmap), and no other data is
 * touched. A device that a running array holds (a member, a spare, a
 * replacement) is refused whatever the options: stop the array, or fail and
 * remove the member, first. --force only erases a superblock that is
 * damaged or of a newer format (the refusal names any file system or other
 * signature libblkid finds there: a damaged superblock may be one that
 * something else has since overwritten); a device with no stria superblock
 * at all is never written.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/stria.h>

#include "striactl.h"
#include "ondisk.h"

/*
 * Does a running array hold the device @rdev? Then its name, index and the
 * device's role (STRIA_NO_MEMBER for a spare) go to @q and @role. The
 * module's own tables say so, not sysfs links. Returns 1 when held, 0 when
 * not (or when the module is not loaded: then no array runs).
 */
static int held_by_array(dev_t rdev, struct stria_ioc_query *q, uint32_t *role)
{
	struct stria_ioc_member m[STRIA_MAX_MEMBERS + STRIA_MAX_SPARES];
	uint32_t idx = 0, i, n;
	int fd;

	fd = open("/dev/" STRIA_CONTROL_NAME, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return 0;
	while (!query_array(fd, NULL, idx, 1, q, m, NULL, 0)) {
		n = q->nr_members + q->nr_spares;
		if (n > STRIA_MAX_MEMBERS + STRIA_MAX_SPARES)
			n = STRIA_MAX_MEMBERS + STRIA_MAX_SPARES;
		for (i = 0; i < n; i++) {
			if ((m[i].major || m[i].minor) &&
			    m[i].major == major(rdev) &&
			    m[i].minor == minor(rdev)) {
				*role = m[i].role;
				close(fd);
				return 1;
			}
		}
		idx = q->index + 1;
	}
	close(fd);
	return 0;
}

/* Erase the superblock of @dev. Returns an EXIT_* code. */
static int zero_one(struct ctx *c, const char *dev, int force)
{
	struct stria_ioc_query q;
	struct stria_sb *sb;
	struct stat st;
	char why[160], name[STRIA_SB_NAME_LEN + 1], other[512];
	uint32_t role;
	void *buf;
	ssize_t n;
	int fd, ret;

	if (stat_blockdev(c, dev, &st))
		return EXIT_FAIL;
	if (held_by_array(st.st_rdev, &q, &role)) {
		if (role == STRIA_NO_MEMBER)
			err_msg(c, "%s is a spare of running array '%s' (/dev/stria%u): nothing was changed; 'striactl remove %s %s' releases it first",
				dev, q.name, q.index, q.name, dev);
		else
			err_msg(c, "%s is member %u of running array '%s' (/dev/stria%u): nothing was changed; stop the array first, or fail and remove the member ('striactl fail', 'striactl remove')",
				dev, role, q.name, q.index);
		return EXIT_FAIL;
	}
	/* exclusive: no array, file system or md can take it meanwhile */
	fd = open(dev, O_RDWR | O_EXCL | O_DIRECT | O_CLOEXEC);
	if (fd < 0) {
		if (errno == EBUSY)
			err_msg(c, "%s is in use (mounted, or held by md, dm, an array or another program): nothing was changed",
				dev);
		else
			err_msg(c, "cannot open %s: %s", dev, strerror(errno));
		return EXIT_FAIL;
	}
	if (posix_memalign(&buf, 4096, STRIA_SB_SIZE)) {
		close(fd);
		return EXIT_FAIL;
	}
	sb = buf;
	n = pread(fd, buf, STRIA_SB_SIZE, 0);
	if (n != STRIA_SB_SIZE) {
		ret = n < 0 ? EXIT_FAIL : EXIT_NOTFOUND;
		err_msg(c, "%s: %s", dev, n < 0 ? strerror(errno) :
			"too small to hold a stria superblock");
		goto out;
	}
	ret = stria_sb_check(sb, stria_crc32c(sb, STRIA_SB_CRC_OFFSET), why,
			     sizeof(why));
	if (ret == -ENODATA) {
		err_msg(c, "%s has no stria superblock: nothing to erase", dev);
		ret = EXIT_NOTFOUND;
		goto out;
	}
	if (ret && !force) {
		if (blkid_signatures(dev, other, sizeof(other)))
			err_msg(c, "%s: the stria superblock is not usable (%s), and the device holds %s, which may have overwritten it: nothing was changed; --force erases the superblock's 4 KiB anyway",
				dev, why, other);
		else
			err_msg(c, "%s: the stria superblock is not usable (%s): nothing was changed; --force erases it anyway",
				dev, why);
		ret = EXIT_FAIL;
		goto out;
	}
	/* what to report, taken before the buffer is zeroed */
	memcpy(name, sb->name, STRIA_SB_NAME_LEN);
	name[STRIA_SB_NAME_LEN] = '\0';
	role = stria_le32(sb->role);
	memset(buf, 0, STRIA_SB_SIZE);
	if (pwrite(fd, buf, STRIA_SB_SIZE, 0) != STRIA_SB_SIZE || fsync(fd)) {
		err_msg(c, "%s: cannot erase the superblock: %s", dev,
			strerror(errno));
		ret = EXIT_FAIL;
		goto out;
	}
	if (ret)
		printf("erased the damaged stria superblock of %s\n", dev);
	else if (role == STRIA_SB_ROLE_SPARE)
		printf("erased the stria superblock of %s (a spare of array '%s')\n",
		       dev, name);
	else
		printf("erased the stria superblock of %s (member %u of array '%s')\n",
		       dev, role, name);
	ret = EXIT_OK;
out:
	free(buf);
	close(fd);
	return ret;
}

int cmd_zero_superblock(struct ctx *c, int argc, char **argv)
{
	int ret, force = 0, status = EXIT_OK;

	ret = parse_force_only(c, argc, argv, &force);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if (optind >= argc)
		return usage_error(c, "give at least one device");
	for (; optind < argc; optind++) {
		ret = zero_one(c, argv[optind], force);
		if (ret && status != EXIT_FAIL)
			status = ret;
	}
	return status;
}
