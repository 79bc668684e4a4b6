// SPDX-License-Identifier: GPL-2.0
/*
 * Which physical drive a block device is (tools/striactl/ident.c), from a
 * made-up sysfs: an NVMe namespace behind a root port with a hot-plug
 * slot (serial, model, WWID, PCI address, slot), its partition (the
 * disk's identity), a drive sysfs says nothing of (empty fields, no
 * error), a native-multipath disk (the address through its path), a
 * virtual disk (no PCI address), a SCSI disk (serial from VPD page 0x80);
 * a device that is gone is -ENOENT; the cache of members' identities
 * round-trips, is not rewritten when nothing changed, and refuses names
 * that would leave its directory; ident_lookup() takes sysfs, the cache
 * or nothing as detail and monitor need. TAP output on stdout.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../tools/striactl/ident.c"
#include "tap.h"

static char dir[] = "/tmp/stria-ident-XXXXXX";

/* mkdir -p @dir/@rel */
static void mk(const char *rel)
{
	char path[1024], *p;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	for (p = path + strlen(dir) + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	mkdir(path, 0755);
}

static void put(const char *rel, const void *data, size_t len)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f)) {
		tap(0, "cannot write %s", path);
		exit(1);
	}
}

#define PUTS(rel, text) put(rel, text, strlen(text))

static void ln(const char *target, const char *rel)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	if (symlink(target, path)) {
		tap(0, "cannot link %s", path);
		exit(1);
	}
}

#define RP "devices/pci0000:00/0000:00:1c.0"
#define NV0 RP "/0000:01:00.0/nvme/nvme0"

static void make_sysfs(void)
{
	static const unsigned char vpd[] = { 0x00, 0x80, 0x00, 0x08,
		'Z', 'A', '1', '2', '3', '4', ' ', ' ' };

	/* nvme0n1: a namespace of controller nvme0 at 0000:01:00.0, slot 3 */
	mk(NV0 "/nvme0n1/nvme0n1p1");
	PUTS(NV0 "/serial", "stria0000           \n");
	PUTS(NV0 "/model", "QEMU NVMe Ctrl                          \n");
	PUTS(NV0 "/nvme0n1/wwid", "eui.5254000000000001\n");
	ln("../../nvme0", NV0 "/nvme0n1/device");
	PUTS(NV0 "/nvme0n1/nvme0n1p1/partition", "1\n");
	mk("class/block");
	ln("../../" NV0 "/nvme0n1", "class/block/nvme0n1");
	ln("../../" NV0 "/nvme0n1/nvme0n1p1", "class/block/nvme0n1p1");
	mk("bus/pci/slots/3");
	PUTS("bus/pci/slots/3/address", "0000:01:00\n");
	mk("bus/pci/slots/4");
	PUTS("bus/pci/slots/4/address", "0000:02:00\n");
	mk("bus/pci/slots/7");	/* an empty slot: no address */

	/* nvme1n1: sysfs says nothing of it but where it is */
	mk("devices/pci0000:00/0000:00:05.0/nvme/nvme1/nvme1n1");
	ln("../../devices/pci0000:00/0000:00:05.0/nvme/nvme1/nvme1n1",
	   "class/block/nvme1n1");

	/* nvme2n1: native multipath, its path nvme2c2n1 at 0000:02:00.0 */
	mk("devices/virtual/nvme-subsystem/nvme-subsys2/nvme2n1/multipath");
	PUTS("devices/virtual/nvme-subsystem/nvme-subsys2/serial", "SN2\n");
	PUTS("devices/virtual/nvme-subsystem/nvme-subsys2/model", "Model Two\n");
	ln("../../nvme-subsys2",
	   "devices/virtual/nvme-subsystem/nvme-subsys2/nvme2n1/device");
	mk(RP "/0000:02:00.0/nvme/nvme2/nvme2c2n1");
	ln("../../../../../../" RP "/0000:02:00.0/nvme/nvme2/nvme2c2n1",
	   "devices/virtual/nvme-subsystem/nvme-subsys2/nvme2n1/multipath/nvme2c2n1");
	ln("../../devices/virtual/nvme-subsystem/nvme-subsys2/nvme2n1",
	   "class/block/nvme2n1");

	/* loop0: virtual */
	mk("devices/virtual/block/loop0");
	ln("../../devices/virtual/block/loop0", "class/block/loop0");

	/* sda: SCSI, the serial in VPD page 0x80, a control byte in the model */
	mk("devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda");
	put("devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/vpd_pg80",
	    vpd, sizeof(vpd));
	PUTS("devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/model",
	     "Disk\x1b[2J  \n");
	PUTS("devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/wwid",
	     "naa.5000c500a1b2c3d4\n");
	ln("../../../0:0:0:0",
	   "devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda/device");
	ln("../../devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda",
	   "class/block/sda");
}

#define EQ(what, got, want) \
	tap(!strcmp(got, want), "%s: '%s'%s%s%s", what, got, \
	    strcmp(got, want) ? " (want '" : "", strcmp(got, want) ? want : "", \
	    strcmp(got, want) ? "')" : "")

