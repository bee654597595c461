/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Perl walker, 5.32 to 5.42 (walk_thread.bpf.h calls it); the chain is the
 * one tools/interp-walk proves, see docs/interpreters.md "Perl".
 *
 * The interpreter is the triggering thread's own (PL_current_context, static
 * TLS of /usr/bin/perl), so no other thread can change it under the walk.
 * Innermost first: per stackinfo, the si_cxsubix chain of sub/format/eval
 * contexts; each frame is named from its CV (GV or name HEK, stash HEK) and
 * gets the file and line of its current COP.  Names and files are copied
 * here, bounded, because their memory may be freed before user space reads.
 * Any failed read or check ends the walk, marked, after the frames proven.
 *
 * One frame (or one stackinfo) per bpf_loop() iteration keeps the verifier's
 * work small; the walk's state lives in a per-CPU map.
 */
#ifndef STITCH_INTERP_PERL_BPF_H
#define STITCH_INTERP_PERL_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "capture/user_regs.bpf.h"
#include "interp/walker_base.bpf.h"

#define PERL_MAX_STACKINFOS 64
#define PERL_MAX_CONTEXTS 100000

struct perl_walk {
	struct interp_perl_layout L;
	__u64 my_perl, si, cxstack, prev, pending;
	__s32 ix, si_type;
	__u32 str_used;
	__u32 nsi;
	__u32 n;			/* entries in ev->frames */
	__u32 done;
	__u32 first;			/* no frame seen yet: the "just entered" check */
	__u32 last_from_c;		/* the last frame of the current stackinfo */
	/* the last string of each kind, to copy repeated ones once per event */
	__u64 last_ptr[3];
	__u64 last_str[3];
	/*
	 * The last CV and COP named: recursion repeats them, and within one
	 * walk of a stopped thread the same address is the same object.
	 */
	__u64 last_cv, last_cv_id1, last_cv_start;
	__u32 last_cv_flags, last_cv_format;
	__u64 last_cop, last_cop_file;
	__u32 last_cop_line;
	/* The last stash named, and its package string. */
	__u64 last_stash, last_pkg;
};

enum { PERL_STR_NAME, PERL_STR_PKG, PERL_STR_FILE };

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct perl_walk);
} perl_walk SEC(".maps");

static __always_inline int perl_rd(struct task_struct *task, void *dst, __u32 size,
				   __u64 addr)
{
	if (!addr || addr >= USER_ADDR_END)
		return -1;
	return interp_read(task, dst, size, addr);
}

static __always_inline __u16 chunk_u16(const __u8 *c, __u32 off)
{
	barrier_var(off);
	off &= INTERP_CHUNK - 2;
	return *(const __u16 *)(c + off);
}

/* Read size bytes (the end of the last field needed) into a chunk. */
static __always_inline int perl_rd_chunk(struct task_struct *task, __u8 *chunk, __u32 size,
					 __u64 addr)
{
	if (size == 0 || size > INTERP_CHUNK - 8)
		return -1;
	barrier_var(size);
	return perl_rd(task, chunk, size & (INTERP_CHUNK - 1), addr);
}

static __always_inline int perl_rd64(struct task_struct *task, __u64 addr, __u64 *v)
{
	return perl_rd(task, v, sizeof(*v), addr);
}

static __always_inline int perl_rd32(struct task_struct *task, __u64 addr, __u32 *v)
{
	return perl_rd(task, v, sizeof(*v), addr);
}

/* A HEK's head and the first PERL_HEK_SHORT bytes of its name: one read. */
#define PERL_HEK_READ 64
#define PERL_HEK_SHORT 48

/*
 * Most names are short: read the HEK's length and its bytes at once (one
 * read of ~90 ns instead of two) into the chunk, and copy them to the
 * string area at used (48 bytes, whatever the length: what lies past it is
 * free space).  False, nothing done, for a longer name or a read that fails
 * (a HEK at the end of its mapping): perl_str() then reads it in two.
 */
