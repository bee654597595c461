// SPDX-License-Identifier: GPL-2.0
/*
 * The Perl versions stitch can walk, and the layouts of their structures.
 * Every entry is the table of tools/interp-walk/perl5NN.h, whose numbers
 * offsets-perl.c checks against that perl's own headers (compiled inside
 * the release's root); tests/unit/test_interp_perl.c fails if they differ.
 * The first entry's exe_name "perl" only says a module is a perl:
 * perl_from_module picks the entry of the file's PL_revision/PL_version
 * (perl_version_of, at the end).
 */
#include <stdio.h>

#include "interp/perl/perl.h"
#include "util/elf_util.h"

/*
 * arm64: struct interpreter is x86-64's up to PL_start_env, then 96 bytes
 * further: its JMPENV holds glibc's sigjmp_buf, 312 bytes on arm64 against
 * 200, and what comes before it is 16 bytes smaller.  Of what the walk
 * reads, PL_compiling and PL_phase move (read at x86-64's offsets, PL_phase
 * was another field and every walk ended at once, truncated).  Measured by
 * offsets-perl.c cross-compiled against the arm64 CORE headers of Debian's
 * libperl 5.32, 5.36, 5.40, 5.42 and 5.44: every other field is the same.
 */
#if defined(__aarch64__)
#define PAST_START_ENV 96
#else
#define PAST_START_ENV 0
#endif

/* Perl 5.42's offsets, which 5.44 keeps to the last number (perl544.h). */
#define PERL_LAYOUT_542 {							\
	.interp_curstackinfo = 224, .interp_curcop = 208,	\
	.interp_compiling = 1720 + PAST_START_ENV,	\
	.interp_phase = 2216 + PAST_START_ENV, .phase_destruct = 6,	\
	.si_cxstack = 8, .si_prev = 16, .si_cxix = 32, .si_cxsubix = 40,	\
	.si_type = 44,	\
	.cx_size = 104, .cx_type_byte = 0, .cx_u16 = 2, .cx_oldcop = 16,	\
	.cx_retop = 48, .cx_old_cxsubix = 56, .cx_sub_cv = 72,	\
	.sv_any = 0, .sv_flags = 12,	\
	.xcv_stash = 32, .xcv_start = 40, .xcv_gv_or_hek = 56, .xcv_flags = 92,	\
	.xgv_namehek = 32, .xgv_stash = 40,	\
	.hv_aux_after_array = 0, .xhv_max = 0, .xhv_aux_name = 32,	\
	.xhv_aux_name_count = 60,	\
	.hek_len = 4, .hek_key = 8,	\
	.op_type_word = 32, .op_type_mask = 0x1ff, .cop_line = 36, .cop_file = 48,	\
	.cxtypemask = 0xf, .cxt_sub = 9, .cxt_format = 10, .cxt_eval = 11,	\
	.old_op_type_shift = 7,	\
	.perlsi_main = 1,	\
	.svtypemask = 0xff, .svt_pvgv = 9, .svt_pvhv = 12, .svt_pvcv = 13,	\
	.svt_pvfm = 14,	\
	.svf_ook = 0x02000000, .svp_pok = 0x00004000, .svpgv_gp = 0x00008000,	\
	.cvf_named = 0x00008000, .cvf_lexical = 0x10000,	\
	.op_nextstate = 202, .op_dbstate = 203, .op_entersub = 191,	\
	.op_leavesub = 192, .op_leavesublv = 193,	\
	.interp_stack_sp = 0, .sv_u = 16, .gp_cv = 16, .svf_rok = 0x00000800,	\
	.cvf_isxsub = 0x0008,	\
}

