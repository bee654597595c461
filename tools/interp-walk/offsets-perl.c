/* Checks a perl version's table (perl532.h, perl536.h, perl540.h, perl542.h,
 * perl544.h) against offsetof()
 * in that perl build's own headers: the table is chosen by the PERL_VERSION of the headers it is
 * compiled against, so the same file checks every version.  Build with that perl's
 * $Config{ccflags} and -I$Config{archlib}/CORE, inside its own root for another release
 * (run-checks.sh does); exits 1 on a mismatch. */
#include "EXTERN.h"
#include "perl.h"
#include "perl532.h"
#include "perl536.h"
#include "perl540.h"
#include "perl542.h"
#include "perl544.h"

#if PERL_REVISION == 5 && PERL_VERSION == 32
#define TABLE perl_5_32
#elif PERL_REVISION == 5 && PERL_VERSION == 36
#define TABLE perl_5_36
#elif PERL_REVISION == 5 && PERL_VERSION == 40
#define TABLE perl_5_40
#elif PERL_REVISION == 5 && PERL_VERSION == 42
#define TABLE perl_5_42
#elif PERL_REVISION == 5 && PERL_VERSION == 44
#define TABLE perl_5_44
#else
#error "no table for this perl version: add one (see perl536.h)"
#endif

static int bad;
#define OFF(t, f) __builtin_offsetof(t, f)
#define C(field, val) do { \
	unsigned long mine = (unsigned long)(L->field), real = (unsigned long)(val); \
	printf("%s %s=%lu real %lu\n", mine == real ? "ok" : "MISMATCH", #field, mine, real); \
	bad |= mine != real; \
} while (0)

/* op_type is a 9-bit bitfield: find its 16-bit word by setting all its bits. */
static unsigned op_type_word(void)
{
	COP c;
	unsigned char *b = (unsigned char *)&c;

	memset(&c, 0, sizeof(c));
	c.op_type = 0x1ff;
	for (unsigned i = 0; i < sizeof(c); i++)
		if (b[i])
			return i;
	return ~0u;
}

