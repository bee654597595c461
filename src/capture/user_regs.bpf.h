/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A thread's user registers by architecture: the ones a native unwind starts
 * from (pc, sp, frame pointer and, on arm64, the link register x30, where a
 * leaf keeps its return address), the system call a thread is in, its
 * arguments, and the thread pointer TLS lookups start from.  Everything else
 * names registers through these, so one source builds for x86-64 and arm64
 * (-D__TARGET_ARCH_x86 / -D__TARGET_ARCH_arm64).
 *
 * The macros taking r work on a struct pt_regs * and, for the unwind's four,
 * on a perf event's bpf_user_pt_regs_t too: that is pt_regs itself on
 * x86-64, and on arm64 struct user_pt_regs, the first member of pt_regs.
 */
#ifndef STITCH_CAPTURE_USER_REGS_BPF_H
#define STITCH_CAPTURE_USER_REGS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>

#if defined(__TARGET_ARCH_arm64)

#define UREG_IP(r) ((r)->pc)
#define UREG_SP(r) ((r)->sp)
#define UREG_FP(r) ((r)->regs[29])
#define UREG_LR(r) ((r)->regs[30])
#define UREG_IP_CORE(r) BPF_CORE_READ(r, pc)
#define UREG_SP_CORE(r) BPF_CORE_READ(r, sp)
#define UREG_FP_CORE(r) BPF_CORE_READ(r, regs[29])
#define UREG_LR_CORE(r) BPF_CORE_READ(r, regs[30])
/* The system call the thread is in; negative (NO_SYSCALL) when in none. */
#define UREG_SYSCALL_NR_CORE(r) ((long)BPF_CORE_READ(r, syscallno))
/* x0 is the return value's too: the first argument is kept in orig_x0. */
#define UREG_ARG0_CORE(r) BPF_CORE_READ(r, orig_x0)
#define UREG_ARG1_CORE(r) BPF_CORE_READ(r, regs[1])
#define UREG_ARG2_CORE(r) BPF_CORE_READ(r, regs[2])
#define UREG_ARG3_CORE(r) BPF_CORE_READ(r, regs[3])
/* tpidr_el0, saved at every switch (TLS variant I: the TCB is at it). */
#define TASK_THREAD_POINTER(task) BPF_CORE_READ(task, thread.uw.tp_value)
/*
 * Where user space ends: 48-bit virtual addresses (Debian's arm64 kernels;
 * a 52-bit kernel maps above this only where mmap is asked to).  The
 * walkers' sanity bound on pointers read from a process: x86-64's, 2^47,
 * refused every thread pointer of a 6.1 guest (0xffff80c01760).
 */
#define USER_ADDR_END 0x0001000000000000ULL

#elif defined(__TARGET_ARCH_x86)

#define UREG_IP(r) ((r)->ip)
#define UREG_SP(r) ((r)->sp)
#define UREG_FP(r) ((r)->bp)
#define UREG_LR(r) 0
#define UREG_IP_CORE(r) BPF_CORE_READ(r, ip)
#define UREG_SP_CORE(r) BPF_CORE_READ(r, sp)
#define UREG_FP_CORE(r) BPF_CORE_READ(r, bp)
#define UREG_LR_CORE(r) 0
#define UREG_SYSCALL_NR_CORE(r) ((long)BPF_CORE_READ(r, orig_ax))
#define UREG_ARG0_CORE(r) BPF_CORE_READ(r, di)
#define UREG_ARG1_CORE(r) BPF_CORE_READ(r, si)
#define UREG_ARG2_CORE(r) BPF_CORE_READ(r, dx)
#define UREG_ARG3_CORE(r) BPF_CORE_READ(r, r10)
/* fs base (TLS variant II: the TCB is at it, the blocks below). */
#define TASK_THREAD_POINTER(task) BPF_CORE_READ(task, thread.fsbase)
/* Where user space ends: 47-bit virtual addresses (4-level paging). */
#define USER_ADDR_END 0x0000800000000000ULL

#else
#error "stitch's BPF programs are built for x86 or arm64: -D__TARGET_ARCH_x86 or -D__TARGET_ARCH_arm64"
#endif

#endif /* STITCH_CAPTURE_USER_REGS_BPF_H */