const struct interp_version perl_versions[] = {
	/*
	 * Perl 5.36 (Debian 12's /usr/bin/perl, libperl linked in, ithreads; or
	 * libperl.so.5.36 in a program embedding perl): offsets from
	 * tools/interp-walk/perl536.h, checked against the build's own headers
	 * by offsets-perl.c.
	 */
	{
		.lang_name = "perl", .version = "5.36", .lang = INTERP_PERL,
		.exe_name = "perl", .exe_prefix = "perl5.36.", .lib_prefix = "libperl.so.5.36",
		.eval_func = "Perl_runops_standard",
		.layout = { .lang = INTERP_PERL, .pl = {
			.interp_curstackinfo = 224, .interp_curcop = 208,
			.interp_compiling = 1936 + PAST_START_ENV,
			.interp_phase = 2512 + PAST_START_ENV, .phase_destruct = 6,
			.si_cxstack = 8, .si_prev = 16, .si_cxix = 32, .si_cxsubix = 40,
			.si_type = 44,
			.cx_size = 104, .cx_type_byte = 0, .cx_u16 = 2, .cx_oldcop = 16,
			.cx_retop = 48, .cx_old_cxsubix = 56, .cx_sub_cv = 72,
			.sv_any = 0, .sv_flags = 12,
			.xcv_stash = 32, .xcv_start = 40, .xcv_gv_or_hek = 56, .xcv_flags = 92,
			.xgv_namehek = 32, .xgv_stash = 40,
			.hv_aux_after_array = 0, .xhv_max = 0, .xhv_aux_name = 32,
			.xhv_aux_name_count = 60,
			.hek_len = 4, .hek_key = 8,
			.op_type_word = 32, .op_type_mask = 0x1ff, .cop_line = 36, .cop_file = 48,
			.cxtypemask = 0xf, .cxt_sub = 9, .cxt_format = 10, .cxt_eval = 11,
			.old_op_type_shift = 7,
			.perlsi_main = 1,
			.svtypemask = 0xff, .svt_pvgv = 9, .svt_pvhv = 12, .svt_pvcv = 13,
			.svt_pvfm = 14,
			.svf_ook = 0x02000000, .svp_pok = 0x00004000, .svpgv_gp = 0x00008000,
			.cvf_named = 0x8000, .cvf_lexical = 0x10000,
			.op_nextstate = 195, .op_dbstate = 196, .op_entersub = 184,
			.op_leavesub = 185, .op_leavesublv = 186,
			.interp_stack_sp = 0, .sv_u = 16, .gp_cv = 16, .svf_rok = 0x00000800,
			.cvf_isxsub = 0x0008,
		} },
	},
	/*
	 * Perl 5.32 (Debian 11 bullseye, 5.32.1): tools/interp-walk/perl532.h,
	 * checked by offsets-perl.c inside a bullseye root.  The stash's aux
	 * struct (its name) follows its bucket array.
	 */
	{
		.lang_name = "perl", .version = "5.32", .lang = INTERP_PERL,
		.exe_name = "perl", .exe_prefix = "perl5.32.", .lib_prefix = "libperl.so.5.32",
		.eval_func = "Perl_runops_standard",
		.layout = { .lang = INTERP_PERL, .pl = {
			.interp_curstackinfo = 240, .interp_curcop = 224,
			.interp_compiling = 1952 + PAST_START_ENV,
			.interp_phase = 2532 + PAST_START_ENV, .phase_destruct = 6,
			.si_cxstack = 8, .si_prev = 16, .si_cxix = 32, .si_cxsubix = 40,
			.si_type = 44,
			.cx_size = 104, .cx_type_byte = 0, .cx_u16 = 2, .cx_oldcop = 16,
			.cx_retop = 48, .cx_old_cxsubix = 56, .cx_sub_cv = 72,
			.sv_any = 0, .sv_flags = 12,
			.xcv_stash = 32, .xcv_start = 40, .xcv_gv_or_hek = 56, .xcv_flags = 92,
			.xgv_namehek = 32, .xgv_stash = 40,
			.hv_aux_after_array = 1, .xhv_max = 24, .xhv_aux_name = 0,
			.xhv_aux_name_count = 28,
			.hek_len = 4, .hek_key = 8,
			.op_type_word = 32, .op_type_mask = 0x1ff, .cop_line = 36, .cop_file = 48,
			.cxtypemask = 0xf, .cxt_sub = 9, .cxt_format = 10, .cxt_eval = 11,
			.old_op_type_shift = 7,
			.perlsi_main = 1,
			.svtypemask = 0xff, .svt_pvgv = 9, .svt_pvhv = 12, .svt_pvcv = 13,
			.svt_pvfm = 14,
			.svf_ook = 0x02000000, .svp_pok = 0x00004000, .svpgv_gp = 0x00008000,
			.cvf_named = 0x00008000, .cvf_lexical = 0x10000,
			.op_nextstate = 195, .op_dbstate = 196, .op_entersub = 184,
			.op_leavesub = 185, .op_leavesublv = 186,
			.interp_stack_sp = 0, .sv_u = 16, .gp_cv = 16, .svf_rok = 0x00000800,
			.cvf_isxsub = 0x0008,
		} },
	},
	/*
	 * Perl 5.40 (Debian 13 trixie, 5.40.1): perl540.h, checked inside a
	 * trixie root.  Other interpreter offsets and op numbers; cop_file is
	 * a refcounted string (RCPV) since 5.38, still read as a char *.
	 */
	{
		.lang_name = "perl", .version = "5.40", .lang = INTERP_PERL,
		.exe_name = "perl", .exe_prefix = "perl5.40.", .lib_prefix = "libperl.so.5.40",
		.eval_func = "Perl_runops_standard",
		.layout = { .lang = INTERP_PERL, .pl = {
			.interp_curstackinfo = 224, .interp_curcop = 208,
			.interp_compiling = 1720 + PAST_START_ENV,
			.interp_phase = 2216 + PAST_START_ENV, .phase_destruct = 6,
			.si_cxstack = 8, .si_prev = 16, .si_cxix = 32, .si_cxsubix = 40,
			.si_type = 44,
			.cx_size = 104, .cx_type_byte = 0, .cx_u16 = 2, .cx_oldcop = 16,
			.cx_retop = 48, .cx_old_cxsubix = 56, .cx_sub_cv = 72,
			.sv_any = 0, .sv_flags = 12,
			.xcv_stash = 32, .xcv_start = 40, .xcv_gv_or_hek = 56, .xcv_flags = 92,
			.xgv_namehek = 32, .xgv_stash = 40,
			.hv_aux_after_array = 0, .xhv_max = 0, .xhv_aux_name = 32,
			.xhv_aux_name_count = 60,
			.hek_len = 4, .hek_key = 8,
			.op_type_word = 32, .op_type_mask = 0x1ff, .cop_line = 36, .cop_file = 48,
			.cxtypemask = 0xf, .cxt_sub = 9, .cxt_format = 10, .cxt_eval = 11,
			.old_op_type_shift = 7,
			.perlsi_main = 1,
			.svtypemask = 0xff, .svt_pvgv = 9, .svt_pvhv = 12, .svt_pvcv = 13,
			.svt_pvfm = 14,
			.svf_ook = 0x02000000, .svp_pok = 0x00004000, .svpgv_gp = 0x00008000,
			.cvf_named = 0x00008000, .cvf_lexical = 0x10000,
			.op_nextstate = 198, .op_dbstate = 199, .op_entersub = 187,
			.op_leavesub = 188, .op_leavesublv = 189,
			.interp_stack_sp = 0, .sv_u = 16, .gp_cv = 16, .svf_rok = 0x00000800,
			.cvf_isxsub = 0x0008,
		} },
	},
	/*
	 * Perl 5.42 (Debian sid, 5.42.3): perl542.h, checked inside a sid
	 * root; as 5.40 but for the op numbers.
	 */
	{
		.lang_name = "perl", .version = "5.42", .lang = INTERP_PERL,
		.exe_name = "perl", .exe_prefix = "perl5.42.", .lib_prefix = "libperl.so.5.42",
		.eval_func = "Perl_runops_standard",
		.layout = { .lang = INTERP_PERL, .pl = PERL_LAYOUT_542 },
	},
	/*
	 * Perl 5.44 (Debian experimental, 5.44.0-2): perl544.h, checked against
	 * that build's CORE headers and ccflags; every number as 5.42's.
	 */
	{
		.lang_name = "perl", .version = "5.44", .lang = INTERP_PERL,
		.exe_name = "perl", .exe_prefix = "perl5.44.", .lib_prefix = "libperl.so.5.44",
		.eval_func = "Perl_runops_standard",
		.layout = { .lang = INTERP_PERL, .pl = PERL_LAYOUT_542 },
	},
	{ .version = NULL },	/* end */
};

