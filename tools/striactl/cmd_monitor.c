// SPDX-License-Identifier: GPL-2.0
/*
 * striactl monitor: follow every array and report each event.
 *
 * The module sends a uevent (STRIA_EVENT=...) on an array's disk for every
 * change that matters; monitor listens on a NETLINK_KOBJECT_UEVENT socket
 * (no libudev: striactl links statically for an initramfs) and reports
 * each. Uevents can be lost (a full socket buffer, or the module's own
 * queue: its "Changed" event, or a gap in STRIA_SEQ), so monitor also
 * reads every array from sysfs (snapshot.h) every --delay seconds, and at
 * once after such a loss, and reports what changed since it last
 * reported: it keeps, per array, the state its reports describe. A kernel
 * event that this state already shows (a re-read came first) is not
 * reported twice.
 *
 * Each event goes to stdout (a line, or a JSON object with -o json), to
 * syslog (the journal), to PROGRAM as mdadm --monitor runs it (PROGRAM
 * EVENT /dev/striaN [MEMBER], details in STRIA_* variables) and, for
 * warnings and worse, in a mail through the local sendmail to MAILADDR.
 * PROGRAM and MAILADDR come from /etc/stria/stria.conf (config.h) or the
 * command line. The configuration's ARRAY lines say what should run: one
 * that no running array is, is DeviceDisappeared, an array short of its
 * spares=, SparesMissing (mdadm's names): at start, when they happen while
 * monitor runs (a configured array that stops), and with --oneshot.
 * --oneshot reports what is wrong now and exits 1 when anything is; --test
 * sends a TestMessage for every array.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/stria.h>

#include "config.h"
#include "ident.h"
#include "snapshot.h"
#include "striactl.h"

#define NO_ROLE		(-2)	/* an event about no member */

/* One event, as monitor reports it. */
struct mon_event {
	const char *name;
	const char *source;		/* kernel, scan or test */
	int prio;			/* LOG_* */
	unsigned int index;		/* N of /dev/striaN */
	int running;			/* @index is a running array's */
	char device[48];		/* /dev/striaN, or /dev/stria/NAME */
	char array[STRIA_NAME_LEN];
	char uuid[40];
	int role;			/* NO_ROLE, SNAP_ROLE_SPARE or a role */
	char member[40];		/* /dev/NAME, or "missing" */
	char member_dev[16];		/* MAJOR:MINOR (kernel events) */
	char member_state[16];
	struct drive_ident ident;	/* which drive @member is */
	int ident_cached;		/* @ident is what was last seen */
	char array_state[16];
	int readonly;			/* the array is read-only */
	char sync_action[16];
	char sync_result[24];
	int sync_percent;		/* -1: none (SyncProgress: passed) */
	uint64_t sync_done, sync_total;	/* SyncProgress: sectors per member */
	int64_t mismatch_cnt;		/* -1: none */
	int64_t stripe;			/* -1: none (MismatchLocated, ...) */
	int64_t sector;			/* -1: none; its array sector */
	char chunk[8];			/* data, P or Q: the one located */
	int resync;			/* -1: none */
	uint64_t seq;			/* 0: none */
	int spares;			/* -1: none (SparesMissing: it has) */
	int spares_expected;		/* spares= of its ARRAY line */
	const char *conf_path;		/* the ARRAY line of the event ... */
	int conf_line;			/* ... 0: none */
	int no_module;			/* the stria module is not loaded */
	char message[320];
};

/* What monitor last reported of one array. */
struct mon_array {
	unsigned int index;
	struct array_snap rep;
	int dirty;			/* reported dirty, not clean since */
	int seq_known;
	uint64_t seq;			/* STRIA_SEQ of the last kernel event */
};

struct mon {
	struct ctx *c;
	const struct stria_conf *conf;	/* its ARRAY lines: what should run */
	const char *program;
	char **mail;
	size_t nr_mail;
	const char *sendmail;
	int mail_state;			/* sendmail: 0 not tried, 1 runs, -1 not */
	char mail_where[384];		/* "FILE:LINE: MAILADDR: " or "" */
	unsigned int delay;
	unsigned int increment;		/* SyncProgress every this many percent */
	int syslog;
	int ctl;			/* the control device, or -1 */
	struct out out;
	size_t nr;
	struct mon_array **arrays;
	int delivery_failed;
	char host[HOST_NAME_MAX + 1];
};

static volatile sig_atomic_t mon_stop;

static void on_signal(int sig)
{
	(void)sig;
	mon_stop = 1;
}

/* --- what monitor knows of the arrays ------------------------------------ */

static struct mon_array *find_array(struct mon *m, unsigned int index)
{
	size_t i;

	for (i = 0; i < m->nr; i++)
		if (m->arrays[i]->index == index)
			return m->arrays[i];
	return NULL;
}

static int is_scrub(const char *action)
{
	return !strcmp(action, "check") || !strcmp(action, "repair");
}

/*
 * A check or repair that runs has reported no mismatches yet, whatever
 * it counted so far: its count is reported when it ends (MismatchesFound,
 * from the kernel or a re-read). @rep becomes what was reported of the
 * array, from a snapshot @cur of it; @action and @reported: what was
 * reported before (@action "" when nothing was).
 */
static void set_reported(struct array_snap *rep, const struct array_snap *cur,
			 const char *action, uint64_t reported)
{
	*rep = *cur;
	if (is_scrub(cur->sync_action))
		rep->mismatch_cnt = strcmp(action, cur->sync_action) ? 0 :
				    reported;
}

static struct mon_array *add_array(struct mon *m, const struct array_snap *s)
{
	struct mon_array **arr, *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	arr = realloc(m->arrays, (m->nr + 1) * sizeof(*arr));
	if (!arr) {
		free(a);
		return NULL;
	}
	m->arrays = arr;
	a->index = s->index;
	set_reported(&a->rep, s, "", 0);
	arr[m->nr++] = a;
	return a;
}

static void drop_array(struct mon *m, struct mon_array *a)
{
	size_t i;

	for (i = 0; i < m->nr; i++) {
		if (m->arrays[i] != a)
			continue;
		memmove(&m->arrays[i], &m->arrays[i + 1],
			(m->nr - i - 1) * sizeof(*m->arrays));
		m->nr--;
		free(a);
		return;
	}
}

/* --- reporting ----------------------------------------------------------- */

/* An event about nothing yet. */
static void event_reset(struct mon_event *e, const char *name,
			const char *source)
{
	memset(e, 0, sizeof(*e));
	e->name = name;
	e->source = source;
	e->role = NO_ROLE;
	e->sync_percent = -1;
	e->mismatch_cnt = -1;
	e->stripe = -1;
	e->sector = -1;
	e->resync = -1;
	e->spares = -1;
}

/* An event about running array @s. */
static void event_init(struct mon_event *e, const char *name,
		       const char *source, const struct array_snap *s)
{
	event_reset(e, name, source);
	e->index = s->index;
	e->running = 1;
	snprintf(e->device, sizeof(e->device), "/dev/stria%u", s->index);
	snprintf(e->array, sizeof(e->array), "%s", s->name);
	snprintf(e->uuid, sizeof(e->uuid), "%s", s->uuid);
	snprintf(e->array_state, sizeof(e->array_state), "%s", s->state);
	e->readonly = s->readonly;
}

/* Which drive the member of @e (kernel name @dev, "-" for none) is. */
static void event_ident(struct mon_event *e, const char *dev)
{
	e->ident_cached = ident_lookup(snap_sysfs, strcmp(dev, "-") ? dev : NULL,
				       e->uuid, e->role, &e->ident);
}

/* The member of @e from a snapshot entry (kernel name @dev). */
static void event_member(struct mon_event *e, int role, const char *dev,
			 const char *state)
{
	e->role = role;
	if (!dev[0] || !strcmp(dev, "-"))
		snprintf(e->member, sizeof(e->member), "missing");
	else
		snprintf(e->member, sizeof(e->member), "/dev/%s", dev);
	snprintf(e->member_state, sizeof(e->member_state), "%s", state);
	event_ident(e, dev);
}

/*
 * Keep which drive each role of @s is on (ident.h), so that an alert
 * about a drive pulled later still says which one it was. Best effort:
 * without a writable cache directory, a gone drive is only its name.
 */
