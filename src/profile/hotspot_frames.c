// SPDX-License-Identifier: GPL-2.0
/* HotSpot's frames in a copied user stack: see hotspot_frames.h. */
#include <stdio.h>
#include <string.h>

#include "profile/hotspot_frames.h"
#include "profile/jit_frames.h"
#include "symbolize/hotspot_names.h"

/* Interpreted frames' slots from rbp, in words (cpu/x86/frame_x86.hpp). */
#define HS_INTERP_METHOD	(-3)
#define HS_INTERP_CACHE		(-6)
#define HS_INTERP_BCP		(-8)
#define HS_MAX_INLINED		16

/*
 * Where a leaf at pc stands in a compiled method's epilogue, from the code
 * there: C1's and C2's returns are `add rsp, N; pop rbp`, the return poll
 * `cmp rsp, [r15 + d32]; ja stub`, then `ret` (c2_MacroAssembler_x86.cpp,
 * c1_LIRAssembler_x86.cpp).  2: rbp popped, the return address at sp;
 * 1: at the pop, rbp at sp and the return address above; 0: the frame is
 * whole (anywhere else).
 */
static int epilogue_state(const uint8_t *c)
{
	/* cmp rsp, [r15 + disp32]; ja rel32; ret */
	if (c[0] == 0x49 && c[1] == 0x3b && c[2] == 0xa7 && c[7] == 0x0f && c[8] == 0x87 &&
	    c[13] == 0xc3)
		return 2;
	if (c[0] == 0x0f && c[1] == 0x87 && c[6] == 0xc3)
		return 2;
	if (c[0] == 0xc3)
		return 2;
	if (c[0] == 0x5d && ((c[1] == 0x49 && c[2] == 0x3b && c[3] == 0xa7) || c[1] == 0xc3))
		return 1;
	return 0;
}

int hotspot_step(void *ctx, struct unwind_regs *r, bool exact, const struct unwind_stack *stack)
{
	const struct hotspot_walk *w = ctx;
	struct hotspot_blob b;
	uint64_t csp, ra, bp;
	int state = 0;

	if (hotspot_blob_find(w->pid, w->meta, exact ? r->ip : r->ip - 1, &b))
		return UNWIND_JIT_NOT_MINE;
	/* The interpreter and the stubs keep rbp as their frame pointer. */
	if (b.kind != HOTSPOT_BLOB_NMETHOD || !b.frame_words)
		return UNWIND_JIT_NOT_MINE;
	if (exact) {
		uint8_t code[16];

		/* Before its frame is complete, where the return address lies is not known. */
		if (b.frame_complete < 0 || r->ip < b.code_begin + (uint64_t)b.frame_complete)
			return UNWIND_STOP_NO_RULE;
		if (hotspot_mem(w->pid, r->ip, code, sizeof(code)))
			return UNWIND_STOP_NO_RULE;
		state = epilogue_state(code);
	}
	switch (state) {
	case 2:
		if (unwind_stack_read((void *)stack, r->sp, &ra))
			return UNWIND_STOP_TRUNCATED;
		csp = r->sp + 8;
		bp = r->bp;
		break;
	case 1:
		if (unwind_stack_read((void *)stack, r->sp, &bp) ||
		    unwind_stack_read((void *)stack, r->sp + 8, &ra))
			return UNWIND_STOP_TRUNCATED;
		csp = r->sp + 16;
		break;
	default:
		/* The frame's words hold the return address and the caller's rbp at its top. */
		csp = r->sp + 8ull * b.frame_words;
		if (unwind_stack_read((void *)stack, csp - 8, &ra) ||
		    unwind_stack_read((void *)stack, csp - 16, &bp))
			return UNWIND_STOP_TRUNCATED;
	}
	r->ip = ra;
	r->sp = csp;
	r->bp = bp;
	return 0;
}

static int put(struct uframe *uf, int at, int max, const struct hotspot_frame *hf)
{
	const struct interp_name *in = jit_frame_name(hf->name, hf->file, hf->line);

	if (!in || at >= max)
		return at;
	memset(&uf[at], 0, sizeof(uf[at]));
	uf[at].kind = UFRAME_INTERP;
	uf[at].addr = (uint64_t)(uintptr_t)in;
	return at + 1;
}

int hotspot_frames(const struct hotspot_walk *w, const struct unwind_stack *stack,
		   const struct unwind_frame *f, struct uframe *uf, int at, int max)
{
	struct hotspot_frame hf[HS_MAX_INLINED];
	struct hotspot_blob b;
	int n, i;

	if (!at || hotspot_blob_find(w->pid, w->meta, f->exact ? f->pc : f->pc - 1, &b))
		return at;
	switch (b.kind) {
	case HOTSPOT_BLOB_NMETHOD:
		n = hotspot_compiled_frames(w->pid, w->meta, &b, f->pc, f->exact, hf, HS_MAX_INLINED);
		break;
	case HOTSPOT_BLOB_INTERPRETER: {
		uint64_t method, cache, bcp;

		/* Its frame pointer, as the walk left the frame (a frame-pointer step). */
		n = 0;
		if (f->bp && !unwind_stack_read((void *)stack, f->bp + 8 * HS_INTERP_METHOD, &method) &&
		    !unwind_stack_read((void *)stack, f->bp + 8 * HS_INTERP_CACHE, &cache) &&
		    !unwind_stack_read((void *)stack, f->bp + 8 * HS_INTERP_BCP, &bcp) &&
		    !hotspot_interpreted_frame(w->pid, w->meta, method, cache, bcp, !f->exact, &hf[0]))
			n = 1;
		break;
	}
	default:
		/* A stub: its name says where the stack runs (the call stub into Java, ...). */
		if (!b.name[0])
			return at;
		hf[0].name = b.name;
		hf[0].file = NULL;
		hf[0].line = 0;
		n = 1;
	}
	if (!n)
		return at;
	/* In the raw frame's place, then after it. */
	for (i = 0; i < n; i++) {
		int next = put(uf, i ? at : at - 1, max, &hf[i]);

		if (!i && next == at - 1)
			return at;	/* not even the first named: the raw frame stays */
		at = next;
	}
	return at;
}
