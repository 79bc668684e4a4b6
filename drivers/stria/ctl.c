// SPDX-License-Identifier: GPL-2.0
/*
 * stria control device: /dev/stria-control and its ioctls.
 *
 * Every ioctl copies a structure whose first field is its size as the
 * caller knows it. A caller may pass an older, shorter structure (fields it
 * does not know are treated as zero) or a newer, longer one (bytes the
 * kernel does not know must be zero). Reserved fields and flags must be
 * zero. Nothing is changed before the whole request has been validated.
 *
 * Layer: the lifecycle and control surfaces, on top
 * (Documentation/stria/layers.rst, drivers/stria/layers.map).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cpumask.h>
#include <linux/fs.h>
#include <linux/limits.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/stria.h>

#include "geom.h"
#include "stria.h"

#define STRIA_FEATURES		(STRIA_FEAT_INFO | STRIA_FEAT_RAID0 | \
				 STRIA_FEAT_RAID5 | STRIA_FEAT_RAID6 | \
				 STRIA_FEAT_FAIL | STRIA_FEAT_SPARES | \
				 STRIA_FEAT_SYNC | STRIA_FEAT_BITMAP | \
				 STRIA_FEAT_READD | STRIA_FEAT_REPLACE | \
				 STRIA_FEAT_RUN | STRIA_FEAT_HOMEHOST | \
				 STRIA_FEAT_READONLY | STRIA_FEAT_MIRROR | \
				 STRIA_FEAT_GROW_MIRROR | STRIA_FEAT_GROW_BITMAP | \
				 STRIA_FEAT_GROW_SIZE | STRIA_FEAT_GROW_RESTRIPE)

/* The ABI's parity layout numbers are geom.h's (and md's). */
static_assert(STRIA_PARITY_LEFT_ASYMMETRIC == STRIA_LAYOUT_LEFT_ASYMMETRIC);
static_assert(STRIA_PARITY_RIGHT_ASYMMETRIC == STRIA_LAYOUT_RIGHT_ASYMMETRIC);
static_assert(STRIA_PARITY_LEFT_SYMMETRIC == STRIA_LAYOUT_LEFT_SYMMETRIC);
static_assert(STRIA_PARITY_RIGHT_SYMMETRIC == STRIA_LAYOUT_RIGHT_SYMMETRIC);

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

/*
 * Every request waits for stria_arrays_lock killably: a start holds it for
 * short steps only, but a request on a running array (a stop, a spare
 * added) may wait for that array's members under it. Says so in @msg
 * (STRIA_MSG_LEN bytes, optional) when a fatal signal ends the wait.
 */
static int stria_lock(char *msg)
{
	if (!mutex_lock_killable(&stria_arrays_lock))
		return 0;
	if (msg)
		snprintf(msg, STRIA_MSG_LEN, "interrupted while waiting for another array request to finish: nothing was done");
	return -EINTR;
}

static long stria_ioc_info(void __user *argp)
{
	struct stria_ioc_info info;
	unsigned int n;
	u32 usize;
	int ret;

	ret = stria_copy_in(&info, sizeof(info), argp);
	if (ret)
		return ret;
	if (info.flags || info.max_spares || info.reserved0 ||
	    !stria_all_zero(info.reserved, sizeof(info.reserved)))
		return -EINVAL;
	usize = info.size;
	ret = stria_lock(NULL);
	if (ret)
		return ret;
	n = stria_array_count();
	mutex_unlock(&stria_arrays_lock);

	memset(&info, 0, sizeof(info));
	info.size = min_t(u32, usize, sizeof(info));
	info.features = STRIA_FEATURES;
	info.nr_arrays = n;
	info.max_members = STRIA_GEOM_MAX_MEMBERS;
	info.max_spares = STRIA_MAX_SPARES;
	strscpy(info.version, STRIA_MODULE_VERSION, sizeof(info.version));
	if (copy_to_user(argp, &info, info.size))
		return -EFAULT;
	return 0;
}

/* Copy a failed request back so the caller sees msg and err_member. */
static int stria_copy_back(void __user *argp, const void *kbuf, u32 usize,
			   size_t ksize, int ret)
{
	if (copy_to_user(argp, kbuf, min_t(size_t, usize, ksize)))
		return -EFAULT;
	return ret;
}

/* Names in requests follow the on-disk rule: stria_name_valid(). */
static_assert(STRIA_NAME_LEN == STRIA_SB_NAME_LEN);
static_assert(STRIA_HOST_LEN == STRIA_SB_HOST_LEN);

