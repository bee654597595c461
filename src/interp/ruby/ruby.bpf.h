/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ruby 2.7-3.4 walker (walk_thread.bpf.h calls it).  The execution
 * context is libruby's TLS variable ruby_current_ec of the triggering
 * thread (3.x), read through its DTV as __tls_get_addr would, or its
 * rb_thread_t's (2.7, rb_ec_from_tsd); never the GVL holder.  Control frames go from ec->cfp outwards to the end of the VM
 * stack.  iseq and method entry objects are type-checked; a failed read or
 * check ends the walk, marked.  Each frame also carries the class owning
 * its method (rb_frame_owner); names and lines are read by user space
 * (ruby.c).
 */
#ifndef STITCH_INTERP_RUBY_BPF_H
#define STITCH_INTERP_RUBY_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "capture/user_regs.bpf.h"
#include "interp/walker_base.bpf.h"

/* Control frames looked at per event (C blocks and dummy frames are skipped). */
#define INTERP_RUBY_MAX_CFPS (INTERP_MAX_FRAMES + 32)

static __always_inline bool rb_imemo_is(const struct interp_ruby_layout *L, __u64 flags,
					__u32 type)
{
	return (flags & L->t_mask) == L->t_imemo &&
	       ((flags >> (L->imemo_shift & 63)) & L->imemo_mask) == type;
}

/* ep[-2], ep[-1], ep[0]: what a frame's environment says about it. */
struct rb_env {
	__u64 me_cref;		/* method entry, cref or svar (local env), or a special const */
	__u64 specval;		/* the enclosing env's ep | 2 flag bits, unless local */
	__u64 flags;
};

/* Environments looked at to find a block's method entry: "block (5 levels)" and less. */
#define RB_ENV_HOPS 6

/*
 * A method entry's first me_read bytes into s->code; false if the read
 * fails or it is not a method entry.  Special consts (false 0, nil 8,
 * fixnums, symbols) are never objects: not read.
 */
static __always_inline bool rb_read_ment(struct task_struct *task, struct interp_scratch *s,
					 const struct interp_ruby_layout *L, __u64 v)
{
	__u32 sz = L->me_read;

	if (v < 4096 || (v & 7) || sz == 0 || sz > INTERP_CHUNK)
		return false;
	barrier_var(sz);
	sz &= INTERP_CHUNK - 1;
	if (!sz || interp_read(task, s->code, sz, v))
		return false;
	return rb_imemo_is(L, chunk_u64(s->code, 0), L->imemo_ment);
}

/*
 * The class or module owning the method a frame runs in, as
 * rb_vm_frame_method_entry() finds it: ep[-2] if it is a method entry
 * (a method's frame, or a define_method block's), else the enclosing
 * environment (ep[-1] & ~3) until the local one, whose ep[-2] may also be
 * an svar holding the entry.  0 if there is none (top level, class
 * bodies), or after a failed read or too many environments: the frame then
 * keeps its bare label, never another method's class.
 */
static __always_inline __u64 rb_frame_owner(struct task_struct *task, struct interp_scratch *s,
					    const struct interp_ruby_layout *L, struct rb_env *env)
{
	__u64 v;
	int i;

	for (i = 0; i < RB_ENV_HOPS; i++) {
		v = env->me_cref;
		/*
		 * The entry the last frame's environment named (a recursion):
		 * live frames keep their method entries, whose owner never
		 * changes, so within one walk it is the owner read then.
		 */
		if (!i && v && v == s->last_me)
			return s->last_owner;
		if (rb_read_ment(task, s, L, v)) {
			if (!i) {
				s->last_me = v;
				s->last_owner = chunk_u64(s->code, L->me_owner);
			}
			return chunk_u64(s->code, L->me_owner);
		}
		if (env->flags & L->env_flag_local) {
			/* ep[-2] was read above if it is an object: an svar? */
			if (v >= 4096 && !(v & 7) &&
			    rb_imemo_is(L, chunk_u64(s->code, 0), L->imemo_svar) &&
			    rb_read_ment(task, s, L, chunk_u64(s->code, L->svar_cref_or_me)))
				return chunk_u64(s->code, L->me_owner);
			return 0;
		}
		v = env->specval & ~3ULL;
		if (!v || interp_read(task, env, sizeof(*env), v - L->ep_me_cref_below))
			return 0;
	}
	return 0;
}

