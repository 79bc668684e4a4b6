// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/block/striaN/stria/: what an array is and how it is doing.
 * Every file is documented in Documentation/ABI/testing/sysfs-block-stria.
 * All are read-only but the sync controls (sync_action, sync_speed_min,
 * sync_speed_max) and safe_mode_delay_ms, which md users expect here; everything else goes
 * through the control device.
 *
 * Layer: the lifecycle and control surfaces, on top
 * (Documentation/stria/layers.rst, drivers/stria/layers.map).
 */
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/device.h>
#include <linux/kstrtox.h>
#include <linux/mm.h>
#include <linux/sysfs.h>
#include <linux/vmalloc.h>

#include "stria.h"

static struct stria_array *dev_to_array(struct device *dev)
{
	return dev_to_disk(dev)->private_data;
}

static ssize_t level_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "%u\n", dev_to_array(dev)->geom.level);
}
static DEVICE_ATTR_RO(level);

static ssize_t layout_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	struct stria_array *a = dev_to_array(dev);

	return sysfs_emit(buf, "%s\n",
			  stria_parity_layout_name(a->geom.level,
						   a->geom.layout));
}
static DEVICE_ATTR_RO(layout);

static ssize_t chunk_size_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n",
			  1U << (dev_to_array(dev)->geom.chunk_shift +
				 SECTOR_SHIFT));
}
static DEVICE_ATTR_RO(chunk_size);

static ssize_t nr_members_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", dev_to_array(dev)->nr_members);
}
static DEVICE_ATTR_RO(nr_members);

static ssize_t members_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	struct stria_array *a = dev_to_array(dev);
	int len = 0;
	u32 i;

	/* the tables change under cfg_lock (spares, removal); killable */
	if (stria_cfg_lock(a, NULL))
		return -EINTR;
	for (i = 0; i < a->nr_members + a->nr_spares; i++) {
		struct stria_member *m = i < a->nr_members ? &a->members[i] :
					 &a->spares[i - a->nr_members];

		if (m->role == STRIA_SB_ROLE_SPARE)
			len += sysfs_emit_at(buf, len, "- ");
		else
			len += sysfs_emit_at(buf, len, "%u ", m->role);
		if (m->dev.bdev)
			len += sysfs_emit_at(buf, len, "%pg ", m->dev.bdev);
		else
			len += sysfs_emit_at(buf, len, "- ");
		len += sysfs_emit_at(buf, len, "%s %lld %lld %u\n",
				     stria_state_name(READ_ONCE(m->state)),
				     (long long)atomic64_read(&m->errors),
				     (long long)atomic64_read(&m->read_repairs),
				     stria_member_read_errors(m));
	}
	if (a->repl_role != STRIA_NO_MEMBER)
		len += sysfs_emit_at(buf, len, "%u %pg %s %lld 0 0\n", a->repl_role,
				     a->repl.dev.bdev,
				     stria_state_name(READ_ONCE(a->repl.state)),
				     (long long)atomic64_read(&a->repl.errors));
	mutex_unlock(&a->cfg_lock);
	return len;
}
static DEVICE_ATTR_RO(members);

static ssize_t uuid_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%pUb\n", dev_to_array(dev)->uuid);
}
static DEVICE_ATTR_RO(uuid);

static ssize_t name_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%s\n", dev_to_array(dev)->name);
}
static DEVICE_ATTR_RO(name);

/* The home host, checked like the name; an empty line when none. */
static ssize_t homehost_show(struct device *dev,
			     struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", dev_to_array(dev)->homehost);
}
static DEVICE_ATTR_RO(homehost);

static ssize_t events_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%llu\n", READ_ONCE(dev_to_array(dev)->events));
}
static DEVICE_ATTR_RO(events);

static ssize_t state_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  stria_state_name(stria_array_state(dev_to_array(dev))));
}
static DEVICE_ATTR_RO(state);

static ssize_t numa_node_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", dev_to_array(dev)->node);
}
static DEVICE_ATTR_RO(numa_node);

/* The NUMA node of the page behind a kernel address, -1 when unknown. */
static int stria_addr_node(const void *p)
{
	if (!p)
		return NUMA_NO_NODE;
	if (is_vmalloc_addr(p))
		return page_to_nid(vmalloc_to_page(p));
	return page_to_nid(virt_to_page(p));
}

/*
 * Where the memory is, as opposed to where it was asked for (numa_node):
 * the array, the tag set's table of queue tags, and for every hardware
 * queue its context and its requests. blk-mq places a queue's memory on
 * the node of the CPUs mapped to it, so a queue serving another node's
 * CPUs is not on the array's node, by design.
 */
