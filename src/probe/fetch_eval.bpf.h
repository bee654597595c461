/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --fetch's steps (probe/fetch.h) run on a probe's registers and bounded
 * reads of memory: one variable's value or string.  The capture program's
 * probes (fetch.bpf.h) and latency's root entries (latency.bpf.c) share it.
 */
#ifndef STITCH_PROBE_FETCH_EVAL_BPF_H
#define STITCH_PROBE_FETCH_EVAL_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "capture/user_regs.bpf.h"
#include "probe/fetch.h"

/* DWARF's register n of the thread's saved user registers: 0, or -1 if it has none such. */
static __always_inline int fetch_reg(struct pt_regs *r, __u16 n, __u64 *x)
{
#if defined(__TARGET_ARCH_x86)
	switch (n) {
	case 0: *x = BPF_CORE_READ(r, ax); return 0;
	case 1: *x = BPF_CORE_READ(r, dx); return 0;
	case 2: *x = BPF_CORE_READ(r, cx); return 0;
	case 3: *x = BPF_CORE_READ(r, bx); return 0;
	case 4: *x = BPF_CORE_READ(r, si); return 0;
	case 5: *x = BPF_CORE_READ(r, di); return 0;
	case 6: *x = BPF_CORE_READ(r, bp); return 0;
	case 7: *x = BPF_CORE_READ(r, sp); return 0;
	case 8: *x = BPF_CORE_READ(r, r8); return 0;
	case 9: *x = BPF_CORE_READ(r, r9); return 0;
	case 10: *x = BPF_CORE_READ(r, r10); return 0;
	case 11: *x = BPF_CORE_READ(r, r11); return 0;
	case 12: *x = BPF_CORE_READ(r, r12); return 0;
	case 13: *x = BPF_CORE_READ(r, r13); return 0;
	case 14: *x = BPF_CORE_READ(r, r14); return 0;
	case 15: *x = BPF_CORE_READ(r, r15); return 0;
	case 16: *x = BPF_CORE_READ(r, ip); return 0;
	}
	return -1;
#else
	/* x0-x30 and sp: a bounded index, read as any kernel memory */
	if (n <= 30)
		return bpf_probe_read_kernel(x, 8, (void *)&r->regs[n & 31]) ? -1 : 0;
	if (n == 31) {
		*x = BPF_CORE_READ(r, sp);
		return 0;
	}
	return -1;
#endif
}

/* A system call's argument n, from the registers it entered the kernel with. */
static __always_inline int fetch_sysarg(struct pt_regs *r, __u16 n, __u64 *x)
{
	switch (n) {
#if defined(__TARGET_ARCH_x86)
	case 0: *x = BPF_CORE_READ(r, di); return 0;
	case 1: *x = BPF_CORE_READ(r, si); return 0;
	case 2: *x = BPF_CORE_READ(r, dx); return 0;
	case 3: *x = BPF_CORE_READ(r, r10); return 0;
	case 4: *x = BPF_CORE_READ(r, r8); return 0;
	case 5: *x = BPF_CORE_READ(r, r9); return 0;
#else
	case 0: *x = BPF_CORE_READ(r, orig_x0); return 0;
	case 1: *x = BPF_CORE_READ(r, regs[1]); return 0;
	case 2: *x = BPF_CORE_READ(r, regs[2]); return 0;
	case 3: *x = BPF_CORE_READ(r, regs[3]); return 0;
	case 4: *x = BPF_CORE_READ(r, regs[4]); return 0;
	case 5: *x = BPF_CORE_READ(r, regs[5]); return 0;
#endif
	}
	return -1;
}

/* A kprobe's function argument n, from the kernel's registers at the probe (its ctx). */
static __always_inline int fetch_karg(struct pt_regs *r, __u16 n, __u64 *x)
{
	switch (n) {
#if defined(__TARGET_ARCH_x86)
	case 0: *x = BPF_CORE_READ(r, di); return 0;
	case 1: *x = BPF_CORE_READ(r, si); return 0;
	case 2: *x = BPF_CORE_READ(r, dx); return 0;
	case 3: *x = BPF_CORE_READ(r, cx); return 0;
	case 4: *x = BPF_CORE_READ(r, r8); return 0;
	case 5: *x = BPF_CORE_READ(r, r9); return 0;
#else
	case 0: *x = BPF_CORE_READ(r, regs[0]); return 0;
	case 1: *x = BPF_CORE_READ(r, regs[1]); return 0;
	case 2: *x = BPF_CORE_READ(r, regs[2]); return 0;
	case 3: *x = BPF_CORE_READ(r, regs[3]); return 0;
	case 4: *x = BPF_CORE_READ(r, regs[4]); return 0;
	case 5: *x = BPF_CORE_READ(r, regs[5]); return 0;
	case 6: *x = BPF_CORE_READ(r, regs[6]); return 0;
	case 7: *x = BPF_CORE_READ(r, regs[7]); return 0;
#endif
	}
	return -1;
}

