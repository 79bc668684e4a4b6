// SPDX-License-Identifier: GPL-2.0
/*
 * stria-ioctl-fuzz: random requests to /dev/stria-control, to find what a
 * malformed request does to the module (run on the debug kernel: KASAN,
 * UBSAN and lockdep report what the module gets wrong).
 *
 *   stria-ioctl-fuzz [-t SECONDS] [-s SEED] [-w WORKERS] DEV...
 *   stria-ioctl-fuzz -A DEV...
 *
 * -A sends one STRIA_IOC_ASSEMBLE of the DEVs with no name, so the module
 * takes the name from the superblocks, with no striactl check before it;
 * prints the module's message; exits 0 when the array started, else 1.
 *
 * Each request is one of the control ioctls (or a random command number)
 * with a random size (the structure's, shorter, longer with a zero or a
 * non-zero tail, up to past the end of the caller's memory), random flags
 * and random fields, half of them then set to plausible values (names of
 * arrays the fuzzer creates, member lists of the DEVs given, chunk sizes,
 * levels), so that requests get past the first checks: arrays are really
 * created, assembled, scrubbed, given spares, grown and stopped. Pointers are
 * valid, NULL, unmapped or kernel addresses.
 *
 * What it checks itself: the module never writes past the size the caller
 * gave, a refusal's message is NUL-terminated, and a known command never
 * returns ENOTTY. The kernel's own reports are the test's to read. At the
 * end every array is stopped. Prints a count of requests and results.
 *
 * Exit: 0 no finding, 1 a finding, 2 usage or setup error.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/stria.h>

#define PAGE	4096
#define NREAL	9	/* the commands */
#define NCMD	(NREAL + 1)	/* and random numbers */

static uint64_t rng;
static char **devs;
static int ndevs;
static dev_t *devnums;
static unsigned char *mem;	/* 2 pages, then a PROT_NONE page */
static uint64_t *ptrs;		/* member path pointers */
static long counts[NCMD][3];	/* ok, refused, faulted */

/* this request is made plausible throughout, not only half of its fields */
static int sane;
static struct stria_ioc_member qmembers[80];
static uint32_t qcpus[256];

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint32_t pick(uint32_t n)
{
	return n ? (uint32_t)(rnd() % n) : 0;
}

/* An interesting 32-bit value. */
static uint32_t val32(void)
{
	static const uint32_t v[] = {
		0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 31, 32, 63, 64, 65, 72, 73,
		127, 128, 255, 256, 2048, 4096, 65535, 1U << 31, 0x7fffffff,
		0xfffffffe, 0xffffffff,
	};

	return pick(3) ? v[pick(sizeof(v) / sizeof(v[0]))] : (uint32_t)rnd();
}

static uint64_t val64(void)
{
	static const uint64_t v[] = {
		0, 1, 2, 7, 8, 1ULL << 32, 1ULL << 48, 1ULL << 63, ~0ULL,
		~0ULL - 2047,
	};

	return pick(2) ? v[pick(sizeof(v) / sizeof(v[0]))] : rnd();
}

/* A pointer for a user-space pointer field: mostly @good. */
static uint64_t ptr_val(void *good)
{
	if (sane)
		return (uintptr_t)good;
	switch (pick(8)) {
	case 0:
		return 0;
	case 1:
		return (uintptr_t)(mem + 2 * PAGE);	/* unmapped */
	case 2:
		return 0xffffffff81000000ULL;		/* kernel */
	case 3:
		return rnd();
	default:
		return (uintptr_t)good;
	}
}

/* An array name: ours, valid random, empty, or anything. */
static void name_val(char *name)
{
	static const char chars[] = "abcXYZ019._-";
	uint32_t i, n;

	memset(name, 0, STRIA_NAME_LEN);
	switch (sane ? 5 : pick(6)) {
	case 0:
		break;
	case 1:
		for (i = 0; i < STRIA_NAME_LEN; i++)
			name[i] = (char)rnd();
		break;
	case 2:
		n = 1 + pick(STRIA_NAME_LEN);
		for (i = 0; i < n && i < STRIA_NAME_LEN; i++)
			name[i] = chars[pick(sizeof(chars) - 1)];
		break;
	default:
		snprintf(name, STRIA_NAME_LEN, "fz%u", pick(3));
	}
}

/*
 * Fill the member path list: the DEVs, shuffled (sane: each once, at
 * least @min of them), else with repeats and some odd entries.
 */
