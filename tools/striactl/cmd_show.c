// SPDX-License-Identifier: GPL-2.0
/*
 * striactl list, status, detail and examine: the display commands. Each
 * describes its result through output.h, so -o json and --export come for
 * free.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <linux/stria.h>

#include "config.h"
#include "ident.h"
#include "snapshot.h"
#include "striactl.h"
#include "metrics.h"
#include "ondisk.h"

/* A member's state. */
const char *state_name(uint32_t s)
{
	return s == STRIA_STATE_ACTIVE ? "active" :
	       s == STRIA_STATE_FAILED ? "failed" :
	       s == STRIA_STATE_SPARE ? "spare" :
	       s == STRIA_STATE_REBUILDING ? "rebuilding" :
	       s == STRIA_STATE_REPLACEMENT ? "replacement" : "unknown";
}

const char *sync_name(uint32_t a)
{
	return a == STRIA_SYNC_IDLE ? "idle" :
	       a == STRIA_SYNC_REBUILD ? "rebuild" :
	       a == STRIA_SYNC_CHECK ? "check" :
	       a == STRIA_SYNC_REPAIR ? "repair" :
	       a == STRIA_SYNC_RESYNC ? "resync" :
	       a == STRIA_SYNC_REPLACE ? "replace" :
	       a == STRIA_SYNC_RESHAPE ? "reshape" : "unknown";
}

/* An array's state: a member's, or degraded. */
const char *array_state_name(uint32_t s)
{
	return s == STRIA_STATE_DEGRADED ? "degraded" : state_name(s);
}

/* A running array's parity layout ("none" on RAID0). */
static const char *query_layout_name(const struct stria_ioc_query *q)
{
	return stria_parity_layout_name(q->level, q->layout);
}

/*
 * NAME, striaN, /dev/striaN or /dev/stria/NAME. Fills @name (empty for an
 * index) and @index. Returns 0, or -1 when @arg is neither.
 */
int resolve_array(const char *arg, char *name, uint32_t *index)
{
	const char *p = arg;
	char *end;
	unsigned long v;

	name[0] = '\0';
	if (!strncmp(p, "/dev/stria/", 11)) {
		p += 11;
	} else {
		if (!strncmp(p, "/dev/", 5))
			p += 5;
		if (!strncmp(p, "stria", 5) && p[5] >= '0' && p[5] <= '9') {
			v = strtoul(p + 5, &end, 10);
			if (!*end && v < UINT_MAX) {
				*index = (uint32_t)v;
				return 0;
			}
		}
		if (p != arg)
			return -1;
	}
	if (!*p || strlen(p) >= STRIA_NAME_LEN)
		return -1;
	strcpy(name, p);
	return 0;
}

/*
 * STRIA_IOC_QUERY for one array (@next: the first with index >= @index).
 * Returns 0, or an errno (ENOENT: no such array).
 */
int query_array(int fd, const char *name, uint32_t index, int next,
		struct stria_ioc_query *q, struct stria_ioc_member *members,
		uint32_t *cpu_map, uint32_t cpu_cap)
{
	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	q->index = index;
	q->flags = next ? STRIA_QUERY_F_NEXT : 0;
	if (name)
		strncpy(q->name, name, sizeof(q->name) - 1);
	if (members) {
		q->members = (uintptr_t)members;
		q->members_cap = STRIA_MAX_MEMBERS + STRIA_MAX_SPARES;
	}
	if (cpu_map) {
		q->cpu_map = (uintptr_t)cpu_map;
		q->cpu_map_cap = cpu_cap;
	}
	return ioctl(fd, STRIA_IOC_QUERY, q) ? errno : 0;
}

/*
 * sysfs attribute stria/@attr of block device @dev (striaN) into @buf,
 * first line only; "" when it cannot be read. Only characters of a name,
 * a host name or a UUID are kept: anything else empties it.
 */
void array_attr(const char *dev, const char *attr, char *buf,
		       size_t len)
{
	char path[96];
	size_t n = 0;
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/sys/block/%s/stria/%s", dev, attr);
	f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		n = strcspn(buf, "\n");
	buf[n] = '\0';
	fclose(f);
	for (; n; n--)
		if (!stria_name_char_ok(buf[n - 1]))
			buf[0] = '\0';
}

/*
 * The home host of array striaN (sysfs stria/homehost, which the module
 * held to stria_host_valid()) into @buf; empty when it records none, or
 * for a module from before home hosts.
 */
void array_homehost(uint32_t index, char *buf, size_t len)
{
	char dev[24];

	snprintf(dev, sizeof(dev), "stria%u", index);
	array_attr(dev, "homehost", buf, len);
}

