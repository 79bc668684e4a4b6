// SPDX-License-Identifier: GPL-2.0
/*
 * striactl slot-spare DEV: a new drive DEV has appeared (udev runs this
 * for every NVMe namespace added). When it sits in the slot of a failed
 * member of a running array (the same PCI slot, else the same PCI
 * address: ident.h; a pulled member's slot is what striactl monitor
 * kept of it), stria.conf's POLICY for that array is spare-same-slot,
 * and DEV is blank (no stria superblock, nothing libblkid recognizes),
 * DEV is added to that array as a spare: it takes the failed role and is
 * rebuilt. Off unless a POLICY line says so, as mdadm.conf's POLICY
 * action=spare-same-slot.
 *
 * Nothing to do (no POLICY, no array, not a failed member's slot) exits
 * 0; a drive in such a slot that is refused (not blank, the add failed)
 * exits 1 and says why, in syslog too: udev keeps a program's output
 * only at debug level.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <syslog.h>
#include <unistd.h>
#include <linux/stria.h>

#include "config.h"
#include "ident.h"
#include "snapshot.h"
#include "striactl.h"


static void slot_log(int prio, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void slot_log(int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	openlog("striactl", LOG_PID, LOG_DAEMON);
	vsyslog(prio, fmt, ap);
	closelog();
	va_end(ap);
}

/* Nothing done, and why: for a person running it by hand (not -q). */
static void slot_info(struct ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void slot_info(struct ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (c->quiet)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* One failed role of a running array that @new sits in the slot of. */
struct slot_match {
	struct stria_ioc_query q;
	uint32_t role;
	struct drive_ident old;
	int old_cached;
	int unknown;		/* failed roles whose drive's slot is not known */
};

/*
 * The first running array with a failed member in @new's slot, into
 * @match. Returns 1 when there is one, 0 when not, -errno when the arrays
 * cannot be listed.
 */
static int find_slot(int fd, const struct drive_ident *new, dev_t rdev,
		     struct slot_match *match)
{
	struct stria_ioc_member members[STRIA_MAX_MEMBERS + STRIA_MAX_SPARES];
	uint32_t idx = 0, i;
	int err;

	match->unknown = 0;
	while (!(err = query_array(fd, NULL, idx, 1, &match->q, members, NULL, 0))) {
		for (i = 0; i < match->q.nr_members && i < STRIA_MAX_MEMBERS; i++) {
			if (members[i].state != STRIA_STATE_FAILED ||
			    (members[i].major == major(rdev) &&
			     members[i].minor == minor(rdev)))
				continue;
			match->old_cached = member_ident(&match->q, &members[i], 1,
							 &match->old);
			if (!match->old.pci[0] && !match->old.slot[0])
				match->unknown++;
			if (!ident_same_slot(&match->old, new))
				continue;
			match->role = members[i].role;
			return 1;
		}
		idx = match->q.index + 1;
	}
	return err == ENOENT ? 0 : -err;
}

static int add_spare(struct ctx *c, int fd, const char *dev, dev_t rdev,
		     const struct slot_match *mt, const char *why)
{
	struct stria_ioc_member_op req;
	char name[STRIA_NAME_LEN + 1];

	memcpy(name, mt->q.name, STRIA_NAME_LEN);
	name[STRIA_NAME_LEN] = '\0';
	memset(&req, 0, sizeof(req));
	req.size = sizeof(req);
	req.op = STRIA_MEMBER_OP_ADD;
	req.index = mt->q.index;
	req.major = major(rdev);
	req.minor = minor(rdev);
	if (ioctl(fd, STRIA_IOC_MEMBER, &req)) {
		int err = errno;

		req.msg[STRIA_MSG_LEN - 1] = '\0';
		err_msg(c, "%s: not added to array '%s': %s", dev, name,
			req.msg[0] ? req.msg : strerror(err));
		slot_log(LOG_ERR, "%s, new in the slot of failed member %u of array '%s', was not added: %s",
			 dev, mt->role, name, req.msg[0] ? req.msg : strerror(err));
		return EXIT_FAIL;
	}
	printf("added %s to array '%s' (/dev/stria%u) as a spare: it is in the slot of failed member %u (%s)\n",
	       dev, name, mt->q.index, mt->role, why);
	slot_log(LOG_NOTICE, "added %s to array '%s' as a spare: it is in the slot of failed member %u (%s)",
		 dev, name, mt->role, why);
	return EXIT_OK;
}

int cmd_slot_spare(struct ctx *c, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		COMMON_LONGOPTS, { 0 }
	};
	const char *path = NULL, *dev, *sig;
	struct drive_ident new;
	struct slot_match mt;
	struct stria_conf conf;
	char err[512], kname[64], sigbuf[512], why[640], here[256];
	char name[STRIA_NAME_LEN + 1];
	struct stat st;
	int opt, ret, fd, line;

	while ((opt = getopt_long(argc, argv, "c:" COMMON_SHORTOPTS, longopts, NULL)) != -1) {
		if (opt == 'c') {
			path = optarg;
			continue;
		}
		ret = common_opt(c, opt);
		if (ret)
			return ret < 0 ? EXIT_OK : ret;
	}
	if (argc - optind != 1)
		return usage_error(c, "give one device: the new drive");
	dev = argv[optind];
	ret = conf_parse_file(path ? path : STRIA_CONF_PATH, &conf, err, sizeof(err));
	if (ret && !(ret == -ENOENT && !path)) {
		err_msg(c, "%s; nothing was done", err);
		slot_log(LOG_ERR, "%s; no new drive is added as a spare until it is fixed", err);
		return EXIT_FAIL;
	}
	path = path ? path : STRIA_CONF_PATH;
	if (!conf_spare_any(&conf)) {
		slot_info(c, "%s: nothing done: no POLICY line of %s adds new drives as spares (POLICY action=spare-same-slot)",
			  dev, path);
		conf_free(&conf);
		return EXIT_OK;
	}
	ret = EXIT_OK;
	fd = -1;
	if (stat_blockdev(c, dev, &st)) {
		ret = EXIT_FAIL;
		goto out;
	}
	member_devname(major(st.st_rdev), minor(st.st_rdev), kname, sizeof(kname));
	if (strncmp(kname, "/dev/", 5) || ident_read(snap_sysfs, kname + 5, &new)) {
		err_msg(c, "%s: not in sysfs: cannot tell which slot it is in", dev);
		ret = EXIT_FAIL;
		goto out;
	}
	snprintf(here, sizeof(here), "%s/class/block/%s/partition", snap_sysfs,
		 kname + 5);
	if (!access(here, F_OK)) {
		err_msg(c, "%s is a partition: only a whole drive put in a slot is added", dev);
		ret = EXIT_FAIL;
		goto out;
	}
	if (!new.pci[0] && !new.slot[0]) {
		slot_info(c, "%s: nothing done: sysfs shows no PCI address or slot for it", dev);
		goto out;
	}
	/* no control device: no array runs (and none is loaded for this) */
	fd = open("/dev/" STRIA_CONTROL_NAME, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		slot_info(c, "%s: nothing done: no stria array is running", dev);
		goto out;
	}
	ret = find_slot(fd, &new, st.st_rdev, &mt);
	if (ret < 0) {
		err_msg(c, "cannot list the arrays: %s", strerror(-ret));
		ret = EXIT_FAIL;
		goto out;
	}
	if (!ret) {
		slot_info(c, "%s: nothing done: it is in no failed member's slot (%s%s%s%s)%s",
			  dev, new.slot[0] ? "slot " : "PCI address ",
			  new.slot[0] ? new.slot : new.pci,
			  new.slot[0] ? ", PCI address " : "",
			  new.slot[0] ? new.pci : "",
			  mt.unknown ? "; where the drive of a failed member was is not known: 'striactl monitor' keeps it while it runs. Add the drive by hand: 'striactl add NAME DEV'" : "");
		goto out;
	}
	ret = EXIT_OK;
	memcpy(name, mt.q.name, STRIA_NAME_LEN);
	name[STRIA_NAME_LEN] = '\0';
	if (conf_spare_action(&conf, name, &line) != CONF_SPARE_SAME_SLOT) {
		slot_info(c, "%s: nothing done: it is in the slot of failed member %u of array '%s', but %s:%d says POLICY action=none for that array",
			  dev, mt.role, name, path, line);
		goto out;
	}
	snprintf(why, sizeof(why), "slot %s, PCI address %s%s; POLICY at %s:%d",
		 mt.old.slot[0] ? mt.old.slot : "-",
		 mt.old.pci[0] ? mt.old.pci : "-",
		 mt.old_cached ? ", as last seen" : "", path, line);
	/* only a blank drive: never overwrite what someone may want */
	sig = foreign_signature(dev, sigbuf, sizeof(sigbuf));
	if (sig) {
		err_msg(c, "%s is in the slot of failed member %u of array '%s', but it is not blank: %s. Not added; to use it, wipe it ('wipefs -a %s') and run 'striactl add %s %s'",
			dev, mt.role, name, sig, dev, name, dev);
		slot_log(LOG_WARNING, "%s, new in the slot of failed member %u of array '%s', is not blank (%s): not added",
			 dev, mt.role, name, sig);
		ret = EXIT_FAIL;
		goto out;
	}
	ret = add_spare(c, fd, dev, st.st_rdev, &mt, why);
out:
	if (fd >= 0)
		close(fd);
	conf_free(&conf);
	return ret;
}
