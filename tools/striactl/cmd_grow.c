// SPDX-License-Identifier: GPL-2.0
/*
 * striactl grow NAME --add DEV... [--raid-devices N]: more copies for a
 * RAID1 array, or more members for a RAID0 array, as mdadm --grow
 * --raid-devices N --add DEV. Each DEV is added as a spare, then
 * STRIA_IOC_GROW gives the spares added last the new roles, and the
 * module rebuilds them (RAID1) or restripes the data onto them (RAID0) in
 * the background.
 *
 * striactl grow NAME --bitmap internal|none [--bitmap-chunk SIZE]: add or
 * remove the write-intent bitmap of a running array, as mdadm --grow
 * --bitmap.
 *
 * striactl grow NAME --size max|SIZE: use more of every member, once each
 * is larger than the array uses, as mdadm --grow --size.
 *
 * The request is checked first (STRIA_GROW_F_CHECK), so an array that
 * would refuse it gets no spares; when the grow is refused after all (the
 * array changed meanwhile), the spares this command added are removed.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/stria.h>

#include "ondisk.h"
#include "striactl.h"

/* A STRIA_IOC_GROW request to grow the array @name / @index to @nr members. */
static void grow_req_init(struct stria_ioc_grow *req, const char *name,
			  uint32_t index, uint32_t nr, uint32_t flags)
{
	memset(req, 0, sizeof(*req));
	req->size = sizeof(*req);
	req->flags = flags;
	req->index = index;
	req->op = STRIA_GROW_MEMBERS;
	req->nr_members = nr;
	memcpy(req->name, name, sizeof(req->name));
}

/* STRIA_IOC_MEMBER @op of device @major:@minor; returns errno or 0. */
static int member_op(int fd, uint32_t op, uint32_t flags, const char *name,
		     uint32_t index, uint32_t major, uint32_t minor,
		     struct stria_ioc_member_op *req)
{
	member_req_init(req, op, name, index);
	req->flags = flags;
	req->major = major;
	req->minor = minor;
	return ioctl(fd, STRIA_IOC_MEMBER, req) ? errno : 0;
}

/* Remove the first @n devices of @devs, which this command added. */
static void undo_adds(struct ctx *c, int fd, const char *name, uint32_t index,
		      char **devs, const uint32_t (*num)[2], int n)
{
	struct stria_ioc_member_op req;
	int i, err;

	for (i = 0; i < n; i++) {
		err = member_op(fd, STRIA_MEMBER_OP_REMOVE, 0, name, index,
				num[i][0], num[i][1], &req);
		if (err)
			report_ctl_error(c, devs[i], req.msg, err, NULL);
		else
			fprintf(stderr, "removed %s again\n", devs[i]);
	}
}

/* what the command line asks for */
struct grow_opts {
	int add;		/* --add: the operands after NAME are devices */
	uint32_t nr;		/* --raid-devices, 0 when not given */
	int bitmap;		/* --bitmap: 1 internal, 0 none, -1 not given */
	uint64_t bitmap_chunk;	/* --bitmap-chunk, bytes; 0 when not given */
	int size;		/* --size given */
	uint64_t size_bytes;	/* its bytes per member, 0 for max */
};

enum { OPT_GROW_BITMAP_CHUNK = 256 };

static int parse_grow_opts(struct ctx *c, int argc, char **argv,
			   struct grow_opts *g)
{
	static const struct option longopts[] = {
		{ "add", no_argument, NULL, 'a' },
		{ "raid-devices", required_argument, NULL, 'n' },
		{ "bitmap", required_argument, NULL, 'b' },
		{ "bitmap-chunk", required_argument, NULL, OPT_GROW_BITMAP_CHUNK },
		{ "size", required_argument, NULL, 'z' },
		COMMON_LONGOPTS, { 0 }
	};
	unsigned long v;
	char *end;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "an:b:z:" COMMON_SHORTOPTS,
				  longopts, NULL)) != -1) {
		if (opt == 'z') {
			g->size = 1;
			if (strcmp(optarg, "max") &&
			    (parse_size(optarg, &g->size_bytes) ||
			     !g->size_bytes || g->size_bytes % 512))
				return usage_error(c, "bad --size '%s': max, or the bytes of each member to use, with K, M, G, T suffixes",
						   optarg);
			continue;
		}
		if (opt == 'a') {
			g->add = 1;
			continue;
		}
		if (opt == 'b') {
			g->bitmap = parse_bitmap(optarg);
			if (g->bitmap < 0)
				return usage_error(c, "unknown --bitmap '%s': use internal or none",
						   optarg);
			continue;
		}
		if (opt == OPT_GROW_BITMAP_CHUNK) {
			if (parse_size(optarg, &g->bitmap_chunk) ||
			    !g->bitmap_chunk || g->bitmap_chunk % 512 ||
			    g->bitmap_chunk >> 9 > UINT32_MAX)
				return usage_error(c, "bad bitmap chunk size '%s': a power of two of 512 bytes or more, with K, M, G, T suffixes",
						   optarg);
			continue;
		}
		if (opt == 'n') {
			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || !v ||
			    v > STRIA_MAX_MEMBERS)
				return usage_error(c, "--raid-devices takes a member count, 1 to %u: '%s'",
						   STRIA_MAX_MEMBERS, optarg);
			g->nr = (uint32_t)v;
			continue;
		}
		ret = common_opt(c, opt);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * STRIA_IOC_GROW @req on @arr, when the loaded module has @feat (else
 * @old is the error). Returns EXIT_OK with the control device open in
 * *@fd, or the exit status, the reason printed.
 */