/*
 * push_cfp_first: is the method entry rb_frame_owner() read last (in
 * s->code) the one of the method whose code the frame runs: its
 * definition's iseq the body's local iseq (a method's own, or the one a
 * block is in)?  A top frame whose environment is still a popped frame's
 * fails this; its class is then left out, never another's.
 */
static __always_inline bool rb_owner_is_of(struct task_struct *task, struct interp_scratch *s,
					   const struct interp_ruby_layout *L, __u64 body)
{
	__u64 def = chunk_u64(s->code, L->me_def), iseq = 0, local = 0;

	return !interp_read(task, &iseq, 8, def + L->def_iseq_ptr) &&
	       !interp_read(task, &local, 8, body + L->body_local_iseq) && iseq && iseq == local;
}

/* State of one walk, for the bpf_loop() callback. */
struct rb_walk {
	struct task_struct *task;
	struct interp_event *ev;
	struct interp_scratch *s;
	const struct interp_ruby_layout *L;
	bool top_unsure;	/* push_cfp_first, stopped outside a syscall */
};

/*
 * push_cfp_first (2.7): can the top control frame be one vm_push_frame()
 * has not written yet?  Only if the thread stopped in user code (a sample,
 * a preemption: orig_ax -1); a thread in a syscall stopped at one, which
 * no frame push makes.
 */
static __always_inline bool rb_top_unsure(struct task_struct *task,
					  const struct interp_ruby_layout *L)
{
	struct pt_regs *regs;
	long orig_ax = -1;

	if (!L->push_cfp_first)
		return false;
#ifdef INTERP_WALK_BOUNDED
	/* No bpf_task_pt_regs on these kernels (before 5.15): unsure. */
	return true;
#endif
	regs = (struct pt_regs *)bpf_task_pt_regs(task);
	if (!regs)
		return true;
	orig_ax = UREG_SYSCALL_NR_CORE(regs);
	return orig_ax < 0;
}

/* A C function's frame: 0 to go on, 1 to stop the walk. */
static __always_inline long rb_step_cfunc(struct rb_walk *w, __u64 i, struct interp_frame *f,
					  __u64 me, __u64 flags)
{
	struct task_struct *task = w->task;
	struct interp_event *ev = w->ev;
	struct interp_scratch *s = w->s;
	const struct interp_ruby_layout *L = w->L;
	__u64 def;

	if (!rb_read_ment(task, s, L, me)) {
		ev->flags |= INTERP_EV_CORRUPT;
		return 1;
	}
	/*
	 * Name, class and C function, all read now: user space never reads
	 * this method entry (it may be freed and reused by then).
	 */
	f->addr = me;
	f->id2 = chunk_u64(s->code, L->me_owner);
	def = chunk_u64(s->code, L->me_def);
	if (interp_read(task, &f->id1, 8, def + L->def_original_id) ||
	    interp_read(task, &f->pc, 8, def + L->def_cfunc_func)) {
		ev->flags |= INTERP_EV_FAULT;
		return 1;
	}
	f->id3 = 0;
	f->flags = RUBY_FRAME_CFUNC | ((flags & L->flag_finish) ? INTERP_FRAME_ENTRY : 0);
	if (!i && w->top_unsure)
		f->flags |= RUBY_FRAME_UNSURE;
	s->n++;
	return 0;
}

