// SPDX-License-Identifier: GPL-2.0
/*
 * striactl monitor says which physical drive an event's member is
 * (tools/striactl/cmd_monitor.c, ident.c), from a made-up sysfs: a member
 * that fails while its drive is there is named from sysfs; one whose
 * drive was pulled (gone from sysfs, its role without a device) by what
 * monitor kept of it when it saw it, marked as last seen; the identity
 * goes into the JSON event, PROGRAM's environment and the mail. TAP
 * output on stdout.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "monitor_stubs.h"

static void sub(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	mkdir(path, 0755);
}

#define UUID "0b1c2d3e-4f50-6172-8394-a5b6c7d8e9fa"
#define CTRL(n) "devices/pci0000:00/0000:00:1c." #n "/0000:0" #n ":00.0/nvme/nvme" #n

/* nvme@n n1 at 0000:0@n:00.0, serial stria000@n, in slot @n + 1 */
static void drive(int n)
{
	char rel[256], target[700], text[64];
	const char *parts[] = { "devices", "devices/pci0000:00", NULL };
	int i;

	for (i = 0; parts[i]; i++)
		sub(parts[i]);
	snprintf(rel, sizeof(rel), "devices/pci0000:00/0000:00:1c.%d", n);
	sub(rel);
	snprintf(rel, sizeof(rel), "devices/pci0000:00/0000:00:1c.%d/0000:0%d:00.0", n, n);
	sub(rel);
	strcat(rel, "/nvme");
	sub(rel);
	snprintf(rel + strlen(rel), sizeof(rel) - strlen(rel), "/nvme%d", n);
	sub(rel);
	snprintf(text, sizeof(text), "stria000%d\n", n);
	snprintf(target, sizeof(target), "%s/serial", rel);
	put(target, text);
	snprintf(target, sizeof(target), "%s/model", rel);
	put(target, "QEMU NVMe Ctrl\n");
	snprintf(rel + strlen(rel), sizeof(rel) - strlen(rel), "/nvme%dn1", n);
	sub(rel);
	snprintf(target, sizeof(target), "%s/wwid", rel);
	snprintf(text, sizeof(text), "eui.525400000000000%d\n", n);
	put(target, text);
	snprintf(target, sizeof(target), "%s/%s/device", dir, rel);
	if (symlink("..", target))
		exit(1);
	snprintf(target, sizeof(target), "../../%s", rel);
	snprintf(rel, sizeof(rel), "%s/class/block/nvme%dn1", dir, n);
	if (symlink(target, rel))
		exit(1);
	snprintf(rel, sizeof(rel), "bus/pci/slots/%d", n + 1);
	sub(rel);
	strcat(rel, "/address");
	snprintf(text, sizeof(text), "0000:0%d:00\n", n);
	put(rel, text);
}

static void array_files(const char *state, const char *members)
{
	put("block/stria0/stria/name", "data\n");
	put("block/stria0/stria/uuid", UUID "\n");
	put("block/stria0/stria/level", "5\n");
	put("block/stria0/stria/state", state);
	put("block/stria0/stria/nr_members", "3\n");
	put("block/stria0/stria/sync_action", "idle\n");
	put("block/stria0/stria/sync_completed", "none\n");
	put("block/stria0/stria/sync_speed", "0\n");
	put("block/stria0/stria/mismatch_cnt", "0\n");
	put("block/stria0/stria/events", "9\n");
	put("block/stria0/stria/members", members);
}

