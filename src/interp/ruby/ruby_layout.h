/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ruby: what its walker (ruby.bpf.h) and its user side (ruby.c,
 * ruby_detect.c, ruby_versions.c) share, BPF C and user space.  interp.h
 * takes the layout and the config into struct interp_layout and struct
 * interp_proc_cfg (member rb), as it does for every line of languages.def.
 */
#ifndef STITCH_INTERP_RUBY_LAYOUT_H
#define STITCH_INTERP_RUBY_LAYOUT_H

#ifndef __bpf__
#include <linux/types.h>
#endif

/* Where the triggering thread's execution context comes from (ec_from). */
#define RUBY_EC_TLS	0	/* 3.x: ruby_current_ec, a TLS variable of libruby */
#define RUBY_EC_TSD	1	/* 2.7: ruby_native_thread_key's rb_thread_t, then th->ec */

/* How a class's name and a singleton's object are found (class_mode). */
#define RUBY_CLASS_IV_TBL	0	/* 2.7, 3.1: __classpath__, __attached__ in iv_tbl */
#define RUBY_CLASS_EXT		1	/* 3.3, 3.4: classpath, attached_object in rb_classext_t */

/*
 * A Ruby version's layout: the execution context (a TLS variable of
 * libruby, or the thread's rb_thread_t from its pthread key), control
 * frames in the VM stack from ec->cfp up to its end, iseq and method entry
 * objects type-checked.
 */
struct interp_ruby_layout {
	__u32 ec_from;			/* RUBY_EC_TLS or RUBY_EC_TSD */
	__u32 th_vm, th_ec;		/* RUBY_EC_TSD: rb_thread_t.vm, .ec */
	/*
	 * 2.7's vm_push_frame() sets ec->cfp before it writes the frame: the
	 * top control frame may still hold a popped frame's fields.  Then the
	 * top frame of a thread stopped outside a syscall is checked
	 * (def_iseq_ptr: rb_method_definition_t's body.iseq.iseqptr) and sent
	 * with RUBY_FRAME_UNSURE.
	 */
	__u32 push_cfp_first, def_iseq_ptr;
	__u32 ec_vm_stack;		/* rb_execution_context_t.vm_stack */
	__u32 ec_vm_stack_size;		/* .vm_stack_size (VALUEs) */
	__u32 ec_cfp;			/* .cfp */
	__u32 cfp_size;			/* sizeof(rb_control_frame_t) (<= INTERP_CHUNK) */
	__u32 cfp_pc;
	__u32 cfp_iseq;
	__u32 cfp_ep;
	/*
	 * ep[-2] (method entry or cref), ep[-1] (previous ep | flags) and
	 * ep[0] (frame/env flags) are read as one 24-byte block starting at
	 * ep - ep_me_cref_below: the walker needs ep_me_cref_below == 16 and
	 * ep_specval_below == 8 (VM_ENV_DATA_INDEX_*, the same in all 3.x).
	 */
	__u32 ep_me_cref_below;		/* method entry at ep - this (ep[-2]) */
	__u32 ep_specval_below;		/* ep[-1]: the enclosing env's ep, low 2 bits flags */
	__u32 env_flag_local;		/* ep[0] & this: a method's or top level's own env */
	__u32 magic_mask;		/* ep[0] & mask: the frame type */
	__u32 magic_cfunc;
	__u32 magic_dummy;
	__u32 flag_cframe;		/* a C frame */
	__u32 flag_finish;		/* vm_exec returns after this frame */
	__u32 iseq_body;		/* rb_iseq_t.body */
	__u32 me_def;			/* rb_callable_method_entry_t.def */
	__u32 def_original_id;		/* rb_method_definition_t.original_id */
	__u32 def_cfunc_func;		/* .body.cfunc.func: the C function */
	__u32 t_mask, t_imemo;		/* RBasic.flags & t_mask == T_IMEMO */
	__u32 imemo_shift, imemo_mask;	/* imemo type: (flags >> shift) & mask */
	__u32 imemo_ment, imemo_iseq;
	__u32 imemo_svar;		/* ep[-2] of a local env may be an svar... */
	__u32 svar_cref_or_me;		/* ...holding the method entry here */
	__u32 me_owner;			/* rb_callable_method_entry_t.owner: class or module */
	__u32 me_read;			/* bytes of a method entry read (through owner) */
	/* user space only */
	__u32 body_iseq_size, body_iseq_encoded, body_pathobj, body_label;
	__u32 body_insns_info, body_insns_info_size, body_succ_index, body_read;
	__u32 insn_info_entry_size;
	__u32 t_string, t_array;
	/* str_embed_len_mask 0: an embedded string's length is at str_len too (3.2+) */
	__u32 str_noembed, str_embed_len_shift, str_embed_len_mask, str_embed, str_len, str_ptr;
	__u32 ary_embed_flag, ary_embed_len_shift, ary_embed_len_mask, ary_embed, ary_len, ary_ptr;
	__u32 symbols_last_id, symbols_ids, id_scope_shift, tlast_op_id, id_entry_unit,
	      id_entry_size;
	/* Class#method names (ruby.c) */
	__u32 body_type, body_local_iseq;	/* rb_iseq_constant_body .type, .local_iseq */
	__u32 iseq_method, iseq_block, iseq_rescue, iseq_ensure;	/* enum iseq_type */
	__u32 t_class, t_module, fl_singleton;
	__u32 class_mode;		/* RUBY_CLASS_* */
	/* RUBY_CLASS_EXT: offsets from the class (rb_classext_t follows struct RClass) */
	__u32 cls_classpath, cls_attached, cls_permanent, cls_permanent_bit;
	/* RUBY_CLASS_IV_TBL */
	__u32 rclass_ext, ext_iv_tbl;	/* RClass.ptr -> rb_classext_t.iv_tbl (st_table) */
	__u32 st_entries_start, st_entries_bound, st_entries, st_entry_size;
	__u32 st_entry_key, st_entry_record;
	__u64 id_attached;		/* the ID of __attached__ (static, from id.def) */
};

/*
 * Where a process keeps what the walker starts from (interp_proc_cfg.rb):
 * RUBY_EC_TLS: the TLS variable holding the ec, *(dtv[tls_modid].val +
 * tls_sym); RUBY_EC_TSD: the pthread key at tsd_key_addr, whose value is
 * the thread's rb_thread_t, checked against the VM at *vm_ptr_addr.
 */
struct interp_ruby_cfg {
	__u64 tls_modid;
	__u64 tls_sym;
	__u64 tsd_key_addr;
	__u64 vm_ptr_addr;
};

/*
 * Ruby frame fields: addr = iseq, or the method entry of a C method; pc =
 * cfp->pc, or the C function; id1 = the iseq body, or the C method's
 * original_id (the identity checks); id2 = the class owning the frame's
 * method (0: none found).
 */
#define RUBY_FRAME_CFUNC	(1u << 1)	/* a C method (addr: method entry) */
/*
 * The top frame of a layout with push_cfp_first: a C method shows only at
 * its own C function's native frame (it was entered, so its frame was
 * whole), a Ruby frame only if its pc lies in its iseq.
 */
#define RUBY_FRAME_UNSURE	(1u << 2)

#endif /* STITCH_INTERP_RUBY_LAYOUT_H */
