// SPDX-License-Identifier: GPL-2.0
/*
 * striactl: create, assemble, stop, fail members of, add spares to, scrub
 * and inspect stria arrays.
 *
 * One command table (below) drives dispatch, usage and --help. Display
 * commands take -o normal|json and --export and describe their output
 * through output.h. Exit codes are the EXIT_* values in striactl.h. The
 * tool never prompts unless stdin is a terminal, and never when --yes or
 * --force is given.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/stria.h>

#include "striactl.h"

/* STRIA_VERSION: the tree's VERSION file (Makefile) */
#define STRIACTL_VERSION STRIA_VERSION

static const struct command commands[];

/* -v: what striactl looks at and asks, on stderr (verbose_msg()) */
int striactl_verbose;

void verbose_msg(const char *fmt, ...)
{
	va_list ap;

	if (!striactl_verbose)
		return;
	fputs("striactl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* "striactl: COMMAND: message" on stderr. */
static void verr_msg(struct ctx *c, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", c->prog);
	if (c->cmd)
		fprintf(stderr, "%s: ", c->cmd->name);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void err_msg(struct ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verr_msg(c, fmt, ap);
	va_end(ap);
}

/* After a usage error: the command's synopsis and where its help is. */
static int usage_hint(struct ctx *c)
{
	if (c->cmd)
		fprintf(stderr, "usage: %s %s %s\nTry '%s %s --help'.\n",
			c->prog, c->cmd->name, c->cmd->usage, c->prog,
			c->cmd->name);
	else
		fprintf(stderr, "Try '%s --help'.\n", c->prog);
	return EXIT_USAGE;
}

int usage_error(struct ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verr_msg(c, fmt, ap);
	va_end(ap);
	return usage_hint(c);
}

void print_cmd_help(const struct command *cmd, FILE *f)
{
	fprintf(f, "usage: striactl %s %s\n\n%s\n", cmd->name, cmd->usage,
		cmd->help);
	if (cmd->display)
		fputs("\n  -o, --output FORMAT  normal (default) or json\n", f);
	if (cmd->display == 1)
		fputs("      --export         KEY=value lines for udev and shells\n",
		      f);
	fputs("  -q, --quiet          no informational messages, only results,\n"
	      "                       warnings and errors\n"
	      "  -v, --verbose        more: what is checked and asked (on stderr);\n"
	      "                       status shows every detail\n"
	      "  -h, --help           this help\n", f);
}

/*
 * Handle an option every command shares. Returns 0 when handled, or an
 * EXIT_* code to exit with (help printed, or a usage error).
 */
int common_opt(struct ctx *c, int opt)
{
	switch (opt) {
	case 'o':
		if (!c->cmd->display)
			return usage_error(c, "this command has no output format");
		if (out_parse_format(optarg, &c->fmt))
			return usage_error(c, "unknown output format '%s' (normal, json%s)",
					   optarg, strcmp(c->cmd->name, "status") ?
					   "" : ", prometheus");
		if (c->fmt == OUT_PROMETHEUS && strcmp(c->cmd->name, "status"))
			return usage_error(c, "-o prometheus is for status only");
		return 0;
	case 'E':
		if (c->cmd->display != 1)
			return usage_error(c, "this command has no --export");
		c->fmt = OUT_EXPORT;
		return 0;
	case 'h':
		print_cmd_help(c->cmd, stdout);
		return -1;
	case '?':
		/* getopt said what is wrong, as "PROG: COMMAND: ..." (main()) */
		return usage_hint(c);
	default:
		return usage_error(c, "unknown option");
	}
}

/* The control device is missing or has no driver: the module is not loaded. */
static bool control_missing(int err)
{
	return err == ENOENT || err == ENODEV || err == ENXIO;
}

/*
 * Load the module as mdadm and dmsetup do: run "modprobe stria", found on
 * PATH (no variable of ours chooses the command: striactl runs as root,
 * from udev, the initramfs or sudo). Returns modprobe's exit status, or -1
 * when it could not run.
 */
static int run_modprobe(void)
{
	char *argv[] = { "modprobe", "stria", NULL };
	extern char **environ;
	int status;
	pid_t pid;

	verbose_msg("running %s stria", argv[0]);
	if (posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ))
		return -1;
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static int open_control_once(void)
{
	int fd = open("/dev/" STRIA_CONTROL_NAME, O_RDWR | O_CLOEXEC);

	verbose_msg("opening /dev/%s: %s", STRIA_CONTROL_NAME,
		    fd < 0 ? strerror(errno) : "ok");
	return fd;
}

int open_control(struct ctx *c)
{
	int fd = open_control_once(), i, mp = -2;

	if (fd < 0 && control_missing(errno)) {
		/* the node appears as the module registers it; udev may lag */
		mp = run_modprobe();
		for (i = 0; mp == 0 && i < 20; i++) {
			fd = open_control_once();
			if (fd >= 0 || !control_missing(errno))
				break;
			nanosleep(&(struct timespec){ .tv_nsec = 50000000 }, NULL);
		}
	}
	if (fd < 0) {
		if (control_missing(errno) && mp)
			err_msg(c, "/dev/%s not found: is the stria module loaded? ('modprobe stria' %s)",
				STRIA_CONTROL_NAME,
				mp < 0 ? "could not be run" : "failed");
		else if (control_missing(errno))
			err_msg(c, "/dev/%s not found although 'modprobe stria' succeeded: is the stria module loaded?",
				STRIA_CONTROL_NAME);
		else
			err_msg(c, "cannot open /dev/%s: %s%s", STRIA_CONTROL_NAME,
				strerror(errno),
				errno == EACCES || errno == EPERM ?
				" (stria needs root)" : "");
		return -(control_missing(errno) ? EXIT_NOMODULE : EXIT_FAIL);
	}
	return fd;
}

/*
 * A size with an optional binary suffix: 512, 64K, 64k, 64KiB, 1M, 2G, 1T.
 * Returns 0, or -1 when it is not a size.
 */
int parse_size(const char *s, uint64_t *bytes)
{
	unsigned long long v;
	char *end;
	int shift = 0;

	if (!*s || *s == '-')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	}
	if (shift && (!strcmp(end, "iB") || !strcmp(end, "B")))
		end += strlen(end);
	if (*end || (shift && v > (~0ULL >> shift)))
		return -1;
	*bytes = (uint64_t)v << shift;
	return 0;
}

void fmt_size(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)bytes;
	int u = 0;

	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", v, units[u]);
}

/* Ask on a terminal; anything but y/yes is no. Never asks off a terminal. */
int confirm(const char *question)
{
	char line[16];

	if (!isatty(STDIN_FILENO))
		return 0;
	fprintf(stderr, "%s [y/N] ", question);
	if (!fgets(line, sizeof(line), stdin))
		return 0;
	return !strcmp(line, "y\n") || !strcmp(line, "yes\n");
}

/* Parse only the common options; for commands without their own. */
int parse_common_only(struct ctx *c, int argc, char **argv)
{
	static const struct option longopts[] = { COMMON_LONGOPTS, { 0 } };
	int opt, ret;

	while ((opt = getopt_long(argc, argv, COMMON_SHORTOPTS, longopts,
				  NULL)) != -1) {
		ret = common_opt(c, opt);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The options of a command whose only own option is the flag --@name
 * (-@ch, in @shortopts with the common ones it takes): sets @set.
 * Returns as parse_common_only().
 */
static int parse_one_flag(struct ctx *c, int argc, char **argv,
			  const char *name, int ch, const char *shortopts,
			  int *set)
{
	const struct option longopts[] = {
		{ name, no_argument, NULL, ch },
		COMMON_LONGOPTS, { 0 }
	};
	int opt, ret;

	*set = 0;
	while ((opt = getopt_long(argc, argv, shortopts, longopts,
				  NULL)) != -1) {
		if (opt == ch) {
			*set = 1;
			continue;
		}
		ret = common_opt(c, opt);
		if (ret)
			return ret;
	}
	return 0;
}

/* --scan (-s) and the common options: sets @scan. */
int parse_scan_opt(struct ctx *c, int argc, char **argv, int *scan)
{
	return parse_one_flag(c, argc, argv, "scan", 's', "s" COMMON_SHORTOPTS,
			      scan);
}

/* stat @dev into @st and check that it is a block device; prints why not. */
int stat_blockdev(struct ctx *c, const char *dev, struct stat *st)
{
	if (stat(dev, st)) {
		err_msg(c, "%s: %s", dev, strerror(errno));
		return EXIT_FAIL;
	}
	if (!S_ISBLK(st->st_mode)) {
		err_msg(c, "%s is not a block device", dev);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/* --force (-f) and the common options: sets @force. */
int parse_force_only(struct ctx *c, int argc, char **argv, int *force)
{
	return parse_one_flag(c, argc, argv, "force", 'f', "fh", force);
}

static int cmd_version(struct ctx *c, int argc, char **argv)
{
	struct stria_ioc_info info;
	struct out *o = &c->out;
	int fd, ret;

	ret = parse_common_only(c, argc, argv);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if (optind != argc)
		return usage_error(c, "unexpected argument '%s'", argv[optind]);

	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	fd = open_control(c);
	if (fd >= 0) {
		verbose_msg("STRIA_IOC_INFO");
		ret = ioctl(fd, STRIA_IOC_INFO, &info);
		close(fd);
		if (ret) {
			err_msg(c, "STRIA_IOC_INFO failed: %s", strerror(errno));
			return EXIT_FAIL;
		}
	}

	out_init(o, stdout, c->fmt);
	out_begin(o);
	out_str(o, "striactl_version", STRIACTL_VERSION);
	out_u64(o, "abi_info_size", sizeof(info));
	if (fd >= 0) {
		info.version[sizeof(info.version) - 1] = '\0';
		out_str(o, "module_version", info.version);
		out_u64(o, "features", info.features);
		out_u64(o, "nr_arrays", info.nr_arrays);
		out_u64(o, "max_members", info.max_members);
	}
	out_end(o);
	return fd >= 0 ? EXIT_OK : -fd;
}

static const struct command commands[] = {
	{ "create", cmd_create,
	  "NAME --level 0|1|5|6|10 [--layout LAYOUT] [--chunk SIZE] [--bitmap internal|none] [--bitmap-chunk SIZE] [--numa-node N] [--homehost NAME|<none>] [--config FILE] [--force] [--yes] DEV...",
	  "Create array NAME from the member devices DEV... (RAID0 at least 2,\n"
	  "RAID1 2 to 4, RAID5 3, RAID6 4, RAID10 2 and no fewer than its\n"
	  "copies), in that order, and start it as /dev/striaN. A superblock is\n"
	  "written at the start of every member; data starts 1 MiB in. Members\n"
	  "may differ in size: each contributes as much as the smallest.\n\n"
	  "  -l, --level LEVEL    RAID level: 0, 1, 5, 6 or 10 (or raid0, raid1,\n"
	  "                       mirror, raid5, raid6, raid10). RAID1 keeps a\n"
	  "                       copy on each member; RAID10 keeps 2 to 4\n"
	  "                       copies of each chunk, placed as md's raid10\n"
	  "                       places them\n"
	  "  -p, --layout LAYOUT  RAID5/6 parity layout, as md: left-symmetric (ls,\n"
	  "                       the default), right-symmetric (rs), left-asymmetric\n"
	  "                       (la) or right-asymmetric (ra). RAID10 layout, as\n"
	  "                       md: n2 (the default), n3, n4 (near copies), f2,\n"
	  "                       f3, f4 (far) or o2, o3, o4 (offset). Not for\n"
	  "                       RAID0 or RAID1\n"
	  "  -c, --chunk SIZE     chunk size, power of two from 4K to 1M (default 64K);\n"
	  "                       suffixes K, M, G, T\n"
	  "  -b, --bitmap internal|none\n"
	  "                       write-intent bitmap of RAID1, 5, 6 and 10\n"
	  "                       (default internal): after a crash only the\n"
	  "                       regions written just before it are resynced;\n"
	  "                       none resyncs everything. RAID0 keeps none\n"
	  "      --bitmap-chunk SIZE\n"
	  "                       data per bitmap bit on each member, a power of two\n"
	  "                       from the chunk size to 1T (default 64M, larger when\n"
	  "                       needed for the bitmap to fit)\n"
	  "  -n, --numa-node N    node for the array's queues and memory (default:\n"
	  "                       the node most members are attached to)\n"
	  "      --homehost NAME|<none>\n"
	  "                       the host the array belongs to, recorded in its\n"
	  "                       superblocks (default: HOMEHOST of stria.conf,\n"
	  "                       else this host's name); another host's array is\n"
	  "                       not started automatically; <none> records none\n"
	  "      --config FILE    read FILE instead of /etc/stria/stria.conf\n"
	  "  -f, --force          overwrite devices that hold another superblock or\n"
	  "                       file system (it is shown first)\n"
	  "  -y, --yes            do not ask, refuse instead of prompting", 0 },
	{ "assemble", cmd_assemble,
	  "[--run] [--force|--readonly] NAME DEV... | [--config FILE] [--homehost NAME] [--readonly] --scan [ARRAY...] | --incremental DEV",
	  "Start an existing array from its members' superblocks.\n\n"
	  "  NAME DEV...          the members of array NAME, in any order, whatever\n"
	  "                       host it belongs to\n"
	  "  -s, --scan           every complete array found on any block device\n"
	  "                       that stria.conf allows (ARRAY lines, AUTO; another\n"
	  "                       host's array only when they name it); with\n"
	  "                       ARRAY... only those, by name or UUID\n"
	  "  -R, --run            start an array with members missing too, if its\n"
	  "                       level tolerates that (RAID5: 1, RAID6: 2; RAID1\n"
	  "                       and RAID10: while each chunk keeps a copy): it\n"
	  "                       runs degraded, and its superblocks record the\n"
	  "                       missing members as failed, so a member that comes\n"
	  "                       back later is stale ('striactl add' takes it back)\n"
	  "  -f, --force          start a RAID5/6 array that was not stopped cleanly\n"
	  "                       although it is degraded (the write hole: data of\n"
	  "                       the missing member may be rebuilt wrong where\n"
	  "                       writes were cut short); RAID1 and RAID10 need\n"
	  "                       no --force for that. It also starts a RAID0, 5\n"
	  "                       or 6 array that failed (more members failed\n"
	  "                       than its level tolerates) once their drives are\n"
	  "                       back: the members marked failed that the array\n"
	  "                       did not survive (which missed no write) are\n"
	  "                       taken back; one that failed while the array ran\n"
	  "                       on stays failed. Not RAID1 or RAID10: the copies\n"
	  "                       left take writes after the array failed\n"
	  "      --readonly       start it read-only, to look before anything is\n"
	  "                       written: nothing is written to any member (no\n"
	  "                       superblock update, resync, rebuild or bitmap\n"
	  "                       write), the array refuses writes, and where a\n"
	  "                       resync is owed, reads that would rebuild data\n"
	  "                       from parity fail (EIO). Needs no --force when\n"
	  "                       not stopped cleanly and degraded. 'striactl\n"
	  "                       readwrite' ends it\n"
	  "  -I, --incremental DEV\n"
	  "                       DEV just appeared (udev): start its array once\n"
	  "                       every member is present, if stria.conf allows it\n"
	  "                       as for --scan; exits 0 while waiting or refusing\n"
	  "      --config FILE    read FILE instead of /etc/stria/stria.conf\n"
	  "      --homehost NAME  take NAME as this host's name (or <system>,\n"
	  "                       <none>, <ignore>; default: HOMEHOST of stria.conf)", 0 },
	{ "stop", cmd_stop, "NAME|/dev/striaN | --scan",
	  "Stop a running array. Refused while it is open or mounted. Its\n"
	  "superblocks are marked clean.\n\n"
	  "  -s, --scan           every running array not in use, as at shutdown\n"
	  "                       (stria-shutdown.service); one in use is left\n"
	  "                       running, the module marks it clean at reboot", 0 },
	{ "readwrite", cmd_readwrite, "[--force] NAME|/dev/striaN",
	  "Make an array assembled with --readonly read-write: its superblocks\n"
	  "are written, it takes writes, and what a plain assembly starts\n"
	  "starts (a resync owed after an unclean stop, a rebuild, a spare\n"
	  "taking a failed member's place). Refused for an array that is not\n"
	  "read-only.\n\n"
	  "  -f, --force          also when it was not stopped cleanly and is\n"
	  "                       degraded (the write hole, as assemble --force)", 0 },
	{ "fail", cmd_fail, "NAME|/dev/striaN DEV [--force] | --incremental DEV",
	  "Mark member DEV of a running array failed, as if it had failed I/O:\n"
	  "the array stops using it and the other members' superblocks record\n"
	  "it, so it stays failed when the array is assembled again. DEV is the\n"
	  "member's device node, or MAJOR:MINOR. Refused when the array would\n"
	  "then have more failed members than its level tolerates (RAID0: none,\n"
	  "RAID5: 1, RAID6: 2; RAID1 and RAID10: as many as leave every chunk\n"
	  "a copy in sync).\n\n"
	  "  -f, --force          fail it even so: the array's data is lost\n"
	  "  -I, --incremental DEV\n"
	  "                       DEV went away (udev's remove event): fail it in\n"
	  "                       the running array that holds it, whatever the\n"
	  "                       array tolerates, and remove it (a spare is\n"
	  "                       removed); a spare takes its role. Exits 0 when\n"
	  "                       no running array holds DEV", 0 },
	{ "add", cmd_add, "NAME|/dev/striaN DEV...",
	  "Add each DEV to a running RAID1, RAID5, RAID6 or RAID10 array as a\n"
	  "spare (to a RAID0 array, 'striactl grow' adds devices). When a\n"
	  "member has failed, a spare takes its role at once and is rebuilt in\n"
	  "the background ('striactl status' shows the progress). DEV is a block\n"
	  "device node or MAJOR:MINOR; it must be at least as large as the\n"
	  "members' data area plus 1 MiB. Exits 1 when any DEV was refused.", 0 },
	{ "replace", cmd_replace, "NAME|/dev/striaN DEV [--with NEW]",
	  "Replace active member DEV of a RAID1, 5, 6 or 10 array while it stays\n"
	  "in service: a spare (NEW, a device added as a spare first, or the\n"
	  "spare added last) gets every write DEV gets while a background sync\n"
	  "copies DEV to it; then it takes DEV's role, and DEV is released with\n"
	  "its superblock erased. If DEV fails meanwhile, the spare rebuilds it.\n"
	  "A stop of the array or 'scrub stop' ends the copy (NEW is a spare\n"
	  "again). Refused while the array is degraded or another sync runs.\n\n"
	  "  -w, --with NEW       the replacement device", 0 },
	{ "grow", cmd_grow, "NAME|/dev/striaN --add DEV... [--raid-devices N] |\n"
	  "       NAME|/dev/striaN --bitmap internal|none [--bitmap-chunk SIZE] |\n"
	  "       NAME|/dev/striaN --size max|SIZE",
	  "Add members to a running RAID0 array, or copies to a RAID1 one:\n"
	  "each DEV is added as a spare, then the spares take new roles. A\n"
	  "RAID0 array is restriped onto them in the background while it stays\n"
	  "in use, and its capacity grows when that ends; a RAID1 array\n"
	  "rebuilds them from the members in sync and keeps its capacity (at\n"
	  "most 4 copies). 'striactl status' shows the progress. Refused, with\n"
	  "nothing added, while the array is degraded, read-only or syncing;\n"
	  "when the grow is refused after all, the devices added are removed\n"
	  "again. RAID5, RAID6 and RAID10 arrays cannot be restriped to more\n"
	  "members yet.\n\n"
	  "  -a, --add            the operands after NAME are devices to add\n"
	  "  -n, --raid-devices N the member count to reach: the members, the\n"
	  "                       devices added and spares the array has\n"
	  "  -b, --bitmap internal|none\n"
	  "                       add a write-intent bitmap to a running RAID1,\n"
	  "                       5, 6 or 10 array, or remove it. Refused while\n"
	  "                       a sync runs or a resync is owed, and adding\n"
	  "                       while degraded (it could not know what the\n"
	  "                       missing members missed)\n"
	  "      --bitmap-chunk SIZE\n"
	  "                       the region size of the bitmap added (default\n"
	  "                       64M, raised until the bitmap fits)\n"
	  "  -z, --size max|SIZE  use more of each member, once every member and\n"
	  "                       spare is larger than the array uses (after\n"
	  "                       replacing each by a larger drive): max, or the\n"
	  "                       bytes of each member to use. The new space is\n"
	  "                       zeroed first on the levels with copies or\n"
	  "                       parity; then grow the file system. Refused\n"
	  "                       while degraded or syncing, and on RAID10 far\n"
	  "                       (its far copies would move)", 0 },
	{ "remove", cmd_remove, "NAME|/dev/striaN DEV...",
	  "Remove each DEV from a running array: a spare (its superblock is\n"
	  "erased), or a failed member (its role stays failed, with no device,\n"
	  "until a spare takes it). An active or rebuilding member is refused:\n"
	  "fail it first. Exits 1 when any DEV was refused.", 0 },
	{ "scrub", cmd_scrub, "NAME|/dev/striaN check|repair|stop [--range START-END]",
	  "Start a scrub of a RAID1, 5, 6 or 10 array in the background, or stop\n"
	  "the running one.\n\n"
	  "check reads all of the array and counts the mismatched sectors\n"
	  "(mismatch_cnt): on RAID5/6 those of parity that does not match the\n"
	  "data, on RAID1 and RAID10 those of each copy that differs from the\n"
	  "chunk's first copy. repair also rewrites what differs. RAID5 rewrites\n"
	  "the parity. RAID6 rewrites only the one chunk of a stripe it can trace\n"
	  "the mismatch to (data, P or Q), and leaves a stripe it cannot trace as\n"
	  "it is. RAID1 and RAID10 write the data that more than half of the\n"
	  "copies hold over the others; without such a majority (2 copies that\n"
	  "differ, 2 against 2) nothing tells which copy is right, and the first\n"
	  "copy wins, as in md (on RAID1, the copy on role 0).\n"
	  "stop ends a running check or repair.\n\n"
	  "Throttled like a rebuild (sysfs sync_speed_min and sync_speed_max);\n"
	  "refused while the array is degraded or rebuilding.\n\n"
	  "  -r, --range START-END\n"
	  "                       only this part of a RAID5/6 array: byte\n"
	  "                       offsets with K, M, G, T suffixes (END empty: to\n"
	  "                       the end), rounded out to whole stripes", 0 },
	{ "slot-spare", cmd_slot_spare, "[--config FILE] DEV",
	  "DEV is a new drive (udev runs this for each NVMe namespace added).\n"
	  "When it sits in the slot of a failed member of a running array (the\n"
	  "same PCI slot, else the same PCI address), stria.conf has POLICY\n"
	  "action=spare-same-slot for that array, and DEV is blank (no signature\n"
	  "of any kind), add it to the array as a spare: it takes the failed\n"
	  "role and is rebuilt. Off by default. Exits 0 when it added DEV or had\n"
	  "nothing to do, 1 when a drive in such a slot was refused (not blank,\n"
	  "or the add failed), saying why on stderr and in syslog.\n\n"
	  "  -c, --config FILE    read FILE instead of /etc/stria/stria.conf", 0 },
	{ "wait", cmd_wait, "NAME|/dev/striaN",
	  "Wait until no rebuild or scrub runs on the array. Exits 0 when the\n"
	  "last one ended well (or none ran), 1 when it stopped on an error or\n"
	  "was stopped.", 0 },
	{ "zero-superblock", cmd_zero_superblock, "[--force] DEV...",
	  "Erase the stria superblock of each DEV, so that nothing takes it for\n"
	  "a member any more (udev, 'striactl assemble --scan'). Refused for a\n"
	  "device a running array holds, whatever the options: stop the array,\n"
	  "or fail and remove the member, first. Only the superblock is zeroed.\n"
	  "Exits 3 when DEV has no stria superblock (nothing is written), 1 when\n"
	  "any DEV was refused.\n\n"
	  "  -f, --force          erase a superblock that is damaged or of a newer\n"
	  "                       format too", 0 },
	{ "status", cmd_status, "[-o FORMAT] [--watch [SECONDS]] [NAME|/dev/striaN]",
	  "Short state of every running array, or of one: level, layout, state\n"
	  "(active, degraded: running on its redundancy, failed: data lost),\n"
	  "each member's state (active, failed, rebuilding), the spares, and the\n"
	  "running rebuild or scrub: progress (a bar on a terminal), speed, ETA,\n"
	  "mismatches; and the write-intent bitmap: regions dirty of all.\n\n"
	  "  -w, --watch [SECONDS]\n"
	  "                       show it again every SECONDS (default 2) until\n"
	  "                       interrupted\n"
	  "  -o prometheus        metrics in the Prometheus text format, for\n"
	  "                       node_exporter's textfile collector (read from\n"
	  "                       sysfs: no root needed)", 1 },
	{ "monitor", cmd_monitor,
	  "[-o FORMAT] [--mail ADDR]... [--program PATH] [--delay SECONDS] [--increment N] [--oneshot] [--test] [--config FILE] [--no-syslog] [--sendmail PATH]",
	  "Follow every array and report each event (a member failed, removed or\n"
	  "added, a spare rebuilt, the array degraded, failed or back to active, a\n"
	  "sync started or ended, mismatches found, an unclean shutdown): a line\n"
	  "on stdout and in syslog, PROGRAM run as 'PROGRAM EVENT /dev/striaN\n"
	  "[MEMBER]', and a mail to MAILADDR for warnings and worse. MAILADDR and\n"
	  "PROGRAM come from /etc/stria/stria.conf when it exists; the options\n"
	  "win over it. Runs until interrupted (stria-monitor.service).\n\n"
	  "  -m, --mail ADDR      mail alerts to ADDR (again for more addresses)\n"
	  "  -p, --program PATH   run PATH for every event\n"
	  "  -d, --delay SECONDS  read every array again this often (default 60)\n"
	  "  -r, --increment N    report a rebuild, scrub, resync, replace or\n"
	  "                       reshape each time it passes another N percent\n"
	  "                       (SyncProgress, as mdadm's RebuildNN; 1 to 99,\n"
	  "                       default 20)\n"
	  "  -1, --oneshot        report what is wrong now and exit: 1 when\n"
	  "                       anything is (degraded, failed members, mismatches,\n"
	  "                       a resync owed, a read-only array, an ARRAY of the\n"
	  "                       configuration not running or short of spares), 0\n"
	  "                       when not; for cron and checks\n"
	  "  -t, --test           send a TestMessage event for every array through\n"
	  "                       every channel and exit: 0 when each got through\n"
	  "  -c, --config FILE    read FILE instead of /etc/stria/stria.conf\n"
	  "      --no-syslog      no lines in syslog\n"
	  "      --sendmail PATH  the sendmail to mail with (default\n"
	  "                       /usr/sbin/sendmail)", 2 },
	{ "detail", cmd_detail, "[-o FORMAT|--export] NAME|/dev/striaN | --scan",
	  "Everything about a running array: geometry, layout, state, write-intent\n"
	  "bitmap, members, NUMA node and the CPU -> hardware queue map.\n\n"
	  "  -s, --scan           one ARRAY line per running array, to append to\n"
	  "                       /etc/stria/stria.conf (stria.conf(5)):\n"
	  "                       ARRAY /dev/stria/NAME uuid=UUID level=raidN\n"
	  "                       members=N spares=N", 1 },
	{ "examine", cmd_examine, "[-o FORMAT|--export] DEV",
	  "Read and check the stria superblock of DEV, without the module, and\n"
	  "count the regions its copy of the write-intent bitmap marks dirty.\n"
	  "Exits 3 when DEV has no stria superblock, 1 when it is damaged or\n"
	  "from a newer format.", 1 },
	{ "home", cmd_home, "[-o FORMAT|--export] [--homehost HOST] [--config FILE] /dev/striaN",
	  "Is a running array this host's own? It is when it records this host\n"
	  "as its home host (HOMEHOST <ignore>: every array), or stria.conf\n"
	  "has an ARRAY line with its UUID; an array started by hand or by AUTO\n"
	  "is not, nor one that records no home host. Reads sysfs only. udev\n"
	  "asks, so that only this host's arrays take /dev/disk/by-uuid and\n"
	  "by-label names before other devices (home: this-host or other).", 1 },
	{ "list", cmd_list, "[-o FORMAT]",
	  "One line per running array.", 1 },
	{ "version", cmd_version, "[-o FORMAT]",
	  "Show the versions of striactl and of the loaded stria module, and\n"
	  "the features the module supports (STRIA_IOC_INFO). Exits 4 when the\n"
	  "module is not loaded, after printing striactl's own version.", 1 },
	{ "info", cmd_version, "[-o FORMAT]",
	  "Same as 'version'.", 1 },
	{ NULL, NULL, NULL, NULL, 0 }
};

static void print_help(FILE *f)
{
	const struct command *cmd;

	fputs("usage: striactl COMMAND [OPTION...] [ARG...]\n\n"
	      "Manage stria RAID arrays.\n\nCommands:\n", f);
	for (cmd = commands; cmd->name; cmd++)
		fprintf(f, "  %-10s %s\n", cmd->name, cmd->usage);
	fputs("\nRun 'striactl COMMAND --help' for a command's options. Every command\n"
	      "takes -q (no informational messages) and -v (more detail).\n\n"
	      "Exit status:\n"
	      "  0  success\n"
	      "  1  the operation failed or was refused\n"
	      "  2  bad command line\n"
	      "  3  no such array, or no stria superblock on the device\n"
	      "  4  the stria module is not loaded (/dev/stria-control missing)\n",
	      f);
}

/*
 * -q/--quiet and -v/--verbose, wherever they are on the command line (before
 * a "--"): taken out of @argv so that every command has them. Returns the
 * new argc.
 */
static int take_verbosity(struct ctx *c, int argc, char **argv)
{
	int i, n = 1, rest = 0;

	for (i = 1; i < argc; i++) {
		if (!rest && !strcmp(argv[i], "--"))
			rest = 1;
		if (!rest && (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet")))
			c->quiet++;
		else if (!rest && (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")))
			c->verbose++;
		else
			argv[n++] = argv[i];
	}
	argv[n] = NULL;
	return n;
}

int main(int argc, char **argv)
{
	static char getopt_prefix[128];
	struct ctx c = { 0 };
	const struct command *cmd;
	const char *slash;

	slash = strrchr(argv[0], '/');
	c.prog = slash ? slash + 1 : argv[0];
	c.fmt = OUT_NORMAL;
	argc = take_verbosity(&c, argc, argv);
	striactl_verbose = c.verbose;

	if (argc < 2) {
		print_help(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		if (argc > 2) {
			for (cmd = commands; cmd->name; cmd++)
				if (!strcmp(cmd->name, argv[2])) {
					print_cmd_help(cmd, stdout);
					return EXIT_OK;
				}
		}
		print_help(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("striactl %s\n", STRIACTL_VERSION);
		return EXIT_OK;
	}
	for (cmd = commands; cmd->name; cmd++) {
		if (!strcmp(cmd->name, argv[1])) {
			c.cmd = cmd;
			optind = 1;
			/*
			 * getopt_long() words a bad option itself, after its
			 * argv[0]: make that "striactl: COMMAND", as err_msg()
			 * starts its lines.
			 */
			snprintf(getopt_prefix, sizeof(getopt_prefix), "%s: %s",
				 c.prog, cmd->name);
			argv[1] = getopt_prefix;
			/* -q: what a command that changes things says it did */
			if (c.quiet && !cmd->display && !freopen("/dev/null", "w", stdout))
				return EXIT_FAIL;
			return cmd->fn(&c, argc - 1, argv + 1);
		}
	}
	return usage_error(&c, "unknown command '%s'", argv[1]);
}