/* Bytes of the tracepoint's record at off (checked against its size by user space). */
static __always_inline int fetch_ctx(void *ctx, __u64 off, __u16 size, __u64 *x)
{
	*x = 0;
	if (off > 0xffff || size > 8)
		return -1;
	return bpf_probe_read_kernel(x, size & 15, ctx + (off & 0xffff)) ? -1 : 0;
}

/*
 * size bytes at x, from the traced thread's memory, or the kernel's where a
 * kprobe's pointer is the kernel's (kernel: x at or above USER_ADDR_END).
 * A uprobe's and a system call's reads never go to the kernel's: a process
 * cannot make stitch print kernel memory by pointing there.
 */
static __always_inline long fetch_read(void *dst, __u32 size, __u64 addr, bool kernel)
{
	if (kernel && addr >= USER_ADDR_END)
		return bpf_probe_read_kernel(dst, size, (void *)addr);
	return bpf_probe_read_user(dst, size, (void *)addr);
}

static __always_inline int fetch_load(__u64 *x, __u16 size, bool kernel)
{
	__u64 addr = *x;
	__u8 b1;
	__u16 b2;
	__u32 b4;

	*x = 0;
	switch (size) {
	case 1:
		if (fetch_read(&b1, 1, addr, kernel))
			return -1;
		*x = b1;
		return 0;
	case 2:
		if (fetch_read(&b2, 2, addr, kernel))
			return -1;
		*x = b2;
		return 0;
	case 4:
		if (fetch_read(&b4, 4, addr, kernel))
			return -1;
		*x = b4;
		return 0;
	default:
		return fetch_read(x, 8, addr, kernel) ? -1 : 0;
	}
}

/* One variable's steps into v->value[i] / v->str[i]; its status. */
static __noinline int fetch_one(void *ctx, struct pt_regs *regs, struct fetch_steps *p,
				struct fetch_values *v, __u32 i)
{
	__u64 x = 0;
	__u32 j;

	if (i >= FETCH_MAX_VARS)
		return FETCH_VALUE_FAULT;
	for (j = 0; j < FETCH_MAX_STEPS; j++) {
		struct fetch_step *op = &p->steps[i][j];

		switch (op->kind) {
		case FETCH_STEP_END:
			v->value[i] = x;
			return FETCH_VALUE_OK;
		/*
		 * One register read for both: a second copy of fetch_reg's switch
		 * cost ~0.35 s of every start in the verifier (record -- true:
		 * 0.7 -> 1.05 s).
		 */
		case FETCH_STEP_REG:
		case FETCH_STEP_KREG:
			if (fetch_reg(op->kind == FETCH_STEP_KREG ? ctx : regs, op->arg, &x))
				return FETCH_VALUE_FAULT;
			break;
		case FETCH_STEP_CONST:
			x = op->imm;
			break;
		case FETCH_STEP_ADD:
			x += op->imm;
			break;
		case FETCH_STEP_BIAS:
			x += UREG_IP_CORE(regs) - p->vaddr;
			break;
		case FETCH_STEP_LOAD:
		case FETCH_STEP_LOAD_ANY:
			if (fetch_load(&x, op->arg, op->kind == FETCH_STEP_LOAD_ANY))
				return FETCH_VALUE_FAULT;
			break;
		case FETCH_STEP_KARG:
			if (fetch_karg(ctx, op->arg, &x))
				return FETCH_VALUE_FAULT;
			break;
		case FETCH_STEP_STR_ANY:
			if (x >= USER_ADDR_END) {
				if (bpf_probe_read_kernel_str(v->str[i], FETCH_STR_MAX,
							      (void *)x) < 0)
					return FETCH_VALUE_FAULT;
				return FETCH_VALUE_STR;
			}
			/* fall through */
		case FETCH_STEP_STR:
			if (bpf_probe_read_user_str(v->str[i], FETCH_STR_MAX, (void *)x) < 0)
				return FETCH_VALUE_FAULT;
			return FETCH_VALUE_STR;
		case FETCH_STEP_SYSARG:
			if (fetch_sysarg(regs, op->arg, &x))
				return FETCH_VALUE_FAULT;
			break;
		case FETCH_STEP_CTX:
			if (fetch_ctx(ctx, op->imm, op->arg, &x))
				return FETCH_VALUE_FAULT;
			break;
		/* The record's address never goes into x: the verifier keeps ctx a pointer. */
		case FETCH_STEP_CTX_STR:
			x = op->imm;
			/* fall through */
		case FETCH_STEP_DATA_LOC_STR:
			if (bpf_probe_read_kernel_str(v->str[i], FETCH_STR_MAX,
						      ctx + (x & 0xffff)) < 0)
				return FETCH_VALUE_FAULT;
			return FETCH_VALUE_STR;
		case FETCH_STEP_KSTR:
			if (bpf_probe_read_kernel_str(v->str[i], FETCH_STR_MAX, (void *)x) < 0)
				return FETCH_VALUE_FAULT;
			return FETCH_VALUE_STR;
		default:
			return FETCH_VALUE_OPTIMIZED_OUT;
		}
	}
	return FETCH_VALUE_FAULT;
}

#endif /* STITCH_PROBE_FETCH_EVAL_BPF_H */