static int grow_ioctl(struct ctx *c, const char *arr, uint64_t feat,
		      const char *old, struct stria_ioc_grow *req, int *fd)
{
	struct stria_ioc_info info;
	int ret, err;

	ret = module_info(c, &info);
	if (ret)
		return ret;
	if (!(info.features & feat)) {
		err_msg(c, "%s", old);
		return EXIT_FAIL;
	}
	*fd = open_control(c);
	if (*fd < 0)
		return -*fd;
	ret = ioctl(*fd, STRIA_IOC_GROW, req);
	err = errno;
	if (ret) {
		close(*fd);
		return report_ctl_error(c, arr, req->msg, err, NULL);
	}
	return EXIT_OK;
}

/* grow NAME --bitmap internal|none [--bitmap-chunk SIZE] */
static int grow_bitmap(struct ctx *c, const char *arr, const char *name,
		       uint32_t index, const struct grow_opts *g)
{
	struct stria_ioc_grow req;
	struct stria_ioc_query q;
	uint64_t regions;
	char size[32];
	int fd, ret, err;

	grow_req_init(&req, name, index, 0, 0);
	req.op = STRIA_GROW_BITMAP;
	req.bitmap = g->bitmap ? STRIA_GROW_BITMAP_INTERNAL :
				 STRIA_GROW_BITMAP_NONE;
	req.bitmap_chunk = (uint32_t)(g->bitmap_chunk >> 9);
	ret = grow_ioctl(c, arr, STRIA_FEAT_GROW_BITMAP,
			 "the loaded stria module cannot add or remove a bitmap of a running array: load a newer one",
			 &req, &fd);
	if (ret)
		return ret;
	if (!g->bitmap) {
		close(fd);
		printf("%s has no write-intent bitmap now: after a crash it resyncs in full\n",
		       arr);
		return EXIT_OK;
	}
	err = query_array(fd, name[0] ? name : NULL, index, 0, &q, NULL, NULL, 0);
	close(fd);
	if (err || !q.bitmap_chunk) {
		printf("%s has a write-intent bitmap now\n", arr);
		return EXIT_OK;
	}
	fmt_size((uint64_t)q.bitmap_chunk << 9, size, sizeof(size));
	regions = stria_bitmap_regions(q.member_sectors, q.bitmap_chunk);
	printf("%s has a write-intent bitmap now: %s per region (%llu region%s)\n",
	       arr, size, (unsigned long long)regions, regions == 1 ? "" : "s");
	if (g->bitmap_chunk && g->bitmap_chunk != (uint64_t)q.bitmap_chunk << 9)
		printf("note: the region is larger than asked, so that the bitmap fits before the data area\n");
	return EXIT_OK;
}

/* grow NAME --size max|SIZE */
static int grow_size(struct ctx *c, const char *arr, const char *name,
		     uint32_t index, const struct grow_opts *g)
{
	struct stria_ioc_grow req;
	struct stria_ioc_query q;
	char per[32], all[32];
	int fd, ret, err;

	grow_req_init(&req, name, index, 0, 0);
	req.op = STRIA_GROW_SIZE;
	req.member_sectors = g->size_bytes >> 9;
	ret = grow_ioctl(c, arr, STRIA_FEAT_GROW_SIZE,
			 "the loaded stria module cannot grow arrays into larger members: load a newer one",
			 &req, &fd);
	if (ret)
		return ret;
	err = query_array(fd, name[0] ? name : NULL, index, 0, &q, NULL, NULL, 0);
	close(fd);
	fmt_size(req.member_sectors << 9, per, sizeof(per));
	if (err) {
		printf("%s uses %s of each member now\n", arr, per);
		return EXIT_OK;
	}
	fmt_size(q.array_sectors << 9, all, sizeof(all));
	printf("%s uses %s of each member now: %s in all (/dev/stria%u); grow the file system on it (resize2fs, xfs_growfs)\n",
	       arr, per, all, q.index);
	return EXIT_OK;
}

