// SPDX-License-Identifier: GPL-2.0
/*
 * stria-aio-hop: write a file to a block device sequentially, each write
 * submitted from the other CPU, none waited for until all are out.
 *
 *   stria-aio-hop [--cpus A,B] DEV SRC OFFSET BS
 *
 * Writes SRC (a multiple of BS bytes) to DEV at byte OFFSET in BS-byte
 * O_DIRECT writes through one Linux AIO context. Two threads, pinned to CPUs
 * A and B (0 and 1 by default), take turns: write i is submitted by the
 * thread on CPU A when i is even, B when odd. Neither sleeps while the other
 * submits (they spin on the turn), so the kernel sees a sequential stream
 * whose writer moves between CPUs at every write and never waits for it,
 * as a task migrating under load does. Once every write is submitted, the
 * completions are reaped. Exits 0 when every write completed in full, 1
 * with a message otherwise, 2 on bad usage.
 *
 * No libaio: the io_* system calls are made directly.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static aio_context_t ctx;
static int dev_fd;
static char *buf;
static unsigned long long offset, bs;
static unsigned int nr_writes;
static struct iocb *iocbs;
static atomic_uint turn;	/* the next write to submit */
static atomic_int failed;
static int cpus[2] = { 0, 1 };

/*
 * In a spin loop: under QEMU's single-threaded TCG, PAUSE hands the host
 * thread to the other vCPU, which holds the turn; without it the spinning
 * vCPU keeps it for a whole time slice.
 */
static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#else
	sched_yield();
#endif
}

static void die(const char *what)
{
	fprintf(stderr, "stria-aio-hop: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void *submitter(void *arg)
{
	int me = (int)(long)arg;
	cpu_set_t set;
	unsigned int i;

	CPU_ZERO(&set);
	CPU_SET(cpus[me], &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "stria-aio-hop: pin to CPU %d: %s\n", cpus[me],
			strerror(errno));
		atomic_store(&failed, 1);
		return NULL;
	}
	for (i = me; i < nr_writes; i += 2) {
		struct iocb *cb = &iocbs[i];
		long ret;

		while (atomic_load(&turn) != i) {
			if (atomic_load(&failed))
				return NULL;
			cpu_relax();
		}
		if (sched_getcpu() != cpus[me]) {
			fprintf(stderr, "stria-aio-hop: write %u: on CPU %d, not %d\n",
				i, sched_getcpu(), cpus[me]);
			atomic_store(&failed, 1);
			return NULL;
		}
		memset(cb, 0, sizeof(*cb));
		cb->aio_fildes = dev_fd;
		cb->aio_lio_opcode = IOCB_CMD_PWRITE;
		cb->aio_buf = (unsigned long)(buf + (unsigned long long)i * bs);
		cb->aio_nbytes = bs;
		cb->aio_offset = offset + (unsigned long long)i * bs;
		cb->aio_data = i;
		ret = syscall(SYS_io_submit, ctx, 1L, &cb);
		if (ret != 1) {
			fprintf(stderr, "stria-aio-hop: submit write %u: %s\n", i,
				ret < 0 ? strerror(errno) : "not taken");
			atomic_store(&failed, 1);
			return NULL;
		}
		atomic_store(&turn, i + 1);
	}
	return NULL;
}

static int parse_cpus(const char *s)
{
	return sscanf(s, "%d,%d", &cpus[0], &cpus[1]) == 2 && cpus[0] >= 0 &&
	       cpus[1] >= 0 && cpus[0] != cpus[1];
}

int main(int argc, char **argv)
{
	struct io_event *ev;
	unsigned int done = 0, i;
	pthread_t th[2];
	struct stat st;
	int src, argi = 1;
	char *end;

	if (argc == 7 && !strcmp(argv[1], "--cpus")) {
		if (!parse_cpus(argv[2])) {
			fprintf(stderr, "stria-aio-hop: --cpus wants two different CPUs, as 0,1\n");
			return 2;
		}
		argi = 3;
	}
	if (argc - argi != 4) {
		fprintf(stderr, "usage: stria-aio-hop [--cpus A,B] DEV SRC OFFSET BS\n");
		return 2;
	}
	offset = strtoull(argv[argi + 2], &end, 0);
	if (*end || offset % 512) {
		fprintf(stderr, "stria-aio-hop: OFFSET must be bytes, a multiple of 512\n");
		return 2;
	}
	bs = strtoull(argv[argi + 3], &end, 0);
	if (*end || !bs || bs % 4096) {
		fprintf(stderr, "stria-aio-hop: BS must be bytes, a multiple of 4096\n");
		return 2;
	}
	src = open(argv[argi + 1], O_RDONLY);
	if (src < 0 || fstat(src, &st))
		die(argv[argi + 1]);
	if (!st.st_size || st.st_size % bs || st.st_size / bs > 65536) {
		fprintf(stderr, "stria-aio-hop: SRC must hold 1 to 65536 writes of BS bytes\n");
		return 2;
	}
	nr_writes = st.st_size / bs;
	if (posix_memalign((void **)&buf, 4096, st.st_size))
		die("buffer");
	if (read(src, buf, st.st_size) != st.st_size)
		die("read SRC");
	close(src);
	dev_fd = open(argv[argi], O_WRONLY | O_DIRECT);
	if (dev_fd < 0)
		die(argv[argi]);
	iocbs = calloc(nr_writes, sizeof(*iocbs));
	ev = calloc(nr_writes, sizeof(*ev));
	if (!iocbs || !ev)
		die("memory");
	if (syscall(SYS_io_setup, nr_writes, &ctx))
		die("io_setup");
	for (i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, submitter, (void *)(long)i)) {
			fprintf(stderr, "stria-aio-hop: thread: cannot start\n");
			return 1;
		}
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	/* reap what went out, even after a failure, before the buffer goes */
	while (done < atomic_load(&turn)) {
		long n = syscall(SYS_io_getevents, ctx, 1L,
				 (long)(atomic_load(&turn) - done), ev, NULL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			die("io_getevents");
		}
		for (i = 0; i < n; i++)
			if (ev[i].res != (long long)bs) {
				fprintf(stderr, "stria-aio-hop: write %llu: %s\n",
					(unsigned long long)ev[i].data,
					ev[i].res < 0 ? strerror(-ev[i].res) :
							"short write");
				atomic_store(&failed, 1);
			}
		done += n;
	}
	syscall(SYS_io_destroy, ctx);
	return atomic_load(&failed) ? 1 : 0;
}