int main(void)
{
	const struct perl_layout *L = &TABLE;

	C(revision, PERL_REVISION);
	C(major, PERL_VERSION);
	C(interp_curstackinfo, OFF(struct interpreter, Icurstackinfo));
	C(interp_curcop, OFF(struct interpreter, Icurcop));
	C(interp_stack_sp, OFF(struct interpreter, Istack_sp));
	C(interp_compiling, OFF(struct interpreter, Icompiling));
	C(interp_phase, OFF(struct interpreter, Iphase));
	C(phase_destruct, PERL_PHASE_DESTRUCT);
	C(si_cxstack, OFF(PERL_SI, si_cxstack));
	C(si_prev, OFF(PERL_SI, si_prev));
	C(si_cxix, OFF(PERL_SI, si_cxix));
	C(si_cxsubix, OFF(PERL_SI, si_cxsubix));
	C(si_type, OFF(PERL_SI, si_type));
	C(cx_size, sizeof(PERL_CONTEXT));
	C(cx_type_byte, OFF(PERL_CONTEXT, cx_type));
	C(cx_u16, OFF(PERL_CONTEXT, blk_u16));
	C(cx_oldcop, OFF(PERL_CONTEXT, blk_oldcop));
	C(cx_retop, OFF(PERL_CONTEXT, blk_sub.retop));
	C(cx_retop, OFF(PERL_CONTEXT, blk_format.retop));
	C(cx_retop, OFF(PERL_CONTEXT, blk_eval.retop));
	C(cx_old_cxsubix, OFF(PERL_CONTEXT, blk_sub.old_cxsubix));
	C(cx_old_cxsubix, OFF(PERL_CONTEXT, blk_format.old_cxsubix));
	C(cx_old_cxsubix, OFF(PERL_CONTEXT, blk_eval.old_cxsubix));
	C(cx_sub_cv, OFF(PERL_CONTEXT, blk_sub.cv));
	C(cx_sub_cv, OFF(PERL_CONTEXT, blk_format.cv));
	C(sv_any, OFF(SV, sv_any));
	C(sv_flags, OFF(SV, sv_flags));
	C(sv_u, OFF(SV, sv_u));
	C(gp_cv, OFF(GP, gp_cv));
	C(xcv_stash, OFF(XPVCV, xcv_stash));
	C(xcv_start, OFF(XPVCV, xcv_start_u.xcv_start));
	C(xcv_gv_or_hek, OFF(XPVCV, xcv_gv_u.xcv_gv));
	C(xcv_gv_or_hek, OFF(XPVCV, xcv_gv_u.xcv_hek));
	C(xcv_file, OFF(XPVCV, xcv_file));
	C(xcv_flags, OFF(XPVCV, xcv_flags));
	/* a format's body (XPVFM) starts like a CV's */
	C(xcv_stash, OFF(XPVFM, xcv_stash));
	C(xcv_gv_or_hek, OFF(XPVFM, xcv_gv_u.xcv_gv));
	C(xcv_flags, OFF(XPVFM, xcv_flags));
	C(xgv_namehek, OFF(XPVGV, xiv_u.xivu_namehek));
	C(xgv_stash, OFF(XPVGV, xnv_u.xgv_stash));
#ifdef SVphv_HasAUX
	/* 5.36+ (SVphv_HasAUX named in 5.38): the aux struct is part of the HV's body */
	C(hv_aux_after_array, 0);
	C(xhv_max, 0);
	C(xhv_aux_name, OFF(struct xpvhv_with_aux, xhv_aux.xhv_name_u));
	C(xhv_aux_name_count, OFF(struct xpvhv_with_aux, xhv_aux.xhv_name_count));
	C(svf_ook, SVphv_HasAUX);
#elif PERL_VERSION >= 36
	C(hv_aux_after_array, 0);
	C(xhv_max, 0);
	C(xhv_aux_name, OFF(struct xpvhv_with_aux, xhv_aux.xhv_name_u));
	C(xhv_aux_name_count, OFF(struct xpvhv_with_aux, xhv_aux.xhv_name_count));
#else
	/* older: HvAUX(hv) is (struct xpvhv_aux *)&HvARRAY(hv)[HvMAX(hv) + 1], HvARRAY being
	 * the SV head's sv_u.svu_hash; the offsets are within struct xpvhv_aux */
	C(hv_aux_after_array, 1);
	C(xhv_max, OFF(XPVHV, xhv_max));
	C(xhv_aux_name, OFF(struct xpvhv_aux, xhv_name_u));
	C(xhv_aux_name_count, OFF(struct xpvhv_aux, xhv_name_count));
	C(sv_u, OFF(SV, sv_u.svu_hash));
	if (sizeof(((XPVHV *)0)->xhv_max) != 8 || sizeof(HE *) != 8) {
		printf("MISMATCH xhv_max/HE* sizes\n");
		bad = 1;
	}
#endif
	C(hek_len, OFF(HEK, hek_len));
	C(hek_key, OFF(HEK, hek_key));
	C(op_type_word, op_type_word());
	C(op_type_mask, (1u << 9) - 1);
	C(cop_line, OFF(COP, cop_line));
	C(cop_file, OFF(COP, cop_file));
	C(cxtypemask, CXTYPEMASK);
	C(cxt_sub, CXt_SUB);
	C(cxt_format, CXt_FORMAT);
	C(cxt_eval, CXt_EVAL);
#ifdef CXp_EVALBLOCK
	C(cxp_evalblock, CXp_EVALBLOCK);
	C(cxp_try, CXp_TRY);
#else
	C(cxp_evalblock, CXp_TRYBLOCK);	/* 5.32's name for it; no try/catch yet */
	C(cxp_try, 0);
#endif
	C(cxp_real, CXp_REAL);
	C(perlsi_main, PERLSI_MAIN);
	C(svtypemask, SVTYPEMASK);
	C(svt_pvgv, SVt_PVGV);
	C(svt_pvhv, SVt_PVHV);
	C(svt_pvcv, SVt_PVCV);
	C(svt_pvfm, SVt_PVFM);
	C(svf_ook, SVf_OOK);
	C(svp_pok, SVp_POK);
	C(svpgv_gp, SVpgv_GP);
	C(svf_rok, SVf_ROK);
	C(cvf_isxsub, CVf_ISXSUB);
	C(cvf_anon, CVf_ANON);
	C(cvf_named, CVf_NAMED);
	C(cvf_lexical, CVf_LEXICAL);
	C(op_nextstate, OP_NEXTSTATE);
	C(op_entersub, OP_ENTERSUB);
	C(op_leavesub, OP_LEAVESUB);
	C(op_leavesublv, OP_LEAVESUBLV);
	C(op_dbstate, OP_DBSTATE);
	/* structural facts the walker relies on */
	C(cx_type_byte, 0);			/* u8 type at the start of both union members */
	if (sizeof(((struct interpreter *)0)->Iphase) != 4) {
		printf("MISMATCH PL_phase is not 4 bytes\n");
		bad = 1;
	}
	if (sizeof(cv_flags_t) != 4 || sizeof(line_t) != 4 || sizeof(((PERL_SI *)0)->si_cxix) != 4) {
		printf("MISMATCH cv_flags_t/line_t/si_cxix sizes\n");
		bad = 1;
	}
	{	/* CxOLD_OP_TYPE(cx) is blk_u16 >> 7 */
		PERL_CONTEXT cx;

		memset(&cx, 0, sizeof(cx));
		cx.blk_u16 = 0xffff;
		C(old_op_type_shift, 16 - __builtin_popcount(CxOLD_OP_TYPE(&cx)));
	}
	return bad;
}
