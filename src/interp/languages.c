// SPDX-License-Identifier: GPL-2.0
/*
 * The interpreter versions stitch can walk, and the layouts of their
 * structures.  Adding a version with the same walk (CPython 3.12 keeps the
 * 3.11 frame list; Ruby 3.2/3.3, Perl 5.38/5.40 likewise) is one entry here.
 *
 * glibc: struct pthread (specific_1stblock) and struct link_map offsets from
 * libc6-dbg's DWARF.  CPython 3.11 offsets: checked with offsetof() against python3.11-dev's
 * headers by tools/interp-walk/offsets-python.c (Debian's 3.11.2 and the
 * pyenv 3.11.7 build have the same layout); see docs/interpreters.md.
 */
#include <stdio.h>
#include <string.h>

#include "interp/interp_user.h"

const struct interp_version interp_versions[] = {
	{
		.lang_name = "python", .version = "3.11", .lang = INTERP_PYTHON,
		.exe_name = "python3.11", .lib_prefix = "libpython3.11.so",
		.eval_func = "_PyEval_EvalFrameDefault",
		.tss_key_off = 596,
		.layout = { .lang = INTERP_PYTHON, .py = {
			.tstate_cframe = 56,
			.cframe_current_frame = 8,
			.frame_code = 32,
			.frame_previous = 48,
			.frame_instr = 56,
			.frame_is_entry = 68,
			.frame_owner = 69,
			.code_firstlineno = 72,
			.code_filename = 112,
			.code_qualname = 128,
			.code_linetable = 136,
			.code_firsttraceable = 168,
			.code_bytecode = 184,
			.ob_type = 8,
			.var_size = 16,
			.bytes_data = 32,
			.unicode_length = 16,
			.unicode_state = 32,
			.ascii_data = 48,
			.compact_data = 72,
			.codeunit = 2,
			.frame_read = 72,	/* through .owner */
			.code_read = 176,	/* through ._co_firsttraceable */
			.owner_generator = 1,
		} },
	},
	{
		/*
		 * Ruby 3.1 (Debian 12's 3.1.2): offsets checked against
		 * rb_mjit_min_header-3.1.2.h by tools/interp-walk/offsets-ruby.c.
		 * The VM lives in libruby; the executable is a thin main.
		 */
		.lang_name = "ruby", .version = "3.1", .lang = INTERP_RUBY,
		.exe_name = NULL, .lib_prefix = "libruby-3.1.so",
		.eval_func = "rb_vm_exec",
		.tls_sym = "ruby_current_ec",
		.layout = { .lang = INTERP_RUBY, .rb = {
			.ec_vm_stack = 0,
			.ec_vm_stack_size = 8,
			.ec_cfp = 16,
			.cfp_size = 64,
			.cfp_pc = 0,
			.cfp_iseq = 16,
			.cfp_ep = 32,
			.ep_me_cref_below = 16,
			.ep_specval_below = 8,
			.env_flag_local = 0x2,
			.magic_mask = 0x7fff0001,
			.magic_cfunc = 0x55550001,
			.magic_dummy = 0x79990001,
			.flag_cframe = 0x80,
			.flag_finish = 0x20,
			.iseq_body = 16,
			.me_def = 16,
			.def_original_id = 32,
			.def_cfunc_func = 8,
			.t_mask = 0x1f, .t_imemo = 0x1a,
			.imemo_shift = 12, .imemo_mask = 0xf,
			.imemo_ment = 6, .imemo_iseq = 7,
			.imemo_svar = 2, .svar_cref_or_me = 8,
			.me_owner = 32, .me_read = 40,
			.body_iseq_size = 4,
			.body_iseq_encoded = 8,
			.body_pathobj = 64,
			.body_label = 80,
			.body_insns_info = 120,
			.body_insns_info_size = 136,
			.body_succ_index = 144,
			.body_read = 184,	/* through .local_iseq */
			.insn_info_entry_size = 12,
			.t_string = 0x05, .t_array = 0x07,
			.str_noembed = 1 << 13, .str_embed_len_shift = 14,
			.str_embed_len_mask = 0x1f, .str_embed = 16, .str_len = 16, .str_ptr = 24,
			.ary_embed_flag = 1 << 13, .ary_embed_len_shift = 15,
			.ary_embed_len_mask = 3, .ary_embed = 16, .ary_len = 16, .ary_ptr = 32,
			.symbols_last_id = 0, .symbols_ids = 16, .id_scope_shift = 4,
			.tlast_op_id = 0xa9, .id_entry_unit = 512, .id_entry_size = 2,
			.body_type = 0, .body_local_iseq = 176,
			.iseq_method = 1, .iseq_block = 2, .iseq_rescue = 4, .iseq_ensure = 5,
			.t_class = 0x02, .t_module = 0x03, .fl_singleton = 1 << 12,
			.rclass_ext = 24, .ext_iv_tbl = 8,
			.st_entries_start = 32, .st_entries_bound = 40, .st_entries = 48,
			.st_entry_size = 24, .st_entry_key = 8, .st_entry_record = 16,
			.id_attached = 0xc11,
		} },
	},
	/*
	 * Perl 5.36 (Debian's /usr/bin/perl, libperl linked in, ithreads; or
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
			.interp_compiling = 1936,
			.interp_phase = 2512, .phase_destruct = 6,
			.si_cxstack = 8, .si_prev = 16, .si_cxix = 32, .si_cxsubix = 40,
			.si_type = 44,
			.cx_size = 104, .cx_type_byte = 0, .cx_u16 = 2, .cx_oldcop = 16,
			.cx_retop = 48, .cx_old_cxsubix = 56, .cx_sub_cv = 72,
			.sv_any = 0, .sv_flags = 12,
			.xcv_stash = 32, .xcv_start = 40, .xcv_gv_or_hek = 56, .xcv_flags = 92,
			.xgv_namehek = 32, .xgv_stash = 40,
			.xhv_aux_name = 32, .xhv_aux_name_count = 60,
			.hek_len = 4, .hek_key = 8,
			.op_type_word = 32, .op_type_mask = 0x1ff, .cop_line = 36, .cop_file = 48,
			.cxtypemask = 0xf, .cxt_sub = 9, .cxt_format = 10, .cxt_eval = 11,
			.old_op_type_shift = 7,
			.perlsi_main = 1,
			.svtypemask = 0xff, .svt_pvgv = 9, .svt_pvhv = 12, .svt_pvcv = 13,
			.svt_pvfm = 14,
			.svf_ook = 0x02000000, .svp_pok = 0x00004000, .svpgv_gp = 0x00008000,
			.cvf_named = 0x8000, .cvf_lexical = 0x10000,
			.op_nextstate = 195, .op_dbstate = 196,
		} },
	},
};

const size_t interp_nversions = sizeof(interp_versions) / sizeof(interp_versions[0]);

/*
 * pthread_getspecific() inlined: glibc's struct pthread (== fs_base on
 * x86-64) holds specific_1stblock, 32 entries of { seq, data }.  The offset
 * is per glibc version (checked with libc6-dbg's DWARF).
 */
static const struct interp_glibc glibc_236 = {
	.pthread_specific = 784,
	.r_map = 8, .lm_name = 8, .lm_next = 24, .lm_tls_modid = 1152,
};

const struct interp_glibc *interp_glibc_layout(int major, int minor)
{
	if (major == 2 && minor == 36)
		return &glibc_236;
	return NULL;
}

/* "python3.12" -> ("python", "3.12"): names that look like an interpreter. */
static bool looks_like(const char *base, const char *prefix, const char *lang, char *lang_out,
		       size_t lang_len, char *ver_out, size_t ver_len)
{
	size_t n = strlen(prefix), i;

	if (strncmp(base, prefix, n) != 0)
		return false;
	for (i = n; base[i] && (base[i] == '.' || (base[i] >= '0' && base[i] <= '9')); i++)
		;
	if (i == n || base[n] < '0' || base[n] > '9')
		return false;
	snprintf(lang_out, lang_len, "%s", lang);
	snprintf(ver_out, ver_len, "%.*s", (int)(i - n), base + n);
	/* libpython3.11.so -> "3.11"; drop what follows the minor version. */
	for (i = 0, n = 0; ver_out[i]; i++)
		if (ver_out[i] == '.' && ++n == 2)
			ver_out[i] = '\0';
	n = strlen(ver_out);
	if (n && ver_out[n - 1] == '.')
		ver_out[n - 1] = '\0';
	return true;
}

const struct interp_version *interp_version_for_module(const char *base, char *lang_out,
							size_t lang_len, char *ver_out,
							size_t ver_len)
{
	size_t i;

	lang_out[0] = ver_out[0] = '\0';
	for (i = 0; i < interp_nversions; i++) {
		const struct interp_version *v = &interp_versions[i];

		if ((v->exe_name && strcmp(base, v->exe_name) == 0) ||
		    (v->exe_prefix && strncmp(base, v->exe_prefix, strlen(v->exe_prefix)) == 0) ||
		    strncmp(base, v->lib_prefix, strlen(v->lib_prefix)) == 0)
			return v;
	}
	if (looks_like(base, "python", "python", lang_out, lang_len, ver_out, ver_len) ||
	    looks_like(base, "libpython", "python", lang_out, lang_len, ver_out, ver_len) ||
	    looks_like(base, "libruby-", "ruby", lang_out, lang_len, ver_out, ver_len) ||
	    looks_like(base, "libruby.so.", "ruby", lang_out, lang_len, ver_out, ver_len) ||
	    looks_like(base, "libperl.so.", "perl", lang_out, lang_len, ver_out, ver_len))
		return NULL;
	lang_out[0] = ver_out[0] = '\0';
	return NULL;
}
