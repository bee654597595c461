/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The in-kernel native unwinder's walk, written once and compiled twice: as
 * BPF (unwind_in_kernel.bpf.h) and as plain C (tests/unit/test_kunwind.c), where it
 * replays captured register/stack snapshots next to the independent
 * user-space unwinder (unwind.c), which is its oracle.
 *
 * The includer defines, before including this file, how to reach memory,
 * rows and the output (ctx is whatever it passes to ku_walk_frame()):
 *
 *   int ku_read_word(void *ctx, __u64 addr, __u64 *val);
 *       one user word: 0, or KUNWIND_STOP_TRUNCATED if it cannot be read
 *   const struct stitch_unwind_row *ku_row_at(void *ctx, __u32 idx);
 *       row idx of the big row array, NULL if out of range
 *   void ku_emit(void *ctx, __u32 idx, __u64 word);
 *       store frame word idx (idx < KUNWIND_MAX_FRAMES)
 *   void ku_set_exact(void *ctx, __u32 idx);
 *       set KFRAME_EXACT on frame word idx
 *   __u32 *ku_rcache_slot(void *ctx, __u32 h);
 *       entry h (< KU_RCACHE) of the row cache (ku_find_row_cached), or NULL
 *   int ku_uret_orig(void *ctx, __u64 ip, __u64 slot, __u64 *ra);
 *       if ip is the process's uretprobe trampoline, the return address a
 *       uretprobe replaced with it at stack address slot: 1 and *ra set;
 *       else (or not known) 0
 *   int ku_read_code(void *ctx, __u64 addr, __u32 *val);
 *       four bytes of the process's code at addr: 0, or nonzero if unreadable
 *   int ku_read_heap(void *ctx, __u64 addr, __u64 *val);
 *       one word of the process's memory off its stack (V8's heap): 0, or
 *       nonzero if unreadable
 *
 * With KU_SEARCH_OUT_OF_LINE defined, the includer also provides the two
 * binary searches as functions of their own (the BPF side makes them global
 * functions, verified once, instead of inlined into every copy of the frame
 * step: most frames find their mapping and row without searching):
 *
 *   int ku_search_map(const struct kunwind_proc *p, __u64 addr);
 *       ku_find_map()'s mapping index, or -1
 *   int ku_search_row(__u32 first, __u32 nr, __u32 vaddr);
 *       ku_find_row()'s row index, or -1
 *
 * Everything here is bounded: no recursion, loops with constant trip counts,
 * so the verifier accepts it inside a bpf_loop() callback.
 */
#ifndef STITCH_CAPTURE_UNWIND_IN_KERNEL_STEP_H
#define STITCH_CAPTURE_UNWIND_IN_KERNEL_STEP_H

#include "capture/unwind_in_kernel.h"

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#ifndef __noinline
#define __noinline __attribute__((noinline))
#endif

/* Bounds a word read the way the copy of the stack would have: same stops. */
static __always_inline int ku_read(struct ku_state *s, void *ctx, __u64 addr, __u64 *val)
{
	if (addr < s->stack_lo)
		return KUNWIND_STOP_BAD;
	if (s->stack_hi && (addr > s->stack_hi || s->stack_hi - addr < 8))
		return KUNWIND_STOP_TRUNCATED;
	return ku_read_word(ctx, addr, val);
}

/*
 * The verifier walks every branch of a loop separately, so a binary search
 * that branches on each comparison would fork 2^steps states.  These
 * searches are branch-free instead: each step adds half or nothing to base
 * through a mask, hidden from the compiler (ku_opaque) so that it does not
 * turn the arithmetic back into a branch.
 */
#define ku_opaque(x) asm volatile("" : "+r"(x))

/* All ones when a <= b, else 0; both below 2^63 (user addresses, vaddrs). */
static __always_inline __u64 ku_le_mask(__u64 a, __u64 b)
{
	__u64 m = ((b - a) >> 63) - 1;

	ku_opaque(m);
	return m;
}

/* The mapping holding addr, or NULL. */
static __always_inline const struct kunwind_map *ku_find_map(const struct kunwind_proc *p,
							      __u64 addr)
{
	__u32 len = p->nr, base = 0, i;
	const struct kunwind_map *m;

	if (len == 0 || len > KUNWIND_MAX_MAPS)
		return 0;
	/* Invariant: maps[base].start <= addr, unless no map starts at or below it. */
	for (i = 0; i < 10 && len > 1; i++) {
		__u32 half = len / 2;

		base += half & ku_le_mask(p->maps[(base + half) & (KUNWIND_MAX_MAPS - 1)].start, addr);
		len -= half;
	}
	m = &p->maps[base & (KUNWIND_MAX_MAPS - 1)];
	/* Mappings do not overlap: whatever the search found, this check decides. */
	return m->start <= addr && addr < m->end ? m : 0;
}

