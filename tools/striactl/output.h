/* SPDX-License-Identifier: GPL-2.0 */
/*
 * striactl output: one set of calls, three printers. A display command
 * describes its result as nested objects, arrays and key/value pairs; the
 * chosen format renders it:
 *   normal  "key: value" lines, indented by nesting, for people;
 *   json    one JSON document (compact: on one line, as monitor's
 *           events are);
 *   export  KEY=value lines (STRIA_ prefix, nested names joined by '_'),
 *           for udev IMPORT{program} and shell eval.
 */
#ifndef STRIACTL_OUTPUT_H
#define STRIACTL_OUTPUT_H

#include <stdint.h>
#include <stdio.h>

/* OUT_PROMETHEUS: status only, printed by metrics.c, not here */
enum out_format { OUT_NORMAL, OUT_JSON, OUT_EXPORT, OUT_PROMETHEUS };

#define OUT_MAX_DEPTH 8

struct out {
	FILE *f;
	enum out_format fmt;
	int compact;			/* json: one line, no indent */
	int depth;
	int count[OUT_MAX_DEPTH];	/* items printed at each depth */
	int is_array[OUT_MAX_DEPTH];
	char path[OUT_MAX_DEPTH][48];	/* export: name at each depth */
};

int out_parse_format(const char *s, enum out_format *fmt);
void out_init(struct out *o, FILE *f, enum out_format fmt);
void out_begin(struct out *o);	/* root object */
void out_end(struct out *o);
void out_obj_begin(struct out *o, const char *key);	/* key NULL in arrays */
void out_obj_end(struct out *o);
void out_arr_begin(struct out *o, const char *key);
void out_arr_end(struct out *o);
void out_str(struct out *o, const char *key, const char *val);
struct drive_ident;
/* a drive's known identity (ident.h), each key after @prefix */
void out_ident(struct out *o, const char *prefix, const struct drive_ident *id,
	       int cached);
void out_u64(struct out *o, const char *key, uint64_t val);
void out_s64(struct out *o, const char *key, int64_t val);
void out_bool(struct out *o, const char *key, int val);
/* Nothing there (e.g. no bitmap): null in JSON, "none" in the others. */
void out_null(struct out *o, const char *key);

/*
 * Text from a device (a label, a name) for a terminal or a log: every byte
 * that is not printable ASCII, and the backslash, as \xHH.
 */
size_t escape_text(char *dst, size_t len, const char *src);
void fputs_text(const char *s, FILE *f);

#endif
