/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stitch stalls: state shared by stalls.bpf.c (which tracks each thread's
 * on-CPU time since it last returned from its event loop's waiting system
 * call, and keeps the capture program's gate open for threads stalled right
 * now) and stalls.c.  Includable from BPF C and from user space.
 */
#ifndef STITCH_STALLS_H
#define STITCH_STALLS_H

#ifndef __bpf__
#include <linux/types.h>
#include <stdbool.h>
#endif

#define STALLS_MAX_THREADS 65536
#define STALLS_MAX_LOOP_SYSCALLS 8
#define STALLS_LOOP_UNKNOWN 0xffffffffu	/* stall_thread.loop_nr: not seen one yet */

/*
 * Per thread of the target, keyed by tid: the map stall_threads.  On-CPU
 * time is the scheduler's own account of the thread (se.sum_exec_runtime,
 * what CLOCK_THREAD_CPUTIME_ID reads), which lags the truth by at most a
 * scheduler tick for a running thread; counting sched_switch events
 * instead loses whole run periods whenever one event is missed.
 */
struct stall_thread {
	__u64 loop_exit_ns;	/* last return from the loop syscall; 0: never seen */
	__u64 runtime_at_exit;	/* its se.sum_exec_runtime then */
	__u32 loop_nr;		/* its loop syscall, or STALLS_LOOP_UNKNOWN */
	__u8 in_wait;		/* inside the loop syscall: waiting, never a stall */
	__u8 from_attach;	/* loop_exit_ns is the attach time, not a loop return */
	__u8 pad[2];
};

/* A stall that ended (the thread entered its loop syscall again, or exited). */
struct stall_event {
	__u64 start_ns;		/* CLOCK_MONOTONIC (bpf_ktime_get_ns): the loop return */
	__u64 end_ns;		/* the next loop syscall entry, or the thread's exit */
	__u64 oncpu_ns;		/* on-CPU time in between */
	__u32 pid, tid;
	__u32 loop_nr;
	__u8 from_attach;	/* start_ns is the attach: running since before it */
	__u8 by_exit;		/* ended by the thread's exit (exit, exit_group, a fatal signal) */
	__u8 pad[2];
	char comm[16];
};

/*
 * The gate: is this thread stalled?  Between two loop waits, and on CPU for
 * at least threshold_ns since the first.  runtime_ns: the thread's
 * se.sum_exec_runtime now.
 */
static __always_inline bool stall_gate_open(const struct stall_thread *t, __u64 runtime_ns,
					    __u64 threshold_ns)
{
	return t->loop_exit_ns && !t->in_wait && runtime_ns >= t->runtime_at_exit &&
	       runtime_ns - t->runtime_at_exit >= threshold_ns;
}

#endif /* STITCH_STALLS_H */
