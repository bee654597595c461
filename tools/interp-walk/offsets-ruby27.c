/* Ruby 2.7's real offsets, from offsetof() in rb_mjit_min_header-2.7.N.h (ruby2.7-dev): the
 * preprocessed internal headers of this exact libruby build.  Compiled and run inside a
 * Debian 11 root (check-ruby-roots.sh), it prints name=value lines with the names of
 * ruby-layout.c, which prints stitch's table: the two must agree. */
#include RB_MJIT_HEADER
int printf(const char *, ...);
#define OFF(t, f) __builtin_offsetof(t, f)
#define P(name, v) printf("%s=%llu\n", #name, (unsigned long long)(v))
int main(void)
{
	typedef struct rb_iseq_constant_body B;
	P(th_vm, OFF(rb_thread_t, vm));
	P(th_ec, OFF(rb_thread_t, ec));
	P(def_iseq_ptr, OFF(struct rb_method_definition_struct, body.iseq.iseqptr));
	P(ec_vm_stack, OFF(rb_execution_context_t, vm_stack));
	P(ec_vm_stack_size, OFF(rb_execution_context_t, vm_stack_size));
	P(ec_cfp, OFF(rb_execution_context_t, cfp));
	P(cfp_size, sizeof(rb_control_frame_t));
	P(cfp_pc, OFF(rb_control_frame_t, pc));
	P(cfp_iseq, OFF(rb_control_frame_t, iseq));
	P(cfp_ep, OFF(rb_control_frame_t, ep));
	P(ep_me_cref_below, -VM_ENV_DATA_INDEX_ME_CREF * 8);
	P(ep_specval_below, -VM_ENV_DATA_INDEX_SPECVAL * 8);
	P(env_flag_local, VM_ENV_FLAG_LOCAL);
	P(magic_mask, VM_FRAME_MAGIC_MASK);
	P(magic_cfunc, VM_FRAME_MAGIC_CFUNC);
	P(magic_dummy, VM_FRAME_MAGIC_DUMMY);
	P(flag_cframe, VM_FRAME_FLAG_CFRAME);
	P(flag_finish, VM_FRAME_FLAG_FINISH);
	P(iseq_body, OFF(rb_iseq_t, body));
	P(me_def, OFF(rb_callable_method_entry_t, def));
	P(def_original_id, OFF(struct rb_method_definition_struct, original_id));
	P(def_cfunc_func, OFF(struct rb_method_definition_struct, body.cfunc.func));
	P(t_mask, RUBY_T_MASK);
	P(t_imemo, RUBY_T_IMEMO);
	P(imemo_shift, RUBY_FL_USHIFT);
	P(imemo_ment, imemo_ment);
	P(imemo_iseq, imemo_iseq);
	P(imemo_svar, imemo_svar);
	P(svar_cref_or_me, OFF(struct vm_svar, cref_or_me));
	P(me_owner, OFF(rb_callable_method_entry_t, owner));
	P(me_read, sizeof(rb_callable_method_entry_t));
	P(body_iseq_size, OFF(B, iseq_size));
	P(body_iseq_encoded, OFF(B, iseq_encoded));
	P(body_pathobj, OFF(B, location.pathobj));
	P(body_label, OFF(B, location.label));
	P(body_insns_info, OFF(B, insns_info.body));
	P(body_insns_info_size, OFF(B, insns_info.size));
	P(body_succ_index, OFF(B, insns_info.succ_index_table));
	P(body_read, OFF(B, local_iseq) + 8);
	P(insn_info_entry_size, sizeof(struct iseq_insn_info_entry));
	P(t_string, RUBY_T_STRING);
	P(t_array, RUBY_T_ARRAY);
	P(str_noembed, RSTRING_NOEMBED);
	P(str_embed_len_shift, RSTRING_EMBED_LEN_SHIFT);
	P(str_embed_len_mask, RSTRING_EMBED_LEN_MASK >> RSTRING_EMBED_LEN_SHIFT);
	P(str_embed, OFF(struct RString, as.ary));
	P(str_len, OFF(struct RString, as.heap.len));
	P(str_ptr, OFF(struct RString, as.heap.ptr));
	P(ary_embed_flag, RARRAY_EMBED_FLAG);
	P(ary_embed_len_shift, RARRAY_EMBED_LEN_SHIFT);
	P(ary_embed_len_mask, RARRAY_EMBED_LEN_MASK >> RARRAY_EMBED_LEN_SHIFT);
	P(ary_embed, OFF(struct RArray, as.ary));
	P(ary_len, OFF(struct RArray, as.heap.len));
	P(ary_ptr, OFF(struct RArray, as.heap.ptr));
	P(tlast_op_id, tLAST_OP_ID);
	P(id_scope_shift, RUBY_ID_SCOPE_SHIFT);
	P(body_type, OFF(B, type));
	P(body_local_iseq, OFF(B, local_iseq));
	P(iseq_method, ISEQ_TYPE_METHOD);
	P(iseq_block, ISEQ_TYPE_BLOCK);
	P(iseq_rescue, ISEQ_TYPE_RESCUE);
	P(iseq_ensure, ISEQ_TYPE_ENSURE);
	P(t_class, RUBY_T_CLASS);
	P(t_module, RUBY_T_MODULE);
	P(fl_singleton, RUBY_FL_SINGLETON);
	P(rclass_ext, OFF(struct RClass, ptr));
	P(ext_iv_tbl, OFF(rb_classext_t, iv_tbl));
	P(st_entries_start, OFF(struct st_table, entries_start));
	P(st_entries_bound, OFF(struct st_table, entries_bound));
	P(st_entries, OFF(struct st_table, entries));
	P(id_attached, id__attached__);
	return 0;
}
