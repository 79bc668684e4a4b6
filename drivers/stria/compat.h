/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stria: kernel API differences, and nothing else.
 *
 * Every wrapper below is chosen by a compile-test probe
 * (drivers/stria/probes/, run by scripts/probe-kernel into
 * compat_probes.h), never by LINUX_VERSION_CODE: distribution kernels
 * backport APIs. Each wrapper lists the history of the API it hides and ends
 * in #error when no known variant is present, so a new kernel fails loudly
 * at build time instead of doing the wrong thing at run time.
 *
 * Supported: 5.14 (RHEL 9) to current; tested on Debian's 6.1.
 */
#ifndef _STRIA_COMPAT_H
#define _STRIA_COMPAT_H

#include <linux/bio.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/err.h>
#include <compat_probes.h>

/*
 * blk_mq_alloc_disk():
 *   5.14: blk_mq_alloc_disk(set, queuedata)
 *   6.9:  blk_mq_alloc_disk(set, lim, queuedata)
 */
static inline struct gendisk *stria_alloc_disk(struct blk_mq_tag_set *set,
					       void *queuedata)
{
#if defined(STRIA_HAVE_BLK_MQ_ALLOC_DISK_LIMITS)
	return blk_mq_alloc_disk(set, NULL, queuedata);
#else
	return blk_mq_alloc_disk(set, queuedata);
#endif
}

/*
 * blk_mq_ops.map_queues:
 *   5.14: int (*)(struct blk_mq_tag_set *)
 *   6.1:  void (*)(struct blk_mq_tag_set *)
 * STRIA_MAP_QUEUES_RET is the return type, STRIA_MAP_QUEUES_DONE the
 * statement that ends such a function.
 */
#if defined(STRIA_HAVE_MAP_QUEUES_VOID)
#define STRIA_MAP_QUEUES_RET	void
#define STRIA_MAP_QUEUES_DONE	return
#else
#define STRIA_MAP_QUEUES_RET	int
#define STRIA_MAP_QUEUES_DONE	return 0
#endif

/*
 * bio_alloc():
 *   <5.18: bio_alloc(gfp, nr_vecs), then bio_set_dev() and bi_opf
 *   5.18:  bio_alloc(bdev, nr_vecs, opf, gfp)
 */
static inline struct bio *stria_bio_alloc(struct block_device *bdev,
					  unsigned short nr_vecs,
					  unsigned int opf, gfp_t gfp)
{
#if defined(STRIA_HAVE_BIO_ALLOC_BDEV)
	return bio_alloc(bdev, nr_vecs, opf, gfp);
#else
	struct bio *bio = bio_alloc(gfp, nr_vecs);

	if (bio) {
		bio_set_dev(bio, bdev);
		bio->bi_opf = opf;
	}
	return bio;
#endif
}

/**
 * struct stria_bdev - an exclusively opened member device
 * @bdev: the block device
 * @handle: what the open returned, for the matching close
 */
struct stria_bdev {
	struct block_device *bdev;
	void *handle;
};

/*
 * Opening a member read-write and exclusively:
 *   <6.5: blkdev_get_by_path(path, FMODE_READ|FMODE_WRITE|FMODE_EXCL, holder)
 *         / blkdev_put(bdev, mode)
 *   6.5:  blkdev_get_by_path(path, BLK_OPEN_*, holder, hops)
 *         / blkdev_put(bdev, holder)
 *   6.7:  bdev_open_by_path() -> struct bdev_handle / bdev_release()
 *   6.9:  bdev_file_open_by_path() -> struct file / fput()
 * Returns 0 or a negative errno (-EBUSY when another holder has it).
 */
static inline int stria_bdev_open(const char *path, void *holder,
				  struct stria_bdev *m)
{
#if defined(STRIA_HAVE_BDEV_FILE_OPEN_BY_PATH)
	struct file *f = bdev_file_open_by_path(path, BLK_OPEN_READ |
						BLK_OPEN_WRITE, holder, NULL);

	if (IS_ERR(f))
		return PTR_ERR(f);
	m->handle = f;
	m->bdev = file_bdev(f);
#elif defined(STRIA_HAVE_BDEV_OPEN_BY_PATH)
	struct bdev_handle *h = bdev_open_by_path(path, BLK_OPEN_READ |
						  BLK_OPEN_WRITE, holder, NULL);

	if (IS_ERR(h))
		return PTR_ERR(h);
	m->handle = h;
	m->bdev = h->bdev;
#elif defined(STRIA_HAVE_BLKDEV_GET_BY_PATH_HOPS)
	struct block_device *b = blkdev_get_by_path(path, BLK_OPEN_READ |
						    BLK_OPEN_WRITE, holder,
						    NULL);

	if (IS_ERR(b))
		return PTR_ERR(b);
	m->handle = holder;
	m->bdev = b;
#elif defined(STRIA_HAVE_BLKDEV_GET_BY_PATH_FMODE)
	struct block_device *b = blkdev_get_by_path(path, FMODE_READ |
						    FMODE_WRITE | FMODE_EXCL,
						    holder);

	if (IS_ERR(b))
		return PTR_ERR(b);
	m->handle = holder;
	m->bdev = b;
#else
#error "Unsupported kernel: no known way to open a block device by path"
#endif
	return 0;
}

static inline void stria_bdev_close(struct stria_bdev *m)
{
#if defined(STRIA_HAVE_BDEV_FILE_OPEN_BY_PATH)
	fput(m->handle);
#elif defined(STRIA_HAVE_BDEV_OPEN_BY_PATH)
	bdev_release(m->handle);
#elif defined(STRIA_HAVE_BLKDEV_GET_BY_PATH_HOPS)
	blkdev_put(m->bdev, m->handle);
#else
	blkdev_put(m->bdev, FMODE_READ | FMODE_WRITE | FMODE_EXCL);
#endif
	m->bdev = NULL;
	m->handle = NULL;
}

#endif /* _STRIA_COMPAT_H */
