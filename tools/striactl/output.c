// SPDX-License-Identifier: GPL-2.0
/*
 * striactl output printers: normal, JSON and export (see output.h).
 */
#include <ctype.h>
#include <inttypes.h>
#include <string.h>

#include "ident.h"
#include "output.h"

/* @c is written as \xHH: not printable ASCII, or the backslash itself. */
static int needs_escape(unsigned char c)
{
	return c < 0x20 || c >= 0x7f || c == '\\';
}

/**
 * escape_text() - @src with every byte needs_escape() names as \xHH
 * @dst: the result, always NUL-terminated; cut before an escape or a
 *	byte that does not fit, never inside one
 * @len: size of @dst
 * @src: the text
 *
 * Return: the length of @dst.
 */
size_t escape_text(char *dst, size_t len, const char *src)
{
	size_t n = 0;

	if (!len)
		return 0;
	for (; *src; src++) {
		unsigned char c = (unsigned char)*src;

		if (!needs_escape(c)) {
			if (n + 1 >= len)
				break;
			dst[n++] = (char)c;
		} else {
			if (n + 4 >= len)
				break;
			snprintf(dst + n, 5, "\\x%02x", c);
			n += 4;
		}
	}
	dst[n] = '\0';
	return n;
}

/* fputs(), with escape_text()'s escapes. */
void fputs_text(const char *s, FILE *f)
{
	for (; *s; s++) {
		if (needs_escape((unsigned char)*s))
			fprintf(f, "\\x%02x", (unsigned char)*s);
		else
			fputc(*s, f);
	}
}

int out_parse_format(const char *s, enum out_format *fmt)
{
	if (!strcmp(s, "normal") || !strcmp(s, "text"))
		*fmt = OUT_NORMAL;
	else if (!strcmp(s, "json"))
		*fmt = OUT_JSON;
	else if (!strcmp(s, "export"))
		*fmt = OUT_EXPORT;
	else if (!strcmp(s, "prometheus"))
		*fmt = OUT_PROMETHEUS;
	else
		return -1;
	return 0;
}

void out_init(struct out *o, FILE *f, enum out_format fmt)
{
	memset(o, 0, sizeof(*o));
	o->f = f;
	o->fmt = fmt;
}

/*
 * The length of the well-formed UTF-8 sequence at @s (RFC 3629: no
 * overlong forms, no surrogates, nothing above U+10FFFF), 0 if there is
 * none.
 */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

/*
 * A JSON string is UTF-8 (RFC 8259), and a device path is any bytes: a
 * byte that starts no well-formed UTF-8 sequence comes out as U+FFFD, as
 * systemd's and Python's decoders replace it; control characters and DEL
 * as \u escapes.
 */
static void json_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n;

	fputc('"', f);
	while (*s) {
		if (*s == '"' || *s == '\\') {
			fprintf(f, "\\%c", *s++);
		} else if (*s < 0x20 || *s == 0x7f) {
			fprintf(f, "\\u%04x", *s++);
		} else if (*s < 0x80) {
			fputc(*s++, f);
		} else if ((n = utf8_len(s))) {
			fwrite(s, 1, n, f);
			s += n;
		} else {
			fputs("\\ufffd", f);
			s++;
		}
	}
	fputc('"', f);
}

static void indent(struct out *o, int extra)
{
	int i;

	for (i = 0; i < o->depth + extra; i++)
		fputs("  ", o->f);
}

/* JSON: separator, newline and key before the next item at this depth. */
static void json_item(struct out *o, const char *key)
{
	if (o->count[o->depth]++)
		fputc(',', o->f);
	if (!o->compact) {
		fputc('\n', o->f);
		indent(o, 1);
	}
	if (key && !o->is_array[o->depth]) {
		json_string(o->f, key);
		fputs(o->compact ? ":" : ": ", o->f);
	}
}

/* export: STRIA_<path...>_<KEY>=, upper case, non-alphanumerics as '_'. */
static void export_key(struct out *o, const char *key)
{
	const char *p;
	int i;

	fputs("STRIA", o->f);
	for (i = 1; i <= o->depth; i++) {
		fputc('_', o->f);
		for (p = o->path[i]; *p; p++)
			fputc(isalnum((unsigned char)*p) ?
			      toupper((unsigned char)*p) : '_', o->f);
	}
	fputc('_', o->f);
	for (p = key; *p; p++)
		fputc(isalnum((unsigned char)*p) ? toupper((unsigned char)*p) :
		      '_', o->f);
	fputc('=', o->f);
}

/*
 * A value for export: one line, safe for udev's IMPORT{program} and for
 * shell eval. Plain when it only has [A-Za-z0-9-_./:+,@]; else quoted, with
 * every byte that is not printable ASCII (control characters, newlines
 * above all: udev would read what follows one as a property of its own)
 * and the backslash written as \xHH. The values come from devices that
 * anyone may plug in.
 */