static uint32_t members_val(uint32_t min)
{
	static const char *odd[] = { "/dev/null", "/nonexistent", "", "/dev/stria0" };
	uint32_t n = pick(4) ? 2 + pick(ndevs > 1 ? ndevs - 1 : 1) : val32();
	uint32_t i, j;
	uint64_t t;

	if (sane) {
		for (i = 0; i < (uint32_t)ndevs; i++)
			ptrs[i] = (uintptr_t)devs[i];
		for (i = ndevs - 1; i > 0; i--) {
			j = pick(i + 1);
			t = ptrs[i];
			ptrs[i] = ptrs[j];
			ptrs[j] = t;
		}
		min = min < (uint32_t)ndevs ? min : (uint32_t)ndevs;
		return min + pick(ndevs - min + 1);
	}
	for (i = 0; i < 80; i++) {
		if (!pick(12))
			ptrs[i] = pick(2) ? (uintptr_t)odd[pick(4)] :
				  (uintptr_t)(mem + 2 * PAGE);
		else
			ptrs[i] = (uintptr_t)devs[pick(ndevs)];
	}
	return n;
}

static void dev_val(uint32_t *major, uint32_t *minor)
{
	if (sane || pick(5)) {
		dev_t d = devnums[pick(ndevs)];

		*major = major(d);
		*minor = minor(d);
	} else {
		*major = val32();
		*minor = val32();
	}
}

/* set a field to a plausible value: always when sane, else half the time */
#define SET(t, f, v) do { if (sane || pick(2)) ((t *)req)->f = (v); } while (0)
/* take the plausible branch of a choice: always when sane */
#define PL(n) (sane || pick(n))