void member_devname(uint32_t major, uint32_t minor, char *buf, size_t len)
{
	char link[64], target[PATH_MAX];
	ssize_t n;
	char *slash;

	/* a failed role whose device was removed */
	if (!major && !minor) {
		snprintf(buf, len, "missing");
		return;
	}
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major, minor);
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0) {
		snprintf(buf, len, "%u:%u", major, minor);
		return;
	}
	target[n] = '\0';
	slash = strrchr(target, '/');
	snprintf(buf, len, "/dev/%s", slash ? slash + 1 : target);
}

static void out_uuid(struct out *o, const char *key, const uint8_t *u)
{
	char buf[40];

	uuid_fmt(u, buf);
	out_str(o, key, buf);
}

/* "[=======>        ]" for @permille of @width columns, @empty after the > */
void progress_bar(char *buf, size_t len, uint64_t permille, int width,
		  char empty)
{
	int i, fill = (int)(permille * (uint64_t)width / 1000);
	size_t n = 0;

	if (len < (size_t)width + 3)
		return;
	buf[n++] = '[';
	for (i = 0; i < width; i++)
		buf[n++] = i < fill ? '=' : i == fill ? '>' : empty;
	buf[n++] = ']';
	buf[n] = '\0';
}

/* H:MM:SS */
void fmt_duration(uint64_t secs, char *buf, size_t len)
{
	snprintf(buf, len, "%llu:%02llu:%02llu",
		 (unsigned long long)(secs / 3600),
		 (unsigned long long)(secs / 60 % 60),
		 (unsigned long long)(secs % 60));
}

/*
 * The running (or last) rebuild or scrub: an object "sync". Sectors are
 * member sectors, speeds KiB/s per member, as in sysfs.
 */
static void out_sync(struct out *o, const struct stria_ioc_query *q)
{
	uint64_t permille = q->sync_total ?
			    q->sync_done * 1000 / q->sync_total : 0;
	int running = q->sync_action != STRIA_SYNC_IDLE;
	char buf[160], bar[64], eta[32], spd[32];
	uint64_t left;

	if (q->size < offsetof(struct stria_ioc_query, bitmap_chunk))
		return;	/* a module without sync */
	out_obj_begin(o, "sync");
	out_str(o, "action", sync_name(q->sync_action));
	out_u64(o, "done_sectors", q->sync_done);
	out_u64(o, "total_sectors", q->sync_total);
	out_u64(o, "percent", permille / 10);
	out_u64(o, "speed_kib_s", q->sync_speed);
	out_u64(o, "speed_min_kib_s", q->sync_speed_min);
	out_u64(o, "speed_max_kib_s", q->sync_speed_max);
	left = q->sync_total - q->sync_done;
	if (running && q->sync_speed)
		out_u64(o, "eta_seconds", left / 2 / q->sync_speed);
	out_u64(o, "mismatch_sectors", q->mismatch_cnt);
	if (q->size >= QUERY_SIZE_LOCATE) {
		out_u64(o, "mismatch_located_stripes", q->mismatch_located);
		out_u64(o, "mismatch_unlocatable_stripes",
			q->mismatch_unlocatable);
	}
	out_str(o, "last_result", running ? "running" : !q->sync_result ? "ok" :
		q->sync_result == -EINTR ? "stopped" : strerror(-q->sync_result));
	if (running && o->fmt == OUT_NORMAL) {
		fmt_size((uint64_t)q->sync_speed * 1024, spd, sizeof(spd));
		if (q->sync_speed)
			fmt_duration(left / 2 / q->sync_speed, eta, sizeof(eta));
		else
			snprintf(eta, sizeof(eta), "unknown");
		bar[0] = '\0';
		if (isatty(STDOUT_FILENO))
			progress_bar(bar, sizeof(bar), permille, 30, ' ');
		snprintf(buf, sizeof(buf), "%s%s%llu.%llu%%, %s/s, ETA %s",
			 bar, bar[0] ? " " : "",
			 (unsigned long long)(permille / 10),
			 (unsigned long long)(permille % 10), spd, eta);
		out_str(o, "progress", buf);
	}
	out_obj_end(o);
}

/*
 * A write-intent bitmap of @chunk sectors per region over @data_sectors
 * member sectors, @dirty regions set (-1: unknown), at member sector
 * @offset (0: not shown). JSON and --export get an object "bitmap", normal
 * output one line; without a bitmap (@chunk 0) null, or "none".
 */