static void export_value(FILE *f, const char *s)
{
	const char *p;

	for (p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("-_./:+,@", *p))
			break;
	if (!*p && *s) {
		fputs(s, f);
	} else {
		fputc('\'', f);
		for (p = s; *p; p++) {
			unsigned char c = (unsigned char)*p;

			if (c == '\'')
				fputs("'\\''", f);
			else if (needs_escape(c))
				fprintf(f, "\\x%02x", c);
			else
				fputc(c, f);
		}
		fputc('\'', f);
	}
	fputc('\n', f);
}

void out_begin(struct out *o)
{
	o->depth = 0;
	o->count[0] = 0;
	o->is_array[0] = 0;
	if (o->fmt == OUT_JSON)
		fputc('{', o->f);
}

void out_end(struct out *o)
{
	if (o->fmt == OUT_JSON)
		fputs(o->compact ? "}\n" : "\n}\n", o->f);
	fflush(o->f);
}

static void open_container(struct out *o, const char *key, int array)
{
	char idx[16];

	if (o->depth + 1 >= OUT_MAX_DEPTH)
		return;
	if (!key) {
		snprintf(idx, sizeof(idx), "%d", o->count[o->depth]);
		key = idx;
	}
	switch (o->fmt) {
	case OUT_JSON:
		json_item(o, key);
		fputc(array ? '[' : '{', o->f);
		break;
	case OUT_NORMAL:
		indent(o, 0);
		if (o->is_array[o->depth])
			fprintf(o->f, "[%s]\n", key);
		else
			fprintf(o->f, "%s:\n", key);
		o->count[o->depth]++;
		break;
	case OUT_EXPORT:
	case OUT_PROMETHEUS:
		o->count[o->depth]++;
		break;
	}
	o->depth++;
	o->count[o->depth] = 0;
	o->is_array[o->depth] = array;
	snprintf(o->path[o->depth], sizeof(o->path[0]), "%s", key);
}

static void close_container(struct out *o, int array)
{
	if (o->depth == 0)
		return;
	if (o->fmt == OUT_JSON) {
		if (o->count[o->depth] && !o->compact) {
			fputc('\n', o->f);
			indent(o, 0);
		}
		fputc(array ? ']' : '}', o->f);
	}
	o->depth--;
}

void out_obj_begin(struct out *o, const char *key)
{
	open_container(o, key, 0);
}

void out_obj_end(struct out *o)
{
	close_container(o, 0);
}

void out_arr_begin(struct out *o, const char *key)
{
	open_container(o, key, 1);
}

void out_arr_end(struct out *o)
{
	close_container(o, 1);
}

static void out_raw(struct out *o, const char *key, const char *val, int quote)
{
	char idx[16];

	if (!key || o->is_array[o->depth]) {
		snprintf(idx, sizeof(idx), "%d", o->count[o->depth]);
		key = idx;
	}
	switch (o->fmt) {
	case OUT_JSON:
		json_item(o, key);
		if (quote)
			json_string(o->f, val);
		else
			fputs(val, o->f);
		break;
	case OUT_NORMAL:
		indent(o, 0);
		fprintf(o->f, "%s: ", key);
		fputs_text(val, o->f);
		fputc('\n', o->f);
		o->count[o->depth]++;
		break;
	case OUT_EXPORT:
		export_key(o, key);
		export_value(o->f, val);
		o->count[o->depth]++;
		break;
	case OUT_PROMETHEUS:
		break;
	}
}

void out_str(struct out *o, const char *key, const char *val)
{
	out_raw(o, key, val ? val : "", 1);
}

/*
 * The known parts of @id, keys "serial", "model", "wwid", "pci_address"
 * and "slot" (ident_fields[]) after @prefix, and "identity_from":
 * "last-seen" when @cached (it came from what was last seen of a drive
 * that is gone): detail's members ("") and monitor's events ("member_").
 */
void out_ident(struct out *o, const char *prefix, const struct drive_ident *id,
	       int cached)
{
	char key[48];
	size_t i;

	for (i = 0; i < nr_ident_fields; i++) {
		if (!ident_get(id, &ident_fields[i])[0])
			continue;
		snprintf(key, sizeof(key), "%s%s", prefix, ident_fields[i].key);
		out_str(o, key, ident_get(id, &ident_fields[i]));
	}
	if (cached) {
		snprintf(key, sizeof(key), "%sidentity_from", prefix);
		out_str(o, key, "last-seen");
	}
}

void out_u64(struct out *o, const char *key, uint64_t val)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, val);
	out_raw(o, key, buf, 0);
}

void out_s64(struct out *o, const char *key, int64_t val)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRId64, val);
	out_raw(o, key, buf, 0);
}

void out_bool(struct out *o, const char *key, int val)
{
	out_raw(o, key, val ? "true" : "false", 0);
}

void out_null(struct out *o, const char *key)
{
	if (o->fmt == OUT_JSON)
		out_raw(o, key, "null", 0);
	else
		out_raw(o, key, "none", 0);
}
