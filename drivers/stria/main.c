// SPDX-License-Identifier: GPL-2.0
/*
 * stria: RAID0/5/6 block arrays for NVMe drives.
 *
 * DOC: Theory of Operation
 *
 * stria turns a set of member block devices into one blk-mq array device.
 * The design goal is to keep up with NVMe drives, so the I/O path has no
 * central worker thread and no global lock: a request is mapped to its
 * member by a pure geometry function (geom.h) on the CPU that submitted it,
 * and completed from the member's completion.
 *
 * User space drives the module through one misc device,
 * /dev/stria-control, whose ioctls are the only user/kernel contract
 * (include/uapi/linux/stria.h). This file holds module init and exit;
 * ctl.c the control device.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/printk.h>

#include "stria.h"

static int __init stria_init(void)
{
	int ret;

	ret = stria_ctl_init();
	if (ret)
		return ret;
	pr_info("version %s loaded\n", STRIA_MODULE_VERSION);
	return 0;
}

static void __exit stria_exit(void)
{
	stria_ctl_exit();
	pr_info("unloaded\n");
}

module_init(stria_init);
module_exit(stria_exit);

MODULE_AUTHOR("The stria developers");
MODULE_DESCRIPTION("stria: RAID0/5/6 arrays for NVMe drives");
MODULE_LICENSE("GPL");
MODULE_VERSION(STRIA_MODULE_VERSION);