static __always_inline bool perl_hek_short(struct task_struct *task, struct perl_walk *w,
					   struct interp_scratch *s, __u64 hek, __u32 used,
					   __u32 *len)
{
	__u32 key = w->L.hek_key, lo = w->L.hek_len, i;
	__s32 hlen;

	if (key > PERL_HEK_READ - PERL_HEK_SHORT || (key & 7) || lo > key - 4 ||
	    perl_rd(task, s->code, PERL_HEK_READ, hek))
		return false;
	hlen = (__s32)chunk_u32(s->code, lo);
	if (hlen < 0 || hlen > PERL_HEK_SHORT)
		return false;
	barrier_var(key);
	key &= 8 | 16;
	for (i = 0; i < PERL_HEK_SHORT / 8; i++)
		*(__u64 *)(s->strs + used + i * 8) = *(const __u64 *)(s->code + key + i * 8);
	*len = hlen;
	return true;
}

/*
 * Copy a string into the event's string area.  hek: a HEK (length + bytes),
 * else a NUL-terminated C string.  0 and *out set, or -1: unreadable, too
 * long (a cut name would be another name) or out of room.
 */
static __always_inline int perl_str(struct task_struct *task, struct perl_walk *w,
				    struct interp_scratch *s, int kind,
				    __u64 ptr, bool hek, __u64 *out)
{
	__u32 used = w->str_used, len;
	__s32 hlen = 0;
	long r;

	kind &= 3;
	if (kind > PERL_STR_FILE)
		return -1;
	if (ptr && w->last_ptr[kind] == ptr) {
		*out = w->last_str[kind];
		return 0;
	}
	if (used > INTERP_STR_BYTES - INTERP_STR_MAX)
		return -1;
	/*
	 * Masked for the verifier, and kept masked: clang drops a mask the
	 * check above makes redundant, and reloads used from the stack, where
	 * a 6.1 verifier has not seen the check.
	 */
	barrier_var(used);
	used &= INTERP_STR_BYTES - 1;
	if (hek && perl_hek_short(task, w, s, ptr, used, &len)) {
		/* its length and bytes in one read */
	} else if (hek) {
		if (perl_rd(task, &hlen, sizeof(hlen), ptr + w->L.hek_len) || hlen < 0 ||
		    hlen >= INTERP_STR_MAX)
			return -1;
		/* Masked after the barrier: a 6.1 verifier never saw the checks above */
		len = hlen;
		barrier_var(len);
		len &= INTERP_STR_MAX - 1;
		if (len && perl_rd(task, s->strs + used, len, ptr + w->L.hek_key))
			return -1;
	} else {
		if (!ptr || ptr >= USER_ADDR_END)
			return -1;
		r = interp_read_str(task, s->strs + used, INTERP_STR_MAX, ptr);
		if (r <= 0 || r >= INTERP_STR_MAX)
			return -1;
		len = r - 1;
		barrier_var(len);
		len &= INTERP_STR_MAX - 1;
	}
	*out = PERL_STR(used, len);
	w->str_used = used + len;
	w->last_ptr[kind] = ptr;
	w->last_str[kind] = *out;
	return 0;
}

/*
 * An SV's flags and body (sv_any) in one read: both lie in its first 16
 * bytes (one read of ~90 ns instead of two, three times per frame named).
 */
static __always_inline int perl_sv_head(struct task_struct *task,
					const struct interp_perl_layout *L, __u64 sv,
					__u32 *flags, __u64 *any)
{
	__u64 head[2] = {};

	if (L->sv_flags > 12 || (L->sv_flags & 3) || (L->sv_any != 0 && L->sv_any != 8) ||
	    perl_rd(task, head, sizeof(head), sv))
		return -1;
	*any = L->sv_any ? head[1] : head[0];
	*flags = L->sv_flags == 12 ? (__u32)(head[1] >> 32) : L->sv_flags == 8 ? (__u32)head[1] :
		 L->sv_flags == 4 ? (__u32)(head[0] >> 32) : (__u32)head[0];
	return 0;
}

