// SPDX-License-Identifier: GPL-2.0
/*
 * The Ruby versions stitch can walk, and the layouts of their structures.
 * Adding a version with the same walk is one entry here.
 */
#include "interp/ruby/ruby.h"

/*
 * Ruby 3.3's layout, which 3.4 keeps but for two numbers (FL_SINGLETON and
 * tLAST_OP_ID, set in each entry): every other offset, size and constant
 * the walker and ruby.c read is the same in both builds (their RJIT
 * bindings and live objects, tools/interp-walk/offsets-ruby-rjit.rb).
 */
#define RUBY_LAYOUT_33_34								\
	.ec_from = RUBY_EC_TLS,								\
	.ec_vm_stack = 0,								\
	.ec_vm_stack_size = 8,								\
	.ec_cfp = 16,									\
	.cfp_size = 56,		/* no __bp__ */						\
	.cfp_pc = 0,									\
	.cfp_iseq = 16,									\
	.cfp_ep = 32,									\
	.ep_me_cref_below = 16,								\
	.ep_specval_below = 8,								\
	.env_flag_local = 0x2,								\
	.magic_mask = 0x7fff0001,							\
	.magic_cfunc = 0x55550001,							\
	.magic_dummy = 0x79990001,							\
	.flag_cframe = 0x80,								\
	.flag_finish = 0x20,								\
	.iseq_body = 16,								\
	.me_def = 16,									\
	.def_original_id = 32,								\
	.def_cfunc_func = 8,								\
	.t_mask = 0x1f, .t_imemo = 0x1a,						\
	.imemo_shift = 12, .imemo_mask = 0xf,						\
	.imemo_ment = 6, .imemo_iseq = 7,						\
	.imemo_svar = 2, .svar_cref_or_me = 8,						\
	.me_owner = 32, .me_read = 40,							\
	.body_iseq_size = 4,								\
	.body_iseq_encoded = 8,								\
	.body_pathobj = 64,								\
	.body_label = 80,								\
	.body_insns_info = 112,								\
	.body_insns_info_size = 128,							\
	.body_succ_index = 136,								\
	.body_read = 176,	/* through .local_iseq */				\
	.insn_info_entry_size = 12,							\
	.t_string = 0x05, .t_array = 0x07,						\
	/* RVARGC: an embedded string's length is in .len as well */			\
	.str_noembed = 1 << 13, .str_embed_len_shift = 0,				\
	.str_embed_len_mask = 0, .str_embed = 24, .str_len = 16, .str_ptr = 24,		\
	.ary_embed_flag = 1 << 13, .ary_embed_len_shift = 15,				\
	.ary_embed_len_mask = 0x7f, .ary_embed = 16, .ary_len = 16, .ary_ptr = 32,	\
	.symbols_last_id = 0, .symbols_ids = 16, .id_scope_shift = 4,			\
	.id_entry_unit = 512, .id_entry_size = 2,					\
	.body_type = 0, .body_local_iseq = 168,						\
	.iseq_method = 1, .iseq_block = 2, .iseq_rescue = 4, .iseq_ensure = 5,		\
	.t_class = 0x02, .t_module = 0x03,						\
	.class_mode = RUBY_CLASS_EXT,							\
	.cls_classpath = 152, .cls_attached = 128,					\
	.cls_permanent = 149, .cls_permanent_bit = 1

