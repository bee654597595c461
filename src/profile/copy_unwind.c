// SPDX-License-Identifier: GPL-2.0
/* A copied user stack into counted frames: see copy_unwind.h. */
#include <string.h>
#include <sys/uio.h>

#include "profile/copy_unwind.h"
#include "profile/hotspot_frames.h"
#include "profile/jit_frames.h"
#include "symbolize/hotspot_names.h"
#include "symbolize/v8_heap.h"
#include "symbolize/v8_inlined.h"

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
 * Whether the live frame of pid at bp still holds fn and ba in its
 * function's and BytecodeArray's slots (one read over both).
 */
static bool live_frame_holds(uint32_t pid, const struct v8_meta *v8, uint64_t bp, uint64_t fn,
			     uint64_t ba)
{
	int32_t lo = v8->fp_function < v8->fp_bytecode_array ? v8->fp_function :
							       v8->fp_bytecode_array;
	int32_t hi = v8->fp_function ^ v8->fp_bytecode_array ^ lo;
	uint64_t w[8];
	struct iovec to = { w, (size_t)(hi - lo) + 8 };
	struct iovec from = { (void *)(uintptr_t)(bp + (int64_t)lo), to.iov_len };

	if (hi - lo > 56 || (hi - lo) % 8 ||
	    process_vm_readv((pid_t)pid, &to, 1, &from, 1, 0) != (ssize_t)to.iov_len)
		return false;
	return w[(v8->fp_function - lo) / 8] == fn && w[(v8->fp_bytecode_array - lo) / 8] == ba;
}

/*
 * The JSFunction a V8 frame left by a frame-pointer step kept (its frame
 * pointer f->bp), read from the copied stack as the kernel's walk reads it
 * (unwind_in_kernel_step.h, ku_v8_frame), and in *sfi the function it ran,
 * whose name the frame gets: 0 if it is no JavaScript frame, or if what
 * ran there at the event cannot be told now.  The copy is named after the
 * event, and the kernel's walk reads the function's SharedFunctionInfo at
 * the event, the copy cannot: the function's slot still holding the same
 * address is not enough, young closures come back at the same addresses
 * after a scavenge (closures.js: runRight's frame over a workLeft made
 * where its workRight had been, 3 samples in ~60 runs beside a build).
 * So the frame's function is told by what the event copied, checked
 * against the function now:
 *  - optimized code at the frame's pc: the code's own function (its
 *    deoptimization data's), which the slot's function must still have;
 *  - an interpreted frame (in node's binary) or a baseline one (JIT code
 *    that is not optimized): the BytecodeArray it keeps (one per function
 *    literal), which the live frame must still hold beside the same
 *    function, that function's SharedFunctionInfo read before and after
 *    (a BytecodeArray the GC moved since has its live slot rewritten);
 *  - another frame in node's binary, a builtin with JavaScript's frame
 *    (Array.prototype.forEach's): as an interpreted one, the word in that
 *    slot unchanged; its function is a builtin's, which stays where it is.
 * JIT code that is none of these is not named.
 */
static uint64_t v8_function(const struct v8_meta *v8, const struct unwind_stack *stack,
			    const struct unwind_frame *f, const struct map *m, uint32_t pid,
			    uint64_t *sfi)
{
	uint64_t cx, fn, ba, s1, s2;
	bool jit = !m || !m->bin;

	*sfi = 0;
	if (!f->bp || unwind_stack_read((void *)stack, f->bp + (int64_t)v8->fp_context, &cx) ||
	    (cx & 3) != 1 ||
	    unwind_stack_read((void *)stack, f->bp + (int64_t)v8->fp_function, &fn) ||
	    (fn & 3) != 1 || fn >> 48 ||
	    unwind_stack_read((void *)stack, f->bp + (int64_t)v8->fp_bytecode_array, &ba))
		return 0;
	if (f->exact && jit) {
		uint8_t code[3];

		if (v8_rd(pid, f->pc, code, sizeof(code)) || !v8_leaf_framed(code))
			return 0;
	}
	if (jit) {
		s2 = v8_code_sfi(pid, fn, f->pc, f->exact);
		if (s2) {
			if (v8_rd(pid, f->bp + (int64_t)v8->fp_function, &s1, sizeof(s1)) ||
			    s1 != fn || v8_field(pid, fn, v8->fn_shared, &s1) || s1 != s2)
				return 0;
			*sfi = s2;
			return fn;
		}
		if (v8_type_of(pid, v8, ba) != v8->type_bytecode_array)
			return 0;
	}
	if (v8_field(pid, fn, v8->fn_shared, &s1) || !live_frame_holds(pid, v8, f->bp, fn, ba) ||
	    v8_field(pid, fn, v8->fn_shared, &s2) || s1 != s2 || !v8_is_heap(s1))
		return 0;
	*sfi = s1;
	return fn;
}

/*
 * The word an interpreted frame keeps its bytecode offset in, as the copy
 * holds it: the kernel's walk reads the same (ku_v8_frame), from frames
 * left by a return address in node's binary (the interpreter's); 0 for
 * any other frame.
 */
static uint64_t bytecode_offset(const struct v8_meta *v8, const struct unwind_stack *stack,
				const struct unwind_frame *f, const struct map *m)
{
	uint64_t w;

	if (!v8->bc_known || f->exact || !m || !m->bin || !f->bp ||
	    unwind_stack_read((void *)stack, f->bp + (int64_t)v8->fp_bytecode_offset, &w))
		return 0;
	return w;
}

