/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The integer types, 64-bit division and static_assert that geom.h needs,
 * from the kernel or from the C library, so the same geometry code builds in
 * stria.ko and in the user-space tests (as lib/raid6's pq.h does).
 */
#ifndef _STRIA_GEOM_TYPES_H
#define _STRIA_GEOM_TYPES_H

#ifdef __KERNEL__
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/math64.h>
#include <linux/types.h>
#else
#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
typedef uint64_t u64;
typedef uint32_t u32;

static inline u64 div_u64_rem(u64 dividend, u32 divisor, u32 *remainder)
{
	*remainder = (u32)(dividend % divisor);
	return dividend / divisor;
}
#endif

#endif /* _STRIA_GEOM_TYPES_H */
