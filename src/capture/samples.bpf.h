/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ring every record of the capture program goes to user space through:
 * samples (struct sample_event), the interpreter frames before them
 * (struct interp_event), off-CPU wakers and weights (struct offcpu_woken,
 * offcpu_weight).  Each starts with a struct ring_record_header
 * (ring_record.h) that its maker fills in: its type and size.
 */
#ifndef STITCH_CAPTURE_SAMPLES_BPF_H
#define STITCH_CAPTURE_SAMPLES_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "capture/capture.h"

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 32 << 20);	/* resized by user space */
} samples SEC(".maps");

/*
 * Where a sample is built: far too big for the BPF stack, one slot per CPU
 * (per-CPU maps cap values at 32 KiB).  Sharing a slot is safe: the kernel's
 * bpf_prog_active guard keeps perf_event, tracepoint, kprobe and uprobe
 * programs from nesting on one CPU, and busy.bpf.h the others.  max_entries
 * is set to the number of possible CPUs by user space.  The legacy walkers
 * (record/legacy_walk.bpf.c) send the sample a legacy worker built here.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sample_event);
} scratch SEC(".maps");

/*
 * A sample, cut to what it holds, into the ring: 0, or the ring's error
 * (full).  The reader is woken only once the ring is a quarter full: a
 * wakeup per event costs an IPI and may preempt the traced thread; the
 * reader polls with a timeout anyway.
 */
static __always_inline long sample_send(struct sample_event *e)
{
	__u64 size = STITCH_SAMPLE_HDR_BYTES + e->ustack_bytes, wake;

	if (size > sizeof(*e))
		size = sizeof(*e);
	e->hdr.type = RING_SAMPLE;
	e->hdr.size = size;
	wake = bpf_ringbuf_query(&samples, BPF_RB_AVAIL_DATA) >
	       bpf_ringbuf_query(&samples, BPF_RB_RING_SIZE) / 4 ?
	       BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
	return bpf_ringbuf_output(&samples, e, size, wake);
}

#endif /* STITCH_CAPTURE_SAMPLES_BPF_H */