int cmd_grow(struct ctx *c, int argc, char **argv)
{
	struct stria_ioc_member_op mreq;
	struct stria_ioc_info info;
	struct stria_ioc_grow req;
	struct stria_ioc_query q;
	char name[STRIA_NAME_LEN] = "";
	struct grow_opts g = { .bitmap = -1 };
	uint32_t index = 0, nr, (*num)[2] = NULL;
	int fd = -1, add, ndev, i, ret, err, status = EXIT_FAIL;
	const char *arr;
	char **devs;

	ret = parse_grow_opts(c, argc, argv, &g);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	add = g.add;
	nr = g.nr;
	if (argc - optind < 1)
		return usage_error(c, "give the array, then --add DEV..., --raid-devices N, --size max or --bitmap internal|none");
	arr = argv[optind];
	devs = argv + optind + 1;
	ndev = argc - optind - 1;
	if (resolve_array(arr, name, &index))
		return usage_error(c, "'%s' is not an array name or /dev/striaN", arr);
	if (g.bitmap_chunk && g.bitmap != 1)
		return usage_error(c, "--bitmap-chunk sets the region size of a bitmap to add: give --bitmap internal with it");
	if (g.bitmap >= 0 && (add || nr || ndev || g.size))
		return usage_error(c, "--bitmap changes the bitmap alone: add members or grow the size in another grow");
	if (g.bitmap >= 0)
		return grow_bitmap(c, arr, name, index, &g);
	if (g.size && (add || nr || ndev))
		return usage_error(c, "--size grows the members' size alone: add members in another grow");
	if (g.size)
		return grow_size(c, arr, name, index, &g);
	if (add && !ndev)
		return usage_error(c, "--add needs at least one device");
	if (!add && ndev)
		return usage_error(c, "devices to add follow --add: '%s'", devs[0]);
	if (!add && !nr)
		return usage_error(c, "nothing to grow: give --add DEV..., --raid-devices N, --size max or --bitmap internal|none");
	num = calloc((size_t)ndev + 1, sizeof(*num));
	if (!num) {
		err_msg(c, "out of memory");
		return EXIT_FAIL;
	}
	for (i = 0; i < ndev; i++) {
		ret = member_devnum(c, devs[i], &num[i][0], &num[i][1]);
		if (ret) {
			status = ret;
			goto out;
		}
	}
	ret = module_info(c, &info);
	if (ret) {
		status = ret;
		goto out;
	}
	if (!(info.features & STRIA_FEAT_GROW_MIRROR)) {
		err_msg(c, "the loaded stria module cannot grow arrays: load a newer one");
		goto out;
	}
	fd = open_control(c);
	if (fd < 0) {
		status = -fd;
		goto out;
	}
	err = query_array(fd, name[0] ? name : NULL, index, 0, &q, NULL, NULL, 0);
	if (err) {
		if (err == ENOENT) {
			err_msg(c, "%s: no such array is running", arr);
			status = EXIT_NOTFOUND;
		} else {
			err_msg(c, "%s: %s", arr, strerror(err));
		}
		goto out;
	}
	if (!nr)
		nr = q.nr_members + (uint32_t)ndev;
	if (nr < q.nr_members + (uint32_t)ndev) {
		status = usage_error(c, "--raid-devices %u is fewer than the %u members of %s and the %d devices to add",
				     nr, q.nr_members, arr, ndev);
		goto out;
	}
	/* refused for anything but the spares? then add none */
	grow_req_init(&req, name, index, nr, STRIA_GROW_F_CHECK);
	if (ndev && ioctl(fd, STRIA_IOC_GROW, &req)) {
		status = report_ctl_error(c, arr, req.msg, errno, NULL);
		goto out;
	}
	for (i = 0; i < ndev; i++) {
		/* a RAID0 takes a device only for a grow (it rebuilds nothing) */
		err = member_op(fd, STRIA_MEMBER_OP_ADD,
				info.features & STRIA_FEAT_GROW_RESTRIPE ?
				STRIA_MEMBER_F_GROW : 0, name, index,
				num[i][0], num[i][1], &mreq);
		if (!err && mreq.role != STRIA_NO_MEMBER) {
			/* it took a role that failed meanwhile: it stays there */
			err_msg(c, "%s took the role of failed member %u of %s and is being rebuilt: the array did not grow",
				devs[i], mreq.role, arr);
			undo_adds(c, fd, name, index, devs, num, i);
			goto out;
		}
		if (err) {
			report_ctl_error(c, devs[i], mreq.msg, err, NULL);
			undo_adds(c, fd, name, index, devs, num, i);
			goto out;
		}
	}
	grow_req_init(&req, name, index, nr, 0);
	if (ioctl(fd, STRIA_IOC_GROW, &req)) {
		status = report_ctl_error(c, arr, req.msg, errno, NULL);
		undo_adds(c, fd, name, index, devs, num, ndev);
		goto out;
	}
	if (q.level == 0)
		printf("%s is being restriped from %u to %u members; its size grows when that ends ('striactl status' shows the progress, 'striactl wait' waits for it)\n",
		       arr, q.nr_members, nr);
	else
		printf("%s grows from %u to %u members; the new ones are being rebuilt ('striactl status' shows the progress, 'striactl wait' waits for it)\n",
		       arr, q.nr_members, nr);
	status = EXIT_OK;
out:
	if (fd >= 0)
		close(fd);
	free(num);
	return status;
}