static void remember_drives(const struct array_snap *s)
{
	struct drive_ident id;
	unsigned int i;
	int ret;

	for (i = 0; i < s->nr_entries; i++) {
		const struct snap_member *mm = &s->m[i];

		if (mm->role < 0 || mm->replacement || !strcmp(mm->dev, "-") ||
		    ident_read(snap_sysfs, mm->dev, &id) || !ident_known(&id))
			continue;
		ret = ident_cache_store(s->uuid, mm->role, &id);
		if (ret)
			verbose_msg("%s: cannot keep the identity of %s: %s",
				    ident_cache_dir, mm->dev, strerror(-ret));
	}
}

/* How bad an event is: syslog priority; mails go for warnings and worse. */
static int event_prio(const struct mon_event *e)
{
	static const char *const crit[] = {
		"MemberFailed", "ArrayDegraded", "ArrayFailed",
		"DeviceDisappeared", NULL,
	};
	static const char *const warn[] = {
		"MismatchesFound", "ArrayDirty", "MismatchLocated",
		"MismatchUnlocatable", "SparesMissing", "ArrayReadOnly", NULL,
	};
	int i;

	for (i = 0; crit[i]; i++)
		if (!strcmp(e->name, crit[i]))
			return LOG_CRIT;
	for (i = 0; warn[i]; i++)
		if (!strcmp(e->name, warn[i]))
			return LOG_WARNING;
	if (!strcmp(e->name, "SyncInterrupted") &&
	    strcmp(e->sync_result, "stopped"))
		return LOG_WARNING;
	if (!strcmp(e->name, "SyncProgress"))
		return LOG_INFO;
	return LOG_NOTICE;
}

static const char *prio_name(int prio)
{
	return prio == LOG_CRIT ? "critical" :
	       prio == LOG_WARNING ? "warning" :
	       prio == LOG_INFO ? "info" : "notice";
}

/* "member 2 (/dev/nvme2n1)", "spare /dev/nvme4n1" */
static void who(const struct mon_event *e, char *buf, size_t len)
{
	if (e->role == SNAP_ROLE_SPARE)
		snprintf(buf, len, "spare %s", e->member);
	else
		snprintf(buf, len, "member %d (%s)", e->role, e->member);
}

static const char *result_text(const char *r)
{
	return !strcmp(r, "stopped") ? "stopped on request" :
	       !strcmp(r, "io-error") ? "a member failed under it" :
	       !strcmp(r, "too-few-members") ? "too few members are in sync" :
	       !strcmp(r, "unknown") ? "how it ended is not known" : r;
}

/* The one-line text of @e, after "EVENT on /dev/striaN (NAME): ". */
static void event_text(struct mon_event *e)
{
	char w[80], *t = e->message;
	size_t n = sizeof(e->message);
	const char *name = e->name;

	who(e, w, sizeof(w));
	if (!strcmp(name, "MemberFailed"))
		snprintf(t, n, "%s failed; the array %s", w,
			 !strcmp(e->array_state, "failed") ? "has failed" :
			 !strcmp(e->array_state, "degraded") ? "is degraded" :
			 "is active");
	else if (!strcmp(name, "MemberRemoved"))
		snprintf(t, n, "%s was removed from the array%s", w,
			 e->role >= 0 ? "; its role has no device now" : "");
	else if (!strcmp(name, "MemberAdded"))
		snprintf(t, n, "%s takes role %d%s", e->member, e->role,
			 !strcmp(e->member_state, "rebuilding") ?
			 " and is rebuilt" : "");
	else if (!strcmp(name, "SpareAdded"))
		snprintf(t, n, "%s was added as a spare", e->member);
	else if (!strcmp(name, "SpareActive"))
		snprintf(t, n, "%s is rebuilt and in sync", w);
	else if (!strcmp(name, "ArrayDegraded"))
		snprintf(t, n, "the array is degraded: it runs on its redundancy, one more failure may lose data");
	else if (!strcmp(name, "ArrayFailed"))
		snprintf(t, n, "the array has failed: more members are missing than its level tolerates");
	else if (!strcmp(name, "ArrayOptimal"))
		snprintf(t, n, "the array is active again: every member is in sync");
	else if (!strcmp(name, "ArrayDirty") && e->readonly)
		snprintf(t, n, "the array was not stopped cleanly and is read-only: its parity is resynced once it is read-write ('striactl readwrite %s')",
			 e->array);
	else if (!strcmp(name, "ArrayDirty"))
		snprintf(t, n, e->resync > 0 ?
			 "the array was not stopped cleanly: its parity is resynced" :
			 !strcmp(e->source, "scan") ?
			 "the array was not stopped cleanly and is degraded: its parity is resynced once every member is in sync" :
			 "the array was not stopped cleanly and is degraded: its parity cannot be resynced");
	else if (!strcmp(name, "ArrayReadOnly"))
		snprintf(t, n, "the array is read-only: it refuses writes, and nothing is written to its members until 'striactl readwrite %s'",
			 e->array);
	else if (!strcmp(name, "ArrayClean"))
		snprintf(t, n, "the resync is done: the parity matches the data again");
	else if (!strcmp(name, "SyncStarted"))
		snprintf(t, n, "a %s started", e->sync_action);
	else if (!strcmp(name, "SyncProgress"))
		snprintf(t, n, "the %s has passed %d%% (%llu of %llu sectors per member)",
			 e->sync_action, e->sync_percent,
			 (unsigned long long)e->sync_done,
			 (unsigned long long)e->sync_total);
	else if (!strcmp(name, "SyncFinished"))
		snprintf(t, n, "the %s finished%s", e->sync_action,
			 e->sync_result[0] && strcmp(e->sync_result, "ok") ?
			 " (how it ended is not known)" : "");
	else if (!strcmp(name, "SyncInterrupted"))
		snprintf(t, n, "the %s ended early: %s", e->sync_action,
			 result_text(e->sync_result));
	else if (!strcmp(name, "MismatchesFound"))
		snprintf(t, n, "a %s found %lld sectors of parity not matching the data",
			 e->sync_action[0] ? e->sync_action : "scrub",
			 (long long)e->mismatch_cnt);
	else if (!strcmp(name, "MismatchLocated"))
		snprintf(t, n, "a repair found the %s chunk of stripe %lld on %s wrong and rewrote it (array sector %lld)",
			 e->chunk, (long long)e->stripe, w,
			 (long long)e->sector);
	else if (!strcmp(name, "MismatchUnlocatable"))
		snprintf(t, n, "a repair found parity not matching the data in stripe %lld (array sector %lld) that it cannot trace to one chunk: left as it is",
			 (long long)e->stripe, (long long)e->sector);
	else if (!strcmp(name, "NewArray"))
		snprintf(t, n, "the array is running, %s", e->array_state);
	else if (!strcmp(name, "ArrayStopped"))
		snprintf(t, n, "the array is not running any more");
	else if (!strcmp(name, "DeviceDisappeared"))
		snprintf(t, n, "the array configured at %s:%d is not running: %s",
			 e->conf_path, e->conf_line, e->no_module ?
			 "the stria module is not loaded ('modprobe stria', then 'striactl assemble --scan')" :
			 "start it ('striactl assemble --scan'), or take its ARRAY line out");
	else if (!strcmp(name, "SparesMissing"))
		snprintf(t, n, "the array has %d spare%s, %s:%d wants %d: add one ('striactl add %s DEV')",
			 e->spares, e->spares == 1 ? "" : "s", e->conf_path,
			 e->conf_line, e->spares_expected, e->array);
	else if (!strcmp(name, "TestMessage"))
		snprintf(t, n, "a test event from striactl monitor --test: the alerts get through");
	else
		snprintf(t, n, "%s", name);
	if (e->mismatch_cnt >= 0 && strcmp(name, "MismatchesFound") &&
	    (!strcmp(name, "SyncFinished") || !strcmp(name, "SyncInterrupted"))) {
		size_t l = strlen(t);

		snprintf(t + l, n - l, ", %lld mismatched parity sectors",
			 (long long)e->mismatch_cnt);
	}
}

