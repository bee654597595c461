/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stitch snapshot: the record snapshot.bpf.c's task iterator writes for each
 * thread, read by snapshot.c from the iterator's fd.  Includable from BPF C
 * and from user space.
 */
#ifndef STITCH_SNAPSHOT_H
#define STITCH_SNAPSHOT_H

#ifndef __bpf__
#include <linux/types.h>
#endif

#include "capture/uret.h"

#define SNAP_MAGIC 0x736e6170u		/* "snap": resynchronises a torn stream */
#define SNAP_COMM_LEN 16
#define SNAP_MAX_KSTACK 64
/*
 * A bpf_iter seq_file buffer is 8 pages (32 KiB) and one object's output
 * must fit in it whole, or the read fails with E2BIG: the user stack copy
 * gets what is left after the header and kernel stack, 7 pages; in an
 * interpreter's thread, less the walked interpreter frames that follow
 * (at most ~9 KiB, perl with its strings).
 */
#define SNAP_OBJECT_BYTES (8 * 4096)
#define SNAP_MAX_USTACK (7 * 4096)

enum snap_flags {
	SNAP_KTHREAD = 1 << 0,		/* PF_KTHREAD: no user side */
	SNAP_ON_CPU = 1 << 1,		/* running on a CPU when read: stacks may be stale */
	SNAP_USER_REGS = 1 << 2,	/* ip/sp/bp/syscall are the saved user registers */
	SNAP_USTACK_CUT = 1 << 3,	/* the copy stopped at SNAP_MAX_USTACK, not a fault */
	SNAP_NO_MM = 1 << 4,		/* a user thread without memory: exiting */
	SNAP_SELF = 1 << 5,		/* the thread running the iterator */
	SNAP_NO_SINCE = 1 << 6,		/* when it last ran is not known (read from /proc) */
};

struct snap_record {
	__u32 magic;
	__u32 bytes;			/* this record, header included */
	__u32 pid, tid;
	__u32 flags;
	__u32 state;			/* task->__state */
	__u32 exit_state;
	__u32 cpu;			/* the CPU it last ran on */
	__u64 cpu_ns;			/* se.sum_exec_runtime */
	__u64 exec_start;		/* se.exec_start: when it last left (or last ticked on) a CPU */
	__u64 task_clock_task;		/* its CPU's rq->clock_task: exec_start's clock */
	__u64 task_clock;		/* its CPU's rq->clock, updated with clock_task */
	__u64 clock_now;		/* the iterating CPU's rq->clock: "now" */
	__u64 syscall_nr;		/* pt_regs orig_ax */
	__u64 args[4];			/* di, si, dx, r10 */
	__u64 ip, sp, bp;
	__u64 lr;			/* arm64's x30; x86: 0 */
	__u32 nkernel;			/* kernel addresses that follow, innermost first */
	__u32 ustack_bytes;		/* user stack bytes after them, from sp up */
	__u32 interp_bytes;		/* then its interpreter frames: a struct interp_event */
	__u32 nuret;			/* return addresses uretprobes hid in its stack: */
	__u64 uret_tramp;		/* nuret: the process's uretprobe trampoline */
	struct stitch_uret uret[STITCH_URET_MAX];	/* innermost first (capture/uret.h) */
	char comm[SNAP_COMM_LEN];
	/*
	 * followed by __u64 kernel[nkernel], __u8 ustack[ustack_bytes], then
	 * interp_bytes of struct interp_event (interp.h) with its time_ns 0
	 */
};

#endif /* STITCH_SNAPSHOT_H */
