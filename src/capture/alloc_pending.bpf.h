/* SPDX-License-Identifier: GPL-2.0 */
/*
 * -e alloc (alloc.bpf.h): a sampled allocation's bytes on their way from
 * the entry point that sampled it to the program that takes its stack (a
 * tail call, on the same CPU), and after a sent stack, the record that
 * says what it weighs.  Apart from alloc.bpf.h so that the legacy
 * workers' interpreter walk (record/legacy_walk.bpf.c), which sends the
 * sample there, sends its weight too, without the capture program's other
 * parts.
 */
#ifndef STITCH_CAPTURE_ALLOC_PENDING_BPF_H
#define STITCH_CAPTURE_ALLOC_PENDING_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "capture/offcpu.h"
#include "capture/samples.bpf.h"
#include "capture/stats.bpf.h"

/* What the allocation an entry point sampled weighs, for its worker (tail call, same CPU). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} alloc_pending SEC(".maps");

/* An entry point's sampled allocation, for its worker: 0 when there is none. */
static __always_inline void alloc_pend(__u64 bytes)
{
	__u32 zero = 0;
	__u64 *p = bpf_map_lookup_elem(&alloc_pending, &zero);

	if (p)
		*p = bytes;
}

static __always_inline __u64 alloc_take(void)
{
	__u32 zero = 0;
	__u64 *p = bpf_map_lookup_elem(&alloc_pending, &zero), bytes;

	if (!p)
		return 0;
	bytes = *p;
	*p = 0;
	return bytes;
}

/*
 * What the sample just sent weighs: an offcpu_weight record, the ring's
 * "what the thread's last sent stack weighs", which off-CPU time sends too.
 */
static __always_inline void alloc_send_weight(__u32 tid, __u64 bytes)
{
	struct offcpu_weight w = { .hdr = { RING_OFFCPU_WEIGHT, sizeof(w) } };

	w.tid = tid;
	w.ns = bytes;
	if (bpf_ringbuf_output(&samples, &w, sizeof(w), 0))
		count(STAT_ALLOC_LOST);
}

#endif /* STITCH_CAPTURE_ALLOC_PENDING_BPF_H */