/* The walk's V8 step (struct unwind_stack's jit_step) for a process running V8. */
struct v8_walk {
	struct proc *proc;
	bool frameless;		/* the leaf built no frame: rbp is its caller's */
};

/*
 * A leaf in V8's builtins that has built no frame of its own steps to the
 * return address its call left at sp, where that lies in JIT code right
 * after a call to it (stitch_v8_called_from), as the kernel's walk does
 * (unwind_in_kernel_step.h, ku_v8_frameless_leaf: why).  Anything else is
 * the frame-pointer step's.
 */
static int v8_step(void *ctx, struct unwind_regs *r, bool exact, const struct unwind_stack *stack)
{
#if defined(__x86_64__)
	struct v8_walk *w = ctx;
	const struct map *m = exact ? proc_find_map(w->proc, r->ip) : NULL;
	uint64_t ra;
	uint8_t call[5];
	int32_t rel;

	if (!m || !m->bin || r->bp < r->sp || (r->bp & 7) ||
	    unwind_stack_read((void *)stack, r->sp, &ra) || ra < 8)
		return UNWIND_JIT_NOT_MINE;
	m = proc_find_map(w->proc, ra - 1);
	if (!m || m->bin || !m->anon || v8_rd(w->proc->pid, ra - 5, call, sizeof(call)))
		return UNWIND_JIT_NOT_MINE;
	memcpy(&rel, call + 1, sizeof(rel));
	if (!stitch_v8_called_from(ra, call[0], rel, r->ip))
		return UNWIND_JIT_NOT_MINE;
	r->sp += 8;
	r->ip = ra;
	r->lr = 0;
	w->frameless = true;
	return 0;
#else
	(void)ctx;
	(void)r;
	(void)exact;
	(void)stack;
	return UNWIND_JIT_NOT_MINE;
#endif
}

/*
 * The walk's n frames (scratch) as uframes, JavaScript frames named if v8,
 * Java frames if hw: how many written.
 */
static int frames_out(struct proc *proc, const struct unwind_stack *st,
		      const struct unwind_frame *scratch, int n, int max, struct uframe *uf,
		      enum unwind_stop *why, const struct v8_meta *v8,
		      const struct hotspot_walk *hw)
{
	int i, nu = 0;

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
			uint64_t sfi, fn = v8_function(v8, st, &scratch[i], m, proc->pid, &sfi);

			/* Inlined functions too, as long as what follows keeps its room. */
			if (fn)
				nu = jit_frames_v8(proc->pid, fn, sfi,
						   bytecode_offset(v8, st, &scratch[i], m), uf, nu,
						   max - 1 - (n - 1 - i));
		}
		/* Room for the methods inlined into it, and the marker. */
		if (hw && m && m->anon)
			nu = hotspot_frames(hw, st, &scratch[i], uf, nu, max - 1);
	}
	return nu;
}

int copy_unwind(struct binary_cache *bins, struct proc *proc, const struct unwind_regs *regs,
		const struct unwind_stack *stack, struct unwind_frame *scratch, int max,
		struct uframe *uf, enum unwind_stop *why, uint64_t jit_taken_ns)
{
	bool name_jit = jit_taken_ns != 0, name_java;
	enum unwind_stop walk_why;
	struct lookup_ctx lc = { bins, proc };
	const struct v8_meta *v8 = procs_v8(proc);
	struct hotspot_walk hw = { proc->pid, procs_hotspot(proc) };
	struct v8_walk vw = { proc, false };
	struct unwind_stack st = *stack;
	int n, nu;

	*why = UNWIND_STOP_END;
	if (hw.meta) {
		st.jit_step = hotspot_step;
		st.jit_ctx = &hw;
	} else if (v8) {
		st.jit_step = v8_step;
		st.jit_ctx = &vw;
	}
	n = unwind_user(regs, &st, lookup_table, &lc, scratch, max, why);
	/* A leaf that built no frame: the frame at rbp is its caller's, named after that. */
	if (vw.frameless && n)
		scratch[0].bp = 0;
	if (!name_jit)
		v8 = NULL;
	name_java = hw.meta && name_jit && hotspot_names_begin(proc->pid, hw.meta, jit_taken_ns);
	walk_why = *why;
	nu = frames_out(proc, &st, scratch, n, max, uf, why, v8, name_java ? &hw : NULL);
	/* The JVM unloaded classes while its frames were named: none of them then. */
	if (name_java && !hotspot_names_end(proc->pid, hw.meta)) {
		*why = walk_why;
		nu = frames_out(proc, &st, scratch, n, max, uf, why, v8, NULL);
	}
	/* Say how it ended, unless it visibly ends in an unknown frame already. */
	if (*why != UNWIND_STOP_END && !(nu && uf[nu - 1].kind == UFRAME_UNKNOWN)) {
		memset(&uf[nu], 0, sizeof(uf[nu]));
		uf[nu].kind = *why == UNWIND_STOP_TRUNCATED ? UFRAME_TRUNCATED : UFRAME_CUT;
		nu++;
	}
	return nu;
}

void copy_unwind_prepare(struct binary_cache *bins, struct proc *proc)
{
	size_t i;

	for (i = 0; i < proc->nr; i++)
		if (proc->maps[i].bin)
			binary_table(bins, proc->maps[i].bin);
	procs_v8(proc);
	procs_maps_jvm(proc);
}
