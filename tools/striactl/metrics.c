// SPDX-License-Identifier: GPL-2.0
/*
 * striactl status -o prometheus: the arrays' state and counters in the
 * Prometheus text exposition format, as node_exporter's textfile collector
 * reads it (a .prom file, written whole and renamed into place). Every
 * value is read from sysfs (snapshot.h) and printed in the unit its name
 * says; every family has its HELP and TYPE, and all of its samples
 * together, array after array. States are one series per possible state,
 * 1 for the one it is in, so a series does not vanish when the state
 * changes (as node_exporter's node_md_state). stria_up comes first, also
 * when the module is not loaded: 0 then, so that an alert can fire on it.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "metrics.h"

static const char *const array_states[] = { "active", "degraded", "failed" };
static const char *const member_states[] = {
	"active", "failed", "rebuilding", "spare", "replacement",
};
static const char *const sync_actions[] = {
	"idle", "rebuild", "check", "repair", "resync", "replace", "reshape",
};

/* What each raid56_stats counter counts; others get a generic help. */
static const struct {
	const char *name;
	const char *help;
} raid56_help[] = {
	{ "full_stripe", "Column segments written from new data alone, without member reads." },
	{ "rmw", "Column segments written by read-modify-write." },
	{ "rcw", "Column segments written by reconstruct-write." },
	{ "degraded_write", "Column segments written with a member failed." },
	{ "degraded_read", "Column segments of failed or rebuilding members rebuilt for reads." },
	{ "member_reads", "Member reads issued by writes and rebuilds." },
	{ "lock_waits", "Stripe operations that found their stripe busy and waited." },
	{ "read_retries", "Stripe operations planned again because a member failed under them." },
	{ "sync", "Slices of stripes rebuilt, checked, repaired or resynced by the background sync." },
	{ "merged", "Writes merged into a waiting partial-stripe write." },
	{ "merge_timeouts", "Parked partial-stripe writes that went on unfilled after their wait." },
	{ "merge_idle", "Parked partial-stripe writes that went on unfilled as no other write of their CPU was in flight." },
	{ "read_repairs", "Failed member reads rebuilt from the other members and written back." },
	{ "zeroed", "Slices of stripes a discard or write-zeroes request covered whole, zeroed on every member." },
	{ "zero_pages", "Members written with the zero page because they lacked write-zeroes or refused it." },
	{ "spread", "Full-stripe writes handed by a submitting CPU busy with others to an idle CPU." },
};

/* io_stat's fields: metric name, help, sectors (printed as bytes) */
static const struct {
	const char *name;
	const char *help;
	int sectors;
} io_fields[SNAP_IO_NR] = {
	[SNAP_IO_READS] = { "stria_array_reads_total", "Read requests the array completed.", 0 },
	[SNAP_IO_READ_SECTORS] = { "stria_array_read_bytes_total", "Bytes the array read.", 1 },
	[SNAP_IO_WRITES] = { "stria_array_writes_total", "Write requests the array completed.", 0 },
	[SNAP_IO_WRITE_SECTORS] = { "stria_array_written_bytes_total", "Bytes the array wrote.", 1 },
	[SNAP_IO_FLUSHES] = { "stria_array_flushes_total", "Flush requests (each goes to every member).", 0 },
	[SNAP_IO_DISCARDS] = { "stria_array_discards_total", "Discard, secure-erase and write-zeroes requests.", 0 },
	[SNAP_IO_ERRORS] = { "stria_array_errors_total", "Requests the array completed with an error.", 0 },
};

static void family(FILE *f, const char *name, const char *type,
		   const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A label value, escaped as the format wants: \\, \" and \n. */
static void label_value(FILE *f, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fprintf(f, "\\%c", *v);
		else if (*v == '\n')
			fputs("\\n", f);
		else
			fputc(*v, f);
	}
}

/* NAME{array="...",device="striaN" (more labels, then sample_end()) */
static void sample_start(FILE *f, const char *name,
			 const struct array_snap *s)
{
	fprintf(f, "%s{array=\"", name);
	label_value(f, s->name);
	fprintf(f, "\",device=\"stria%u\"", s->index);
}

static void label(FILE *f, const char *key, const char *val)
{
	fprintf(f, ",%s=\"", key);
	label_value(f, val);
	fputc('"', f);
}

static void sample_end(FILE *f, uint64_t v)
{
	fprintf(f, "} %" PRIu64 "\n", v);
}