/* Plausible values for half of the fields of command @c's request. */
static void fixup(int c, void *req, uint32_t size)
{
	struct stria_ioc_array *a = req;

	switch (c) {
	case 0:
		SET(struct stria_ioc_info, flags, 0);
		SET(struct stria_ioc_info, max_spares, 0);
		SET(struct stria_ioc_info, reserved0, 0);
		if (sane)
			memset(((struct stria_ioc_info *)req)->reserved, 0,
			       sizeof(((struct stria_ioc_info *)req)->reserved));
		break;
	case 1:
	case 2:
		memset(a->msg, 0, sizeof(a->msg));
		memset(a->reserved, 0, sizeof(a->reserved));
		memset(a->uuid, 0, sizeof(a->uuid));
		SET(struct stria_ioc_array, index, 0);
		SET(struct stria_ioc_array, err_member, 0);
		SET(struct stria_ioc_array, level, c == 2 ? 0 : PL(3) ? (uint32_t)"\0\1\5\6\12"[pick(5)] : val32());
		SET(struct stria_ioc_array, flags, PL(2) ? (c == 2 ? pick(2) * STRIA_ARRAY_F_FORCE |
			pick(2) * STRIA_ARRAY_F_RUN | pick(2) * STRIA_ARRAY_F_READONLY :
			a->level ? pick(2) * STRIA_ARRAY_F_LAYOUT | pick(2) * STRIA_ARRAY_F_NO_BITMAP : 0) :
			pick(32));
		SET(struct stria_ioc_array, chunk_sectors, c == 2 ? 0 : PL(2) ? 8U << pick(9) : val32());
		SET(struct stria_ioc_array, layout, PL(2) ? (a->flags & STRIA_ARRAY_F_LAYOUT ? pick(4) : 0) :
		    val32());
		SET(struct stria_ioc_array, bitmap_chunk, PL(2) ? 0 : pick(2) ? 8U << pick(24) : val32());
		SET(struct stria_ioc_array, numa_node, PL(2) ? STRIA_NODE_AUTO : val32());
		SET(struct stria_ioc_array, nr_members, members_val(a->level == 6 ? 4 : 3));
		SET(struct stria_ioc_array, members, ptr_val(ptrs));
		if (c == 2 && sane && pick(2))
			memset(a->name, 0, sizeof(a->name));
		else if (PL(2))
			name_val(a->name);
		break;
	case 3:
		SET(struct stria_ioc_stop, flags, 0);
		SET(struct stria_ioc_stop, reserved0, 0);
		SET(struct stria_ioc_stop, index, pick(4));
		memset(((struct stria_ioc_stop *)req)->msg, 0, STRIA_MSG_LEN);
		memset(((struct stria_ioc_stop *)req)->reserved, 0, 32);
		name_val(((struct stria_ioc_stop *)req)->name);
		break;
	case 4:
		SET(struct stria_ioc_query, flags, PL(3) ? pick(2) : val32());
		SET(struct stria_ioc_query, index, PL(2) ? pick(4) : val32());
		SET(struct stria_ioc_query, members, ptr_val(qmembers));
		SET(struct stria_ioc_query, members_cap, PL(2) ? pick(73) : val32());
		SET(struct stria_ioc_query, cpu_map, ptr_val(qcpus));
		SET(struct stria_ioc_query, cpu_map_cap, PL(2) ? pick(256) : val32());
		SET(struct stria_ioc_query, array_flags, 0);
		SET(struct stria_ioc_query, reserved0, 0);
		name_val(((struct stria_ioc_query *)req)->name);
		break;
	case 5: {
		struct stria_ioc_member_op *m = req;

		SET(struct stria_ioc_member_op, op, PL(4) ? 1 + pick(4) : val32());
		SET(struct stria_ioc_member_op, flags, PL(2) ? (m->op == STRIA_MEMBER_OP_FAIL ? pick(2) :
							    m->op == STRIA_MEMBER_OP_ADD ?
							    pick(2) * STRIA_MEMBER_F_GROW : 0) :
		    val32());
		SET(struct stria_ioc_member_op, role, 0);
		SET(struct stria_ioc_member_op, result, 0);
		SET(struct stria_ioc_member_op, events, 0);
		SET(struct stria_ioc_member_op, index, pick(4));
		memset(m->msg, 0, sizeof(m->msg));
		memset(m->reserved, 0, sizeof(m->reserved));
		dev_val(&m->major, &m->minor);
		if (sane ? m->op == STRIA_MEMBER_OP_REPLACE && pick(2) : pick(2))
			dev_val(&m->with_major, &m->with_minor);
		else
			m->with_major = m->with_minor = 0;
		name_val(m->name);
		break;
	}
	case 6: {
		struct stria_ioc_sync *s = req;

		SET(struct stria_ioc_sync, flags, PL(2) ? pick(2) * STRIA_SYNC_F_RANGE : val32());
		SET(struct stria_ioc_sync, action, PL(4) ? (sane ? (uint32_t)"\0\2\3"[pick(3)] : pick(6)) : val32());
		SET(struct stria_ioc_sync, index, pick(4));
		SET(struct stria_ioc_sync, first_stripe, PL(2) ? (s->flags ? pick(64) : 0) : val64());
		SET(struct stria_ioc_sync, nr_stripes, PL(2) ? (s->flags ? 1 + pick(64) : 0) : val64());
		memset(s->msg, 0, sizeof(s->msg));
		memset(s->reserved, 0, sizeof(s->reserved));
		name_val(s->name);
		break;
	}
	case 7: {
		struct stria_ioc_mode *m = req;

		SET(struct stria_ioc_mode, flags, PL(2) ? pick(2) * STRIA_MODE_F_FORCE : val32());
		SET(struct stria_ioc_mode, mode, PL(4) ? STRIA_MODE_READWRITE : pick(3));
		SET(struct stria_ioc_mode, index, pick(4));
		SET(struct stria_ioc_mode, events, 0);
		memset(m->msg, 0, sizeof(m->msg));
		memset(m->reserved, 0, sizeof(m->reserved));
		name_val(m->name);
		break;
	}
	case 8: {
		struct stria_ioc_grow *g = req;

		SET(struct stria_ioc_grow, flags, PL(2) ? pick(2) * STRIA_GROW_F_CHECK : val32());
		SET(struct stria_ioc_grow, op, PL(4) ? 1 + pick(2) : pick(4));
		SET(struct stria_ioc_grow, index, pick(4));
		SET(struct stria_ioc_grow, nr_members, PL(4) ? (g->op == STRIA_GROW_MEMBERS ? pick(6) : 0) :
		    val32());
		SET(struct stria_ioc_grow, bitmap, PL(4) ? (g->op == STRIA_GROW_BITMAP ? pick(2) : 0) : val32());
		SET(struct stria_ioc_grow, bitmap_chunk, PL(4) ? (g->bitmap ? (pick(2) ? 0 : 8U << pick(18)) : 0) :
		    val32());
		SET(struct stria_ioc_grow, member_sectors, PL(4) ? (g->op == STRIA_GROW_SIZE ? pick(2) * pick(300000) : 0) :
		    val64());
		SET(struct stria_ioc_grow, reserved0, 0);
		SET(struct stria_ioc_grow, events, 0);
		memset(g->msg, 0, sizeof(g->msg));
		memset(g->reserved, 0, sizeof(g->reserved));
		name_val(g->name);
		break;
	}
	}
	*(uint32_t *)req = size;
}