static void out_bitmap(struct out *o, uint32_t offset, uint32_t chunk,
		       uint64_t data_sectors, int64_t dirty)
{
	uint64_t regions;
	char buf[160], size[32], at[48] = "";

	if (!chunk) {
		out_null(o, "bitmap");
		return;
	}
	regions = stria_bitmap_regions(data_sectors, chunk);
	if (o->fmt == OUT_NORMAL) {
		fmt_size((uint64_t)chunk << 9, size, sizeof(size));
		if (offset)
			snprintf(at, sizeof(at), ", at sector %u", offset);
		if (dirty < 0)
			snprintf(buf, sizeof(buf), "unreadable, %llu regions, %s per region%s",
				 (unsigned long long)regions, size, at);
		else
			snprintf(buf, sizeof(buf), "%lld of %llu regions dirty, %s per region%s",
				 (long long)dirty, (unsigned long long)regions,
				 size, at);
		out_str(o, "bitmap", buf);
		return;
	}
	out_obj_begin(o, "bitmap");
	if (offset)
		out_u64(o, "offset_sectors", offset);
	out_u64(o, "chunk_sectors", chunk);
	out_u64(o, "regions", regions);
	if (dirty >= 0)
		out_u64(o, "dirty", (uint64_t)dirty);
	out_obj_end(o);
}

static void out_array_brief(struct out *o, const struct stria_ioc_query *q,
			    const struct stria_ioc_member *members)
{
	char dev[32], buf[64];
	uint32_t i;

	snprintf(dev, sizeof(dev), "/dev/stria%u", q->index);
	out_str(o, "device", dev);
	out_str(o, "name", q->name);
	array_homehost(q->index, buf, sizeof(buf));
	if (buf[0])
		out_str(o, "homehost", buf);
	else
		out_null(o, "homehost");
	out_uuid(o, "uuid", q->uuid);
	out_u64(o, "level", q->level);
	out_str(o, "layout", query_layout_name(q));
	out_str(o, "state", array_state_name(q->state));
	out_bool(o, "read_only", !!(q->array_flags & STRIA_QUERY_A_READONLY));
	out_u64(o, "size_bytes", q->array_sectors << 9);
	out_u64(o, "chunk_bytes", (uint64_t)q->chunk_sectors << 9);
	out_u64(o, "nr_members", q->nr_members);
	out_u64(o, "nr_failed", q->nr_failed);
	out_u64(o, "nr_spares", q->nr_spares);
	if (q->size >= QUERY_SIZE_BITMAP)
		out_bitmap(o, 0, q->bitmap_chunk, q->member_sectors,
			   q->bitmap_dirty);
	if (!members)
		return;
	out_arr_begin(o, "members");
	for (i = 0; i < q->nr_members && i < STRIA_MAX_MEMBERS; i++) {
		out_obj_begin(o, NULL);
		out_u64(o, "role", members[i].role);
		member_devname(members[i].major, members[i].minor, buf,
			       sizeof(buf));
		out_str(o, "device", buf);
		out_str(o, "state", state_name(members[i].state));
		out_obj_end(o);
	}
	out_arr_end(o);
	out_arr_begin(o, "spares");
	for (i = 0; i < q->nr_spares && q->nr_members + i <
	     STRIA_MAX_MEMBERS + STRIA_MAX_SPARES; i++) {
		const struct stria_ioc_member *m = &members[q->nr_members + i];

		out_obj_begin(o, NULL);
		member_devname(m->major, m->minor, buf, sizeof(buf));
		out_str(o, "device", buf);
		out_str(o, "state", state_name(m->state));
		if (m->role != STRIA_NO_MEMBER)
			out_u64(o, "replaces_role", m->role);
		out_obj_end(o);
	}
	out_arr_end(o);
	out_sync(o, q);
}

