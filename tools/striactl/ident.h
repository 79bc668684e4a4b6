/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which physical drive a block device is: its serial number, WWN/EUI,
 * model, the PCI(e) address of its controller and the slot that address
 * sits in, as sysfs shows them. What an administrator holding a "member
 * failed" alert needs to pull the right drive.
 *
 * Every read goes through @sysfs, "/sys" or a test's made-up copy of it.
 * An attribute sysfs does not have is an empty string, never an error.
 *
 * A drive that is gone (pulled) is no longer in sysfs: what was known of
 * it is kept in a small file per array role under ident_cache_dir
 * (/run/stria/drives), written by whoever saw the member (striactl
 * monitor), read by the alerts about it and by slot-spare.
 */
#ifndef STRIACTL_IDENT_H
#define STRIACTL_IDENT_H

#include <stddef.h>

/**
 * struct drive_ident - a drive's identity; "" for what is not known
 * @dev: the kernel name of the block device it was read from ("nvme0n1")
 * @serial: the serial number (NVMe controller, virtio, SCSI VPD page 0x80)
 * @wwid: the world-wide identifier: NVMe "eui.", "nvme." or "uuid."
 *	forms of the namespace, SCSI "naa."
 * @model: the model (NVMe controller, SCSI device)
 * @pci: the PCI address of the controller ("0000:01:00.0")
 * @slot: the name of the PCI slot holding @pci (/sys/bus/pci/slots)
 */
struct drive_ident {
	char dev[32];
	char serial[64];
	char wwid[160];
	char model[64];
	char pci[16];
	char slot[32];
};

/**
 * struct ident_field - one field of struct drive_ident, by its names
 * @key: its key in JSON and --export output ("pci_address")
 * @env: its name in the environment of monitor's PROGRAM, after
 *	"STRIA_MEMBER_" ("PCI_ADDRESS")
 * @label: its name in text ("PCI address")
 * @cache: its key in the cache's files ("PCI")
 * @off: where it is in struct drive_ident
 * @len: its size there
 *
 * Every output of a drive's identity walks ident_fields[], in its order
 * (serial, model, WWN/EUI, PCI address, slot), so no output forgets one.
 */
struct ident_field {
	const char *key, *env, *label, *cache;
	size_t off, len;
};

extern const struct ident_field ident_fields[];
extern const size_t nr_ident_fields;

/* The value of field @f of @id: "" when it is not known. */
static inline const char *ident_get(const struct drive_ident *id,
				    const struct ident_field *f)
{
	return (const char *)id + f->off;
}

/* Where the identities of the members seen are kept, one file per role. */
extern const char *ident_cache_dir;

/*
 * The identity of block device @kname (a disk or a partition: the disk's
 * identity) from @sysfs into @id. Returns 0 when the device exists (any
 * field may still be empty), -ENOENT when it does not (@id is then empty).
 */
int ident_read(const char *sysfs, const char *kname, struct drive_ident *id);
/* Is anything known of @id besides its device name? */
int ident_known(const struct drive_ident *id);
/*
 * Do @a and @b sit in the same place: the same slot name when both have
 * one, else the same PCI address when both have one. 0 when it cannot be
 * told.
 */
int ident_same_slot(const struct drive_ident *a, const struct drive_ident *b);
/* "serial S, model M, WWN/EUI W, PCI address A, slot N": the known parts. */
void ident_text(const struct drive_ident *id, char *buf, size_t len);

/*
 * Remember @id as the drive of role @role (-1: a spare is not kept) of the
 * array with UUID @uuid (its text form). Writes only when it changed.
 * Returns 0 or -errno.
 */
int ident_cache_store(const char *uuid, int role, const struct drive_ident *id);
/* What ident_cache_store() kept for @uuid and @role: 0, or -errno. */
int ident_cache_load(const char *uuid, int role, struct drive_ident *id);

/*
 * Which drive the member of role @role (-1: a spare) of the running array
 * with UUID @uuid is, its device's kernel name @kname (NULL or "" when it
 * has none any more, as for a pulled drive whose name is gone): from
 * @sysfs while the device is there (even when it tells nothing of itself:
 * kernel names are reused, and a cache of the name's last drive would
 * name the wrong one); else what was last seen in that role (the cache),
 * when that was the same device name or the member's device is not
 * known; else nothing. Returns 1 when @id came from the cache, else 0.
 */
int ident_lookup(const char *sysfs, const char *kname, const char *uuid,
		 int role, struct drive_ident *id);

#endif
