// SPDX-License-Identifier: GPL-2.0
/*
 * A drive's identity from sysfs, and the cache of the members' (ident.h).
 *
 * For block device K: @sysfs/class/block/K is the device (a partition's
 * parent directory is its disk). The disk's own attributes give the WWID
 * (NVMe namespaces and virtio disks have "wwid" or "serial" there); its
 * "device" link leads to the NVMe controller, the NVMe subsystem (native
 * multipath) or the SCSI device, which give the serial and the model. The
 * PCI address is the last path component of the disk's resolved sysfs
 * path that has the form DDDD:BB:DD.F; a multipath disk's is found
 * through its first path ("multipath/" links). The slot is the one of
 * @sysfs/bus/pci/slots whose "address" is that address less its function.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ident.h"

const char *ident_cache_dir = "/run/stria/drives";

#define FIELD(f, k, e, l, c) { k, e, l, c, offsetof(struct drive_ident, f), \
			       sizeof(((struct drive_ident *)0)->f) }
const struct ident_field ident_fields[] = {
	FIELD(serial, "serial", "SERIAL", "serial", "SERIAL"),
	FIELD(model, "model", "MODEL", "model", "MODEL"),
	FIELD(wwid, "wwid", "WWID", "WWN/EUI", "WWID"),
	FIELD(pci, "pci_address", "PCI_ADDRESS", "PCI address", "PCI"),
	FIELD(slot, "slot", "SLOT", "slot", "SLOT"),
};
#undef FIELD

const size_t nr_ident_fields = sizeof(ident_fields) / sizeof(ident_fields[0]);

/*
 * Keep printable ASCII, make anything else '?', and trim the blanks NVMe
 * pads its strings with. @s is changed in place.
 */
static void ident_clean(char *s)
{
	size_t i, n, start = 0;

	for (i = 0; s[i]; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f)
			s[i] = '?';
	n = i;
	while (n && s[n - 1] == ' ')
		n--;
	s[n] = '\0';
	while (s[start] == ' ')
		start++;
	memmove(s, s + start, n - start + 1);
}

/* The first line of @dir/@rel into @buf, cleaned; "" when there is none. */
static void ident_attr(const char *dir, const char *rel, char *buf, size_t len)
{
	char path[PATH_MAX];
	FILE *f;

	buf[0] = '\0';
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, rel) >= sizeof(path))
		return;
	f = fopen(path, "re");
	if (!f)
		return;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	ident_clean(buf);
}

/*
 * The serial number of SCSI VPD page 0x80 (@dir/device/vpd_pg80): a
 * 4-byte header whose last byte is the length, then the text.
 */
static void ident_vpd80(const char *dir, char *buf, size_t len)
{
	unsigned char page[260];
	char path[PATH_MAX];
	size_t n, want;
	FILE *f;

	buf[0] = '\0';
	if ((size_t)snprintf(path, sizeof(path), "%s/device/vpd_pg80", dir) >= sizeof(path))
		return;
	f = fopen(path, "re");
	if (!f)
		return;
	n = fread(page, 1, sizeof(page), f);
	fclose(f);
	if (n < 4 || page[1] != 0x80)
		return;
	want = page[3];
	if (want > n - 4)
		want = n - 4;
	if (want >= len)
		want = len - 1;
	memcpy(buf, page + 4, want);
	buf[want] = '\0';
	ident_clean(buf);
}

/* Is @s (up to a '/' or its end) a PCI address, DDDD:BB:DD.F? */
static int ident_is_pci(const char *s)
{
	static const char form[] = "xxxx:xx:xx.x";
	size_t i;

	for (i = 0; form[i]; i++) {
		if (form[i] == 'x' ? !isxdigit((unsigned char)s[i]) : s[i] != form[i])
			return 0;
	}
	return s[i] == '\0' || s[i] == '/';
}

/* The last PCI address in the path @path into @buf (16 bytes), or "". */
static void ident_pci_of_path(const char *path, char *buf)
{
	const char *p;

	buf[0] = '\0';
	for (p = path; *p; p++)
		if (*p == '/' && ident_is_pci(p + 1)) {
			memcpy(buf, p + 1, 12);
			buf[12] = '\0';
		}
}

