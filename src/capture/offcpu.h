/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Off-CPU time: records shared by offcpu.bpf.h (kernel side, part of the
 * capture program) and the offcpu_*.c beside it (user side).  Includable from
 * BPF C and from user space.
 *
 * When a traced thread leaves the CPU, its whole stack is taken then (the
 * capture program's walk: kernel, native, interpreter frames), but what it
 * weighs is known only when the thread runs again.  A stack counted in the
 * kernel is remembered by its key and the blocked time added to it at
 * switch-in; a stack sent to user space as a sample (an interpreter's, or one
 * the kernel cannot walk yet) is followed by an offcpu_weight record when the
 * thread runs again.
 */
#ifndef STITCH_CAPTURE_OFFCPU_H
#define STITCH_CAPTURE_OFFCPU_H

#ifndef __bpf__
#include <linux/types.h>
#endif

#include "capture/ring_record.h"
#include "capture/unwind_in_kernel.h"
#include "profile/stack_tag.h"

#define OFFCPU_MAX_THREADS 65536

/*
 * Who woke a thread (--wakers): the waker's stacks, stored in the kernel like
 * any counted stack (counted_kstk0, counted_ustk).  An interrupt's wakeup has
 * a kernel stack only and pid 0.
 */
struct offcpu_waker {
	__s32 kstack_id;	/* < 0: none */
	__u32 pid, tid;
	__u32 kgen;		/* of kstack_id (counted_key.kgen) */
	__u64 uhash;		/* its user stack; 0: none (not traced, or not walkable) */
	char comm[16];
};

/* An interval's blocked stack and its waker: map offcpu_wakes, value ns. */
struct offcpu_wake_key {
	struct counted_key blocked;
	struct offcpu_waker waker;
};

/* A traced thread off the CPU (map offcpu_threads): what its interval goes to. */
struct offcpu_thread {
	__u64 out_ns;		/* when it left: bpf_ktime_get_ns() */
	__u64 run_ns;		/* its CPU time then (se.sum_exec_runtime): see offcpu_unseen_in */
	struct counted_key key;	/* counted: its stack, stored in the kernel */
	__u8 counted, sent;	/* sent: its stack went to user space as a sample */
	__u8 woken;		/* waker is set */
	__u8 pad[5];
	struct offcpu_waker waker;
};

/*
 * Who woke a thread whose stack was sent (not counted): an offcpu_woken
 * record (RING_OFFCPU_WOKEN) in the samples ring, between the thread's
 * sample and the offcpu_weight record of the same interval.
 */
struct offcpu_woken {
	struct ring_record_header hdr;
	__u32 tid;		/* the thread woken */
	__u32 pad;
	struct offcpu_waker waker;
};

/* What a sent stack weighs: an offcpu_weight record (RING_OFFCPU_WEIGHT) in the samples ring. */
struct offcpu_weight {
	struct ring_record_header hdr;
	__u32 tid;
	__u32 pad;
	__u64 ns;		/* the time the thread's last sent sample weighs */
};

#endif /* STITCH_CAPTURE_OFFCPU_H */
