// SPDX-License-Identifier: GPL-2.0
/*
 * The unwind step is written the way the BPF port needs it: no loops, no
 * recursion, a handful of bounded reads, and every stop reason explicit.
 */
#include <string.h>

#include "unwind/unwind.h"

const struct unwind_table unwind_table_jit;

int unwind_stack_read(void *ctx, uint64_t addr, uint64_t *val)
{
	const struct unwind_stack *s = ctx;
	uint64_t off;

	/* Below the captured sp is dead stack: reading it means bad state. */
	if (addr < s->start)
		return UNWIND_STOP_BAD;
	off = addr - s->start;
	if (s->len < sizeof(*val) || off > s->len - sizeof(*val))
		return UNWIND_STOP_TRUNCATED;
	memcpy(val, s->data + off, sizeof(*val));
	return 0;
}

/* Registers of the context a signal interrupted, from the ucontext at sp. */
static int step_signal(struct unwind_regs *regs, bool *next_exact, unwind_read_fn read,
		       void *ctx)
{
	struct unwind_regs n;
	int err;

	n.lr = 0;
	err = read(ctx, regs->sp + STITCH_UC_RIP, &n.ip);
	if (!err)
		err = read(ctx, regs->sp + STITCH_UC_RSP, &n.sp);
	if (!err)
		err = read(ctx, regs->sp + STITCH_UC_RBP, &n.bp);
#ifdef STITCH_ARCH_ARM64
	/* A leaf the signal interrupted has its return address in x30. */
	if (!err)
		err = read(ctx, regs->sp + STITCH_UC_LR, &n.lr);
#endif
	if (err)
		return err;
	if (n.sp <= regs->sp || n.ip == 0)
		return UNWIND_STOP_BAD;
	*regs = n;
	*next_exact = true;
	return 0;
}

static int compute_cfa(const struct stitch_unwind_row *row, const struct unwind_regs *regs,
		       uint64_t *cfa, unwind_read_fn read, void *ctx)
{
	switch (row->cfa_rule) {
	case STITCH_CFA_RSP:
		*cfa = regs->sp + row->cfa_offset;
		return 0;
	case STITCH_CFA_RBP:
		*cfa = regs->bp + row->cfa_offset;
		return 0;
	case STITCH_CFA_PLT:
		*cfa = regs->sp + row->cfa_offset +
		       ((int64_t)(regs->ip & 15) >= row->rbp_offset ? 8 : 0);
		return 0;
	case STITCH_CFA_DEREF_RBP:
		return read(ctx, regs->bp + row->cfa_offset, cfa);
	case STITCH_CFA_END:
		return UNWIND_STOP_END;
	default:
		return UNWIND_STOP_NO_RULE;
	}
}

/*
 * The return address: at CFA - 8 on x86-64; on arm64 where the row says, or
 * in x30, which holds it only in a frame whose registers are exact (exact:
 * the interrupted one, or one a signal interrupted).  Signatures stripped.
 */
static int read_ra(const struct stitch_unwind_row *row, const struct unwind_regs *regs,
		   bool exact, uint64_t cfa, uint64_t *ra, unwind_read_fn read, void *ctx)
{
	int err;

#ifdef STITCH_ARCH_ARM64
	if (!row->ra_offset) {
		if (!exact)
			return UNWIND_STOP_NO_RULE;
		*ra = STITCH_PAC_STRIP(regs->lr);
		return 0;
	}
	err = read(ctx, cfa + row->ra_offset, ra);
#else
	(void)regs;
	(void)exact;
	err = read(ctx, cfa - 8, ra);
#endif
	if (!err)
		*ra = STITCH_PAC_STRIP(*ra);
	return err;
}