static void event_json(struct mon *m, const struct mon_event *e,
		       const char *when)
{
	struct out *o = &m->out;

	out_init(o, stdout, OUT_JSON);
	o->compact = 1;
	out_begin(o);
	out_str(o, "time", when);
	out_str(o, "event", e->name);
	out_str(o, "severity", prio_name(e->prio));
	out_str(o, "source", e->source);
	out_str(o, "array", e->array);
	out_str(o, "device", e->device);
	if (e->uuid[0])
		out_str(o, "uuid", e->uuid);
	if (e->array_state[0])
		out_str(o, "array_state", e->array_state);
	if (e->role != NO_ROLE) {
		out_str(o, "member", e->member);
		if (e->role == SNAP_ROLE_SPARE)
			out_str(o, "role", "spare");
		else
			out_u64(o, "role", (uint64_t)e->role);
		if (e->member_state[0])
			out_str(o, "member_state", e->member_state);
		if (e->member_dev[0])
			out_str(o, "member_dev", e->member_dev);
		out_ident(o, "member_", &e->ident, e->ident_cached);
	}
	if (e->sync_action[0])
		out_str(o, "sync_action", e->sync_action);
	if (e->sync_result[0])
		out_str(o, "sync_result", e->sync_result);
	if (e->sync_percent >= 0) {
		out_u64(o, "sync_percent", (uint64_t)e->sync_percent);
		out_u64(o, "sync_done", e->sync_done);
		out_u64(o, "sync_total", e->sync_total);
	}
	if (e->mismatch_cnt >= 0)
		out_u64(o, "mismatch_cnt", (uint64_t)e->mismatch_cnt);
	if (e->stripe >= 0)
		out_u64(o, "stripe", (uint64_t)e->stripe);
	if (e->sector >= 0)
		out_u64(o, "sector", (uint64_t)e->sector);
	if (e->chunk[0])
		out_str(o, "chunk", e->chunk);
	if (e->resync >= 0)
		out_bool(o, "resync", e->resync);
	if (e->seq)
		out_u64(o, "seq", e->seq);
	if (e->spares >= 0) {
		out_u64(o, "spares", (uint64_t)e->spares);
		out_u64(o, "spares_expected", (uint64_t)e->spares_expected);
	}
	out_str(o, "message", e->message);
	out_end(o);
}

/* STRIA_MEMBER_SERIAL and the like for PROGRAM: the known fields of @id. */
static void setenv_ident(const struct drive_ident *id)
{
	char name[48];
	size_t i;

	for (i = 0; i < nr_ident_fields; i++) {
		if (!ident_get(id, &ident_fields[i])[0])
			continue;
		snprintf(name, sizeof(name), "STRIA_MEMBER_%s", ident_fields[i].env);
		setenv(name, ident_get(id, &ident_fields[i]), 1);
	}
}