static long interp_ruby_step(__u64 i, void *ctx)
{
	struct rb_walk *w = ctx;
	struct task_struct *task = w->task;
	struct interp_event *ev = w->ev;
	struct interp_scratch *s = w->s;
	const struct interp_ruby_layout *L = w->L;
	__u32 cfp_size = L->cfp_size;
	struct interp_frame *f, *prev;
	__u64 pc, iseq, ep, flags, obj[3], hi;
	struct rb_env env;
	const __u8 *fr, *envp;

	if (cfp_size == 0 || cfp_size >= INTERP_CHUNK) {
		ev->flags |= INTERP_EV_CORRUPT;
		return 1;
	}
	barrier_var(cfp_size);
	cfp_size &= INTERP_CHUNK - 1;
	if (s->cursor + cfp_size > s->end)
		return 1;		/* the outermost frame is done */
	if (s->n >= INTERP_MAX_FRAMES) {
		ev->flags |= INTERP_EV_TRUNCATED;
		return 1;
	}
	/* Control frames are an array up to the stack's end: a window holds ~70 of them. */
	hi = s->end - s->cursor < INTERP_WINDOW - 8 ? s->end : s->cursor + INTERP_WINDOW - 8;
	fr = interp_window(task, &s->win[0], s->cursor, cfp_size, s->cursor, hi);
	if (!fr) {
		ev->flags |= INTERP_EV_FAULT;
		return 1;
	}
	s->cursor += cfp_size;
	pc = chunk_u64(fr, L->cfp_pc);
	iseq = chunk_u64(fr, L->cfp_iseq);
	ep = chunk_u64(fr, L->cfp_ep);
	/*
	 * A method's environment is in the VM stack below its callee's (a
	 * window of them); ep may also point into the heap (an environment
	 * captured by a block).
	 */
	envp = interp_window_below(task, &s->win[1], ep - L->ep_me_cref_below, sizeof(env));
	if (!envp) {
		ev->flags |= INTERP_EV_FAULT;
		return 1;
	}
	__builtin_memcpy(&env, envp, sizeof(env));
	flags = env.flags;
	if ((flags & 0xffff & L->magic_mask) != 1) {
		ev->flags |= INTERP_EV_CORRUPT;
		return 1;
	}
	f = &ev->frames[s->n & (INTERP_MAX_FRAMES - 1)];
	if (((flags & L->flag_cframe) && (flags & L->magic_mask) != L->magic_cfunc) ||
	    (!(flags & L->flag_cframe) &&
	     (!iseq || !pc || (flags & L->magic_mask) == L->magic_dummy))) {
		/*
		 * Not a named frame (a C block, a dummy frame).  If vm_exec
		 * returns after a C block, its group still ends here: send an
		 * empty frame (addr 0) that only carries the boundary.  Dummy
		 * frames (a thread's root) are never run by vm_exec.
		 */
		if ((flags & L->flag_finish) && (flags & L->magic_mask) != L->magic_dummy) {
			f->addr = f->pc = f->id1 = f->id2 = 0;
			f->id3 = 0;
			f->flags = INTERP_FRAME_ENTRY;
			s->n++;
		}
		return 0;
	}
	if (flags & L->flag_cframe)
		return rb_step_cfunc(w, i, f, env.me_cref, flags);
	prev = &ev->frames[(s->n - 1) & (INTERP_MAX_FRAMES - 1)];
	/*
	 * Recursion: the iseq the last frame ran.  A control frame keeps its
	 * iseq alive, and an iseq's body never changes, so within one walk it
	 * is the one read then (prev->pc: not a C function's or a boundary's).
	 */
	if (s->n && prev->addr == iseq && prev->pc && !(prev->flags & RUBY_FRAME_CFUNC)) {
		obj[2] = prev->id1;
	} else {
		if (interp_read(task, obj, sizeof(obj), iseq)) {
			ev->flags |= INTERP_EV_FAULT;
			return 1;
		}
		if (!rb_imemo_is(L, obj[0], L->imemo_iseq)) {
			ev->flags |= INTERP_EV_CORRUPT;
			return 1;
		}
	}
	f->addr = iseq;
	f->pc = pc;
	f->id1 = obj[2];	/* iseq->body (iseq_body is 16: checked in user space) */
	f->id2 = rb_frame_owner(task, s, L, &env);
	f->id3 = 0;
	f->flags = (flags & L->flag_finish) ? INTERP_FRAME_ENTRY : 0;
	if (!i && w->top_unsure) {
		f->flags |= RUBY_FRAME_UNSURE;
		if (f->id2 && !rb_owner_is_of(task, s, L, obj[2]))
			f->id2 = 0;
	}
	s->n++;
	return 0;
}