/* One sample per array: NAME{array,device} VALUE. */
static void per_array(FILE *f, const struct array_snap *a, size_t n,
		      const char *name, const char *type, const char *help,
		      uint64_t (*value)(const struct array_snap *s))
{
	size_t i;

	family(f, name, type, help);
	for (i = 0; i < n; i++) {
		sample_start(f, name, &a[i]);
		sample_end(f, value(&a[i]));
	}
}

static uint64_t v_members(const struct array_snap *s)
{
	return s->nr_members;
}

static uint64_t v_sync_done(const struct array_snap *s)
{
	return s->sync_done * 512;
}

static uint64_t v_sync_total(const struct array_snap *s)
{
	return s->sync_total * 512;
}

static uint64_t v_sync_speed(const struct array_snap *s)
{
	return s->sync_speed * 1024;
}

static uint64_t v_mismatch(const struct array_snap *s)
{
	return s->mismatch_cnt;
}

static uint64_t v_located(const struct array_snap *s)
{
	return s->mismatch_located;
}

static uint64_t v_unlocatable(const struct array_snap *s)
{
	return s->mismatch_unlocatable;
}

/* The label set of a member: its device ("missing": none) and role. */
static void member_labels(FILE *f, const struct snap_member *m)
{
	char role[16];

	label(f, "member", strcmp(m->dev, "-") ? m->dev : "missing");
	if (m->role == SNAP_ROLE_SPARE)
		snprintf(role, sizeof(role), "spare");
	else
		snprintf(role, sizeof(role), "%d", m->role);
	label(f, "role", role);
}

static void print_states(FILE *f, const struct array_snap *a, size_t n)
{
	unsigned int i, j, k, count;
	char level[16];

	family(f, "stria_array_info", "gauge",
	       "A running array: its name, device, UUID and RAID level; always 1.");
	for (i = 0; i < n; i++) {
		sample_start(f, "stria_array_info", &a[i]);
		label(f, "uuid", a[i].uuid);
		snprintf(level, sizeof(level), "%u", a[i].level);
		label(f, "level", level);
		sample_end(f, 1);
	}
	family(f, "stria_array_state", "gauge",
	       "1 for the state the array is in, 0 for the others: active (no member failed), degraded (running on its redundancy), failed (beyond it).");
	for (i = 0; i < n; i++)
		for (j = 0; j < 3; j++) {
			sample_start(f, "stria_array_state", &a[i]);
			label(f, "state", array_states[j]);
			sample_end(f, !strcmp(a[i].state, array_states[j]));
		}
	per_array(f, a, n, "stria_array_members", "gauge",
		  "Members (roles) of the array.", v_members);
	family(f, "stria_array_devices", "gauge",
	       "Devices of the array by state: its members (active, failed, rebuilding), spares, and a replacement being copied.");
	for (i = 0; i < n; i++)
		for (j = 0; j < 5; j++) {
			/* a replacement counts as one, whatever its state */
			for (k = 0, count = 0; k < a[i].nr_entries; k++)
				count += !strcmp(a[i].m[k].replacement ?
						 "replacement" : a[i].m[k].state,
						 member_states[j]);
			sample_start(f, "stria_array_devices", &a[i]);
			label(f, "state", member_states[j]);
			sample_end(f, count);
		}
	family(f, "stria_member_state", "gauge",
	       "1 for the state a member, spare or replacement is in, 0 for the others.");
	for (i = 0; i < n; i++)
		for (k = 0; k < a[i].nr_entries; k++)
			for (j = 0; j < 5; j++) {
				sample_start(f, "stria_member_state", &a[i]);
				member_labels(f, &a[i].m[k]);
				label(f, "state", member_states[j]);
				sample_end(f, !strcmp(a[i].m[k].state,
						      member_states[j]));
			}
}

/* One counter of every member, spare and replacement: the field at @off. */
static void member_counter(FILE *f, const struct array_snap *a, size_t n,
			   const char *name, const char *help, size_t off)
{
	unsigned int i, k;

	family(f, name, "counter", help);
	for (i = 0; i < n; i++)
		for (k = 0; k < a[i].nr_entries; k++) {
			sample_start(f, name, &a[i]);
			member_labels(f, &a[i].m[k]);
			sample_end(f, *(const uint64_t *)((const char *)&a[i].m[k] + off));
		}
}

static void print_member_counters(FILE *f, const struct array_snap *a,
				  size_t n)
{
	member_counter(f, a, n, "stria_member_errors_total",
		       "I/O errors a member returned since the array started, or since it took its role.",
		       offsetof(struct snap_member, errors));
	member_counter(f, a, n, "stria_member_read_repairs_total",
		       "Failed reads of a member rebuilt from the others and written back to it (RAID5/6).",
		       offsetof(struct snap_member, read_repairs));
}

