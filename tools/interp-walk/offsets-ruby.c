/* Checks ruby31.h against offsetof() in rb_mjit_min_header-3.1.N.h (ruby3.1-dev): the
 * preprocessed internal headers of this exact libruby build (the patch level changes with
 * Debian's security updates, so the build passes the name in). Link with -lruby-3.1. */
#include RB_MJIT_HEADER
#include "ruby31.h"
int printf(const char *, ...);
static int bad;
#define OFF(t, f) __builtin_offsetof(t, f)
#define C(mac, val) do { if ((unsigned long)(mac) != (unsigned long)(val)) { printf("MISMATCH %s=%lu real %lu\n", #mac, (unsigned long)(mac), (unsigned long)(val)); bad = 1; } else printf("ok %s=%lu\n", #mac, (unsigned long)(mac)); } while (0)
int main(void)
{
	typedef struct rb_iseq_constant_body B;
	C(RB31_EC_VM_STACK, OFF(rb_execution_context_t, vm_stack));
	C(RB31_EC_VM_STACK_SIZE, OFF(rb_execution_context_t, vm_stack_size));
	C(RB31_EC_CFP, OFF(rb_execution_context_t, cfp));
	C(RB31_CFP_SIZE, sizeof(rb_control_frame_t));
	C(RB31_CFP_PC, OFF(rb_control_frame_t, pc));
	C(RB31_CFP_ISEQ, OFF(rb_control_frame_t, iseq));
	C(RB31_CFP_EP, OFF(rb_control_frame_t, ep));
	C(RB31_EP_ME_CREF, VM_ENV_DATA_INDEX_ME_CREF * 8);
	C(RB31_FRAME_MAGIC_MASK, VM_FRAME_MAGIC_MASK);
	C(RB31_FRAME_MAGIC_CFUNC, VM_FRAME_MAGIC_CFUNC);
	C(RB31_FRAME_MAGIC_DUMMY, VM_FRAME_MAGIC_DUMMY);
	C(RB31_FRAME_FLAG_CFRAME, VM_FRAME_FLAG_CFRAME);
	C(RB31_ISEQ_BODY, OFF(rb_iseq_t, body));
	C(RB31_BODY_ISEQ_SIZE, OFF(B, iseq_size));
	C(RB31_BODY_ISEQ_ENCODED, OFF(B, iseq_encoded));
	C(RB31_BODY_PATHOBJ, OFF(B, location.pathobj));
	C(RB31_BODY_LABEL, OFF(B, location.label));
	C(RB31_BODY_FIRST_LINENO, OFF(B, location.first_lineno));
	C(RB31_BODY_INSNS_INFO_BODY, OFF(B, insns_info.body));
	C(RB31_BODY_INSNS_INFO_POSITIONS, OFF(B, insns_info.positions));
	C(RB31_BODY_INSNS_INFO_SIZE, OFF(B, insns_info.size));
	C(RB31_BODY_SUCC_INDEX, OFF(B, insns_info.succ_index_table));
	C(RB31_INSN_INFO_ENTRY_SIZE, sizeof(struct iseq_insn_info_entry));
	C(RB31_INSN_INFO_LINE_NO, OFF(struct iseq_insn_info_entry, line_no));
	C(RB31_ME_DEF, OFF(rb_callable_method_entry_t, def));
	C(RB31_DEF_ORIGINAL_ID, OFF(struct rb_method_definition_struct, original_id));
	C(RB31_ME_DEFINED_CLASS, OFF(rb_callable_method_entry_t, defined_class));
	C(RB31_ME_OWNER, OFF(rb_callable_method_entry_t, owner));
	C(RB31_EP_SPECVAL, VM_ENV_DATA_INDEX_SPECVAL * 8);
	C(RB31_ENV_FLAG_LOCAL, VM_ENV_FLAG_LOCAL);
	C(RB31_IMEMO_CREF, imemo_cref);
	C(RB31_RCLASS_PTR, OFF(struct RClass, ptr));
	C(RB31_CLASSEXT_IV_TBL, OFF(rb_classext_t, iv_tbl));
	C(RB31_FL_SINGLETON, RUBY_FL_SINGLETON);
	C(RB31_ST_NUM_ENTRIES, OFF(struct st_table, num_entries));
	C(RB31_ST_ENTRIES_START, OFF(struct st_table, entries_start));
	C(RB31_ST_ENTRIES_BOUND, OFF(struct st_table, entries_bound));
	C(RB31_ST_ENTRIES, OFF(struct st_table, entries));
	C(RB31_T_CLASS, RUBY_T_CLASS);
	C(RB31_T_MODULE, RUBY_T_MODULE);
	C(RB31_ID_ATTACHED, id__attached__);
	C(RB31_IMEMO_SVAR, imemo_svar);
	C(RB31_SVAR_CREF_OR_ME, OFF(struct vm_svar, cref_or_me));
	C(RB31_ME_READ, sizeof(rb_callable_method_entry_t));
	C(RB31_ME_READ, OFF(rb_callable_method_entry_t, owner) + 8);
	C(RB31_BODY_TYPE, OFF(B, type));
	C(4, sizeof(((B *)0)->type));
	C(RB31_BODY_LOCAL_ISEQ, OFF(B, local_iseq));
	C(RB31_BODY_READ_NAMES, OFF(B, local_iseq) + 8);
	C(RB31_ISEQ_TYPE_METHOD, ISEQ_TYPE_METHOD);
	C(RB31_ISEQ_TYPE_BLOCK, ISEQ_TYPE_BLOCK);
	C(RB31_ISEQ_TYPE_RESCUE, ISEQ_TYPE_RESCUE);
	C(RB31_ISEQ_TYPE_ENSURE, ISEQ_TYPE_ENSURE);
	C(RB31_T_STRING, RUBY_T_STRING);
	C(RB31_T_ARRAY, RUBY_T_ARRAY);
	C(RB31_T_IMEMO, RUBY_T_IMEMO);
	C(RB31_IMEMO_MENT, imemo_ment);
	C(RB31_IMEMO_ISEQ, imemo_iseq);
	C(RB31_FL_USHIFT, RUBY_FL_USHIFT);
	C(RB31_RSTRING_NOEMBED, RSTRING_NOEMBED);
	C(RB31_RSTRING_EMBED_LEN(RSTRING_EMBED_LEN_MASK), RSTRING_EMBED_LEN_MASK >> RSTRING_EMBED_LEN_SHIFT);
	C(RB31_RSTRING_EMBED_ARY, OFF(struct RString, as.embed.ary));
	C(RB31_RSTRING_HEAP_LEN, OFF(struct RString, as.heap.len));
	C(RB31_RSTRING_HEAP_PTR, OFF(struct RString, as.heap.ptr));
	C(RB31_RARRAY_EMBED_FLAG, RARRAY_EMBED_FLAG);
	C(RB31_RARRAY_EMBED_LEN(RARRAY_EMBED_LEN_MASK), RARRAY_EMBED_LEN_MASK >> RARRAY_EMBED_LEN_SHIFT);
	C(RB31_RARRAY_EMBED_ARY, OFF(struct RArray, as.ary));
	C(RB31_RARRAY_HEAP_LEN, OFF(struct RArray, as.heap.len));
	C(RB31_RARRAY_HEAP_PTR, OFF(struct RArray, as.heap.aux) + 8);
	C(RB31_RARRAY_HEAP_PTR, OFF(struct RArray, as.heap.ptr));
	C(RB31_SYMBOLS_IDS, 16);
	C(RB31_TLAST_OP_ID, tLAST_OP_ID);
	C(RB31_ID_SCOPE_SHIFT, RUBY_ID_SCOPE_SHIFT);
	return bad;
}
