// SPDX-License-Identifier: GPL-2.0
/*
 * Linux 5.16 to 6.3: hybrid polling (BLK_POLL_NOSLEEP keeps it out), and
 * the poll cookie carries the tag it needs.
 */
#include <linux/blkdev.h>

unsigned int probe(void);
unsigned int probe(void)
{
	return BLK_POLL_NOSLEEP;
}
