// SPDX-License-Identifier: GPL-2.0
/* Linux 6.0: request operations and flags have their own type, blk_opf_t. */
#include <linux/blk_types.h>

blk_opf_t probe(void);
blk_opf_t probe(void)
{
	return REQ_OP_WRITE | REQ_FUA;
}