int main(void)
{
	struct ctx ctx = { .prog = "striactl", .fmt = OUT_JSON };
	char *addr[] = { "root@example.com" };
	struct mon m = { .c = &ctx };
	char out[8192], text[4096], path[800], cache[200], cmd[900];

	if (monitor_test_start())
		return 1;
	snprintf(cache, sizeof(cache), "%s/run/stria/drives", dir);
	ident_cache_dir = cache;
	sub("block");
	sub("block/stria0");
	sub("block/stria0/stria");
	sub("class");
	sub("class/block");
	sub("bus");
	sub("bus/pci");
	sub("bus/pci/slots");
	drive(1);
	drive(2);
	drive(3);
	array_files("active\n", "0 nvme1n1 active 0 0\n1 nvme2n1 active 0 0\n2 nvme3n1 active 0 0\n");
	put("program", "#!/bin/sh\nprintf '%s|%s|%s|%s|%s|%s\\n' \"$*\" \"$STRIA_MEMBER_SERIAL\" \"$STRIA_MEMBER_WWID\" \"$STRIA_MEMBER_MODEL\" \"$STRIA_MEMBER_PCI_ADDRESS\" \"$STRIA_MEMBER_SLOT\" >>\"$STRIA_TEST_OUT/program.log\"\n");
	put("sendmail", "#!/bin/sh\nn=$(ls \"$STRIA_TEST_OUT\" | grep -c '^mail')\ncat >\"$STRIA_TEST_OUT/mail$n\"\n");
	snprintf(path, sizeof(path), "%s/program", dir);
	chmod(path, 0755);
	m.program = strdup(path);
	snprintf(path, sizeof(path), "%s/sendmail", dir);
	chmod(path, 0755);
	m.sendmail = strdup(path);
	m.mail = addr;
	m.nr_mail = 1;
	snprintf(m.host, sizeof(m.host), "stria-test");
	sub("out");
	snprintf(path, sizeof(path), "%s/out", dir);
	setenv("STRIA_TEST_OUT", path, 1);

	/* monitor starts: every member's drive is kept */
	capture();
	rescan_all(&m, 1);
	captured(out, sizeof(out));
	tap(m.nr == 1 && !out[0], "at start: one healthy array, no event ('%s')", out);
	snprintf(path, sizeof(path), "%s/" UUID "-1", cache);
	slurp(path, text, sizeof(text));
	tap(!strcmp(text, "DEV=nvme2n1\nSERIAL=stria0002\nMODEL=QEMU NVMe Ctrl\nWWID=eui.5254000000000002\nPCI=0000:02:00.0\nSLOT=3\n"),
	    "role 1's drive kept: %s", text);

	/* member 0 fails, its drive still there: from sysfs */
	array_files("degraded\n", "0 nvme1n1 failed 0 0\n1 nvme2n1 active 0 0\n2 nvme3n1 active 0 0\n");
	capture();
	rescan_one(&m, 0, "scan");
	captured(out, sizeof(out));
	tap(strstr(out, "\"event\":\"MemberFailed\"") &&
	    strstr(out, "\"member\":\"/dev/nvme1n1\",\"role\":0,\"member_state\":\"failed\",\"member_serial\":\"stria0001\",\"member_model\":\"QEMU NVMe Ctrl\",\"member_wwid\":\"eui.5254000000000001\",\"member_pci_address\":\"0000:01:00.0\",\"member_slot\":\"2\",\"message\"") &&
	    !strstr(out, "member_identity_from"),
	    "JSON MemberFailed: the drive there, its serial, model, WWID, PCI address, slot");
	if (!strstr(out, "member_serial"))
		printf("# %s", out);

	/* member 1's drive is pulled: gone from sysfs, its role empty */
	snprintf(path, sizeof(path), "%s/class/block/nvme2n1", dir);
	unlink(path);
	array_files("failed\n", "0 nvme1n1 failed 0 0\n1 - failed 0 0\n2 nvme3n1 active 0 0\n");
	capture();
	rescan_one(&m, 0, "scan");
	captured(out, sizeof(out));
	tap(strstr(out, "\"event\":\"MemberFailed\"") &&
	    strstr(out, "\"member\":\"/dev/nvme2n1\",\"role\":1,\"member_state\":\"failed\",\"member_serial\":\"stria0002\",\"member_model\":\"QEMU NVMe Ctrl\",\"member_wwid\":\"eui.5254000000000002\",\"member_pci_address\":\"0000:02:00.0\",\"member_slot\":\"3\",\"member_identity_from\":\"last-seen\""),
	    "JSON MemberFailed of a pulled drive: as last seen");
	tap(strstr(out, "\"event\":\"MemberRemoved\"") &&
	    strstr(out, "\"member\":\"/dev/nvme2n1\",\"role\":1,\"member_state\":\"removed\",\"member_serial\":\"stria0002\""),
	    "JSON MemberRemoved of the pulled drive: its serial too");
	if (!strstr(out, "last-seen"))
		printf("# %s", out);

	snprintf(path, sizeof(path), "%s/out/program.log", dir);
	slurp(path, text, sizeof(text));
	tap(strstr(text, "MemberFailed /dev/stria0 /dev/nvme1n1|stria0001|eui.5254000000000001|QEMU NVMe Ctrl|0000:01:00.0|2\n") &&
	    strstr(text, "MemberFailed /dev/stria0 /dev/nvme2n1|stria0002|eui.5254000000000002|QEMU NVMe Ctrl|0000:02:00.0|3\n"),
	    "PROGRAM: STRIA_MEMBER_SERIAL, _WWID, _MODEL, _PCI_ADDRESS, _SLOT");
	if (!strstr(text, "stria0002"))
		printf("# %s", text);
	snprintf(path, sizeof(path), "%s/out/mail0", dir);
	slurp(path, text, sizeof(text));
	tap(strstr(text, "\nThe drive: serial stria0001, model QEMU NVMe Ctrl, WWN/EUI eui.5254000000000001, PCI address 0000:01:00.0, slot 2\n") != NULL,
	    "mail for the drive there: which drive");
	snprintf(path, sizeof(path), "%s/out/mail2", dir);
	slurp(path, text, sizeof(text));
	tap(strstr(text, "MemberFailed") &&
	    strstr(text, "\nThe drive (gone; as last seen in that role): serial stria0002, model QEMU NVMe Ctrl, WWN/EUI eui.5254000000000002, PCI address 0000:02:00.0, slot 3\n") != NULL,
	    "mail for the pulled drive: which drive it was");
	if (!strstr(text, "The drive"))
		printf("# %s", text);

	/* a role's cache is another drive's: not claimed for this one */
	snprintf(path, sizeof(path), "%s/" UUID "-2", cache);
	put(path + strlen(dir) + 1, "DEV=nvme7n1\nSERIAL=other\n");
	{
		struct mon_event e;
		struct array_snap s;

		snap_read(0, &s);
		event_init(&e, "MemberFailed", "scan", &s);
		event_member(&e, 2, "nvme9n1", "failed");
		tap(!ident_known(&e.ident), "a gone device that is not the one kept for its role: nothing claimed");
		event_member(&e, 2, "nvme7n1", "failed");
		tap(!strcmp(e.ident.serial, "other") && e.ident_cached,
		    "the device kept for its role: its identity");
	}

	while (m.nr)
		drop_array(&m, m.arrays[0]);
	free(m.arrays);
	free((char *)m.program);
	free((char *)m.sendmail);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		return 1;
	return tap_exit_code();
}