/*
 * Ruby 2.7 has no TLS variable: each thread's rb_thread_t is the value of
 * its pthread key ruby_native_thread_key (pthread_getspecific inlined: the
 * key's slot in the thread's own struct pthread), set when the thread
 * starts; th->ec is the execution context it runs (its fiber's).  The
 * global ruby_current_execution_context_ptr is the GVL holder's, another
 * thread's whenever this one waits: never used.  th->vm must be the VM
 * (*ruby_current_vm_ptr), so a key read before Ruby made its own (0,
 * perhaps another library's) gives no walk.  0: *ec set (0 if none).
 */
static __always_inline int rb_ec_from_tsd(struct task_struct *task, struct interp_event *ev,
					  const struct interp_proc_cfg *cfg,
					  const struct interp_ruby_layout *L, __u64 fs_base,
					  __u64 *ec)
{
	__u64 th = 0, vm = 0, th_vm = 0;
	__u32 key = 0;

	*ec = 0;
	if (interp_read(task, &key, sizeof(key), cfg->rb.tsd_key_addr) ||
	    interp_read(task, &vm, sizeof(vm), cfg->rb.vm_ptr_addr)) {
		ev->flags |= INTERP_EV_FAULT;
		return -1;
	}
	/* Keys >= 32 live in a second-level array; Ruby creates its key early. */
	if (key >= 32) {
		ev->flags |= INTERP_EV_BAD_KEY;
		return -1;
	}
	if (interp_read(task, &th, sizeof(th),
			fs_base + (__s64)cfg->pthread_specific + key * 16 + 8)) {
		ev->flags |= INTERP_EV_FAULT;
		return -1;
	}
	if (!th || !vm)		/* not a Ruby thread, or the VM not made yet */
		return 0;
	if (interp_read(task, &th_vm, sizeof(th_vm), th + L->th_vm) || th_vm != vm)
		return 0;	/* not Ruby's key yet: no walk */
	if (interp_read(task, ec, sizeof(*ec), th + L->th_ec)) {
		ev->flags |= INTERP_EV_FAULT;
		return -1;
	}
	return 0;
}

static __always_inline void interp_ruby_walk(struct task_struct *task, struct interp_event *ev,
					     struct interp_scratch *s,
					     const struct interp_proc_cfg *cfg,
					     const struct interp_ruby_layout *L, __u64 fs_base)
{
	struct rb_walk w = { .task = task, .ev = ev, .s = s, .L = L };
	__u64 ec = 0, stack = 0, size = 0;
	int err;

	s->n = 0;
	s->cursor = s->end = 0;
	s->last_me = 0;
	if (L->ec_from == RUBY_EC_TSD) {
		err = rb_ec_from_tsd(task, ev, cfg, L, fs_base, &ec);
		if (err)
			return;
	} else {
		/* ruby_current_ec, libruby's TLS variable */
		err = interp_tls_var(task, fs_base, cfg->rb.tls_modid, cfg->rb.tls_sym, &ec);
		if (err < 0) {
			ev->flags |= INTERP_EV_FAULT;
			return;
		}
	}
	if (!ec)		/* no block: this thread never touched libruby's TLS */
		return;
	if (interp_read(task, &stack, 8, ec + L->ec_vm_stack) ||
	    interp_read(task, &size, 8, ec + L->ec_vm_stack_size) ||
	    interp_read(task, &s->cursor, 8, ec + L->ec_cfp)) {
		ev->flags |= INTERP_EV_FAULT;
		return;
	}
	s->end = stack + size * 8;
	if (size > (1 << 24) || s->cursor < stack || s->cursor > s->end) {
		ev->flags |= INTERP_EV_CORRUPT;
		return;
	}
	w.top_unsure = rb_top_unsure(task, L);
	interp_loop(INTERP_RUBY_MAX_CFPS, interp_ruby_step, &w);
	if (s->cursor + L->cfp_size <= s->end &&
	    !(ev->flags & (INTERP_EV_FAULT | INTERP_EV_CORRUPT)))
		ev->flags |= INTERP_EV_TRUNCATED;
	ev->nframes = s->n;
}

#endif /* STITCH_INTERP_RUBY_BPF_H */
