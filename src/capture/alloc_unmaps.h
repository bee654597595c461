/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record -e alloc --inuse: munmaps of part of a mapping (or of none), as
 * the kernel sent them (alloc_unmapped in alloc_inuse.h).  Its map of
 * blocks has no lookup by range, so a mapped block's bytes still in use are
 * found when user space reads it: what the unmaps of its process since it
 * was filed left of its range.  A head, a tail, pages in its middle.
 */
#ifndef STITCH_CAPTURE_ALLOC_UNMAPS_H
#define STITCH_CAPTURE_ALLOC_UNMAPS_H

#include <stddef.h>
#include <stdint.h>

/*
 * Unmaps kept at most: past them the oldest half goes (counted in dropped,
 * and said: a mapping they cut may be counted whole).
 */
#define ALLOC_UNMAPS_MAX 4096

struct alloc_unmap {
	uint32_t tgid;
	uint64_t start, end;		/* [start, end) */
	uint64_t time_ns;		/* CLOCK_MONOTONIC */
};

struct alloc_unmaps {
	struct alloc_unmap *v;		/* oldest first */
	size_t n, cap;
	uint64_t dropped;
	/*
	 * v by process and start, built again at the first read after a
	 * change: a read of every mapped block (thousands, a busy Python
	 * process's arenas) looks up each in O(log n), not O(n).
	 */
	struct alloc_unmap *by_addr;
	size_t by_addr_cap;
	uint64_t longest;		/* the longest unmap's length */
	int by_addr_stale;
};

/* Process tgid unmapped [addr, addr + len) at time_ns. */
void alloc_unmaps_add(struct alloc_unmaps *u, uint32_t tgid, uint64_t addr, uint64_t len,
		      uint64_t time_ns);

/*
 * What is left of tgid's block [addr, addr + size), filed at time_ns,
 * after the unmaps since: its bytes (size, if none cut it).
 */
uint64_t alloc_unmaps_left(struct alloc_unmaps *u, uint32_t tgid, uint64_t addr,
			   uint64_t size, uint64_t time_ns);

/* The unmaps before before_ns go: no block they could cut is left. */
void alloc_unmaps_prune(struct alloc_unmaps *u, uint64_t before_ns);

void alloc_unmaps_free(struct alloc_unmaps *u);

#endif /* STITCH_CAPTURE_ALLOC_UNMAPS_H */
