/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a fuzzer's input as little-endian fields, zero-padded when the
 * input is shorter than its fields (so every input, even an empty one, is
 * a complete set of values).
 */
#ifndef _STRIA_FUZZ_INPUT_H
#define _STRIA_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>

/* The next @n bytes (at most 8) of the input as a little-endian value. */
static inline uint64_t take(const uint8_t **p, size_t *left, size_t n)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (i < *left)
			v |= (uint64_t)(*p)[i] << (8 * i);
	*p += n < *left ? n : *left;
	*left -= n < *left ? n : *left;
	return v;
}

#endif /* _STRIA_FUZZ_INPUT_H */
