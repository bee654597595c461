/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPython 3.11-style walker (walk_thread.bpf.h calls it).  The thread
 * state comes from the triggering thread's own pthread key slot (3.15: its
 * own thread-local variable), never from _PyRuntime's GIL holder, and must
 * say it is that thread's (thread_id == pthread_self()); the
 * frames are the _PyInterpreterFrame list from tstate->cframe->current_frame
 * (3.13 on: tstate->current_frame).  Every code object is type-checked; a
 * read that fails or a check that does not hold ends the walk, marked.  3.12
 * on mark an eval call's start by a shim frame owned by the C stack
 * (PY_LAYOUT_CSTACK_ENTRY).
 */
#ifndef STITCH_INTERP_PYTHON_BPF_H
#define STITCH_INTERP_PYTHON_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "interp/walker_base.bpf.h"
#include "interp/python/python_code.bpf.h"
#include "interp/python/python_frameobject.bpf.h"

/* State of one walk, for the bpf_loop() callback (verified once, not per iteration). */
struct py_walk {
	struct task_struct *task;
	struct interp_event *ev;
	struct interp_scratch *s;
	const struct interp_proc_cfg *cfg;
	const struct interp_python_layout *L;
	__u64 base_frame;	/* 3.15: the thread's sentinel frame, where the walk ends */
};

static long interp_python_step(__u64 i, void *ctx)
{
	struct py_walk *w = ctx;
	struct interp_event *ev = w->ev;
	struct interp_scratch *s = w->s;
	const struct interp_python_layout *L = w->L;
	__u32 frame_read = L->frame_read, code_read = L->code_read;
	struct interp_frame *f, *prev;
	const __u8 *fr;
	__u64 code;
	__u32 bad;
	__u8 owner;

	if (!s->cursor)
		return 1;
	if (s->cursor == w->base_frame) {	/* below every eval call's frames */
		s->cursor = 0;
		return 1;
	}
	if (frame_read == 0 || frame_read >= INTERP_CHUNK || code_read == 0 ||
	    code_read >= INTERP_CHUNK) {
		ev->flags |= INTERP_EV_CORRUPT;
		return 1;
	}
	/* Masks the verifier can see: the compiler may not drop them after the barrier. */
	barrier_var(frame_read);
	frame_read &= INTERP_CHUNK - 1;
	barrier_var(code_read);
	code_read &= INTERP_CHUNK - 1;
	/*
	 * A thread's frames lie below one another in its data stack (callers
	 * at lower addresses): one window read ending at this frame holds
	 * ~20 of them.  Generators' frames live in their objects: a window each.
	 */
	fr = interp_window_below(w->task, &s->win[0], s->cursor, frame_read);
	if (!fr) {
		ev->flags |= INTERP_EV_FAULT;
		return 1;
	}
	f = &ev->frames[s->n & (INTERP_MAX_FRAMES - 1)];
	owner = chunk_u8(fr, L->frame_owner);
	if ((L->layout_flags & PY_LAYOUT_CSTACK_ENTRY) && owner == L->owner_cstack) {
		/*
		 * The shim an eval call pushes below its first frame: sent
		 * with no code, it ends that call's group (even an empty one,
		 * a sample between the shim's push and the first frame's).
		 */
		f->addr = 0;
		f->pc = 0;
		f->id1 = 0;
		f->id2 = 0;
		f->id3 = 0;
		f->flags = INTERP_FRAME_ENTRY | (__u32)owner << PYTHON_FRAME_OWNER_SHIFT;
		s->n++;
		s->cursor = chunk_u64(fr, L->frame_previous);
		return 0;
	}
	code = chunk_u64(fr, L->frame_code);
	if (L->layout_flags & PY_LAYOUT_TAGGED_EXEC)
		code &= ~(__u64)PY_EXEC_TAG_BITS;
	/* 3.13: a frame entered from C may run None, not code: not a frame to show. */
	if (code && code == w->cfg->py.none_addr) {
		s->cursor = chunk_u64(fr, L->frame_previous);
		return 0;
	}
	prev = &ev->frames[(s->n - 1) & (INTERP_MAX_FRAMES - 1)];
	bad = py_code_identity(w->task, s, w->cfg, L, f, prev, code, code_read);
	if (bad) {
		ev->flags |= bad;
		return 1;
	}
	f->addr = code;
	f->pc = chunk_u64(fr, L->frame_instr);
	f->flags = (!(L->layout_flags & PY_LAYOUT_CSTACK_ENTRY) &&
		    chunk_u8(fr, L->frame_is_entry) ? INTERP_FRAME_ENTRY : 0) |
		   (__u32)owner << PYTHON_FRAME_OWNER_SHIFT;
	s->n++;
	s->cursor = chunk_u64(fr, L->frame_previous);
	return 0;
}

