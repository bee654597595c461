/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the running kernel offers our BPF programs, probed once and never
 * guessed from its version: a distribution backports features, and a
 * version says nothing of its configuration (this VM's 6.18 has no kprobes).
 * Commands ask here which program variant to load and what to tell the user
 * about what a kernel lacks; they do not retry loads to find out.
 *
 * Probes: a helper by a test load of a tiny program calling it (libbpf's
 * libbpf_probe_bpf_helper), or, for program types that probe cannot load,
 * by its name in the kernel's own enum bpf_func_id; a kfunc and a
 * tracepoint's arguments by the kernel's BTF; kprobes by the perf PMU that
 * creates them; what a syscall tracepoint gives a program by a program on
 * one (syscall_stack.bpf.c).
 */
#ifndef STITCH_KERNEL_FEATURES_H
#define STITCH_KERNEL_FEATURES_H

#include <stdbool.h>
#include <stdio.h>

enum kfeat {
	KFEAT_BTF,		/* /sys/kernel/btf/vmlinux: CO-RE, tp_btf, iterators */
	KFEAT_RINGBUF,		/* BPF ring buffers */
	KFEAT_TASK_BTF,		/* bpf_get_current_task_btf: the current task, typed */
	KFEAT_TASK_PT_REGS,	/* bpf_task_pt_regs: a task's saved user registers */
	KFEAT_ATTACH_COOKIE,	/* bpf_get_attach_cookie: which event an attachment is */
	KFEAT_BPF_LOOP,		/* bpf_loop: unwinding and interpreter walks in the kernel */
	KFEAT_SNPRINTF,		/* bpf_snprintf: kernel frames named by the kernel (%pB) */
	KFEAT_FIND_VMA,		/* bpf_find_vma */
	KFEAT_COPY_FROM_USER_TASK,	/* another task's memory, from a sleepable iterator */
	KFEAT_COPY_STR_KFUNC,	/* bpf_copy_from_user_task_str */
	KFEAT_SWITCH_PREV_STATE,	/* sched_switch's prev_state argument */
	KFEAT_KPROBES,		/* kprobes and kretprobes */
	KFEAT_SYSCALL_TP_KSTACK,	/* a syscall tracepoint's program gets a kernel stack */
	KFEAT_NMI_NO_PREALLOC,	/* perf_event programs may use hash maps allocated as they fill */
	KFEAT_NR
};

/*
 * Probed on first use, then remembered for the run.  Tests can make some
 * missing: STITCH_KFEAT_OFF=ID,... (features.c's ids: bpf_loop, ...).
 */
bool kfeat_has(enum kfeat f);

/* "bpf_loop", and the Linux version that brought it ("5.17"), for messages. */
const char *kfeat_name(enum kfeat f);
const char *kfeat_since(enum kfeat f);

/* The running kernel's release (uname -r), for messages. */
const char *kfeat_kernel(void);

/*
 * Say once per run (and consequence), on stderr, that the kernel lacks f
 * and what stitch does without it: "stitch: this kernel (5.10.0-32-amd64) has no bpf_loop (Linux
 * 5.17): WHAT".
 */
void kfeat_say_missing(enum kfeat f, const char *what);

/*
 * Make map a preallocated hash map where perf_event programs may use no
 * other (KFEAT_NMI_NO_PREALLOC): its memory made up front.  Before load.
 */
struct bpf_map;
void kfeat_prealloc_for_nmi(struct bpf_map *map);

/*
 * What every command needs of the kernel: its BTF and BPF ring buffers
 * (5.8).  0, or -1 after one line on stderr: "WHO: this kernel (5.4.0) has
 * no BPF ring buffer (Linux 5.8): stitch runs on 5.8 and later".
 */
int kfeat_require_basics(const char *who);

/* Every probe's answer, one per line, for `stitch features`. */
void kfeat_print(FILE *f);

#endif /* STITCH_KERNEL_FEATURES_H */
