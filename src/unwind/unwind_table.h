/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Compact x86-64 unwind table: one fixed-size row per address range, sorted
 * by pc, binary-searchable.  Built in user space from .eh_frame/.debug_frame
 * and consumed by the user-space unwinder now and by the in-kernel (BPF)
 * unwinder later, so this header must stay includable from BPF C: plain
 * fixed-width types, no pointers in the row, no libc.
 *
 * A row says how to find the caller's registers at every pc from row.pc up to
 * the next row's pc:
 *   CFA     = per cfa_rule (see below)
 *   RA      = *(CFA - 8)            (always, on x86-64 SysV)
 *   rsp'    = CFA
 *   rbp'    = rbp_rule == STITCH_RBP_AT_CFA ? *(CFA + rbp_offset) :
 *             rbp_rule == STITCH_RBP_AT_RBP ? *(rbp + rbp_offset) : rbp
 * Anything the format cannot express becomes STITCH_CFA_UNKNOWN: the unwinder
 * stops there and shows the stack as cut, rather than guessing a frame.
 */
#ifndef STITCH_UNWIND_TABLE_H
#define STITCH_UNWIND_TABLE_H

#ifdef __bpf__
typedef __u32 stitch_u32;
typedef __s16 stitch_s16;
typedef __u8 stitch_u8;
typedef __u16 stitch_u16;
#else
#include <stdint.h>
typedef uint32_t stitch_u32;
typedef int16_t stitch_s16;
typedef uint8_t stitch_u8;
typedef uint16_t stitch_u16;
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
	stitch_u16 reserved;	/* zero */
};

/* Offsets into ucontext_t (x86-64) used by STITCH_CFA_SIGNAL. */
#define STITCH_UC_RBP 120
#define STITCH_UC_RSP 160
#define STITCH_UC_RIP 168

#endif /* STITCH_UNWIND_TABLE_H */
