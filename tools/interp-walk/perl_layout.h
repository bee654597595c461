/* What the Perl walker needs to know about one perl build: field offsets and constants.
 * One table per perl version (perl536.h, ...); the walker only ever reads through a
 * struct perl_layout, so adding perl 5.38/5.40 is one more table (plus the one structural
 * change each brings, see docs/interpreters.md "What changes").
 *
 * Field names avoid perl's own lowercase macros (cx_type_byte, blk_oldcop, ...) so that the
 * checker (offsets-perl.c) can include both this file and perl's headers. */
#ifndef INTERP_PERL_LAYOUT_H
#define INTERP_PERL_LAYOUT_H

/* arm64: struct interpreter's fields past PL_start_env are 96 bytes further than on
 * x86-64 (its JMPENV holds glibc's sigjmp_buf, 312 bytes there against 200); the tables'
 * numbers are x86-64's plus this.  run-checks.sh checks 5.36's cross-compiled for arm64. */
#if defined(__aarch64__)
#define PERL_PAST_START_ENV 96
#else
#define PERL_PAST_START_ENV 0
#endif

struct perl_layout {
	const char *version;
	/* PERL_REVISION, PERL_VERSION: the walker picks the table whose pair matches the
	 * target's PL_revision/PL_version (U8 constants exported by libperl) */
	unsigned revision, major;
	/* struct interpreter (my_perl, MULTIPLICITY): PL_curstackinfo, PL_curcop, &PL_compiling */
	unsigned interp_curstackinfo, interp_curcop, interp_compiling;
	unsigned interp_stack_sp;	/* stitch latency's perl roots: the sub about to be called */
	/* PL_phase (U32 in 5.36) and PERL_PHASE_DESTRUCT: an interpreter being torn down
	 * (a joined thread's, run from the joining thread's TLS) is not walked */
	unsigned interp_phase, phase_destruct;
	/* struct stackinfo (PERL_SI) */
	unsigned si_cxstack, si_prev, si_cxix, si_cxsubix, si_type;
	/* PERL_CONTEXT: size of one entry; struct block fields; block_sub/_format/_eval share
	 * retop and old_cxsubix; sub and format share cv */
	unsigned cx_size, cx_type_byte, cx_u16, cx_oldcop, cx_retop, cx_old_cxsubix, cx_sub_cv;
	/* SV head */
	unsigned sv_any, sv_flags, sv_u;
	unsigned gp_cv;
	/* XPVCV (body of a CV) */
	unsigned xcv_stash, xcv_start, xcv_gv_or_hek, xcv_file, xcv_flags;
	/* XPVGV (body of a GV): name HEK and stash */
	unsigned xgv_namehek, xgv_stash;
	/* HvNAME: the HV's aux struct (SVf_OOK) holds it.  5.36+: in the body (struct
	 * xpvhv_with_aux), offsets from the body; before: after the bucket array,
	 * HvARRAY (sv_u) + (xhv_max + 1) * 8, offsets within struct xpvhv_aux */
	unsigned hv_aux_after_array, xhv_max;
	unsigned xhv_aux_name, xhv_aux_name_count;
	/* HEK */
	unsigned hek_len, hek_key;
	/* COP: op_type is the low 9 bits of the u16 at op_type_word */
	unsigned op_type_word, op_type_mask, cop_line, cop_file;
	/* constants */
	unsigned cxtypemask, cxt_sub, cxt_format, cxt_eval;
	unsigned cxp_evalblock, cxp_try, cxp_real, old_op_type_shift;
	int perlsi_main;
	unsigned svtypemask, svt_pvgv, svt_pvhv, svt_pvcv, svt_pvfm;
	unsigned svf_ook, svp_pok, svpgv_gp, svf_rok;
	unsigned cvf_isxsub, cvf_anon, cvf_named, cvf_lexical;
	unsigned op_nextstate, op_dbstate;
	unsigned op_entersub;	/* call_sv(G_EVAL)'s eval: old op type 0 (<= 5.36) or this */
	unsigned op_leavesub, op_leavesublv;	/* stitch latency: PL_ppaddr[] indexes */
};

#endif
