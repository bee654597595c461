// SPDX-License-Identifier: GPL-2.0
/* Munmaps that cut mapped blocks, applied as they are read: see alloc_unmaps.h. */
#include <stdlib.h>
#include <string.h>

#include "capture/alloc_unmaps.h"

void alloc_unmaps_add(struct alloc_unmaps *u, uint32_t tgid, uint64_t addr, uint64_t len,
		      uint64_t time_ns)
{
	struct alloc_unmap *more;

	if (!len)
		return;
	if (u->n == ALLOC_UNMAPS_MAX) {
		size_t half = ALLOC_UNMAPS_MAX / 2;

		memmove(u->v, u->v + half, (u->n - half) * sizeof(*u->v));
		u->n -= half;
		u->dropped += half;
	}
	if (u->n == u->cap) {
		size_t cap = u->cap ? u->cap * 2 : 64;

		more = realloc(u->v, cap * sizeof(*more));
		if (!more) {
			u->dropped++;
			return;
		}
		u->v = more;
		u->cap = cap;
	}
	u->v[u->n++] = (struct alloc_unmap){
		.tgid = tgid,
		.start = addr,
		.end = addr + len < addr ? UINT64_MAX : addr + len,
		.time_ns = time_ns,
	};
}

static int by_start(const void *a, const void *b)
{
	const struct alloc_unmap *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

uint64_t alloc_unmaps_left(const struct alloc_unmaps *u, uint32_t tgid, uint64_t addr,
			   uint64_t size, uint64_t time_ns)
{
	uint64_t end = addr + size < addr ? UINT64_MAX : addr + size, cut = 0, at = addr;
	struct alloc_unmap *hits = NULL, *more;
	size_t i, n = 0, cap = 0;

	for (i = 0; i < u->n; i++) {
		const struct alloc_unmap *m = &u->v[i];

		if (m->tgid != tgid || m->time_ns < time_ns || m->end <= addr || m->start >= end)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 8;
			more = realloc(hits, cap * sizeof(*hits));
			if (!more) {
				free(hits);
				return size;	/* counted whole: as if not cut */
			}
			hits = more;
		}
		hits[n] = *m;
		hits[n].start = m->start > addr ? m->start : addr;
		hits[n].end = m->end < end ? m->end : end;
		n++;
	}
	if (!n)
		return size;
	/* The cut ranges in order, overlaps counted once. */
	qsort(hits, n, sizeof(*hits), by_start);
	for (i = 0; i < n; i++) {
		uint64_t from = hits[i].start > at ? hits[i].start : at;

		if (hits[i].end > from) {
			cut += hits[i].end - from;
			at = hits[i].end;
		}
	}
	free(hits);
	return size - cut;
}

void alloc_unmaps_prune(struct alloc_unmaps *u, uint64_t before_ns)
{
	size_t i, keep = 0;

	for (i = 0; i < u->n; i++)
		if (u->v[i].time_ns >= before_ns)
			u->v[keep++] = u->v[i];
	u->n = keep;
}

void alloc_unmaps_free(struct alloc_unmaps *u)
{
	free(u->v);
	memset(u, 0, sizeof(*u));
}
