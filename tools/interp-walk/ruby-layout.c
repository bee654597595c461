/* Prints stitch's table entry for one Ruby version (src/interp/ruby/ruby_versions.c) as
 * name=value lines, the names offsets-ruby27.c and offsets-ruby-rjit.rb print the real values
 * under: check-ruby-roots.sh compares the two.  Usage: ruby-layout VERSION */
#include <stdio.h>
#include <string.h>

#include "interp/ruby/ruby.h"

#define P(f) printf("%s=%llu\n", #f, (unsigned long long)L->f)

int main(int argc, char **argv)
{
	const struct interp_version *v;
	const struct interp_ruby_layout *L;

	for (v = ruby_versions; v->version && (argc < 2 || strcmp(v->version, argv[1])); v++)
		;
	if (!v->version)
		return 1;
	L = &v->layout.rb;
	P(th_vm); P(th_ec); P(def_iseq_ptr);
	P(ec_vm_stack); P(ec_vm_stack_size); P(ec_cfp);
	P(cfp_size); P(cfp_pc); P(cfp_iseq); P(cfp_ep);
	P(ep_me_cref_below); P(ep_specval_below); P(env_flag_local);
	P(magic_mask); P(magic_cfunc); P(magic_dummy); P(flag_cframe); P(flag_finish);
	P(iseq_body); P(me_def); P(def_original_id); P(def_cfunc_func);
	P(t_mask); P(t_imemo); P(imemo_shift); P(imemo_mask);
	P(imemo_ment); P(imemo_iseq); P(imemo_svar); P(svar_cref_or_me);
	P(me_owner); P(me_read);
	P(body_iseq_size); P(body_iseq_encoded); P(body_pathobj); P(body_label);
	P(body_insns_info); P(body_insns_info_size); P(body_succ_index); P(body_read);
	P(insn_info_entry_size);
	P(t_string); P(t_array);
	P(str_noembed); P(str_embed_len_shift); P(str_embed_len_mask); P(str_embed);
	P(str_len); P(str_ptr);
	P(ary_embed_flag); P(ary_embed_len_shift); P(ary_embed_len_mask); P(ary_embed);
	P(ary_len); P(ary_ptr);
	P(symbols_ids); P(id_scope_shift); P(tlast_op_id);
	P(body_type); P(body_local_iseq);
	P(iseq_method); P(iseq_block); P(iseq_rescue); P(iseq_ensure);
	P(t_class); P(t_module); P(fl_singleton);
	P(cls_classpath); P(cls_attached); P(cls_permanent); P(cls_permanent_bit);
	P(rclass_ext); P(ext_iv_tbl);
	P(st_entries_start); P(st_entries_bound); P(st_entries);
	P(id_attached);
	return 0;
}
