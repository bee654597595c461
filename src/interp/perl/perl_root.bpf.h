/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Perl subs as stitch latency's roots (perl:NAME), kernel side: where a
 * thread is on perl's stack of contexts, and whether the sub pp_entersub is
 * about to call is the root; the hooks interp.h describes ("Roots"), which
 * latency.bpf.c's interpreter-root programs call (through
 * build/interp_roots.bpf.h).  The probes are perl's own sub-call path
 * (perl_root.c): Perl_pp_entersub (the sub about to be called is on top of
 * the argument stack; its context is the next one), Perl_pp_leavesub and
 * Perl_pp_leavesublv (every return, `return` included), Perl_dounwind (die,
 * last out of a sub: the contexts above an index popped at once) and where
 * an exception starts (Perl_die_unwind, or the functions calling it).
 */
#ifndef STITCH_PERL_ROOT_BPF_H
#define STITCH_PERL_ROOT_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "interp/interp.h"

static __always_inline __u64 pl_u64(__u64 addr)
{
	__u64 v = 0;

	bpf_probe_read_user(&v, sizeof(v), (const void *)addr);
	return v;
}

static __always_inline __u32 pl_u32(__u64 addr)
{
	__u32 v = 0;

	bpf_probe_read_user(&v, sizeof(v), (const void *)addr);
	return v;
}

/* The thread's current stackinfo and its innermost context's index; -1 if unreadable. */
static __always_inline int perl_root_where(struct pt_regs *ctx,
					   const volatile struct interp_perl_layout *L,
					   __u64 *si, __s32 *ix)
{
	__u64 my_perl = PT_REGS_PARM1(ctx);

	*si = pl_u64(my_perl + L->interp_curstackinfo);
	if (!*si)
		return -1;
	*ix = (__s32)pl_u32(*si + L->si_cxix);
	return 0;
}

/* The CV pp_entersub is about to call: the top of the argument stack (CV, GV, or \&CV). */
static __always_inline __u64 pl_callee(const volatile struct interp_perl_layout *L,
				       __u64 my_perl)
{
	__u64 sp = pl_u64(my_perl + L->interp_stack_sp), sv, gp;
	__u32 flags;

	sv = sp ? pl_u64(sp) : 0;
	if (!sv)
		return 0;
	flags = pl_u32(sv + L->sv_flags);
	if (flags & L->svf_rok) {
		sv = pl_u64(sv + L->sv_u);
		if (!sv)
			return 0;
		flags = pl_u32(sv + L->sv_flags);
	}
	if ((flags & L->svtypemask) == L->svt_pvcv)
		return sv;
	if ((flags & L->svtypemask) != L->svt_pvgv || !(flags & L->svpgv_gp))
		return 0;
	gp = pl_u64(sv + L->sv_u);
	return gp ? pl_u64(gp + L->gp_cv) : 0;
}

/* Is cv a Perl sub (not XS: it pushes no context) named sub (len bytes)? */
static __always_inline bool pl_is_root(const volatile struct interp_perl_layout *L, __u64 cv,
				       const volatile char *sub, __u32 sub_len)
{
	__u64 any = pl_u64(cv + L->sv_any), gv_or_hek, gany, hek;
	char name[INTERP_ROOT_NAME_MAX];
	__u32 cvflags, len;
	int i;

	if (!any)
		return false;
	cvflags = pl_u32(any + L->xcv_flags);
	gv_or_hek = pl_u64(any + L->xcv_gv_or_hek);
	if ((cvflags & L->cvf_isxsub) || !gv_or_hek)
		return false;
	if (cvflags & L->cvf_named) {
		hek = gv_or_hek;
	} else {
		gany = pl_u64(gv_or_hek + L->sv_any);
		hek = gany ? pl_u64(gany + L->xgv_namehek) : 0;
	}
	if (!hek)
		return false;
	len = pl_u32(hek + L->hek_len);
	if (len != sub_len || !len || len >= INTERP_ROOT_NAME_MAX)
		return false;
	if (bpf_probe_read_user(name, len & (INTERP_ROOT_NAME_MAX - 1),
				(const void *)(hek + L->hek_key)))
		return false;
	for (i = 0; i < INTERP_ROOT_NAME_MAX && i < len; i++)
		if (name[i] != sub[i])
			return false;
	return true;
}

/* Perl_pp_entersub(my_perl): is the sub about to be called the root? */
static __always_inline bool perl_root_is_callee(struct pt_regs *ctx,
						const volatile struct interp_perl_layout *L,
						const volatile char *sub, __u32 sub_len)
{
	__u64 cv = pl_callee(L, PT_REGS_PARM1(ctx));

	return cv && pl_is_root(L, cv, sub, sub_len);
}

/* Perl_dounwind(my_perl, cxix): every context above cxix is popped now. */
static __always_inline __s32 perl_root_unwound_to(struct pt_regs *ctx)
{
	return (__s32)PT_REGS_PARM2(ctx);
}

#endif /* STITCH_PERL_ROOT_BPF_H */
