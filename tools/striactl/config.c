// SPDX-License-Identifier: GPL-2.0
/*
 * stria.conf parser (config.h, stria.conf(5)).
 *
 * The file is read whole, split into logical lines (continuations joined,
 * each remembering the line it started on), each logical line into words
 * (quotes, comments), and each keyword's words checked and stored. The
 * first bad line ends the parse with "FILE:LINE: what is wrong"; nothing
 * stays allocated then.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <linux/stria.h>

#include "config.h"
#include "ondisk.h"

/* One logical line's words, and where the line started. */
struct conf_line {
	int line;
	size_t nr;
	char **words;
};

struct conf_parser {
	const char *path;
	struct stria_conf *conf;
	char *err;
	size_t errlen;
};

static int conf_error(struct conf_parser *p, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int conf_error(struct conf_parser *p, int line, const char *fmt, ...)
{
	size_t n = 0;
	va_list ap;

	if (!p->errlen)
		return -EINVAL;
	if (line)
		n = (size_t)snprintf(p->err, p->errlen, "%s:%d: ", p->path, line);
	else
		n = (size_t)snprintf(p->err, p->errlen, "%s: ", p->path);
	if (n < p->errlen) {
		va_start(ap, fmt);
		vsnprintf(p->err + n, p->errlen - n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static void free_words(char **w, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(w[i]);
	free(w);
}

static int push_word(struct conf_line *l, const char *s, size_t len)
{
	char **w = realloc(l->words, (l->nr + 1) * sizeof(*w));

	if (!w)
		return -ENOMEM;
	l->words = w;
	w[l->nr] = strndup(s, len);
	if (!w[l->nr])
		return -ENOMEM;
	l->nr++;
	return 0;
}

/*
 * Split @text (one logical line, NUL-terminated) into words: runs of
 * anything but blanks, where "..." and '...' hold blanks and '#' too, and
 * a '#' where a word would start begins a comment.
 */
static int split_words(struct conf_parser *p, int line, const char *text,
		       struct conf_line *l)
{
	const char *s = text;
	char *buf = malloc(strlen(text) + 1);
	size_t len;
	char quote;
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	while (!ret) {
		while (*s == ' ' || *s == '\t' || *s == '\r')
			s++;
		if (!*s || *s == '#')
			break;
		len = 0;
		while (*s && *s != ' ' && *s != '\t' && *s != '\r') {
			if (*s != '"' && *s != '\'') {
				buf[len++] = *s++;
				continue;
			}
			quote = *s++;
			while (*s && *s != quote)
				buf[len++] = *s++;
			if (!*s) {
				ret = conf_error(p, line, "a %c quote is not closed",
						 quote);
				break;
			}
			s++;
		}
		if (!ret)
			ret = push_word(l, buf, len);
	}
	free(buf);
	return ret;
}

static int is_array_name(const char *s)
{
	char buf[STRIA_SB_NAME_LEN] = { 0 };

	if (strlen(s) >= sizeof(buf))
		return 0;
	memcpy(buf, s, strlen(s));
	return stria_name_valid(buf);
}

int conf_parse_uuid(const char *s, uint8_t *uuid)
{
	int n = 0, hi = -1, v;

	for (; *s; s++) {
		if (*s == '-' || *s == ':')
			continue;
		if (!isxdigit((unsigned char)*s) || n == 16)
			return -1;
		v = isdigit((unsigned char)*s) ? *s - '0' :
		    tolower((unsigned char)*s) - 'a' + 10;
		if (hi < 0) {
			hi = v;
		} else {
			uuid[n++] = (uint8_t)(hi << 4 | v);
			hi = -1;
		}
	}
	return n == 16 && hi < 0 ? 0 : -1;
}

int conf_array_line(char *buf, size_t len, const char *name,
		    const uint8_t *uuid, unsigned int level,
		    unsigned int members, unsigned int spares)
{
	const uint8_t *u = uuid;
	int n;

	/* is_array_name() also holds a name to one word of [A-Za-z0-9._-] */
	if (strnlen(name, CONF_NAME_LEN) >= CONF_NAME_LEN || !is_array_name(name))
		return -EINVAL;
	/* and the numbers to what parse_array_tag() reads back */
	if ((level != 0 && level != 1 && level != 5 && level != 6 &&
	     level != 10) || members < 2 ||
	    members > STRIA_MAX_MEMBERS || spares > STRIA_MAX_SPARES)
		return -EINVAL;
	n = snprintf(buf, len, "ARRAY /dev/stria/%s uuid=%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x level=raid%u members=%u spares=%u\n",
		     name, u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8],
		     u[9], u[10], u[11], u[12], u[13], u[14], u[15], level,
		     members, spares);
	return n < 0 || (size_t)n >= len ? -ENOSPC : n;
}

/*
 * A mail address: printable ASCII without blanks, quotes, brackets,
 * commas or semicolons, not starting with '-' (sendmail would take it for
 * an option): "root", "ops@example.com", "raid+alerts@example.com".
 */
int conf_mailaddr_valid(const char *addr)
{
	const char *s;

	if (!*addr || *addr == '-' || strlen(addr) > 254)
		return 0;
	for (s = addr; *s; s++)
		if (*s <= ' ' || *s >= 0x7f || strchr("\"'<>(),;:\\[]", *s))
			return 0;
	return 1;
}

/* A whole number 0 .. @max from @s, or -1. */
static int parse_count(const char *s, int max)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	return (int)v;
}

/* devices=GLOB,GLOB,...: the non-empty patterns into @a. */
static int parse_devices(struct conf_parser *p, int line, const char *val,
			 struct conf_array *a)
{
	const char *s = val, *comma;
	char **d;
	size_t len;

	while (*s) {
		comma = strchr(s, ',');
		len = comma ? (size_t)(comma - s) : strlen(s);
		if (!len)
			return conf_error(p, line, "devices= has an empty pattern: give GLOB,GLOB,... without empty ones");
		d = realloc(a->devices, (a->nr_devices + 1) * sizeof(*d));
		if (!d)
			return -ENOMEM;
		a->devices = d;
		d[a->nr_devices] = strndup(s, len);
		if (!d[a->nr_devices])
			return -ENOMEM;
		a->nr_devices++;
		s += len + (comma ? 1 : 0);
		if (comma && !*s)
			return conf_error(p, line, "devices= ends with a comma");
	}
	return 0;
}

static void free_array(struct conf_array *a)
{
	free_words(a->devices, a->nr_devices);
	a->devices = NULL;
	a->nr_devices = 0;
}

/* One name=value word of an ARRAY line. */
static int parse_array_tag(struct conf_parser *p, int line, const char *w,
			   struct conf_array *a)
{
	const char *eq = strchr(w, '=');
	const char *val = eq ? eq + 1 : NULL;
	size_t klen = eq ? (size_t)(eq - w) : strlen(w);
	int v;

	if (!eq)
		return conf_error(p, line, "'%s' is not a tag: ARRAY takes NAME, then uuid=, level=, members=, spares=, devices=",
				  w);
#define IS(tag) (klen == strlen(tag) && !strncasecmp(w, tag, klen))
	if (IS("uuid")) {
		if (a->has_uuid)
			return conf_error(p, line, "uuid= is given twice");
		if (conf_parse_uuid(val, a->uuid))
			return conf_error(p, line, "uuid=%s is not a UUID (32 hex digits, as striactl detail shows it)",
					  val);
		a->has_uuid = 1;
	} else if (IS("level")) {
		if (a->level >= 0)
			return conf_error(p, line, "level= is given twice");
		if (!strncasecmp(val, "raid", 4))
			val += 4;
		v = parse_count(val, 10);
		if (v != 0 && v != 1 && v != 5 && v != 6 && v != 10)
			return conf_error(p, line, "level=%s is not a stria level (0, 1, 5, 6, 10, raid0, raid1, raid5, raid6, raid10)",
					  eq + 1);
		a->level = v;
	} else if (IS("members")) {
		if (a->members >= 0)
			return conf_error(p, line, "members= is given twice");
		v = parse_count(val, STRIA_MAX_MEMBERS);
		if (v < 2)
			return conf_error(p, line, "members=%s is not a member count (2 to %d)",
					  val, STRIA_MAX_MEMBERS);
		a->members = v;
	} else if (IS("spares")) {
		if (a->spares >= 0)
			return conf_error(p, line, "spares= is given twice");
		v = parse_count(val, STRIA_MAX_SPARES);
		if (v < 0)
			return conf_error(p, line, "spares=%s is not a spare count (0 to %d)",
					  val, STRIA_MAX_SPARES);
		a->spares = v;
	} else if (IS("devices")) {
		if (a->nr_devices)
			return conf_error(p, line, "devices= is given twice");
		if (!*val)
			return conf_error(p, line, "devices= is empty");
		return parse_devices(p, line, val, a);
	} else {
		return conf_error(p, line, "unknown ARRAY tag '%.*s' (uuid, level, members, spares, devices)",
				  (int)klen, w);
	}
#undef IS
	return 0;
}

static int parse_array(struct conf_parser *p, const struct conf_line *l)
{
	struct stria_conf *c = p->conf;
	struct conf_array a = { .line = l->line, .level = -1, .members = -1,
				.spares = -1 };
	struct conf_array *arr;
	const char *name;
	size_t i;
	int ret;

	if (l->nr < 2)
		return conf_error(p, l->line, "ARRAY needs the array's name");
	name = l->words[1];
	if (!strncmp(name, "/dev/stria/", 11))
		name += 11;
	if (!is_array_name(name))
		return conf_error(p, l->line, "'%s' is not an array name (1 to 31 of A-Z a-z 0-9 . _ -, not starting with . or -)",
				  l->words[1]);
	strcpy(a.name, name);
	for (i = 2; i < l->nr; i++) {
		ret = parse_array_tag(p, l->line, l->words[i], &a);
		if (ret) {
			free_array(&a);
			return ret;
		}
	}
	for (i = 0; i < c->nr_arrays; i++) {
		if (!strcmp(c->arrays[i].name, a.name) ||
		    (a.has_uuid && c->arrays[i].has_uuid &&
		     !memcmp(c->arrays[i].uuid, a.uuid, sizeof(a.uuid)))) {
			ret = conf_error(p, l->line, "array '%s' is given twice (first at line %d)",
					 a.name, c->arrays[i].line);
			free_array(&a);
			return ret;
		}
	}
	arr = realloc(c->arrays, (c->nr_arrays + 1) * sizeof(*arr));
	if (!arr) {
		free_array(&a);
		return -ENOMEM;
	}
	c->arrays = arr;
	arr[c->nr_arrays++] = a;
	return 0;
}

static int parse_auto(struct conf_parser *p, const struct conf_line *l)
{
	struct stria_conf *c = p->conf;
	struct conf_auto_rule r;
	const char *w;
	size_t i;

	if (l->nr < 2)
		return conf_error(p, l->line, "AUTO needs at least one of yes, no, +all, -all, +homehost, -homehost, +NAME, -NAME");
	c->auto_rules = calloc(l->nr - 1, sizeof(*c->auto_rules));
	if (!c->auto_rules)
		return -ENOMEM;
	for (i = 1; i < l->nr; i++) {
		memset(&r, 0, sizeof(r));
		w = l->words[i];
		r.allow = *w != '-';
		if (*w == '+' || *w == '-')
			w++;
		if (!strcasecmp(l->words[i], "yes") || !strcasecmp(l->words[i], "no")) {
			r.allow = !strcasecmp(l->words[i], "yes");
			r.what = CONF_AUTO_ALL;
		} else if (!strcasecmp(w, "all")) {
			r.what = CONF_AUTO_ALL;
		} else if (!strcasecmp(w, "homehost")) {
			r.what = CONF_AUTO_HOMEHOST;
		} else if (is_array_name(w)) {
			r.what = CONF_AUTO_NAME;
			strcpy(r.name, w);
		} else {
			return conf_error(p, l->line, "AUTO: '%s' is neither yes, no, [+-]all, [+-]homehost nor [+-] and an array name",
					  l->words[i]);
		}
		c->auto_rules[c->nr_auto++] = r;
	}
	c->auto_line = l->line;
	return 0;
}

static int parse_homehost(struct conf_parser *p, const struct conf_line *l)
{
	struct stria_conf *c = p->conf;
	const char *w;
	size_t i;

	if (l->nr != 2)
		return conf_error(p, l->line, "HOMEHOST takes one word: <system>, <none>, <ignore> or a host name");
	w = l->words[1];
	if (!strcasecmp(w, "<system>")) {
		c->homehost_kind = CONF_HOMEHOST_SYSTEM;
	} else if (!strcasecmp(w, "<none>")) {
		c->homehost_kind = CONF_HOMEHOST_NONE;
	} else if (!strcasecmp(w, "<ignore>")) {
		c->homehost_kind = CONF_HOMEHOST_IGNORE;
	} else {
		if (!*w || strlen(w) >= CONF_HOST_LEN || *w == '-' || *w == '.')
			return conf_error(p, l->line, "HOMEHOST '%s' is not a host name (1 to %d of A-Z a-z 0-9 . -)",
					  w, CONF_HOST_LEN - 1);
		for (i = 0; w[i]; i++)
			if (!isalnum((unsigned char)w[i]) && w[i] != '-' && w[i] != '.')
				return conf_error(p, l->line, "HOMEHOST '%s' is not a host name (1 to %d of A-Z a-z 0-9 . -)",
						  w, CONF_HOST_LEN - 1);
		c->homehost_kind = CONF_HOMEHOST_NAME;
		strcpy(c->homehost, w);
	}
	c->homehost_line = l->line;
	return 0;
}

static int parse_mailaddr(struct conf_parser *p, const struct conf_line *l)
{
	struct stria_conf *c = p->conf;
	size_t i;

	if (l->nr < 2)
		return conf_error(p, l->line, "MAILADDR needs at least one address");
	for (i = 1; i < l->nr; i++)
		if (!conf_mailaddr_valid(l->words[i]))
			return conf_error(p, l->line, "'%s' is not a mail address (user or user@host, no blanks, quotes, brackets, commas, not starting with -)",
					  l->words[i]);
	c->mailaddr = calloc(l->nr - 1, sizeof(*c->mailaddr));
	if (!c->mailaddr)
		return -ENOMEM;
	for (i = 1; i < l->nr; i++) {
		c->mailaddr[i - 1] = strdup(l->words[i]);
		if (!c->mailaddr[i - 1])
			return -ENOMEM;
		c->nr_mailaddr++;
	}
	c->mailaddr_line = l->line;
	return 0;
}

static int parse_program(struct conf_parser *p, const struct conf_line *l)
{
	struct stria_conf *c = p->conf;

	if (l->nr != 2)
		return conf_error(p, l->line, "PROGRAM takes one word, the program's path (quote it if it has blanks)");
	if (!*l->words[1])
		return conf_error(p, l->line, "PROGRAM is empty");
	c->program = strdup(l->words[1]);
	if (!c->program)
		return -ENOMEM;
	c->program_line = l->line;
	return 0;
}

/*
 * POLICY action=none|spare-same-slot [array=NAME]: at most one line per
 * array and one for every array.
 */
static int parse_policy(struct conf_parser *p, const struct conf_line *l)
{
	struct stria_conf *c = p->conf;
	struct conf_policy_rule r, *tmp;
	int has_action = 0, has_array = 0;
	const char *w, *v;
	size_t i;

	memset(&r, 0, sizeof(r));
	r.line = l->line;
	for (i = 1; i < l->nr; i++) {
		w = l->words[i];
		v = strchr(w, '=');
		if (v && (size_t)(v - w) == 6 && !strncasecmp(w, "action", 6)) {
			if (has_action++)
				return conf_error(p, l->line, "POLICY: action= is given twice");
			v++;
			if (!strcasecmp(v, "none"))
				r.action = CONF_SPARE_NONE;
			else if (!strcasecmp(v, "spare-same-slot"))
				r.action = CONF_SPARE_SAME_SLOT;
			else
				return conf_error(p, l->line, "POLICY: action '%s' is neither none nor spare-same-slot (a new blank drive in the slot of a failed member becomes a spare of its array)",
						  v);
		} else if (v && (size_t)(v - w) == 5 && !strncasecmp(w, "array", 5)) {
			if (has_array++)
				return conf_error(p, l->line, "POLICY: array= is given twice");
			v++;
			if (!strncmp(v, "/dev/stria/", 11))
				v += 11;
			if (!is_array_name(v))
				return conf_error(p, l->line, "POLICY: array '%s' is not an array name (1 to 31 of A-Z a-z 0-9 . _ -)",
						  v);
			strcpy(r.array, v);
		} else {
			return conf_error(p, l->line, "POLICY: '%s' is neither action=ACTION nor array=NAME",
					  w);
		}
	}
	if (!has_action)
		return conf_error(p, l->line, "POLICY needs action=none or action=spare-same-slot");
	for (i = 0; i < c->nr_policy; i++)
		if (!strcmp(c->policy[i].array, r.array))
			return r.array[0] ?
			       conf_error(p, l->line, "POLICY for array '%s' is given twice (first at line %d)",
					  r.array, c->policy[i].line) :
			       conf_error(p, l->line, "POLICY for every array (no array=) is given twice (first at line %d)",
					  c->policy[i].line);
	tmp = realloc(c->policy, (c->nr_policy + 1) * sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	c->policy = tmp;
	c->policy[c->nr_policy++] = r;
	return 0;
}

enum conf_spare_action conf_spare_action(const struct stria_conf *conf,
					 const char *array, int *line)
{
	const struct conf_policy_rule *all = NULL;
	size_t i;

	for (i = 0; i < conf->nr_policy; i++) {
		if (!conf->policy[i].array[0]) {
			all = &conf->policy[i];
		} else if (!strcmp(conf->policy[i].array, array)) {
			all = &conf->policy[i];
			break;
		}
	}
	if (line)
		*line = all ? all->line : 0;
	return all ? all->action : CONF_SPARE_NONE;
}

int conf_spare_any(const struct stria_conf *conf)
{
	size_t i;

	for (i = 0; i < conf->nr_policy; i++)
		if (conf->policy[i].action != CONF_SPARE_NONE)
			return 1;
	return 0;
}

static const struct {
	const char *name;
	int (*parse)(struct conf_parser *p, const struct conf_line *l);
	size_t once;	/* offsetof the line field of a keyword given once */
} keywords[] = {
	{ "ARRAY", parse_array, 0 },
	{ "AUTO", parse_auto, offsetof(struct stria_conf, auto_line) },
	{ "HOMEHOST", parse_homehost, offsetof(struct stria_conf, homehost_line) },
	{ "MAILADDR", parse_mailaddr, offsetof(struct stria_conf, mailaddr_line) },
	{ "PROGRAM", parse_program, offsetof(struct stria_conf, program_line) },
	{ "POLICY", parse_policy, 0 },
};

static int parse_line(struct conf_parser *p, const struct conf_line *l)
{
	size_t k;
	int first;

	for (k = 0; k < sizeof(keywords) / sizeof(keywords[0]); k++) {
		if (strcasecmp(l->words[0], keywords[k].name))
			continue;
		if (keywords[k].once) {
			first = *(int *)((char *)p->conf + keywords[k].once);
			if (first)
				return conf_error(p, l->line, "%s is given twice (first at line %d)",
						  keywords[k].name, first);
		}
		return keywords[k].parse(p, l);
	}
	return conf_error(p, l->line, "unknown keyword '%s' (ARRAY, AUTO, HOMEHOST, MAILADDR, PROGRAM, POLICY)",
			  l->words[0]);
}

/*
 * The logical line starting at @s: the physical line, then those that
 * start with a blank, or follow one ending in a backslash. Returns a copy
 * (free it) with the joins as spaces; *@next is where the next logical
 * line starts, *@lineno counts the physical lines passed.
 */
static char *logical_line(const char *s, const char **next, int *lineno)
{
	size_t cap = 256, len = 0, n;
	const char *nl;
	char *buf = malloc(cap), *tmp;
	int more;

	if (!buf)
		return NULL;
	do {
		nl = strchr(s, '\n');
		n = nl ? (size_t)(nl - s) : strlen(s);
		if (len + n + 2 > cap) {
			cap = (len + n + 2) * 2;
			tmp = realloc(buf, cap);
			if (!tmp) {
				free(buf);
				return NULL;
			}
			buf = tmp;
		}
		if (len)
			buf[len++] = ' ';
		memcpy(buf + len, s, n);
		len += n;
		while (len && buf[len - 1] == '\r')
			len--;
		(*lineno)++;
		s = nl ? nl + 1 : s + n;
		more = len && buf[len - 1] == '\\';
		if (more)
			len--;
		if (nl && (*s == ' ' || *s == '\t'))
			more = 1;
	} while (more && *s);
	buf[len] = '\0';
	*next = s;
	return buf;
}

int conf_parse_text(const char *path, const char *text,
		    struct stria_conf *conf, char *err, size_t errlen)
{
	struct conf_parser p = { path, conf, err, errlen };
	struct conf_line l;
	const char *s = text;
	int lineno = 0, ret = 0;
	char *line;

	memset(conf, 0, sizeof(*conf));
	if (errlen)
		err[0] = '\0';
	conf->path = strdup(path);
	if (!conf->path)
		return -ENOMEM;
	while (*s && !ret) {
		memset(&l, 0, sizeof(l));
		l.line = lineno + 1;
		line = logical_line(s, &s, &lineno);
		if (!line) {
			ret = -ENOMEM;
			break;
		}
		ret = split_words(&p, l.line, line, &l);
		if (!ret && l.nr)
			ret = parse_line(&p, &l);
		free_words(l.words, l.nr);
		free(line);
	}
	if (ret == -ENOMEM)
		conf_error(&p, 0, "out of memory");
	if (ret)
		conf_free(conf);
	return ret;
}

int conf_parse_file(const char *path, struct stria_conf *conf, char *err,
		    size_t errlen)
{
	FILE *f = fopen(path, "re");
	char *text = NULL;
	size_t cap = 0, len = 0, n;
	int ret;

	memset(conf, 0, sizeof(*conf));
	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return ret;
	}
	for (;;) {
		if (len + 4096 + 1 > cap) {
			char *t = realloc(text, cap = (len + 4096 + 1) * 2);

			if (!t) {
				fclose(f);
				free(text);
				snprintf(err, errlen, "%s: out of memory", path);
				return -ENOMEM;
			}
			text = t;
		}
		n = fread(text + len, 1, 4096, f);
		len += n;
		if (n < 4096)
			break;
	}
	ret = ferror(f) ? -EIO : 0;
	fclose(f);
	if (ret) {
		snprintf(err, errlen, "%s: read error", path);
		free(text);
		return ret;
	}
	text[len] = '\0';
	if (strlen(text) != len) {
		snprintf(err, errlen, "%s: holds a NUL byte: not a text file", path);
		free(text);
		return -EINVAL;
	}
	ret = conf_parse_text(path, text, conf, err, errlen);
	free(text);
	return ret;
}

void conf_free(struct stria_conf *conf)
{
	size_t i;

	for (i = 0; i < conf->nr_arrays; i++)
		free_array(&conf->arrays[i]);
	free(conf->arrays);
	free(conf->auto_rules);
	free_words(conf->mailaddr, conf->nr_mailaddr);
	free(conf->program);
	free(conf->policy);
	free(conf->path);
	memset(conf, 0, sizeof(*conf));
}

const struct conf_array *conf_find_array(const struct stria_conf *conf,
					 const char *name,
					 const uint8_t *uuid)
{
	size_t i;

	for (i = 0; i < conf->nr_arrays; i++) {
		const struct conf_array *a = &conf->arrays[i];

		if (name && !strcmp(a->name, name))
			return a;
		if (uuid && a->has_uuid && !memcmp(a->uuid, uuid, 16))
			return a;
	}
	return NULL;
}

const struct conf_auto_rule *conf_auto_match(const struct stria_conf *conf,
					     const char *name, int homehost)
{
	size_t i;

	for (i = 0; i < conf->nr_auto; i++) {
		const struct conf_auto_rule *r = &conf->auto_rules[i];

		if (r->what == CONF_AUTO_ALL ||
		    (r->what == CONF_AUTO_HOMEHOST && homehost) ||
		    (r->what == CONF_AUTO_NAME && !strcmp(r->name, name)))
			return r;
	}
	return NULL;
}

int conf_auto_allows(const struct stria_conf *conf, const char *name,
		     int homehost)
{
	const struct conf_auto_rule *r = conf_auto_match(conf, name, homehost);

	return r ? r->allow : 1;
}

int conf_homehost(const struct stria_conf *conf, const char *opt,
		  const char *sysname, char *host, char *err, size_t errlen)
{
	int kind = conf->homehost_kind;
	char buf[CONF_HOST_LEN];
	const char *name = NULL;

	host[0] = '\0';
	if (opt) {
		if (!strcasecmp(opt, "<system>"))
			kind = CONF_HOMEHOST_SYSTEM;
		else if (!strcasecmp(opt, "<none>"))
			kind = CONF_HOMEHOST_NONE;
		else if (!strcasecmp(opt, "<ignore>"))
			kind = CONF_HOMEHOST_IGNORE;
		else
			kind = CONF_HOMEHOST_NAME;
		if (kind == CONF_HOMEHOST_NAME)
			name = opt;
	} else if (kind == CONF_HOMEHOST_NAME) {
		name = conf->homehost;
	}
	if (kind == CONF_HOMEHOST_NONE || kind == CONF_HOMEHOST_IGNORE)
		return kind;
	if (!name) {
		/* a system without a name (an initramfs): no identity */
		if (!sysname[0] || !strcmp(sysname, "(none)"))
			return CONF_HOMEHOST_NONE;
		name = sysname;
	}
	memset(buf, 0, sizeof(buf));
	if (strlen(name) < sizeof(buf))
		memcpy(buf, name, strlen(name));
	if (strlen(name) >= sizeof(buf) || !stria_host_valid(buf)) {
		snprintf(err, errlen, "%s '%s' cannot be recorded as a home host (1 to %d of A-Z a-z 0-9 . _ -, not starting with . or -): give --homehost NAME or <none>, or set HOMEHOST in %s",
			 opt ? "--homehost" : name == sysname ? "this host's name" :
			 "HOMEHOST", name, CONF_HOST_LEN - 1,
			 conf->path ? conf->path : STRIA_CONF_PATH);
		return -1;
	}
	memcpy(host, buf, sizeof(buf));
	return CONF_HOMEHOST_NAME;
}

static void fmt_uuid(const uint8_t *u, char *out)
{
	static const int dash[16] = { [4] = 1, [6] = 1, [8] = 1, [10] = 1 };
	int i;

	for (i = 0; i < 16; i++)
		out += sprintf(out, "%s%02x", dash[i] ? "-" : "", u[i]);
}

int conf_host_local(const char *homehost, int kind, const char *host)
{
	/*
	 * Only a recorded home host that is this host's name makes an array
	 * this host's (or HOMEHOST <ignore>, the operator's word): anyone can
	 * write a superblock that records no host on a disk and plug it in.
	 */
	return kind == CONF_HOMEHOST_IGNORE ||
	       (kind == CONF_HOMEHOST_NAME && homehost[0] &&
		!strcmp(homehost, host));
}

int conf_owned(const struct stria_conf *conf, const struct conf_candidate *cand,
	       int kind, const char *host)
{
	return conf_find_array(conf, NULL, cand->uuid) ||
	       conf_host_local(cand->homehost, kind, host);
}

int conf_policy(const struct stria_conf *conf, const struct conf_candidate *cand,
		int kind, const char *host, char *why, size_t len)
{
	const char *path = conf->path ? conf->path : STRIA_CONF_PATH;
	const struct conf_auto_rule *r;
	const struct conf_array *a;
	char u[40], hosts[160];
	int local;

	fmt_uuid(cand->uuid, u);
	a = conf_find_array(conf, NULL, cand->uuid);
	if (a) {
		snprintf(why, len, "listed in %s:%d", path, a->line);
		return 1;
	}
	a = conf_find_array(conf, cand->name, NULL);
	if (a && !a->has_uuid) {
		snprintf(why, len, "listed by name in %s:%d", path, a->line);
		return 1;
	}
	if (a) {
		snprintf(why, len, "%s:%d names an array '%s' with another UUID; these members are of uuid %s, a different array of the same name: not started automatically ('striactl assemble %s DEV...' starts it by hand)",
			 path, a->line, cand->name, u, cand->name);
		return 0;
	}
	local = conf_host_local(cand->homehost, kind, host);
	if (!cand->homehost[0])
		snprintf(hosts, sizeof(hosts), "it records no home host");
	else if (kind == CONF_HOMEHOST_NAME)
		snprintf(hosts, sizeof(hosts), "created on host '%s', this host is '%s'",
			 cand->homehost, host);
	else
		snprintf(hosts, sizeof(hosts), "created on host '%s', this host has %s",
			 cand->homehost, kind == CONF_HOMEHOST_IGNORE ?
			 "HOMEHOST <ignore>" : "no home host (HOMEHOST <none>)");
	r = conf_auto_match(conf, cand->name, local);
	if (r && r->allow) {
		snprintf(why, len, "%s; allowed by AUTO (%s:%d)", hosts, path,
			 conf->auto_line);
		return 1;
	}
	if (r) {
		snprintf(why, len, "%s; AUTO (%s:%d) does not allow it to start automatically: to allow it, add 'ARRAY %s uuid=%s' to %s, or start it by hand with 'striactl assemble %s DEV...'",
			 hosts, path, conf->auto_line, cand->name, u, path,
			 cand->name);
		return 0;
	}
	if (local) {
		snprintf(why, len, "%s", hosts);
		return 1;
	}
	snprintf(why, len, "%s: %s is not started automatically; to allow it, add 'ARRAY %s uuid=%s' to %s (or AUTO +%s, or +all), or start it by hand with 'striactl assemble %s DEV...'",
		 hosts, cand->homehost[0] ? "another host's array" :
		 "an array that is not provably this host's", cand->name, u, path,
		 cand->name, cand->name);
	return 0;
}
