/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Compact unwind table: one fixed-size row per address range, sorted by pc,
 * binary-searchable.  Built in user space from .eh_frame/.debug_frame and
 * consumed by the user-space unwinder and by the in-kernel (BPF) one, so this
 * header must stay includable from BPF C: plain fixed-width types, no
 * pointers in the row, no libc.  It describes the architecture stitch is
 * built for (x86-64 or arm64): a binary of another is not unwound.
 *
 * A row says how to find the caller's registers at every pc from row.pc up to
 * the next row's pc.  "sp" and "fp" are rsp and rbp on x86-64, sp and x29 on
 * arm64:
 *   CFA     = per cfa_rule (see below)
 *   RA      = *(CFA - 8)            on x86-64 (SysV), always;
 *             *(CFA + ra_offset)    on arm64, or, where ra_offset is 0, the
 *                                   link register x30: a leaf, or a prologue
 *                                   before x30 is saved.  x30 holds it only
 *                                   where the registers are exact (the
 *                                   interrupted frame, the one a signal
 *                                   interrupted); elsewhere the walk stops.
 *   sp'     = CFA
 *   fp'     = rbp_rule == STITCH_RBP_AT_CFA ? *(CFA + rbp_offset) :
 *             rbp_rule == STITCH_RBP_AT_RBP ? *(fp + rbp_offset) : fp
 * Anything the format cannot express becomes STITCH_CFA_UNKNOWN: the unwinder
 * stops there and shows the stack as cut, rather than guessing a frame.
 */
#ifndef STITCH_UNWIND_TABLE_H
#define STITCH_UNWIND_TABLE_H

#ifdef __bpf__
typedef __u64 stitch_u64;
typedef __s32 stitch_s32;
typedef __u32 stitch_u32;
typedef __s16 stitch_s16;
typedef __u8 stitch_u8;
typedef __u16 stitch_u16;
#else
#include <stdint.h>
typedef uint64_t stitch_u64;
typedef int32_t stitch_s32;
typedef uint32_t stitch_u32;
typedef int16_t stitch_s16;
typedef uint8_t stitch_u8;
typedef uint16_t stitch_u16;
#endif

#if defined(__TARGET_ARCH_arm64) || (!defined(__bpf__) && defined(__aarch64__))
#define STITCH_ARCH_ARM64 1
#endif

enum stitch_cfa_rule {
	STITCH_CFA_UNKNOWN = 0,	/* no usable rule (unsupported op, malformed) */
	STITCH_CFA_RSP = 1,	/* CFA = rsp + cfa_offset */
	STITCH_CFA_RBP = 2,	/* CFA = rbp + cfa_offset */
	/*
	 * PLT stubs: CFA = rsp + cfa_offset + ((rip & 15) >= rbp_offset ? 8 : 0)
	 * (the DW_OP expression GNU ld emits for .plt; rbp_offset holds the
	 * threshold, rbp is unchanged).
	 */
	STITCH_CFA_PLT = 3,
	STITCH_CFA_END = 4,	/* RA undefined: outermost frame, stack complete */
	/*
	 * rt_sigreturn trampoline (CIE augmentation "S"): rsp points at a
	 * ucontext_t; the interrupted registers are read from it.  The next
	 * frame's pc is exact, not a return address.
	 */
	STITCH_CFA_SIGNAL = 5,
	/* CFA = *(rbp + cfa_offset): stack realignment (DW_OP_breg6 N; deref) */
	STITCH_CFA_DEREF_RBP = 6,
	/*
	 * No FDE covers this pc (the gap after an FDE's range): code without
	 * CFI, such as V8's embedded builtins in node's text.  Unwinders step
	 * it by frame pointer (unwind.c, unwind_in_kernel_step.h), which they do not
	 * dare where an FDE exists but says something the format cannot hold.
	 */
	STITCH_CFA_NO_FDE = 7,
};

