// SPDX-License-Identifier: GPL-2.0
/*
 * The block devices no array is assembled from automatically
 * (device_excluded() in tools/striactl/ondisk.c, which --scan and
 * --incremental both ask): what a desktop user can attach (loop devices
 * through udisks, network block devices) and what cannot hold an array,
 * by kernel name or /dev path; drives, partitions and device-mapper
 * devices stay candidates. TAP output on stdout.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "../../tools/striactl/ondisk.c"
#include "tap.h"

int main(void)
{
	static const struct {
		const char *name, *what;
	} cases[] = {
		{ "loop0", "a loop device" },
		{ "/dev/loop7", "a loop device" },
		{ "nbd3", "a network block device" },
		{ "zram0", "a compressed RAM disk" },
		{ "ram1", "a RAM disk" },
		{ "sr0", "a CD drive" },
		{ "fd0", "a floppy drive" },
		{ "stria2", "a stria array" },
		{ "nvme0n1", NULL },
		{ "/dev/nvme0n1p2", NULL },
		{ "sda", NULL },
		{ "vdb1", NULL },
		{ "dm-3", NULL },
		{ "md127", NULL },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *got = device_excluded(cases[i].name);

		tap(cases[i].what ? got && !strcmp(got, cases[i].what) : !got,
		    "%s: %s", cases[i].name, got ? got : "a candidate");
	}
	return tap_exit_code();
}
