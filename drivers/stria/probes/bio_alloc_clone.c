// SPDX-License-Identifier: GPL-2.0
/* Linux 5.18: bio_alloc_clone(bdev, src, gfp, bs) replaces bio_clone_fast(). */
#include <linux/bio.h>

struct bio *probe(struct block_device *bdev, struct bio *src, struct bio_set *bs);
struct bio *probe(struct block_device *bdev, struct bio *src, struct bio_set *bs)
{
	return bio_alloc_clone(bdev, src, GFP_NOWAIT, bs);
}
