// SPDX-License-Identifier: GPL-2.0
/*
 * striactl status -o prometheus, from a made-up sysfs: the snapshot reader
 * (tools/striactl/snapshot.c) takes each file as the module writes it, and
 * the printer (tools/striactl/metrics.c) gives every family one HELP and
 * one TYPE line before all of its samples, array after array, with values
 * in the units their names say and label values escaped. The VM test
 * monitor/003 parses the real thing with the Prometheus client's parser.
 * TAP output on stdout.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../tools/striactl/snapshot.c"
#include "../../tools/striactl/metrics.c"
#include "tap.h"

static char root[] = "/tmp/stria-sysfs-XXXXXX";

static void put(unsigned int index, const char *file, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/block/stria%u/stria", root, index);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/block/stria%u/stria/%s", root, index,
		 file);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		tap(0, "cannot write %s", path);
		exit(1);
	}
}

/* A RAID5 array being rebuilt, and a RAID0 one with a quote in its name. */
static void make_sysfs(void)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/block", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/block/stria3", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/block/stria10", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/block/sda", root);
	mkdir(path, 0755);
	put(3, "name", "data\n");
	put(3, "uuid", "0b1c2d3e-4f50-6172-8394-a5b6c7d8e9fa\n");
	put(3, "level", "5\n");
	put(3, "state", "degraded\n");
	put(3, "nr_members", "4\n");
	put(3, "members", "0 nvme0n1 active 0 0\n1 nvme1n1 active 2 1 7\n"
	    "2 nvme4n1 rebuilding 0 0\n3 - failed 0 0\n- nvme5n1 spare 0 0\n");
	put(3, "sync_action", "rebuild\n");
	put(3, "sync_completed", "2048 / 32768\n");
	put(3, "sync_speed", "1500\n");
	put(3, "mismatch_cnt", "0\n");
	put(3, "events", "42\n");
	put(3, "io_stat", "10 80 20 160 3 1 0\n");
	put(3, "raid56_stats", "full_stripe 5\nrmw 7\nnew_thing 9\nBad-Name 1\n");
	put(10, "name", "scr\"atch\n");
	put(10, "uuid", "11111111-2222-3333-4444-555555555555\n");
	put(10, "level", "0\n");
	put(10, "state", "active\n");
	put(10, "nr_members", "2\n");
	put(10, "members", "0 nvme2n1 active 0 0\n1 nvme3n1 active 0 0\n");
	put(10, "sync_action", "idle\n");
	put(10, "sync_completed", "none\n");
	put(10, "sync_speed", "0\n");
	put(10, "mismatch_cnt", "0\n");
	put(10, "events", "3\n");
	put(10, "io_stat", "1 8 0 0 0 0 0\n");
}

static char *render(int up, struct array_snap *a, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		exit(1);
	metrics_print(f, up, a, n);
	fclose(f);
	return buf;
}

static int has_line(const char *text, const char *line)
{
	const char *p = text;
	size_t n = strlen(line);

	while ((p = strstr(p, line))) {
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return 1;
		p += n;
	}
	return 0;
}

/*
 * Every sample's family was announced by one HELP and one TYPE right
 * before its first sample, and no family comes back later.
 */
static int well_grouped(const char *text, char *why, size_t len)
{
	char *copy = strdup(text), *line, *save = NULL, cur[128] = "";
	char seen[64][128];
	int nseen = 0, i, help = 0;

	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "# HELP ", 7)) {
			sscanf(line + 7, "%127s", cur);
			for (i = 0; i < nseen; i++)
				if (!strcmp(seen[i], cur)) {
					snprintf(why, len, "%s announced twice", cur);
					free(copy);
					return 0;
				}
			snprintf(seen[nseen++ % 64], 128, "%s", cur);
			help = 1;
			continue;
		}
		if (!strncmp(line, "# TYPE ", 7)) {
			if (!help || strncmp(line + 7, cur, strlen(cur)) ||
			    line[7 + strlen(cur)] != ' ') {
				snprintf(why, len, "TYPE without its HELP: %s", line);
				free(copy);
				return 0;
			}
			help = 0;
			continue;
		}
		/* NAME{labels} VALUE, or NAME VALUE for a family without labels */
		if (strncmp(line, cur, strlen(cur)) ||
		    (line[strlen(cur)] != '{' && line[strlen(cur)] != ' ')) {
			snprintf(why, len, "sample outside its family %s: %s", cur, line);
			free(copy);
			return 0;
		}
	}
	free(copy);
	return 1;
}

