/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whose events the capture program keeps: the traced processes
 * (targets.bpf.h), the gate another command may keep for some threads, and
 * the recording's end.  Set by user space before load, the end as it starts.
 */
#ifndef STITCH_CAPTURE_FILTER_BPF_H
#define STITCH_CAPTURE_FILTER_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "capture/capture.h"
#include "capture/targets.bpf.h"

const volatile bool filter_tgids;	/* only tgids in traced_tgids */
/*
 * -p with a few processes and no children to add: the tgids themselves,
 * compared in a loop the compiler unrolls, instead of a hash map lookup
 * (~80 ns of a ~1 us event on our VM, where every call returns through a
 * mitigation thunk).  0 entries: use traced_tgids.
 */
const volatile __u32 fixed_tgids[STITCH_FIXED_TGIDS];
const volatile __u32 nfixed_tgids;
const volatile bool gate_on;		/* keep events only where gate_threads opens */
/*
 * How a gate's value reads.  stalls: the CPU time (se.sum_exec_runtime)
 * from which a thread's events are kept.  latency (gate_wall): the time
 * (bpf_ktime_get_ns) from which samples of a thread in a call are kept,
 * while its switch-outs are kept all through the call: whether the call
 * will end slow is not known yet, and the stack can only be taken now.
 */
const volatile bool gate_wall;
/*
 * A recording's end (-d), on bpf_ktime_get_ns()'s clock, written by user
 * space as it starts; 0: none.  Events past it are dropped here, not when
 * user space next looks at its clock: its loop may be seconds into one
 * turn (a process's first copied stack, its tables built in bullseye's
 * guest: 5.7-9.7 s), and `record -a -d 2` sampled ~10 s.
 */
__u64 capture_end_ns;

static __always_inline bool tgid_traced(__u32 tgid)
{
	bool found = false;
	int i;

	if (!nfixed_tgids)
		return bpf_map_lookup_elem(&traced_tgids, &tgid) != NULL;
	for (i = 0; i < STITCH_FIXED_TGIDS; i++)
		found |= i < nfixed_tgids && fixed_tgids[i] == tgid;
	return found;
}

/* Past the recording's end (capture_end_ns)? */
static __always_inline bool capture_ended(void)
{
	return capture_end_ns && bpf_ktime_get_ns() >= capture_end_ns;
}

/* The gate (targets.bpf.h): is this thread's event (a switch-out?) to be dropped? */
static __always_inline bool gate_closed(__u32 tid, bool switch_out)
{
	struct task_struct *task;
	__u64 *open_at;

	if (!gate_on)
		return false;
	open_at = bpf_map_lookup_elem(&gate_threads, &tid);
	if (!open_at || !*open_at)
		return true;
	if (gate_wall)
		return !switch_out && bpf_ktime_get_ns() < *open_at;
	/* A probe read, not a typed task pointer: kernels before 5.11 have none (5.10). */
	task = (struct task_struct *)bpf_get_current_task();
	return BPF_CORE_READ(task, se.sum_exec_runtime) < *open_at;
}

#endif /* STITCH_CAPTURE_FILTER_BPF_H */
