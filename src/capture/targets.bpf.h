/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which processes the capture program traces, and its gate: maps another
 * command's BPF object may own and hand to the capture program by fd
 * (bpf_map__reuse_fd), which needs one definition.  `stitch stalls` owns
 * both: its programs fill traced_tgids and keep each thread's gate.
 *
 * The gate: a command that wants some threads' events only, and only at
 * some times (stalls: threads stalled right now), turns gate_on on in the
 * capture program and keeps gate_threads: capture() keeps a thread's events
 * only once its CPU time (se.sum_exec_runtime, ns) has reached the
 * thread's value there.  Absent or 0: closed.
 */
#ifndef STITCH_CAPTURE_TARGETS_BPF_H
#define STITCH_CAPTURE_TARGETS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#define CAPTURE_GATE_MAX_THREADS 65536

/*
 * The traced processes (tgids); record adds children of traced ones.
 * Memory per process traced, not 5 MiB up front at every start.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u8);
} traced_tgids SEC(".maps");

/* Per thread (tid): the CPU time from which its events are kept; 0 closed. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, CAPTURE_GATE_MAX_THREADS);
	__uint(map_flags, BPF_F_NO_PREALLOC);	/* memory per thread seen, not up front */
	__type(key, __u32);
	__type(value, __u64);
} gate_threads SEC(".maps");

#endif /* STITCH_CAPTURE_TARGETS_BPF_H */