static void test_read(void)
{
	struct drive_ident id;
	char buf[512];

	tap(ident_read(dir, "nvme0n1", &id) == 0, "nvme0n1 is there");
	EQ("nvme0n1 serial, padding trimmed", id.serial, "stria0000");
	EQ("nvme0n1 model", id.model, "QEMU NVMe Ctrl");
	EQ("nvme0n1 wwid", id.wwid, "eui.5254000000000001");
	EQ("nvme0n1 PCI address: the controller's, not the root port's", id.pci,
	   "0000:01:00.0");
	EQ("nvme0n1 slot", id.slot, "3");
	EQ("nvme0n1 dev", id.dev, "nvme0n1");
	tap(ident_known(&id), "nvme0n1: something is known");
	ident_text(&id, buf, sizeof(buf));
	EQ("nvme0n1 as text", buf,
	   "serial stria0000, model QEMU NVMe Ctrl, WWN/EUI eui.5254000000000001, PCI address 0000:01:00.0, slot 3");

	tap(ident_read(dir, "nvme0n1p1", &id) == 0, "the partition nvme0n1p1 is there");
	EQ("nvme0n1p1: its disk's serial", id.serial, "stria0000");
	EQ("nvme0n1p1: its disk's slot", id.slot, "3");
	EQ("nvme0n1p1 dev: the partition", id.dev, "nvme0n1p1");

	tap(ident_read(dir, "nvme1n1", &id) == 0, "nvme1n1 without attributes: no error");
	tap(!id.serial[0] && !id.model[0] && !id.wwid[0] && !id.slot[0],
	    "nvme1n1: serial, model, wwid and slot empty");
	EQ("nvme1n1 PCI address", id.pci, "0000:00:05.0");
	ident_text(&id, buf, sizeof(buf));
	EQ("nvme1n1 as text: the known parts only", buf, "PCI address 0000:00:05.0");

	tap(ident_read(dir, "nvme2n1", &id) == 0, "multipath nvme2n1 is there");
	EQ("nvme2n1 serial from the subsystem", id.serial, "SN2");
	EQ("nvme2n1 PCI address through its path", id.pci, "0000:02:00.0");
	EQ("nvme2n1 slot", id.slot, "4");

	tap(ident_read(dir, "loop0", &id) == 0 && !ident_known(&id),
	    "loop0: there, nothing known");

	tap(ident_read(dir, "sda", &id) == 0, "sda is there");
	EQ("sda serial from VPD page 0x80", id.serial, "ZA1234");
	EQ("sda model: the control byte made '?'", id.model, "Disk?[2J");
	EQ("sda wwid", id.wwid, "naa.5000c500a1b2c3d4");
	EQ("sda PCI address: the host adapter's", id.pci, "0000:00:1f.2");
	EQ("sda slot: none", id.slot, "");

	tap(ident_read(dir, "nvme9n1", &id) == -ENOENT && !id.dev[0],
	    "a device that is gone: -ENOENT, nothing filled");
	tap(ident_read(dir, "..", &id) == -ENOENT, "'..': -ENOENT");
	tap(ident_read(dir, "../block", &id) == -ENOENT, "a name with '/': -ENOENT");
	tap(ident_read(dir, "", &id) == -ENOENT, "an empty name: -ENOENT");
	tap(ident_read("/nonexistent-sysfs", "nvme0n1", &id) == -ENOENT,
	    "no sysfs: -ENOENT");
}

static void test_same_slot(void)
{
	struct drive_ident a, b;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	tap(!ident_same_slot(&a, &b), "nothing known: not the same slot");
	strcpy(a.pci, "0000:01:00.0");
	strcpy(b.pci, "0000:01:00.0");
	tap(ident_same_slot(&a, &b), "same PCI address, no slots: the same slot");
	strcpy(b.pci, "0000:02:00.0");
	tap(!ident_same_slot(&a, &b), "other PCI address: not");
	strcpy(a.slot, "3");
	strcpy(b.slot, "3");
	tap(ident_same_slot(&a, &b), "same slot name: the same, whatever the address");
	strcpy(b.slot, "4");
	strcpy(b.pci, a.pci);
	tap(!ident_same_slot(&a, &b), "other slot name: not, whatever the address");
	b.slot[0] = '\0';
	tap(ident_same_slot(&a, &b), "one slot unknown: by PCI address");
}