/* Query one array named on the command line; prints errors itself. */
static int query_named(struct ctx *c, int fd, const char *arg,
		       struct stria_ioc_query *q,
		       struct stria_ioc_member *members, uint32_t *cpu_map,
		       uint32_t cpu_cap)
{
	char name[STRIA_NAME_LEN];
	uint32_t index = 0;
	int err;

	if (resolve_array(arg, name, &index))
		return usage_error(c, "'%s' is not an array name or /dev/striaN",
				   arg);
	err = query_array(fd, name[0] ? name : NULL, index, 0, q, members,
			  cpu_map, cpu_cap);
	if (err == ENOENT) {
		err_msg(c, "%s: no such array is running", arg);
		return EXIT_NOTFOUND;
	}
	if (err) {
		err_msg(c, "%s: %s", arg, strerror(err));
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/*
 * Every array as a brief object in the open "arrays" list; with @members,
 * each array's member states too.
 */
static void out_all_arrays(struct out *o, int fd,
			   struct stria_ioc_member *members)
{
	struct stria_ioc_query q;
	uint32_t idx = 0;

	while (!query_array(fd, NULL, idx, 1, &q, members, NULL, 0)) {
		out_obj_begin(o, NULL);
		out_array_brief(o, &q, members);
		out_obj_end(o);
		idx = q.index + 1;
	}
}

int cmd_list(struct ctx *c, int argc, char **argv)
{
	struct stria_ioc_query q;
	struct out *o = &c->out;
	uint32_t idx = 0;
	int fd, ret;

	ret = parse_common_only(c, argc, argv);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if (optind != argc)
		return usage_error(c, "unexpected argument '%s'", argv[optind]);
	fd = open_control(c);
	if (fd < 0)
		return -fd;
	out_init(o, stdout, c->fmt);
	if (c->fmt == OUT_NORMAL) {
		while (!query_array(fd, NULL, idx, 1, &q, NULL, NULL, 0)) {
			char size[32];

			fmt_size(q.array_sectors << 9, size, sizeof(size));
			printf("/dev/stria%u %s raid%u %u members %s %s%s%s%s\n",
			       q.index, q.name, q.level, q.nr_members, size,
			       array_state_name(q.state),
			       q.array_flags & STRIA_QUERY_A_READONLY ?
			       " read-only" : "", q.level ? " " : "",
			       q.level ? query_layout_name(&q) : "");
			idx = q.index + 1;
		}
		close(fd);
		return EXIT_OK;
	}
	out_begin(o);
	out_arr_begin(o, "arrays");
	out_all_arrays(o, fd, NULL);
	out_arr_end(o);
	out_end(o);
	close(fd);
	return EXIT_OK;
}

/* All digits: a --watch interval rather than an array. */

/**
 * member_ident() - which drive a member or spare of a running array is
 * @q: the array
 * @m: the member (@with_role) or spare
 * @with_role: @m holds a role, whose last-seen drive may be cached
 * @id: filled; empty when nothing is known
 *
 * As ident_lookup() finds it: from sysfs while the device is there, else
 * what striactl monitor kept of the role's drive (ident.h), if anything.
 *
 * Return: 1 when @id came from that cache, else 0.
 */
int member_ident(const struct stria_ioc_query *q,
		 const struct stria_ioc_member *m, int with_role,
		 struct drive_ident *id)
{
	char dev[64], uuid[40];
	const char *kname = NULL;

	member_devname(m->major, m->minor, dev, sizeof(dev));
	if (!strncmp(dev, "/dev/", 5))
		kname = dev + 5;
	uuid_fmt(q->uuid, uuid);
	return ident_lookup(snap_sysfs, kname, uuid,
			    with_role ? (int)m->role : -1, id);
}

/* One member (with its role) or spare of "detail". */
static void out_detail_member(struct out *o, const struct stria_ioc_query *q,
			      const struct stria_ioc_member *m, int with_role)
{
	struct drive_ident id;
	char buf[64];
	int cached;

	out_obj_begin(o, NULL);
	if (with_role)
		out_u64(o, "role", m->role);
	else if (m->role != STRIA_NO_MEMBER)
		out_u64(o, "replaces_role", m->role);
	member_devname(m->major, m->minor, buf, sizeof(buf));
	out_str(o, "device", buf);
	snprintf(buf, sizeof(buf), "%u:%u", m->major, m->minor);
	out_str(o, "dev", buf);
	out_str(o, "state", state_name(m->state));
	out_s64(o, "numa_node", m->numa_node == STRIA_NODE_AUTO ?
		-1 : (int64_t)m->numa_node);
	out_u64(o, "size_bytes", m->dev_sectors << 9);
	out_uuid(o, "uuid", m->uuid);
	cached = member_ident(q, m, with_role, &id);
	out_ident(o, "", &id, cached);
	out_obj_end(o);
}

/*
 * status -o normal: one screen for the array @arg names (-v: with the
 * detail), or a paragraph for each running array (-v: a screen each).
 */
static int status_human(struct ctx *c, int fd, const char *arg,
			struct stria_ioc_member *members)
{
	struct stria_ioc_query q;
	uint32_t idx = 0;
	int ret, n = 0;

	if (arg) {
		ret = query_named(c, fd, arg, &q, members, NULL, 0);
		if (!ret)
			human_array(stdout, &q, members, c->verbose > 0, NULL);
		return ret;
	}
	while (!query_array(fd, NULL, idx, 1, &q, members, NULL, 0)) {
		if (n++)
			fputc('\n', stdout);
		if (c->verbose > 0)
			human_array(stdout, &q, members, 1, NULL);
		else
			human_summary(stdout, &q, members);
		idx = q.index + 1;
	}
	if (!n)
		printf("no stria arrays are running\n");
	return EXIT_OK;
}

/*
 * status -o prometheus: every array, or the one @arg names, from sysfs
 * (snapshot.h): readable without root, by a collector's cron job.
 */
static int status_prometheus(struct ctx *c, const char *arg)
{
	struct array_snap *a = NULL, *tmp;
	char name[STRIA_NAME_LEN];
	unsigned int idx[1024], index = 0;
	int n, i, ret = EXIT_OK;
	size_t nr = 0;

	if (arg && resolve_array(arg, name, &index))
		return usage_error(c, "'%s' is not an array name or /dev/striaN",
				   arg);
	n = snap_list(idx, 1024);
	if (n < 0) {
		err_msg(c, "%s/block: %s", snap_sysfs, strerror(-n));
		return EXIT_FAIL;
	}
	for (i = 0; i < n && i < 1024; i++) {
		tmp = realloc(a, (nr + 1) * sizeof(*a));
		if (!tmp) {
			ret = EXIT_FAIL;
			break;
		}
		a = tmp;
		if (snap_read(idx[i], &a[nr]))
			continue;
		if (arg && (name[0] ? strcmp(a[nr].name, name) : a[nr].index != index))
			continue;
		nr++;
	}
	if (arg && !nr && ret == EXIT_OK) {
		err_msg(c, "%s: no such array is running", arg);
		ret = EXIT_NOTFOUND;
	}
	if (ret == EXIT_OK)
		metrics_print(stdout, snap_module_loaded(), a, nr);
	free(a);
	if (fflush(stdout) || ferror(stdout)) {
		err_msg(c, "cannot write the metrics: %s", strerror(errno));
		ret = EXIT_FAIL;
	}
	return ret;
}

static int is_seconds(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

int cmd_status(struct ctx *c, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "watch", optional_argument, NULL, 'w' },
		COMMON_LONGOPTS, { 0 }
	};
	struct stria_ioc_member members[STRIA_MAX_MEMBERS + STRIA_MAX_SPARES];
	struct stria_ioc_query q;
	struct out *o = &c->out;
	unsigned int watch = 0;
	int fd, ret, opt, again_n = 0;

	while ((opt = getopt_long(argc, argv, "w::" COMMON_SHORTOPTS, longopts, NULL)) != -1) {
		if (opt == 'w') {
			watch = 2;
			if (optarg && !is_seconds(optarg))
				return usage_error(c, "--watch takes whole seconds");
			if (optarg)
				watch = (unsigned int)atoi(optarg);
			else if (optind < argc && is_seconds(argv[optind]))
				/* --watch 5 [NAME]: an all-digit word is the interval */
				watch = (unsigned int)atoi(argv[optind++]);
			if (!watch)
				watch = 1;
			continue;
		}
		ret = common_opt(c, opt);
		if (ret)
			return ret < 0 ? EXIT_OK : ret;
	}
	if (argc - optind > 1)
		return usage_error(c, "unexpected argument '%s'", argv[optind + 1]);
	if (c->fmt == OUT_PROMETHEUS) {
		if (watch)
			return usage_error(c, "-o prometheus is read by a collector: no --watch");
		return status_prometheus(c, argc - optind == 1 ? argv[optind] : NULL);
	}
	fd = open_control(c);
	if (fd < 0)
		return -fd;
again:
	if (watch && isatty(STDOUT_FILENO))
		fputs("\033[H\033[2J", stdout);
	else if (watch && again_n++)
		fputc('\n', stdout);	/* a log of refreshes: one apart */
	if (c->fmt == OUT_NORMAL) {
		ret = status_human(c, fd, argc - optind == 1 ? argv[optind] : NULL,
				   members);
		goto shown;
	}
	out_init(o, stdout, c->fmt);
	out_begin(o);
	out_arr_begin(o, "arrays");
	if (argc - optind == 1) {
		ret = query_named(c, fd, argv[optind], &q, members, NULL, 0);
		if (!ret) {
			out_obj_begin(o, NULL);
			out_array_brief(o, &q, members);
			out_obj_end(o);
		}
	} else {
		out_all_arrays(o, fd, members);
	}
	out_arr_end(o);
	out_end(o);
shown:
	if (watch && !ret) {
		fflush(stdout);
		sleep(watch);
		goto again;
	}
	close(fd);
	return ret;
}

/*
 * detail --scan: an ARRAY line per running array, for stria.conf(5), as
 * "mdadm --detail --scan" prints them for mdadm.conf.
 */
static int detail_scan(struct ctx *c)
{
	char line[256], name[STRIA_NAME_LEN + 1], shown[4 * STRIA_NAME_LEN + 1];
	struct stria_ioc_query q;
	uint32_t idx = 0;
	int fd = open_control(c), ret, bad = 0;

	if (fd < 0)
		return -fd;
	while (!(ret = query_array(fd, NULL, idx, 1, &q, NULL, NULL, 0))) {
		memcpy(name, q.name, STRIA_NAME_LEN);
		name[STRIA_NAME_LEN] = '\0';
		/* stria.conf reads the line back: only a name it reads as one */
		if (conf_array_line(line, sizeof(line), name, q.uuid, q.level,
				    q.nr_members, q.nr_spares) < 0) {
			escape_text(shown, sizeof(shown), name);
			err_msg(c, "/dev/stria%u ('%s', raid%u, %u members, %u spares): stria.conf cannot describe it (a name of 1 to 31 of A-Z a-z 0-9 . _ -, level 0, 1, 5, 6 or 10, 2 to %d members, up to %d spares): no ARRAY line for it",
				q.index, shown, q.level, q.nr_members,
				q.nr_spares, STRIA_MAX_MEMBERS, STRIA_MAX_SPARES);
			bad = 1;
		} else {
			fputs(line, stdout);
		}
		idx = q.index + 1;
	}
	close(fd);
	if (ret != ENOENT) {
		err_msg(c, "cannot list the arrays: %s", strerror(ret));
		return EXIT_FAIL;
	}
	return bad ? EXIT_FAIL : EXIT_OK;
}

int cmd_detail(struct ctx *c, int argc, char **argv)
{
	struct stria_ioc_member members[STRIA_MAX_MEMBERS + STRIA_MAX_SPARES];
	struct stria_ioc_query q;
	struct out *o = &c->out;
	uint32_t *cpu_map, cap = 4096, i;
	int fd, ret, scan;

	ret = parse_scan_opt(c, argc, argv, &scan);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if (scan) {
		if (c->fmt != OUT_NORMAL)
			return usage_error(c, "--scan prints configuration lines: no -o or --export");
		if (argc != optind)
			return usage_error(c, "--scan covers every running array: no NAME");
		return detail_scan(c);
	}
	if (argc - optind != 1)
		return usage_error(c, "give one array: NAME or /dev/striaN");
	cpu_map = calloc(cap, sizeof(*cpu_map));
	if (!cpu_map)
		return EXIT_FAIL;
	fd = open_control(c);
	if (fd < 0) {
		free(cpu_map);
		return -fd;
	}
	ret = query_named(c, fd, argv[optind], &q, members, cpu_map, cap);
	close(fd);
	if (ret) {
		free(cpu_map);
		return ret;
	}
	if (c->fmt == OUT_NORMAL) {
		human_array(stdout, &q, members, 1, cpu_map);
		free(cpu_map);
		return EXIT_OK;
	}
	out_init(o, stdout, c->fmt);
	out_begin(o);
	out_array_brief(o, &q, NULL);
	out_u64(o, "data_offset_sectors", q.data_offset);
	out_u64(o, "member_data_sectors", q.member_sectors);
	out_u64(o, "events", q.events);
	out_s64(o, "numa_node", q.numa_node == STRIA_NODE_AUTO ? -1 :
		(int64_t)q.numa_node);
	out_u64(o, "nr_hw_queues", q.nr_hw_queues);
	out_arr_begin(o, "members");
	for (i = 0; i < q.nr_members && i < STRIA_MAX_MEMBERS; i++)
		out_detail_member(o, &q, &members[i], 1);
	out_arr_end(o);
	out_arr_begin(o, "spares");
	for (i = q.nr_members; i < q.nr_members + q.nr_spares &&
	     i < STRIA_MAX_MEMBERS + STRIA_MAX_SPARES; i++)
		out_detail_member(o, &q, &members[i], 0);
	out_arr_end(o);
	out_sync(o, &q);
	if (c->fmt != OUT_EXPORT) {
		out_arr_begin(o, "cpu_to_queue");
		for (i = 0; q.nr_hw_queues && i < q.nr_cpus && i < cap; i++)
			out_u64(o, NULL, cpu_map[i]);
		out_arr_end(o);
	}
	out_end(o);
	free(cpu_map);
	return EXIT_OK;
}

/* The last second of the year 9999: later times are not dates anyone wrote. */
#define LAST_TIME 253402300799ULL

/*
 * @t (seconds since the epoch, from a superblock) as an ISO 8601 UTC time;
 * a value no calendar can show (above LAST_TIME, which as a signed time_t
 * could even be before 1970) as the number and that it is not a time.
 */
static void out_time(struct out *o, const char *key, uint64_t t)
{
	char buf[64];
	time_t tt = (time_t)t;
	struct tm tm;

	if (t > LAST_TIME || !gmtime_r(&tt, &tm) ||
	    !strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, sizeof(buf), "%llu (not a valid time)",
			 (unsigned long long)t);
	out_str(o, key, buf);
}

/*
 * Roles of a superblock bitmap: a list of roles in JSON, else "1,3" or
 * "none".
 */
/* Roles as "1,3" into @buf (ROLES_BUF_LEN bytes); "none" for none. */
const char *fmt_roles(uint64_t roles, char *buf)
{
	size_t len = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < STRIA_MAX_MEMBERS; i++)
		if (roles & (1ULL << i))
			len += snprintf(buf + len, ROLES_BUF_LEN - len, "%s%d",
					len ? "," : "", i);
	return len ? buf : "none";
}