static ssize_t memory_nodes_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	struct stria_array *a = dev_to_array(dev);
	struct blk_mq_hw_ctx *hctx;
	unsigned long i;
	int len;

	len = sysfs_emit(buf, "array %d\n", stria_addr_node(a));
	/* a bio-based array (RAID0) has no tag set, no hardware queues */
	if (stria_bio_based(a))
		return len;
	len += sysfs_emit_at(buf, len, "tag_set %d\n",
			     stria_addr_node(a->tag_set.tags));
	queue_for_each_hw_ctx(a->disk->queue, hctx, i)
		len += sysfs_emit_at(buf, len, "queue%lu %d %d\n", i,
				     stria_addr_node(hctx),
				     stria_addr_node(stria_hctx_request_mem(hctx)));
	return len;
}
static DEVICE_ATTR_RO(memory_nodes);

static ssize_t io_stat_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	struct stria_array *a = dev_to_array(dev);
	struct stria_stats sum = { };
	int cpu;

	for_each_possible_cpu(cpu) {
		const struct stria_stats *s = per_cpu_ptr(a->stats, cpu);

		sum.ios[0] += READ_ONCE(s->ios[0]);
		sum.ios[1] += READ_ONCE(s->ios[1]);
		sum.sectors[0] += READ_ONCE(s->sectors[0]);
		sum.sectors[1] += READ_ONCE(s->sectors[1]);
		sum.flushes += READ_ONCE(s->flushes);
		sum.discards += READ_ONCE(s->discards);
		sum.errors += READ_ONCE(s->errors);
	}
	return sysfs_emit(buf, "%llu %llu %llu %llu %llu %llu %llu\n",
			  sum.ios[0], sum.sectors[0], sum.ios[1],
			  sum.sectors[1], sum.flushes, sum.discards,
			  sum.errors);
}
static DEVICE_ATTR_RO(io_stat);

/* RAID5/6 only: stripe operations by method, see raid56.c */
static ssize_t raid56_stats_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	return stria_raid56_stats_show(dev_to_array(dev), buf);
}
static DEVICE_ATTR_RO(raid56_stats);

/*
 * the write-intent bitmap, see bitmap.c; "none" without one. A grow adds
 * or removes it under cfg_lock: killable, as members_show().
 */
static ssize_t bitmap_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	struct stria_array *a = dev_to_array(dev);
	ssize_t ret;

	if (stria_cfg_lock(a, NULL))
		return -EINTR;
	ret = stria_bitmap_show(a, buf);
	mutex_unlock(&a->cfg_lock);
	return ret;
}
static DEVICE_ATTR_RO(bitmap);

static ssize_t sync_action_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  stria_sync_action_name(READ_ONCE(dev_to_array(dev)->sync.action)));
}

/* "check", "repair": scrub the whole array; "idle": stop a scrub */
static ssize_t sync_action_store(struct device *dev,
				 struct device_attribute *attr,
				 const char *buf, size_t len)
{
	struct stria_array *a = dev_to_array(dev);
	char msg[STRIA_MSG_LEN];
	u64 nr = 0;
	int ret;

	if ((sysfs_streq(buf, "check") || sysfs_streq(buf, "repair")) &&
	    stria_array_refuse_ro(a, msg))
		ret = -EROFS;
	else if (sysfs_streq(buf, "check"))
		ret = stria_sync_scrub(a, STRIA_SYNC_CHECK, 0, &nr, msg);
	else if (sysfs_streq(buf, "repair"))
		ret = stria_sync_scrub(a, STRIA_SYNC_REPAIR, 0, &nr, msg);
	else if (sysfs_streq(buf, "idle"))
		ret = stria_sync_stop(a, false, msg);
	else
		return -EINVAL;
	if (ret) {
		pr_info("stria%d: sync_action: %s\n", a->index, msg);
		return ret;
	}
	return len;
}
static DEVICE_ATTR_RW(sync_action);

static ssize_t sync_completed_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	struct stria_array *a = dev_to_array(dev);
	const struct stria_sync *s = &a->sync;

	if (READ_ONCE(s->action) == STRIA_SYNC_IDLE)
		return sysfs_emit(buf, "none\n");
	return sysfs_emit(buf, "%llu / %llu\n", READ_ONCE(s->pos) - s->base,
			  s->end - s->base);
}
static DEVICE_ATTR_RO(sync_completed);

static ssize_t sync_speed_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(dev_to_array(dev)->sync.speed));
}
static DEVICE_ATTR_RO(sync_speed);

static ssize_t mismatch_cnt_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n",
			  READ_ONCE(dev_to_array(dev)->sync.mismatches));
}
static DEVICE_ATTR_RO(mismatch_cnt);

static ssize_t mismatch_located_show(struct device *dev,
				     struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n",
			  READ_ONCE(dev_to_array(dev)->sync.located));
}
static DEVICE_ATTR_RO(mismatch_located);

static ssize_t mismatch_unlocatable_show(struct device *dev,
					 struct device_attribute *attr,
					 char *buf)
{
	return sysfs_emit(buf, "%llu\n",
			  READ_ONCE(dev_to_array(dev)->sync.unlocatable));
}
static DEVICE_ATTR_RO(mismatch_unlocatable);

