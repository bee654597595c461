/* Perl 5.32 (Debian 11 bullseye: perl 5.32.1, x86-64, useithreads + usemultiplicity).
 * Every number is checked by offsets-perl.c against this build's own headers
 * ($Config{archlib}/CORE from libperl5.32 5.32.1) with its own
 * $Config{ccflags}, compiled and run inside the release's root
 * ($STITCH_ROOTS/dev/bullseye, chroot; run-checks.sh does).
 * The walk is perl536.h's but for HvNAME: the HV aux struct follows the bucket array. */
#ifndef INTERP_PERL532_H
#define INTERP_PERL532_H
#include "perl_layout.h"

static const struct perl_layout perl_5_32 = {
	.version = "5.32",
	.revision = 5,
	.major = 32,
	.interp_curstackinfo = 240,	/* my_perl->Icurstackinfo */
	.interp_curcop = 224,		/* my_perl->Icurcop */
	.interp_compiling = 1952 + PERL_PAST_START_ENV, /* &my_perl->Icompiling: PL_curcop while compiling */
	.interp_phase = 2532 + PERL_PAST_START_ENV, /* my_perl->Iphase */
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
	.hv_aux_after_array = 1,	/* HvAUX: after the bucket array (HvARRAY + HvMAX + 1) */
	.xhv_max = 24,			/* XPVHV xhv_max: buckets - 1 */
	.xhv_aux_name = 0,		/* struct xpvhv_aux: xhv_name_u */
	.xhv_aux_name_count = 28,
	.hek_len = 4,
	.hek_key = 8,
	.op_type_word = 32,		/* PERL_BITFIELD16 op_type:9 */
	.op_type_mask = 0x1ff,
	.cop_line = 36,
	.cop_file = 48,			/* char * under USE_ITHREADS */
	.cxtypemask = 0xf,
	.cxt_sub = 9,
	.cxt_format = 10,
	.cxt_eval = 11,
	.cxp_evalblock = 0x40,
	.cxp_try = 0,			/* no try/catch (CXp_EVALBLOCK was CXp_TRYBLOCK) */
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
	.op_nextstate = 195,
	.op_dbstate = 196,
	.op_entersub = 184,		/* call_sv(G_EVAL)'s eval: this old op (5.40+) or 0 */
	.op_leavesub = 185,		/* stitch latency: PL_ppaddr[] indexes */
	.op_leavesublv = 186,
};

#endif