/* Run @argv[0] with @argv, its stdin from @in (-1: /dev/null). */
static int run_child(struct mon *m, char *const argv[], int in,
		     const struct mon_event *e)
{
	pid_t pid;
	int status, fd;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		fd = in >= 0 ? in : open("/dev/null", O_RDONLY);
		if (fd >= 0 && fd != STDIN_FILENO)
			dup2(fd, STDIN_FILENO);
		if (e) {
			char buf[32];

			setenv("STRIA_EVENT", e->name, 1);
			setenv("STRIA_NAME", e->array, 1);
			setenv("STRIA_DEVICE", e->device, 1);
			setenv("STRIA_UUID", e->uuid, 1);
			setenv("STRIA_ARRAY_STATE", e->array_state, 1);
			setenv("STRIA_SEVERITY", prio_name(e->prio), 1);
			setenv("STRIA_MESSAGE", e->message, 1);
			if (e->role != NO_ROLE) {
				setenv("STRIA_MEMBER", e->member, 1);
				if (e->role == SNAP_ROLE_SPARE)
					snprintf(buf, sizeof(buf), "spare");
				else
					snprintf(buf, sizeof(buf), "%d", e->role);
				setenv("STRIA_MEMBER_ROLE", buf, 1);
				setenv_ident(&e->ident);
			}
			if (e->sync_action[0])
				setenv("STRIA_SYNC_ACTION", e->sync_action, 1);
			if (e->mismatch_cnt >= 0) {
				snprintf(buf, sizeof(buf), "%lld",
					 (long long)e->mismatch_cnt);
				setenv("STRIA_MISMATCH_CNT", buf, 1);
			}
		}
		execv(argv[0], argv);
		fprintf(stderr, "%s: monitor: cannot run %s: %s\n", m->c->prog,
			argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* PROGRAM EVENT /dev/striaN [MEMBER], as mdadm --monitor runs it. */
static void run_program(struct mon *m, const struct mon_event *e)
{
	char *argv[5] = { (char *)m->program, (char *)e->name,
			   (char *)e->device, NULL, NULL };
	const char *dev = e->device;
	int ret;

	if (e->role != NO_ROLE && strcmp(e->member, "missing"))
		argv[3] = (char *)e->member;
	ret = run_child(m, argv, -1, e);
	if (ret) {
		m->delivery_failed = 1;
		err_msg(m->c, "%s %s %s: %s %d", m->program, e->name, dev,
			ret < 0 ? "cannot run it: error" : "exited", ret);
		if (m->syslog)
			syslog(LOG_ERR, "PROGRAM %s exited %d for the %s event on %s",
			       m->program, ret, e->name, dev);
	}
}

/*
 * A short description of array @s for mails: mdadm puts /proc/mdstat. The
 * strings come from sysfs, escaped (escape_text()) as in the rest of the
 * mail.
 */
static void describe(FILE *f, const struct array_snap *s)
{
	char name[4 * sizeof(s->name)], state[4 * sizeof(s->state)];
	char sync[4 * sizeof(s->sync_action)];
	char dev[4 * sizeof(s->m[0].dev)], mstate[4 * sizeof(s->m[0].state)];
	unsigned int i;

	escape_text(name, sizeof(name), s->name);
	escape_text(state, sizeof(state), s->state);
	escape_text(sync, sizeof(sync), s->sync_action);
	fprintf(f, "/dev/stria%u (%s): raid%u, %s, %u members, sync %s",
		s->index, name, s->level, state, s->nr_members, sync);
	if (s->sync_total)
		fprintf(f, " %llu%%", (unsigned long long)(s->sync_done * 100 /
							  s->sync_total));
	fprintf(f, ", mismatch_cnt %llu\n", (unsigned long long)s->mismatch_cnt);
	for (i = 0; i < s->nr_entries; i++) {
		const struct snap_member *mm = &s->m[i];

		if (mm->role == SNAP_ROLE_SPARE)
			fprintf(f, "  spare   ");
		else
			fprintf(f, "  %-2d%s", mm->role,
				mm->replacement ? " repl " : "      ");
		escape_text(dev, sizeof(dev),
			    strcmp(mm->dev, "-") ? mm->dev : "missing");
		escape_text(mstate, sizeof(mstate), mm->state);
		fprintf(f, "%-14s %-11s %llu errors\n", dev, mstate,
			(unsigned long long)mm->errors);
	}
}

/*
 * The mail for @e, whole, into @f, as sendmail -t reads it: the headers To
 * (MAILADDR, conf_mailaddr_valid() addresses) and Subject, then the text.
 * Every string that comes from a device or the system (the array's name,
 * the host's name, the message with its member) is escaped (escape_text():
 * printable ASCII, \xHH for the rest), so that none can end a header and
 * start another, and the mail stays 7-bit text.
 */
static void mail_text(FILE *f, const struct mon *m, const struct mon_event *e)
{
	char name[4 * sizeof(e->array)], host[4 * sizeof(m->host)];
	char msg[4 * sizeof(e->message)];
	char drive[512], drive_esc[4 * sizeof(drive)];
	struct array_snap s;
	size_t i;

	escape_text(name, sizeof(name), e->array);
	escape_text(host, sizeof(host), m->host);
	escape_text(msg, sizeof(msg), e->message);
	fputs("To: ", f);
	for (i = 0; i < m->nr_mail; i++)
		fprintf(f, "%s%s", i ? ", " : "", m->mail[i]);
	fprintf(f, "\nSubject: %s event on %s (%s):%s\n\n",
		e->name, e->device, name, host);
	fprintf(f, "This is an automatically generated mail message from striactl monitor\nrunning on %s.\n\n",
		host);
	fprintf(f, "A %s event had been detected on stria array %s (%s):\n\n  %s\n",
		e->name, e->device, name, msg);
	if (e->role != NO_ROLE && ident_known(&e->ident)) {
		ident_text(&e->ident, drive, sizeof(drive));
		escape_text(drive_esc, sizeof(drive_esc), drive);
		fprintf(f, "\nThe drive%s: %s\n", e->ident_cached ?
			" (gone; as last seen in that role)" : "", drive_esc);
	}
	if (e->running && !snap_read(e->index, &s)) {
		fputs("\nThe array now:\n\n", f);
		describe(f, &s);
	}
	fputs("\n'striactl status' shows every array.\n", f);
}

/*
 * Can sendmail be run? Said when it stops being so (stderr and syslog:
 * once, with why, not for every event) and when it is again (installed
 * while monitor runs). Without it, the events still go everywhere else.
 */
static int mail_usable(struct mon *m)
{
	int ok = !access(m->sendmail, X_OK), err = errno;
	const char *where = m->syslog ? (m->program ? "syslog and PROGRAM" : "syslog") :
			    (m->program ? "standard output and PROGRAM" : "standard output");

	if (ok && m->mail_state < 0 && m->syslog)
		syslog(LOG_NOTICE, "sendmail %s can be run again: events are mailed again",
		       m->sendmail);
	if (!ok && m->mail_state >= 0) {
		err_msg(m->c, "%scannot mail: sendmail %s: %s: events go to %s only",
			m->mail_where, m->sendmail, strerror(err), where);
		if (m->syslog)
			syslog(LOG_WARNING, "cannot mail to MAILADDR: sendmail %s: %s: events go to %s only until it can be run",
			       m->sendmail, strerror(err), where);
	}
	m->mail_state = ok ? 1 : -1;
	return ok;
}

static void send_mail(struct mon *m, const struct mon_event *e)
{
	char *argv[] = { (char *)m->sendmail, "-t", "-oi", NULL };
	FILE *f;
	int ret;

	if (!mail_usable(m)) {
		m->delivery_failed = 1;
		verbose_msg("the %s mail on %s was not sent", e->name, e->device);
		return;
	}
	/* the mail, whole, is sendmail's stdin */
	f = tmpfile();
	if (!f) {
		err_msg(m->c, "no temporary file for the %s mail: %s", e->name,
			strerror(errno));
		m->delivery_failed = 1;
		return;
	}
	mail_text(f, m, e);
	if (fflush(f) || ferror(f) || fseek(f, 0, SEEK_SET)) {
		err_msg(m->c, "cannot write the %s mail: %s", e->name,
			strerror(errno));
		fclose(f);
		m->delivery_failed = 1;
		return;
	}
	ret = run_child(m, argv, fileno(f), NULL);
	fclose(f);
	if (ret) {
		m->delivery_failed = 1;
		err_msg(m->c, "%s: %s %d: the %s mail may not have gone out",
			m->sendmail, ret < 0 ? "cannot run it: error" : "exited",
			ret, e->name);
		if (m->syslog)
			syslog(LOG_ERR, "%s exited %d: the mail for the %s event on %s may not have gone out",
			       m->sendmail, ret, e->name, e->device);
	}
}

/* Tell everyone: stdout, syslog, PROGRAM, mail. */
static void report(struct mon *m, struct mon_event *e)
{
	char name[4 * sizeof(e->array)], msg[4 * sizeof(e->message)];
	char when[40];
	struct tm tm;
	time_t now = time(NULL);

	e->prio = event_prio(e);
	event_text(e);
	if (!localtime_r(&now, &tm) ||
	    !strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S%z", &tm))
		snprintf(when, sizeof(when), "%lld", (long long)now);
	/* one line each, whatever the name and the message hold */
	escape_text(name, sizeof(name), e->array);
	escape_text(msg, sizeof(msg), e->message);
	if (m->c->fmt == OUT_JSON)
		event_json(m, e, when);
	else
		printf("%s %s on %s (%s): %s\n", when, e->name, e->device,
		       name, msg);
	fflush(stdout);
	if (m->syslog)
		syslog(e->prio, "%s on %s (%s): %s", e->name, e->device, name,
		       msg);
	if (m->program)
		run_program(m, e);
	if (m->nr_mail && (e->prio <= LOG_WARNING ||
			   !strcmp(e->name, "TestMessage")))
		send_mail(m, e);
}

/* --- what stria.conf says should run ------------------------------------- */

/* Is the ARRAY line @ca about array @s? By UUID when it gives one, else name. */
static int conf_is(const struct conf_array *ca, const struct array_snap *s)
{
	uint8_t u[16];

	if (ca->has_uuid)
		return !conf_parse_uuid(s->uuid, u) && !memcmp(u, ca->uuid, 16);
	return !strcmp(ca->name, s->name);
}

/* The ARRAY line about array @s, or NULL. */
static const struct conf_array *conf_of(const struct mon *m,
					const struct array_snap *s)
{
	size_t i;

	for (i = 0; m->conf && i < m->conf->nr_arrays; i++)
		if (conf_is(&m->conf->arrays[i], s))
			return &m->conf->arrays[i];
	return NULL;
}

static int nr_spares(const struct array_snap *s)
{
	unsigned int i;
	int n = 0;

	for (i = 0; i < s->nr_entries; i++)
		n += s->m[i].role == SNAP_ROLE_SPARE;
	return n;
}

/*
 * SparesMissing when the ARRAY line of @s asks for more spares (spares=)
 * than it has; @before: how many it had when last reported (-1: none
 * reported yet), so that a shortage is reported once, when it starts.
 * Returns 1 when reported.
 */
static int check_spares(struct mon *m, const struct array_snap *s,
			int before, const char *source)
{
	const struct conf_array *ca = conf_of(m, s);
	struct mon_event e;

	if (!ca || ca->spares < 0 || nr_spares(s) >= ca->spares ||
	    (before >= 0 && before < ca->spares))
		return 0;
	event_init(&e, "SparesMissing", source, s);
	e.spares = nr_spares(s);
	e.spares_expected = ca->spares;
	e.conf_path = m->conf->path;
	e.conf_line = ca->line;
	report(m, &e);
	return 1;
}

/* DeviceDisappeared for ARRAY line @ca: no running array is it. */
static void report_disappeared(struct mon *m, const struct conf_array *ca,
			       const char *source)
{
	const uint8_t *u = ca->uuid;
	struct mon_event e;

	event_reset(&e, "DeviceDisappeared", source);
	/* the name udev gives it (its rules: /dev/stria/NAME) */
	snprintf(e.device, sizeof(e.device), "/dev/stria/%s", ca->name);
	snprintf(e.array, sizeof(e.array), "%s", ca->name);
	if (ca->has_uuid)
		snprintf(e.uuid, sizeof(e.uuid),
			 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
			 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7],
			 u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
	e.conf_path = m->conf->path;
	e.conf_line = ca->line;
	e.no_module = !snap_module_loaded();
	report(m, &e);
}

/*
 * DeviceDisappeared for every ARRAY line that none of the @n running
 * arrays @s is (mdadm's name: a configured array is not there). Returns
 * how many were reported.
 */
static int check_configured(struct mon *m, const struct array_snap *const *s,
			    size_t n, const char *source)
{
	const struct conf_array *ca;
	int count = 0;
	size_t i, j;

	for (i = 0; m->conf && i < m->conf->nr_arrays; i++) {
		ca = &m->conf->arrays[i];
		for (j = 0; j < n && !conf_is(ca, s[j]); j++)
			;
		if (j < n)
			continue;
		report_disappeared(m, ca, source);
		count++;
	}
	return count;
}

/* --- comparing what was reported with what is ---------------------------- */

/* Is @state one a role's member has when it holds no current data? */
static int is_failed(const char *state)
{
	return !strcmp(state, "failed");
}

/* What is wrong with @s now: reported at start, and by --oneshot. */
static int report_problems(struct mon *m, struct mon_array *a,
			   const struct array_snap *s, const char *source)
{
	struct mon_event e;
	unsigned int i;
	int n = 0;

	for (i = 0; i < s->nr_entries; i++) {
		if (s->m[i].role < 0 || s->m[i].replacement ||
		    !is_failed(s->m[i].state))
			continue;
		event_init(&e, "MemberFailed", source, s);
		event_member(&e, s->m[i].role, s->m[i].dev, s->m[i].state);
		report(m, &e);
		n++;
	}
	if (strcmp(s->state, "active")) {
		event_init(&e, strcmp(s->state, "failed") ? "ArrayDegraded" :
			   "ArrayFailed", source, s);
		report(m, &e);
		n++;
	}
	if (s->readonly) {
		event_init(&e, "ArrayReadOnly", source, s);
		report(m, &e);
		n++;
	}
	/* owed: running, or waiting for read-write or for a rebuild */
	if (!strcmp(s->sync_action, "resync") || s->resync_owed) {
		event_init(&e, "ArrayDirty", source, s);
		/* as the kernel says it: it runs, or is about to */
		e.resync = !strcmp(s->sync_action, "resync") ||
			   (!s->readonly && !strcmp(s->state, "active"));
		report(m, &e);
		if (a)
			a->dirty = 1;
		n++;
	}
	if (!strcmp(s->sync_action, "idle") && s->mismatch_cnt) {
		event_init(&e, "MismatchesFound", source, s);
		e.mismatch_cnt = (int64_t)s->mismatch_cnt;
		report(m, &e);
		n++;
	}
	return n + check_spares(m, s, -1, source);
}

/* How the last sync of array @index ended: the control device knows. */
static void last_result(struct mon *m, unsigned int index, char *buf,
			size_t len)
{
	struct stria_ioc_query q;

	if (m->ctl < 0 || query_array(m->ctl, NULL, index, 0, &q, NULL, NULL, 0)) {
		snprintf(buf, len, "unknown");
		return;
	}
	snprintf(buf, len, "%s", !q.sync_result ? "ok" :
		 q.sync_result == -EINTR ? "stopped" :
		 q.sync_result == -EIO ? "io-error" :
		 q.sync_result == -ENODEV ? "too-few-members" : "error");
}

/* Report the members' changes from @old to @cur. */
static void diff_members(struct mon *m, const struct array_snap *old,
			 const struct array_snap *cur)
{
	const struct snap_member *o, *c;
	struct mon_event e;
	unsigned int i;
	int removed;

	for (i = 0; i < cur->nr_entries; i++) {
		c = &cur->m[i];
		if (c->replacement)
			continue;
		if (c->role == SNAP_ROLE_SPARE) {
			o = snap_dev(old, c->dev);
			if (o && o->role == SNAP_ROLE_SPARE)
				continue;
			event_init(&e, "SpareAdded", "scan", cur);
			event_member(&e, SNAP_ROLE_SPARE, c->dev, c->state);
			report(m, &e);
			continue;
		}
		o = snap_role(old, c->role);
		if (!o)
			continue;
		removed = strcmp(o->dev, "-") && !strcmp(c->dev, "-");
		if (is_failed(c->state) && !is_failed(o->state)) {
			event_init(&e, "MemberFailed", "scan", cur);
			event_member(&e, c->role, removed ? o->dev : c->dev,
				     c->state);
			report(m, &e);
		}
		if (removed) {
			event_init(&e, "MemberRemoved", "scan", cur);
			event_member(&e, c->role, o->dev, "removed");
			report(m, &e);
		} else if (strcmp(o->dev, c->dev) && strcmp(c->dev, "-")) {
			/* a spare took the role, or a replacement did */
			event_init(&e, "MemberAdded", "scan", cur);
			event_member(&e, c->role, c->dev, c->state);
			report(m, &e);
		} else if (!strcmp(o->state, "rebuilding") &&
			   !strcmp(c->state, "active")) {
			event_init(&e, "SpareActive", "scan", cur);
			event_member(&e, c->role, c->dev, c->state);
			report(m, &e);
		}
	}
	for (i = 0; i < old->nr_entries; i++) {
		o = &old->m[i];
		if (o->role != SNAP_ROLE_SPARE || snap_dev(cur, o->dev))
			continue;
		event_init(&e, "MemberRemoved", "scan", cur);
		event_member(&e, SNAP_ROLE_SPARE, o->dev, "removed");
		report(m, &e);
	}
}

/* How many increments of its whole a sync has done (0 without one). */
static uint64_t sync_steps(const struct mon *m, const struct array_snap *s)
{
	if (!strcmp(s->sync_action, "idle") || !s->sync_total ||
	    s->sync_done > s->sync_total)
		return 0;
	/* done * 100 / total, without overflowing */
	if (s->sync_done > UINT64_MAX / 100)
		return s->sync_done / (s->sync_total / 100) / m->increment;
	return s->sync_done * 100 / s->sync_total / m->increment;
}

/*
 * SyncProgress (mdadm's RebuildNN): the running sync of @cur has passed
 * another --increment percent since @old, the last look at the same sync
 * (NULL: it has just started).
 */
static void sync_progress(struct mon *m, const struct array_snap *old,
			  const struct array_snap *cur)
{
	uint64_t step = sync_steps(m, cur);
	struct mon_event e;

	if (!step || (old && step <= sync_steps(m, old)) ||
	    step * m->increment >= 100)
		return;
	event_init(&e, "SyncProgress", "scan", cur);
	snprintf(e.sync_action, sizeof(e.sync_action), "%s", cur->sync_action);
	e.sync_percent = (int)(step * m->increment);
	e.sync_done = cur->sync_done;
	e.sync_total = cur->sync_total;
	report(m, &e);
}

/* Report the sync's changes from @old to @cur. */
static void diff_sync(struct mon *m, struct mon_array *a,
		      const struct array_snap *old,
		      const struct array_snap *cur)
{
	int scrub = is_scrub(old->sync_action);
	struct mon_event e;
	char result[24];

	if (!strcmp(old->sync_action, cur->sync_action)) {
		sync_progress(m, old, cur);
		if (!strcmp(cur->sync_action, "idle") && cur->mismatch_cnt &&
		    cur->mismatch_cnt != old->mismatch_cnt) {
			/* a whole scrub ran between two looks */
			event_init(&e, "MismatchesFound", "scan", cur);
			e.mismatch_cnt = (int64_t)cur->mismatch_cnt;
			report(m, &e);
		}
		return;
	}
	if (strcmp(old->sync_action, "idle")) {
		last_result(m, cur->index, result, sizeof(result));
		event_init(&e, strcmp(result, "ok") && strcmp(result, "unknown") ?
			   "SyncInterrupted" : "SyncFinished", "scan", cur);
		snprintf(e.sync_action, sizeof(e.sync_action), "%s",
			 old->sync_action);
		snprintf(e.sync_result, sizeof(e.sync_result), "%s", result);
		if (scrub)
			e.mismatch_cnt = (int64_t)cur->mismatch_cnt;
		report(m, &e);
		if (scrub && cur->mismatch_cnt) {
			event_init(&e, "MismatchesFound", "scan", cur);
			snprintf(e.sync_action, sizeof(e.sync_action), "%s",
				 old->sync_action);
			e.mismatch_cnt = (int64_t)cur->mismatch_cnt;
			report(m, &e);
		}
		if (!strcmp(old->sync_action, "resync") && !strcmp(result, "ok") &&
		    a->dirty) {
			event_init(&e, "ArrayClean", "scan", cur);
			report(m, &e);
			a->dirty = 0;
		}
	}
	if (strcmp(cur->sync_action, "idle")) {
		if (!strcmp(cur->sync_action, "resync") && !a->dirty) {
			event_init(&e, "ArrayDirty", "scan", cur);
			e.resync = 1;
			report(m, &e);
			a->dirty = 1;
		}
		event_init(&e, "SyncStarted", "scan", cur);
		snprintf(e.sync_action, sizeof(e.sync_action), "%s",
			 cur->sync_action);
		report(m, &e);
		sync_progress(m, NULL, cur);
	}
}

/* Report what changed in array @a since the last report, from @cur. */
static void diff_array(struct mon *m, struct mon_array *a,
		       const struct array_snap *cur)
{
	const struct array_snap *old = &a->rep;
	uint64_t reported = old->mismatch_cnt;
	char action[sizeof(old->sync_action)];
	struct mon_event e;

	memcpy(action, old->sync_action, sizeof(action));
	diff_members(m, old, cur);
	check_spares(m, cur, nr_spares(old), "scan");
	if (strcmp(old->state, cur->state)) {
		event_init(&e, !strcmp(cur->state, "active") ? "ArrayOptimal" :
			   !strcmp(cur->state, "degraded") ? "ArrayDegraded" :
			   "ArrayFailed", "scan", cur);
		report(m, &e);
	}
	diff_sync(m, a, old, cur);
	set_reported(&a->rep, cur, action, reported);
	remember_drives(cur);
}

/*
 * A new array (@startup: found when monitor started): report it (not at
 * startup) and what is wrong with it.
 */
static void new_array(struct mon *m, const struct array_snap *s, int startup,
		      const char *source)
{
	struct mon_array *a = add_array(m, s);
	struct mon_event e;

	remember_drives(s);
	if (!startup) {
		event_init(&e, "NewArray", source, s);
		report(m, &e);
	}
	report_problems(m, a, s, "scan");
	if (!startup && strcmp(s->sync_action, "idle")) {
		event_init(&e, "SyncStarted", "scan", s);
		snprintf(e.sync_action, sizeof(e.sync_action), "%s",
			 s->sync_action);
		report(m, &e);
	}
}

/*
 * Array @a is not running any more: ArrayStopped and, when an ARRAY line
 * names it and no other running array is that line's, DeviceDisappeared
 * (once: it is reported when the array goes; when it comes back, it is a
 * NewArray).
 */
static void gone_array(struct mon *m, struct mon_array *a, const char *source)
{
	const struct conf_array *ca = conf_of(m, &a->rep);
	struct mon_event e;
	size_t i;

	event_init(&e, "ArrayStopped", source, &a->rep);
	e.array_state[0] = '\0';
	report(m, &e);
	drop_array(m, a);
	if (!ca)
		return;
	for (i = 0; i < m->nr; i++)
		if (conf_is(ca, &m->arrays[i]->rep))
			return;
	report_disappeared(m, ca, source);
}

/*
 * Read array @index again and report what changed; @source: a uevent
 * ("kernel": the array appeared or went) or a re-read ("scan").
 */
static void rescan_one(struct mon *m, unsigned int index, const char *source)
{
	struct mon_array *a = find_array(m, index);
	struct array_snap *s = malloc(sizeof(*s));
	int ret;

	if (!s)
		return;
	ret = snap_read(index, s);
	if (ret == -ENOENT) {
		if (a)
			gone_array(m, a, source);
	} else if (ret) {
		err_msg(m->c, "/sys/block/stria%u/stria: %s", index,
			strerror(-ret));
	} else if (!a) {
		new_array(m, s, 0, source);
	} else if (strcmp(a->rep.uuid, s->uuid)) {
		/* another array took the index meanwhile */
		gone_array(m, a, source);
		new_array(m, s, 0, source);
	} else {
		diff_array(m, a, s);
	}
	free(s);
}

/* Read every array; @startup: the first time. */
static void rescan_all(struct mon *m, int startup)
{
	unsigned int idx[1024];
	struct array_snap *s;
	int n, i;
	size_t k;

	n = snap_list(idx, 1024);
	if (n < 0) {
		err_msg(m->c, "%s/block: %s", snap_sysfs, strerror(-n));
		return;
	}
	if (n > 1024)
		n = 1024;
	/* arrays gone since the last look */
	for (k = 0; k < m->nr; ) {
		for (i = 0; i < n && idx[i] != m->arrays[k]->index; i++)
			;
		if (i == n)
			gone_array(m, m->arrays[k], "scan");
		else
			k++;
	}
	s = malloc(sizeof(*s));
	if (!s)
		return;
	for (i = 0; i < n; i++) {
		if (startup && !snap_read(idx[i], s))
			new_array(m, s, 1, "scan");
		else if (!startup)
			rescan_one(m, idx[i], "scan");
	}
	free(s);
}

/* --- kernel events ------------------------------------------------------- */

/* A uevent's properties. */
struct uev {
	const char *action;
	const char *subsystem;
	const char *devtype;
	const char *devname;
	const char *props[32];
	int nr;
};

static const char *uev_get(const struct uev *u, const char *key)
{
	size_t len = strlen(key);
	int i;

	for (i = 0; i < u->nr; i++)
		if (!strncmp(u->props[i], key, len) && u->props[i][len] == '=')
			return u->props[i] + len + 1;
	return NULL;
}

static int uev_parse(char *buf, size_t len, struct uev *u)
{
	char *p = buf, *end = buf + len;

	memset(u, 0, sizeof(*u));
	/* "ACTION@DEVPATH", then KEY=VALUE strings */
	p += strnlen(p, len) + 1;
	while (p < end && u->nr < 32) {
		u->props[u->nr++] = p;
		p += strnlen(p, (size_t)(end - p)) + 1;
	}
	u->action = uev_get(u, "ACTION");
	u->subsystem = uev_get(u, "SUBSYSTEM");
	u->devtype = uev_get(u, "DEVTYPE");
	u->devname = uev_get(u, "DEVNAME");
	return u->action && u->subsystem && u->devname ? 0 : -1;
}

/* The member of a kernel event, into @e. */
static void uev_member(const struct uev *u, struct mon_event *e)
{
	const char *role = uev_get(u, "STRIA_MEMBER_ROLE");
	const char *dev = uev_get(u, "STRIA_MEMBER_DEVICE");
	const char *mm = uev_get(u, "STRIA_MEMBER_DEV");
	const char *st = uev_get(u, "STRIA_MEMBER_STATE");

	if (!role)
		return;
	event_member(e, !strcmp(role, "spare") ? SNAP_ROLE_SPARE : atoi(role),
		     dev ? dev : "-", st ? st : "");
	if (mm)
		snprintf(e->member_dev, sizeof(e->member_dev), "%s", mm);
}

static void set_str(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

/* The kernel name of event @e's member ("-" for none). */
static const char *member_kname(const struct mon_event *e)
{
	return strncmp(e->member, "/dev/", 5) ? "-" : e->member + 5;
}

/* The entry of @s for role @role (not a replacement), or NULL. */
static struct snap_member *rep_role(struct array_snap *s, int role)
{
	unsigned int i;

	for (i = 0; i < s->nr_entries; i++)
		if (s->m[i].role == role && !s->m[i].replacement)
			return &s->m[i];
	return NULL;
}

static void rep_drop_spare(struct array_snap *s, const char *dev)
{
	unsigned int i;

	for (i = 0; i < s->nr_entries; i++) {
		if (s->m[i].role != SNAP_ROLE_SPARE || strcmp(s->m[i].dev, dev))
			continue;
		memmove(&s->m[i], &s->m[i + 1],
			(s->nr_entries - i - 1) * sizeof(s->m[0]));
		s->nr_entries--;
		return;
	}
}

/*
 * Make what was reported of @a say what kernel event @e says. Returns 0
 * when it said so already (a re-read reported it first): then @e is not
 * reported again.
 */
static int apply_event(struct mon_array *a, const struct mon_event *e)
{
	struct array_snap *s = &a->rep;
	const char *dev = member_kname(e);
	struct snap_member *r = e->role >= 0 ? rep_role(s, e->role) : NULL;
	const char *n = e->name;

	if (!strcmp(n, "ArrayDegraded") || !strcmp(n, "ArrayFailed") ||
	    !strcmp(n, "ArrayOptimal")) {
		if (!strcmp(s->state, e->array_state))
			return 0;
		set_str(s->state, sizeof(s->state), e->array_state);
	} else if (!strcmp(n, "MemberFailed") || !strcmp(n, "MemberAdded") ||
		   !strcmp(n, "SpareActive")) {
		if (!r)
			return 1;
		if (!strcmp(r->state, e->member_state) && !strcmp(r->dev, dev))
			return 0;
		set_str(r->state, sizeof(r->state), e->member_state);
		if (strcmp(dev, "-"))
			set_str(r->dev, sizeof(r->dev), dev);
		rep_drop_spare(s, dev);
	} else if (!strcmp(n, "SpareAdded")) {
		if (snap_dev(s, dev) || s->nr_entries >= SNAP_MAX_ENTRIES)
			return !snap_dev(s, dev);
		r = &s->m[s->nr_entries++];
		memset(r, 0, sizeof(*r));
		r->role = SNAP_ROLE_SPARE;
		set_str(r->dev, sizeof(r->dev), dev);
		set_str(r->state, sizeof(r->state), "spare");
	} else if (!strcmp(n, "MemberRemoved")) {
		if (e->role == SNAP_ROLE_SPARE) {
			if (!snap_dev(s, dev))
				return 0;
			rep_drop_spare(s, dev);
		} else if (r) {
			/* its device, unless another took the role since */
			if (strcmp(r->dev, dev))
				return strcmp(r->dev, "-");
			set_str(r->dev, sizeof(r->dev), "-");
		}
	} else if (!strcmp(n, "SyncStarted")) {
		if (!strcmp(s->sync_action, e->sync_action))
			return 0;
		set_str(s->sync_action, sizeof(s->sync_action), e->sync_action);
		/* its progress is reported from 0 */
		s->sync_done = 0;
		if (is_scrub(e->sync_action))
			s->mismatch_cnt = 0;
	} else if (!strcmp(n, "SyncFinished") || !strcmp(n, "SyncInterrupted")) {
		if (!strcmp(s->sync_action, "idle"))
			return 0;
		set_str(s->sync_action, sizeof(s->sync_action), "idle");
		s->sync_done = 0;
	} else if (!strcmp(n, "MismatchesFound")) {
		if (s->mismatch_cnt == (uint64_t)e->mismatch_cnt)
			return 0;
		s->mismatch_cnt = (uint64_t)e->mismatch_cnt;
	} else if (!strcmp(n, "ArrayDirty") || !strcmp(n, "ArrayClean")) {
		if (a->dirty == !strcmp(n, "ArrayDirty"))
			return 0;
		a->dirty = !a->dirty;
	}
	return 1;
}

/* A uevent about an array's disk. */
static void handle_uevent(struct mon *m, const struct uev *u)
{
	const char *name = uev_get(u, "STRIA_EVENT"), *v;
	unsigned int index = (unsigned int)atoi(u->devname + 5);
	struct mon_array *a = find_array(m, index);
	struct mon_event e;
	uint64_t seq;
	int gap, spares;

	if (!strcmp(u->action, "remove")) {
		if (a)
			gone_array(m, a, "kernel");
		return;
	}
	if (!strcmp(u->action, "add") || !a) {
		rescan_one(m, index, "kernel");
		a = find_array(m, index);
		if (!a)
			return;
	}
	if (!name || strcmp(u->action, "change"))
		return;
	v = uev_get(u, "STRIA_SEQ");
	seq = v ? strtoull(v, NULL, 10) : 0;
	gap = a->seq_known && seq != a->seq + 1 && seq > a->seq;
	a->seq_known = seq != 0;
	a->seq = seq;
	if (!strcmp(name, "Changed") || gap) {
		/* events were lost: read the array again */
		rescan_one(m, index, "scan");
		if (!strcmp(name, "Changed"))
			return;
		a = find_array(m, index);
		if (!a)
			return;
	}
	event_init(&e, name, "kernel", &a->rep);
	set_str(e.array_state, sizeof(e.array_state),
		uev_get(u, "STRIA_ARRAY_STATE"));
	uev_member(u, &e);
	set_str(e.sync_action, sizeof(e.sync_action),
		uev_get(u, "STRIA_SYNC_ACTION"));
	set_str(e.sync_result, sizeof(e.sync_result),
		uev_get(u, "STRIA_SYNC_RESULT"));
	v = uev_get(u, "STRIA_MISMATCH_CNT");
	if (v)
		e.mismatch_cnt = strtoll(v, NULL, 10);
	v = uev_get(u, "STRIA_STRIPE");
	if (v)
		e.stripe = strtoll(v, NULL, 10);
	v = uev_get(u, "STRIA_SECTOR");
	if (v)
		e.sector = strtoll(v, NULL, 10);
	set_str(e.chunk, sizeof(e.chunk), uev_get(u, "STRIA_CHUNK"));
	v = uev_get(u, "STRIA_RESYNC");
	if (v)
		e.resync = atoi(v);
	e.seq = seq;
	spares = nr_spares(&a->rep);
	if (apply_event(a, &e)) {
		report(m, &e);
		check_spares(m, &a->rep, spares, "kernel");
	}
}

/* The kernel's uevents, from netlink group 1; -1 when not available. */
static int uevent_open(struct mon *m)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	int fd, on = 1, size = 8 << 20;

	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    NETLINK_KOBJECT_UEVENT);
	if (fd < 0)
		goto fail;
	/* room for a burst (many members failing at once) */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on));
	if (!bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return fd;
	close(fd);
fail:
	err_msg(m->c, "cannot listen for the kernel's events (%s): reading the arrays every %u s only",
		strerror(errno), m->delay);
	return -1;
}

/*
 * Read every message waiting on @fd. Returns 1 when messages were lost
 * (the socket's buffer overflowed): the arrays must be read again.
 */
static int uevent_drain(struct mon *m, int fd)
{
	char buf[8192], ctrl[CMSG_SPACE(sizeof(struct ucred))];
	struct sockaddr_nl sa;
	struct iovec iov = { buf, sizeof(buf) - 1 };
	struct msghdr msg = {
		.msg_name = &sa, .msg_namelen = sizeof(sa),
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctrl, .msg_controllen = sizeof(ctrl),
	};
	struct cmsghdr *cm;
	struct ucred *cred;
	struct uev u;
	ssize_t n;
	int lost = 0;

	for (;;) {
		msg.msg_namelen = sizeof(sa);
		msg.msg_controllen = sizeof(ctrl);
		n = recvmsg(fd, &msg, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS) {
				lost = 1;
				continue;
			}
			return lost;
		}
		/* only the kernel's own messages: sent by pid 0 as root */
		cm = CMSG_FIRSTHDR(&msg);
		cred = cm && cm->cmsg_type == SCM_CREDENTIALS ?
		       (struct ucred *)CMSG_DATA(cm) : NULL;
		if (sa.nl_pid || (cred && cred->uid))
			continue;
		buf[n] = '\0';
		if (uev_parse(buf, (size_t)n, &u) ||
		    strcmp(u.subsystem, "block") ||
		    (u.devtype && strcmp(u.devtype, "disk")) ||
		    strncmp(u.devname, "stria", 5) ||
		    u.devname[5] < '0' || u.devname[5] > '9')
			continue;
		handle_uevent(m, &u);
		if (mon_stop)
			return lost;
	}
}