/* ku_find_map(), out of line if the includer wants it so. */
static __always_inline const struct kunwind_map *ku_map_search(const struct kunwind_proc *p,
							       __u64 addr)
{
#ifdef KU_SEARCH_OUT_OF_LINE
	int i = ku_search_map(p, addr);

	if (i < 0)
		return 0;
	/*
	 * The entry's address only past the test: computed before it (and
	 * then zeroed), a verifier before 6.8 saw a pointer or 0 on one path
	 * and refused the load through it.
	 */
	barrier_var(i);
	return &p->maps[i & (KUNWIND_MAX_MAPS - 1)];
#else
	return ku_find_map(p, addr);
#endif
}

/* ku_find_map(), trying the mapping of the previous frame first. */
static __always_inline const struct kunwind_map *ku_find_map_hint(const struct kunwind_proc *p,
								   __u64 addr, __u32 *hint)
{
	const struct kunwind_map *m = &p->maps[*hint & (KUNWIND_MAX_MAPS - 1)];

	if (*hint < p->nr && m->start <= addr && addr < m->end)
		return m;
	m = ku_map_search(p, addr);
	if (m)
		*hint = m - p->maps;
	return m;
}

/*
 * The row covering vaddr in rows [first, first + nr), or NULL before the
 * first; *idx is its index.
 */
static __always_inline const struct stitch_unwind_row *ku_find_row(void *ctx, __u32 first,
								    __u32 nr, __u32 vaddr,
								    __u32 *idx)
{
	const struct stitch_unwind_row *row;
	__u32 len = nr, base = first, i;

	if (len == 0 || len > (1u << 23))
		return 0;
	for (i = 0; i < 23 && len > 1; i++) {
		__u32 half = len / 2;

		row = ku_row_at(ctx, base + half);
		if (!row)
			return 0;
		base += half & ku_le_mask(row->pc, vaddr);
		len -= half;
	}
	row = ku_row_at(ctx, base);
	*idx = base;
	return row && row->pc <= vaddr ? row : 0;
}

/* ku_find_row(), out of line if the includer wants it so. */
static __always_inline const struct stitch_unwind_row *ku_row_search(void *ctx, __u32 first,
								      __u32 nr, __u32 vaddr,
								      __u32 *idx)
{
#ifdef KU_SEARCH_OUT_OF_LINE
	int i = ku_search_row(first, nr, vaddr);

	if (i < 0)
		return 0;
	*idx = i;
	return ku_row_at(ctx, i);
#else
	return ku_find_row(ctx, first, nr, vaddr, idx);
#endif
}

/*
 * Row cache: the row index last found for a hash of (binary slot, vaddr).
 * Samples keep meeting the same return addresses (main, the event loop, the
 * request handler), and a hit costs two row reads instead of a binary search
 * of ~15 steps (~30 ns a frame).  An entry is only a guess, checked against
 * the table as it is now: it is used when it lies in this binary's rows and
 * brackets vaddr, which makes it the very row the search would find, so a
 * stale entry (a table dropped and its rows reused, another binary hashed
 * to the same entry) can cost time, never a wrong row.
 */
static __always_inline const struct stitch_unwind_row *
ku_find_row_cached(void *ctx, __u32 first, __u32 nr, __u32 vaddr, __u32 slot, __u32 *idx)
{
	__u32 h = ((vaddr ^ (slot * 0x9e3779b1u)) * 0x9e3779b1u) >> (32 - KU_RCACHE_BITS);
	__u32 *c = ku_rcache_slot(ctx, h & (KU_RCACHE - 1));
	const struct stitch_unwind_row *row, *next;
	__u32 i;

	if (c && nr && nr <= (1u << 23)) {
		i = *c;
		if (i >= first && i - first < nr) {
			row = ku_row_at(ctx, i);
			if (row && row->pc <= vaddr) {
				next = i - first + 1 < nr ? ku_row_at(ctx, i + 1) : 0;
				if (!next && i - first + 1 == nr) {
					*idx = i;
					return row;
				}
				if (next && next->pc > vaddr) {
					*idx = i;
					return row;
				}
			}
		}
	}
	row = ku_row_search(ctx, first, nr, vaddr, idx);
	if (row && c)
		*c = *idx;
	return row;
}