/* The PCI address of a native-multipath disk @disk: its first path's. */
static void ident_pci_multipath(const char *disk, char *buf)
{
	char path[PATH_MAX], real[PATH_MAX];
	struct dirent *de;
	DIR *d;

	buf[0] = '\0';
	if ((size_t)snprintf(path, sizeof(path), "%s/multipath", disk) >= sizeof(path))
		return;
	d = opendir(path);
	if (!d)
		return;
	while (!buf[0] && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/multipath/%s", disk,
				     de->d_name) >= sizeof(path) ||
		    !realpath(path, real))
			continue;
		ident_pci_of_path(real, buf);
	}
	closedir(d);
}

/* The slot of @sysfs/bus/pci/slots whose address is @pci's, into @buf. */
static void ident_slot_of(const char *sysfs, const char *pci, char *buf, size_t len)
{
	char path[PATH_MAX], addr[64];
	struct dirent *de;
	DIR *d;

	buf[0] = '\0';
	if (!pci[0])
		return;
	snprintf(path, sizeof(path), "%s/bus/pci/slots", sysfs);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/bus/pci/slots/%s",
				     sysfs, de->d_name) >= sizeof(path))
			continue;
		ident_attr(path, "address", addr, sizeof(addr));
		/* "0000:01:00": the address less its function */
		if (strlen(addr) == 10 && !strncmp(addr, pci, 10)) {
			if ((size_t)snprintf(buf, len, "%s", de->d_name) >= len)
				buf[0] = '\0';
			ident_clean(buf);
			break;
		}
	}
	closedir(d);
}

int ident_read(const char *sysfs, const char *kname, struct drive_ident *id)
{
	char path[PATH_MAX], disk[PATH_MAX], *slash;
	struct stat st;

	memset(id, 0, sizeof(*id));
	if (!kname[0] || strchr(kname, '/') || !strcmp(kname, ".") ||
	    !strcmp(kname, ".."))
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/class/block/%s", sysfs, kname);
	if (!realpath(path, disk)) {
		snprintf(path, sizeof(path), "%s/block/%s", sysfs, kname);
		if (!realpath(path, disk))
			return -ENOENT;
	}
	/* a partition: the drive is its disk's */
	if ((size_t)snprintf(path, sizeof(path), "%s/partition", disk) <
	    sizeof(path) && !stat(path, &st)) {
		slash = strrchr(disk, '/');
		if (slash && slash != disk)
			*slash = '\0';
	}
	snprintf(id->dev, sizeof(id->dev), "%s", kname);
	ident_attr(disk, "device/serial", id->serial, sizeof(id->serial));
	if (!id->serial[0])
		ident_attr(disk, "serial", id->serial, sizeof(id->serial));
	if (!id->serial[0])
		ident_vpd80(disk, id->serial, sizeof(id->serial));
	ident_attr(disk, "wwid", id->wwid, sizeof(id->wwid));
	if (!id->wwid[0])
		ident_attr(disk, "device/wwid", id->wwid, sizeof(id->wwid));
	ident_attr(disk, "device/model", id->model, sizeof(id->model));
	ident_pci_of_path(disk, id->pci);
	if (!id->pci[0])
		ident_pci_multipath(disk, id->pci);
	ident_slot_of(sysfs, id->pci, id->slot, sizeof(id->slot));
	return 0;
}

int ident_known(const struct drive_ident *id)
{
	size_t i;

	for (i = 0; i < nr_ident_fields; i++)
		if (ident_get(id, &ident_fields[i])[0])
			return 1;
	return 0;
}

int ident_same_slot(const struct drive_ident *a, const struct drive_ident *b)
{
	if (a->slot[0] && b->slot[0])
		return !strcmp(a->slot, b->slot);
	if (a->pci[0] && b->pci[0])
		return !strcmp(a->pci, b->pci);
	return 0;
}

void ident_text(const struct drive_ident *id, char *buf, size_t len)
{
	const char *sep = "", *val;
	size_t i, n = 0;

	if (len)
		buf[0] = '\0';
	for (i = 0; i < nr_ident_fields && n < len; i++) {
		val = ident_get(id, &ident_fields[i]);
		if (!val[0])
			continue;
		n += (size_t)snprintf(buf + n, len - n, "%s%s %s", sep,
				      ident_fields[i].label, val);
		sep = ", ";
	}
}

