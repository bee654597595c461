/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Records shared by capture.bpf.c (producer) and the record engine (consumer,
 * src/record/decode.c).
 * Includable from BPF C and from user space.
 */
#ifndef STITCH_CAPTURE_H
#define STITCH_CAPTURE_H

#ifndef __bpf__
#include <linux/types.h>
#endif

#include "capture/ring_record.h"
#include "capture/uret.h"

#define STITCH_COMM_LEN 16
/* perf_event_max_stack defaults to 127; one more slot never hurts. */
#define STITCH_MAX_KSTACK 128
#define STITCH_PAGE_SIZE 4096
/* Upper bound of user stack bytes copied per event (--stack-bytes). */
#define STITCH_MAX_USTACK_PAGES 16
#define STITCH_MAX_USTACK (STITCH_MAX_USTACK_PAGES * STITCH_PAGE_SIZE)
#define STITCH_DEFAULT_USTACK (8 * STITCH_PAGE_SIZE)
/* -p of at most this many processes: their tgids are compared in the program */
#define STITCH_FIXED_TGIDS 8
/* Frame words of the in-kernel unwinder ahead of a stack copy (KUNWIND_FRAMES_BYTES). */
#define STITCH_USTACK_ROOM (1024 * 8)

/* sample_event.flags */
#define STITCH_SAMPLE_USER_REGS    (1u << 0)	/* ip/sp/bp valid (task has user space) */
#define STITCH_SAMPLE_USTACK_CAPPED (1u << 1)	/* copy stopped at the byte limit */
#define STITCH_SAMPLE_USTACK_FAULT (1u << 2)	/* first stack page unreadable */
#define STITCH_SAMPLE_KSTACK_FAULT (1u << 3)	/* bpf_get_stack failed */
/* kunwind: ustack[] starts with nuframes frame words (unwind_in_kernel.h) unwound in the kernel */
#define STITCH_SAMPLE_KFRAMES      (1u << 4)
#define STITCH_SAMPLE_INTERP_LOST  (1u << 5)	/* its interp_event did not fit in the ring */
/* off-CPU: the time this stack weighs follows in an offcpu_weight record */
#define STITCH_SAMPLE_WEIGHT_LATER (1u << 6)

struct sample_event {
	struct ring_record_header hdr;	/* RING_SAMPLE */
	__u64 time_ns;		/* CLOCK_MONOTONIC, same clock as the perf side */
	__u32 pid;		/* tgid */
	__u32 tid;
	__u32 event_idx;	/* index into the user-space event list (bpf cookie) */
	__u32 flags;
	char comm[STITCH_COMM_LEN];
	__u64 ip, sp, bp;	/* user registers at the event (bp: x29 on arm64) */
	__u64 lr;		/* arm64's x30 (a leaf's return address); x86: 0 */
	__u32 kstack_bytes;	/* bytes valid in kstack */
	__u32 ustack_bytes;	/* bytes valid in ustack */
	/* ---- kunwind (in-kernel unwinding) ---- */
	__u16 nuframes;		/* STITCH_SAMPLE_KFRAMES: frame words at ustack[0] */
	__u8 ustop;		/* and why the kernel's walk stopped (KUNWIND_STOP_*) */
	__u8 tag;		/* enum offcpu_tag (profile/stack_tag.h) */
	/* stack bytes copied from sp upward: ustack[ucopy_off..nuret ? uret_off : ustack_bytes) */
	__u32 ucopy_off;
	/* ---- end kunwind ---- */
	/* Return addresses uretprobes hid in the thread's stack (uret.h), if any: */
	__u64 uret_tramp;	/* nuret: the process's uretprobe trampoline */
	__u32 uret_off;		/* nuret: struct stitch_uret[nuret] at ustack[uret_off], */
	__u32 nuret;		/* 8-aligned after the copy, ending at ustack_bytes */
	__u64 kstack[STITCH_MAX_KSTACK];
	/*
	 * Room for the kernel's frame words before a stack copy (--unwind=check
	 * sends both), and one page of slack past the maximum: the BPF side
	 * bounds page reads with a mask, which the verifier can follow whatever
	 * the compiler does with the loop.  Only the return addresses of
	 * uretprobes (struct stitch_uret) may follow a copy of the maximum into it.
	 */
	__u8 ustack[STITCH_USTACK_ROOM + STITCH_MAX_USTACK + STITCH_PAGE_SIZE];
};

#define STITCH_SAMPLE_HDR_BYTES ((unsigned long)&((struct sample_event *)0)->ustack)

/* Per-CPU counters, summed by user space at the end. */
/* The legacy workers' event kinds (capture.bpf.c): one event of each per run. */
enum legacy_kind { LEGACY_CPU, LEGACY_TRACEPOINT, LEGACY_UPROBE, LEGACY_KPROBE, LEGACY_KINDS };

enum stitch_stat {
	STAT_EVENTS,		/* events seen after filtering */
	STAT_RINGBUF_LOST,	/* ring buffer full: event dropped */
	STAT_USTACK_FAULT,	/* user stack unreadable at sp */
	STAT_KSTACK_FAULT,	/* kernel stack could not be taken */
	STAT_KUNWIND_FALLBACK,	/* kunwind: stack copied, the kernel lacked the process's tables */
	STAT_KUNWIND_NS,	/* kunwind: ns spent walking user stacks in the kernel */
	STAT_KUNWIND_WALKS,	/* kunwind: walks timed */
	STAT_KUNWIND_FRAMES,	/* kunwind: frames they found */
	STAT_KUNWIND_MEMO,	/* kunwind: timed walks that ended as the remembered one */
	STAT_COUNTED_FULL,	/* kunwind: not counted in the kernel, maps full: sent instead */
	STAT_COUNTED_COLLISION,	/* kunwind: not counted, hash collision: sent instead */
	STAT_COUNTED_IN_KERNEL,	/* kunwind: counted in the kernel */
	STAT_INTERP_LOST,	/* interpreter frames dropped: ring buffer full */
	STAT_INTERP_DEFINED,	/* interpreter stacks sent once, counted in the kernel after */
	STAT_INTERP_NOT_KEPT,	/* interpreter stacks not counted (hash collision, map full) */
	STAT_OFFCPU_OUT,	/* off-CPU: switch-outs of traced threads, stack taken */
	STAT_OFFCPU_UNTRACKED,	/* off-CPU: thread map full, the interval is lost */
	STAT_OFFCPU_LOST,	/* off-CPU: intervals whose time found no stack to add to */
	STAT_OFFCPU_UNSEEN_IN,	/* off-CPU: intervals ended by a switch-in no tracepoint showed */
	STAT_NO_WORKER,		/* an entry point found no worker for its event (a bug) */
	STAT_NESTED,		/* an event that interrupted one of ours on its CPU: not taken */
	STAT_ALLOC_LOST,	/* -e alloc: sampled allocations whose bytes found no stack (maps, ring full) */
	STAT_INUSE_LOST,	/* --inuse: sampled blocks not filed (maps full) */
	STAT_UNMAPS_LOST,	/* --inuse: munmaps of part of a mapping not sent (ring full) */
	STAT_NR,
};

/* The workers an entry point of capture.bpf.c hands its event to (dispatch()). */
#define CAPTURE_WORKER_NATIVE	0	/* no interpreter walkers, or the only worker */
#define CAPTURE_WORKER_WALKERS	1	/* with them, loaded on demand (record/walkers.c) */

#endif /* STITCH_CAPTURE_H */