int unwind_step(const struct stitch_unwind_row *row, struct unwind_regs *regs, bool *next_exact,
		unwind_read_fn read, void *ctx)
{
	uint64_t cfa, ra, bp = regs->bp;
	bool popped;
	int err;

	if (!row)
		return UNWIND_STOP_NO_RULE;
	if (row->cfa_rule == STITCH_CFA_SIGNAL)
		return step_signal(regs, next_exact, read, ctx);
	err = compute_cfa(row, regs, &cfa, read, ctx);
	if (err)
		return err;
	/*
	 * The caller's sp is the CFA: a stack that does not grow back up is
	 * garbage.  But for an arm64 frame that has allocated nothing yet
	 * (a leaf, a prologue): its caller's sp is its own, its return
	 * address in x30, which only an exact frame has, so that this step
	 * is taken once.
	 */
	if (cfa < regs->sp || (cfa == regs->sp && !STITCH_RA_IN_LR(row)))
		return UNWIND_STOP_BAD;
	err = read_ra(row, regs, *next_exact, cfa, &ra, read, ctx);
	/*
	 * Past an epilogue's pop the save slot lies below sp (outside the
	 * copy) and rbp holds the saved value again: compilers keep the save
	 * rule until the ret (2% of a Ruby profile's samples stand in
	 * libruby's epilogues).
	 */
	popped = row->rbp_rule == STITCH_RBP_AT_CFA && cfa + (int64_t)row->rbp_offset < regs->sp;
	if (!err && row->rbp_rule == STITCH_RBP_AT_CFA && !popped)
		err = read(ctx, cfa + row->rbp_offset, &bp);
	else if (!err && row->rbp_rule == STITCH_RBP_AT_RBP)
		err = read(ctx, regs->bp + row->rbp_offset, &bp);
	else if (!err && row->rbp_rule != STITCH_RBP_SAME && !popped)
		err = UNWIND_STOP_NO_RULE;
	if (err)
		return err;
	if (ra == 0)
		return UNWIND_STOP_BAD;
	regs->ip = ra;
	regs->sp = cfa;
	regs->bp = bp;
	regs->lr = 0;
	*next_exact = false;
	return 0;
}

int unwind_step_fp(struct unwind_regs *regs, bool *next_exact, unwind_read_fn read, void *ctx)
{
	uint64_t bp, ra;
	int err;

	if (regs->bp < regs->sp || (regs->bp & 7))
		return UNWIND_STOP_NO_RULE;
	err = read(ctx, regs->bp, &bp);
	if (!err)
		err = read(ctx, regs->bp + 8, &ra);
	if (err)
		return err;
	ra = STITCH_PAC_STRIP(ra);
	if (ra == 0)
		return UNWIND_STOP_NO_RULE;
	/*
	 * x86-64's frame record ends its frame; arm64's may lie anywhere in
	 * it (gcc puts it at the bottom): the caller's sp is then a bound
	 * below the truth, and an sp-based row of the caller's would be
	 * wrong.  Those stop (unwind_user()).
	 */
	regs->sp = regs->bp + 16;
	regs->ip = ra;
	regs->bp = bp;
	regs->lr = 0;
	*next_exact = false;
	return 0;
}

/* frame_row(): no CFI covers the pc, step by frame pointer. */
#define FRAME_BY_FP (-1)

/*
 * The row for the frame whose pc is regs->ip: 0, FRAME_BY_FP, or a stop
 * reason.
 */
static int frame_row(const struct unwind_regs *regs, bool exact, unwind_lookup_fn lookup,
		     void *ctx, const struct stitch_unwind_row **row)
{
	/* A return address may be just past the function (noreturn calls). */
	uint64_t pc = exact ? regs->ip : regs->ip - 1;
	const struct unwind_table *t;
	uint64_t bias = 0;

	*row = NULL;
	t = lookup(ctx, pc, &bias);
	if (!t)
		return UNWIND_STOP_NO_MODULE;
	if (t == &unwind_table_jit)
		return FRAME_BY_FP;
	/* Rows stop at 4 GiB; the kernel's walk stops there too. */
	if ((pc - bias) >> 32)
		return UNWIND_STOP_NO_RULE;
	*row = unwind_table_lookup(t, pc - bias);
	/* Before the first FDE, or in a gap between them: no CFI. */
	if (!*row || (*row)->cfa_rule == STITCH_CFA_NO_FDE)
		return FRAME_BY_FP;
	return 0;
}

/*
 * After a step by CFI or frame pointer, the return address was read at the
 * caller's sp - 8: if a uretprobe put its trampoline there, the real one
 * (uret.h).  Where none is known the stack stops, as at any pc in no module:
 * the trampoline is no caller, and what follows it would not be the truth.
 */