/* Perl before 5.36: the bucket array's size bounds where its aux struct is. */
#define PERL_MAX_HV_MAX (1ULL << 28)

/* A stash's name HEK (HvNAME), or 0. */
static __always_inline __u64 perl_stash_hek(struct task_struct *task,
					    const struct interp_perl_layout *L, __u64 hv)
{
	__u64 any = 0, name = 0, array = 0, max = 0;
	__u32 flags = 0;
	__s32 count = 0;

	if (perl_sv_head(task, L, hv, &flags, &any) || (flags & L->svtypemask) != L->svt_pvhv ||
	    !(flags & L->svf_ook))
		return 0;
	if (L->hv_aux_after_array) {
		/* HvAUX = &HvARRAY(hv)[HvMAX(hv) + 1] */
		if (perl_rd64(task, hv + L->sv_u, &array) ||
		    perl_rd64(task, any + L->xhv_max, &max) || max >= PERL_MAX_HV_MAX)
			return 0;
		any = array + (max + 1) * 8;
	}
	if (perl_rd64(task, any + L->xhv_aux_name, &name) ||
	    perl_rd(task, &count, sizeof(count), any + L->xhv_aux_name_count))
		return 0;
	if (count && perl_rd64(task, name, &name))
		return 0;
	return name;
}

/* The file and line of a COP into f; -1 if it is not a readable statement. */
static __always_inline int perl_cop(struct task_struct *task, struct perl_walk *w,
				    struct interp_scratch *s, struct interp_frame *f, __u64 cop)
{
	__u16 type = 0;
	__u32 line = 0;
	__u64 file = 0;

	if (cop && cop == w->last_cop) {
		f->pc = cop;
		f->id2 = w->last_cop_file;
		f->id3 = w->last_cop_line;
		return 0;
	}
	if (perl_rd_chunk(task, s->code, w->L.cop_file + 8, cop))
		return -1;
	type = chunk_u16(s->code, w->L.op_type_word) & w->L.op_type_mask;
	if (cop != w->my_perl + w->L.interp_compiling && type != w->L.op_nextstate &&
	    type != w->L.op_dbstate)
		return -1;
	line = chunk_u32(s->code, w->L.cop_line);
	file = chunk_u64(s->code, w->L.cop_file);
	if (perl_str(task, w, s, PERL_STR_FILE, file, false, &f->id2))
		return -1;
	f->pc = cop;
	f->id3 = line;
	w->last_cop = cop;
	w->last_cop_file = f->id2;
	w->last_cop_line = line;
	return 0;
}