/* Registers of the context a signal interrupted, from the ucontext at sp. */
static __always_inline int ku_step_signal(struct ku_state *s, void *ctx)
{
	__u64 ip, sp, bp, lr = 0;
	int err;

	err = ku_read(s, ctx, s->sp + STITCH_UC_RIP, &ip);
	if (!err)
		err = ku_read(s, ctx, s->sp + STITCH_UC_RSP, &sp);
	if (!err)
		err = ku_read(s, ctx, s->sp + STITCH_UC_RBP, &bp);
#ifdef STITCH_ARCH_ARM64
	/* A leaf the signal interrupted has its return address in x30. */
	if (!err)
		err = ku_read(s, ctx, s->sp + STITCH_UC_LR, &lr);
#endif
	if (err)
		return err;
	if (sp <= s->sp || ip == 0)
		return KUNWIND_STOP_BAD;
	s->ip = ip;
	s->sp = sp;
	s->bp = bp;
	s->lr = lr;
	s->sp_bound = 0;
	s->bp_live = 0;
	s->exact = 1;
	return 0;
}

/* Apply one row: the caller's registers, or a stop reason. */
static __always_inline int ku_step(const struct stitch_unwind_row *row, struct ku_state *s,
				   void *ctx)
{
	__u64 cfa, ra, bp = s->bp;
	bool popped;
	int err = 0;

	switch (row->cfa_rule) {
	case STITCH_CFA_SIGNAL:
		return ku_step_signal(s, ctx);
	case STITCH_CFA_RSP:
		/* arm64: past a frame-pointer step, sp is only a bound. */
		if (s->sp_bound)
			return KUNWIND_STOP_NO_RULE;
		cfa = s->sp + (__s64)row->cfa_offset;
		break;
	case STITCH_CFA_RBP:
		s->bp_used |= s->bp_live;
		cfa = s->bp + (__s64)row->cfa_offset;
		break;
	case STITCH_CFA_PLT:
		cfa = s->sp + (__s64)row->cfa_offset +
		      ((__s64)(s->ip & 15) >= (__s64)row->rbp_offset ? 8 : 0);
		break;
	case STITCH_CFA_DEREF_RBP:
		s->bp_used |= s->bp_live;
		err = ku_read(s, ctx, s->bp + (__s64)row->cfa_offset, &cfa);
		if (err)
			return err;
		break;
	case STITCH_CFA_END:
		return KUNWIND_STOP_END;
	default:
		return KUNWIND_STOP_NO_RULE;
	}
	/* The caller's sp is the CFA: a stack that does not grow back up is garbage. */
	/* Equal for an arm64 leaf, once: unwind.c's unwind_step(). */
	if (cfa < s->sp || (cfa == s->sp && !STITCH_RA_IN_LR(row)))
		return KUNWIND_STOP_BAD;
#ifdef STITCH_ARCH_ARM64
	/* In x30 (a leaf, a prologue): known only where the registers are exact. */
	if (!row->ra_offset) {
		if (!s->exact)
			return KUNWIND_STOP_NO_RULE;
		ra = s->lr;
	} else {
		err = ku_read(s, ctx, cfa + (__s64)row->ra_offset, &ra);
	}
#else
	err = ku_read(s, ctx, cfa - 8, &ra);
#endif
	/*
	 * Past an epilogue's pop the save slot lies below sp and rbp holds
	 * the saved value again: compilers keep the save rule until the ret
	 * (unwind.c does the same).
	 */
	popped = row->rbp_rule == STITCH_RBP_AT_CFA && cfa + (__s64)row->rbp_offset < s->sp;
	if (!err && row->rbp_rule == STITCH_RBP_AT_CFA) {
		if (!popped)
			err = ku_read(s, ctx, cfa + (__s64)row->rbp_offset, &bp);
	} else if (!err && row->rbp_rule == STITCH_RBP_AT_RBP) {
		s->bp_used |= s->bp_live;
		err = ku_read(s, ctx, s->bp + (__s64)row->rbp_offset, &bp);
	} else if (!err && row->rbp_rule != STITCH_RBP_SAME) {
		err = KUNWIND_STOP_NO_RULE;
	}
	if (err)
		return err;
	ra = STITCH_PAC_STRIP(ra);
	if (ra == 0)
		return KUNWIND_STOP_BAD;
	s->ip = ra;
	s->sp = cfa;
	s->bp = bp;
	s->lr = 0;
	s->sp_bound = 0;
	/* Unless rbp is the same (or popped already), the caller's comes from memory. */
	s->bp_live &= row->rbp_rule == STITCH_RBP_SAME || popped;
	s->exact = 0;
	return 0;
}