/* Say why in the request's msg; returns -EINVAL. */
static __printf(2, 3) int stria_refuse(struct stria_ioc_array *req,
				       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(req->msg, sizeof(req->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Create: level, member count and parity layout. */
static int stria_check_level(struct stria_ioc_array *req)
{
	u32 min = req->level == 6 ? 4 : req->level == 5 ? 3 : 2;
	bool mirror = req->level == 1 || req->level == 10;

	if (req->level != 0 && req->level != 1 && req->level != 5 &&
	    req->level != 6 && req->level != 10)
		return stria_refuse(req, "RAID level %u is not supported (this module supports 0, 1, 5, 6 and 10)",
				    req->level);
	if (req->nr_members < min)
		return stria_refuse(req, "RAID%u needs at least %u members, %u given",
				    req->level, min, req->nr_members);
	if (req->level == 1 && req->nr_members > STRIA_R10_MAX_COPIES)
		return stria_refuse(req, "RAID1 keeps a copy on each member, at most %u: %u given (RAID10 spreads copies over more)",
				    STRIA_R10_MAX_COPIES, req->nr_members);
	if (!(req->flags & STRIA_ARRAY_F_LAYOUT)) {
		if (req->layout)
			return stria_refuse(req, "layout %u given without STRIA_ARRAY_F_LAYOUT",
					    req->layout);
		if (req->level == 1)
			req->layout = stria_r10_layout(req->nr_members, 1, false);
		else if (req->level == 10)
			req->layout = stria_r10_layout(2, 1, false);
		else if (req->level)
			req->layout = STRIA_PARITY_LEFT_SYMMETRIC;
		return 0;
	}
	if (!req->level)
		return stria_refuse(req, "RAID0 has no parity layout; a layout is for RAID5 and RAID6");
	if (req->level == 1)
		return stria_refuse(req, "RAID1 has one layout, a copy on each member; a layout is for RAID5, RAID6 and RAID10");
	if (mirror) {
		if (!stria_r10_layout_valid(req->layout, req->nr_members))
			return stria_refuse(req, "RAID10 layout 0x%x is not one of n2..n4, f2..f4, o2..o4 with no more copies than the %u members",
					    req->layout, req->nr_members);
		return 0;
	}
	if (req->layout > STRIA_PARITY_RIGHT_SYMMETRIC)
		return stria_refuse(req, "unknown parity layout %u (0 left-asymmetric, 1 right-asymmetric, 2 left-symmetric, 3 right-symmetric)",
				    req->layout);
	return 0;
}

/*
 * Create: the write-intent bitmap's region size. Whether it fits before the
 * data area depends on the members' size: stria_array_start() checks that.
 */
static int stria_check_bitmap(struct stria_ioc_array *req)
{
	u32 b = req->bitmap_chunk;

	if (!req->level) {
		if (b || (req->flags & STRIA_ARRAY_F_NO_BITMAP))
			return stria_refuse(req, "RAID0 has no redundancy to resync and keeps no write-intent bitmap");
		return 0;
	}
	if ((req->flags & STRIA_ARRAY_F_NO_BITMAP) && b)
		return stria_refuse(req, "a bitmap region size was given with no bitmap");
	if (b && (b & (b - 1) || b < req->chunk_sectors ||
		  b > STRIA_SB_BITMAP_MAX_CHUNK))
		return stria_refuse(req, "bitmap region of %u sectors: it must be a power of two from the chunk (%u sectors) to %u sectors (1 TiB)",
				    b, req->chunk_sectors,
				    STRIA_SB_BITMAP_MAX_CHUNK);
	return 0;
}

static int stria_check_array_req(struct stria_ioc_array *req, bool assemble)
{
	u32 c = req->chunk_sectors;

	if (req->flags & ~(STRIA_ARRAY_F_LAYOUT | STRIA_ARRAY_F_FORCE |
			   STRIA_ARRAY_F_NO_BITMAP | STRIA_ARRAY_F_RUN |
			   STRIA_ARRAY_F_READONLY))
		return stria_refuse(req, "unknown flags 0x%x", req->flags);
	if (!assemble && (req->flags & STRIA_ARRAY_F_FORCE))
		return stria_refuse(req, "force is for assemble only");
	if (!assemble && (req->flags & STRIA_ARRAY_F_RUN))
		return stria_refuse(req, "run is for assemble only");
	if (!assemble && (req->flags & STRIA_ARRAY_F_READONLY))
		return stria_refuse(req, "read-only is for assemble only");
	if ((req->flags & STRIA_ARRAY_F_READONLY) &&
	    (req->flags & STRIA_ARRAY_F_FORCE))
		return stria_refuse(req, "read-only and force exclude each other: a read-only assembly needs no force and writes nothing; force is for the switch to read-write");
	if (memchr_inv(req->reserved, 0, sizeof(req->reserved)) ||
	    req->index || req->err_member ||
	    memchr_inv(req->uuid, 0, sizeof(req->uuid)) ||
	    memchr_inv(req->msg, 0, sizeof(req->msg)))
		return stria_refuse(req, "reserved and output fields must be zero");
	if (req->nr_members < 2)
		return stria_refuse(req, "an array needs at least 2 members, %u given",
		       req->nr_members);
	if (req->nr_members > STRIA_GEOM_MAX_MEMBERS +
	    (assemble ? STRIA_MAX_SPARES : 0))
		return stria_refuse(req, "an array has at most %u members%s, %u given",
		       STRIA_GEOM_MAX_MEMBERS,
		       assemble ? " and 8 spares" : "", req->nr_members);
	if (!req->members)
		return stria_refuse(req, "no member list");
	if (req->numa_node != STRIA_NODE_AUTO &&
	    (req->numa_node >= nr_node_ids || !node_online(req->numa_node)))
		return stria_refuse(req, "NUMA node %u is not online", req->numa_node);
	if (assemble) {
		if (req->level || c ||
		    (req->flags & ~(STRIA_ARRAY_F_FORCE | STRIA_ARRAY_F_RUN |
				    STRIA_ARRAY_F_READONLY)) ||
		    req->layout || req->bitmap_chunk)
			return stria_refuse(req, "level, chunk, layout and bitmap come from the superblocks; pass 0");
		if (req->name[0] && !stria_name_valid(req->name))
			return stria_refuse(req, "invalid array name");
		if (req->homehost)
			return stria_refuse(req, "the home host comes from the superblocks; pass 0");
		return 0;
	}
	if (!stria_name_valid(req->name))
		return stria_refuse(req, "invalid array name: use 1 to 31 characters from A-Z a-z 0-9 . _ - (not starting with . or -)");
	if (stria_check_level(req))
		return -EINVAL;
	if (c & (c - 1) || !c)
		return stria_refuse(req, "chunk of %u sectors is not a power of two", c);
	if (c < STRIA_GEOM_MIN_CHUNK_SECTORS || c > STRIA_GEOM_MAX_CHUNK_SECTORS)
		return stria_refuse(req, "chunk of %u sectors is out of range (%u to %u, 4 KiB to 1 MiB)",
		       c, STRIA_GEOM_MIN_CHUNK_SECTORS,
		       STRIA_GEOM_MAX_CHUNK_SECTORS);
	return stria_check_bitmap(req);
}

static void stria_free_paths(char **paths, u32 n)
{
	u32 i;

	if (!paths)
		return;
	for (i = 0; i < n; i++)
		kfree(paths[i]);
	kfree(paths);
}

static char **stria_copy_paths(struct stria_ioc_array *req)
{
	u64 __user *uptrs = u64_to_user_ptr(req->members);
	char **paths;
	u64 ptr;
	u32 i;

	paths = kcalloc(req->nr_members, sizeof(*paths), GFP_KERNEL);
	if (!paths)
		return ERR_PTR(-ENOMEM);
	for (i = 0; i < req->nr_members; i++) {
		char *p;

		if (get_user(ptr, uptrs + i))
			goto fault;
		p = strndup_user(u64_to_user_ptr(ptr), PATH_MAX);
		if (IS_ERR(p)) {
			snprintf(req->msg, sizeof(req->msg),
				 "member %u: bad path pointer or path too long", i);
			req->err_member = i;
			stria_free_paths(paths, i);
			return ERR_CAST(p);
		}
		paths[i] = p;
	}
	return paths;
fault:
	snprintf(req->msg, sizeof(req->msg), "bad member list pointer");
	stria_free_paths(paths, i);
	return ERR_PTR(-EFAULT);
}

/*
 * Create: the home host @req->homehost points to, into @host
 * (STRIA_HOST_LEN bytes, NUL-padded, empty for none), held to
 * stria_host_valid() as the superblocks will be.
 */
static int stria_copy_host(struct stria_ioc_array *req, char *host)
{
	char *p;

	memset(host, 0, STRIA_HOST_LEN);
	if (!req->homehost)
		return 0;
	p = strndup_user(u64_to_user_ptr(req->homehost), STRIA_HOST_LEN);
	if (IS_ERR(p)) {
		stria_refuse(req, "bad home host pointer, or a home host of 64 characters or more");
		return PTR_ERR(p) == -EFAULT ? -EFAULT : -EINVAL;
	}
	strscpy(host, p, STRIA_HOST_LEN);
	kfree(p);
	if (!stria_host_valid(host))
		return stria_refuse(req, "invalid home host: use 1 to 63 characters from A-Z a-z 0-9 . _ - (not starting with . or -), or none");
	return 0;
}

static long stria_ioc_array(void __user *argp, bool assemble)
{
	struct stria_ioc_array *req;
	struct stria_spec spec = { };
	u32 usize;
	int ret;

	req = kzalloc(sizeof(*req), GFP_KERNEL);
	if (!req)
		return -ENOMEM;
	ret = stria_copy_in(req, sizeof(*req), argp);
	if (ret)
		goto out_free;
	usize = req->size;
	ret = stria_check_array_req(req, assemble);
	if (!ret)
		ret = stria_copy_host(req, spec.homehost);
	if (ret)
		goto out_copy_back;
	req->err_member = STRIA_NO_MEMBER;
	spec.paths = stria_copy_paths(req);
	if (IS_ERR(spec.paths)) {
		ret = PTR_ERR(spec.paths);
		spec.paths = NULL;
		goto out_copy_back;
	}
	spec.assemble = assemble;
	spec.force = req->flags & STRIA_ARRAY_F_FORCE;
	spec.run = req->flags & STRIA_ARRAY_F_RUN;
	spec.readonly = req->flags & STRIA_ARRAY_F_READONLY;
	spec.level = req->level;
	spec.layout = req->layout;
	spec.chunk_sectors = req->chunk_sectors;
	spec.bitmap = req->level && !(req->flags & STRIA_ARRAY_F_NO_BITMAP);
	spec.bitmap_chunk = req->bitmap_chunk;
	spec.nr_members = req->nr_members;
	spec.node = req->numa_node == STRIA_NODE_AUTO ? NUMA_NO_NODE :
		    (int)req->numa_node;
	memcpy(spec.name, req->name, sizeof(spec.name));
	spec.msg = req->msg;
	spec.err_member = STRIA_NO_MEMBER;

	/* takes stria_arrays_lock itself, for short steps only */
	ret = stria_array_start(&spec);
	if (!ret) {
		req->index = spec.index;
		req->bitmap_chunk = spec.bitmap_chunk;
		memcpy(req->uuid, spec.uuid, sizeof(req->uuid));
		memcpy(req->name, spec.name, sizeof(req->name));
	}
	req->err_member = spec.err_member;
	stria_free_paths(spec.paths, req->nr_members);
out_copy_back:
	ret = stria_copy_back(argp, req, usize, sizeof(*req), ret);
out_free:
	kfree(req);
	return ret;
}


/*
 * The running array a STOP or MEMBER request names (by name when @name[0],
 * else by index), or NULL with the reason in @msg (STRIA_MSG_LEN bytes).
 * Caller holds stria_arrays_lock.
 */
static struct stria_array *stria_running(const char *name, u32 index,
					 char *msg)
{
	struct stria_array *a = stria_array_find(name, index, false);

	if (a)
		return a;
	if (name[0])
		snprintf(msg, STRIA_MSG_LEN, "no array named '%s' is running",
			 name);
	else
		snprintf(msg, STRIA_MSG_LEN, "stria%u is not running", index);
	return NULL;
}

static long stria_ioc_stop(void __user *argp)
{
	struct stria_ioc_stop req;
	struct stria_array *a;
	u32 usize;
	int ret;

	ret = stria_copy_in(&req, sizeof(req), argp);
	if (ret)
		return ret;
	usize = req.size;
	ret = -EINVAL;
	if (req.flags || req.reserved0 ||
	    memchr_inv(req.reserved, 0, sizeof(req.reserved)) ||
	    memchr_inv(req.msg, 0, sizeof(req.msg))) {
		snprintf(req.msg, sizeof(req.msg), "flags, reserved and output fields must be zero");
		goto out;
	}
	if (req.name[0] && !stria_name_valid(req.name)) {
		snprintf(req.msg, sizeof(req.msg), "invalid array name");
		goto out;
	}
	ret = stria_lock(req.msg);
	if (ret)
		goto out;
	a = stria_running(req.name, req.index, req.msg);
	ret = a ? stria_array_stop(a, req.msg) : -ENOENT;
	mutex_unlock(&stria_arrays_lock);
out:
	return stria_copy_back(argp, &req, usize, sizeof(req), ret);
}

/* One member or spare for STRIA_IOC_QUERY. */
static void stria_query_member(const struct stria_member *sm,
			       struct stria_ioc_member *m)
{
	memset(m, 0, sizeof(*m));
	m->role = sm->role == STRIA_SB_ROLE_SPARE ? STRIA_NO_MEMBER : sm->role;
	m->state = READ_ONCE(sm->state);
	m->major = MAJOR(stria_member_devt(sm));
	m->minor = MINOR(stria_member_devt(sm));
	m->numa_node = sm->node == NUMA_NO_NODE ? STRIA_NODE_AUTO : sm->node;
	m->dev_sectors = sm->dev_sectors;
	memcpy(m->uuid, sm->uuid, sizeof(m->uuid));
}

/* The sync state: a snapshot, each field read once. */
static void stria_query_sync(struct stria_array *a, struct stria_ioc_query *q)
{
	const struct stria_sync *s = &a->sync;

	q->sync_action = READ_ONCE(s->action);
	q->nr_spares = a->nr_spares;
	q->sync_done = READ_ONCE(s->pos) - s->base;
	q->sync_total = s->end - s->base;
	q->mismatch_cnt = READ_ONCE(s->mismatches);
	q->mismatch_located = READ_ONCE(s->located);
	q->mismatch_unlocatable = READ_ONCE(s->unlocatable);
	q->sync_speed = READ_ONCE(s->speed);
	q->sync_speed_min = READ_ONCE(s->speed_min);
	q->sync_speed_max = READ_ONCE(s->speed_max);
	q->sync_result = READ_ONCE(s->result);
	q->bitmap_chunk = stria_bitmap_chunk(a);
	if (a->wib)
		q->bitmap_dirty = stria_bitmap_dirty(a);
}

static int stria_query_fill(struct stria_array *a, struct stria_ioc_query *q)
{
	struct blk_mq_queue_map *qmap = &a->tag_set.map[HCTX_TYPE_DEFAULT];
	struct stria_ioc_member __user *um = u64_to_user_ptr(q->members);
	u32 __user *ucpu = u64_to_user_ptr(q->cpu_map);
	struct stria_ioc_member m;
	u32 i, n;
	int ret = 0;

	q->index = a->index;
	q->level = a->geom.level;
	strscpy(q->name, a->name, sizeof(q->name));
	memcpy(q->uuid, a->uuid, sizeof(q->uuid));
	q->chunk_sectors = 1U << a->geom.chunk_shift;
	q->nr_members = a->nr_members;
	q->state = stria_array_state(a);
	q->layout = a->geom.level ? a->geom.layout : STRIA_PARITY_NONE;
	q->nr_failed = atomic_read(&a->nr_failed);
	q->numa_node = a->node == NUMA_NO_NODE ? STRIA_NODE_AUTO : a->node;
	q->array_sectors = stria_geom_array_sectors(&a->geom);
	q->data_offset = a->data_offset;
	q->member_sectors = a->geom.member_sectors;
	q->events = READ_ONCE(a->events);
	q->array_flags = READ_ONCE(a->readonly) ? STRIA_QUERY_A_READONLY : 0;
	q->nr_cpus = nr_cpu_ids;
	/*
	 * The queues reads and writes map to; not the poll queues. None for
	 * a bio-based array (RAID0), whose I/O goes to the members' queues.
	 */
	q->nr_hw_queues = stria_bio_based(a) ? 0 : qmap->nr_queues;
	/*
	 * The member table changes under cfg_lock (spares, removal); killable
	 * (stria_cfg_lock()), so a status or a monitor's poll waiting behind
	 * slow superblock writes can be ended.
	 */
	if (stria_cfg_lock(a, NULL))
		return -EINTR;
	stria_query_sync(a, q);
	n = a->nr_members + a->nr_spares;
	if (a->repl_role != STRIA_NO_MEMBER)
		q->nr_spares++;
	for (i = 0; um && i < n + (q->nr_spares - a->nr_spares) &&
	     i < q->members_cap; i++) {
		if (i < a->nr_members)
			stria_query_member(&a->members[i], &m);
		else if (i < n)
			stria_query_member(&a->spares[i - a->nr_members], &m);
		else
			stria_query_member(&a->repl, &m);
		if (i >= n)
			m.role = a->repl_role;
		if (copy_to_user(um + i, &m, sizeof(m))) {
			ret = -EFAULT;
			break;
		}
	}
	mutex_unlock(&a->cfg_lock);
	if (ret)
		return ret;
	for (i = 0; ucpu && q->nr_hw_queues && i < nr_cpu_ids &&
	     i < q->cpu_map_cap; i++)
		if (put_user(qmap->mq_map[i], ucpu + i))
			return -EFAULT;
	return 0;
}

static long stria_ioc_query(void __user *argp)
{
	struct stria_ioc_query q;
	struct stria_array *a;
	u32 usize;
	int ret;

	ret = stria_copy_in(&q, sizeof(q), argp);
	if (ret)
		return ret;
	usize = q.size;
	if ((q.flags & ~STRIA_QUERY_F_NEXT) || q.array_flags || q.reserved0)
		return -EINVAL;
	if (q.name[0] && !stria_name_valid(q.name))
		return -EINVAL;
	if (q.members_cap > STRIA_GEOM_MAX_MEMBERS + STRIA_MAX_SPARES ||
	    q.cpu_map_cap > 65536 ||
	    (q.members_cap && !q.members) || (q.cpu_map_cap && !q.cpu_map))
		return -EINVAL;
	ret = stria_lock(NULL);
	if (ret)
		return ret;
	a = stria_array_find(q.name, q.index, q.flags & STRIA_QUERY_F_NEXT);
	ret = a ? stria_query_fill(a, &q) : -ENOENT;
	mutex_unlock(&stria_arrays_lock);
	if (ret)
		return ret;
	q.size = min_t(u32, usize, sizeof(q));
	if (copy_to_user(argp, &q, q.size))
		return -EFAULT;
	return 0;
}

/* Does @major:@minor fit a dev_t? Else fills @msg (STRIA_MSG_LEN). */
static bool stria_devnum_ok(u32 major, u32 minor, char *msg)
{
	if (MAJOR(MKDEV(major, minor)) == major &&
	    MINOR(MKDEV(major, minor)) == minor)
		return true;
	snprintf(msg, STRIA_MSG_LEN, "invalid device number %u:%u", major,
		 minor);
	return false;
}

/* Carry out a checked STRIA_IOC_MEMBER request. */
static int stria_member_op(struct stria_array *a,
			   struct stria_ioc_member_op *req)
{
	dev_t dev = MKDEV(req->major, req->minor);
	bool readd;
	int ret;

	switch (req->op) {
	case STRIA_MEMBER_OP_ADD:
		ret = stria_array_add_spare(a, dev,
					    req->flags & STRIA_MEMBER_F_GROW,
					    req->msg, &req->role, &readd);
		if (!ret && readd)
			req->result |= STRIA_MEMBER_R_READD;
		return ret;
	case STRIA_MEMBER_OP_REMOVE:
		return stria_array_remove(a, dev, req->msg, &req->role);
	case STRIA_MEMBER_OP_REPLACE:
		return stria_array_replace(a, dev,
					   MKDEV(req->with_major,
						 req->with_minor),
					   req->msg, &req->role);
	default:
		return stria_array_fail_member(a, dev,
					       req->flags & STRIA_MEMBER_F_FORCE,
					       req->msg, &req->role);
	}
}

static long stria_ioc_member(void __user *argp)
{
	struct stria_ioc_member_op req;
	struct stria_array *a;
	u32 usize;
	int ret;

	ret = stria_copy_in(&req, sizeof(req), argp);
	if (ret)
		return ret;
	usize = req.size;
	ret = -EINVAL;
	if (req.flags & ~(STRIA_MEMBER_F_FORCE | STRIA_MEMBER_F_GROW)) {
		snprintf(req.msg, sizeof(req.msg), "unknown flags 0x%x", req.flags);
		goto out;
	}
	if (req.result || req.role || req.events ||
	    memchr_inv(req.reserved, 0, sizeof(req.reserved)) ||
	    memchr_inv(req.msg, 0, sizeof(req.msg))) {
		snprintf(req.msg, sizeof(req.msg), "reserved and output fields must be zero");
		goto out;
	}
	if (req.op != STRIA_MEMBER_OP_FAIL && req.op != STRIA_MEMBER_OP_ADD &&
	    req.op != STRIA_MEMBER_OP_REMOVE &&
	    req.op != STRIA_MEMBER_OP_REPLACE) {
		snprintf(req.msg, sizeof(req.msg), "unknown member operation %u", req.op);
		goto out;
	}
	if ((req.op != STRIA_MEMBER_OP_FAIL && (req.flags & STRIA_MEMBER_F_FORCE)) ||
	    (req.op != STRIA_MEMBER_OP_ADD && (req.flags & STRIA_MEMBER_F_GROW))) {
		snprintf(req.msg, sizeof(req.msg), "force is for the fail operation only, grow for add");
		goto out;
	}
	if (req.op != STRIA_MEMBER_OP_REPLACE &&
	    (req.with_major || req.with_minor)) {
		snprintf(req.msg, sizeof(req.msg), "a second device is for the replace operation only");
		goto out;
	}
	if (req.name[0] && !stria_name_valid(req.name)) {
		snprintf(req.msg, sizeof(req.msg), "invalid array name");
		goto out;
	}
	if (!stria_devnum_ok(req.major, req.minor, req.msg) ||
	    !stria_devnum_ok(req.with_major, req.with_minor, req.msg))
		goto out;
	ret = stria_lock(req.msg);
	if (ret)
		goto out;
	a = stria_running(req.name, req.index, req.msg);
	if (!a) {
		ret = -ENOENT;
	} else if (stria_array_refuse_ro(a, req.msg)) {
		ret = -EROFS;
	} else {
		ret = stria_member_op(a, &req);
		req.events = READ_ONCE(a->events);
	}
	mutex_unlock(&stria_arrays_lock);
out:
	return stria_copy_back(argp, &req, usize, sizeof(req), ret);
}

static long stria_ioc_sync(void __user *argp)
{
	struct stria_ioc_sync req;
	struct stria_array *a;
	u32 usize;
	int ret;

	ret = stria_copy_in(&req, sizeof(req), argp);
	if (ret)
		return ret;
	usize = req.size;
	ret = -EINVAL;
	if (req.flags & ~STRIA_SYNC_F_RANGE) {
		snprintf(req.msg, sizeof(req.msg), "unknown flags 0x%x", req.flags);
		goto out;
	}
	if (memchr_inv(req.reserved, 0, sizeof(req.reserved)) ||
	    memchr_inv(req.msg, 0, sizeof(req.msg))) {
		snprintf(req.msg, sizeof(req.msg), "reserved and output fields must be zero");
		goto out;
	}
	if (req.action != STRIA_SYNC_CHECK && req.action != STRIA_SYNC_REPAIR &&
	    req.action != STRIA_SYNC_IDLE) {
		snprintf(req.msg, sizeof(req.msg), "sync action %u cannot be requested (check %u, repair %u, idle %u)",
			 req.action, STRIA_SYNC_CHECK, STRIA_SYNC_REPAIR,
			 STRIA_SYNC_IDLE);
		goto out;
	}
	if (req.flags & STRIA_SYNC_F_RANGE ? !req.nr_stripes || req.action == STRIA_SYNC_IDLE :
	    req.first_stripe || req.nr_stripes) {
		snprintf(req.msg, sizeof(req.msg), "a range needs STRIA_SYNC_F_RANGE, a scrub and at least one stripe");
		goto out;
	}
	if (req.name[0] && !stria_name_valid(req.name)) {
		snprintf(req.msg, sizeof(req.msg), "invalid array name");
		goto out;
	}
	ret = stria_lock(req.msg);
	if (ret)
		goto out;
	a = stria_running(req.name, req.index, req.msg);
	if (!a) {
		ret = -ENOENT;
	} else if (req.action == STRIA_SYNC_IDLE) {
		ret = stria_sync_stop(a, false, req.msg);
	} else if (stria_array_refuse_ro(a, req.msg)) {
		ret = -EROFS;
	} else {
		ret = stria_sync_scrub(a, req.action, req.first_stripe,
				       &req.nr_stripes, req.msg);
	}
	mutex_unlock(&stria_arrays_lock);
out:
	return stria_copy_back(argp, &req, usize, sizeof(req), ret);
}

static long stria_ioc_mode(void __user *argp)
{
	struct stria_ioc_mode req;
	struct stria_array *a;
	u32 usize;
	int ret;

	ret = stria_copy_in(&req, sizeof(req), argp);
	if (ret)
		return ret;
	usize = req.size;
	ret = -EINVAL;
	if (req.flags & ~STRIA_MODE_F_FORCE) {
		snprintf(req.msg, sizeof(req.msg), "unknown flags 0x%x", req.flags);
		goto out;
	}
	if (req.events || memchr_inv(req.reserved, 0, sizeof(req.reserved)) ||
	    memchr_inv(req.msg, 0, sizeof(req.msg))) {
		snprintf(req.msg, sizeof(req.msg), "reserved and output fields must be zero");
		goto out;
	}
	if (req.mode != STRIA_MODE_READWRITE) {
		snprintf(req.msg, sizeof(req.msg), "mode %u cannot be requested (read-write %u)",
			 req.mode, STRIA_MODE_READWRITE);
		goto out;
	}
	if (req.name[0] && !stria_name_valid(req.name)) {
		snprintf(req.msg, sizeof(req.msg), "invalid array name");
		goto out;
	}
	ret = stria_lock(req.msg);
	if (ret)
		goto out;
	a = stria_running(req.name, req.index, req.msg);
	if (!a) {
		ret = -ENOENT;
	} else {
		ret = stria_array_readwrite(a, req.flags & STRIA_MODE_F_FORCE,
					    req.msg);
		req.events = READ_ONCE(a->events);
	}
	mutex_unlock(&stria_arrays_lock);
out:
	return stria_copy_back(argp, &req, usize, sizeof(req), ret);
}

/* Carry out a checked STRIA_IOC_GROW request. */
static int stria_grow_op(struct stria_array *a, struct stria_ioc_grow *req)
{
	bool check = req->flags & STRIA_GROW_F_CHECK;

	switch (req->op) {
	case STRIA_GROW_MEMBERS:
		return stria_array_grow_members(a, req->nr_members, check,
						req->msg);
	case STRIA_GROW_BITMAP:
		return stria_array_grow_bitmap(a, req->bitmap,
					       req->bitmap_chunk, check,
					       req->msg);
	default:
		return stria_array_grow_size(a, &req->member_sectors, check,
					     req->msg);
	}
}

static long stria_ioc_grow(void __user *argp)
{
	struct stria_ioc_grow req;
	struct stria_array *a;
	u32 usize;
	int ret;

	ret = stria_copy_in(&req, sizeof(req), argp);
	if (ret)
		return ret;
	usize = req.size;
	ret = -EINVAL;
	if (req.flags & ~STRIA_GROW_F_CHECK) {
		snprintf(req.msg, sizeof(req.msg), "unknown flags 0x%x", req.flags);
		goto out;
	}
	if (req.events || req.reserved0 ||
	    memchr_inv(req.reserved, 0, sizeof(req.reserved)) ||
	    memchr_inv(req.msg, 0, sizeof(req.msg))) {
		snprintf(req.msg, sizeof(req.msg), "reserved and output fields must be zero");
		goto out;
	}
	if (req.op < STRIA_GROW_MEMBERS || req.op > STRIA_GROW_SIZE) {
		snprintf(req.msg, sizeof(req.msg), "grow operation %u cannot be requested (members %u, bitmap %u, size %u)",
			 req.op, STRIA_GROW_MEMBERS, STRIA_GROW_BITMAP,
			 STRIA_GROW_SIZE);
		goto out;
	}
	if ((req.op != STRIA_GROW_MEMBERS && req.nr_members) ||
	    (req.op != STRIA_GROW_BITMAP && (req.bitmap || req.bitmap_chunk)) ||
	    (req.op != STRIA_GROW_SIZE && req.member_sectors) ||
	    req.bitmap > STRIA_GROW_BITMAP_INTERNAL ||
	    (req.bitmap == STRIA_GROW_BITMAP_NONE && req.bitmap_chunk)) {
		snprintf(req.msg, sizeof(req.msg), "fields of another grow operation set, or bitmap %u unknown (none %u, internal %u)",
			 req.bitmap, STRIA_GROW_BITMAP_NONE,
			 STRIA_GROW_BITMAP_INTERNAL);
		goto out;
	}
	if (req.name[0] && !stria_name_valid(req.name)) {
		snprintf(req.msg, sizeof(req.msg), "invalid array name");
		goto out;
	}
	ret = stria_lock(req.msg);
	if (ret)
		goto out;
	a = stria_running(req.name, req.index, req.msg);
	if (!a) {
		ret = -ENOENT;
	} else if (stria_array_refuse_ro(a, req.msg)) {
		ret = -EROFS;
	} else {
		ret = stria_grow_op(a, &req);
		req.events = READ_ONCE(a->events);
	}
	mutex_unlock(&stria_arrays_lock);
out:
	return stria_copy_back(argp, &req, usize, sizeof(req), ret);
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
	case STRIA_IOC_CREATE:
		return stria_ioc_array(argp, false);
	case STRIA_IOC_ASSEMBLE:
		return stria_ioc_array(argp, true);
	case STRIA_IOC_STOP:
		return stria_ioc_stop(argp);
	case STRIA_IOC_QUERY:
		return stria_ioc_query(argp);
	case STRIA_IOC_MEMBER:
		return stria_ioc_member(argp);
	case STRIA_IOC_SYNC:
		return stria_ioc_sync(argp);
	case STRIA_IOC_MODE:
		return stria_ioc_mode(argp);
	case STRIA_IOC_GROW:
		return stria_ioc_grow(argp);
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
	.minor	= STRIA_CONTROL_MINOR,
	.name	= STRIA_CONTROL_NAME,
	.fops	= &stria_ctl_fops,
	.mode	= 0600,
};

/*
 * Opening /dev/stria-control (10:248) before the module is loaded loads it:
 * the kernel asks for char-major-10-248, and kmod's static-nodes creates
 * the node at boot from the devname alias (modules.devname), as for
 * /dev/mapper/control.
 */
MODULE_ALIAS_MISCDEV(STRIA_CONTROL_MINOR);
MODULE_ALIAS("devname:" STRIA_CONTROL_NAME);

int stria_ctl_init(void)
{
	int ret = misc_register(&stria_ctl_dev);

	if (ret == -EBUSY) {
		/* a local driver took our minor: work without autoload */
		pr_warn("misc minor %d is taken by another driver: /dev/%s gets a dynamic minor, and opening it no longer loads the module\n",
			STRIA_CONTROL_MINOR, STRIA_CONTROL_NAME);
		stria_ctl_dev.minor = MISC_DYNAMIC_MINOR;
		ret = misc_register(&stria_ctl_dev);
	}
	if (ret)
		pr_err("cannot register /dev/%s: %d\n", STRIA_CONTROL_NAME, ret);
	return ret;
}

void stria_ctl_exit(void)
{
	misc_deregister(&stria_ctl_dev);
}
