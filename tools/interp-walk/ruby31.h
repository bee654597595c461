/* Ruby 3.1 (Debian 12: ruby3.1 / libruby3.1 3.1.2p20) offsets, x86-64.
 *
 * Internal structs (vm_core.h, iseq.h) are printed with offsetof() by a program compiled
 * against rb_mjit_min_header-3.1.2.h, which ruby3.1-dev ships: the preprocessed internal
 * headers of this exact build (the header MJIT compiles against), so the ABI matches
 * libruby-3.1.so.3.1. RString/RArray flags come from the installed public headers
 * (ruby/internal/core/rstring.h, rarray.h; USE_RVARGC is 0 in this build).
 * tools/interp-walk/offsets-ruby.c recompiles and run-checks.sh compares.
 */
#ifndef INTERP_RUBY31_H
#define INTERP_RUBY31_H

/* vm_core.h: struct rb_execution_context_struct */
#define RB31_EC_VM_STACK      0    /* .vm_stack (VALUE *) */
#define RB31_EC_VM_STACK_SIZE 8    /* .vm_stack_size (in VALUEs) */
#define RB31_EC_CFP           16   /* .cfp (innermost rb_control_frame_t) */

/* vm_core.h: rb_control_frame_t {pc, sp, iseq, self, ep, block_code, __bp__, jit_return} */
#define RB31_CFP_SIZE 64
#define RB31_CFP_PC   0
#define RB31_CFP_ISEQ 16
#define RB31_CFP_EP   32

/* vm_core.h: ep[VM_ENV_DATA_INDEX_FLAGS=0] frame flags, ep[VM_ENV_DATA_INDEX_ME_CREF=-2] */
#define RB31_EP_ME_CREF       (-16)     /* byte offset of ep[-2] */
#define RB31_FRAME_MAGIC_MASK 0x7fff0001
#define RB31_FRAME_MAGIC_CFUNC 0x55550001
#define RB31_FRAME_MAGIC_DUMMY 0x79990001
#define RB31_FRAME_FLAG_CFRAME 0x0080

/* vm_core.h: struct rb_iseq_struct, struct rb_iseq_constant_body */
#define RB31_ISEQ_BODY            16
#define RB31_BODY_ISEQ_SIZE       4    /* unsigned int, in VALUEs */
#define RB31_BODY_ISEQ_ENCODED    8    /* VALUE * */
#define RB31_BODY_PATHOBJ         64   /* .location.pathobj: String path or Array [path, realpath] */
#define RB31_BODY_LABEL           80   /* .location.label: "foo", "block in foo", "<main>" */
#define RB31_BODY_FIRST_LINENO    88   /* .location.first_lineno (Fixnum) */
#define RB31_BODY_INSNS_INFO_BODY 120  /* .insns_info.body (struct iseq_insn_info_entry *) */
#define RB31_BODY_INSNS_INFO_POSITIONS 128 /* .insns_info.positions: NULL once encoded (below) */
#define RB31_BODY_INSNS_INFO_SIZE 136  /* .insns_info.size (unsigned int) */
#define RB31_BODY_SUCC_INDEX      144  /* .insns_info.succ_index_table (VM_INSN_INFO_TABLE_IMPL 2) */
#define RB31_BODY_READ            152
#define RB31_INSN_INFO_ENTRY_SIZE 12   /* struct iseq_insn_info_entry {int line_no; int node_id; events} */
#define RB31_INSN_INFO_LINE_NO    0

/* iseq.c: struct succ_index_table { uint64_t imm_part[54/9];
 *   struct succ_dict_block { unsigned rank; uint64_t small_block_ranks; uint64_t bits[8]; } succ_part[]; } */
#define RB31_SUCC_IMM_SIZE   54   /* IMMEDIATE_TABLE_SIZE */
#define RB31_SUCC_PART       48   /* offsetof succ_part */
#define RB31_SUCC_BLOCK_SIZE 80   /* sizeof(struct succ_dict_block) */
#define RB31_SUCC_BLOCK_RANK 0
#define RB31_SUCC_BLOCK_SMALL_RANKS 8
#define RB31_SUCC_BLOCK_BITS 16

/* method.h: rb_callable_method_entry_t {flags, defined_class, def, called_id, owner};
 * struct rb_method_definition_struct .original_id */
#define RB31_ME_DEF          16
#define RB31_DEF_ORIGINAL_ID 32

/*
 * For Class#method names (stitch's walker and src/interp/ruby/ruby.c): the method entry's owner and
 * defined_class; a block frame's method entry is at its local ep (follow ep[-1] & ~3
 * while ep[0] lacks VM_ENV_FLAG_LOCAL), where ep[-2] is a cref (imemo 1) for code
 * outside a method.  A class's name is the hidden ivar __classpath__ in
 * RCLASS(c)->ptr->iv_tbl (an st_table of ID -> VALUE); a singleton class (FL_SINGLETON)
 * names its object by the ivar __attached__.
 */
