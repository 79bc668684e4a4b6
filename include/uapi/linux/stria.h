/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * stria control ABI: the only contract between stria.ko and user space.
 *
 * Rules (Documentation/driver-api/ioctl.rst, ublk, blksnap):
 *  - fixed-size __u* fields only, pointers travel as __u64;
 *  - every structure starts with its size as the caller knows it, so a
 *    structure can grow at its end without a new ioctl number;
 *  - reserved fields must be zero and are checked;
 *  - optional behaviour is negotiated with feature bits: the kernel reports
 *    what it supports in STRIA_IOC_INFO and masks requested flags to it.
 */
#ifndef _UAPI_LINUX_STRIA_H
#define _UAPI_LINUX_STRIA_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* The control device, /dev/stria-control (root only). */
#define STRIA_CONTROL_NAME	"stria-control"

#define STRIA_IOC_MAGIC		0xb7

/* Features this build of the module supports (stria_ioc_info.features). */
#define STRIA_FEAT_INFO		(1ULL << 0)	/* STRIA_IOC_INFO */

#define STRIA_VERSION_LEN	32

/**
 * struct stria_ioc_info - what the loaded module is and supports
 * @size: in: sizeof(struct stria_ioc_info) as the caller knows it;
 *	out: the size the kernel filled in
 * @flags: in: must be zero
 * @features: out: STRIA_FEAT_* bits supported by this module
 * @nr_arrays: out: arrays currently registered
 * @max_members: out: largest member count an array may have
 * @version: out: module version, NUL-terminated
 * @reserved: in: must be zero
 */
struct stria_ioc_info {
	__u32 size;
	__u32 flags;
	__u64 features;
	__u32 nr_arrays;
	__u32 max_members;
	char version[STRIA_VERSION_LEN];
	__u64 reserved[8];
};

#define STRIA_IOC_INFO		_IOWR(STRIA_IOC_MAGIC, 0x00, struct stria_ioc_info)

#endif /* _UAPI_LINUX_STRIA_H */
