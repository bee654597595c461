/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space native unwinder over a captured register/stack snapshot, using
 * the compact tables from cfi.h.  unwind_step() is the one piece of logic the
 * in-kernel (BPF) unwinder mirrors, so this file is its test oracle.
 */
#ifndef STITCH_UNWIND_H
#define STITCH_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "unwind/cfi.h"
#include "unwind/uret.h"

struct unwind_regs {
	uint64_t ip, sp, bp;
	uint64_t lr;	/* arm64's x30 (meaningful while the registers are exact); x86: 0 */
};

struct unwind_stack;

/*
 * A JIT runtime's own step out of a frame in its code, where no frame
 * pointer can be trusted (HotSpot's compiled frames, sized in their
 * nmethod): 0 with r the caller's registers, UNWIND_JIT_NOT_MINE for code
 * it does not know (the frame-pointer step then), or an enum unwind_stop.
 * exact: r->ip is the interrupted pc, not a return address.
 */
#define UNWIND_JIT_NOT_MINE (-1)
typedef int (*unwind_jit_step_fn)(void *ctx, struct unwind_regs *r, bool exact,
				  const struct unwind_stack *stack);

struct unwind_stack {			/* bytes copied from the user stack */
	uint64_t start;			/* user address of data[0] (== sp at capture) */
	const uint8_t *data;
	size_t len;
	/* Return addresses in it that uretprobes replaced, to put back (uret.h). */
	struct unwind_urets uret;
	unwind_jit_step_fn jit_step;	/* NULL: frame pointers only in JIT code */
	void *jit_ctx;
};

/*
 * Find the module mapping pc: return its table and load bias (ELF vaddr =
 * pc - *bias), &unwind_table_jit for executable anonymous memory (JIT code),
 * or NULL (no mapping, or a file we cannot read).
 */
typedef const struct unwind_table *(*unwind_lookup_fn)(void *ctx, uint64_t pc, uint64_t *bias);

enum unwind_stop {
	UNWIND_STOP_END = 1,	/* reached a STITCH_CFA_END row: stack complete */
	UNWIND_STOP_TRUNCATED,	/* needed bytes beyond the copied stack, or hit max frames */
	UNWIND_STOP_NO_MODULE,	/* pc in no known module (JIT, unmapped) */
	UNWIND_STOP_NO_RULE,	/* no row, or STITCH_CFA_UNKNOWN */
	UNWIND_STOP_BAD,	/* inconsistent state: sp not moving up, zero RA, read of garbage */
	UNWIND_STOP_UNREADABLE,	/* the stack at sp could not be read at the event */
};

struct unwind_frame {
	uint64_t pc;	/* as found: ip for frame 0, return addresses after */
	bool exact;	/* pc is exact (frame 0, or interrupted by a signal): don't subtract 1 */
	bool by_fp;	/* pc was read at [rbp + 8] by a frame-pointer step (no CFI) */
	/*
	 * Its frame pointer, when the walk left it by a frame-pointer step (0:
	 * by CFI, or the last frame): where V8 keeps the frame's function.
	 */
	uint64_t bp;
};

/*
 * The table of executable anonymous memory: none.  Code there (JIT code of
 * V8, HotSpot) is stepped by frame pointer, as code a binary's CFI does not
 * cover (STITCH_CFA_NO_FDE): see unwind_step_fp().
 */
extern const struct unwind_table unwind_table_jit;

/*
 * Unwind from regs; frames[0] is the innermost (regs->ip).  Returns the
 * number of frames written; *why says why it stopped.
 */
int unwind_user(const struct unwind_regs *regs, const struct unwind_stack *stack,
		unwind_lookup_fn lookup, void *ctx, struct unwind_frame *frames, int max,
		enum unwind_stop *why);

/*
 * Read one 8-byte word of user memory: 0, or an enum unwind_stop value > 0
 * (UNWIND_STOP_TRUNCATED past the copied bytes, UNWIND_STOP_BAD below them).
 */
typedef int (*unwind_read_fn)(void *ctx, uint64_t addr, uint64_t *val);

/*
 * One step, shared logic the BPF unwinder will mirror: apply row to regs,
 * reading memory via read(); returns 0 and updates regs (and *next_exact for
 * the next pc), or an enum unwind_stop value > 0 on stop.  regs are left
 * untouched on stop.
 */
int unwind_step(const struct stitch_unwind_row *row, struct unwind_regs *regs, bool *next_exact,
		unwind_read_fn read, void *ctx);

/*
 * The frame-pointer step, for code without CFI: the caller's rbp at [rbp],
 * its return address at [rbp + 8], its sp rbp + 16.  Refused (NO_RULE)
 * unless rbp lies on the stack at or above sp (so it grows strictly from
 * one such step to the next) and 8-aligned; the caller checks that the
 * return address lies in executable code.  JIT code that keeps no frame
 * pointer leaves anything in rbp: most of it fails these checks and the
 * stack is cut there; a stale rbp of a caller that kept one would skip
 * that caller, which no check here can see (perf's walk shares this).
 */
int unwind_step_fp(struct unwind_regs *regs, bool *next_exact, unwind_read_fn read, void *ctx);

/* unwind_read_fn over a struct unwind_stack (ctx). */
int unwind_stack_read(void *ctx, uint64_t addr, uint64_t *val);

#endif /* STITCH_UNWIND_H */
