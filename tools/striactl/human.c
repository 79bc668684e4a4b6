// SPDX-License-Identifier: GPL-2.0
/*
 * striactl status and detail for people (-o normal): one screen per array
 * in the manner of mdadm --detail (aligned fields, the members as a table,
 * a running sync as a bar with its ETA), and one paragraph per array for
 * all of them in the manner of /proc/mdstat. Plain text: no escape
 * sequence, nothing cut; lines that would pass the width (the terminal's,
 * else $COLUMNS, else 80) are wrapped. -o json and --export do not come
 * here (output.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/stria.h>

#include "ident.h"
#include "striactl.h"
#include "ondisk.h"

/* The width to wrap at: the terminal's, else $COLUMNS, else 80. */
static int out_width(FILE *f)
{
	struct winsize ws;
	const char *cols = getenv("COLUMNS");
	int n;

	if (isatty(fileno(f)) && !ioctl(fileno(f), TIOCGWINSZ, &ws) &&
	    ws.ws_col >= 40)
		return ws.ws_col;
	n = cols ? atoi(cols) : 0;
	return n >= 40 ? n : 80;
}

static void wrap_words(FILE *f, const char *text, int col, int indent,
		       int width);

/*
 * "Key : value", the key right-aligned as mdadm --detail has it, the value
 * wrapped under itself at the output's width.
 */
static void field(FILE *f, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void field(FILE *f, const char *key, const char *fmt, ...)
{
	char value[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(value, sizeof(value), fmt, ap);
	va_end(ap);
	fprintf(f, "%16s : ", key);
	wrap_words(f, value, 19, 19, out_width(f));
}

/*
 * Words of @text printed from column @col on, wrapped before @width;
 * continuation lines start with @indent spaces.
 */
static void wrap_words(FILE *f, const char *text, int col, int indent,
		       int width)
{
	const char *p = text, *end;
	int len, first = 1, line_start = 1;

	while (*p) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		end = strchr(p, ' ');
		len = end ? (int)(end - p) : (int)strlen(p);
		if (!line_start && col + 1 + len > width) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
			line_start = 1;
		} else if (!first) {
			fputc(' ', f);
			col++;
		}
		first = 0;
		line_start = 0;
		fprintf(f, "%.*s", len, p);
		col += len;
		p += len;
	}
	fputc('\n', f);
}

/* Print @line without its trailing spaces, and a newline. */
static void put_line(FILE *f, char *line)
{
	size_t n = strlen(line);

	while (n && line[n - 1] == ' ')
		line[--n] = '\0';
	fprintf(f, "%s\n", line);
}

static int has_sync(const struct stria_ioc_query *q)
{
	return q->size >= offsetof(struct stria_ioc_query, bitmap_chunk);
}

/*
 * The running sync: "rebuild [=====>     ] 45.2%, 12.0 MiB/s, ETA 0:00:31";
 * when none runs, how the last one ended.
 */
static void sync_text(const struct stria_ioc_query *q, char *buf, size_t len)
{
	uint64_t permille = q->sync_total ?
			    q->sync_done * 1000 / q->sync_total : 0;
	char bar[64], spd[32], eta[32];

	if (q->sync_action == STRIA_SYNC_IDLE) {
		snprintf(buf, len, "idle%s%s%s", q->sync_result ? " (the last one " : "",
			 !q->sync_result ? "" : q->sync_result == -EINTR ?
			 "was stopped" : strerror(-q->sync_result),
			 q->sync_result ? ")" : "");
		return;
	}
	progress_bar(bar, sizeof(bar), permille, 20, '.');	/* as /proc/mdstat */
	fmt_size((uint64_t)q->sync_speed * 1024, spd, sizeof(spd));
	if (q->sync_speed)
		fmt_duration((q->sync_total - q->sync_done) / 2 / q->sync_speed,
			     eta, sizeof(eta));
	else
		snprintf(eta, sizeof(eta), "unknown");
	snprintf(buf, len, "%s %s %llu.%llu%%, %s/s, ETA %s",
		 sync_name(q->sync_action), bar,
		 (unsigned long long)(permille / 10),
		 (unsigned long long)(permille % 10), spd, eta);
}