enum stitch_rbp_rule {
	STITCH_RBP_SAME = 0,	/* rbp not saved in this frame: unchanged */
	STITCH_RBP_AT_CFA = 1,	/* rbp' = *(CFA + rbp_offset) */
	/*
	 * rbp' = *(rbp + rbp_offset): gcc's stack-realignment prologue saves
	 * rbp relative to the new rbp, not to the CFA (DW_CFA_expression r6
	 * (DW_OP_breg6 N)); it comes with STITCH_CFA_DEREF_RBP.
	 */
	STITCH_RBP_AT_RBP = 2,
};

struct stitch_unwind_row {
	stitch_u32 pc;		/* first covered address: ELF vaddr (no load bias) */
	stitch_s16 cfa_offset;
	stitch_s16 rbp_offset;
	stitch_u8 cfa_rule;	/* enum stitch_cfa_rule */
	stitch_u8 rbp_rule;	/* enum stitch_rbp_rule */
	stitch_s16 ra_offset;	/* arm64: see above; x86-64: zero */
};

#ifdef STITCH_ARCH_ARM64
/*
 * Offsets from sp at the signal trampoline (__kernel_rt_sigreturn in the
 * vDSO) into the kernel's struct rt_sigframe: a siginfo (128 bytes), then the
 * ucontext, whose uc_mcontext (struct sigcontext: fault_address, regs[31],
 * sp, pc) starts 176 bytes in (arch/arm64/include/uapi/asm/ucontext.h).
 */
#define STITCH_UC_RBP (128 + 176 + 8 + 29 * 8)	/* x29 */
#define STITCH_UC_LR (128 + 176 + 8 + 30 * 8)	/* x30 */
#define STITCH_UC_RSP (128 + 176 + 8 + 31 * 8)
#define STITCH_UC_RIP (128 + 176 + 8 + 32 * 8)
/*
 * Where a uretprobe's hijacked return address is keyed, from the sp of the
 * frame it returns to: arm64 probes replace x30 at entry, sp unmoved.
 */
#define STITCH_URET_SLOT_BELOW_SP 0
/*
 * A return address signed by pointer authentication carries its signature
 * in the bits above the virtual address (0x54aaaaba360700 for
 * 0xaaaaba360700 under QEMU's -cpu max).  User addresses of Debian's arm64
 * kernels have 48 bits (52 only for mappings asked for above them).
 */
#define STITCH_PAC_STRIP(a) ((a) & 0x0000ffffffffffffULL)
/* The row's return address is in x30. */
#define STITCH_RA_IN_LR(row) ((row)->ra_offset == 0)
#else
/* Offsets into ucontext_t (x86-64) used by STITCH_CFA_SIGNAL. */
#define STITCH_UC_RBP 120
#define STITCH_UC_RSP 160
#define STITCH_UC_RIP 168
/* The return address a uretprobe replaced was at the caller's sp - 8. */
#define STITCH_URET_SLOT_BELOW_SP 8
#define STITCH_PAC_STRIP(a) (a)
#define STITCH_RA_IN_LR(row) 0
#endif

/* A V8 builtin's pc is this close above the call that entered it, at most. */
#define STITCH_V8_BUILTIN_MAX (64u << 10)

/*
 * Whether ra, the word at the sp of a leaf in V8's builtins at pc, is the
 * return address of the call that entered it, nothing pushed since: right
 * after a call (op, the byte at ra - 5, e8; rel, the rel32 after it) whose
 * target is at most STITCH_V8_BUILTIN_MAX below pc.  Both unwinders' step
 * out of a builtin that built no frame, on x86-64 (unwind_in_kernel_step.h,
 * ku_v8_frameless_leaf: why; copy_unwind.c, v8_step).
 */
static inline __attribute__((always_inline)) int
stitch_v8_called_from(stitch_u64 ra, stitch_u8 op, stitch_s32 rel, stitch_u64 pc)
{
	stitch_u64 to = ra + (stitch_u64)(long long)rel;

	return op == 0xe8 && to <= pc && pc - to < STITCH_V8_BUILTIN_MAX;
}

#endif /* STITCH_UNWIND_TABLE_H */
