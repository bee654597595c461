/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Aggregation of unwound stacks.  A stack is counted by its identity
 * (process, thread, comm, event, kernel addresses, user frames as
 * binary + ELF vaddr), so symbolization happens once per distinct frame at
 * output time, even for processes that are gone by then.
 */
#ifndef STITCH_STACKS_H
#define STITCH_STACKS_H

#include <stdbool.h>
#include <stdint.h>

#include "proc/binary.h"
#include "util/hashmap.h"

/*
 * A thread's name as the kernel keeps it (TASK_COMM_LEN), the same as the
 * capture record's (capture/capture.h): a file that includes both (the
 * decoder, record/decode.c) would not compile if they differed.
 */
#define STITCH_COMM_LEN 16

enum uframe_kind {
	UFRAME_ELF,		/* bin + ELF vaddr */
	UFRAME_UNKNOWN,		/* pc in no readable module: raw address */
	UFRAME_TRUNCATED,	/* marker: the stack goes on beyond what we copied */
	UFRAME_CUT,		/* marker: the caller could not be found */
	UFRAME_INTERP,		/* interpreter frame: addr is a struct interp_name * */
	UFRAME_KERNEL,		/* waker section: a kernel return address */
	UFRAME_NAME,		/* waker section: addr is a const char * (stacks_name) */
	UFRAME_JIT,		/* JIT code named while its pid was known: addr is a const char * */
	UFRAME_UNREADABLE,	/* marker: the stack at sp could not be read at the event */
	UFRAME_VALUES,		/* --fetch's values at the event: addr is a const char *
				 * (stacks_name), profile/values_frame.h's form */
};

struct uframe {
	struct binary *bin;
	uint64_t addr;
	uint8_t kind;
	uint8_t exact;		/* addr is not a return address */
	uint8_t by_fp;		/* found by a frame-pointer step (code without CFI before it) */
	uint8_t pad[5];
};

/* A named interpreter frame, interned (interp/): a UFRAME_INTERP frame holds its address. */
struct interp_name {
	struct hmap_node node;
	uint8_t kind;			/* enum frame_kind */
	uint32_t line;			/* 0: unknown or --no-lines */
	char *file;			/* NULL: none */
	char name[];
};

struct stack_key {
	uint32_t pid, tid, event_idx;
	uint16_t nkernel, nuser;
	char comm[STITCH_COMM_LEN];
	uint16_t nwaker;	/* off-CPU --wakers: frames of who woke the thread */
	uint16_t pad[3];
	/* followed by uint64_t kernel[nkernel] (innermost first),
	 * then struct uframe user[nuser] (innermost first),
	 * then struct uframe waker[nwaker] (the waker's innermost first) */
} __attribute__((aligned(8)));	/* the 64-bit frames after it stay aligned */

struct stack {
	struct hmap_node node;
	uint64_t count;
	/* -e alloc: the allocations count stands for, in 1/ALLOC_OBJECT_ONE (capture/alloc.h) */
	uint64_t objects;
	uint32_t key_bytes;
	struct stack_key key;	/* variable length: must be last */
};

/*
 * A "kernel address" below this is no address but a tag: an off-CPU stack's
 * thread state (enum offcpu_tag, stack_tag.h), its innermost frame.  No kernel code lives
 * in the first page.
 */
#define STACK_TAG_LIMIT 4096

static inline bool stack_kernel_is_tag(uint64_t addr)
{
	return addr && addr < STACK_TAG_LIMIT;
}

static inline const uint64_t *stack_kernel(const struct stack_key *k)
{
	return (const uint64_t *)(k + 1);
}

static inline const struct uframe *stack_user(const struct stack_key *k)
{
	return (const struct uframe *)(stack_kernel(k) + k->nkernel);
}

static inline const struct uframe *stack_waker(const struct stack_key *k)
{
	return (const struct uframe *)(stack_kernel(k) + k->nkernel) + k->nuser;
}

/* A name that lives as long as the program, for UFRAME_NAME frames. */
const char *stacks_name(const char *name);

struct stack_table {
	struct hmap map;
	uint64_t total;
	struct stack **sorted;	/* filled by stacks_sort */
	size_t nsorted;
};

int stacks_init(struct stack_table *t);
void stacks_free(struct stack_table *t);
/* Count one occurrence of the stack described by key (copied if new). */
int stacks_add(struct stack_table *t, const struct stack_key *key, uint32_t key_bytes);
/* Count count occurrences at once (stacks counted in the kernel, stall reports
 * weighted by their milliseconds). */
int stacks_add_n(struct stack_table *t, const struct stack_key *key, uint32_t key_bytes,
		 uint64_t count);
/* stacks_add_n, and the table's stack for key (NULL: out of memory): it lives as long as t. */
struct stack *stacks_find_add(struct stack_table *t, const struct stack_key *key,
			      uint32_t key_bytes, uint64_t count);
/* -e alloc: add the allocations (1/ALLOC_OBJECT_ONE) that s's count stands for. */
void stack_add_objects(struct stack *s, uint64_t objects);
/* Take stack s out of t and free it (not while t is sorted). */
void stacks_remove(struct stack_table *t, struct stack *s);
/* Sort by count, descending (ties: by key bytes, for stable output). */
int stacks_sort(struct stack_table *t);

#endif /* STITCH_STACKS_H */