static void bitmap_text(const struct stria_ioc_query *q, char *buf, size_t len)
{
	char size[32];

	if (!q->bitmap_chunk) {
		snprintf(buf, len, "none");
		return;
	}
	fmt_size((uint64_t)q->bitmap_chunk << 9, size, sizeof(size));
	snprintf(buf, len, "%u of %llu regions dirty, %s per region",
		 q->bitmap_dirty,
		 (unsigned long long)stria_bitmap_regions(q->member_sectors,
							  q->bitmap_chunk),
		 size);
}

/* "raid5, left-symmetric, 64 KiB chunks" */
static void level_text(const struct stria_ioc_query *q, char *buf, size_t len)
{
	char chunk[32];

	fmt_size((uint64_t)q->chunk_sectors << 9, chunk, sizeof(chunk));
	snprintf(buf, len, "raid%u%s%s, %s chunks", q->level,
		 q->level ? ", " : "",
		 q->level ? stria_parity_layout_name(q->level, q->layout) : "",
		 chunk);
}

/* "cpus 0-3,8 -> queue 0; cpus 4-7 -> queue 1", wrapped */
static void cpu_map_text(FILE *f, const uint32_t *map, uint32_t ncpu, int width)
{
	char text[8192] = "";
	size_t n = 0;
	uint32_t qn, cpu, start;
	int first;

	for (qn = 0; qn < ncpu && n < sizeof(text); qn++) {
		first = 1;
		for (cpu = 0; cpu < ncpu && n < sizeof(text); cpu++) {
			if (map[cpu] != qn)
				continue;
			start = cpu;
			while (cpu + 1 < ncpu && map[cpu + 1] == qn)
				cpu++;
			n += snprintf(text + n, sizeof(text) - n, "%s%u",
				      first ? (n ? "; cpus " : "cpus ") : ",", start);
			if (start != cpu && n < sizeof(text))
				n += snprintf(text + n, sizeof(text) - n, "-%u", cpu);
			first = 0;
		}
		if (!first && n < sizeof(text))
			n += snprintf(text + n, sizeof(text) - n, " -> queue %u", qn);
	}
	fprintf(f, "%16s : ", "CPU to queue");
	wrap_words(f, text, 19, 19, width);
}

/*
 * Which drive each member is: serial, PCI address, slot and model, then
 * the WWN/EUI in a table of its own (it can be long); "-" for what sysfs
 * does not say, and a note under a role whose drive is gone and was
 * last seen so.
 */
static void drives_text(FILE *f, const struct stria_ioc_query *q,
			const struct stria_ioc_member *m, int width)
{
	uint32_t i, n = q->nr_members + q->nr_spares;
	struct drive_ident id[STRIA_MAX_MEMBERS + STRIA_MAX_SPARES];
	int cached[STRIA_MAX_MEMBERS + STRIA_MAX_SPARES], any = 0;
	char role[16], row[160];

	if (n > STRIA_MAX_MEMBERS + STRIA_MAX_SPARES)
		n = STRIA_MAX_MEMBERS + STRIA_MAX_SPARES;
	for (i = 0; i < n; i++) {
		cached[i] = member_ident(q, &m[i], i < q->nr_members, &id[i]);
		any |= cached[i];
	}
#define DASH(s) ((s)[0] ? (s) : "-")
	fprintf(f, "\n%6s  %-20s %-12s %-8s %s\n", "Role", "Serial",
		"PCI address", "Slot", "Model");
	for (i = 0; i < n; i++) {
		if (i < q->nr_members)
			snprintf(role, sizeof(role), "%u%s", m[i].role,
				 cached[i] ? "*" : "");
		else
			snprintf(role, sizeof(role), "-");
		snprintf(row, sizeof(row), "%6s  %-20s %-12s %-8s ", role,
			 DASH(id[i].serial), DASH(id[i].pci), DASH(id[i].slot));
		fputs(row, f);
		wrap_words(f, DASH(id[i].model), (int)strlen(row),
			   (int)strlen(row), width);
	}
	if (any)
		fprintf(f, "%6s  %s\n", "*", "gone: the drive last seen in that role");
	fprintf(f, "\n%6s  %s\n", "Role", "WWN/EUI");
	for (i = 0; i < n; i++) {
		if (i < q->nr_members)
			snprintf(role, sizeof(role), "%u", m[i].role);
		else
			snprintf(role, sizeof(role), "-");
		fprintf(f, "%6s  ", role);
		wrap_words(f, DASH(id[i].wwid), 8, 8, width);
	}
#undef DASH
}