/* DeviceDisappeared for the configured arrays monitor does not follow. */
static void tracked_configured(struct mon *m)
{
	const struct array_snap **s = calloc(m->nr + 1, sizeof(*s));
	size_t i;

	if (!s)
		return;
	for (i = 0; i < m->nr; i++)
		s[i] = &m->arrays[i]->rep;
	check_configured(m, s, m->nr, "scan");
	free(s);
}

static int follow(struct mon *m)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct pollfd pfd;
	time_t next;
	int fd, ret, lost;

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* listen first: nothing is missed between the first look and then */
	fd = uevent_open(m);
	rescan_all(m, 1);
	tracked_configured(m);
	if (m->syslog)
		syslog(LOG_INFO, "monitoring %zu stria array%s%s", m->nr,
		       m->nr == 1 ? "" : "s",
		       fd < 0 ? " (no kernel events: re-reading them only)" : "");
	next = time(NULL) + m->delay;
	while (!mon_stop) {
		time_t now = time(NULL);

		pfd.fd = fd;
		pfd.events = POLLIN;
		ret = poll(&pfd, fd >= 0 ? 1 : 0,
			   now >= next ? 0 : (int)(next - now) * 1000);
		if (ret < 0 && errno != EINTR) {
			err_msg(m->c, "poll: %s", strerror(errno));
			break;
		}
		lost = fd >= 0 ? uevent_drain(m, fd) : 0;
		if (lost || time(NULL) >= next) {
			rescan_all(m, 0);
			next = time(NULL) + m->delay;
		}
	}
	if (fd >= 0)
		close(fd);
	if (m->syslog)
		syslog(LOG_INFO, "stopped");
	return EXIT_OK;
}