static void out_roles(struct out *o, const char *key, uint64_t failed)
{
	char buf[ROLES_BUF_LEN];
	int i;

	if (o->fmt == OUT_JSON) {
		out_arr_begin(o, key);
		for (i = 0; i < STRIA_MAX_MEMBERS; i++)
			if (failed & (1ULL << i))
				out_u64(o, NULL, i);
		out_arr_end(o);
		return;
	}
	out_str(o, key, fmt_roles(failed, buf));
}

/*
 * The array's state as one superblock sees it (active/degraded/failed):
 * degraded while every chunk can still be read, as the module judges it
 * (stria_geom_survives(): on RAID1/10 which members are out matters, not
 * only how many). @sb passed stria_sb_check(), so its geometry sets up.
 */
static const char *sb_array_state(const struct stria_sb *sb)
{
	uint64_t out = stria_le64(sb->failed) | stria_le64(sb->rebuilding);
	struct stria_geom g;

	if (!out)
		return array_state_name(STRIA_STATE_ACTIVE);
	if (stria_geom_setup(&g, stria_le32(sb->level),
			     stria_le32(sb->parity_layout),
			     stria_le32(sb->nr_members),
			     stria_le32(sb->chunk_sectors),
			     stria_le64(sb->data_sectors)))
		return "unknown";
	return array_state_name(stria_geom_survives(&g, out) ?
				STRIA_STATE_DEGRADED : STRIA_STATE_FAILED);
}