static __always_inline void interp_python_walk(struct task_struct *task, struct interp_event *ev,
					       struct interp_scratch *s,
					       const struct interp_proc_cfg *cfg,
					       const struct interp_python_layout *L, __u64 fs_base)
{
	struct py_walk w = { .task = task, .ev = ev, .s = s, .cfg = cfg, .L = L };
	__u64 tstate = 0, cframe = 0;
	__u32 key = 0;
	long loops;

	if (L->layout_flags & PY_LAYOUT_TLS_TSTATE) {
		/* 3.15: the executable's own thread-local, at a fixed place from fs_base. */
		if (interp_read(task, &tstate, sizeof(tstate), fs_base + cfg->py.tstate_tls)) {
			ev->flags |= INTERP_EV_FAULT;
			return;
		}
	} else {
		if (interp_read(task, &key, sizeof(key), cfg->py.tss_key_addr)) {
			ev->flags |= INTERP_EV_FAULT;
			return;
		}
		/* Keys >= 32 live in a second-level array; CPython creates its key first. */
		if (key >= 32) {
			ev->flags |= INTERP_EV_BAD_KEY;
			return;
		}
		if (interp_read(task, &tstate, sizeof(tstate),
				fs_base + (__s64)cfg->pthread_specific + key * 16 + 8)) {
			ev->flags |= INTERP_EV_FAULT;
			return;
		}
	}
	if (!tstate)		/* a thread that never ran Python code */
		return;
	s->n = 0;
	s->cursor = 0;
	/*
	 * The key's slot is this thread's, but a stale or misread value would
	 * give another thread's frames: its state must name this thread
	 * (pthread_self(): fs_base with glibc on x86-64, below it on arm64;
	 * cfg->pthread_self is 0 or that offset).  Every version's layout has
	 * the field.
	 */
	if (L->tstate_thread_id) {
		__u64 owner_thread = 0;

		if (interp_read(task, &owner_thread, sizeof(owner_thread),
				tstate + L->tstate_thread_id)) {
			ev->flags |= INTERP_EV_FAULT;
			return;
		}
		if (owner_thread != fs_base + (__s64)cfg->pthread_self) {
			ev->flags |= INTERP_EV_CORRUPT;
			return;
		}
	}
	if (L->frameobject) {	/* 3.8 - 3.10 */
		interp_pyfo_walk(task, ev, s, cfg, L, tstate);
		return;
	}
	if (L->tstate_base_frame && (interp_read(task, &w.base_frame, sizeof(w.base_frame),
						 tstate + L->tstate_base_frame) ||
				     !w.base_frame)) {
		ev->flags |= INTERP_EV_FAULT;
		return;
	}
	if (L->layout_flags & PY_LAYOUT_NO_CFRAME) {
		if (interp_read(task, &s->cursor, sizeof(s->cursor),
				tstate + L->tstate_current_frame)) {
			ev->flags |= INTERP_EV_FAULT;
			return;
		}
	} else if (interp_read(task, &cframe, sizeof(cframe), tstate + L->tstate_cframe) ||
		   !cframe ||
		   interp_read(task, &s->cursor, sizeof(s->cursor),
			       cframe + L->cframe_current_frame)) {
		ev->flags |= INTERP_EV_FAULT;
		return;
	}
	loops = interp_loop(INTERP_MAX_FRAMES, interp_python_step, &w);
	if (s->cursor && (s->n >= INTERP_MAX_FRAMES || loops >= interp_loop_cap(INTERP_MAX_FRAMES)))
		ev->flags |= INTERP_EV_TRUNCATED;
	ev->nframes = s->n;
}

#endif /* STITCH_INTERP_PYTHON_BPF_H */