const struct interp_version ruby_versions[] = {
	{
		/*
		 * Ruby 2.7 (Debian 11's 2.7.4): offsets checked against
		 * rb_mjit_min_header-2.7.4.h by tools/interp-walk/offsets-ruby27.c,
		 * compiled inside a bullseye root.  No TLS variable: the ec comes
		 * from the thread's rb_thread_t (RUBY_EC_TSD); the pthread key and
		 * the symbol table are found from exported functions' code
		 * (ruby_detect.c).
		 */
		.lang_name = "ruby", .version = "2.7", .lang = INTERP_RUBY,
		.exe_name = NULL, .lib_prefix = "libruby-2.7.so",
		.eval_func = "rb_vm_exec",
		.tls_sym = NULL,
		.layout = { .lang = INTERP_RUBY, .rb = {
			.ec_from = RUBY_EC_TSD,
			.th_vm = 24, .th_ec = 32,
			.push_cfp_first = 1, .def_iseq_ptr = 8,
			.ec_vm_stack = 0,
			.ec_vm_stack_size = 8,
			.ec_cfp = 16,
			.cfp_size = 56,
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
			.insn_info_entry_size = 8,	/* no node_id */
			.t_string = 0x05, .t_array = 0x07,
			.str_noembed = 1 << 13, .str_embed_len_shift = 14,
			.str_embed_len_mask = 0x1f, .str_embed = 16, .str_len = 16, .str_ptr = 24,
			.ary_embed_flag = 1 << 13, .ary_embed_len_shift = 15,
			.ary_embed_len_mask = 3, .ary_embed = 16, .ary_len = 16, .ary_ptr = 32,
			.symbols_last_id = 0, .symbols_ids = 16, .id_scope_shift = 4,
			.tlast_op_id = 0xa8, .id_entry_unit = 512, .id_entry_size = 2,
			.body_type = 0, .body_local_iseq = 176,
			.iseq_method = 1, .iseq_block = 2, .iseq_rescue = 4, .iseq_ensure = 5,
			.t_class = 0x02, .t_module = 0x03, .fl_singleton = 1 << 12,
			.class_mode = RUBY_CLASS_IV_TBL,
			.rclass_ext = 24, .ext_iv_tbl = 8,
			.st_entries_start = 32, .st_entries_bound = 40, .st_entries = 48,
			.st_entry_size = 24, .st_entry_key = 8, .st_entry_record = 16,
			.id_attached = 0xc01,
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
			.ec_from = RUBY_EC_TLS,
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
			.class_mode = RUBY_CLASS_IV_TBL,
			.rclass_ext = 24, .ext_iv_tbl = 8,
			.st_entries_start = 32, .st_entries_bound = 40, .st_entries = 48,
			.st_entry_size = 24, .st_entry_key = 8, .st_entry_record = 16,
			.id_attached = 0xc11,
		} },
	},
	{
		/*
		 * Ruby 3.3 (Debian 13's 3.3.x, sid's 3.3.8).  No MJIT header any
		 * more: the offsets are RJIT's, RubyVM::RJIT::C (its bindings are
		 * offsetof()/sizeof()/constants compiled into this libruby),
		 * printed and checked by tools/interp-walk/offsets-ruby-rjit.rb in a
		 * trixie root; what RJIT does not bind (iseq_insn_info's fields,
		 * imemo types, rb_classext_t) from ruby/ruby v3_3 sources by hand,
		 * the classext's checked there through Fiddle against live
		 * classes, all proven by the exact-frame tests.  ruby_current_ec
		 * and vm_exec are not exported: found from exported functions'
		 * code (ruby_detect.c).
		 */
		.lang_name = "ruby", .version = "3.3", .lang = INTERP_RUBY,
		.exe_name = NULL, .lib_prefix = "libruby-3.3.so",
		.eval_func = NULL,
		.tls_sym = NULL,
		.layout = { .lang = INTERP_RUBY, .rb = {
			RUBY_LAYOUT_33_34,
			.fl_singleton = 1 << 12,	/* FL_USER0 */
			.tlast_op_id = 0xa9,
		} },
	},
	{
		/*
		 * Ruby 3.4 (Debian experimental's 3.4.11).  Checked as 3.3's, by
		 * offsets-ruby-rjit.rb in the experimental root: RJIT's bindings
		 * of this libruby give the same offsets and sizes as 3.3's
		 * (rb_execution_context_t lost ensure_list after .cfp, and
		 * rb_iseq_constant_body gained .prism after .local_iseq: neither
		 * moves a field read here); rb_classext_t, the imemo and iseq
		 * types and iseq_insn_info's fields checked there against live
		 * objects, and rbspy's bindgen of 3.4.10 agrees.  Two numbers
		 * differ: FL_SINGLETON is FL_USER1 (ruby-3.4.0/ruby/internal/
		 * fl_type.h of ruby3.4-dev; the script finds the one bit that
		 * gives RCLASS_SINGLETON_P on every class), and tLAST_OP_ID is
		 * 0xaa (rb_id2str's "cmp $0xaa, %rax").  The same code patterns
		 * find ruby_current_ec, vm_exec and the symbol table
		 * (ruby_detect.c).  Proven by the exact-frame tests.
		 */
		.lang_name = "ruby", .version = "3.4", .lang = INTERP_RUBY,
		.exe_name = NULL, .lib_prefix = "libruby-3.4.so",
		.eval_func = NULL,
		.tls_sym = NULL,
		.layout = { .lang = INTERP_RUBY, .rb = {
			RUBY_LAYOUT_33_34,
			.fl_singleton = 1 << 13,	/* FL_USER1 */
			.tlast_op_id = 0xaa,
		} },
	},
	{ .version = NULL },	/* end */
};