/* --- the cache of the members' identities -------------------------------- */

/* A cache file: DEV=, then one line per field of ident_fields[]. */
static void ident_cache_put(FILE *f, const struct drive_ident *id)
{
	size_t k;

	fprintf(f, "DEV=%s\n", id->dev);
	for (k = 0; k < nr_ident_fields; k++)
		fprintf(f, "%s=%s\n", ident_fields[k].cache,
			ident_get(id, &ident_fields[k]));
}

/* @src into @dst of @len bytes, cut to fit. */
static void ident_set(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* One line of a cache file into @id; an unknown key is left out. */
static void ident_cache_get(const char *line, struct drive_ident *id)
{
	const char *key;
	size_t k, kl;

	if (!strncmp(line, "DEV=", 4)) {
		ident_set(id->dev, sizeof(id->dev), line + 4);
		return;
	}
	for (k = 0; k < nr_ident_fields; k++) {
		key = ident_fields[k].cache;
		kl = strlen(key);
		if (!strncmp(line, key, kl) && line[kl] == '=')
			ident_set((char *)id + ident_fields[k].off,
				  ident_fields[k].len, line + kl + 1);
	}
}

/* Do @a and @b say the same, the device name included? */
static int ident_equal(const struct drive_ident *a, const struct drive_ident *b)
{
	size_t k;

	if (strcmp(a->dev, b->dev))
		return 0;
	for (k = 0; k < nr_ident_fields; k++)
		if (strcmp(ident_get(a, &ident_fields[k]),
			   ident_get(b, &ident_fields[k])))
			return 0;
	return 1;
}

static int ident_cache_path(const char *uuid, int role, char *buf, size_t len)
{
	size_t i;

	/* a UUID's text: nothing that could leave the directory */
	for (i = 0; uuid[i]; i++)
		if (!isxdigit((unsigned char)uuid[i]) && uuid[i] != '-')
			return -EINVAL;
	if (!i || role < 0)
		return -EINVAL;
	if ((size_t)snprintf(buf, len, "%s/%s-%d", ident_cache_dir, uuid,
			     role) >= len)
		return -ENAMETOOLONG;
	return 0;
}

int ident_cache_load(const char *uuid, int role, struct drive_ident *id)
{
	char path[PATH_MAX], line[256];
	FILE *f;
	int ret;

	memset(id, 0, sizeof(*id));
	ret = ident_cache_path(uuid, role, path, sizeof(path));
	if (ret)
		return ret;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		ident_cache_get(line, id);
	}
	fclose(f);
	ident_clean(id->dev);
	return 0;
}

/* mkdir -p of ident_cache_dir */
static int ident_cache_mkdir(void)
{
	char path[PATH_MAX];
	char *p;

	snprintf(path, sizeof(path), "%s", ident_cache_dir);
	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

int ident_cache_store(const char *uuid, int role, const struct drive_ident *id)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	struct drive_ident old;
	FILE *f;
	int ret;

	ret = ident_cache_path(uuid, role, path, sizeof(path));
	if (ret)
		return ret;
	if (!ident_cache_load(uuid, role, &old) && ident_equal(&old, id))
		return 0;
	ret = ident_cache_mkdir();
	if (ret)
		return ret;
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	f = fopen(tmp, "we");
	if (!f)
		return -errno;
	ident_cache_put(f, id);
	if (fclose(f) || rename(tmp, path)) {
		ret = -errno;
		unlink(tmp);
		return ret;
	}
	return 0;
}

int ident_lookup(const char *sysfs, const char *kname, const char *uuid,
		 int role, struct drive_ident *id)
{
	struct drive_ident c;
	int none = !kname || !kname[0];

	/* a device that is there is what sysfs says, known or not */
	if (!none && !ident_read(sysfs, kname, id))
		return 0;
	memset(id, 0, sizeof(*id));
	if (role < 0 || !uuid || !uuid[0] || ident_cache_load(uuid, role, &c) ||
	    !ident_known(&c) || (!none && strcmp(c.dev, kname)))
		return 0;
	*id = c;
	return 1;
}
