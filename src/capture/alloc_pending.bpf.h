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
	__u64 objects;		/* how many it stands for, in 1/ALLOC_OBJECT_ONE (alloc.h) */
	__u64 block;		/* --inuse: its number (alloc_inuse.h); 0: not tracked */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct alloc_pended);
} alloc_pending SEC(".maps");

static __always_inline void alloc_pend(const struct alloc_pended *a)
{
	__u32 zero = 0;
	struct alloc_pended *p = bpf_map_lookup_elem(&alloc_pending, &zero);

	if (p)
		*p = *a;
}

/* The entry point's allocation, taken once into *a: its bytes (0: none), objects and number. */
static __always_inline __u64 alloc_take(struct alloc_pended *a)
{
	__u32 zero = 0;
	struct alloc_pended *p = bpf_map_lookup_elem(&alloc_pending, &zero);

	if (!p) {
		a->bytes = 0;
		return 0;
	}
	*a = *p;
	p->bytes = 0;
	return a->bytes;
}

/*
 * What the sample just sent weighs, and under --inuse its block's number:
 * an alloc_weight record, after the sample in the ring.
 */
static __always_inline void alloc_send_weight(__u32 tid, const struct alloc_pended *a)
{
	struct alloc_weight w = { .hdr = { RING_ALLOC_WEIGHT, sizeof(w) } };

	w.tid = tid;
	w.bytes = a->bytes;
	w.objects = a->objects;
	w.block = a->block;
	if (bpf_ringbuf_output(&samples, &w, sizeof(w), 0))
		count(STAT_ALLOC_LOST);
}

#endif /* STITCH_CAPTURE_ALLOC_PENDING_BPF_H */
