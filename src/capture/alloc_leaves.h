/* SPDX-License-Identifier: GPL-2.0 */
/*
 * -e alloc's leaves of their own: anonymous mmap, mremap and sbrk, memory
 * asked of the kernel.  glibc's malloc calls them for its own heap
 * (sysmalloc's mmap of a large block, its arenas, sbrk for the main heap,
 * realloc's mremap of a block it mapped), and so do
 * jemalloc and tcmalloc: those bytes are counted at the malloc above
 * them, and would be counted twice.  A leaf whose caller is in an
 * allocator's file is the allocator's own: its stack is dropped.  What a
 * program or its runtime maps itself (Python's object arenas, a JIT's
 * code heap) is kept, on the stack that asked.
 */
#ifndef STITCH_CAPTURE_ALLOC_LEAVES_H
#define STITCH_CAPTURE_ALLOC_LEAVES_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "profile/stacks.h"

#define ALLOC_LEAVES_MAX 64

struct alloc_leaves {
	/* the allocators' files (malloc's, jemalloc's, tcmalloc's) */
	struct { dev_t dev; ino_t ino; } files[ALLOC_LEAVES_MAX];
	int nfiles;
	/* where the leaves' probes are: their entries, by file and ELF address */
	struct { dev_t dev; ino_t ino; uint64_t vaddr; } sites[ALLOC_LEAVES_MAX];
	int nsites;
};

/* An allocator's file; false if there is no room left (its leaves are then not attached). */
bool alloc_leaves_file(struct alloc_leaves *l, dev_t dev, ino_t ino);
/* A leaf's probe at vaddr of that file; false if there is no room left. */
bool alloc_leaves_site(struct alloc_leaves *l, dev_t dev, ino_t ino, uint64_t vaddr);

/* The stack's leaf is one an allocator called (its bytes are its malloc's). */
bool alloc_leaves_inner(const struct alloc_leaves *l, const struct stack_key *k);

/* The stacks of t whose leaf an allocator called, taken out: how many. */
size_t alloc_leaves_drop_inner(const struct alloc_leaves *l, struct stack_table *t);

#endif /* STITCH_CAPTURE_ALLOC_LEAVES_H */
