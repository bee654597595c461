/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPython 3.11-style walker (included by interp.bpf.h).  The thread state
 * comes from the triggering thread's own pthread key slot, never from
 * _PyRuntime's GIL holder; the frames are the _PyInterpreterFrame list from
 * tstate->cframe->current_frame.  Every code object is type-checked; a read
 * that fails or a check that does not hold ends the walk, marked.
 */
#ifndef STITCH_INTERP_PYTHON_BPF_H
#define STITCH_INTERP_PYTHON_BPF_H

static __always_inline void interp_python_walk(struct interp_event *ev, struct interp_scratch *s,
					       const struct interp_proc_cfg *cfg,
					       const struct interp_python_layout *L, __u64 fs_base)
{
	__u64 tstate = 0, cframe = 0, frame = 0, code;
	__u32 key = 0, frame_read = L->frame_read, code_read = L->code_read;
	__u32 n = 0;
	int i;

	if (frame_read == 0 || frame_read > INTERP_CHUNK || code_read == 0 ||
	    code_read > INTERP_CHUNK) {
		ev->flags |= INTERP_EV_CORRUPT;
		return;
	}
	if (bpf_probe_read_user(&key, sizeof(key), (void *)cfg->tss_key_addr)) {
		ev->flags |= INTERP_EV_FAULT;
		return;
	}
	/* Keys >= 32 live in a second-level array; CPython creates its key first. */
	if (key >= 32) {
		ev->flags |= INTERP_EV_BAD_KEY;
		return;
	}
	if (bpf_probe_read_user(&tstate, sizeof(tstate),
				(void *)(fs_base + cfg->pthread_specific + key * 16 + 8))) {
		ev->flags |= INTERP_EV_FAULT;
		return;
	}
	if (!tstate)		/* a thread that never ran Python code */
		return;
	if (bpf_probe_read_user(&cframe, sizeof(cframe), (void *)(tstate + L->tstate_cframe)) ||
	    !cframe ||
	    bpf_probe_read_user(&frame, sizeof(frame),
				(void *)(cframe + L->cframe_current_frame))) {
		ev->flags |= INTERP_EV_FAULT;
		return;
	}
	for (i = 0; i < INTERP_MAX_FRAMES && frame; i++) {
		struct interp_frame *f;

		barrier_var(frame_read);
		if (bpf_probe_read_user(s->frame, frame_read & (INTERP_CHUNK - 1), (void *)frame)) {
			ev->flags |= INTERP_EV_FAULT;
			break;
		}
		code = chunk_u64(s->frame, L->frame_code);
		barrier_var(code_read);
		if (!code || bpf_probe_read_user(s->code, code_read & (INTERP_CHUNK - 1),
						 (void *)code)) {
			ev->flags |= INTERP_EV_FAULT;
			break;
		}
		if (chunk_u64(s->code, L->ob_type) != cfg->code_type) {
			ev->flags |= INTERP_EV_CORRUPT;
			break;
		}
		f = &ev->frames[n & (INTERP_MAX_FRAMES - 1)];
		f->addr = code;
		f->pc = chunk_u64(s->frame, L->frame_instr);
		f->id1 = chunk_u64(s->code, L->code_qualname);
		f->id2 = chunk_u64(s->code, L->code_filename);
		f->id3 = chunk_u32(s->code, L->code_firstlineno);
		f->flags = (chunk_u8(s->frame, L->frame_is_entry) ? INTERP_FRAME_ENTRY : 0) |
			   (__u32)chunk_u8(s->frame, L->frame_owner) << INTERP_FRAME_OWNER_SHIFT;
		n++;
		frame = chunk_u64(s->frame, L->frame_previous);
	}
	if (frame && !(ev->flags & (INTERP_EV_FAULT | INTERP_EV_CORRUPT)))
		ev->flags |= INTERP_EV_TRUNCATED;
	ev->nframes = n;
}

#endif /* STITCH_INTERP_PYTHON_BPF_H */