#define RB31_ME_DEFINED_CLASS 8
#define RB31_ME_OWNER        32
#define RB31_EP_SPECVAL      (-8)      /* byte offset of ep[-1]: previous ep | flags */
#define RB31_ENV_FLAG_LOCAL  0x0002
#define RB31_IMEMO_CREF      1
#define RB31_RCLASS_PTR      24        /* struct RClass .ptr (rb_classext_t *) */
#define RB31_CLASSEXT_IV_TBL 8
#define RB31_FL_SINGLETON    (1 << 12)
#define RB31_ST_NUM_ENTRIES  16        /* struct st_table */
#define RB31_ST_ENTRIES_START 32
#define RB31_ST_ENTRIES_BOUND 40
#define RB31_ST_ENTRIES      48        /* st_table_entry is private to st.c: not checkable here */
/* st.c: struct st_table_entry {st_hash_t hash; st_data_t key; st_data_t record;}, a deleted
 * entry's hash is RESERVED_HASH_VAL (~0) */
#define RB31_ST_ENTRY_SIZE   24
#define RB31_ST_ENTRY_KEY    8
#define RB31_ST_ENTRY_RECORD 16
#define RB31_T_CLASS         0x02
#define RB31_T_MODULE        0x03
#define RB31_ID_ATTACHED     0xc11     /* id__attached__ (id.def: static, fixed per build) */
#define RB31_IMEMO_SVAR      2
#define RB31_SVAR_CREF_OR_ME 8         /* struct vm_svar .cref_or_me */
#define RB31_ME_READ         40        /* sizeof(rb_callable_method_entry_t): through owner */
#define RB31_BODY_TYPE       0         /* rb_iseq_constant_body.type (enum iseq_type, 4 bytes) */
#define RB31_BODY_LOCAL_ISEQ 176       /* .local_iseq: a block's method (or top/class) iseq */
#define RB31_BODY_READ_NAMES 184       /* a body read through .local_iseq */
#define RB31_ISEQ_TYPE_METHOD 1
#define RB31_ISEQ_TYPE_BLOCK  2
#define RB31_ISEQ_TYPE_RESCUE 4
#define RB31_ISEQ_TYPE_ENSURE 5

/* ruby/internal/value_type.h, imemo.h: RBasic.flags & 0x1f is the type; imemo type in bits 12.. */
#define RB31_T_STRING 0x05
#define RB31_T_ARRAY  0x07
#define RB31_T_IMEMO  0x1a
#define RB31_IMEMO_MENT 6
#define RB31_IMEMO_ISEQ 7
#define RB31_FL_USHIFT 12

/* ruby/internal/core/rstring.h, rarray.h (USE_RVARGC 0) */
#define RB31_RSTRING_NOEMBED   (1 << 13)  /* RUBY_FL_USER1 */
#define RB31_RSTRING_EMBED_LEN(f) (((f) >> 14) & 0x1f) /* FL_USER2..6 */
#define RB31_RSTRING_EMBED_ARY 16
#define RB31_RSTRING_HEAP_LEN  16
#define RB31_RSTRING_HEAP_PTR  24
#define RB31_RARRAY_EMBED_FLAG (1 << 13)  /* RUBY_FL_USER1 */
#define RB31_RARRAY_EMBED_LEN(f) (((f) >> 15) & 3) /* FL_USER3..4 */
#define RB31_RARRAY_EMBED_ARY  16
#define RB31_RARRAY_HEAP_LEN   16
#define RB31_RARRAY_HEAP_PTR   32

/* symbol.c: rb_symbols_t ruby_global_symbols {rb_id_serial_t last_id; st_table *str_sym;
 * VALUE ids; ...}: not exported; found from the code of rb_id2str (see docs). An ID's serial
 * is id >> RUBY_ID_SCOPE_SHIFT (4) above tLAST_OP_ID (0xa9); ids is an Array of Arrays of
 * ID_ENTRY_UNIT (512) * ID_ENTRY_SIZE (2) VALUEs, entry 0 the name String. */
#define RB31_SYMBOLS_LAST_ID 0
#define RB31_SYMBOLS_IDS     16
#define RB31_TLAST_OP_ID     0xa9
#define RB31_ID_SCOPE_SHIFT  4
#define RB31_ID_ENTRY_UNIT   512
#define RB31_ID_ENTRY_SIZE   2

/* glibc 2.36 struct link_map (ld.so, libc6-dbg DWARF) and the x86-64 TCB */
#define GLIBC236_R_DEBUG_R_MAP   8
#define GLIBC236_LM_L_NAME       8
#define GLIBC236_LM_L_NEXT       24
#define GLIBC236_LM_L_TLS_OFFSET 1144
#define GLIBC236_LM_L_TLS_MODID  1152
#define GLIBC_TCB_DTV            8    /* tcbhead_t.dtv at fs_base + 8 */
#define GLIBC_DTV_ENTRY_SIZE     16   /* dtv_t {void *val; void *to_free;}; dtv[modid].val */

#endif
