// SPDX-License-Identifier: GPL-2.0
/*
 * striactl create, assemble, stop, fail, add, remove, scrub and wait.
 *
 * The module checks every request itself and says why it refuses one
 * (stria_ioc_array.msg); striactl adds what only user space can do: size
 * suffixes, showing what is on a device before overwriting it, and finding
 * members by superblock for --scan and --incremental.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include <linux/stria.h>

#include "striactl.h"
#include "config.h"
#include "ondisk.h"
#include "stripe_range.h"

/* long options without a short form */
enum { OPT_BITMAP_CHUNK = 256, OPT_HOMEHOST, OPT_CONFIG, OPT_READONLY };

/*
 * A line in the system log, for what udev runs (--incremental): udev keeps
 * a program's output only at debug level.
 */
static void log_at(int prio, const char *fmt, va_list ap)
{
	openlog("striactl", LOG_PID, LOG_DAEMON);
	vsyslog(prio, fmt, ap);
	closelog();
}

static void log_notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void log_notice(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_at(LOG_NOTICE, fmt, ap);
	va_end(ap);
}

/* The same for what an operator must act on: an array that did not start. */
static void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void log_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_at(LOG_ERR, fmt, ap);
	va_end(ap);
}

/*
 * Read stria.conf: @path (--config) must exist; the default file may be
 * missing (an empty configuration). A bad file is an error: nothing is
 * done with a configuration only half understood.
 */
static int load_conf(struct ctx *c, const char *path, struct stria_conf *conf,
		     int to_syslog)
{
	char err[512];
	int ret;

	ret = conf_parse_file(path ? path : STRIA_CONF_PATH, conf, err,
			      sizeof(err));
	if (!ret || (ret == -ENOENT && !path))
		return EXIT_OK;
	err_msg(c, "%s; nothing was done", err);
	if (to_syslog)
		log_notice("%s; no array is started automatically until it is fixed", err);
	return EXIT_FAIL;
}

/*
 * This host's identity (conf_homehost()). Returns the CONF_HOMEHOST_* kind,
 * or -1 after saying why.
 */
static int this_host(struct ctx *c, const struct stria_conf *conf,
		     const char *opt, char *host)
{
	char sysname[HOST_NAME_MAX + 1] = "", err[512];
	int kind;

	if (gethostname(sysname, sizeof(sysname)))
		sysname[0] = '\0';
	sysname[HOST_NAME_MAX] = '\0';
	kind = conf_homehost(conf, opt, sysname, host, err, sizeof(err));
	if (kind < 0)
		err_msg(c, "%s; nothing was done", err);
	return kind;
}

/* --homehost and --config, which create and assemble take. */
struct host_opts {
	const char *homehost;
	const char *config;
};

/* Is @opt one of struct host_opts'? Then it is stored. */
static int host_opt(int opt, struct host_opts *h)
{
	if (opt == OPT_HOMEHOST)
		h->homehost = optarg;
	else if (opt == OPT_CONFIG)
		h->config = optarg;
	return opt == OPT_HOMEHOST || opt == OPT_CONFIG;
}

/*
 * What the loaded module is and supports, into @info. Returns EXIT_OK, or
 * the exit code when it cannot be asked (EXIT_NOMODULE: not loaded), the
 * reason printed.
 */
