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

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 32 << 20);	/* resized by user space */
} samples SEC(".maps");

#endif /* STITCH_CAPTURE_SAMPLES_BPF_H */