static void test_cache(void)
{
	static const char uuid[] = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";
	char cdir[256], path[512];
	struct drive_ident id, back;
	struct stat st1, st2;

	snprintf(cdir, sizeof(cdir), "%s/run/stria/drives", dir);
	ident_cache_dir = cdir;
	tap(ident_cache_load(uuid, 2, &back) == -ENOENT, "nothing cached yet: -ENOENT");
	ident_read(dir, "nvme0n1", &id);
	tap(ident_cache_store(uuid, 2, &id) == 0, "store role 2 (its directories made)");
	tap(ident_cache_load(uuid, 2, &back) == 0, "load role 2");
	EQ("cached dev", back.dev, "nvme0n1");
	EQ("cached serial", back.serial, "stria0000");
	EQ("cached model", back.model, "QEMU NVMe Ctrl");
	EQ("cached wwid", back.wwid, "eui.5254000000000001");
	EQ("cached PCI address", back.pci, "0000:01:00.0");
	EQ("cached slot", back.slot, "3");
	snprintf(path, sizeof(path), "%s/%s-2", cdir, uuid);
	stat(path, &st1);
	tap(ident_cache_store(uuid, 2, &id) == 0, "store the same again");
	stat(path, &st2);
	tap(st1.st_ino == st2.st_ino, "unchanged: the file is not rewritten");
	strcpy(id.slot, "9");
	ident_cache_store(uuid, 2, &id);
	ident_cache_load(uuid, 2, &back);
	EQ("changed: the new slot is kept", back.slot, "9");
	tap(ident_cache_load(uuid, 1, &back) == -ENOENT, "another role: nothing");
	tap(ident_cache_store("../../etc/x", 0, &id) == -EINVAL,
	    "a UUID that would leave the directory: -EINVAL");
	tap(ident_cache_store(uuid, -1, &id) == -EINVAL, "a spare (role -1): -EINVAL");
	tap(ident_cache_load("", 0, &back) == -EINVAL, "an empty UUID: -EINVAL");
}

/*
 * ident_lookup(), what detail and monitor both use: sysfs while the
 * device is there, else the role's cache when it was the same device or
 * the device is unknown, else nothing.
 */
static void test_lookup(void)
{
	static const char uuid[] = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";
	struct drive_ident id, gone;
	char cdir[256];

	snprintf(cdir, sizeof(cdir), "%s/run/lookup", dir);
	ident_cache_dir = cdir;
	memset(&gone, 0, sizeof(gone));
	strcpy(gone.dev, "nvme7n1");
	strcpy(gone.serial, "GONE7");
	strcpy(gone.slot, "5");
	ident_cache_store(uuid, 3, &gone);
	ident_read(dir, "nvme1n1", &id);
	strcpy(id.serial, "CACHED1");
	ident_cache_store(uuid, 1, &id);

	tap(ident_lookup(dir, "nvme0n1", uuid, 0, &id) == 0,
	    "a device that is there: from sysfs");
	EQ("  its serial", id.serial, "stria0000");
	tap(ident_lookup(dir, "nvme0n1", uuid, 3, &id) == 0 &&
	    !strcmp(id.serial, "stria0000"),
	    "a device that is there and tells something: sysfs, whatever the role's cache says");
	tap(ident_lookup(dir, "nvme7n1", uuid, 3, &id) == 1,
	    "a device that is gone, the role's cache of that device: from the cache");
	EQ("  its serial", id.serial, "GONE7");
	EQ("  its slot", id.slot, "5");
	EQ("  its device", id.dev, "nvme7n1");
	tap(ident_lookup(dir, NULL, uuid, 3, &id) == 1 && !strcmp(id.serial, "GONE7"),
	    "no device name any more: from the role's cache");
	tap(ident_lookup(dir, "", uuid, 3, &id) == 1,
	    "an empty device name: as none");
	tap(ident_lookup(dir, "nvme8n1", uuid, 3, &id) == 0 && !id.dev[0] &&
	    !ident_known(&id),
	    "a device that is gone, the role's cache of another device: nothing");
	tap(ident_lookup(dir, "nvme7n1", uuid, -1, &id) == 0 && !ident_known(&id),
	    "a spare that is gone: nothing (spares are not kept)");
	tap(ident_lookup(dir, "nvme7n1", uuid, 2, &id) == 0 && !ident_known(&id),
	    "a role with nothing cached: nothing");
	tap(ident_lookup(dir, "nvme7n1", "", 3, &id) == 0 && !ident_known(&id),
	    "no UUID: nothing");
	tap(ident_lookup(dir, "loop0", uuid, 2, &id) == 0 && !ident_known(&id),
	    "a device that is there and tells nothing, nothing cached: not known");
	EQ("  its device name is still given", id.dev, "loop0");
	tap(ident_lookup(dir, "nvme1n1", uuid, 1, &id) == 0 &&
	    !strcmp(id.pci, "0000:00:05.0") && !id.serial[0],
	    "a device that tells only its PCI address: sysfs, not the cache");
	strcpy(gone.dev, "loop0");
	ident_cache_store(uuid, 4, &gone);
	tap(ident_lookup(dir, "loop0", uuid, 4, &id) == 0 &&
	    !ident_known(&id) && !strcmp(id.dev, "loop0"),
	    "a device that is there but tells nothing, the role's cache of its name: sysfs (names are reused)");
}

int main(void)
{
	char cmd[64];

	if (!mkdtemp(dir)) {
		tap(0, "mkdtemp");
		return tap_exit_code();
	}
	make_sysfs();
	test_read();
	test_same_slot();
	test_cache();
	test_lookup();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		tap(0, "cannot remove %s", dir);
	return tap_exit_code();
}