int cmd_examine(struct ctx *c, int argc, char **argv)
{
	struct stria_sb sb;
	struct stat st;
	struct out *o = &c->out;
	char why[160], name[STRIA_SB_NAME_LEN + 1];
	const char *dev;
	uint64_t dirty = 0;
	int ret, bm_err = 0;

	ret = parse_common_only(c, argc, argv);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if (argc - optind != 1)
		return usage_error(c, "give one device");
	dev = argv[optind];
	/* a member, or an image of one: not what a read of 4 KiB misreads */
	if (!stat(dev, &st) && !S_ISBLK(st.st_mode) && !S_ISREG(st.st_mode)) {
		err_msg(c, "%s is %s, not a block device or an image file", dev,
			S_ISDIR(st.st_mode) ? "a directory" :
			S_ISCHR(st.st_mode) ? "a character device" :
			S_ISFIFO(st.st_mode) ? "a pipe" :
			S_ISSOCK(st.st_mode) ? "a socket" : "a special file");
		return EXIT_FAIL;
	}
	ret = read_sb(dev, &sb, why, sizeof(why));
	if (ret == -ENODATA) {
		err_msg(c, "%s: %s", dev, why);
		return EXIT_NOTFOUND;
	}
	if (ret && ret != -EBADMSG && ret != -EPROTONOSUPPORT) {
		err_msg(c, "%s: %s", dev, why);
		return EXIT_FAIL;
	}
	out_init(o, stdout, c->fmt);
	out_begin(o);
	out_str(o, "device", dev);
	out_bool(o, "valid", ret == 0);
	if (ret) {
		out_str(o, "error", why);
		out_end(o);
		err_msg(c, "%s: %s", dev, why);
		return EXIT_FAIL;
	}
	memcpy(name, sb.name, STRIA_SB_NAME_LEN);
	name[STRIA_SB_NAME_LEN] = '\0';
	out_str(o, "name", name);
	/* stria_sb_check() held it to stria_host_valid(), NUL included */
	if (stria_sb_no_host(&sb))
		out_null(o, "homehost");
	else
		out_str(o, "homehost", sb.homehost);
	out_uuid(o, "uuid", sb.array_uuid);
	out_uuid(o, "member_uuid", sb.member_uuid);
	out_u64(o, "format", stria_le32(sb.format));
	out_u64(o, "layout_version", stria_le32(sb.layout));
	out_u64(o, "level", stria_le32(sb.level));
	out_str(o, "layout", stria_parity_layout_name(stria_le32(sb.level),
			stria_le32(sb.parity_layout)));
	out_u64(o, "chunk_bytes", (uint64_t)stria_le32(sb.chunk_sectors) << 9);
	out_u64(o, "nr_members", stria_le32(sb.nr_members));
	if (stria_le32(sb.role) != STRIA_SB_ROLE_SPARE)
		out_u64(o, "role", stria_le32(sb.role));
	out_bool(o, "spare", stria_le32(sb.role) == STRIA_SB_ROLE_SPARE);
	out_str(o, "array_state", sb_array_state(&sb));
	out_u64(o, "nr_failed",
		(uint64_t)__builtin_popcountll(stria_le64(sb.failed)));
	out_roles(o, "failed_roles", stria_le64(sb.failed));
	out_roles(o, "rebuilding_roles", stria_le64(sb.rebuilding));
	out_u64(o, "rebuild_offset_sectors", stria_le64(sb.rebuild_offset));
	if (stria_le64(sb.rebuild_partial))
		out_roles(o, "rebuild_partial_roles", stria_le64(sb.rebuild_partial));
	out_str(o, "scrub_checkpoint",
		stria_le32(sb.scrub_action) == STRIA_SB_SCRUB_CHECK ? "check" :
		stria_le32(sb.scrub_action) == STRIA_SB_SCRUB_REPAIR ?
		"repair" : stria_le32(sb.scrub_action) == STRIA_SB_SCRUB_RESYNC ?
		"resync" : "none");
	if (stria_le32(sb.scrub_action)) {
		out_u64(o, "scrub_offset_sectors", stria_le64(sb.scrub_offset));
		out_u64(o, "scrub_end_sectors", stria_le64(sb.scrub_end));
	}
	if (stria_le64(sb.features_incompat) & STRIA_SB_FEAT_INCOMPAT_RESHAPE) {
		struct stria_reshape_plan plan = { 0 };

		/* stria_sb_check() held the record to a valid plan */
		stria_sb_reshape_plan(&sb, &plan);
		out_u64(o, "reshape_from_members", stria_le32(sb.reshape_from));
		out_u64(o, "reshape_rows_done", stria_le64(sb.reshape_pos));
		out_u64(o, "reshape_rows", plan.rows_new);
		out_bool(o, "reshape_backup",
			 stria_le32(sb.reshape_flags) & STRIA_SB_RESHAPE_BACKUP);
	} else {
		out_null(o, "reshape");
	}
	out_u64(o, "data_offset_sectors", stria_le64(sb.data_offset));
	out_u64(o, "data_sectors", stria_le64(sb.data_sectors));
	out_u64(o, "dev_sectors", stria_le64(sb.dev_sectors));
	if (stria_le64(sb.features_incompat) & STRIA_SB_FEAT_INCOMPAT_BITMAP) {
		bm_err = read_bitmap_dirty(dev, &sb, &dirty);
		out_bitmap(o, stria_le32(sb.bitmap_offset),
			   stria_le32(sb.bitmap_chunk),
			   stria_le64(sb.data_sectors),
			   bm_err ? -1 : (int64_t)dirty);
	} else {
		out_null(o, "bitmap");
	}
	out_u64(o, "events", stria_le64(sb.events));
	if (stria_le64(sb.degraded_events))
		out_u64(o, "degraded_since_event", stria_le64(sb.degraded_events));
	out_str(o, "state", stria_le32(sb.state) == STRIA_SB_STATE_CLEAN ?
		"clean" : "active");
	out_u64(o, "features_compat", stria_le64(sb.features_compat));
	out_u64(o, "features_incompat", stria_le64(sb.features_incompat));
	out_time(o, "created", stria_le64(sb.ctime));
	out_time(o, "updated", stria_le64(sb.utime));
	snprintf(why, sizeof(why), "%08x", stria_le32(sb.crc));
	out_str(o, "crc32c", why);
	out_end(o);
	if (bm_err) {
		err_msg(c, "%s: cannot read the write-intent bitmap: %s", dev,
			bm_err == -ENODATA ? "the device ends before it" :
			strerror(-bm_err));
		return EXIT_FAIL;
	}
	return EXIT_OK;
}