/* --oneshot: what is wrong now. */
static int oneshot(struct mon *m)
{
	unsigned int idx[1024];
	struct array_snap *s = NULL, *tmp;
	const struct array_snap **ptr;
	int n, i, problems = 0, ret = EXIT_OK;
	size_t nr = 0, k;

	n = snap_list(idx, 1024);
	if (n < 0) {
		err_msg(m->c, "%s/block: %s", snap_sysfs, strerror(-n));
		return EXIT_FAIL;
	}
	for (i = 0; i < n && i < 1024; i++) {
		tmp = realloc(s, (nr + 1) * sizeof(*s));
		if (!tmp) {
			free(s);
			return EXIT_FAIL;
		}
		s = tmp;
		if (!snap_read(idx[i], &s[nr]))
			problems += report_problems(m, NULL, &s[nr++], "scan");
	}
	/* the ARRAY lines of stria.conf that no running array is */
	ptr = calloc(nr + 1, sizeof(*ptr));
	if (ptr) {
		for (k = 0; k < nr; k++)
			ptr[k] = &s[k];
		problems += check_configured(m, ptr, nr, "scan");
		free(ptr);
	} else {
		ret = EXIT_FAIL;
	}
	free(s);
	return problems ? EXIT_FAIL : ret;
}

/* --test: a TestMessage for every array. */
static int test_events(struct mon *m)
{
	unsigned int idx[1024];
	struct array_snap *s = malloc(sizeof(*s));
	struct mon_event e;
	int n, i, sent = 0;

	if (!s)
		return EXIT_FAIL;
	n = snap_list(idx, 1024);
	for (i = 0; i < n && i < 1024; i++) {
		if (snap_read(idx[i], s))
			continue;
		event_init(&e, "TestMessage", "test", s);
		report(m, &e);
		sent++;
	}
	free(s);
	if (!sent) {
		err_msg(m->c, "no stria array is running: nothing to send a test event about");
		return EXIT_NOTFOUND;
	}
	if (m->nr_mail && m->mail_state < 0)
		err_msg(m->c, "the TestMessage mail%s not sent: sendmail %s cannot be run",
			sent == 1 ? " was" : "s were", m->sendmail);
	return m->delivery_failed ? EXIT_FAIL : EXIT_OK;
}

