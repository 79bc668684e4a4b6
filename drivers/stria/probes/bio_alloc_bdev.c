// SPDX-License-Identifier: GPL-2.0
/* Linux 5.18: bio_alloc(bdev, nr_vecs, opf, gfp). */
#include <linux/bio.h>

struct bio *probe(struct block_device *bdev);
struct bio *probe(struct block_device *bdev)
{
	return bio_alloc(bdev, 1, REQ_OP_READ, GFP_NOIO);
}
