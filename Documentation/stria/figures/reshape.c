// SPDX-License-Identifier: GPL-2.0
/*
 * Prints the reshape figure of sync.rst from the driver's own plan
 * (drivers/stria/geom_reshape.h): a RAID0 of 4 members grown to 6, 12 rows
 * per member, at three moments: the critical rows backed up, a window
 * being moved, the end.
 *
 *   gcc -I drivers/stria -I include/uapi -o /tmp/reshape Documentation/stria/figures/reshape.c && /tmp/reshape
 *
 * A cell is the data chunk a member holds in a row. Rows below the
 * checkpoint W are in the new layout (chunk r x Dn + m), the others in the
 * old one (chunk r x Do + m), where a chunk already moved below W is shown
 * in parentheses (a stale copy, free to be overwritten); "b" marks the
 * backup of the critical rows on the added members.
 */
#include <stdio.h>
#include <string.h>

#include "geom_reshape.h"

#define FROM	4
#define TO	6
#define ROWS	12

static void cell(char *buf, size_t len, const struct stria_reshape_plan *p,
		 u64 w0, int backup, u64 r, u32 m)
{
	u64 c;

	if (r < w0) {
		snprintf(buf, len, "D%llu", (unsigned long long)(r * p->to_data + m));
		return;
	}
	if (m >= p->from_data) {
		u64 k = (r - p->backup_row) * p->added + (m - p->from_data);

		if (backup && r >= p->backup_row && k < p->critical * p->from_data)
			snprintf(buf, len, "b:D%llu", (unsigned long long)k);
		else
			snprintf(buf, len, "-");
		return;
	}
	c = r * p->from_data + m;
	if (c < w0 * p->to_data)
		snprintf(buf, len, "(D%llu)", (unsigned long long)c);
	else
		snprintf(buf, len, "D%llu", (unsigned long long)c);
}

/* print @line without its trailing blanks, then a newline */
static void put(char *line)
{
	size_t n = strlen(line);

	while (n && line[n - 1] == ' ')
		line[--n] = 0;
	printf("%s\n", line);
}

static void show(const struct stria_reshape_plan *p, u64 w0, int backup,
		 const char *title)
{
	u64 w = w0 < p->critical ? p->critical : stria_reshape_window(p, w0, ROWS);
	char line[256], buf[16];
	size_t n;
	u64 r;
	u32 m;

	printf("%s\n\n", title);
	n = snprintf(line, sizeof(line), "       ");
	for (m = 0; m < p->to_data; m++)
		n += snprintf(line + n, sizeof(line) - n, " %-8s",
			      m < p->from_data ? "member" : "added");
	put(line);
	n = snprintf(line, sizeof(line), "       ");
	for (m = 0; m < p->to_data; m++)
		n += snprintf(line + n, sizeof(line) - n, " %-8u", m);
	put(line);
	for (r = 0; r < p->rows; r++) {
		n = snprintf(line, sizeof(line), "row %-2llu ", (unsigned long long)r);
		for (m = 0; m < p->to_data; m++) {
			cell(buf, sizeof(buf), p, w0, backup, r, m);
			n += snprintf(line + n, sizeof(line) - n, " %-8s", buf);
		}
		if (w0 < p->rows_new && r == w0)
			snprintf(line + n, sizeof(line) - n,
				 " <- window: new rows %llu..%llu get D%llu..D%llu",
				 (unsigned long long)w0, (unsigned long long)(w0 + w - 1),
				 (unsigned long long)(w0 * p->to_data),
				 (unsigned long long)((w0 + w) * p->to_data - 1));
		else if (r == p->rows_new && w0 == p->rows_new)
			snprintf(line + n, sizeof(line) - n,
				 " <- the array grows into these rows");
		put(line);
	}
	printf("\n");
}

int main(void)
{
	struct stria_reshape_plan p;
	char title[160];
	u64 w0;

	if (stria_reshape_plan_init(&p, FROM, TO, TO - FROM, ROWS))
		return 1;
	printf("RAID0, %u members grown to %u, %u rows: %llu rows in the new layout, "
	       "critical rows K = %llu\n\n", FROM, TO, ROWS,
	       (unsigned long long)p.rows_new, (unsigned long long)p.critical);
	show(&p, 0, 1, "W = 0: the critical rows' chunks copied to the backup, marked");
	/* the first window past the critical rows wider than one row */
	for (w0 = p.critical; stria_reshape_window(&p, w0, ROWS) < 2; w0++)
		;
	snprintf(title, sizeof(title), "W = %llu: new rows below W durable, the next window",
		 (unsigned long long)w0);
	show(&p, w0, 0, title);
	show(&p, p.rows_new, 0, "The end: every chunk in the new layout");
	return 0;
}