static int restore_ret(const struct unwind_stack *stack, struct unwind_regs *r)
{
	return unwind_uret_restore(&stack->uret, r->sp - STITCH_URET_SLOT_BELOW_SP, &r->ip) ?
	       0 : UNWIND_STOP_NO_MODULE;
}

/*
 * The frame-pointer step, and its last check: the return address must lie
 * in executable code (a binary we read, or anonymous executable memory).
 */
static int step_fp(struct unwind_regs *r, bool *exact, const struct unwind_stack *stack,
		   unwind_lookup_fn lookup, void *ctx)
{
	struct unwind_regs n = *r;
	uint64_t bias;
	int err;

	err = unwind_step_fp(&n, exact, unwind_stack_read, (void *)stack);
	if (!err)
		err = restore_ret(stack, &n);
	if (err)
		return err;
	if (!lookup(ctx, n.ip - 1, &bias))
		return UNWIND_STOP_NO_RULE;
	*r = n;
	return 0;
}

/* The JIT's own step (struct unwind_stack's jit_step), checked as step_fp's is. */
static int step_jit(struct unwind_regs *r, bool *exact, const struct unwind_stack *stack,
		    unwind_lookup_fn lookup, void *ctx)
{
	struct unwind_regs n = *r;
	uint64_t bias;
	int err;

	err = stack->jit_step(stack->jit_ctx, &n, *exact, stack);
	if (!err)
		err = restore_ret(stack, &n);
	if (err)
		return err;
	/* The caller's sp is above this frame's: the walk goes up the stack. */
	if (n.sp <= r->sp)
		return UNWIND_STOP_BAD;
	if (!lookup(ctx, n.ip - 1, &bias))
		return UNWIND_STOP_NO_RULE;
	*r = n;
	*exact = false;
	return 0;
}

int unwind_user(const struct unwind_regs *regs, const struct unwind_stack *stack,
		unwind_lookup_fn lookup, void *ctx, struct unwind_frame *frames, int max,
		enum unwind_stop *why)
{
	const struct stitch_unwind_row *row;
	struct unwind_regs r = *regs;
	bool exact = true, sp_bound = false;
	int n = 0, err;

	*why = UNWIND_STOP_TRUNCATED;
	if (max <= 0)
		return 0;
	frames[n].pc = r.ip;
	frames[n].by_fp = false;
	frames[n].bp = 0;
	frames[n++].exact = true;
	for (;;) {
		bool by_fp;

		err = frame_row(&r, exact, lookup, ctx, &row);
		by_fp = err == FRAME_BY_FP;
		/* arm64: past a frame-pointer step, sp is only a bound (unwind_step_fp()). */
		if (!err && sp_bound && row->cfa_rule == STITCH_CFA_RSP)
			err = UNWIND_STOP_NO_RULE;
		if (by_fp) {
			frames[n - 1].bp = r.bp;
			err = n == max ? UNWIND_STOP_TRUNCATED : UNWIND_JIT_NOT_MINE;
			if (err == UNWIND_JIT_NOT_MINE && stack->jit_step)
				err = step_jit(&r, &exact, stack, lookup, ctx);
			if (err == UNWIND_JIT_NOT_MINE)
				err = step_fp(&r, &exact, stack, lookup, ctx);
		}
		/*
		 * A signal trampoline is entered by the handler's return, not
		 * by a call: its pc is exact, so it is named as itself rather
		 * than as the byte before it.
		 */
		else if (!err && row->cfa_rule == STITCH_CFA_SIGNAL)
			frames[n - 1].exact = true;
		if (!by_fp && !err && n == max)
			/* Full, but say "complete" if this was the outermost frame. */
			err = row->cfa_rule == STITCH_CFA_END ? UNWIND_STOP_END
							      : UNWIND_STOP_TRUNCATED;
		if (!by_fp && !err)
			err = unwind_step(row, &r, &exact, unwind_stack_read, (void *)stack);
		/* A signal frame's pc is exact: the interrupted one, no return address. */
		if (!by_fp && !err && !exact)
			err = restore_ret(stack, &r);
		if (err) {
			*why = err;
			return n;
		}
		frames[n].pc = r.ip;
		frames[n].by_fp = by_fp;
		frames[n].bp = 0;
		frames[n++].exact = exact;
#ifdef STITCH_ARCH_ARM64
		sp_bound = by_fp;
#endif
	}
}
