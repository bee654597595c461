/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Allocations by stack (record -e alloc), kernel side, part of the capture
 * program: which allocator calls are sampled and what each weighs
 * (alloc.h), and their weight added to the stack the capture program took.
 * The entry points on the allocator's functions and their worker are in
 * capture.bpf.c, beside the other events'; user space attaches them
 * (record/attach_alloc.c) and fills the tables (alloc_sampling.c).
 */
#ifndef STITCH_CAPTURE_ALLOC_BPF_H
#define STITCH_CAPTURE_ALLOC_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "capture/alloc.h"
#include "capture/alloc_pending.bpf.h"
#include "capture/stats.bpf.h"
#include "capture/unwind_in_kernel.bpf.h"

/* Set by user space before load. */
const volatile __u32 alloc_event_idx;
const volatile __u64 alloc_period = ALLOC_DEFAULT_PERIOD;	/* 1: every allocation */
const volatile __u32 alloc_gap_tab[ALLOC_GAP_SLOTS + 1];
const volatile __u32 alloc_weight_tab[ALLOC_WEIGHT_SLOTS + 1];

/* tid -> bytes to the thread's next sample point. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, ALLOC_MAX_THREADS);
	__type(key, __u32);
	__type(value, __u64);
} alloc_threads SEC(".maps");

/*
 * What the stacks counted in the kernel stand for in allocations (alloc.h's
 * objects), under the keys their bytes have in kernel_counts: read and
 * deleted with them (capture/unwind_in_kernel.c).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 65536);
	__type(key, struct counted_key);
	__type(value, __u64);
} alloc_object_counts SEC(".maps");

/* The distance to a thread's next sample point: exponential, of mean alloc_period (alloc.h). */
static __always_inline __u64 alloc_gap(void)
{
	__u64 sum = 0;
	int d;

	for (d = 0; d < ALLOC_GAP_DRAWS; d++)
		if (alloc_gap_draw(alloc_gap_tab, bpf_get_prandom_u32(), &sum))
			break;
	return alloc_gap_bytes(alloc_period, sum);
}

/*
 * The current thread asks for size bytes: 0 if no sample point falls in
 * them, else what the allocation weighs.  Only this thread touches its
 * entry.
 */
static __always_inline __u64 alloc_sample(__u32 tid, __u64 size)
{
	__u64 *left, gap;

	if (!size || size >= ALLOC_MAX_SIZE)
		return 0;
	if (alloc_period <= 1)
		return size;
	left = bpf_map_lookup_elem(&alloc_threads, &tid);
	if (!left) {
		gap = alloc_gap();
		bpf_map_update_elem(&alloc_threads, &tid, &gap, BPF_ANY);
		left = bpf_map_lookup_elem(&alloc_threads, &tid);
		if (!left)
			return 0;
	}
	if (*left > size) {
		*left -= size;
		return 0;
	}
	/* Sampled: the next point is a fresh gap away (the process has no memory). */
	*left = alloc_gap();
	return alloc_weight_of(alloc_weight_tab, alloc_period, size);
}

/*
 * The sampled allocation's stack was taken (capture() with a defer):
 * counted in the kernel under counted (NULL: it was not), or sent to user
 * space as a sample, which its weight follows (alloc_send_weight), with
 * its block's number under --inuse (which sends every stack: user space
 * names the blocks).
 */
static __noinline void alloc_weigh(__u32 tid, struct counted_key *counted, bool sent,
				   const struct alloc_pended *a)
{
	if (counted) {
		if (!counted_add(counted, a->bytes) ||
		    !counted_add_in(&alloc_object_counts, counted, a->objects))
			count(STAT_ALLOC_LOST);
	} else if (sent) {
		alloc_send_weight(tid, a);
	}
}

#endif /* STITCH_CAPTURE_ALLOC_BPF_H */