/* Name a sub/format context's CV into f; -1 if any check fails. */
static __always_inline int perl_cv(struct task_struct *task, struct perl_walk *w,
				   struct interp_scratch *s, struct interp_frame *f, __u64 cv,
				   bool format, __u64 *start)
{
	const struct interp_perl_layout *L = &w->L;
	__u64 any = 0, gv = 0, gvany = 0, hek = 0, stash = 0, name = 0, pkg = 0;
	__u32 flags = 0, cvflags = 0, gvflags = 0;

	if (cv && cv == w->last_cv && w->last_cv_format == format) {
		f->addr = cv;
		f->id1 = w->last_cv_id1;
		f->flags |= w->last_cv_flags;
		*start = w->last_cv_start;
		return 0;
	}
	if (perl_sv_head(task, L, cv, &flags, &any) ||
	    (flags & L->svtypemask) != (format ? L->svt_pvfm : L->svt_pvcv) ||
	    perl_rd_chunk(task, s->code, L->xcv_flags + 4, any))
		return -1;
	cvflags = chunk_u32(s->code, L->xcv_flags);
	gv = chunk_u64(s->code, L->xcv_gv_or_hek);
	*start = chunk_u64(s->code, L->xcv_start);
	if (cvflags & L->cvf_named) {
		hek = gv;
		stash = chunk_u64(s->code, L->xcv_stash);
	} else {
		/* isGV_with_GP: a real glob, not a string that was once one */
		if (perl_sv_head(task, L, gv, &gvflags, &gvany) ||
		    (gvflags & L->svtypemask) != L->svt_pvgv ||
		    (gvflags & (L->svp_pok | L->svpgv_gp)) != L->svpgv_gp ||
		    perl_rd_chunk(task, s->code, (L->xgv_namehek > L->xgv_stash ?
						  L->xgv_namehek : L->xgv_stash) + 8, gvany))
			return -1;
		/* The name and the stash, 8 bytes apart: one read. */
		hek = chunk_u64(s->code, L->xgv_namehek);
		stash = chunk_u64(s->code, L->xgv_stash);
	}
	if (perl_str(task, w, s, PERL_STR_NAME, hek, true, &name))
		return -1;
	if ((cvflags & L->cvf_named) && (cvflags & L->cvf_lexical)) {
		f->flags |= PERL_FRAME_NO_PKG;
	} else if (stash && stash == w->last_stash) {
		/* The package of the last sub named: most callers share it. */
		pkg = w->last_pkg;
	} else {
		hek = perl_stash_hek(task, L, stash);
		if (!hek || perl_str(task, w, s, PERL_STR_PKG, hek, true, &pkg))
			return -1;
		w->last_stash = stash;
		w->last_pkg = pkg;
	}
	f->addr = cv;
	f->id1 = name | pkg << 32;
	w->last_cv = cv;
	w->last_cv_id1 = f->id1;
	w->last_cv_flags = f->flags & PERL_FRAME_NO_PKG;
	w->last_cv_start = *start;
	w->last_cv_format = format;
	return 0;
}

static __always_inline void perl_stop(struct perl_walk *w, struct interp_event *ev, __u32 why)
{
	ev->flags |= why;
	w->done = 1;
}

/* Load the stackinfo w->si; false when the walk ends. */
static __always_inline bool perl_load_si(struct task_struct *task, struct perl_walk *w,
					 struct interp_event *ev)
{
	const struct interp_perl_layout *L = &w->L;
	__s32 cxix = 0, cxsubix = 0;
	__u8 type = 0;

	if (w->nsi >= PERL_MAX_STACKINFOS || perl_rd64(task, w->si + L->si_cxstack, &w->cxstack) ||
	    perl_rd64(task, w->si + L->si_prev, &w->prev) ||
	    perl_rd(task, &cxix, sizeof(cxix), w->si + L->si_cxix) ||
	    perl_rd(task, &cxsubix, sizeof(cxsubix), w->si + L->si_cxsubix) ||
	    perl_rd(task, &w->si_type, sizeof(w->si_type), w->si + L->si_type)) {
		perl_stop(w, ev, INTERP_EV_FAULT);
		return false;
	}
	if (cxix < -1 || cxix >= PERL_MAX_CONTEXTS || cxsubix < -1 || cxsubix > cxix) {
		perl_stop(w, ev, INTERP_EV_CORRUPT);
		return false;
	}
	/*
	 * Half-pushed or half-popped sub (between cx_pushblock and cx_pushsub,
	 * or cx_popsub and the pop of si_cxix): the chain would give the caller
	 * the callee's line.  Only the innermost stackinfo can be caught so.
	 */
	if (w->nsi == 0 && cxix >= 0 && cxix != cxsubix) {
		if (perl_rd(task, &type, 1,
			    w->cxstack + (__u64)cxix * L->cx_size + L->cx_type_byte)) {
			perl_stop(w, ev, INTERP_EV_FAULT);
			return false;
		}
		type &= L->cxtypemask;
		if (type == L->cxt_sub || type == L->cxt_format || type == L->cxt_eval) {
			perl_stop(w, ev, INTERP_EV_CORRUPT);
			return false;
		}
	}
	w->ix = cxsubix;
	w->last_from_c = 0;
	w->nsi++;
	return true;
}

