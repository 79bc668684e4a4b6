/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stria.conf: the system's stria configuration (stria.conf(5)), in the
 * manner of mdadm.conf. One keyword per line, then its words:
 *
 *   ARRAY NAME [uuid=UUID] [level=LEVEL] [members=N] [spares=N]
 *              [devices=GLOB,GLOB...]
 *   AUTO [+|-]WHAT...        WHAT: all, homehost, or an array name;
 *                            yes = +all, no = -all
 *   HOMEHOST <system>|<none>|<ignore>|NAME
 *   MAILADDR ADDRESS...
 *   PROGRAM PATH
 *   POLICY action=none|spare-same-slot [array=NAME]
 *
 * '#' starts a comment where a word could start. A line that starts with a
 * space or a tab continues the line before it, as does a line ending in a
 * backslash. Keywords are case-insensitive; a word may be quoted with "" or
 * '' to hold spaces or '#'.
 *
 * conf_parse_file() fills a struct stria_conf; on the first bad line it
 * fails with "FILE:LINE: what is wrong" and leaves nothing allocated. The
 * parser has no other dependencies than libc, so it is unit-tested on its
 * own (selftests/unit/test_config.c).
 */
#ifndef STRIACTL_CONFIG_H
#define STRIACTL_CONFIG_H

#include <stddef.h>
#include <stdint.h>

/* The file striactl reads by default. */
#define STRIA_CONF_PATH		"/etc/stria/stria.conf"

#define CONF_NAME_LEN		32	/* array names, as STRIA_NAME_LEN */
#define CONF_HOST_LEN		64	/* a host name and its NUL, as STRIA_HOST_LEN */

/**
 * struct conf_array - an ARRAY line: an array this system knows
 * @line: where it was given
 * @name: the array's name (the first word; "/dev/stria/" taken off)
 * @has_uuid: @uuid was given
 * @uuid: uuid=: the array's UUID
 * @level: level=: 0, 5 or 6; -1 when not given
 * @members: members=: how many members it has; -1 when not given
 * @spares: spares=: how many spares it should have; -1 when not given
 * @nr_devices: entries in @devices
 * @devices: devices=: glob patterns of the devices its members may be on
 */
struct conf_array {
	int line;
	char name[CONF_NAME_LEN];
	int has_uuid;
	uint8_t uuid[16];
	int level;
	int members;
	int spares;
	size_t nr_devices;
	char **devices;
};

/* What an AUTO word is about. */
enum conf_auto_what {
	CONF_AUTO_ALL,		/* every array */
	CONF_AUTO_HOMEHOST,	/* arrays created on this host */
	CONF_AUTO_NAME,		/* the array named @name */
};

/**
 * struct conf_auto_rule - one word of the AUTO line
 * @allow: '+' (or no sign, or yes): may be started automatically; '-' (or
 *	no): may not
 * @what: what the word is about
 * @name: with CONF_AUTO_NAME, the array's name
 */
struct conf_auto_rule {
	int allow;
	enum conf_auto_what what;
	char name[CONF_NAME_LEN];
};

/* HOMEHOST's value. */
enum conf_homehost {
	CONF_HOMEHOST_UNSET,	/* no HOMEHOST line */
	CONF_HOMEHOST_SYSTEM,	/* <system>: the host's name (gethostname) */
	CONF_HOMEHOST_NONE,	/* <none>: no home host */
	CONF_HOMEHOST_IGNORE,	/* <ignore>: home hosts are not looked at */
	CONF_HOMEHOST_NAME,	/* the name in @homehost */
};

/* What POLICY does with a new blank drive in the slot of a failed member. */
enum conf_spare_action {
	CONF_SPARE_NONE,	/* nothing (the default) */
	CONF_SPARE_SAME_SLOT,	/* add it to that member's array as a spare */
};

/**
 * struct conf_policy_rule - a POLICY line
 * @line: where it was given
 * @array: array=: the array it is about; "" for every array
 * @action: action=
 */
struct conf_policy_rule {
	int line;
	char array[CONF_NAME_LEN];
	enum conf_spare_action action;
};

/**
 * struct stria_conf - a parsed stria.conf
 * @path: the file's name, as given
 * @nr_arrays: entries in @arrays
 * @arrays: the ARRAY lines, in file order
 * @auto_line: where AUTO was given, 0 when not
 * @nr_auto: entries in @auto_rules
 * @auto_rules: AUTO's words, in order: the first that matches decides
 * @homehost_line: where HOMEHOST was given, 0 when not
 * @homehost_kind: its value
 * @homehost: with CONF_HOMEHOST_NAME, the name
 * @mailaddr_line: where MAILADDR was given, 0 when not
 * @nr_mailaddr: entries in @mailaddr
 * @mailaddr: where monitor mails its alerts
 * @program_line: where PROGRAM was given, 0 when not
 * @program: what monitor runs for each event, NULL when not given
 * @nr_policy: entries in @policy
 * @policy: the POLICY lines, in file order
 */