/*
 * Whether the leaf's frame is built, at its pc in JIT code: not at the first
 * instructions of V8's prologue (push rbp; mov rbp, rsp; push rsi (context);
 * push rdi (function)), where rbp is still the caller's or the function's
 * slot not yet written, nor at a ret, where it is the caller's again.
 * Anywhere else in V8's generated code rbp is the frame's own.  arm64's
 * prologue (stp x29, x30; mov x29, sp; ...) is not checked yet: its leaf in
 * JIT code gets no V8 word.
 */
static __always_inline int ku_v8_leaf_framed(void *ctx, __u64 ip)
{
#ifdef STITCH_ARCH_ARM64
	return 0;
#else
	__u32 code;
	__u8 b0, b1, b2;

	if (ku_read_code(ctx, ip, &code))
		return 0;
	b0 = code & 0xff;
	b1 = (code >> 8) & 0xff;
	b2 = (code >> 16) & 0xff;
	if (b0 == 0x55 || b0 == 0x56 || b0 == 0x57 || b0 == 0xc3 || b0 == 0xc2)
		return 0;
	/* mov rbp, rsp, in either of its encodings */
	if (b0 == 0x48 && ((b1 == 0x89 && b2 == 0xe5) || (b1 == 0x8b && b2 == 0xec)))
		return 0;
	return 1;
#endif
}

/*
 * The bytecode offset an interpreted frame keeps (a Smi), as the bits of
 * its SharedFunctionInfo's word that carry it (KFRAME_V8_BCO_SHIFT), or 0:
 * the frame was not left by a return address in node's binary (an
 * interpreted frame's, or a builtin's, whose function has no bytecode:
 * user space tells), it is the leaf (the handlers keep the leaf's offset
 * in a register: its slot is stale), or the slot holds no such offset.
 * Not a word of its own: hashing a fourth word of every V8 frame made
 * capture_perf_event's verification walk 116,429 instructions (80,035
 * before).  A function of its own: inlined, its locals took ku_loop_cb's
 * frame to 128 bytes, capture_alloc's deepest chain to 544 of the 512.
 */
static __noinline __u64 ku_v8_bytecode_offset(struct ku_state *s, const struct kunwind_proc *p,
					      void *ctx, int anon)
{
	__u64 w;

	if (anon || s->exact || !p->v8_fp_bytecode_offset ||
	    ku_read(s, ctx, s->bp + (__s64)p->v8_fp_bytecode_offset, &w) ||
	    (w & 0xffffffff) || (w >> 32) >= KFRAME_V8_BCO_MAX)
		return 0;
	return ((w >> 32) + 1) << KFRAME_V8_BCO_SHIFT;
}

/*
 * V8 (node) keeps frame pointers in the code it generates and in its
 * builtins, and a JavaScript frame keeps its JSFunction and its context at
 * fixed slots from the frame pointer (kunwind_proc.v8_fp_*).  A typed frame
 * (entry, exit, stub, internal) keeps a Smi marker where the context is:
 * tagged 0, where a heap object is tagged 1.  So a frame whose context
 * slot holds a heap object and whose function slot a heap object pointer
 * gets a KFRAME_V8 word after it, and the function's SharedFunctionInfo
 * one more (KFRAME_V8_SFI), which user space names from the process's
 * memory (symbolize/v8_names.c), checking every object's type.  That one
 * read of the heap (~140 ns a frame: docs/performance.md) keeps the walk
 * from being remembered (ku_read_heap): the same slot words may hold
 * another function at the same address next time.
 */