/*
 * The walk's state is in the perl_walk map (too big for the stack); only
 * the task, which no map may hold, goes through the bpf_loop() context.
 */
struct perl_step_ctx {
	struct task_struct *task;
};

/* One step: a frame, or the end of a stackinfo.  1 stops bpf_loop. */
static long perl_step(__u64 i, void *ctx)
{
	struct task_struct *task = ((struct perl_step_ctx *)ctx)->task;
	const struct interp_perl_layout *L;
	struct interp_scratch *s;
	struct interp_event *ev;
	struct interp_frame *f;
	struct perl_walk *w;
	__u64 cx, cv = 0, retop = 0, oldcop = 0, start = 0;
	__s32 next = 0;
	__u32 zero = 0, size;
	const __u8 *c;
	__u16 u16 = 0;
	__u8 ctype = 0;

	w = bpf_map_lookup_elem(&perl_walk, &zero);
	s = bpf_map_lookup_elem(&interp_scratch, &zero);
	if (!w || !s || w->done)
		return 1;
	L = &w->L;
	ev = &s->ev;
	if (w->n >= INTERP_MAX_FRAMES) {
		perl_stop(w, ev, INTERP_EV_TRUNCATED);
		return 1;
	}
	f = &ev->frames[w->n & (INTERP_MAX_FRAMES - 1)];
	__builtin_memset(f, 0, sizeof(*f));

	if (w->ix < 0) {
		/* This stackinfo's frames are done. */
		if (w->si_type == L->perlsi_main) {
			/* The main program, unless the outermost frame came from C
			 * (a thread's entry sub, BEGIN/END blocks). */
			w->done = 1;
			if (w->last_from_c)
				return 1;
			f->flags = PERL_FRAME_MAIN;
			if (perl_cop(task, w, s, f, w->pending)) {
				ev->flags |= INTERP_EV_CORRUPT;
				return 1;
			}
			w->n++;
			return 1;
		}
		f->flags = PERL_FRAME_SI_END | (__u32)(w->si_type & 0xff) << PERL_FRAME_SI_SHIFT;
		w->n++;
		w->si = w->prev;
		return perl_load_si(task, w, ev) ? 0 : 1;
	}

	cx = w->cxstack + (__u64)w->ix * L->cx_size;
	/*
	 * The fields used all lie within the first cx_sub_cv + 8 bytes.  A
	 * stackinfo's contexts are one array walked downwards: a window
	 * ending at this one holds its callers' too.
	 */
	size = L->cx_sub_cv + 8;
	if (size > INTERP_CHUNK - 8 || !cx || cx >= USER_ADDR_END ||
	    !(c = interp_window_below(task, &s->win[0], cx, size))) {
		perl_stop(w, ev, INTERP_EV_FAULT);
		return 1;
	}
	ctype = chunk_u8(c, L->cx_type_byte);
	u16 = chunk_u16(c, L->cx_u16);
	retop = chunk_u64(c, L->cx_retop);
	oldcop = chunk_u64(c, L->cx_oldcop);
	next = (__s32)chunk_u32(c, L->cx_old_cxsubix);
	cv = chunk_u64(c, L->cx_sub_cv);
	ctype &= L->cxtypemask;
	if ((ctype != L->cxt_sub && ctype != L->cxt_format && ctype != L->cxt_eval) ||
	    next >= w->ix) {
		perl_stop(w, ev, INTERP_EV_CORRUPT);
		return 1;
	}
	if (ctype == L->cxt_eval) {
		f->flags |= PERL_FRAME_EVAL;
		__u32 old = u16 >> L->old_op_type_shift;

		if (!old || old == L->op_entersub)
			f->flags |= PERL_FRAME_OLDOP0;
	} else if (perl_cv(task, w, s, f, cv, ctype == L->cxt_format, &start)) {
		perl_stop(w, ev, INTERP_EV_CORRUPT);
		return 1;
	}
	/* Just entered (before the sub's first nextstate): PL_curcop is still
	 * the caller's; the sub is at its first statement. */
	if (w->first && w->pending == oldcop && ctype != L->cxt_eval)
		w->pending = start;
	if (perl_cop(task, w, s, f, w->pending)) {
		perl_stop(w, ev, INTERP_EV_CORRUPT);
		return 1;
	}
	if (!retop)
		f->flags |= PERL_FRAME_FROM_C;
	w->last_from_c = !retop;
	w->pending = oldcop;
	w->first = 0;
	w->ix = next;
	w->n++;
	return 0;
}

