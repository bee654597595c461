/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record -e alloc --inuse, user side (see alloc_inuse.h): each tracked
 * block's stack, by its number, from its sample until its free; at the
 * end, the blocks the kernel still holds, weighed onto those stacks.
 */
#ifndef STITCH_CAPTURE_ALLOC_LIVE_H
#define STITCH_CAPTURE_ALLOC_LIVE_H

#include <stdint.h>

#include "profile/stacks.h"
#include "util/hashmap.h"

struct alloc_live {
	struct hmap blocks;		/* block number -> its stack in keys */
	struct stack_table keys;	/* the blocks' stacks, each kept once */
};

/* What the end found in the kernel's blocks (alloc_live_report). */
struct alloc_inuse_totals {
	uint64_t blocks, bytes;			/* in use, on their stacks */
	uint64_t young_blocks, young_bytes;	/* younger than --min-age: left out */
	uint64_t unnamed_blocks, unnamed_bytes;	/* their stack never came (ring full) */
};

int alloc_live_init(struct alloc_live *t);
void alloc_live_free(struct alloc_live *t);

/* Block number block's stack (copied, or shared with an equal one); 0 or -ENOMEM. */
int alloc_live_hold(struct alloc_live *t, uint64_t block, const struct stack_key *key,
		    uint32_t key_bytes);

/* The block was freed: its number is forgotten (an unknown number: nothing). */
void alloc_live_freed(struct alloc_live *t, uint64_t block);

/*
 * The blocks still in the kernel's map (live_fd: alloc_inuse.h's keys and
 * values) that are at least min_age_ns old at now_ns (CLOCK_MONOTONIC),
 * each block's bytes added to its stack in out.  0, or -errno.
 */
int alloc_live_report(struct alloc_live *t, int live_fd, uint64_t now_ns, uint64_t min_age_ns,
		      struct stack_table *out, struct alloc_inuse_totals *tot);

#endif /* STITCH_CAPTURE_ALLOC_LIVE_H */
