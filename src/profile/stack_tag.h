/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A stack's tag: the first "kernel address" of an off-CPU stack is no
 * address but the state its thread left the CPU in (stack_kernel_is_tag(),
 * stacks.h).  offcpu.bpf.h puts it there, resolve.c names it: it is part of
 * the stack's format, so it lives with the stacks.  Includable from BPF C
 * and from user space.
 */
#ifndef STITCH_STACK_TAG_H
#define STITCH_STACK_TAG_H

/* What the thread was doing when it left the CPU: the tag of its stack. */
enum offcpu_tag {
	OFFCPU_TAG_NONE,	/* not an off-CPU stack */
	OFFCPU_TAG_SLEEP,	/* S: interruptible sleep (futex, pipe, poll, nanosleep) */
	OFFCPU_TAG_DISK,	/* D: uninterruptible (disk I/O, some locks) */
	OFFCPU_TAG_RUNNABLE,	/* preempted: ready to run, waiting for a CPU */
	OFFCPU_TAG_OTHER,	/* stopped, traced, ... */
	OFFCPU_TAG_NR,
};

/*
 * Not an off-CPU state: the stack's kernel frames begin in the BPF glue that
 * took them (bpf_prog_*, bpf_trace_run*, __bpf_trace_*: an event taken by a
 * raw tracepoint), which resolve.c leaves out.  The tag shows as no frame.
 */
#define STACK_TAG_GLUE 64

#ifndef __bpf__
/* A tag's frame, innermost in the stack: the state the thread was in. */
static inline const char *offcpu_tag_name(unsigned long long tag)
{
	static const char *const names[OFFCPU_TAG_NR] = {
		[OFFCPU_TAG_SLEEP] = "[S sleeping]",
		[OFFCPU_TAG_DISK] = "[D uninterruptible]",
		[OFFCPU_TAG_RUNNABLE] = "[runnable]",
		[OFFCPU_TAG_OTHER] = "[stopped or traced]",
	};

	return tag < OFFCPU_TAG_NR && names[tag] ? names[tag] : "[off-CPU]";
}
#endif

#endif /* STITCH_STACK_TAG_H */