static const unsigned long cmds[NREAL] = {
	STRIA_IOC_INFO, STRIA_IOC_CREATE, STRIA_IOC_ASSEMBLE, STRIA_IOC_STOP,
	STRIA_IOC_QUERY, STRIA_IOC_MEMBER, STRIA_IOC_SYNC, STRIA_IOC_MODE,
	STRIA_IOC_GROW,
};
static const uint32_t sizes[NREAL] = {
	sizeof(struct stria_ioc_info), sizeof(struct stria_ioc_array),
	sizeof(struct stria_ioc_array), sizeof(struct stria_ioc_stop),
	sizeof(struct stria_ioc_query), sizeof(struct stria_ioc_member_op),
	sizeof(struct stria_ioc_sync), sizeof(struct stria_ioc_mode),
	sizeof(struct stria_ioc_grow),
};
/* offset of msg in the requests that have one, else 0 */
static const uint32_t msg_off[NREAL] = {
	0, offsetof(struct stria_ioc_array, msg),
	offsetof(struct stria_ioc_array, msg),
	offsetof(struct stria_ioc_stop, msg), 0,
	offsetof(struct stria_ioc_member_op, msg),
	offsetof(struct stria_ioc_sync, msg),
	offsetof(struct stria_ioc_mode, msg),
	offsetof(struct stria_ioc_grow, msg),
};

static int one(int fd)
{
	int c = (int)pick(NCMD);
	uint32_t ksize = c < NREAL ? sizes[c] : 0, size, room, i;
	unsigned long cmd;
	unsigned char *req;
	int ret, err;

	if (c == NREAL) {
		cmd = _IOC(pick(4), pick(4) ? STRIA_IOC_MAGIC : pick(256),
			   pick(16), pick(1024));
		ksize = 512;
	} else {
		cmd = cmds[c];
	}
	switch (pick(10)) {
	case 0:
		size = pick(ksize + 1);
		break;
	case 1:
		size = ksize + 8 * (1 + pick(8));
		break;
	case 2:
		size = val32();
		break;
	default:
		size = ksize;
	}
	/* where it sits: usually in mapped memory, sometimes running off it */
	room = pick(8) ? 2 * PAGE : ksize / 2 + pick(ksize / 2 + 1);
	if (room > 2 * PAGE)
		room = 2 * PAGE;
	req = mem + 2 * PAGE - room;
	for (i = 0; i < room; i++)
		req[i] = pick(2) ? 0 : (unsigned char)rnd();
	if (size > ksize && size <= room && pick(2))
		memset(req + ksize, 0, size - ksize);	/* a zero tail */
	sane = c < NREAL && size == ksize && room >= ksize && !pick(3);
	if ((sane || pick(4)) && ksize >= 8 && room >= ksize)
		fixup(c, req, size);
	else
		*(uint32_t *)req = size;	/* room >= 4 always */
	/* a canary after what the caller owns */
	for (i = size < room ? size : room; i < room; i++)
		req[i] = 0xa5;
	ret = ioctl(fd, cmd, c == NREAL && pick(2) ? (void *)rnd() : req);
	err = errno;
	counts[c][ret ? err == EFAULT ? 2 : 1 : 0]++;
	for (i = size < room ? size : room; i < room; i++) {
		if (req[i] != 0xa5) {
			printf("FINDING: command %d wrote byte %u of a %u-byte request\n",
			       c, i, size);
			return 1;
		}
	}
	if (c < NREAL && ret && err == ENOTTY) {
		printf("FINDING: command %d returned ENOTTY\n", c);
		return 1;
	}
	if (c < NREAL && ret && msg_off[c] && size >= msg_off[c] + STRIA_MSG_LEN &&
	    room >= msg_off[c] + STRIA_MSG_LEN && err != EFAULT &&
	    req[msg_off[c]] && !memchr(req + msg_off[c], 0, STRIA_MSG_LEN)) {
		printf("FINDING: command %d: message not NUL-terminated\n", c);
		return 1;
	}
	return 0;
}

