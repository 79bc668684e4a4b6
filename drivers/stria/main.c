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
 * (include/uapi/linux/stria.h). Each member starts with a superblock
 * (ondisk.h, Documentation/stria/ondisk-format.rst) from which arrays are
 * assembled again after a reboot.
 *
 * Files:
 *  main.c        module init and exit, tracepoint definitions
 *  ctl.c         the control device: ioctl validation and copying
 *  array.c       array lifecycle: create, assemble, stop; disk, limits
 *  members.c     fail on request, spares, add, remove, replace
 *  bitmap.c      the write-intent bitmap
 *  events.c      uevents and sysfs_notify() when an array's state changes
 *  inject.c      test-only delays that widen race windows
 *  io.c          blk-mq operations (RAID5/6), clones, completion, CPU->queue
 *                map, polling, freezes
 *  raid0.c       RAID0: bio-based, each bio mapped in submit_bio()
 *  raid56.c      RAID5/6: requests, setup, counters, ops tables
 *  raid56_lock.c RAID5/6: a stripe operation's stripe lock, merge, end
 *  raid56_sop.c  RAID5/6: stripe operations: member I/O, compute, writes
 *  raid56_buf.c  RAID5/6: stripe buffers, parity computation, read plans
 *  raid56_sync.c RAID5/6: background sync of a stripe
 *  superblock.c  superblock read, fill, write
 *  sync.c        background sync: rebuild onto spares, check, repair
 *  safemode.c    RAID5/6 superblocks clean while idle and at reboot
 *  sysfs.c       /sys/block/striaN/stria/
 *  geom.h        pure stripe geometry, shared with user-space tests
 *  parity_plan.h pure RAID5/6 write planning, shared with user-space tests
 *  ondisk.h      the superblock format, shared with striactl
 *  compat.h      kernel API differences
 *
 * Layer: the lifecycle, on top (Documentation/stria/layers.rst,
 * drivers/stria/layers.map): module load and unload.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/module.h>
#include <linux/printk.h>

#include "stria.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

static int __init stria_init(void)
{
	int ret;

	ret = register_blkdev(0, "stria");
	if (ret < 0)
		return ret;
	stria_major = ret;
	ret = stria_safe_register();
	if (ret)
		goto out_unregister_blkdev;
	ret = stria_ctl_init();
	if (ret)
		goto out_safe_unregister;
	pr_info("version %s loaded\n", STRIA_MODULE_VERSION);
	return 0;

out_safe_unregister:
	stria_safe_unregister();
out_unregister_blkdev:
	unregister_blkdev(stria_major, "stria");
	return ret;
}

static void __exit stria_exit(void)
{
	stria_ctl_exit();
	stria_array_stop_all();
	stria_safe_unregister();
	unregister_blkdev(stria_major, "stria");
	pr_info("unloaded\n");
}

module_init(stria_init);
module_exit(stria_exit);

MODULE_AUTHOR("The stria developers");
MODULE_DESCRIPTION("stria: RAID0/5/6 arrays for NVMe drives");
MODULE_LICENSE("GPL");
MODULE_VERSION(STRIA_MODULE_VERSION);