int module_info(struct ctx *c, struct stria_ioc_info *info)
{
	int fd, ret;

	fd = open_control(c);
	if (fd < 0)
		return -fd;
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	ret = ioctl(fd, STRIA_IOC_INFO, info);
	close(fd);
	if (ret) {
		err_msg(c, "STRIA_IOC_INFO failed: %s", strerror(errno));
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/* Report a failed CREATE/ASSEMBLE: the module's reason, else errno. */
static int report_array_error(struct ctx *c, const struct stria_ioc_array *req,
			      int err)
{
	char msg[STRIA_MSG_LEN + 1];

	memcpy(msg, req->msg, STRIA_MSG_LEN);
	msg[STRIA_MSG_LEN] = '\0';
	if (msg[0])
		err_msg(c, "%s", msg);
	else if (err == EPERM || err == EACCES)
		err_msg(c, "permission denied: stria needs root (CAP_SYS_ADMIN)");
	else
		err_msg(c, "failed: %s", strerror(err));
	return EXIT_FAIL;
}

static int do_array_ioctl(struct ctx *c, unsigned long cmd,
			  struct stria_ioc_array *req)
{
	int fd, ret;

	fd = open_control(c);
	if (fd < 0)
		return -fd;
	ret = ioctl(fd, cmd, req);
	if (ret)
		ret = report_array_error(c, req, errno);
	close(fd);
	return ret;
}

/* The module's and the on-disk rule for names (ondisk.h). */
static int name_ok(const char *name)
{
	char buf[STRIA_SB_NAME_LEN] = "";

	if (strlen(name) >= sizeof(buf))
		return 0;
	strcpy(buf, name);
	return stria_name_valid(buf);
}

/*
 * RAID level: 0, 1, 5, 6 or 10, also as raid0 ... raid10, and "mirror" for
 * 1 (mdadm's names). Returns -1 otherwise.
 */
static int parse_level(const char *s)
{
	if (!strcmp(s, "mirror"))
		return 1;
	if (!strncmp(s, "raid", 4))
		s += 4;
	if (!strcmp(s, "0"))
		return 0;
	if (!strcmp(s, "1"))
		return 1;
	if (!strcmp(s, "10"))
		return 10;
	if (!strcmp(s, "5"))
		return 5;
	if (!strcmp(s, "6"))
		return 6;
	return -1;
}

/*
 * RAID10 layouts as mdadm spells them: n2..n4, f2..f4, o2..o4. Returns
 * the layout word, or -1.
 */
static int parse_mirror_layout(const char *s)
{
	int copies;

	if (strlen(s) != 2 || s[1] < '2' || s[1] > '4')
		return -1;
	copies = s[1] - '0';
	switch (s[0]) {
	case 'n':
		return (int)STRIA_R10_LAYOUT(copies, 1, 0);
	case 'f':
		return (int)STRIA_R10_LAYOUT(1, copies, 0);
	case 'o':
		return (int)STRIA_R10_LAYOUT(1, copies, 1);
	default:
		return -1;
	}
}

/* md's layout names and short forms. Returns STRIA_PARITY_*, or -1. */
static int parse_layout(const char *s)
{
	static const struct {
		const char *name, *abbrev;
		int layout;
	} layouts[] = {
		{ "left-asymmetric", "la", STRIA_PARITY_LEFT_ASYMMETRIC },
		{ "right-asymmetric", "ra", STRIA_PARITY_RIGHT_ASYMMETRIC },
		{ "left-symmetric", "ls", STRIA_PARITY_LEFT_SYMMETRIC },
		{ "right-symmetric", "rs", STRIA_PARITY_RIGHT_SYMMETRIC },
	};
	size_t i;

	for (i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (!strcmp(s, layouts[i].name) || !strcmp(s, layouts[i].abbrev))
			return layouts[i].layout;
	return -1;
}

/*
 * Does the loaded module support what a create of @level needs? Prints why
 * not. Returns EXIT_OK or an EXIT_* code.
 */
static int check_module_level(struct ctx *c, int level,
			      const struct stria_ioc_info *info)
{
	uint64_t want = level == 6 ? STRIA_FEAT_RAID6 :
			level == 5 ? STRIA_FEAT_RAID5 : STRIA_FEAT_MIRROR;

	if (level && !(info->features & want)) {
		err_msg(c, "the loaded stria module (%.31s) does not support RAID%d: load a newer one",
			info->version, level);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/* --bitmap: mdadm's spelling. Returns 1 internal, 0 none, -1 otherwise. */
int parse_bitmap(const char *s)
{
	if (!strcmp(s, "internal"))
		return 1;
	if (!strcmp(s, "none"))
		return 0;
	return -1;
}

/*
 * The bitmap create gave a RAID5/6 array: what it is, and when the module
 * chose a larger region than @asked (bytes, 0 for the default) so that the
 * bitmap fits before the data area, that too.
 */
static void print_bitmap(struct ctx *c, const struct stria_ioc_array *req,
			 uint64_t asked)
{
	struct stria_ioc_query q;
	char size[32], want[32];
	uint64_t regions;
	int fd;

	if (!req->bitmap_chunk) {
		printf("bitmap: none\n");
		return;
	}
	fmt_size((uint64_t)req->bitmap_chunk << 9, size, sizeof(size));
	fd = open_control(c);
	if (fd >= 0 && !query_array(fd, NULL, req->index, 0, &q, NULL, NULL, 0)) {
		regions = stria_bitmap_regions(q.member_sectors,
					       req->bitmap_chunk);
		printf("bitmap: internal, %s per region (%llu region%s)\n",
		       size, (unsigned long long)regions,
		       regions == 1 ? "" : "s");
	} else {
		printf("bitmap: internal, %s per region\n", size);
	}
	if (fd >= 0)
		close(fd);
	if (asked && asked != (uint64_t)req->bitmap_chunk << 9) {
		fmt_size(asked, want, sizeof(want));
		printf("note: the bitmap region is %s rather than %s, so that the bitmap fits before the data area\n",
		       size, want);
	}
}

/* "created" or "assembled", and the home host when @host names one */
static void print_started(const struct stria_ioc_array *req, const char *verb,
			  const char *host)
{
	char u[40];

	uuid_fmt(req->uuid, u);
	if (host && host[0])
		printf("%s /dev/stria%u: array '%s' (uuid %s, home host %s)\n",
		       verb, req->index, req->name, u, host);
	else
		printf("%s /dev/stria%u: array '%s' (uuid %s)\n", verb,
		       req->index, req->name, u);
}

/*
 * Members of different sizes: each gives as much as the smallest (@min
 * bytes, superblock area included), so say what the array holds, from the
 * module's own geometry (RAID1 and RAID10: every chunk once per copy).
 */
static void print_mixed_sizes(int lvl, int lay, int n, uint64_t chunk,
			      uint64_t min, uint64_t max)
{
	char smin[32], smax[32], stot[32], per_copy[32] = "";
	struct stria_geom g;
	uint32_t layout = lvl == 1 ? stria_r10_layout(n, 1, false) :
			  lay >= 0 ? (uint32_t)lay :
			  lvl == 10 ? stria_r10_layout(2, 1, false) : 0;
	unsigned int copies = 1;

	if (stria_geom_setup(&g, lvl, layout, n, chunk >> 9,
			     (min >> 9) - STRIA_SB_DATA_OFFSET))
		return;
	if (stria_geom_mirror(&g)) {
		copies = stria_r10_copies(&g.r10);
		snprintf(per_copy, sizeof(per_copy), " / %u copies", copies);
	}
	fmt_size(min, smin, sizeof(smin));
	fmt_size(max, smax, sizeof(smax));
	fmt_size(stria_geom_array_sectors(&g) << 9, stot, sizeof(stot));
	printf("note: members differ in size (%s to %s); each contributes as much as the smallest, so the capacity is about %u x %s%s = %s\n",
	       smin, smax, copies > 1 ? (unsigned int)n : stria_geom_nr_data(&g),
	       smin, per_copy, stot);
}

int cmd_create(struct ctx *c, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "level", required_argument, NULL, 'l' },
		{ "layout", required_argument, NULL, 'p' },
		{ "chunk", required_argument, NULL, 'c' },
		{ "bitmap", required_argument, NULL, 'b' },
		{ "bitmap-chunk", required_argument, NULL, OPT_BITMAP_CHUNK },
		{ "numa-node", required_argument, NULL, 'n' },
		{ "force", no_argument, NULL, 'f' },
		{ "yes", no_argument, NULL, 'y' },
		{ "homehost", required_argument, NULL, OPT_HOMEHOST },
		{ "config", required_argument, NULL, OPT_CONFIG },
		COMMON_LONGOPTS, { 0 }
	};
	struct host_opts ho = { NULL, NULL };
	char host[CONF_HOST_LEN];
	struct stria_conf conf;
	struct stria_ioc_array req;
	struct stria_ioc_info info;
	uint64_t chunk = 64 << 10, bm_chunk = 0, sz, min = ~0ULL, max = 0;
	const char *level = NULL, *layout = NULL, *bitmap = NULL, *name;
	int opt, ret, force = 0, yes = 0, i, n, lvl, lay = -1, min_members;
	int bm = -1;
	uint64_t *ptrs;
	char buf[200], smin[32];
	long node = -1;
	char *end;

	while ((opt = getopt_long(argc, argv, "l:p:c:b:n:fyh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'l':
			level = optarg;
			break;
		case 'p':
			layout = optarg;
			break;
		case 'c':
			if (parse_size(optarg, &chunk))
				return usage_error(c, "bad chunk size '%s'", optarg);
			break;
		case 'b':
			bitmap = optarg;
			bm = parse_bitmap(optarg);
			if (bm < 0)
				return usage_error(c, "unknown --bitmap '%s': use internal or none",
						   optarg);
			break;
		case OPT_BITMAP_CHUNK:
			if (parse_size(optarg, &bm_chunk) || !bm_chunk)
				return usage_error(c, "bad bitmap chunk size '%s'",
						   optarg);
			break;
		case 'n':
			node = strtol(optarg, &end, 10);
			if (*end || node < 0 || node > 1023)
				return usage_error(c, "bad NUMA node '%s'", optarg);
			break;
		case 'f':
			force = 1;
			break;
		case 'y':
			yes = 1;
			break;
		default:
			if (host_opt(opt, &ho))
				break;
			ret = common_opt(c, opt);
			if (ret)
				return ret < 0 ? EXIT_OK : ret;
		}
	}
	if (optind >= argc)
		return usage_error(c, "missing array NAME");
	name = argv[optind++];
	n = argc - optind;
	if (!name_ok(name))
		return usage_error(c, "invalid array name '%s': use 1 to 31 characters from A-Z a-z 0-9 . _ - (not starting with . or -)",
				   name);
	if (!level)
		return usage_error(c, "missing --level (0, 1, 5, 6 or 10)");
	lvl = parse_level(level);
	if (lvl < 0) {
		err_msg(c, "RAID level '%s' is not supported (supported: 0, 1, 5, 6, 10)", level);
		return EXIT_USAGE;
	}
	if (layout && (!lvl || lvl == 1)) {
		err_msg(c, "RAID%d has %s: --layout is for levels 5, 6 and 10",
			lvl, lvl ? "one layout, a copy on each member" : "no parity layout");
		return EXIT_USAGE;
	}
	if (layout && lvl == 10) {
		lay = parse_mirror_layout(layout);
		if (lay < 0) {
			err_msg(c, "unknown RAID10 layout '%s': use n2, n3, n4 (near copies), f2, f3, f4 (far) or o2, o3, o4 (offset)",
				layout);
			return EXIT_USAGE;
		}
	} else if (layout) {
		lay = parse_layout(layout);
		if (lay < 0) {
			err_msg(c, "unknown layout '%s': use left-asymmetric (la), right-asymmetric (ra), left-symmetric (ls) or right-symmetric (rs)",
				layout);
			return EXIT_USAGE;
		}
	}
	if (chunk & (chunk - 1) || chunk < 4096 || chunk > (1 << 20)) {
		err_msg(c, "chunk size %llu bytes is invalid: it must be a power of two from 4K to 1M",
			(unsigned long long)chunk);
		return EXIT_USAGE;
	}
	if (!lvl && (bm > 0 || bm_chunk)) {
		err_msg(c, "RAID0 has no redundancy to resync and keeps no write-intent bitmap: %s is for levels 1, 5, 6 and 10",
			bm > 0 ? "--bitmap internal" : "--bitmap-chunk");
		return EXIT_USAGE;
	}
	if (!bm && bm_chunk) {
		err_msg(c, "--bitmap-chunk sets the region size of a write-intent bitmap, --bitmap %s asks for none: give one of them",
			bitmap);
		return EXIT_USAGE;
	}
	if (bm_chunk && (bm_chunk & (bm_chunk - 1) || bm_chunk % 512 ||
			 bm_chunk < chunk ||
			 bm_chunk > (uint64_t)STRIA_SB_BITMAP_MAX_CHUNK << 9)) {
		fmt_size(chunk, smin, sizeof(smin));
		err_msg(c, "bitmap chunk size %llu bytes is invalid: it must be a power of two from the chunk size (%s) to 1T",
			(unsigned long long)bm_chunk, smin);
		return EXIT_USAGE;
	}
	min_members = lvl == 6 ? 4 : lvl == 5 ? 3 : 2;
	if (n < 2) {
		err_msg(c, "an array needs at least 2 member devices, %d given", n);
		return EXIT_USAGE;
	}
	if (n < min_members) {
		err_msg(c, "RAID%d needs at least %d member devices, %d given",
			lvl, min_members, n);
		return EXIT_USAGE;
	}
	if (n > STRIA_MAX_MEMBERS) {
		err_msg(c, "an array has at most %d members, %d given",
			STRIA_MAX_MEMBERS, n);
		return EXIT_USAGE;
	}

	/* every level needs the module: ask it once, before anything else */
	ret = module_info(c, &info);
	if (!ret)
		ret = check_module_level(c, lvl, &info);
	if (ret)
		return ret;
	/* the home host: --homehost, else HOMEHOST, else the host's name */
	ret = load_conf(c, ho.config, &conf, 0);
	if (ret)
		return ret;
	ret = this_host(c, &conf, ho.homehost, host);
	conf_free(&conf);
	if (ret < 0)
		return EXIT_USAGE;
	if (ret != CONF_HOMEHOST_NAME)
		host[0] = '\0';
	if (host[0] && !(info.features & STRIA_FEAT_HOMEHOST)) {
		if (ho.homehost) {
			err_msg(c, "the loaded stria module predates home hosts (--homehost): load a newer one, or give --homehost '<none>'");
			return EXIT_FAIL;
		}
		fprintf(stderr, "note: the loaded stria module predates home hosts: the array records none\n");
		host[0] = '\0';
	}

	/* Show what would be overwritten; only --force or a "yes" goes on. */
	for (i = 0; i < n; i++) {
		const char *dev = argv[optind + i];

		if (dev_size(dev, &sz)) {
			err_msg(c, "%s: %s", dev, strerror(errno));
			return EXIT_FAIL;
		}
		min = sz < min ? sz : min;
		max = sz > max ? sz : max;
		if (!foreign_signature(dev, buf, sizeof(buf)))
			continue;
		fprintf(stderr, "%s: %s has %s\n", c->prog, dev, buf);
		if (force)
			continue;
		if (!yes && confirm("Overwrite it?"))
			continue;
		err_msg(c, "%s holds data; nothing was changed (use --force to overwrite it)",
			dev);
		return EXIT_FAIL;
	}

	ptrs = calloc(n, sizeof(*ptrs));
	if (!ptrs)
		return EXIT_FAIL;
	for (i = 0; i < n; i++)
		ptrs[i] = (uintptr_t)argv[optind + i];
	memset(&req, 0, sizeof(req));
	req.size = sizeof(req);
	req.level = (uint32_t)lvl;
	if (lay >= 0) {
		req.flags |= STRIA_ARRAY_F_LAYOUT;
		req.layout = (uint32_t)lay;
	}
	req.chunk_sectors = (uint32_t)(chunk >> 9);
	if (lvl && !bm)
		req.flags |= STRIA_ARRAY_F_NO_BITMAP;
	req.bitmap_chunk = (uint32_t)(bm_chunk >> 9);
	req.nr_members = n;
	req.numa_node = node < 0 ? STRIA_NODE_AUTO : (uint32_t)node;
	req.members = (uintptr_t)ptrs;
	strncpy(req.name, name, sizeof(req.name) - 1);
	if (host[0])
		req.homehost = (uintptr_t)host;
	ret = do_array_ioctl(c, STRIA_IOC_CREATE, &req);
	free(ptrs);
	req.msg[STRIA_MSG_LEN - 1] = '\0';
	/* a module from before the bitmap refuses the flag and the field */
	if (ret && (req.flags & STRIA_ARRAY_F_NO_BITMAP || req.bitmap_chunk) &&
	    (strstr(req.msg, "unknown flags") || strstr(req.msg, "reserved")))
		fprintf(stderr, "note: the loaded stria module may predate the write-intent bitmap (--bitmap, --bitmap-chunk): load a newer one\n");
	if (ret)
		return ret;
	print_started(&req, "created", host);
	if (lvl)
		print_bitmap(c, &req, bm_chunk);
	if (max - min >= chunk)
		print_mixed_sizes(lvl, lay, n, chunk, min, max);
	return EXIT_OK;
}

/*
 * After a start with --run: when the array runs degraded, which roles have
 * no current device and how to give them one.
 */
static void report_degraded(int fd, const struct stria_ioc_array *req)
{
	struct stria_ioc_member m[STRIA_MAX_MEMBERS + STRIA_MAX_SPARES];
	struct stria_ioc_query q;
	char roles[ROLES_BUF_LEN];
	uint64_t failed = 0;
	uint32_t i;

	if (query_array(fd, NULL, req->index, 0, &q, m, NULL, 0) ||
	    q.state == STRIA_STATE_ACTIVE)
		return;
	for (i = 0; i < q.nr_members && i < STRIA_MAX_MEMBERS; i++)
		if (m[i].state != STRIA_STATE_ACTIVE)
			failed |= 1ULL << i;
	printf("array '%s' runs degraded: member%s %s missing or failed, recorded so in the superblocks; 'striactl add %s DEV' rebuilds onto a new or returning drive\n",
	       req->name, q.nr_failed > 1 ? "s" : "", fmt_roles(failed, roles),
	       req->name);
}

static int array_running(int fd, const uint8_t *uuid);

/*
 * Assemble @name from @paths. @incremental: the UUID of the array udev's
 * --incremental starts, else NULL. Then the same array started meanwhile
 * by another member's event is no failure, and a name or UUID another
 * array has goes to the system log too, where an operator sees it: udev
 * keeps a program's stderr only at debug level.
 */
static int assemble_paths(struct ctx *c, const char *name, int n,
			  char **paths, const uint8_t *incremental,
			  uint32_t flags)
{
	char host[STRIA_HOST_LEN];
	struct stria_ioc_array req;
	uint64_t *ptrs;
	int i, fd, ret, err;

	ptrs = calloc(n, sizeof(*ptrs));
	if (!ptrs)
		return EXIT_FAIL;
	for (i = 0; i < n; i++)
		ptrs[i] = (uintptr_t)paths[i];
	memset(&req, 0, sizeof(req));
	req.size = sizeof(req);
	req.flags = flags;
	req.nr_members = n;
	req.numa_node = STRIA_NODE_AUTO;
	req.members = (uintptr_t)ptrs;
	if (name)
		strncpy(req.name, name, sizeof(req.name) - 1);
	fd = open_control(c);
	if (fd < 0) {
		free(ptrs);
		return -fd;
	}
	ret = ioctl(fd, STRIA_IOC_ASSEMBLE, &req);
	err = ret ? errno : 0;
	if (incremental && (err == EALREADY ||
			    (err == EEXIST && array_running(fd, incremental)))) {
		/* another member's event started this array meanwhile */
		ret = EXIT_OK;
	} else if (ret) {
		ret = report_array_error(c, &req, err);
		req.msg[STRIA_MSG_LEN - 1] = '\0';
		if (incremental && err == EEXIST)
			log_error("array '%s' not started: %s; another array has its name or UUID (a second array of that name, or a disk that copies one): stop one of them, or assemble this one by hand after the other is stopped",
				  name, req.msg);
		if (err == EUCLEAN)
			fprintf(stderr, "note: writes cut short by the crash may have left stripes whose parity does not match their data; a missing member's data would be rebuilt wrong there, silently. --readonly assembles it without writing anything, to look first\n");
		else if ((flags & STRIA_ARRAY_F_READONLY) &&
			 strstr(req.msg, "unknown flags"))
			fprintf(stderr, "note: the loaded stria module predates --readonly: load a newer one\n");
		else if (err == ENODEV && !(flags & STRIA_ARRAY_F_RUN))
			fprintf(stderr, "note: --run starts the array without its missing members, when its level tolerates that (RAID5: 1, RAID6: 2; RAID1, RAID10: while each chunk keeps a copy)\n");
		else if ((flags & STRIA_ARRAY_F_RUN) &&
			 strstr(req.msg, "unknown flags"))
			fprintf(stderr, "note: the loaded stria module predates --run: load a newer one\n");
	} else {
		array_homehost(req.index, host, sizeof(host));
		print_started(&req, flags & STRIA_ARRAY_F_READONLY ?
			      "assembled read-only" : "assembled", host);
		if (flags & STRIA_ARRAY_F_READONLY)
			printf("nothing is written to its members until 'striactl readwrite %s'\n",
			       req.name);
		if (flags & STRIA_ARRAY_F_RUN)
			report_degraded(fd, &req);
	}
	close(fd);
	free(ptrs);
	return ret;
}

/* A device seen by scanning: every copy, newest or not. */
struct seen {
	char *path;
	uint32_t role;		/* or STRIA_SB_ROLE_SPARE */
	uint64_t events;
	struct seen *next;
};

/* Members found by scanning, grouped by array. */
struct found {
	uint8_t uuid[STRIA_UUID_LEN];
	char name[STRIA_NAME_LEN];
	char homehost[STRIA_HOST_LEN];
	uint32_t nr_members;
	uint64_t events;	/* the highest seen */
	uint64_t failed;	/* the failed roles that superblock records */
	char *paths[STRIA_MAX_MEMBERS + STRIA_MAX_SPARES];	/* by role */
	uint64_t ev[STRIA_MAX_MEMBERS];
	uint32_t nr_spares;	/* after the roles, at paths[nr_members] */
	struct seen *seen;	/* every device of the array */
	struct found *next;
};

static void collect(const char *path, const struct stria_sb *sb, void *arg)
{
	struct found **list = arg, *f;
	struct seen *seen;
	uint32_t role = stria_le32(sb->role);
	uint64_t ev = stria_le64(sb->events);

	for (f = *list; f; f = f->next)
		if (!memcmp(f->uuid, sb->array_uuid, STRIA_UUID_LEN))
			break;
	if (!f) {
		f = calloc(1, sizeof(*f));
		if (!f)
			return;
		memcpy(f->uuid, sb->array_uuid, STRIA_UUID_LEN);
		memcpy(f->name, sb->name, STRIA_NAME_LEN);
		memcpy(f->homehost, sb->homehost, STRIA_HOST_LEN);
		f->nr_members = stria_le32(sb->nr_members);
		f->next = *list;
		*list = f;
	}
	if (ev >= f->events) {
		f->events = ev;
		f->failed = stria_le64(sb->failed);
	}
	seen = calloc(1, sizeof(*seen));
	if (seen) {
		seen->path = strdup(path);
		seen->role = role;
		seen->events = ev;
		seen->next = f->seen;
		f->seen = seen;
	}
	/* spares: the kernel leaves out those that are stale */
	if (role == STRIA_SB_ROLE_SPARE) {
		if (f->nr_members <= STRIA_MAX_MEMBERS &&
		    f->nr_spares < STRIA_MAX_SPARES)
			f->paths[f->nr_members + f->nr_spares++] = strdup(path);
		return;
	}
	/* the newest copy of a role wins; the kernel refuses stale ones */
	if (role < STRIA_MAX_MEMBERS && (!f->paths[role] || ev > f->ev[role])) {
		free(f->paths[role]);
		f->paths[role] = strdup(path);
		f->ev[role] = ev;
	}
}

/*
 * The roles with no device that the freshest superblock does not record as
 * failed: none when the array is complete.
 */
static uint64_t found_missing(const struct found *f)
{
	uint64_t missing = 0;
	uint32_t i;

	for (i = 0; i < f->nr_members && i < STRIA_MAX_MEMBERS; i++)
		if (!f->paths[i] && !(f->failed & (1ULL << i)))
			missing |= 1ULL << i;
	return missing;
}

/* Is @f the array @want names (its name or its UUID)? */
static int found_is(const struct found *f, const char *want)
{
	char u[40];

	uuid_fmt(f->uuid, u);
	return !strcmp(want, u) || !strncmp(want, f->name, sizeof(f->name));
}

/* The roles present and the spares, packed at the start of f->paths. */
static int found_pack(struct found *f)
{
	uint32_t i, n = 0;

	for (i = 0; i < f->nr_members + f->nr_spares; i++)
		if (f->paths[i])
			f->paths[n++] = f->paths[i];
	for (i = n; i < f->nr_members + f->nr_spares; i++)
		f->paths[i] = NULL;
	return (int)n;
}

/*
 * Devices whose superblock is older than the array's (they missed updates
 * while away: a failed member, a spare of an older configuration) are left
 * out of the assembly and named, with how to bring them back, as mdadm
 * names a non-fresh device it does not include. A stale member whose role
 * the array does not record as failed stays: the kernel refuses it, which
 * says more than leaving it out would.
 */
static void found_report_stale(struct found *f)
{
	const struct seen *s;
	uint32_t i;

	for (s = f->seen; s; s = s->next) {
		int spare = s->role == STRIA_SB_ROLE_SPARE;

		if (s->events >= f->events ||
		    (!spare && s->role < STRIA_MAX_MEMBERS &&
		     !(f->failed & (1ULL << s->role)) &&
		     f->paths[s->role] && !strcmp(f->paths[s->role], s->path)))
			continue;
		for (i = 0; i < f->nr_members + f->nr_spares; i++) {
			if (f->paths[i] && !strcmp(f->paths[i], s->path)) {
				free(f->paths[i]);
				f->paths[i] = NULL;
			}
		}
		if (spare)
			printf("array '%s': %s (a spare) is stale (events %llu, the array's %llu) and was left out; 'striactl add %s %s' adds it again\n",
			       f->name, s->path, (unsigned long long)s->events,
			       (unsigned long long)f->events, f->name, s->path);
		else
			printf("array '%s': %s (member %u) is stale (events %llu, the array's %llu) and was left out; 'striactl add %s %s' re-adds it\n",
			       f->name, s->path, s->role,
			       (unsigned long long)s->events,
			       (unsigned long long)f->events, f->name, s->path);
	}
}

static void found_free(struct found *f)
{
	struct found *next;
	struct seen *s, *sn;
	int i;

	for (; f; f = next) {
		next = f->next;
		for (i = 0; i < STRIA_MAX_MEMBERS + STRIA_MAX_SPARES; i++)
			free(f->paths[i]);
		for (s = f->seen; s; s = sn) {
			sn = s->next;
			free(s->path);
			free(s);
		}
		free(f);
	}
}

/* Is an array with this UUID running? */
static int array_running(int fd, const uint8_t *uuid)
{
	struct stria_ioc_query q;
	uint32_t idx = 0;

	while (!query_array(fd, NULL, idx, 1, &q, NULL, NULL, 0)) {
		if (!memcmp(q.uuid, uuid, STRIA_UUID_LEN))
			return 1;
		idx = q.index + 1;
	}
	return 0;
}

/* What assemble --scan and --incremental go by: stria.conf and the host. */
struct policy {
	struct stria_conf conf;
	int kind;			/* CONF_HOMEHOST_* */
	char host[CONF_HOST_LEN];
};

/*
 * May @f start without an operator naming its members (conf_policy())?
 * When not, says why and how to allow it: on stderr, and for udev's
 * --incremental in the system log too, where nobody reads stderr.
 */
static int policy_allows(struct ctx *c, const struct policy *p,
			 const struct found *f, int incremental)
{
	struct conf_candidate cand = { f->name, f->uuid, f->homehost };
	char why[768];

	if (conf_policy(&p->conf, &cand, p->kind, p->host, why, sizeof(why))) {
		verbose_msg("array '%s': %s", f->name, why);
		return 1;
	}
	err_msg(c, "array '%s' not started: %s", f->name, why);
	if (incremental)
		log_notice("array '%s' not started: %s", f->name, why);
	return 0;
}

/*
 * --scan [ARRAY...], or --incremental @only_dev: assemble the arrays found
 * on block devices (those @want names, by name or UUID, when @nwant) that
 * the policy @p allows.
 */
static int assemble_scan(struct ctx *c, const struct policy *p,
			 const char *only_dev, uint32_t flags, char **want,
			 int nwant)
{
	struct found *list = NULL, *f;
	struct stria_sb sb;
	char why[160], roles[ROLES_BUF_LEN];
	int fd, ret = EXIT_OK, r, running, w;
	uint64_t missing;
	uint32_t have, i;

	if (only_dev) {
		char real[PATH_MAX];
		const char *what = device_excluded(realpath(only_dev, real) ?
						   real : only_dev);

		/* the same devices --scan skips (ondisk.c) */
		if (what) {
			err_msg(c, "%s is %s: no array is assembled from it automatically; name the members to start one from it ('striactl assemble NAME DEV...')",
				only_dev, what);
			log_notice("%s is %s: not assembled automatically",
				   only_dev, what);
			return EXIT_OK;
		}
		r = read_sb(only_dev, &sb, why, sizeof(why));
		if (r == -ENODATA) {
			err_msg(c, "%s: %s", only_dev, why);
			return EXIT_NOTFOUND;
		}
		if (r) {
			err_msg(c, "%s: %s", only_dev, why);
			return EXIT_FAIL;
		}
	}
	scan_devices(collect, &list);
	fd = open_control(c);
	if (fd < 0) {
		found_free(list);
		return -fd;
	}
	for (w = 0; w < nwant; w++) {
		for (f = list; f && !found_is(f, want[w]); f = f->next)
			;
		if (!f) {
			err_msg(c, "no members of array '%s' found on any block device",
				want[w]);
			ret = EXIT_NOTFOUND;
		}
	}
	for (f = list; f; f = f->next) {
		if (only_dev && memcmp(f->uuid, sb.array_uuid, STRIA_UUID_LEN))
			continue;
		for (w = 0; w < nwant && !found_is(f, want[w]); w++)
			;
		if (nwant && w == nwant)
			continue;
		running = array_running(fd, f->uuid);
		if (running) {
			if (!only_dev)
				printf("array '%s' is already running\n", f->name);
			continue;
		}
		if (!policy_allows(c, p, f, only_dev != NULL)) {
			/* refusing is the policy working; named, it failed */
			if (nwant)
				ret = EXIT_FAIL;
			continue;
		}
		found_report_stale(f);
		missing = found_missing(f);
		for (have = 0, i = 0; i < f->nr_members; i++)
			have += !!f->paths[i];
		if (missing && !(flags & STRIA_ARRAY_F_RUN)) {
			printf("array '%s': %u of %u members present, member%s %s missing, waiting for the rest\n",
			       f->name, have, f->nr_members,
			       __builtin_popcountll(missing) > 1 ? "s" : "",
			       fmt_roles(missing, roles));
			if (!only_dev)
				ret = EXIT_FAIL;
			continue;
		}
		if (missing)
			printf("array '%s': %u of %u members present, member%s %s missing: starting it without %s (--run)\n",
			       f->name, have, f->nr_members,
			       __builtin_popcountll(missing) > 1 ? "s" : "",
			       fmt_roles(missing, roles),
			       __builtin_popcountll(missing) > 1 ? "them" : "it");
		r = assemble_paths(c, f->name, found_pack(f), f->paths,
				   only_dev ? f->uuid : NULL, flags);
		if (r)
			ret = r;
	}
	close(fd);
	if (!list && !only_dev)
		printf("no stria arrays found\n");
	found_free(list);
	return ret;
}

int cmd_assemble(struct ctx *c, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "scan", no_argument, NULL, 's' },
		{ "incremental", required_argument, NULL, 'I' },
		{ "force", no_argument, NULL, 'f' },
		{ "run", no_argument, NULL, 'R' },
		{ "readonly", no_argument, NULL, OPT_READONLY },
		{ "homehost", required_argument, NULL, OPT_HOMEHOST },
		{ "config", required_argument, NULL, OPT_CONFIG },
		COMMON_LONGOPTS, { 0 }
	};
	struct host_opts ho = { NULL, NULL };
	const char *incr = NULL;
	struct policy p;
	uint32_t flags = 0;
	int opt, ret, scan = 0;

	while ((opt = getopt_long(argc, argv, "sI:fRh", longopts, NULL)) != -1) {
		switch (opt) {
		case 's':
			scan = 1;
			break;
		case 'f':
			flags |= STRIA_ARRAY_F_FORCE;
			break;
		case 'R':
			flags |= STRIA_ARRAY_F_RUN;
			break;
		case OPT_READONLY:
			flags |= STRIA_ARRAY_F_READONLY;
			break;
		case 'I':
			incr = optarg;
			break;
		default:
			if (host_opt(opt, &ho))
				break;
			ret = common_opt(c, opt);
			if (ret)
				return ret < 0 ? EXIT_OK : ret;
		}
	}
	if (scan && incr)
		return usage_error(c, "--scan and --incremental exclude each other");
	if (incr && flags)
		return usage_error(c, "%s is not for --incremental: it waits for every member; start such an array with --scan or by hand",
				   flags & STRIA_ARRAY_F_FORCE ? "--force" :
				   flags & STRIA_ARRAY_F_RUN ? "--run" :
				   "--readonly");
	if ((flags & STRIA_ARRAY_F_READONLY) && (flags & STRIA_ARRAY_F_FORCE))
		return usage_error(c, "--readonly and --force exclude each other: a read-only assembly writes nothing and needs no force; 'striactl readwrite --force' is where force goes");
	if (incr && optind != argc)
		return usage_error(c, "unexpected argument '%s'", argv[optind]);
	if (incr || scan) {
		ret = load_conf(c, ho.config, &p.conf, incr != NULL);
		if (ret)
			return ret;
		p.kind = this_host(c, &p.conf, ho.homehost, p.host);
		if (p.kind < 0) {
			conf_free(&p.conf);
			return EXIT_USAGE;
		}
		ret = assemble_scan(c, &p, incr, flags, incr ? NULL : argv + optind,
				    incr ? 0 : argc - optind);
		conf_free(&p.conf);
		return ret;
	}
	if (ho.homehost || ho.config)
		return usage_error(c, "%s is for --scan and --incremental: an array named with its members is started whatever its home host",
				   ho.homehost ? "--homehost" : "--config");
	if (argc - optind < 1)
		return usage_error(c, "missing array NAME");
	if (!name_ok(argv[optind]))
		return usage_error(c, "invalid array name '%s'", argv[optind]);
	if (argc - optind < 3) {
		err_msg(c, "an array has at least 2 members, %d given",
			argc - optind - 1);
		return EXIT_USAGE;
	}
	if (argc - optind - 1 > STRIA_MAX_MEMBERS + STRIA_MAX_SPARES) {
		err_msg(c, "an array has at most %d members and %d spares",
			STRIA_MAX_MEMBERS, STRIA_MAX_SPARES);
		return EXIT_USAGE;
	}
	return assemble_paths(c, argv[optind], argc - optind - 1,
			      argv + optind + 1, NULL, flags);
}

/* STRIA_IOC_STOP of array @name (or index @index); errno or 0. */
static int stop_one(int fd, const char *name, uint32_t index, char *msg)
{
	struct stria_ioc_stop req;
	int ret;

	memset(&req, 0, sizeof(req));
	req.size = sizeof(req);
	req.index = index;
	memcpy(req.name, name, sizeof(req.name));
	ret = ioctl(fd, STRIA_IOC_STOP, &req) ? errno : 0;
	memcpy(msg, req.msg, STRIA_MSG_LEN);
	msg[STRIA_MSG_LEN - 1] = '\0';
	return ret;
}

/*
 * How long a stop waits for an array device to be closed, in tries 200 ms
 * apart (mdadm's 5 s): udev opens an array that just appeared or changed
 * (blkid, its rules) for a moment, and a stop right after an assemble
 * would otherwise find it open.
 */
#define STOP_BUSY_TRIES 25

static void stop_pause(void)
{
	nanosleep(&(struct timespec){ .tv_nsec = 200000000 }, NULL);
}

/*
 * stop --scan, as at shutdown: every running array not in use. One in use
 * (a mounted file system, LVM, the root) stays: the module marks it clean
 * at reboot and power off. The arrays found open are tried again for
 * STOP_BUSY_TRIES in all, not each. Exit 1 only when a stop fails otherwise.
 */
static int stop_scan(struct ctx *c, int fd)
{
	struct stria_ioc_query q;
	char msg[STRIA_MSG_LEN];
	int ret = EXIT_OK, err, busy, tries = 0;
	uint32_t idx;

	do {
		if (tries)
			stop_pause();
		busy = 0;
		idx = 0;
		while (!query_array(fd, NULL, idx, 1, &q, NULL, NULL, 0)) {
			idx = q.index + 1;
			err = stop_one(fd, q.name, q.index, msg);
			if (!err) {
				printf("stopped %s (/dev/stria%u)\n", q.name, q.index);
			} else if (err == EBUSY) {
				busy++;
				if (tries + 1 == STOP_BUSY_TRIES)
					printf("%s (/dev/stria%u) is in use (mounted or held): left running; the module marks it clean at reboot and power off\n",
					       q.name, q.index);
			} else if (err != ENOENT) {
				err_msg(c, "%s: %s", q.name, msg[0] ? msg : strerror(err));
				ret = EXIT_FAIL;
			}
		}
	} while (busy && ++tries < STOP_BUSY_TRIES);
	return ret;
}

int cmd_stop(struct ctx *c, int argc, char **argv)
{
	char name[STRIA_NAME_LEN] = "", msg[STRIA_MSG_LEN];
	uint32_t index = 0;
	int fd, ret, err, scan, tries;

	ret = parse_scan_opt(c, argc, argv, &scan);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if (scan && argc != optind)
		return usage_error(c, "--scan stops every array not in use: no NAME");
	if (!scan && argc - optind != 1)
		return usage_error(c, "give one array: NAME or /dev/striaN (or --scan)");
	if (!scan && resolve_array(argv[optind], name, &index))
		return usage_error(c, "'%s' is not an array name or /dev/striaN",
				   argv[optind]);
	fd = open_control(c);
	if (fd < 0)
		return -fd;
	if (scan) {
		ret = stop_scan(c, fd);
		close(fd);
		return ret;
	}
	for (tries = 1; ; tries++) {
		err = stop_one(fd, name, index, msg);
		if (err != EBUSY || tries == STOP_BUSY_TRIES)
			break;
		stop_pause();
	}
	close(fd);
	if (!err) {
		printf("stopped %s\n", argv[optind]);
		return EXIT_OK;
	}
	if (msg[0])
		err_msg(c, "%s", msg);
	else
		err_msg(c, "%s: %s", argv[optind], strerror(err));
	return err == ENOENT ? EXIT_NOTFOUND : EXIT_FAIL;
}

/*
 * DEV as a device number: a block device node, or MAJOR:MINOR (for a member
 * whose node is gone). Prints why not; returns 0 or an EXIT_* code.
 */
int member_devnum(struct ctx *c, const char *dev, uint32_t *major,
		  uint32_t *minor)
{
	struct stat st;
	char end;

	if (sscanf(dev, "%u:%u%c", major, minor, &end) == 2)
		return EXIT_OK;
	if (stat_blockdev(c, dev, &st))
		return EXIT_FAIL;
	*major = major(st.st_rdev);
	*minor = minor(st.st_rdev);
	return EXIT_OK;
}

/*
 * Report a control ioctl that failed with @err on @what (a device or an
 * array as the user named it): @old when the loaded module is too old to
 * know the request, else the module's reason in @msg, else strerror(@err).
 * Returns the exit status: EXIT_NOTFOUND for no such array, else EXIT_FAIL.
 */
int report_ctl_error(struct ctx *c, const char *what, char *msg, int err,
		     const char *old)
{
	msg[STRIA_MSG_LEN - 1] = '\0';
	if (old)
		err_msg(c, "%s", old);
	else if (msg[0])
		err_msg(c, "%s: %s", what, msg);
	else
		err_msg(c, "%s: %s", what, strerror(err));
	return err == ENOENT ? EXIT_NOTFOUND : EXIT_FAIL;
}

int cmd_readwrite(struct ctx *c, int argc, char **argv)
{
	char name[STRIA_NAME_LEN] = "";
	struct stria_ioc_mode req;
	uint32_t index = 0;
	int fd, ret, err, force = 0;

	ret = parse_force_only(c, argc, argv, &force);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if (argc - optind != 1)
		return usage_error(c, "give one array: NAME or /dev/striaN");
	if (resolve_array(argv[optind], name, &index))
		return usage_error(c, "'%s' is not an array name or /dev/striaN",
				   argv[optind]);
	memset(&req, 0, sizeof(req));
	req.size = sizeof(req);
	req.flags = force ? STRIA_MODE_F_FORCE : 0;
	req.index = index;
	req.mode = STRIA_MODE_READWRITE;
	memcpy(req.name, name, sizeof(req.name));
	fd = open_control(c);
	if (fd < 0)
		return -fd;
	ret = ioctl(fd, STRIA_IOC_MODE, &req);
	err = errno;
	close(fd);
	if (ret) {
		ret = report_ctl_error(c, argv[optind], req.msg, err,
				       err != ENOTTY ? NULL :
				       "the loaded stria module cannot switch arrays to read-write: load a newer one");
		if (err == EUCLEAN)
			fprintf(stderr, "note: writes cut short by the crash may have left stripes whose parity does not match their data; a missing member's data would be rebuilt wrong there, silently\n");
		return ret;
	}
	printf("%s is read-write (events %llu)\n", argv[optind],
	       (unsigned long long)req.events);
	return EXIT_OK;
}

/* A STRIA_IOC_MEMBER request for @op on the array @name / @index. */
void member_req_init(struct stria_ioc_member_op *req, uint32_t op,
		     const char *name, uint32_t index)
{
	memset(req, 0, sizeof(*req));
	req->size = sizeof(*req);
	req->op = op;
	req->index = index;
	memcpy(req->name, name, sizeof(req->name));
}

/* fail's options: --force (-f), --incremental (-I) and the common ones. */
static int parse_fail_opts(struct ctx *c, int argc, char **argv, int *force,
			   int *incremental)
{
	const struct option longopts[] = {
		{ "force", no_argument, NULL, 'f' },
		{ "incremental", no_argument, NULL, 'I' },
		COMMON_LONGOPTS, { 0 }
	};
	int opt, ret;

	*force = *incremental = 0;
	while ((opt = getopt_long(argc, argv, "fIh", longopts, NULL)) != -1) {
		if (opt == 'f') {
			*force = 1;
			continue;
		}
		if (opt == 'I') {
			*incremental = 1;
			continue;
		}
		ret = common_opt(c, opt);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Find the running array that holds device @major:@minor: its name into
 * @name, the device's role (STRIA_NO_MEMBER: a spare) and state. Returns 0,
 * or ENOENT when no running array holds it.
 */
static int find_holder(int fd, uint32_t major, uint32_t minor,
		       char *name, uint32_t *role, uint32_t *state)
{
	struct stria_ioc_member m[STRIA_MAX_MEMBERS + STRIA_MAX_SPARES];
	struct stria_ioc_query q;
	uint32_t idx = 0, i, n;

	while (!query_array(fd, NULL, idx, 1, &q, m, NULL, 0)) {
		n = q.nr_members + q.nr_spares;
		if (n > STRIA_MAX_MEMBERS + STRIA_MAX_SPARES)
			n = STRIA_MAX_MEMBERS + STRIA_MAX_SPARES;
		for (i = 0; i < n; i++) {
			if (m[i].major != major || m[i].minor != minor ||
			    (!major && !minor))
				continue;
			memcpy(name, q.name, STRIA_NAME_LEN);
			name[STRIA_NAME_LEN - 1] = '\0';
			*role = m[i].role;
			*state = m[i].state;
			return 0;
		}
		idx = q.index + 1;
	}
	return ENOENT;
}

/*
 * fail --incremental DEV: DEV went away (udev's remove event, as mdadm's
 * --incremental --fail): fail it in the array that holds it, whatever the
 * array tolerates (it is gone: its next I/O would fail it anyway), and
 * remove it, so the array lets the device go; a spare is removed. Exits 0
 * when no running array holds DEV: nothing to do.
 */
static int fail_incremental(struct ctx *c, const char *dev)
{
	struct stria_ioc_member_op req;
	char name[STRIA_NAME_LEN];
	uint32_t major, minor, role, state;
	int fd, ret, err;

	ret = member_devnum(c, dev, &major, &minor);
	if (ret)
		return ret;
	/* no module, no array: do not load it for a device that went away */
	if (access("/sys/module/stria", F_OK)) {
		printf("%s: the stria module is not loaded: no array holds it\n", dev);
		return EXIT_OK;
	}
	fd = open_control(c);
	if (fd < 0)
		return -fd;
	if (find_holder(fd, major, minor, name, &role, &state)) {
		close(fd);
		printf("%s: not a member or spare of a running array: nothing to do\n", dev);
		return EXIT_OK;
	}
	if (role != STRIA_NO_MEMBER && state != STRIA_STATE_FAILED) {
		member_req_init(&req, STRIA_MEMBER_OP_FAIL, name, 0);
		req.flags = STRIA_MEMBER_F_FORCE;
		req.major = major;
		req.minor = minor;
		ret = ioctl(fd, STRIA_IOC_MEMBER, &req);
		err = errno;
		/* EALREADY: it failed meanwhile (its I/O, or the kernel saw it go) */
		if (ret && err != EALREADY) {
			close(fd);
			log_error("%s went away, but failing it in array '%s' failed: %s",
				  dev, name, req.msg[0] ? req.msg : strerror(err));
			return report_ctl_error(c, dev, req.msg, err, NULL);
		}
		if (!ret) {
			printf("failed %s (role %u) in %s: it went away\n", dev, role, name);
			log_notice("%s went away: failed member %u of array '%s'",
				   dev, role, name);
		}
	}
	member_req_init(&req, STRIA_MEMBER_OP_REMOVE, name, 0);
	req.major = major;
	req.minor = minor;
	ret = ioctl(fd, STRIA_IOC_MEMBER, &req);
	err = errno;
	close(fd);
	/* ENODEV: a spare took the failed role and the array let DEV go */
	if (ret && err != ENODEV) {
		log_error("%s went away, but removing it from array '%s' failed: %s",
			  dev, name, req.msg[0] ? req.msg : strerror(err));
		return report_ctl_error(c, dev, req.msg, err, NULL);
	}
	if (!ret) {
		printf("removed %s from %s\n", dev, name);
		log_notice("%s went away: removed it from array '%s'", dev, name);
	}
	return EXIT_OK;
}

int cmd_fail(struct ctx *c, int argc, char **argv)
{
	struct stria_ioc_member_op req;
	struct stria_ioc_query q;
	char name[STRIA_NAME_LEN] = "";
	uint32_t index = 0;
	const char *arr, *dev;
	int fd, ret, err, force = 0, incremental = 0;

	ret = parse_fail_opts(c, argc, argv, &force, &incremental);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if (incremental && force)
		return usage_error(c, "--incremental fails the device whatever its array tolerates: --force is not for it");
	if (incremental && argc - optind != 1)
		return usage_error(c, "--incremental takes the device only (node or MAJOR:MINOR): its array is the one that holds it");
	if (incremental)
		return fail_incremental(c, argv[optind]);
	if (argc - optind != 2)
		return usage_error(c, "give the array and one member device");
	arr = argv[optind];
	dev = argv[optind + 1];
	if (resolve_array(arr, name, &index))
		return usage_error(c, "'%s' is not an array name or /dev/striaN", arr);
	member_req_init(&req, STRIA_MEMBER_OP_FAIL, name, index);
	req.flags = force ? STRIA_MEMBER_F_FORCE : 0;
	ret = member_devnum(c, dev, &req.major, &req.minor);
	if (ret)
		return ret;
	fd = open_control(c);
	if (fd < 0)
		return -fd;
	ret = ioctl(fd, STRIA_IOC_MEMBER, &req);
	err = errno;
	if (ret) {
		close(fd);
		req.msg[STRIA_MSG_LEN - 1] = '\0';
		if (req.msg[0] && err == EBUSY) {
			err_msg(c, "%s: %s (--force fails it anyway, and the array with it)",
				dev, req.msg);
			return EXIT_FAIL;
		}
		return report_ctl_error(c, dev, req.msg, err, err != ENOTTY ? NULL :
					"the loaded stria module cannot fail members: load a newer one");
	}
	printf("failed %s (role %u) in %s\n", dev, req.role, arr);
	if (!query_array(fd, name[0] ? name : NULL, index, 0, &q, NULL, NULL, 0))
		printf("array '%s' (/dev/stria%u) is %s: %u of %u members failed\n",
		       q.name, q.index, array_state_name(q.state), q.nr_failed,
		       q.nr_members);
	close(fd);
	return EXIT_OK;
}

/*
 * STRIA_IOC_MEMBER @op on every DEV of "NAME DEV...": add or remove. Goes
 * on after a refused device and exits 1 when any was refused.
 */
static int member_op_each(struct ctx *c, int argc, char **argv, uint32_t op)
{
	struct stria_ioc_member_op req;
	char name[STRIA_NAME_LEN] = "";
	uint32_t index = 0;
	const char *arr;
	int fd, i, ret, err, status = EXIT_OK;

	ret = parse_common_only(c, argc, argv);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if (argc - optind < 2)
		return usage_error(c, "give the array and at least one device");
	arr = argv[optind];
	if (resolve_array(arr, name, &index))
		return usage_error(c, "'%s' is not an array name or /dev/striaN", arr);
	fd = open_control(c);
	if (fd < 0)
		return -fd;
	for (i = optind + 1; i < argc; i++) {
		member_req_init(&req, op, name, index);
		ret = member_devnum(c, argv[i], &req.major, &req.minor);
		if (ret) {
			status = ret;
			continue;
		}
		ret = ioctl(fd, STRIA_IOC_MEMBER, &req);
		err = errno;
		if (ret) {
			status = report_ctl_error(c, argv[i], req.msg, err,
						  err != EINVAL || req.msg[0] ? NULL :
						  op == STRIA_MEMBER_OP_ADD ?
						  "the loaded stria module cannot add spares: load a newer one" :
						  "the loaded stria module cannot remove spares: load a newer one");
			if (status == EXIT_NOTFOUND) {
				close(fd);
				return status;
			}
			continue;
		}
		if (op == STRIA_MEMBER_OP_REMOVE && req.role == STRIA_NO_MEMBER)
			printf("removed spare %s from %s\n", argv[i], arr);
		else if (op == STRIA_MEMBER_OP_REMOVE)
			printf("removed failed member %s (role %u) from %s\n",
			       argv[i], req.role, arr);
		else if (req.role == STRIA_NO_MEMBER)
			printf("added %s to %s as a spare\n", argv[i], arr);
		else if (req.result & STRIA_MEMBER_R_READD)
			printf("re-added %s to %s as member %u: only the regions the write-intent bitmap has dirty are rebuilt\n",
			       argv[i], arr, req.role);
		else
			printf("added %s to %s: it takes the failed role %u and is being rebuilt\n",
			       argv[i], arr, req.role);
	}
	close(fd);
	return status;
}

/*
 * "NAME|/dev/striaN OPERAND" with the common options and one option
 * --@lopt/-@sopt taking a value (*@val, else left alone). Resolves the array
 * into @name and @index and sets *@arr and *@operand. Returns 0, -1 after
 * --help (the caller exits with EXIT_OK), or the exit status to return.
 */
static int parse_array_operand(struct ctx *c, int argc, char **argv,
			       const char *lopt, int sopt, const char **val,
			       const char *missing, char *name,
			       uint32_t *index, const char **arr,
			       const char **operand)
{
	const struct option longopts[] = {
		{ lopt, required_argument, NULL, sopt },
		COMMON_LONGOPTS, { 0 }
	};
	char shortopts[8];
	int opt, ret;

	snprintf(shortopts, sizeof(shortopts), "%c:h", sopt);
	while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (opt == sopt) {
			*val = optarg;
			continue;
		}
		ret = common_opt(c, opt);
		if (ret)
			return ret;
	}
	if (argc - optind != 2)
		return usage_error(c, "%s", missing);
	*arr = argv[optind];
	*operand = argv[optind + 1];
	if (resolve_array(*arr, name, index))
		return usage_error(c, "'%s' is not an array name or /dev/striaN", *arr);
	return 0;
}

/* replace NAME OLD [--with NEW]: copy member OLD to a spare, then swap. */
int cmd_replace(struct ctx *c, int argc, char **argv)
{
	struct stria_ioc_member_op req;
	char name[STRIA_NAME_LEN] = "";
	uint32_t index = 0;
	const char *arr, *dev, *with = NULL;
	int fd, ret, err;

	ret = parse_array_operand(c, argc, argv, "with", 'w', &with,
				  "give the array and the member to replace",
				  name, &index, &arr, &dev);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	member_req_init(&req, STRIA_MEMBER_OP_REPLACE, name, index);
	ret = member_devnum(c, dev, &req.major, &req.minor);
	if (!ret && with)
		ret = member_devnum(c, with, &req.with_major, &req.with_minor);
	if (ret)
		return ret;
	fd = open_control(c);
	if (fd < 0)
		return -fd;
	ret = ioctl(fd, STRIA_IOC_MEMBER, &req);
	err = errno;
	close(fd);
	if (ret)
		return report_ctl_error(c, dev, req.msg, err,
					err != EINVAL || req.msg[0] ? NULL :
					"the loaded stria module cannot replace members: load a newer one");
	printf("replacing %s (role %u) in %s%s%s: it stays in service while it is copied ('striactl status' shows the progress)\n",
	       dev, req.role, arr, with ? " with " : "", with ? with : "");
	return EXIT_OK;
}

int cmd_add(struct ctx *c, int argc, char **argv)
{
	return member_op_each(c, argc, argv, STRIA_MEMBER_OP_ADD);
}

int cmd_remove(struct ctx *c, int argc, char **argv)
{
	return member_op_each(c, argc, argv, STRIA_MEMBER_OP_REMOVE);
}

/*
 * START-END: array byte offsets with size suffixes; END may be empty (the
 * end of the array). Returns 0 or -1.
 */
static int parse_range(const char *s, uint64_t *start, uint64_t *end)
{
	const char *dash = strchr(s, '-');
	char buf[64];
	size_t len;

	if (!dash || (size_t)(dash - s) >= sizeof(buf))
		return -1;
	len = (size_t)(dash - s);
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (parse_size(buf, start))
		return -1;
	if (!dash[1]) {
		*end = UINT64_MAX;
		return 0;
	}
	if (parse_size(dash + 1, end) || *end <= *start)
		return -1;
	return 0;
}

int cmd_scrub(struct ctx *c, int argc, char **argv)
{
	struct stria_ioc_sync req;
	struct stria_ioc_query q;
	char name[STRIA_NAME_LEN] = "";
	const char *range = NULL, *arr, *what;
	uint64_t start = 0, end = 0, stripe_bytes;
	struct stripe_range r;
	uint32_t index = 0, nd;
	char s1[32], s2[32];
	int fd, ret, err;

	ret = parse_array_operand(c, argc, argv, "range", 'r', &range,
				  "give the array and check, repair or stop",
				  name, &index, &arr, &what);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	memset(&req, 0, sizeof(req));
	req.size = sizeof(req);
	req.index = index;
	memcpy(req.name, name, sizeof(req.name));
	if (!strcmp(what, "check"))
		req.action = STRIA_SYNC_CHECK;
	else if (!strcmp(what, "repair"))
		req.action = STRIA_SYNC_REPAIR;
	else if (!strcmp(what, "stop") || !strcmp(what, "idle"))
		req.action = STRIA_SYNC_IDLE;
	else
		return usage_error(c, "unknown scrub action '%s' (check, repair, stop)", what);
	if (range && (req.action == STRIA_SYNC_IDLE || parse_range(range, &start, &end)))
		return usage_error(c, req.action == STRIA_SYNC_IDLE ?
				   "stop takes no --range" :
				   "bad --range '%s': START-END, byte offsets in the array with K, M, G, T suffixes", range);
	fd = open_control(c);
	if (fd < 0)
		return -fd;
	err = query_array(fd, name[0] ? name : NULL, index, 0, &q, NULL, NULL, 0);
	if (err) {
		close(fd);
		if (err == ENOENT) {
			err_msg(c, "%s: no such array is running", arr);
			return EXIT_NOTFOUND;
		}
		err_msg(c, "%s: %s", arr, strerror(err));
		return EXIT_FAIL;
	}
	if (range && (q.level == 1 || q.level == 10)) {
		close(fd);
		err_msg(c, "%s: --range is for RAID5 and RAID6: a row of a RAID%u array holds no one range of it (scrub all of it)",
			arr, q.level);
		return EXIT_USAGE;
	}
	if (range) {
		nd = q.nr_members - (q.level == 6 ? 2 : q.level == 5 ? 1 : 0);
		stripe_bytes = (uint64_t)q.chunk_sectors * 512 * nd;
		if (stripe_range(start, end, q.array_sectors * 512, stripe_bytes,
				 q.member_sectors / q.chunk_sectors, &r)) {
			close(fd);
			err_msg(c, "--range starts beyond the end of %s (%llu bytes)",
				arr, (unsigned long long)(q.array_sectors * 512));
			return EXIT_FAIL;
		}
		req.flags = STRIA_SYNC_F_RANGE;
		req.first_stripe = r.first;
		req.nr_stripes = r.nr;
		if (r.rounded) {
			fmt_size(r.start, s1, sizeof(s1));
			fmt_size(r.end, s2, sizeof(s2));
			printf("note: the range is rounded out to whole stripes of %llu bytes: bytes %llu to %llu (%s to %s)\n",
			       (unsigned long long)stripe_bytes,
			       (unsigned long long)r.start,
			       (unsigned long long)r.end, s1, s2);
		}
	}
	ret = ioctl(fd, STRIA_IOC_SYNC, &req);
	err = errno;
	close(fd);
	if (ret)
		return report_ctl_error(c, arr, req.msg, err, err != ENOTTY ? NULL :
					"the loaded stria module cannot scrub: load a newer one");
	if (req.action == STRIA_SYNC_IDLE)
		printf("no scrub runs on %s now\n", arr);
	else
		printf("%s of %s started: stripes %llu to %llu (%llu stripes); 'striactl status %s' shows it, 'striactl wait %s' waits for it\n",
		       what, arr, (unsigned long long)req.first_stripe,
		       (unsigned long long)(req.first_stripe + req.nr_stripes - 1),
		       (unsigned long long)req.nr_stripes, arr, arr);
	return EXIT_OK;
}

int cmd_wait(struct ctx *c, int argc, char **argv)
{
	struct stria_ioc_query q;
	char name[STRIA_NAME_LEN] = "";
	uint32_t index = 0;
	const char *arr;
	int fd, ret, err;

	ret = parse_common_only(c, argc, argv);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if (argc - optind != 1)
		return usage_error(c, "give one array: NAME or /dev/striaN");
	arr = argv[optind];
	if (resolve_array(arr, name, &index))
		return usage_error(c, "'%s' is not an array name or /dev/striaN", arr);
	fd = open_control(c);
	if (fd < 0)
		return -fd;
	for (;;) {
		err = query_array(fd, name[0] ? name : NULL, index, 0, &q,
				  NULL, NULL, 0);
		if (err)
			break;
		if (q.sync_action == STRIA_SYNC_IDLE)
			break;
		usleep(200000);
	}
	close(fd);
	if (err == ENOENT) {
		err_msg(c, "%s: no such array is running", arr);
		return EXIT_NOTFOUND;
	}
	if (err) {
		err_msg(c, "%s: %s", arr, strerror(err));
		return EXIT_FAIL;
	}
	if (q.sync_result) {
		err_msg(c, "%s: the last sync stopped: %s", arr,
			q.sync_result == -EINTR ? "stopped on request" :
			strerror(-q.sync_result));
		return EXIT_FAIL;
	}
	return EXIT_OK;
}


/*
 * home: is a running array this host's own (conf_owned())? Asks sysfs, not
 * the control device: udev asks as soon as striaN appears, and its rule
 * gives the array's file systems the first claim on /dev/disk/by-uuid and
 * by-label only when it is.
 */
int cmd_home(struct ctx *c, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "homehost", required_argument, NULL, OPT_HOMEHOST },
		{ "config", required_argument, NULL, OPT_CONFIG },
		COMMON_LONGOPTS, { 0 }
	};
	char dev[32], name[STRIA_NAME_LEN], host[STRIA_HOST_LEN], u[64];
	char byname[STRIA_NAME_LEN];
	struct host_opts ho = { NULL, NULL };
	struct conf_candidate cand;
	struct out *o = &c->out;
	uint8_t uuid[STRIA_UUID_LEN];
	struct policy p;
	uint32_t index = 0;
	int opt, ret, owned;

	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (host_opt(opt, &ho))
			continue;
		ret = common_opt(c, opt);
		if (ret)
			return ret < 0 ? EXIT_OK : ret;
	}
	if (argc - optind != 1)
		return usage_error(c, "give one array: /dev/striaN");
	if (resolve_array(argv[optind], byname, &index) || byname[0])
		return usage_error(c, "'%s' is not /dev/striaN", argv[optind]);
	snprintf(dev, sizeof(dev), "stria%u", index);
	array_attr(dev, "name", name, sizeof(name));
	array_attr(dev, "uuid", u, sizeof(u));
	array_attr(dev, "homehost", host, sizeof(host));
	if (!name[0] || conf_parse_uuid(u, uuid)) {
		err_msg(c, "%s: no such array is running", argv[optind]);
		return EXIT_NOTFOUND;
	}
	ret = load_conf(c, ho.config, &p.conf, 0);
	if (ret)
		return ret;
	p.kind = this_host(c, &p.conf, ho.homehost, p.host);
	if (p.kind < 0) {
		conf_free(&p.conf);
		return EXIT_USAGE;
	}
	cand.name = name;
	cand.uuid = uuid;
	cand.homehost = host;
	owned = conf_owned(&p.conf, &cand, p.kind, p.host);
	conf_free(&p.conf);
	if (c->fmt == OUT_NORMAL) {
		printf("/dev/%s (array '%s', %s%s%s): %s\n", dev, name,
		       host[0] ? "home host '" : "no home host", host,
		       host[0] ? "'" : "",
		       owned ? "this host's" : "not provably this host's");
		return EXIT_OK;
	}
	out_init(o, stdout, c->fmt);
	out_begin(o);
	out_str(o, "device", dev);
	out_str(o, "name", name);
	if (host[0])
		out_str(o, "homehost", host);
	else
		out_null(o, "homehost");
	out_str(o, "home", owned ? "this-host" : "other");
	out_end(o);
	return EXIT_OK;
}
