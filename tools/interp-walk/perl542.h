/* Perl 5.42 (Debian sid: perl 5.42.3, x86-64, useithreads + usemultiplicity).
 * Every number is checked by offsets-perl.c against this build's own headers
 * ($Config{archlib}/CORE from libperl5.42 5.42.3) with its own
 * $Config{ccflags}, compiled and run inside the release's root
 * ($STITCH_ROOTS/dev/sid, chroot; run-checks.sh does).
 * The walk is perl536.h's; the numbers differ (interpreter, op numbers). */
#ifndef INTERP_PERL542_H
#define INTERP_PERL542_H
#include "perl_layout.h"

static const struct perl_layout perl_5_42 = {
	.version = "5.42",
	.revision = 5,
	.major = 42,
	.interp_curstackinfo = 224,	/* my_perl->Icurstackinfo */
	.interp_curcop = 208,		/* my_perl->Icurcop */
	.interp_compiling = 1720 + PERL_PAST_START_ENV, /* &my_perl->Icompiling: PL_curcop while compiling */
	.interp_phase = 2216 + PERL_PAST_START_ENV, /* my_perl->Iphase */
	.interp_stack_sp = 0,		/* my_perl->Istack_sp: the top of the argument stack */
	.phase_destruct = 6,		/* PERL_PHASE_DESTRUCT */
	.si_cxstack = 8,
	.si_prev = 16,
	.si_cxix = 32,			/* I32: index of the innermost context, -1 if none */
	.si_cxsubix = 40,		/* I32: innermost sub/format/eval context (5.34+) */
	.si_type = 44,			/* PERLSI_* */
	.cx_size = 104,
	.cx_type_byte = 0,			/* u8: CXt_* | CXp_* */
	.cx_u16 = 2,			/* blk_u16: eval's old op type << 7 */
	.cx_oldcop = 16,		/* blk_oldcop: PL_curcop of the caller */
	.cx_retop = 48,			/* blk_sub.retop: NULL when entered from C */
	.cx_old_cxsubix = 56,		/* previous si_cxsubix: the sub/eval chain */
	.cx_sub_cv = 72,		/* blk_sub.cv == blk_format.cv */
	.sv_any = 0,
	.sv_flags = 12,
	.sv_u = 16,			/* sv_u: an RV's referent, a GV's GP */
	.gp_cv = 16,			/* GvCV: the GP's CV */
	.xcv_stash = 32,
	.xcv_start = 40,
	.xcv_gv_or_hek = 56,		/* GV*, or HEK* when CVf_NAMED */
	.xcv_file = 64,
	.xcv_flags = 92,		/* cv_flags_t is U32 */
	.xgv_namehek = 32,		/* xiv_u.xivu_namehek */
	.xgv_stash = 40,		/* xnv_u.xgv_stash */
	.hv_aux_after_array = 0,	/* the aux struct is in the body (xpvhv_with_aux) */
	.xhv_max = 0,
	.xhv_aux_name = 32,		/* struct xpvhv_with_aux: xhv_aux.xhv_name_u */
	.xhv_aux_name_count = 60,
	.hek_len = 4,
	.hek_key = 8,
	.op_type_word = 32,		/* PERL_BITFIELD16 op_type:9 */
	.op_type_mask = 0x1ff,
	.cop_line = 36,
	.cop_file = 48,			/* RCPV's pv (5.38+): still a plain char * to read */
	.cxtypemask = 0xf,
	.cxt_sub = 9,
	.cxt_format = 10,
	.cxt_eval = 11,
	.cxp_evalblock = 0x40,
	.cxp_try = 0x80,
	.cxp_real = 0x20,
	.old_op_type_shift = 7,
	.perlsi_main = 1,
	.svtypemask = 0xff,
	.svt_pvgv = 9,
	.svt_pvhv = 12,
	.svt_pvcv = 13,
	.svt_pvfm = 14,			/* a format is a CV body of another SV type */
	.svf_ook = 0x02000000,
	.svp_pok = 0x00004000,
	.svpgv_gp = 0x00008000,
	.svf_rok = 0x00000800,
	.cvf_isxsub = 0x0008,
	.cvf_anon = 0x0080,
	.cvf_named = 0x00008000,
	.cvf_lexical = 0x10000,
	.op_nextstate = 202,
	.op_dbstate = 203,
	.op_entersub = 191,		/* call_sv(G_EVAL)'s eval: this old op (5.40+) or 0 */
	.op_leavesub = 192,		/* stitch latency: PL_ppaddr[] indexes */
	.op_leavesublv = 193,
};

#endif
