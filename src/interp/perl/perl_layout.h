/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Perl: what its walker (perl.bpf.h) and its user side (perl.c,
 * perl_versions.c) share, BPF C and user space.  interp.h takes the layout
 * and the config into struct interp_layout and struct interp_proc_cfg
 * (member pl), as it does for every line of languages.def; stitch
 * latency's perl:NAME roots read the layout too (latency.bpf.c).
 */
#ifndef STITCH_INTERP_PERL_LAYOUT_H
#define STITCH_INTERP_PERL_LAYOUT_H

#ifndef __bpf__
#include <linux/types.h>
#endif

/*
 * Perl 5.32 to 5.42 layout (threaded perl, docs/interpreters.md "Perl"): the
 * thread's interpreter from static TLS, stackinfos, the si_cxsubix chain of
 * sub/format/eval contexts, CV -> GV/HEK -> stash names, COP lines.
 */
struct interp_perl_layout {
	__u32 interp_curstackinfo, interp_curcop, interp_compiling;
	__u32 interp_phase, phase_destruct;
	__u32 si_cxstack, si_prev, si_cxix, si_cxsubix, si_type;
	__u32 cx_size, cx_type_byte, cx_u16, cx_oldcop, cx_retop, cx_old_cxsubix, cx_sub_cv;
	__u32 sv_any, sv_flags;
	__u32 xcv_stash, xcv_start, xcv_gv_or_hek, xcv_flags;
	__u32 xgv_namehek, xgv_stash;
	/*
	 * HvNAME: the HV's aux struct.  5.36+: in the body (offsets from
	 * sv_any); before: after the bucket array, sv_u + (xhv_max + 1) * 8
	 * (offsets within struct xpvhv_aux).
	 */
	__u32 hv_aux_after_array, xhv_max;
	__u32 xhv_aux_name, xhv_aux_name_count;
	__u32 hek_len, hek_key;
	__u32 op_type_word, op_type_mask, cop_line, cop_file;
	__u32 cxtypemask, cxt_sub, cxt_format, cxt_eval, old_op_type_shift;
	__s32 perlsi_main;
	__u32 svtypemask, svt_pvgv, svt_pvhv, svt_pvcv, svt_pvfm;
	__u32 svf_ook, svp_pok, svpgv_gp;
	__u32 cvf_named, cvf_lexical;
	__u32 op_nextstate, op_dbstate;
	/*
	 * call_sv(G_EVAL)'s own eval context: its old op type is 0 (5.32,
	 * 5.36: a zeroed fake op) or OP_ENTERSUB (5.40, 5.42 set the fake
	 * op's type), never a Perl-level eval's ENTERTRY/ENTEREVAL/REQUIRE.
	 */
	__u32 op_entersub;
	/* stitch latency's probes in a perl that exports no pp functions (PL_ppaddr) */
	__u32 op_leavesub, op_leavesublv;
	/* stitch latency's perl:NAME roots: the sub pp_entersub is about to call */
	__u32 interp_stack_sp, sv_u, gp_cv, svf_rok, cvf_isxsub;
};

/*
 * Where a process keeps its interpreter (interp_proc_cfg.pl): my_perl =
 * *(fs_base + tls_tpoff) in perl's own static TLS block (below the thread
 * pointer on x86-64, above it on arm64: two's complement), or, embedded
 * through libperl.so (tls_tpoff 0), the library's TLS variable
 * *(dtv[tls_modid].val + tls_sym).  Perl before 5.36 has no such TLS
 * variable (PL_current_context): thr_key_addr is then the address of
 * PL_thr_key and my_perl = pthread_getspecific(PL_thr_key), which
 * PERL_SET_CONTEXT sets in every thread that runs an interpreter.
 */
struct interp_perl_cfg {
	__u64 tls_modid;
	__u64 tls_sym;
	__u64 tls_tpoff;
	__u64 thr_key_addr;
};

/*
 * Where stitch latency's perl:NAME probes go (perl_probes.c, user space):
 * file offsets of the functions every sub call (enter), return (leave,
 * leavelv), unwind and exception (die[], the first ndie) goes through.
 */
#define PERL_DIE_PROBES 3
struct perl_sub_probes {
	__u64 enter, leave, leavelv, unwind;
	__u64 die[PERL_DIE_PROBES];
	__u32 ndie;
};

/* interp_frame.flags for perl (their own meaning: read for perl events only) */
#define PERL_FRAME_FROM_C	(1u << 1)	/* retop NULL: entered from C (call_sv...) */
#define PERL_FRAME_EVAL		(1u << 2)	/* an eval context: "(eval)" */
#define PERL_FRAME_OLDOP0	(1u << 3)	/* call_sv(G_EVAL)'s own eval (old op 0/ENTERSUB) */
#define PERL_FRAME_MAIN		(1u << 4)	/* the main program: "<main>" */
#define PERL_FRAME_SI_END	(1u << 5)	/* no frame: end of a nested stackinfo */
#define PERL_FRAME_NO_PKG	(1u << 6)	/* a lexical sub: name without package */
#define PERL_FRAME_SI_SHIFT	8		/* SI_END: the stackinfo type, bits 8..15 */
/*
 * Perl frame fields: addr = CV (0 for eval/main), pc = COP, id1 = sub name
 * string | package string << 32, id2 = file string, id3 = line.  Perl
 * frames carry their names: the walker copies the HEK bytes and file
 * strings into the event's string area (INTERP_STR_BYTES), and a frame
 * refers to a string as (offset | length << 16).
 */
#define PERL_STR(off, len)	((__u64)(off) | (__u64)(len) << 16)
#define PERL_STR_OFF(s)		((__u32)(s) & 0xffff)
#define PERL_STR_LEN(s)		((__u32)((s) >> 16) & 0xffff)

#endif /* STITCH_INTERP_PERL_LAYOUT_H */