/* The byte at ELF vaddr addr, from the file's loaded contents. */
static bool elf_byte_at(Elf *elf, uint64_t addr, uint8_t *out)
{
	size_t i, n, size;
	const char *raw = elf_rawfile(elf, &size);

	if (!raw || elf_getphdrnum(elf, &n))
		return false;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (addr >= ph.p_vaddr && addr - ph.p_vaddr < ph.p_filesz &&
		    ph.p_offset + (addr - ph.p_vaddr) < size) {
			*out = raw[ph.p_offset + (addr - ph.p_vaddr)];
			return true;
		}
	}
	return false;
}

/*
 * The perl version of elf (PL_revision, PL_version), read from the file
 * (const data): the table is chosen by the target's own version, not its
 * file name, and the process may be gone already.
 */
bool perl_file_version(Elf *elf, unsigned int *rev, unsigned int *ver)
{
	uint64_t rev_addr, ver_addr;
	uint8_t r, v;

	*rev = *ver = 0;
	if (!elf || !elf_dynsym_find(elf, "PL_revision", &rev_addr, NULL) ||
	    !elf_dynsym_find(elf, "PL_version", &ver_addr, NULL) ||
	    !elf_byte_at(elf, rev_addr, &r) || !elf_byte_at(elf, ver_addr, &v))
		return false;
	*rev = r;
	*ver = v;
	return true;
}

static bool version_is(const struct interp_version *v, unsigned int rev, unsigned int ver)
{
	unsigned int want_rev, want_ver;

	return sscanf(v->version, "%u.%u", &want_rev, &want_ver) == 2 && rev == want_rev &&
	       ver == want_ver;
}

/* The version table of the perl in elf; NULL if none. */
const struct interp_version *perl_version_of(Elf *elf, unsigned int *rev, unsigned int *ver)
{
	size_t i;

	if (!perl_file_version(elf, rev, ver))
		return NULL;
	for (i = 0; perl_versions[i].version; i++)
		if (version_is(&perl_versions[i], *rev, *ver))
			return &perl_versions[i];
	return NULL;
}
