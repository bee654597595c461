/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Off-CPU stacks that went to user space as samples (an interpreter's, or
 * one the kernel could not walk yet): each is held, per thread, until the
 * offcpu_weight record of its interval says what it weighs.
 */
#ifndef STITCH_CAPTURE_OFFCPU_PENDING_H
#define STITCH_CAPTURE_OFFCPU_PENDING_H

#include <stdint.h>

#include "capture/unwind_in_kernel.h"
#include "capture/offcpu.h"
#include "profile/stacks.h"
#include "util/hashmap.h"

/* Where weighed stacks go instead of a stack table (another command's hook). */
typedef void (*offcpu_sink_fn)(void *ctx, uint32_t tid, uint64_t time_ns,
			       const struct stack_key *key, uint32_t key_bytes, uint64_t ns);

struct offcpu_pending {
	struct hmap by_tid;
	uint64_t lost_weight;	/* intervals whose stack came and whose weight never did */
	uint64_t lost_stack;	/* intervals whose weight came and whose stack never did */
	offcpu_sink_fn sink;	/* NULL: offcpu_weigh counts into its stack table */
	void *sink_ctx;
	/* --wakers: where a waker's stacks are stored (set by the recorder), and scratch */
	const struct kunwind *kw;
	struct counted_fds fds;
	struct stack_key *wake_key;
	struct counted_ustack *wake_u;
};

int offcpu_pending_init(struct offcpu_pending *t);
void offcpu_pending_free(struct offcpu_pending *t);

/* Hold tid's stack, taken at time_ns, until its weight comes (replacing one held before). */
int offcpu_hold(struct offcpu_pending *t, uint32_t tid, uint64_t time_ns,
		const struct stack_key *key, uint32_t key_bytes);

/* --wakers: who woke tid, whose stack is held; joined to it when it is weighed. */
void offcpu_woken(struct offcpu_pending *t, uint32_t tid, const struct offcpu_waker *w);

/*
 * tid's interval weighs ns: count its held stack that much (0: drop it), or
 * give it to the sink; with its waker's section if it was woken.
 */
int offcpu_weigh(struct offcpu_pending *t, uint32_t tid, uint64_t ns, struct stack_table *stacks);

/*
 * tid's held stack, for a caller that files it elsewhere (--inuse's
 * blocks): NULL if none; offcpu_drop() lets it go.
 */
const struct stack_key *offcpu_held(struct offcpu_pending *t, uint32_t tid, uint32_t *key_bytes);
void offcpu_drop(struct offcpu_pending *t, uint32_t tid);

/*
 * The binaries the held stacks name are kept (binary->sampled): a period
 * handed over (stitch agent) lets go of what it named, not of these.
 */
void offcpu_pending_mark_sampled(struct offcpu_pending *t);

#endif /* STITCH_CAPTURE_OFFCPU_PENDING_H */