static __always_inline void interp_perl_walk(struct task_struct *task, struct interp_event *ev,
					     struct interp_scratch *s,
					     const struct interp_proc_cfg *cfg,
					     const struct interp_perl_layout *L, __u64 fs_base)
{
	struct perl_step_ctx ctx = { .task = task };
	struct perl_walk *w;
	__u32 zero = 0, phase = 0;

	w = bpf_map_lookup_elem(&perl_walk, &zero);
	if (!w)
		return;
	__builtin_memset(w, 0, sizeof(*w));
	w->L = *L;
	w->first = 1;
	if (cfg->pl.thr_key_addr) {
		/* perl 5.32: pthread_getspecific(PL_thr_key), glibc's first block */
		__u32 key = 0;

		if (perl_rd32(task, cfg->pl.thr_key_addr, &key)) {
			ev->flags |= INTERP_EV_FAULT;
			return;
		}
		if (key >= 32) {
			ev->flags |= INTERP_EV_BAD_KEY;
			return;
		}
		if (interp_read(task, &w->my_perl, sizeof(w->my_perl),
				fs_base + (__s64)cfg->pthread_specific + key * 16 + 8) < 0) {
			ev->flags |= INTERP_EV_FAULT;
			return;
		}
	} else if (cfg->pl.tls_modid) {
		/* libperl.so: PL_current_context in the library's TLS block */
		if (interp_tls_var(task, fs_base, cfg->pl.tls_modid, cfg->pl.tls_sym,
				   &w->my_perl) < 0) {
			ev->flags |= INTERP_EV_FAULT;
			return;
		}
	} else if (perl_rd64(task, fs_base + cfg->pl.tls_tpoff, &w->my_perl)) {
		ev->flags |= INTERP_EV_FAULT;
		return;
	}
	if (!w->my_perl)		/* a thread that runs no perl */
		return;
	/*
	 * Tearing an interpreter down: threads->join destroys the joined
	 * thread's interpreter with it in this thread's TLS; its state is not
	 * this thread's stack.
	 */
	if (perl_rd32(task, w->my_perl + L->interp_phase, &phase) || phase == L->phase_destruct) {
		ev->flags |= INTERP_EV_TRUNCATED;
		return;
	}
	if (perl_rd64(task, w->my_perl + L->interp_curstackinfo, &w->si) ||
	    perl_rd64(task, w->my_perl + L->interp_curcop, &w->pending)) {
		ev->flags |= INTERP_EV_FAULT;
		return;
	}
	if (!w->si)			/* not running yet, or being torn down */
		return;
	if (!perl_load_si(task, w, ev))
		return;
	interp_loop(INTERP_MAX_FRAMES + PERL_MAX_STACKINFOS + 2, perl_step, &ctx);
	if (!w->done)
		ev->flags |= INTERP_EV_TRUNCATED;
	ev->nframes = w->n > INTERP_MAX_FRAMES ? INTERP_MAX_FRAMES : w->n;
	s->str_used = w->str_used;
}

#endif /* STITCH_INTERP_PERL_BPF_H */
