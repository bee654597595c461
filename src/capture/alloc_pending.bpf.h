/* SPDX-License-Identifier: GPL-2.0 */
/*
 * -e alloc (alloc.bpf.h): a sampled allocation's bytes on their way from
 * the entry point that sampled it to the program that takes its stack (a
 * tail call, on the same CPU), and after a sent stack, the record that
 * says what it weighs (and under --inuse, which block it is).  Apart from alloc.bpf.h so that the legacy
 * workers' interpreter walk (record/legacy_walk.bpf.c), which sends the
 * sample there, sends its weight too, without the capture program's other
 * parts.
 */
#ifndef STITCH_CAPTURE_ALLOC_PENDING_BPF_H
#define STITCH_CAPTURE_ALLOC_PENDING_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "capture/alloc_inuse.h"
#include "capture/samples.bpf.h"
#include "capture/stats.bpf.h"

/* The allocation an entry point sampled, for its worker (tail call, same CPU). */
struct alloc_pended {
	__u64 bytes;		/* what it weighs; 0: none */
	__u64 block;		/* --inuse: its number (alloc_inuse.h); 0: not tracked */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct alloc_pended);
} alloc_pending SEC(".maps");

static __always_inline void alloc_pend(__u64 bytes, __u64 block)
{
	__u32 zero = 0;
	struct alloc_pended *p = bpf_map_lookup_elem(&alloc_pending, &zero);

	if (p) {
		p->bytes = bytes;
		p->block = block;
	}
}

/* The entry point's allocation, taken once: its bytes (0: none), its number in *block. */
static __always_inline __u64 alloc_take(__u64 *block)
{
	__u32 zero = 0;
	struct alloc_pended *p = bpf_map_lookup_elem(&alloc_pending, &zero);
	__u64 bytes;

	*block = 0;
	if (!p)
		return 0;
	bytes = p->bytes;
	*block = p->block;
	p->bytes = 0;
	return bytes;
}

/*
 * What the sample just sent weighs, and under --inuse its block's number:
 * an alloc_weight record, after the sample in the ring.
 */
static __always_inline void alloc_send_weight(__u32 tid, __u64 bytes, __u64 block)
{
	struct alloc_weight w = { .hdr = { RING_ALLOC_WEIGHT, sizeof(w) } };

	w.tid = tid;
	w.bytes = bytes;
	w.block = block;
	if (bpf_ringbuf_output(&samples, &w, sizeof(w), 0))
		count(STAT_ALLOC_LOST);
}

#endif /* STITCH_CAPTURE_ALLOC_PENDING_BPF_H */
