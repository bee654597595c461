/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Growable arrays: a pointer, a count and a capacity kept by the caller;
 * this only makes room, and finds a place in a sorted one.  Header-only so
 * that lib/stall, which links the unwinding core and nothing else, can use
 * it too.
 */
#ifndef STITCH_UTIL_ARRAY_H
#define STITCH_UTIL_ARRAY_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * Make room for need elements of elem bytes in *arr, whose capacity is *cap
 * elements: the capacity doubles (from first) until need fits, so n appends
 * cost O(n).  0, or -ENOMEM with *arr and *cap unchanged.
 */
static inline int array_reserve(void **arr, size_t *cap, size_t need, size_t elem, size_t first)
{
	size_t ncap;
	void *n;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap : first;
	while (ncap < need)
		ncap *= 2;
	n = reallocarray(*arr, ncap, elem);
	if (!n)
		return -ENOMEM;
	*arr = n;
	*cap = ncap;
	return 0;
}

/*
 * n elements of elem bytes, sorted by the uint64_t at byte off of each: the
 * index of the first whose value is above key (n if none), by halving.
 */
static inline size_t array_first_above(const void *arr, size_t n, size_t elem, size_t off,
				       uint64_t key)
{
	const unsigned char *a = arr;
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t v;

		memcpy(&v, a + mid * elem + off, sizeof(v));
		if (v <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#endif /* STITCH_UTIL_ARRAY_H */
