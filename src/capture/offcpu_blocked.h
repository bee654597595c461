/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Threads still off the CPU when recording ends (map offcpu_threads): each
 * one's time so far goes to the stack it left with, so a thread that never
 * wakes again is not lost.
 */
#ifndef STITCH_CAPTURE_OFFCPU_BLOCKED_H
#define STITCH_CAPTURE_OFFCPU_BLOCKED_H

#include <stdint.h>

#include "capture/unwind_in_kernel.h"
#include "capture/offcpu_pending.h"
#include "profile/stacks.h"

/* Where an interval's time goes: a stack stored in the kernel, or one held. */
struct offcpu_sink {
	const struct kunwind *kw;
	struct counted_fds fds;		/* where counted stacks are stored */
	struct stack_table *stacks;
	uint64_t *stops, *bytes;	/* kunwind_count_key's accounting */
	struct offcpu_pending *pending;
};

/*
 * Once the programs are detached: count every thread left in the map, up
 * to now (the recording's end, on bpf_ktime_get_ns()'s clock).
 */
void offcpu_count_blocked(int threads_fd, uint64_t min_block_ns, uint64_t now,
			  const struct offcpu_sink *s);

#endif /* STITCH_CAPTURE_OFFCPU_BLOCKED_H */
