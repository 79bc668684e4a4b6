// SPDX-License-Identifier: GPL-2.0
/*
 * striactl: what is on a device before create overwrites it.
 *
 * stria's own superblock is checked first, with the module's code
 * (ondisk.c); everything else is libblkid's: every file system, RAID
 * member (md 0.90 and 1.0 at the end of the device, 1.1 and 1.2 at the
 * start), volume manager, cache device, encrypted volume and partition
 * table it knows, as wipefs(8) lists them. libblkid links statically, so
 * a static striactl for an initramfs knows them too.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <blkid.h>

#include "striactl.h"
#include "ondisk.h"
#include "output.h"

/* What a libblkid USAGE means, in words. */
static const char *usage_words(const char *usage)
{
	if (!usage)
		return "signature";
	if (!strcmp(usage, "filesystem"))
		return "file system";
	if (!strcmp(usage, "raid"))
		return "RAID member";
	if (!strcmp(usage, "crypto"))
		return "encrypted volume";
	return "signature";
}

static const char *probe_value(blkid_probe pr, const char *name)
{
	const char *v = NULL;

	return blkid_probe_lookup_value(pr, name, &v, NULL) ? NULL : v;
}

/*
 * Append @fmt with the value @name of the probe, escaped (escape_text():
 * whoever made the disk chose its label, and libblkid passes it on raw),
 * to @buf. Returns the new length.
 */
static size_t add_value(blkid_probe pr, const char *name, const char *fmt,
			char *buf, size_t len, size_t n)
{
	const char *v = probe_value(pr, name);
	char e[256];

	if (!v || n >= len)
		return n;
	escape_text(e, sizeof(e), v);
	n += snprintf(buf + n, len - n, fmt, e);
	return n;
}

/*
 * Append "TYPE WHAT (version V, label "L", UUID U, at byte N)" for the
 * signature libblkid just found to @buf. Returns the new length.
 */
static size_t describe(blkid_probe pr, char *buf, size_t len, size_t n)
{
	const char *type = probe_value(pr, "TYPE"), *what;
	const char *off = probe_value(pr, "SBMAGIC_OFFSET");

	if (type) {
		what = usage_words(probe_value(pr, "USAGE"));
	} else {
		type = probe_value(pr, "PTTYPE");
		what = "partition table";
		off = probe_value(pr, "PTMAGIC_OFFSET");
	}
	if (!type || n >= len)
		return n;
	n += snprintf(buf + n, len - n, "%s%s %s (", n ? "; " : "", type, what);
	n = add_value(pr, "VERSION", "version %s, ", buf, len, n);
	n = add_value(pr, "LABEL", "label \"%s\", ", buf, len, n);
	n = add_value(pr, probe_value(pr, "UUID") ? "UUID" : "PTUUID", "UUID %s, ",
		      buf, len, n);
	if (n < len)
		n += snprintf(buf + n, len - n, "at byte %s)", off ? off : "?");
	return n < len ? n : len - 1;
}

/**
 * blkid_signatures() - every signature libblkid recognizes on a device
 * @path: the device
 * @list: filled with their descriptions, "; "-separated ("" for none)
 * @len: size of @list
 *
 * Return: how many were found.
 */
int blkid_signatures(const char *path, char *list, size_t len)
{
	blkid_probe pr;
	size_t n = 0;
	int found = 0;

	if (len)
		list[0] = '\0';
	pr = blkid_new_probe_from_filename(path);
	if (!pr) {
		verbose_msg("%s: libblkid cannot probe it: %s", path, strerror(errno));
		return 0;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE |
					  BLKID_SUBLKS_USAGE |
					  BLKID_SUBLKS_LABEL |
					  BLKID_SUBLKS_UUID |
					  BLKID_SUBLKS_VERSION |
					  BLKID_SUBLKS_MAGIC |
					  BLKID_SUBLKS_BADCSUM);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC |
					 BLKID_PARTS_FORCE_GPT);
	/* each call finds the next signature, as wipefs(8) walks them */
	while (blkid_do_probe(pr) == 0 && n < len) {
		n = describe(pr, list, len, n);
		found++;
	}
	blkid_free_probe(pr);
	return found;
}

/**
 * foreign_signature() - what may be on a device before it is overwritten
 * @path: the device
 * @buf: filled with the description
 * @len: size of @buf
 *
 * Return: @buf describing what was found (a stria superblock, or every
 * signature libblkid recognizes, "; "-separated), or NULL when nothing.
 */
const char *foreign_signature(const char *path, char *buf, size_t len)
{
	struct stria_sb sb;
	char why[128], u[40], list[512];
	int ret, found;

	ret = read_sb(path, &sb, why, sizeof(why));
	if (ret == 0) {
		uuid_fmt(sb.array_uuid, u);
		snprintf(buf, len, "a stria superblock: member %u of array '%.31s' (uuid %s)",
			 stria_le32(sb.role), sb.name, u);
		return buf;
	}
	if (ret != -ENODATA) {
		snprintf(buf, len, "a damaged stria superblock (%s)", why);
		return buf;
	}

	found = blkid_signatures(path, list, sizeof(list));
	verbose_msg("%s: no stria superblock; libblkid found %d other signature%s",
		    path, found, found == 1 ? "" : "s");
	if (!found)
		return NULL;
	snprintf(buf, len, "%s: %s", found > 1 ? "signatures" : "a signature",
		 list);
	return buf;
}