/* Stop every array (they may be open: then it stays, the test says so). */
static void stop_all(int fd)
{
	struct stria_ioc_query q;
	struct stria_ioc_stop s;
	uint32_t idx = 0;
	int round;

	for (round = 0; round < 4; round++) {
		for (idx = 0; ; idx = q.index + 1) {
			memset(&q, 0, sizeof(q));
			q.size = sizeof(q);
			q.index = idx;
			q.flags = STRIA_QUERY_F_NEXT;
			if (ioctl(fd, STRIA_IOC_QUERY, &q))
				break;
			memset(&s, 0, sizeof(s));
			s.size = sizeof(s);
			s.index = q.index;
			ioctl(fd, STRIA_IOC_STOP, &s);
		}
	}
}

static int worker(unsigned long long seed, int secs)
{
	time_t end = time(NULL) + secs;
	long n = 0;
	int fd, c, finding = 0;

	rng = seed * 0x9e3779b97f4a7c15ULL + 1;
	fd = open("/dev/" STRIA_CONTROL_NAME, O_RDWR);
	if (fd < 0) {
		perror("/dev/" STRIA_CONTROL_NAME);
		return 2;
	}
	while (!finding && time(NULL) < end) {
		finding = one(fd);
		n++;
	}
	stop_all(fd);
	close(fd);
	printf("worker seed %llu: %ld requests", seed, n);
	for (c = 0; c < NCMD; c++)
		printf(", cmd%d %ld/%ld/%ld", c, counts[c][0], counts[c][1],
		       counts[c][2]);
	printf(" (ok/refused/EFAULT)\n");
	return finding;
}

/* -A: a raw assemble of @n devices @paths, no name given. */
static int raw_assemble(int n, char **paths)
{
	struct stria_ioc_array req;
	int fd, i, ret;

	fd = open("/dev/" STRIA_CONTROL_NAME, O_RDWR);
	if (fd < 0) {
		perror("/dev/" STRIA_CONTROL_NAME);
		return 2;
	}
	for (i = 0; i < n; i++)
		ptrs[i] = (uintptr_t)paths[i];
	memset(&req, 0, sizeof(req));
	req.size = sizeof(req);
	req.nr_members = (uint32_t)n;
	req.numa_node = STRIA_NODE_AUTO;
	req.members = (uintptr_t)ptrs;
	ret = ioctl(fd, STRIA_IOC_ASSEMBLE, &req);
	req.msg[STRIA_MSG_LEN - 1] = '\0';
	if (ret)
		printf("refused (%s): %s\n", strerror(errno), req.msg);
	else
		printf("assembled stria%u\n", req.index);
	close(fd);
	return ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	int assemble = 0;
	unsigned long long seed = (unsigned long long)time(NULL);
	int opt, secs = 60, workers = 2, i, ret = 0, status;
	struct stat st;

	while ((opt = getopt(argc, argv, "At:s:w:")) != -1) {
		switch (opt) {
		case 'A':
			assemble = 1;
			break;
		case 't':
			secs = atoi(optarg);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'w':
			workers = atoi(optarg);
			break;
		default:
			return 2;
		}
	}
	ndevs = argc - optind;
	if (ndevs < 1 || workers < 1) {
		fprintf(stderr, "usage: stria-ioctl-fuzz [-t SECONDS] [-s SEED] [-w WORKERS] DEV...\n");
		return 2;
	}
	devs = argv + optind;
	devnums = calloc(ndevs, sizeof(*devnums));
	ptrs = calloc(80 + ndevs, sizeof(*ptrs));
	if (assemble)
		return ptrs ? raw_assemble(ndevs, devs) : 2;
	mem = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!devnums || !ptrs || mem == MAP_FAILED ||
	    mprotect(mem + 2 * PAGE, PAGE, PROT_NONE))
		return 2;
	for (i = 0; i < ndevs; i++) {
		if (stat(devs[i], &st) || !S_ISBLK(st.st_mode)) {
			fprintf(stderr, "%s: not a block device\n", devs[i]);
			return 2;
		}
		devnums[i] = st.st_rdev;
	}
	printf("stria-ioctl-fuzz: seed %llu, %d workers, %d s\n", seed,
	       workers, secs);
	fflush(stdout);
	for (i = 0; i < workers; i++) {
		if (fork() == 0)
			exit(worker(seed + (unsigned long long)i, secs));
	}
	for (i = 0; i < workers; i++) {
		if (wait(&status) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			ret = 1;
	}
	return ret;
}
