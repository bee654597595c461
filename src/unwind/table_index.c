// SPDX-License-Identifier: GPL-2.0
/*
 * An unwind table's index by address: see unwind_table_index() in cfi.h.
 *
 * Why: the user-space walk of copied stacks looks a row up for every frame,
 * and the agent does it rarely enough that the table is out of the cache
 * each time.  A binary search of cc1's 478,579 rows (5.7 MB) is a cache
 * miss a step, ~19 of them: 80 of 1,093 samples of the agent over a build's
 * churn (7%) were that search.  With the rows of each 4 KiB of text found
 * first (cc1: ~98 rows a bucket, 5,000 buckets, 20 KB), the search is one
 * miss in the index and a few in a kilobyte of rows.
 */
#include <errno.h>
#include <stdlib.h>

#include "unwind/cfi.h"

/* Buckets at most one per this many rows: the index stays a small part of the table. */
#define INDEX_ROWS_PER_BUCKET	8
#define INDEX_MIN_SHIFT		12

int unwind_table_index(struct unwind_table *t)
{
	uint64_t base, span, start;
	uint32_t *first, k, n;
	size_t i = 0;
	uint8_t shift = INDEX_MIN_SHIFT;

	unwind_table_unindex(t);
	if (t->nr < 2 * INDEX_ROWS_PER_BUCKET || t->nr > UINT32_MAX)
		return 0;	/* a few rows: the whole search is as short */
	base = t->rows[0].pc;
	span = (uint64_t)t->rows[t->nr - 1].pc - base;
	while ((span >> shift) + 1 > t->nr / INDEX_ROWS_PER_BUCKET)
		shift++;
	n = (uint32_t)(span >> shift) + 1;
	first = malloc(((size_t)n + 1) * sizeof(*first));
	if (!first)
		return -ENOMEM;
	for (k = 0; k < n; k++) {
		start = base + ((uint64_t)k << shift);
		while (i + 1 < t->nr && t->rows[i + 1].pc <= start)
			i++;
		first[k] = (uint32_t)i;
	}
	first[n] = (uint32_t)(t->nr - 1);
	t->first = first;
	t->nbuckets = n;
	t->shift = shift;
	return 0;
}