/* KiB/s, 1 .. 100 GiB/s; the running sync follows at once */
static ssize_t stria_speed_store(struct stria_array *a, u32 *limit,
				 const char *buf, size_t len)
{
	u32 v;
	int ret = kstrtou32(buf, 10, &v);

	if (ret)
		return ret;
	if (!v || v > 100U * 1024 * 1024)
		return -EINVAL;
	WRITE_ONCE(*limit, v);
	wake_up_all(&a->sync.wait);
	return len;
}

static ssize_t sync_speed_min_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n",
			  READ_ONCE(dev_to_array(dev)->sync.speed_min));
}

static ssize_t sync_speed_min_store(struct device *dev,
				    struct device_attribute *attr,
				    const char *buf, size_t len)
{
	struct stria_array *a = dev_to_array(dev);

	return stria_speed_store(a, &a->sync.speed_min, buf, len);
}
static DEVICE_ATTR_RW(sync_speed_min);

static ssize_t sync_speed_max_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n",
			  READ_ONCE(dev_to_array(dev)->sync.speed_max));
}

static ssize_t sync_speed_max_store(struct device *dev,
				    struct device_attribute *attr,
				    const char *buf, size_t len)
{
	struct stria_array *a = dev_to_array(dev);

	return stria_speed_store(a, &a->sync.speed_max, buf, len);
}
static DEVICE_ATTR_RW(sync_speed_max);

/* safe mode (safemode.c): milliseconds idle before clean, 0 = never */
static ssize_t safe_mode_delay_ms_show(struct device *dev,
				       struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n",
			  READ_ONCE(dev_to_array(dev)->safe.delay_ms));
}

static ssize_t safe_mode_delay_ms_store(struct device *dev,
					struct device_attribute *attr,
					const char *buf, size_t len)
{
	struct stria_array *a = dev_to_array(dev);
	u32 v;

	/* anything but a number of milliseconds in range: -EINVAL */
	if (kstrtou32(buf, 10, &v) || stria_safe_set_delay(a, v))
		return -EINVAL;
	return len;
}
static DEVICE_ATTR_RW(safe_mode_delay_ms);

/* clean, active, write-pending or readonly, as md's array_state says them */
static ssize_t array_state_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	struct stria_array *a = dev_to_array(dev);

	if (READ_ONCE(a->readonly))
		return sysfs_emit(buf, "readonly\n");
	return sysfs_emit(buf, "%s\n", stria_safe_state_name(a));
}
static DEVICE_ATTR_RO(array_state);

/*
 * 1 while a resync of the parity is owed (not stopped cleanly): running,
 * or waiting for the array to become read-write or for a rebuild to end
 */
static ssize_t resync_owed_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", stria_resync_owed(dev_to_array(dev)));
}
static DEVICE_ATTR_RO(resync_owed);

static umode_t stria_disk_attr_visible(struct kobject *kobj,
				       struct attribute *attr, int n)
{
	struct device *dev = kobj_to_dev(kobj);

	if ((attr == &dev_attr_raid56_stats.attr ||
	     attr == &dev_attr_safe_mode_delay_ms.attr ||
	     attr == &dev_attr_array_state.attr ||
	     attr == &dev_attr_resync_owed.attr) && !dev_to_array(dev)->r56)
		return 0;
	return attr->mode;
}

static struct attribute *stria_disk_attrs[] = {
	&dev_attr_level.attr,
	&dev_attr_layout.attr,
	&dev_attr_chunk_size.attr,
	&dev_attr_nr_members.attr,
	&dev_attr_members.attr,
	&dev_attr_uuid.attr,
	&dev_attr_name.attr,
	&dev_attr_homehost.attr,
	&dev_attr_events.attr,
	&dev_attr_state.attr,
	&dev_attr_numa_node.attr,
	&dev_attr_memory_nodes.attr,
	&dev_attr_io_stat.attr,
	&dev_attr_raid56_stats.attr,
	&dev_attr_bitmap.attr,
	&dev_attr_sync_action.attr,
	&dev_attr_sync_completed.attr,
	&dev_attr_sync_speed.attr,
	&dev_attr_sync_speed_min.attr,
	&dev_attr_sync_speed_max.attr,
	&dev_attr_mismatch_cnt.attr,
	&dev_attr_mismatch_located.attr,
	&dev_attr_mismatch_unlocatable.attr,
	&dev_attr_safe_mode_delay_ms.attr,
	&dev_attr_array_state.attr,
	&dev_attr_resync_owed.attr,
	NULL,
};

static const struct attribute_group stria_disk_group = {
	.name		= "stria",
	.attrs		= stria_disk_attrs,
	.is_visible	= stria_disk_attr_visible,
};

const struct attribute_group *stria_disk_groups[] = {
	&stria_disk_group,
	NULL,
};
