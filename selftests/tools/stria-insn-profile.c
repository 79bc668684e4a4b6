// SPDX-License-Identifier: GPL-2.0
/*
 * stria-insn-profile: a QEMU TCG plugin that counts the guest instructions
 * executed per translation block, for a flat instruction profile of the
 * guest kernel. Counts, not time: the same workload gives the same counts
 * whatever else the host is doing, which the timings of this 2-core TCG
 * machine never do (Documentation/stria/performance.rst).
 *
 *   qemu-system-x86_64 ... -plugin stria-insn-profile.so,ctl=DIR
 *
 * Every block's counter is bumped inline (no callback). A thread of the
 * plugin watches DIR: for each file req-NAME that appears it writes
 * snap-NAME ("vaddr instructions-per-block executions" per block executed
 * at least once) and removes the request. The difference of two snapshots
 * is what the guest ran between them (selftests/lib/striatest/profile.py).
 */
#include <dirent.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qemu/qemu-plugin.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define TABLE_BITS	21
#define TABLE_SIZE	(1UL << TABLE_BITS)

struct block {
	uint64_t vaddr;
	uint64_t insns;
	uint64_t count;		/* bumped by translated code */
};

/*
 * User space is counted, not profiled: its blocks share one counter per
 * block length (vaddr 0 in snapshots), so short-lived processes, each at
 * addresses of its own, cannot fill the table and leave later kernel code
 * (a module loaded late) uncounted.
 */
#define USER_LENGTHS	513	/* TCG blocks hold at most 512 instructions */

static struct block *table;
static struct block user[USER_LENGTHS];
static unsigned long used;
static uint64_t overflow;	/* blocks that found no room (not counted) */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char ctl[4096];

static struct block *lookup(uint64_t vaddr, uint64_t insns)
{
	uint64_t h = (vaddr ^ (insns << 48)) * 0x9E3779B97F4A7C15ULL;
	unsigned long i = h >> (64 - TABLE_BITS), k;

	for (k = 0; k < TABLE_SIZE / 2; k++, i = (i + 1) & (TABLE_SIZE - 1)) {
		struct block *b = &table[i];

		if (b->insns == insns && b->vaddr == vaddr)
			return b;
		if (!b->insns) {
			if (used >= TABLE_SIZE / 2)
				return NULL;
			b->vaddr = vaddr;
			b->insns = insns;
			used++;
			return b;
		}
	}
	return NULL;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	struct block *b;

	uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
	uint64_t insns = qemu_plugin_tb_n_insns(tb);

	(void)id;
	pthread_mutex_lock(&lock);
	if (!(vaddr >> 63)) {
		b = &user[insns < USER_LENGTHS ? insns : USER_LENGTHS - 1];
		b->insns = insns < USER_LENGTHS ? insns : USER_LENGTHS - 1;
	} else {
		b = lookup(vaddr, insns);
		if (!b)
			overflow++;
	}
	pthread_mutex_unlock(&lock);
	if (b)
		qemu_plugin_register_vcpu_tb_exec_inline(tb,
				QEMU_PLUGIN_INLINE_ADD_U64, &b->count, 1);
}

static void snapshot(const char *name)
{
	char tmp[8300], path[8300];
	unsigned long i;
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s/.snap-%s", ctl, name);
	snprintf(path, sizeof(path), "%s/snap-%s", ctl, name);
	f = fopen(tmp, "w");
	if (!f)
		return;
	pthread_mutex_lock(&lock);
	fprintf(f, "# blocks %lu overflow %" PRIu64 "\n", used, overflow);
	for (i = 0; i < USER_LENGTHS; i++) {
		uint64_t c = __atomic_load_n(&user[i].count, __ATOMIC_RELAXED);

		if (user[i].insns && c)
			fprintf(f, "0 %" PRIu64 " %" PRIu64 "\n",
				user[i].insns, c);
	}
	for (i = 0; i < TABLE_SIZE; i++) {
		uint64_t c = __atomic_load_n(&table[i].count, __ATOMIC_RELAXED);

		if (table[i].insns && c)
			fprintf(f, "%" PRIx64 " %" PRIu64 " %" PRIu64 "\n",
				table[i].vaddr, table[i].insns, c);
	}
	pthread_mutex_unlock(&lock);
	if (fclose(f) == 0)
		rename(tmp, path);
}

static void *watch(void *arg)
{
	(void)arg;
	for (;;) {
		struct dirent *de;
		DIR *d = opendir(ctl);

		if (d) {
			while ((de = readdir(d))) {
				char req[8300];

				if (strncmp(de->d_name, "req-", 4))
					continue;
				snprintf(req, sizeof(req), "%s/%s", ctl,
					 de->d_name);
				snapshot(de->d_name + 4);
				unlink(req);
			}
			closedir(d);
		}
		usleep(20000);
	}
	return NULL;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	pthread_t t;
	int i;

	(void)info;
	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "ctl=", 4))
			snprintf(ctl, sizeof(ctl), "%s", argv[i] + 4);
	if (!ctl[0]) {
		fprintf(stderr, "stria-insn-profile: needs ctl=DIR\n");
		return -1;
	}
	table = calloc(TABLE_SIZE, sizeof(*table));
	if (!table)
		return -1;
	if (pthread_create(&t, NULL, watch, NULL))
		return -1;
	pthread_detach(t);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	return 0;
}