/* --- options and configuration ------------------------------------------- */

/*
 * Can @path (@what: PROGRAM) be run? @where: "FILE:LINE: " when
 * the configuration file named it, "" when the command line did.
 */
static int executable(struct ctx *c, const char *where, const char *what,
		      const char *path)
{
	if (path[0] != '/') {
		err_msg(c, "%s%s '%s' must be an absolute path", where, what,
			path);
		return 0;
	}
	if (access(path, X_OK)) {
		err_msg(c, "%s%s %s: %s", where, what, path, strerror(errno));
		return 0;
	}
	return 1;
}

/* @arg as a whole number from 1 to @max, in @out: 0, or -1 when it is not. */
static int in_range(const char *arg, long max, unsigned int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < 1 || v > max)
		return -1;
	*out = (unsigned int)v;
	return 0;
}

int cmd_monitor(struct ctx *c, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "mail", required_argument, NULL, 'm' },
		{ "program", required_argument, NULL, 'p' },
		{ "delay", required_argument, NULL, 'd' },
		{ "increment", required_argument, NULL, 'r' },
		{ "oneshot", no_argument, NULL, '1' },
		{ "test", no_argument, NULL, 't' },
		{ "no-syslog", no_argument, NULL, 'S' },
		{ "sendmail", required_argument, NULL, 's' },
		COMMON_LONGOPTS, { 0 }
	};
	const char *config = NULL, *program = NULL;
	struct mon m = { .c = c, .delay = 60, .increment = 20, .syslog = 1,
			 .ctl = -1,
			 .sendmail = "/usr/sbin/sendmail" };
	struct stria_conf conf;
	char **mail = NULL, err[512];
	size_t nr_mail = 0;
	int opt, ret, once = 0, test = 0;

	while ((opt = getopt_long(argc, argv, "c:m:p:d:r:1t" COMMON_SHORTOPTS,
				  longopts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			config = optarg;
			break;
		case 'm':
			if (!conf_mailaddr_valid(optarg)) {
				free(mail);
				return usage_error(c, "'%s' is not a mail address (user or user@host)",
						   optarg);
			}
			mail = realloc(mail, (nr_mail + 1) * sizeof(*mail));
			if (!mail)
				return EXIT_FAIL;
			mail[nr_mail++] = optarg;
			break;
		case 'p':
			program = optarg;
			break;
		case 'd':
			if (in_range(optarg, 86400, &m.delay)) {
				free(mail);
				return usage_error(c, "--delay takes 1 to 86400 seconds");
			}
			break;
		case 'r':
			if (in_range(optarg, 99, &m.increment)) {
				free(mail);
				return usage_error(c, "--increment takes 1 to 99 percent");
			}
			break;
		case '1':
			once = 1;
			break;
		case 't':
			test = 1;
			break;
		case 'S':
			m.syslog = 0;
			break;
		case 's':
			m.sendmail = optarg;
			break;
		default:
			ret = common_opt(c, opt);
			if (ret) {
				free(mail);
				return ret < 0 ? EXIT_OK : ret;
			}
		}
	}
	if (optind != argc) {
		free(mail);
		return usage_error(c, "unexpected argument '%s': monitor follows every array",
				   argv[optind]);
	}
	if (c->fmt != OUT_NORMAL && c->fmt != OUT_JSON) {
		free(mail);
		return usage_error(c, "monitor prints normal lines or json (-o json)");
	}

	ret = conf_parse_file(config ? config : STRIA_CONF_PATH, &conf, err,
			      sizeof(err));
	if (ret && (ret != -ENOENT || config)) {
		err_msg(c, "%s", err);
		free(mail);
		return EXIT_FAIL;
	}
	verbose_msg("configuration: %s", ret ? "none (no " STRIA_CONF_PATH ")" :
		    conf.path);
	m.conf = &conf;
	/* the command line wins over the file */
	m.program = program ? program : conf.program;
	if (nr_mail) {
		m.mail = mail;
		m.nr_mail = nr_mail;
	} else {
		m.mail = conf.mailaddr;
		m.nr_mail = conf.nr_mailaddr;
	}
	ret = EXIT_FAIL;
	if (!program && conf.program)
		snprintf(err, sizeof(err), "%s:%d: ", conf.path,
			 conf.program_line);
	else
		err[0] = '\0';
	if (m.program && !executable(c, err, "PROGRAM", m.program))
		goto out;
	if (!nr_mail && conf.nr_mailaddr)
		snprintf(m.mail_where, sizeof(m.mail_where), "%s:%d: MAILADDR: ",
			 conf.path, conf.mailaddr_line);
	/* one that cannot be run now is said below: monitor runs without */
	if (m.nr_mail && m.sendmail[0] != '/') {
		err_msg(c, "%ssendmail '%s' must be an absolute path",
			m.mail_where, m.sendmail);
		goto out;
	}
	if (gethostname(m.host, sizeof(m.host) - 1))
		snprintf(m.host, sizeof(m.host), "localhost");
	/* how a sync ended is only in the control device (root) */
	m.ctl = open("/dev/" STRIA_CONTROL_NAME, O_RDWR | O_CLOEXEC);
	if (m.syslog)
		openlog("stria-monitor", LOG_PID, LOG_DAEMON);
	if (m.nr_mail)
		mail_usable(&m);
	verbose_msg("PROGRAM: %s; MAILADDR: %zu addresses; syslog: %s",
		    m.program ? m.program : "none", m.nr_mail,
		    m.syslog ? "yes" : "no");
	ret = EXIT_OK;
	if (test)
		ret = test_events(&m);
	if (once && ret == EXIT_OK)
		ret = oneshot(&m);
	else if (!once && !test)
		ret = follow(&m);
	if (m.syslog)
		closelog();
	if (m.ctl >= 0)
		close(m.ctl);
	while (m.nr)
		drop_array(&m, m.arrays[0]);
	free(m.arrays);
out:
	conf_free(&conf);
	free(mail);
	return ret;
}
