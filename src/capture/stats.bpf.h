/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The capture program's counters (enum stitch_stat in capture.h): per CPU,
 * summed by user space at the end.  Every part of the program counts here.
 */
#ifndef STITCH_CAPTURE_STATS_BPF_H
#define STITCH_CAPTURE_STATS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "capture/capture.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STAT_NR);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

static __always_inline void add_stat(__u32 which, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &which);

	if (v)
		*v += n;
}

static __always_inline void count(__u32 which)
{
	add_stat(which, 1);
}

#endif /* STITCH_CAPTURE_STATS_BPF_H */
