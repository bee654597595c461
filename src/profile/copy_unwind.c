// SPDX-License-Identifier: GPL-2.0
/* A copied user stack into counted frames: see copy_unwind.h. */
#include <string.h>
#include <sys/uio.h>

#include "profile/copy_unwind.h"
#include "profile/hotspot_frames.h"
#include "profile/jit_frames.h"

struct lookup_ctx {
	struct binary_cache *bins;
	struct proc *proc;
};

static const struct unwind_table *lookup_table(void *ctx, uint64_t pc, uint64_t *bias)
{
	struct lookup_ctx *l = ctx;
	const struct map *m = proc_find_map(l->proc, pc);

	if (!m)
		return NULL;
	if (!m->bin)
		return m->anon ? &unwind_table_jit : NULL;
	*bias = m->bias;
	return binary_table(l->bins, m->bin);
}

/*
 * The JSFunction a V8 frame left by a frame-pointer step kept (its frame
 * pointer f->bp), read from the copied stack as the kernel's walk reads it
 * (unwind_in_kernel_step.h, ku_v8_frame): 0 if it is no JavaScript frame,
 * or if its slot in the live stack holds another word now.  The copy is
 * named after the event, and the kernel's walk reads the function's
 * SharedFunctionInfo at the event, the copy cannot: a young JSFunction the
 * GC moved since (which rewrote the slot) left its address to other
 * objects, another function's maybe (node making a closure a call, 13 of
 * 1,929 samples named as the other of two such functions, and 1,333
 * unnamed, in the kernel's walk before it read them at the event).  A
 * slot still holding it: the same function, or a frame since made at the
 * same place for the same function.
 */
static uint64_t v8_function(const struct v8_meta *v8, const struct unwind_stack *stack,
			    const struct unwind_frame *f, const struct map *m, uint32_t pid)
{
	uint64_t cx, fn, now;
	struct iovec to = { &now, sizeof(now) };
	struct iovec from = { (void *)(uintptr_t)(f->bp + (int64_t)v8->fp_function), sizeof(now) };

	if (!f->bp || unwind_stack_read((void *)stack, f->bp + (int64_t)v8->fp_context, &cx) ||
	    (cx & 3) != 1 ||
	    unwind_stack_read((void *)stack, f->bp + (int64_t)v8->fp_function, &fn) ||
	    (fn & 3) != 1 || fn >> 48)
		return 0;
	if (process_vm_readv((pid_t)pid, &to, 1, &from, 1, 0) != sizeof(now) || now != fn)
		return 0;
	if (f->exact && (!m || !m->bin)) {
		uint8_t code[3];
		struct iovec local = { code, sizeof(code) };
		struct iovec remote = { (void *)(uintptr_t)f->pc, sizeof(code) };

		if (process_vm_readv((pid_t)pid, &local, 1, &remote, 1, 0) != sizeof(code) ||
		    !v8_leaf_framed(code))
			return 0;
	}
	return fn;
}

int copy_unwind(struct binary_cache *bins, struct proc *proc, const struct unwind_regs *regs,
		const struct unwind_stack *stack, struct unwind_frame *scratch, int max,
		struct uframe *uf, enum unwind_stop *why, bool name_jit)
{
	struct lookup_ctx lc = { bins, proc };
	const struct v8_meta *v8 = name_jit ? procs_v8(proc) : NULL;
	struct hotspot_walk hw = { proc->pid, procs_hotspot(proc) };
	struct unwind_stack st = *stack;
	int n, i, nu = 0;

	*why = UNWIND_STOP_END;
	if (hw.meta) {
		st.jit_step = hotspot_step;
		st.jit_ctx = &hw;
	}
	n = unwind_user(regs, &st, lookup_table, &lc, scratch, max, why);
	for (i = 0; i < n; i++) {
		const struct map *m = proc_find_map(proc, scratch[i].pc);

		/*
		 * A return address in [uprobes] is a uretprobe's trampoline
		 * the capture brought no real address for (a stack copied
		 * without them): no caller, so the stack is cut here.
		 */
		if (m && m->uprobes && !scratch[i].exact) {
			if (*why == UNWIND_STOP_END)
				*why = UNWIND_STOP_NO_MODULE;
			break;
		}

		memset(&uf[nu], 0, sizeof(uf[nu]));
		uf[nu].exact = scratch[i].exact;
		uf[nu].by_fp = scratch[i].by_fp;
		if (m && m->bin) {
			uf[nu].kind = UFRAME_ELF;
			uf[nu].bin = m->bin;
			uf[nu].addr = scratch[i].pc - m->bias;
		} else {
			uf[nu].kind = UFRAME_UNKNOWN;
			uf[nu].addr = scratch[i].pc;
		}
		nu++;
		/* Room for a caller the leaf may get, and the marker. */
		if (v8 && nu < max) {
			uint64_t fn = v8_function(v8, stack, &scratch[i], m, proc->pid);

			/* Inlined functions too, as long as what follows keeps its room. */
			if (fn)
				nu = jit_frames_v8(proc->pid, fn, 0, uf, nu, max - 1 - (n - 1 - i));
		}
		/* Room for the methods inlined into it, and the marker. */
		if (hw.meta && name_jit && m && m->anon)
			nu = hotspot_frames(&hw, &st, &scratch[i], uf, nu, max - 1);
	}
	/* Say how it ended, unless it visibly ends in an unknown frame already. */
	if (*why != UNWIND_STOP_END && !(nu && uf[nu - 1].kind == UFRAME_UNKNOWN)) {
		memset(&uf[nu], 0, sizeof(uf[nu]));
		uf[nu].kind = *why == UNWIND_STOP_TRUNCATED ? UFRAME_TRUNCATED : UFRAME_CUT;
		nu++;
	}
	return nu;
}
