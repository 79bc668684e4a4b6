// SPDX-License-Identifier: GPL-2.0
/*
 * striactl scrub --range (tools/striactl/stripe_range.h): array byte
 * ranges rounded out to whole stripes, cut at the array's end, and the
 * ranges that are refused. Checked against a brute-force walk over every
 * byte offset that matters of small arrays. TAP output on stdout.
 */
#include <stdint.h>
#include <stdio.h>

#include "../../tools/striactl/stripe_range.h"
#include "tap.h"

/* The stripes a byte range touches, by walking them. */
static int brute(uint64_t start, uint64_t end, uint64_t sb, uint64_t n,
		 uint64_t *first, uint64_t *nr)
{
	uint64_t s, lo = UINT64_MAX, hi = 0;

	if (end > n * sb)
		end = n * sb;
	if (start >= end)
		return -1;
	for (s = 0; s < n; s++) {
		if (s * sb < end && (s + 1) * sb > start) {
			if (lo == UINT64_MAX)
				lo = s;
			hi = s + 1;
		}
	}
	if (lo == UINT64_MAX)
		return -1;
	*first = lo;
	*nr = hi - lo;
	return 0;
}

int main(void)
{
	/* 3 data members x 64 KiB chunks, 10 stripes */
	const uint64_t sb = 3 * 65536, n = 10, size = n * sb;
	struct stripe_range r;
	uint64_t start, end, f = 0, k = 0;
	unsigned int bad = 0, cases = 0;

	printf("TAP version 13\n");
	tap(!stripe_range(0, 1048576, size, sb, n, &r) && r.first == 0 &&
	    r.nr == 6 && r.end == 6 * sb && r.rounded,
	    "0-1M on 192 KiB stripes: stripes 0..5, rounded up to 1152 KiB");
	tap(!stripe_range(sb, 3 * sb, size, sb, n, &r) && r.first == 1 &&
	    r.nr == 2 && !r.rounded, "an exact stripe range is not rounded");
	tap(!stripe_range(sb + 1, 2 * sb - 1, size, sb, n, &r) &&
	    r.first == 1 && r.nr == 1 && r.rounded,
	    "inside one stripe: that stripe");
	tap(!stripe_range(5 * sb, UINT64_MAX, size, sb, n, &r) &&
	    r.first == 5 && r.nr == 5 && !r.rounded,
	    "an open end goes to the end of the array");
	tap(!stripe_range(0, size + 12345, size, sb, n, &r) && r.nr == n &&
	    r.end == size, "an end past the array is cut there");
	tap(stripe_range(size, size + 1, size, sb, n, &r) == -1,
	    "a range starting at the end is refused");
	tap(stripe_range(4096, 4096, size, sb, n, &r) == -1,
	    "an empty range is refused");
	tap(stripe_range(0, 4096, size, 0, n, &r) == -1,
	    "a zero stripe size is refused");
	for (start = 0; start < size + sb; start += 4096 * 7) {
		for (end = start; end < size + sb; end += 4096 * 11) {
			int want = brute(start, end, sb, n, &f, &k);
			int got = stripe_range(start, end, size, sb, n, &r);

			cases++;
			if (want != got || (!got && (r.first != f || r.nr != k ||
						     r.start > start ||
						     r.end < (end < size ? end : size))))
				bad++;
		}
	}
	tap(!bad, "%u of %u ranges agree with a walk over the stripes", cases - bad,
	    cases);
	return tap_exit_code();
}