static __always_inline void ku_v8_frame(struct ku_state *s, const struct kunwind_proc *p,
					void *ctx, int anon)
{
	__u64 cx, fn, sfi;

	if (s->n >= s->max || s->n >= KUNWIND_MAX_FRAMES)
		return;
	if (ku_read(s, ctx, s->bp + (__s64)p->v8_fp_context, &cx) || (cx & 3) != 1)
		return;
	if (ku_read(s, ctx, s->bp + (__s64)p->v8_fp_function, &fn) || (fn & 3) != 1 ||
	    (fn & ~KFRAME_V8_FUNC_MASK))
		return;
	if (s->exact && anon && !ku_v8_leaf_framed(ctx, s->ip))
		return;
	ku_emit(ctx, s->n, KFRAME_V8 | fn);
	s->n++;
	/* Without room or a readable one, user space reads it from the function. */
	if (!p->v8_fn_shared || s->n >= s->max || s->n >= KUNWIND_MAX_FRAMES ||
	    ku_read_heap(ctx, fn - 1 + p->v8_fn_shared, &sfi) || (sfi & 3) != 1 ||
	    (sfi & ~KFRAME_V8_FUNC_MASK))
		return;
	ku_emit(ctx, s->n, KFRAME_V8 | KFRAME_V8_SFI | sfi | ku_v8_bytecode_offset(s, p, ctx, anon));
	s->n++;
}

/*
 * A leaf in V8's builtins (node's text, no CFI) that has built no frame of
 * its own: TurboFan leaves it out on their fast paths (a push growing its
 * array: Builtins_GrowFastSmiOrObjectElements, 12-17% of closures.js's
 * samples).  rbp is still the caller's, and the frame-pointer step would
 * skip the caller's pc, an optimized frame's that places the functions
 * inlined into it.  The return address the call left at sp is believed if
 * it lies in JIT code right after a call to the leaf's builtin
 * (stitch_v8_called_from): then nothing was pushed since.
 * Steps to it (sp + 8, rbp kept): 1, else 0.
 */
static __always_inline int ku_v8_frameless_leaf(struct ku_state *s, const struct kunwind_proc *p,
						void *ctx)
{
#ifdef STITCH_ARCH_ARM64
	return 0;
#else
	const struct kunwind_map *m;
	__u32 op, rel;
	__u64 ra;

	if (ku_read(s, ctx, s->sp, &ra) || ra < 8)
		return 0;
	m = ku_map_search(p, ra - 1);
	if (!m || !(m->flags & KUNWIND_MAP_ANON))
		return 0;
	/* The byte at ra - 5 is the top one of the word at ra - 8. */
	if (ku_read_code(ctx, ra - 8, &op) || ku_read_code(ctx, ra - 4, &rel) ||
	    !stitch_v8_called_from(ra, op >> 24, (__s32)rel, s->ip))
		return 0;
	s->sp += 8;
	s->ip = ra;
	s->lr = 0;
	s->exact = 0;
	s->by_fp = 1;
	return 1;
#endif
}

/*
 * Code without CFI (anonymous executable memory: JIT code; or a binary's
 * text no FDE covers: V8's builtins in node): the frame-pointer step,
 * unwind.c's unwind_step_fp() and step_fp(), check for check.  rbp must lie
 * on the stack at or above sp (so it grows strictly from one such step to
 * the next), the return address in executable code of the list; else the
 * stack is cut here rather than stepped to a guess.
 */
static __always_inline int ku_step_fp(struct ku_state *s, const struct kunwind_proc *p,
				      void *ctx, int anon)
{
	const struct kunwind_map *m;
	__u64 bp, ra;
	int err;

	if (s->n >= s->max)
		return KUNWIND_STOP_TRUNCATED;
	s->bp_used |= s->bp_live;
	if (s->bp < s->sp || (s->bp & 7))
		return KUNWIND_STOP_NO_RULE;
	if (p->v8_fp_function && s->exact && !anon && ku_v8_frameless_leaf(s, p, ctx))
		return 0;
	if (p->v8_fp_function)
		ku_v8_frame(s, p, ctx, anon);
	err = ku_read(s, ctx, s->bp, &bp);
	if (!err)
		err = ku_read(s, ctx, s->bp + 8, &ra);
	if (err)
		return err;
	ra = STITCH_PAC_STRIP(ra);
	if (ra == 0)
		return KUNWIND_STOP_NO_RULE;
	/*
	 * In no mapping of the list: it may be stale (JIT code is mapped all
	 * the time), let user space decide.  Seen in 1 of ~200 node stacks.
	 */
	m = ku_map_search(p, ra - 1);
	if (!m)
		return KUNWIND_STOP_FALLBACK;
	if (m->slot == KUNWIND_NO_SLOT && !(m->flags & KUNWIND_MAP_ANON))
		return KUNWIND_STOP_NO_RULE;
	/*
	 * arm64's frame record may lie anywhere in its frame (gcc: at the
	 * bottom), so sp is only a bound there (unwind.c's unwind_step_fp()).
	 */
	s->sp = s->bp + 16;
	s->ip = ra;
	s->bp = bp;
	s->lr = 0;
#ifdef STITCH_ARCH_ARM64
	s->sp_bound = 1;
#endif
	s->bp_live = 0;
	s->exact = 0;
	s->by_fp = 1;
	return 0;
}