static void print_sync(FILE *f, const struct array_snap *a, size_t n)
{
	unsigned int i, j;

	family(f, "stria_sync_action", "gauge",
	       "1 for the background sync running now (idle: none), 0 for the others.");
	for (i = 0; i < n; i++)
		for (j = 0; j < sizeof(sync_actions) / sizeof(sync_actions[0]); j++) {
			sample_start(f, "stria_sync_action", &a[i]);
			label(f, "action", sync_actions[j]);
			sample_end(f, !strcmp(a[i].sync_action, sync_actions[j]));
		}
	per_array(f, a, n, "stria_sync_completed_bytes", "gauge",
		  "Bytes per member the running sync has done; 0 when none runs.",
		  v_sync_done);
	per_array(f, a, n, "stria_sync_total_bytes", "gauge",
		  "Bytes per member the running sync covers; 0 when none runs.",
		  v_sync_total);
	per_array(f, a, n, "stria_sync_speed_bytes_per_second", "gauge",
		  "Bytes per second per member the running sync did over the last second.",
		  v_sync_speed);
	per_array(f, a, n, "stria_mismatch_sectors", "gauge",
		  "Sectors of parity the running or last check or repair found not matching the data (mismatch_cnt).",
		  v_mismatch);
	per_array(f, a, n, "stria_mismatch_located_stripes", "gauge",
		  "RAID6: stripes the running or last repair found one wrong chunk in, located and rewrote (mismatch_located).",
		  v_located);
	per_array(f, a, n, "stria_mismatch_unlocatable_stripes", "gauge",
		  "RAID6: stripes the running or last repair found wrong parity in that it could not trace to one chunk, left as they are (mismatch_unlocatable).",
		  v_unlocatable);
}

/* Is @name fit for a metric name's middle ([a-z0-9_])? */
static int stat_name_ok(const char *name)
{
	if (!*name)
		return 0;
	for (; *name; name++)
		if (!islower((unsigned char)*name) && !isdigit((unsigned char)*name) &&
		    *name != '_')
			return 0;
	return 1;
}

/* Has an earlier array than @i a raid56 counter named @name? */
static int stat_seen(const struct array_snap *a, size_t i, const char *name)
{
	size_t j, k;

	for (j = 0; j < i; j++)
		for (k = 0; k < a[j].nr_stats; k++)
			if (!strcmp(a[j].stats[k].name, name))
				return 1;
	return 0;
}

static void print_raid56(FILE *f, const struct array_snap *a, size_t n)
{
	char metric[96], help[160];
	const char *name, *h;
	size_t i, j, k, x;

	for (i = 0; i < n; i++) {
		for (k = 0; k < a[i].nr_stats; k++) {
			name = a[i].stats[k].name;
			if (!stat_name_ok(name) || stat_seen(a, i, name))
				continue;
			snprintf(metric, sizeof(metric), "stria_raid56_%s_total", name);
			snprintf(help, sizeof(help), "RAID5/6 stripe counter %s.", name);
			h = help;
			for (x = 0; x < sizeof(raid56_help) / sizeof(raid56_help[0]); x++)
				if (!strcmp(raid56_help[x].name, name))
					h = raid56_help[x].help;
			family(f, metric, "counter", h);
			for (j = i; j < n; j++)
				for (x = 0; x < a[j].nr_stats; x++) {
					if (strcmp(a[j].stats[x].name, name))
						continue;
					sample_start(f, metric, &a[j]);
					sample_end(f, a[j].stats[x].value);
				}
		}
	}
}

static void print_io(FILE *f, const struct array_snap *a, size_t n)
{
	size_t i;
	int k;

	for (k = 0; k < SNAP_IO_NR; k++) {
		family(f, io_fields[k].name, "counter", io_fields[k].help);
		for (i = 0; i < n; i++) {
			if (!a[i].has_io_stat)
				continue;
			sample_start(f, io_fields[k].name, &a[i]);
			sample_end(f, a[i].io_stat[k] *
				   (io_fields[k].sectors ? 512 : 1));
		}
	}
}

void metrics_print(FILE *f, int up, const struct array_snap *a, size_t n)
{
	/* always there: an alert on stria_up == 0 fires without the module */
	family(f, "stria_up", "gauge",
	       "1 when the stria module is loaded (arrays can run), 0 when it is not.");
	fprintf(f, "stria_up %d\n", !!up);
	if (!n)
		return;
	print_states(f, a, n);
	print_member_counters(f, a, n);
	print_sync(f, a, n);
	print_raid56(f, a, n);
	print_io(f, a, n);
}
