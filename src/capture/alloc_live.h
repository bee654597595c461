/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record -e alloc --inuse, user side (see alloc_inuse.h): each tracked
 * block's stack, by its number, from its sample until its free; at the
 * end, the blocks the kernel still holds, weighed onto those stacks.
 */
#ifndef STITCH_CAPTURE_ALLOC_LIVE_H
#define STITCH_CAPTURE_ALLOC_LIVE_H

#include <stdint.h>

#include "capture/alloc_leaves.h"
#include "capture/alloc_unmaps.h"
#include "profile/stacks.h"
#include "util/hashmap.h"

struct alloc_live {
	struct hmap blocks;		/* block number -> its stack in keys */
	/* the blocks' stacks, each kept once, counting its blocks (gone at 0) */
	struct stack_table keys;
	uint32_t reads;			/* of a live map (alloc_live_end.live) */
	struct alloc_unmaps unmaps;	/* munmaps of parts of mappings (RING_ALLOC_UNMAPPED) */
	uint64_t oldest_mapped_ns;	/* a live read's oldest mapping: older unmaps go */
};

/* What the end found in the kernel's blocks (alloc_live_report). */
struct alloc_inuse_totals {
	uint64_t blocks, bytes;			/* in use, on their stacks */
	uint64_t young_blocks, young_bytes;	/* younger than --min-age: left out */
	uint64_t unnamed_blocks, unnamed_bytes;	/* their stack never came (ring full) */
	uint64_t gone_blocks, gone_bytes;	/* their process exec'd or exited since */
	uint64_t cut_blocks, cut_bytes;		/* mappings munmap took part of: what went */
};

/* What alloc_live_report reads: the kernel's maps, and the recording's end. */
struct alloc_live_end {
	int live_fd;			/* alloc_live: alloc_inuse.h's keys and values */
	int gone_fd;			/* alloc_gone: when processes' memory went */
	uint64_t now_ns;		/* the end, CLOCK_MONOTONIC */
	uint64_t min_age_ns;		/* younger blocks left out */
	/*
	 * The processes whose exit ended the recording (-p's, a COMMAND):
	 * what they held as they exited is what they leaked, kept.  Another
	 * process's exit took its blocks with it.
	 */
	const uint32_t *ending;
	int nending;
	/*
	 * The map is live (an agent's period): read it in batches, which
	 * concurrent frees cannot send back to its start, and take the
	 * blocks of processes gone out of it and out of t for good.
	 */
	bool live;
	/* the allocators' own mmap and sbrk, left out (their bytes are their malloc's) */
	const struct alloc_leaves *leaves;
};

int alloc_live_init(struct alloc_live *t);
void alloc_live_free(struct alloc_live *t);

/*
 * Block number block's stack (copied, or shared with an equal one), and the
 * allocations it stands for (capture/alloc.h's objects); 0 or -ENOMEM.
 */
int alloc_live_hold(struct alloc_live *t, uint64_t block, uint64_t objects,
		    const struct stack_key *key, uint32_t key_bytes);

/* The block was freed: its number is forgotten (an unknown number: nothing). */
void alloc_live_freed(struct alloc_live *t, uint64_t block);

/*
 * The blocks still in the kernel's map that are at least e->min_age_ns old
 * at e->now_ns and whose process's memory did not go since (exec, or an
 * exit other than e->ending's), each block's bytes added to its stack in
 * out (and the allocations it stands for to the stack's objects).  A
 * mapping counts what t->unmaps left of it (none left: not in use).  0,
 * or -errno.
 */
int alloc_live_report(struct alloc_live *t, const struct alloc_live_end *e,
		      struct stack_table *out, struct alloc_inuse_totals *tot);

#endif /* STITCH_CAPTURE_ALLOC_LIVE_H */