/*
 * One frame: emit the frame at s->ip, find its row, step to the caller.
 * 0 to go on, else a KUNWIND_STOP_* (the frame emitted counts).  The order
 * of the checks is the user-space unwinder's, so both stop alike.
 */
static __always_inline int ku_walk_frame(struct ku_state *s, const struct kunwind_proc *p,
					 void *ctx)
{
	const struct kunwind_map *m, *rm;
	const struct stitch_unwind_row *row;
	/* A return address may be just past the function (noreturn calls). */
	__u64 pc = s->exact ? s->ip : s->ip - 1;
	__u64 word, vaddr;

	if (s->n >= s->max || s->n >= KUNWIND_MAX_FRAMES)
		return KUNWIND_STOP_TRUNCATED;
	m = ku_find_map_hint(p, s->ip, &s->hint);
	/*
	 * A return address in no mapping may be a uretprobe's trampoline
	 * (stitch latency's roots and --children, or anyone's), which the
	 * kernel put where the return address was: at sp - 8, read by the last
	 * step.  The thread's return instances say what it was.  Asked on a
	 * miss only: finding the trampoline costs loads no other walk needs.
	 */
	if (!m && !s->exact && ku_uret_orig(ctx, s->ip, s->sp - STITCH_URET_SLOT_BELOW_SP, &word) && word) {
		s->ip = word;
		s->uret_fixed = 1;
		pc = word - 1;
		m = ku_find_map_hint(p, s->ip, &s->hint);
	}
	/* A pc in no mapping we know: the list may be stale, let user space decide. */
	if (!m)
		return KUNWIND_STOP_FALLBACK;
	if (m->slot != KUNWIND_NO_SLOT) {
		vaddr = s->ip - m->bias;
		if (vaddr >> 32 || m->slot > KFRAME_SLOT_MASK)
			return KUNWIND_STOP_FALLBACK;
		word = KFRAME_IN_BINARY | ((__u64)m->slot << KFRAME_SLOT_SHIFT) | vaddr;
	} else {
		word = s->ip & KFRAME_ADDR_MASK;
	}
	if (s->exact)
		word |= KFRAME_EXACT;
	if (s->by_fp)
		word |= KFRAME_BY_FP;
	s->by_fp = 0;
	ku_emit(ctx, s->n, word);
	s->n++;

	rm = pc >= m->start && pc < m->end ? m : ku_map_search(p, pc);
	if (!rm)
		return KUNWIND_STOP_FALLBACK;
	if (rm->slot == KUNWIND_NO_SLOT) {
		if (!(rm->flags & KUNWIND_MAP_ANON))
			return KUNWIND_STOP_NO_MODULE;
		row = 0;
	} else {
		if (!(rm->flags & KUNWIND_MAP_TABLE))
			return KUNWIND_STOP_FALLBACK;
		vaddr = pc - rm->bias;
		if (vaddr >> 32)
			return KUNWIND_STOP_NO_RULE;
		/*
		 * Recursion repeats a return address frame after frame: its
		 * row is the one just found.  Only within one walk, whose
		 * mappings and rows do not change under it.
		 */
		if (pc == s->last_pc) {
			row = ku_row_at(ctx, s->last_row);
		} else {
			row = ku_find_row_cached(ctx, rm->row_first, rm->row_nr, (__u32)vaddr,
						 rm->slot, &s->last_row);
			s->last_pc = row ? pc : 0;
		}
	}
	/* Anonymous code, or text before or between FDEs: no CFI. */
	if (!row || row->cfa_rule == STITCH_CFA_NO_FDE)
		return ku_step_fp(s, p, ctx, rm->slot == KUNWIND_NO_SLOT);
	/*
	 * A signal trampoline is entered by the handler's return, not by a
	 * call: its pc is exact, so it is named as itself.
	 */
	if (row->cfa_rule == STITCH_CFA_SIGNAL)
		ku_set_exact(ctx, s->n - 1);
	if (s->n >= s->max)
		return row->cfa_rule == STITCH_CFA_END ? KUNWIND_STOP_END : KUNWIND_STOP_TRUNCATED;
	return ku_step(row, s, ctx);
}

#endif /* STITCH_CAPTURE_UNWIND_IN_KERNEL_STEP_H */
