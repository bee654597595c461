/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What both CPython walkers (python.bpf.h's _PyInterpreterFrame list,
 * python_frameobject.bpf.h's PyFrameObject chain) do with a frame's code
 * object: read and type-check it, and keep its identity fields, which user
 * space checks again before naming the frame.
 */
#ifndef STITCH_INTERP_PYTHON_CODE_BPF_H
#define STITCH_INTERP_PYTHON_CODE_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "interp/walker_base.bpf.h"

/*
 * Frame f (the walk's s->n-th) runs code: its identity fields into f.  A
 * recursion's frame runs the code object its callee ran (prev): a frame
 * holds a reference to its code object, whose names and first line never
 * change, so within one walk they are those just read, one read of ~90 ns
 * saved per repeated frame.  code_read: bytes of a code object to read,
 * already masked below INTERP_CHUNK.  0, or the flag that ends the walk.
 */
static __always_inline __u32 py_code_identity(struct task_struct *task, struct interp_scratch *s,
					      const struct interp_proc_cfg *cfg,
					      const struct interp_python_layout *L,
					      struct interp_frame *f,
					      const struct interp_frame *prev, __u64 code,
					      __u32 code_read)
{
	if (s->n && code && prev->addr == code) {
		f->id1 = prev->id1;
		f->id2 = prev->id2;
		f->id3 = prev->id3;
		return 0;
	}
	if (!code || interp_read(task, s->code, code_read, code))
		return INTERP_EV_FAULT;
	if (chunk_u64(s->code, L->ob_type) != cfg->py.code_type)
		return INTERP_EV_CORRUPT;
	f->id1 = chunk_u64(s->code, L->code_qualname);
	f->id2 = chunk_u64(s->code, L->code_filename);
	f->id3 = chunk_u32(s->code, L->code_firstlineno);
	return 0;
}

#endif /* STITCH_INTERP_PYTHON_CODE_BPF_H */
