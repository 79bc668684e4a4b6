// SPDX-License-Identifier: GPL-2.0
/*
 * stria control device: /dev/stria-control and its ioctls.
 *
 * Every ioctl copies a structure whose first field is its size as the
 * caller knows it. A caller may pass an older, shorter structure (fields it
 * does not know are treated as zero) or a newer, longer one (bytes the
 * kernel does not know must be zero). Reserved fields and flags must be
 * zero. Nothing is changed before the whole request has been validated.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/stria.h>

#include "geom.h"
#include "stria.h"

#define STRIA_FEATURES		STRIA_FEAT_INFO

/*
 * Copy a size-prefixed structure from user space into @kbuf (@ksize bytes),
 * accepting shorter (older) and longer (newer, tail must be zero) callers.
 */
static int stria_copy_in(void *kbuf, size_t ksize, void __user *ubuf)
{
	u32 usize;
	int ret;

	if (get_user(usize, (u32 __user *)ubuf))
		return -EFAULT;
	if (usize < sizeof(u32) * 2 || usize > PAGE_SIZE)
		return -EINVAL;
	ret = copy_struct_from_user(kbuf, ksize, ubuf, usize);
	if (ret)
		return ret;	/* -E2BIG: unknown non-zero tail */
	return 0;
}

static bool stria_all_zero(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

static long stria_ioc_info(void __user *argp)
{
	struct stria_ioc_info info;
	u32 usize;
	int ret;

	ret = stria_copy_in(&info, sizeof(info), argp);
	if (ret)
		return ret;
	if (info.flags || !stria_all_zero(info.reserved, sizeof(info.reserved)))
		return -EINVAL;
	usize = info.size;

	memset(&info, 0, sizeof(info));
	info.size = min_t(u32, usize, sizeof(info));
	info.features = STRIA_FEATURES;
	info.nr_arrays = 0;
	info.max_members = STRIA_GEOM_MAX_MEMBERS;
	strscpy(info.version, STRIA_MODULE_VERSION, sizeof(info.version));
	if (copy_to_user(argp, &info, info.size))
		return -EFAULT;
	return 0;
}

static long stria_ctl_ioctl(struct file *file, unsigned int cmd,
			    unsigned long arg)
{
	void __user *argp = (void __user *)arg;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;

	switch (cmd) {
	case STRIA_IOC_INFO:
		return stria_ioc_info(argp);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations stria_ctl_fops = {
	.owner		= THIS_MODULE,
	.open		= nonseekable_open,
	.unlocked_ioctl	= stria_ctl_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= noop_llseek,
};

static struct miscdevice stria_ctl_dev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= STRIA_CONTROL_NAME,
	.fops	= &stria_ctl_fops,
	.mode	= 0600,
};

int stria_ctl_init(void)
{
	int ret = misc_register(&stria_ctl_dev);

	if (ret)
		pr_err("cannot register /dev/%s: %d\n", STRIA_CONTROL_NAME, ret);
	return ret;
}

void stria_ctl_exit(void)
{
	misc_deregister(&stria_ctl_dev);
}