int main(void)
{
	struct array_snap a[2];
	unsigned int idx[8];
	char why[256] = "";
	char *text;
	int n;

	if (!mkdtemp(root))
		return 1;
	snap_sysfs = root;
	make_sysfs();

	n = snap_list(idx, 8);
	tap(n == 2 && idx[0] == 3 && idx[1] == 10,
	    "snap_list: stria3 and stria10, in order, not sda (%d)", n);
	tap(!snap_read(3, &a[0]), "snap_read stria3");
	tap(!strcmp(a[0].name, "data") && a[0].level == 5 &&
	    !strcmp(a[0].state, "degraded") && a[0].nr_members == 4 &&
	    a[0].nr_entries == 5, "stria3: name, level, state, 4 members, 5 lines");
	tap(a[0].m[1].errors == 2 && a[0].m[1].read_repairs == 1 &&
	    !strcmp(a[0].m[3].dev, "-") && a[0].m[4].role == SNAP_ROLE_SPARE &&
	    !a[0].m[4].replacement, "stria3: members, a sixth column ignored, a spare");
	tap(a[0].sync_done == 2048 && a[0].sync_total == 32768 &&
	    a[0].sync_speed == 1500 && a[0].nr_stats == 4 && a[0].has_io_stat,
	    "stria3: sync, raid56_stats, io_stat");
	tap(!snap_read(10, &a[1]) && !a[1].nr_stats && !a[1].sync_total,
	    "stria10: no raid56_stats (raid0), no sync");
	tap(snap_read(4, &a[1]) == -ENOENT, "an array not running: -ENOENT");
	put(10, "members", "0 nvme2n1 active x 0\n");
	tap(snap_read(10, &a[1]) == -EINVAL, "a members line with a bad count: -EINVAL");
	put(10, "members", "0 nvme2n1 active 0 0\n1 nvme3n1 active 0 0\n");
	snap_read(10, &a[1]);

	tap(!snap_module_loaded(), "no %s/module/stria: the module is not loaded", root);
	snprintf(why, sizeof(why), "%s/module", root);
	mkdir(why, 0755);
	snprintf(why, sizeof(why), "%s/module/stria", root);
	mkdir(why, 0755);
	tap(snap_module_loaded(), "%s/module/stria: the module is loaded", root);
	why[0] = '\0';

	text = render(1, a, 2);
	tap(well_grouped(text, why, sizeof(why)), "one HELP and TYPE per family, samples together (%s)", why);
	tap(!strncmp(text, "# HELP stria_up ", 16) &&
	    has_line(text, "# TYPE stria_up gauge") && has_line(text, "stria_up 1"),
	    "stria_up 1 first, a gauge, without labels");
	tap(has_line(text, "# TYPE stria_member_errors_total counter") &&
	    has_line(text, "# TYPE stria_array_state gauge"), "counters and gauges typed");
	tap(has_line(text, "stria_array_info{array=\"data\",device=\"stria3\",uuid=\"0b1c2d3e-4f50-6172-8394-a5b6c7d8e9fa\",level=\"5\"} 1"),
	    "array_info with its uuid and level");
	tap(has_line(text, "stria_array_info{array=\"scr\\\"atch\",device=\"stria10\",uuid=\"11111111-2222-3333-4444-555555555555\",level=\"0\"} 1"),
	    "a quote in a label value is escaped");
	tap(has_line(text, "stria_array_state{array=\"data\",device=\"stria3\",state=\"degraded\"} 1") &&
	    has_line(text, "stria_array_state{array=\"data\",device=\"stria3\",state=\"active\"} 0"),
	    "array_state: 1 for its state, 0 for the others");
	tap(has_line(text, "stria_array_devices{array=\"data\",device=\"stria3\",state=\"active\"} 2") &&
	    has_line(text, "stria_array_devices{array=\"data\",device=\"stria3\",state=\"failed\"} 1") &&
	    has_line(text, "stria_array_devices{array=\"data\",device=\"stria3\",state=\"rebuilding\"} 1") &&
	    has_line(text, "stria_array_devices{array=\"data\",device=\"stria3\",state=\"spare\"} 1"),
	    "devices by state");
	tap(has_line(text, "stria_member_state{array=\"data\",device=\"stria3\",member=\"missing\",role=\"3\",state=\"failed\"} 1") &&
	    has_line(text, "stria_member_state{array=\"data\",device=\"stria3\",member=\"nvme5n1\",role=\"spare\",state=\"spare\"} 1"),
	    "a removed member is 'missing', a spare's role 'spare'");
	tap(has_line(text, "stria_member_errors_total{array=\"data\",device=\"stria3\",member=\"nvme1n1\",role=\"1\"} 2") &&
	    has_line(text, "stria_member_read_repairs_total{array=\"data\",device=\"stria3\",member=\"nvme1n1\",role=\"1\"} 1"),
	    "errors and read repairs per member");
	tap(has_line(text, "stria_sync_action{array=\"data\",device=\"stria3\",action=\"rebuild\"} 1") &&
	    has_line(text, "stria_sync_action{array=\"scr\\\"atch\",device=\"stria10\",action=\"idle\"} 1"),
	    "sync_action");
	tap(has_line(text, "stria_sync_completed_bytes{array=\"data\",device=\"stria3\"} 1048576") &&
	    has_line(text, "stria_sync_total_bytes{array=\"data\",device=\"stria3\"} 16777216") &&
	    has_line(text, "stria_sync_speed_bytes_per_second{array=\"data\",device=\"stria3\"} 1536000") &&
	    has_line(text, "stria_sync_total_bytes{array=\"scr\\\"atch\",device=\"stria10\"} 0"),
	    "sync progress and speed in bytes; 0 when idle");
	tap(has_line(text, "stria_raid56_full_stripe_total{array=\"data\",device=\"stria3\"} 5") &&
	    has_line(text, "stria_raid56_new_thing_total{array=\"data\",device=\"stria3\"} 9") &&
	    !strstr(text, "Bad-Name") && !strstr(text, "stria_raid56_rmw_total{array=\"scr"),
	    "raid56 counters by name, a new one too; not a bad name; none for raid0");
	tap(has_line(text, "stria_array_read_bytes_total{array=\"data\",device=\"stria3\"} 40960") &&
	    has_line(text, "stria_array_flushes_total{array=\"data\",device=\"stria3\"} 3"),
	    "io_stat: sectors as bytes, counts as they are");
	free(text);
	text = render(1, a, 0);
	tap(well_grouped(text, why, sizeof(why)) && has_line(text, "stria_up 1") &&
	    !strstr(text, "stria_array"), "no arrays: stria_up 1 alone (%s)", why);
	free(text);
	text = render(0, a, 0);
	tap(well_grouped(text, why, sizeof(why)) && has_line(text, "stria_up 0") &&
	    !strncmp(text, "# HELP stria_up ", 16) &&
	    !strcmp(strchr(text, '\n') + 1, "# TYPE stria_up gauge\nstria_up 0\n"),
	    "no module: stria_up 0 alone, with its HELP and TYPE");
	free(text);
	snprintf(why, sizeof(why), "rm -rf %s", root);
	if (system(why))
		tap(0, "cannot remove %s", root);
	return tap_exit_code();
}