/**
 * human_array() - one array's screen
 * @f: where to print
 * @q: the array
 * @m: its members, then its spares
 * @detail: add geometry, events, NUMA, member sizes and UUIDs, the CPU map
 * @cpu_map: the CPU -> hardware queue map (with @detail), or NULL
 */
void human_array(FILE *f, const struct stria_ioc_query *q,
		 const struct stria_ioc_member *m, int detail,
		 const uint32_t *cpu_map)
{
	char buf[256], size[32], uuid[40], dev[64], row[160];
	uint32_t i, n = q->nr_members + q->nr_spares;
	int width = out_width(f);
	size_t len;

	fprintf(f, "/dev/stria%u (%s)\n", q->index, q->name);
	uuid_fmt(q->uuid, uuid);
	field(f, "UUID", "%s", uuid);
	if (detail) {
		array_homehost(q->index, buf, sizeof(buf));
		field(f, "Home host", "%s", buf[0] ? buf : "none");
	}
	level_text(q, buf, sizeof(buf));
	field(f, "Level", "%s", buf);
	fmt_size(q->array_sectors << 9, size, sizeof(size));
	field(f, "Size", "%s (%llu bytes)", size,
	      (unsigned long long)q->array_sectors << 9);
	if (detail) {
		fmt_size(q->member_sectors << 9, size, sizeof(size));
		field(f, "Member data", "%s each, from sector %llu", size,
		      (unsigned long long)q->data_offset);
	}
	field(f, "State", "%s%s", array_state_name(q->state),
	      q->array_flags & STRIA_QUERY_A_READONLY ?
	      ", read-only: nothing is written until 'striactl readwrite'" : "");
	field(f, "Members", "%u, %u failed; %u spare%s", q->nr_members,
	      q->nr_failed, q->nr_spares, q->nr_spares == 1 ? "" : "s");
	if (q->size >= QUERY_SIZE_BITMAP) {
		bitmap_text(q, buf, sizeof(buf));
		field(f, "Bitmap", "%s", buf);
	}
	if (has_sync(q)) {
		sync_text(q, buf, sizeof(buf));
		field(f, "Sync", "%s", buf);
		if (q->mismatch_cnt)
			field(f, "Mismatches", "%llu sectors (the last check or repair)",
			      (unsigned long long)q->mismatch_cnt);
		if (q->size >= QUERY_SIZE_LOCATE &&
		    (q->mismatch_located || q->mismatch_unlocatable))
			field(f, "Located", "%llu stripes with one wrong chunk, rewritten; %llu not traceable to one chunk, left as they are (the last repair)",
			      (unsigned long long)q->mismatch_located,
			      (unsigned long long)q->mismatch_unlocatable);
	}
	if (detail) {
		if (q->nr_hw_queues)
			snprintf(buf, sizeof(buf), "%u hardware queues",
				 q->nr_hw_queues);
		else
			snprintf(buf, sizeof(buf),
				 "no queues of its own (I/O goes to the members' queues)");
		if (q->numa_node == STRIA_NODE_AUTO)
			field(f, "NUMA node", "any, %s", buf);
		else
			field(f, "NUMA node", "%u, %s", q->numa_node, buf);
		field(f, "Events", "%llu", (unsigned long long)q->events);
	}
	fputc('\n', f);
	snprintf(row, sizeof(row), "%6s  %-16s %-12s%s", "Role", "Device", "State",
		 detail ? " Node       Size" : "");
	put_line(f, row);
	for (i = 0; i < n && i < STRIA_MAX_MEMBERS + STRIA_MAX_SPARES; i++) {
		const struct stria_ioc_member *x = &m[i];

		member_devname(x->major, x->minor, dev, sizeof(dev));
		if (i < q->nr_members)
			snprintf(buf, sizeof(buf), "%u", x->role);
		else if (x->role != STRIA_NO_MEMBER)
			snprintf(buf, sizeof(buf), "(%u)", x->role);
		else
			snprintf(buf, sizeof(buf), "-");
		len = snprintf(row, sizeof(row), "%6s  %-16s %-12s", buf, dev,
			       state_name(x->state));
		if (detail && len < sizeof(row)) {
			fmt_size(x->dev_sectors << 9, size, sizeof(size));
			if (x->numa_node == STRIA_NODE_AUTO)
				snprintf(row + len, sizeof(row) - len, " %4s %10s", "-", size);
			else
				snprintf(row + len, sizeof(row) - len, " %4u %10s",
					 x->numa_node, size);
		}
		put_line(f, row);
	}
	if (!detail)
		return;
	fprintf(f, "\n%6s  %s\n", "Role", "Member UUID");
	for (i = 0; i < n && i < STRIA_MAX_MEMBERS + STRIA_MAX_SPARES; i++) {
		uuid_fmt(m[i].uuid, uuid);
		fprintf(f, "%6s  %s\n", i < q->nr_members ?
			(snprintf(buf, sizeof(buf), "%u", m[i].role), buf) : "-", uuid);
	}
	drives_text(f, q, m, width);
	if (cpu_map && q->nr_cpus && q->nr_hw_queues) {
		fputc('\n', f);
		cpu_map_text(f, cpu_map, q->nr_cpus, width);
	}
}