struct stria_conf {
	char *path;
	size_t nr_arrays;
	struct conf_array *arrays;
	int auto_line;
	size_t nr_auto;
	struct conf_auto_rule *auto_rules;
	int homehost_line;
	enum conf_homehost homehost_kind;
	char homehost[CONF_HOST_LEN];
	int mailaddr_line;
	size_t nr_mailaddr;
	char **mailaddr;
	int program_line;
	char *program;
	size_t nr_policy;
	struct conf_policy_rule *policy;
};

/*
 * Parse @path into @conf. Returns 0; -ENOENT when the file does not exist
 * (@conf is then empty, and @err says so); another -errno when it cannot
 * be read, -EINVAL for a bad line: @err holds "PATH:LINE: what".
 */
int conf_parse_file(const char *path, struct stria_conf *conf, char *err,
		    size_t errlen);
/* The same for @text, as if it were the contents of a file @path. */
int conf_parse_text(const char *path, const char *text,
		    struct stria_conf *conf, char *err, size_t errlen);
void conf_free(struct stria_conf *conf);

/* The ARRAY line for the array named @name or, when @uuid, with @uuid. */
const struct conf_array *conf_find_array(const struct stria_conf *conf,
					 const char *name,
					 const uint8_t *uuid);
/*
 * May the array @name be started automatically? By AUTO's first word that
 * matches it (@homehost: it was created on this host); 1 when none does.
 */
int conf_auto_allows(const struct stria_conf *conf, const char *name,
		     int homehost);
/* The AUTO word that decides for @name, as conf_auto_allows(); or NULL. */
const struct conf_auto_rule *conf_auto_match(const struct stria_conf *conf,
					     const char *name, int homehost);

/*
 * This host's identity, for create and for the policy: @opt (--homehost:
 * a name, <system>, <none> or <ignore>; NULL when not given), else the
 * HOMEHOST line, else <system>; <system> is @sysname (gethostname()), and
 * <none> when that is empty or "(none)" (the kernel's name for no name, as
 * in an initramfs: its hook writes the HOMEHOST line for that reason).
 * Fills @host (CONF_HOST_LEN bytes, empty unless CONF_HOMEHOST_NAME) and
 * returns the kind: CONF_HOMEHOST_NAME, _NONE or _IGNORE. Returns -1 with
 * @err filled when the name is no valid host name (@opt's or @sysname's).
 */
int conf_homehost(const struct stria_conf *conf, const char *opt,
		  const char *sysname, char *host, char *err, size_t errlen);

/* An array found on disk, as conf_policy() judges it. */
struct conf_candidate {
	const char *name;	/* its name */
	const uint8_t *uuid;	/* its UUID (16 bytes) */
	const char *homehost;	/* the host its superblocks record, "" none */
};

/*
 * May @cand be started automatically (assemble --scan, --incremental)?
 * In order: an ARRAY line with its UUID (or, without uuid=, its name)
 * allows it, one with its name but another UUID refuses it; then AUTO's
 * first matching word decides, "homehost" matching an array local to
 * this host (@kind and @host from conf_homehost(): it records this
 * host's name, or the kind is <ignore>; an array that records no host is
 * not provably local); with no word matching, a local array starts and
 * any other does not. Returns 1 to start, 0 not,
 * with @why (for the log: what decided, and how to allow it) filled
 * either way.
 */
int conf_policy(const struct stria_conf *conf, const struct conf_candidate *cand,
		int kind, const char *host, char *why, size_t len);
/*
 * Is an array with home host @homehost ("" for none) this host's, by
 * @kind and @host from conf_homehost()? It records this host's name, or
 * the kind is <ignore>. An array that records no host is not.
 */
int conf_host_local(const char *homehost, int kind, const char *host);
/*
 * Is @cand this host's own, so that its file systems may take the names
 * (/dev/disk/by-uuid, by-label) before any other device's? An ARRAY line
 * lists its UUID, or conf_host_local(). Starting by hand or by AUTO does
 * not make an array this host's.
 */
int conf_owned(const struct stria_conf *conf, const struct conf_candidate *cand,
	       int kind, const char *host);
/*
 * The ARRAY line for a running array (detail --scan), newline included,
 * into @buf (@len bytes): "ARRAY /dev/stria/NAME uuid=UUID level=raidN
 * members=N spares=N". Returns its length; -EINVAL when @name is no array
 * name (conf_parse_text() would refuse it, or read other words from it) or
 * a number is one the parser refuses, -ENOSPC when @buf is too short.
 */
int conf_array_line(char *buf, size_t len, const char *name,
		    const uint8_t *uuid, unsigned int level,
		    unsigned int members, unsigned int spares);
/*
 * What POLICY says for a new blank drive in the slot of a failed member
 * of array @array: its own line (array=), else the line for every array,
 * else CONF_SPARE_NONE. *@line (may be NULL): the line that decided, 0
 * for none.
 */
enum conf_spare_action conf_spare_action(const struct stria_conf *conf,
					 const char *array, int *line);
/* Does any POLICY line add spares (slot-spare has anything to do)? */
int conf_spare_any(const struct stria_conf *conf);
/* Is @addr a mail address MAILADDR and --mail take? */
int conf_mailaddr_valid(const char *addr);
/* Parse a UUID (32 hex digits; '-' and ':' anywhere are skipped). 0 or -1. */
int conf_parse_uuid(const char *s, uint8_t *uuid);

#endif
