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
		u->by_addr_stale = 1;
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
	u->by_addr_stale = 1;
	u->v[u->n++] = (struct alloc_unmap){
		.tgid = tgid,
		.start = addr,
		.end = addr + len < addr ? UINT64_MAX : addr + len,
		.time_ns = time_ns,
	};
}

static int by_tgid_start(const void *a, const void *b)
{
	const struct alloc_unmap *x = a, *y = b;

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* u->by_addr as u->v is now: 0, or -1 without memory for it. */
static int index_by_addr(struct alloc_unmaps *u)
{
	struct alloc_unmap *more;
	size_t i;

	if (!u->by_addr_stale)
		return 0;
	if (u->by_addr_cap < u->n) {
		more = realloc(u->by_addr, u->cap * sizeof(*more));
		if (!more)
			return -1;
		u->by_addr = more;
		u->by_addr_cap = u->cap;
	}
	u->longest = 0;
	for (i = 0; i < u->n; i++)
		if (u->v[i].end - u->v[i].start > u->longest)
			u->longest = u->v[i].end - u->v[i].start;
	if (u->n) {
		memcpy(u->by_addr, u->v, u->n * sizeof(*u->v));
		qsort(u->by_addr, u->n, sizeof(*u->v), by_tgid_start);
	}
	u->by_addr_stale = 0;
	return 0;
}

/* The first of tgid's unmaps that could reach addr: none starts longest before it. */
static size_t first_reaching(const struct alloc_unmaps *u, uint32_t tgid, uint64_t addr)
{
	uint64_t from = addr > u->longest ? addr - u->longest : 0;
	size_t lo = 0, hi = u->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (u->by_addr[mid].tgid < tgid ||
		    (u->by_addr[mid].tgid == tgid && u->by_addr[mid].start < from))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint64_t alloc_unmaps_left(struct alloc_unmaps *u, uint32_t tgid, uint64_t addr,
			   uint64_t size, uint64_t time_ns)
{
	uint64_t end = addr + size < addr ? UINT64_MAX : addr + size, cut = 0, at = addr;
	size_t i;

	if (!u->n)
		return size;
	if (index_by_addr(u))
		return size;	/* counted whole: as if not cut */
	/* In order of their starts: the cut ranges, overlaps counted once. */
	for (i = first_reaching(u, tgid, addr);
	     i < u->n && u->by_addr[i].tgid == tgid && u->by_addr[i].start < end; i++) {
		const struct alloc_unmap *m = &u->by_addr[i];
		uint64_t from = m->start > at ? m->start : at, to = m->end < end ? m->end : end;

		if (m->time_ns < time_ns || m->end <= addr)
			continue;
		if (to > from) {
			cut += to - from;
			at = to;
		}
	}
	return size - cut;
}

void alloc_unmaps_prune(struct alloc_unmaps *u, uint64_t before_ns)
{
	size_t i, keep = 0;

	for (i = 0; i < u->n; i++)
		if (u->v[i].time_ns >= before_ns)
			u->v[keep++] = u->v[i];
	u->by_addr_stale |= keep != u->n;
	u->n = keep;
}

void alloc_unmaps_free(struct alloc_unmaps *u)
{
	free(u->v);
	free(u->by_addr);
	memset(u, 0, sizeof(*u));
}
