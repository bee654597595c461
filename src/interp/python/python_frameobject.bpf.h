/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPython 3.8 - 3.10 walker (python.bpf.h calls it when the layout says
 * frameobject): the thread state from the triggering thread's own pthread
 * key slot, then tstate->frame, a PyFrameObject, and its f_back chain.
 * Each of these frames is run by its own _PyEval_EvalFrameDefault call, so
 * every frame is an entry frame (a group of its own in splice.c).  Every
 * frame is type-checked against PyFrame_Type and its code object against
 * PyCode_Type; a read that fails or a check that does not hold ends the
 * walk, marked.
 */
#ifndef STITCH_INTERP_PYTHON_FRAMEOBJECT_BPF_H
#define STITCH_INTERP_PYTHON_FRAMEOBJECT_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "interp/walker_base.bpf.h"
#include "interp/python/python_code.bpf.h"

/* State of one walk, for the bpf_loop() callback. */
struct pyfo_walk {
	struct task_struct *task;
	struct interp_event *ev;
	struct interp_scratch *s;
	const struct interp_proc_cfg *cfg;
	const struct interp_python_layout *L;
};

static long interp_pyfo_step(__u64 i, void *ctx)
{
	struct pyfo_walk *w = ctx;
	struct interp_event *ev = w->ev;
	struct interp_scratch *s = w->s;
	const struct interp_python_layout *L = w->L;
	__u32 frame_read = L->frame_read, code_read = L->code_read;
	struct interp_frame *f, *prev;
	__u64 code;
	__u32 bad;

	if (!s->cursor)
		return 1;
	if (frame_read == 0 || frame_read >= INTERP_CHUNK || code_read == 0 ||
	    code_read >= INTERP_CHUNK) {
		ev->flags |= INTERP_EV_CORRUPT;
		return 1;
	}
	barrier_var(frame_read);
	frame_read &= INTERP_CHUNK - 1;
	barrier_var(code_read);
	code_read &= INTERP_CHUNK - 1;
	/*
	 * Frame objects are heap objects (a code object's zombie frame, the
	 * free list, a generator's own): no two need lie side by side, so
	 * each is read on its own.
	 */
	if (interp_read(w->task, s->frame, frame_read, s->cursor)) {
		ev->flags |= INTERP_EV_FAULT;
		return 1;
	}
	if (chunk_u64(s->frame, L->ob_type) != w->cfg->py.frame_type) {
		ev->flags |= INTERP_EV_CORRUPT;
		return 1;
	}
	code = chunk_u64(s->frame, L->fo_code);
	f = &ev->frames[s->n & (INTERP_MAX_FRAMES - 1)];
	prev = &ev->frames[(s->n - 1) & (INTERP_MAX_FRAMES - 1)];
	bad = py_code_identity(w->task, s, w->cfg, L, f, prev, code, code_read);
	if (bad) {
		ev->flags |= bad;
		return 1;
	}
	f->addr = code;
	/* f_lasti is an int: -1 before the first instruction. */
	f->pc = (__u64)(__s64)(__s32)chunk_u32(s->frame, L->fo_lasti);
	f->flags = INTERP_FRAME_ENTRY;
	s->n++;
	s->cursor = chunk_u64(s->frame, L->fo_back);
	return 0;
}

/*
 * From thread state tstate, which the caller found in this thread's own key
 * slot and checked is this thread's (its thread_id is its pthread_self()).
 */
static __always_inline void interp_pyfo_walk(struct task_struct *task, struct interp_event *ev,
					     struct interp_scratch *s,
					     const struct interp_proc_cfg *cfg,
					     const struct interp_python_layout *L, __u64 tstate)
{
	struct pyfo_walk w = { .task = task, .ev = ev, .s = s, .cfg = cfg, .L = L };
	long loops;

	s->n = 0;
	s->cursor = 0;
	if (interp_read(task, &s->cursor, sizeof(s->cursor), tstate + L->tstate_frame)) {
		ev->flags |= INTERP_EV_FAULT;
		return;
	}
	loops = interp_loop(INTERP_MAX_FRAMES, interp_pyfo_step, &w);
	if (s->cursor && (s->n >= INTERP_MAX_FRAMES || loops >= interp_loop_cap(INTERP_MAX_FRAMES)))
		ev->flags |= INTERP_EV_TRUNCATED;
	ev->nframes = s->n;
}

#endif /* STITCH_INTERP_PYTHON_FRAMEOBJECT_BPF_H */