/**
 * human_summary() - one array in the manner of /proc/mdstat
 * @f: where to print
 * @q: the array
 * @m: its members, then its spares
 *
 * "stria0 (NAME) : active raid5 nvme0n1[0] nvme1n1[1](failed) ...", then
 * size, chunk, layout, [members/working] [U_U], the running sync and the
 * bitmap, indented.
 */
void human_summary(FILE *f, const struct stria_ioc_query *q,
		   const struct stria_ioc_member *m)
{
	char line[4096], dev[64], size[32], buf[256], *slash;
	uint32_t i, n = q->nr_members + q->nr_spares;
	int width = out_width(f);
	size_t len;

	len = snprintf(line, sizeof(line), "stria%u (%s) : %s%s raid%u",
		       q->index, q->name, array_state_name(q->state),
		       q->array_flags & STRIA_QUERY_A_READONLY ?
		       " (read-only)" : "", q->level);
	for (i = 0; i < n && i < STRIA_MAX_MEMBERS + STRIA_MAX_SPARES &&
	     len < sizeof(line); i++) {
		member_devname(m[i].major, m[i].minor, dev, sizeof(dev));
		slash = strrchr(dev, '/');
		if (i < q->nr_members)
			len += snprintf(line + len, sizeof(line) - len, " %s[%u]%s%s%s",
					slash ? slash + 1 : dev, m[i].role,
					m[i].state == STRIA_STATE_ACTIVE ? "" : "(",
					m[i].state == STRIA_STATE_ACTIVE ? "" :
					state_name(m[i].state),
					m[i].state == STRIA_STATE_ACTIVE ? "" : ")");
		else
			len += snprintf(line + len, sizeof(line) - len, " %s(%s)",
					slash ? slash + 1 : dev,
					m[i].role != STRIA_NO_MEMBER ? "replacement" : "spare");
	}
	wrap_words(f, line, 0, 6, width);

	fmt_size(q->array_sectors << 9, size, sizeof(size));
	level_text(q, buf, sizeof(buf));
	len = snprintf(line, sizeof(line), "%s, %s [%u/%u] [", size,
		       strchr(buf, ',') ? strchr(buf, ',') + 2 : buf,
		       q->nr_members, q->nr_members - q->nr_failed);
	for (i = 0; i < q->nr_members && i < STRIA_MAX_MEMBERS &&
	     len + 2 < sizeof(line); i++)
		line[len++] = m[i].state == STRIA_STATE_ACTIVE ? 'U' : '_';
	snprintf(line + len, sizeof(line) - len, "]");
	fprintf(f, "      ");
	wrap_words(f, line, 6, 6, width);
	if (has_sync(q) && q->sync_action != STRIA_SYNC_IDLE) {
		sync_text(q, buf, sizeof(buf));
		fprintf(f, "      ");
		wrap_words(f, buf, 6, 6, width);
	}
	if (q->size >= QUERY_SIZE_BITMAP && q->bitmap_chunk) {
		bitmap_text(q, buf, sizeof(buf));
		fprintf(f, "      bitmap: ");
		wrap_words(f, buf, 14, 14, width);
	}
}
