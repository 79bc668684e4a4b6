// SPDX-License-Identifier: GPL-2.0
/*
 * An array's state from sysfs (snapshot.h). Each file is read once, whole;
 * an array stopped while it is read reads as not running.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "snapshot.h"

const char *snap_sysfs = "/sys";

int snap_module_loaded(void)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/module/stria", snap_sysfs);
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* /sys/block/striaN/stria/FILE into @buf (NUL-terminated). */
static int read_attr(unsigned int index, const char *file, char *buf,
		     size_t len)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/block/stria%u/stria/%s", snap_sysfs,
		 index, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return errno == ENODEV ? -ENOENT : -errno;
	buf[n] = '\0';
	return 0;
}

/* A one-line attribute, its newline taken off. */
static int read_word(unsigned int index, const char *file, char *buf,
		     size_t len)
{
	int ret = read_attr(index, file, buf, len);

	if (!ret)
		buf[strcspn(buf, "\n")] = '\0';
	return ret;
}

static int read_u64(unsigned int index, const char *file, uint64_t *v)
{
	char buf[32], *end;
	int ret = read_word(index, file, buf, sizeof(buf));

	if (ret)
		return ret;
	errno = 0;
	*v = strtoull(buf, &end, 10);
	return errno || end == buf || *end ? -EINVAL : 0;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

/*
 * "<role> <device> <state> <errors> <read repairs> [more]" per line:
 * the members by role, the spares (role "-"), then a replacement.
 */
static int parse_members(struct array_snap *s, char *text)
{
	char *line, *save = NULL, *tok[5], *save2;
	unsigned int n = 0, i;
	struct snap_member *m;
	uint64_t role;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (n >= SNAP_MAX_ENTRIES)
			return -EINVAL;
		m = &s->m[n];
		memset(m, 0, sizeof(*m));
		save2 = NULL;
		for (i = 0; i < 5; i++)
			tok[i] = strtok_r(i ? NULL : line, " ", &save2);
		if (!tok[2] || !tok[3])
			return -EINVAL;
		if (!strcmp(tok[0], "-")) {
			m->role = SNAP_ROLE_SPARE;
		} else if (!parse_u64(tok[0], &role) && role < STRIA_MAX_MEMBERS) {
			m->role = (int)role;
			m->replacement = n >= s->nr_members;
		} else {
			return -EINVAL;
		}
		snprintf(m->dev, sizeof(m->dev), "%s", tok[1]);
		snprintf(m->state, sizeof(m->state), "%s", tok[2]);
		if (parse_u64(tok[3], &m->errors) ||
		    (tok[4] && parse_u64(tok[4], &m->read_repairs)))
			return -EINVAL;
		n++;
	}
	s->nr_entries = n;
	return 0;
}

/* "name value" lines. */
static int parse_stats(struct array_snap *s, char *text)
{
	char *line, *save = NULL, *val;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (s->nr_stats >= SNAP_MAX_STATS)
			break;
		val = strchr(line, ' ');
		if (!val || (size_t)(val - line) >= sizeof(s->stats[0].name))
			return -EINVAL;
		*val++ = '\0';
		snprintf(s->stats[s->nr_stats].name, sizeof(s->stats[0].name),
			 "%s", line);
		if (parse_u64(val, &s->stats[s->nr_stats].value))
			return -EINVAL;
		s->nr_stats++;
	}
	return 0;
}

static int parse_io_stat(struct array_snap *s, const char *text)
{
	unsigned long long v[SNAP_IO_NR];
	int i;

	if (sscanf(text, "%llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
		   &v[2], &v[3], &v[4], &v[5], &v[6]) != SNAP_IO_NR)
		return -EINVAL;
	for (i = 0; i < SNAP_IO_NR; i++)
		s->io_stat[i] = v[i];
	s->has_io_stat = 1;
	return 0;
}

int snap_read(unsigned int index, struct array_snap *s)
{
	char buf[8192];
	uint64_t v = 0;
	int ret;

	memset(s, 0, sizeof(*s));
	s->index = index;
	ret = read_word(index, "name", s->name, sizeof(s->name));
	if (ret)
		return ret == -ENOENT || ret == -ENOTDIR ? -ENOENT : ret;
	ret = read_word(index, "uuid", s->uuid, sizeof(s->uuid));
	if (!ret)
		ret = read_u64(index, "level", &v);
	s->level = (unsigned int)v;
	if (!ret)
		ret = read_word(index, "state", s->state, sizeof(s->state));
	if (!ret)
		ret = read_u64(index, "nr_members", &v);
	s->nr_members = (unsigned int)v;
	if (!ret)
		ret = read_attr(index, "members", buf, sizeof(buf));
	if (!ret)
		ret = parse_members(s, buf);
	if (!ret)
		ret = read_word(index, "sync_action", s->sync_action,
				sizeof(s->sync_action));
	if (!ret)
		ret = read_word(index, "sync_completed", buf, sizeof(buf));
	if (!ret && strcmp(buf, "none") &&
	    sscanf(buf, "%" SCNu64 " / %" SCNu64, &s->sync_done,
		   &s->sync_total) != 2)
		ret = -EINVAL;
	if (!ret)
		ret = read_u64(index, "sync_speed", &s->sync_speed);
	if (!ret)
		ret = read_u64(index, "mismatch_cnt", &s->mismatch_cnt);
	/* a module that locates RAID6 mismatches has these */
	if (!ret && read_u64(index, "mismatch_located", &s->mismatch_located))
		s->mismatch_located = 0;
	if (!ret && read_u64(index, "mismatch_unlocatable",
			     &s->mismatch_unlocatable))
		s->mismatch_unlocatable = 0;
	if (!ret)
		ret = read_u64(index, "events", &s->events);
	/* the disk's own file; resync_owed: RAID5/6, of a recent module */
	if (!ret && !read_u64(index, "../ro", &v))
		s->readonly = v != 0;
	if (!ret && !read_u64(index, "resync_owed", &v))
		s->resync_owed = v != 0;
	if (!ret && !read_attr(index, "io_stat", buf, sizeof(buf)))
		ret = parse_io_stat(s, buf);
	/* RAID5/6 only */
	if (!ret && !read_attr(index, "raid56_stats", buf, sizeof(buf)))
		ret = parse_stats(s, buf);
	return ret == -ENOTDIR ? -ENOENT : ret;
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

int snap_list(unsigned int *idx, size_t cap)
{
	char path[256];
	struct dirent *d;
	unsigned long v;
	size_t n = 0;
	char *end;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/block", snap_sysfs);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((d = readdir(dir))) {
		if (strncmp(d->d_name, "stria", 5) ||
		    !isdigit((unsigned char)d->d_name[5]))
			continue;
		v = strtoul(d->d_name + 5, &end, 10);
		if (*end || v > 1000000)
			continue;
		if (n < cap)
			idx[n] = (unsigned int)v;
		n++;
	}
	closedir(dir);
	qsort(idx, n < cap ? n : cap, sizeof(*idx), cmp_uint);
	return (int)n;
}

const struct snap_member *snap_role(const struct array_snap *s, int role)
{
	unsigned int i;

	for (i = 0; i < s->nr_entries; i++)
		if (s->m[i].role == role && !s->m[i].replacement)
			return &s->m[i];
	return NULL;
}

const struct snap_member *snap_dev(const struct array_snap *s,
				   const char *dev)
{
	unsigned int i;

	for (i = 0; i < s->nr_entries; i++)
		if (!strcmp(s->m[i].dev, dev))
			return &s->m[i];
	return NULL;
}
