/* SPDX-License-Identifier: GPL-2.0 */
/*
 * striactl scrub --range: array byte offsets to whole stripes. Pure, so
 * selftests/unit/test_stripe_range.c checks it.
 */
#ifndef STRIACTL_STRIPE_RANGE_H
#define STRIACTL_STRIPE_RANGE_H

#include <stdint.h>

/**
 * struct stripe_range - whole stripes covering a byte range of an array
 * @first: first stripe
 * @nr: stripes
 * @start: byte offset of @first
 * @end: byte offset after the last stripe
 * @rounded: @start or @end differ from what was asked
 */
struct stripe_range {
	uint64_t first;
	uint64_t nr;
	uint64_t start;
	uint64_t end;
	int rounded;
};

/**
 * stripe_range() - round [@start, @end) out to whole stripes
 * @start: first byte
 * @end: byte after the last, cut at @array_bytes (UINT64_MAX: the end)
 * @array_bytes: the array's capacity, @nstripes * @stripe_bytes
 * @stripe_bytes: data bytes per stripe (chunk x data members)
 * @nstripes: stripes in the array
 * @r: the result
 *
 * Return: 0, or -1 when the range is empty or starts beyond the end.
 */
static inline int stripe_range(uint64_t start, uint64_t end,
			       uint64_t array_bytes, uint64_t stripe_bytes,
			       uint64_t nstripes, struct stripe_range *r)
{
	uint64_t last;

	if (end > array_bytes)
		end = array_bytes;
	if (!stripe_bytes || start >= end)
		return -1;
	r->first = start / stripe_bytes;
	last = end / stripe_bytes + (end % stripe_bytes != 0);
	if (last > nstripes)
		last = nstripes;
	r->nr = last - r->first;
	r->start = r->first * stripe_bytes;
	r->end = last * stripe_bytes;
	r->rounded = r->start != start || r->end != end;
	return 0;
}

#endif
