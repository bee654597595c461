/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Maps that capture.bpf.c and stalls.bpf.c both declare: `stitch stalls`
 * creates them and hands them to record's object by fd
 * (bpf_map__reuse_fd), which needs the two definitions to be the same.
 * One definition, included by both.
 */
#ifndef STITCH_SHARED_MAPS_BPF_H
#define STITCH_SHARED_MAPS_BPF_H

#include "stalls/stalls.h"

/* The traced processes (tgids); record adds children of traced ones. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u8);
} traced_tgids SEC(".maps");

/* Per-thread stall state: written by stalls.bpf.c, the gate of record's sampler. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, STALLS_MAX_THREADS);
	__uint(map_flags, BPF_F_NO_PREALLOC);	/* memory per thread seen, not up front */
	__type(key, __u32);
	__type(value, struct stall_thread);
} stall_threads SEC(".maps");

#endif /* STITCH_SHARED_MAPS_BPF_H */
