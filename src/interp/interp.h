/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Interpreter frames: what the BPF walkers (interp_*.bpf.h) and user space
 * (interp*.c) share.  Includable from BPF C and from user space.
 *
 * The flow: user space recognizes an interpreter in a process's mappings
 * (interp_detect.c), looks the version up in a table of layouts
 * (interp_tables.c) and puts a per-process config in interp_procs.  On an
 * event in that process the walker reads the *triggering* thread's
 * interpreter state from its own TLS/TSD (task->thread.fsbase), walks the
 * frames with bounded reads, and sends one interp_event just before the
 * sample.  User space names the frames (reading code objects from the
 * target, cached and validated against identity fields the walker sent)
 * and splices them over the interpreter loop's native frames.
 *
 * Adding a version is a new layout in interp_tables.c, as long as the walk
 * itself has the same shape; a new shape is a new walker.
 */
#ifndef STITCH_INTERP_H
#define STITCH_INTERP_H

#ifndef __bpf__
#include <linux/types.h>
#endif

/* Interpreter frames walked per event; a deeper stack ends in a marker. */
#define INTERP_MAX_FRAMES 128
/* Bytes of a frame / code object the walker reads at once (offsets must fit). */
#define INTERP_CHUNK 256
/* Layouts the BPF side can hold (interp_layouts map). */
#define INTERP_MAX_LAYOUTS 16

/* The language of a walk: INTERP_<ID>, one per line of languages.def, in its order. */
enum interp_lang {
	INTERP_NONE,
#define INTERP_LANG(ID, ...) INTERP_##ID,
#include "interp/languages.def"
#undef INTERP_LANG
};

/*
 * CPython 3.11-style layout: thread state from a pthread key (TSD), frames
 * as a linked list of _PyInterpreterFrame, code objects with a type check.
 * All offsets in bytes.
 */
struct interp_python_layout {
	__u32 tstate_cframe;		/* PyThreadState.cframe */
	__u32 cframe_current_frame;	/* _PyCFrame.current_frame */
	__u32 frame_code;		/* _PyInterpreterFrame.f_code */
	__u32 frame_previous;		/* .previous */
	__u32 frame_instr;		/* .prev_instr */
	__u32 frame_is_entry;		/* .is_entry (u8) */
	__u32 frame_owner;		/* .owner (u8) */
	__u32 code_firstlineno;		/* PyCodeObject.co_firstlineno (int) */
	__u32 code_filename;		/* .co_filename */
	__u32 code_qualname;		/* .co_qualname */
	__u32 code_linetable;		/* .co_linetable */
	__u32 code_firsttraceable;	/* ._co_firsttraceable (int, code units) */
	__u32 code_bytecode;		/* .co_code_adaptive: bytecode inline here */
	__u32 ob_type;			/* PyObject.ob_type */
	__u32 var_size;			/* PyVarObject.ob_size */
	__u32 bytes_data;		/* PyBytesObject.ob_sval */
	__u32 unicode_length;		/* PyASCIIObject.length */
	__u32 unicode_state;		/* PyASCIIObject.state */
	__u32 ascii_data;		/* sizeof(PyASCIIObject) */
	__u32 compact_data;		/* sizeof(PyCompactUnicodeObject) */
	__u32 codeunit;			/* sizeof(_Py_CODEUNIT) */
	__u32 frame_read;		/* bytes of a frame the walker reads (<= INTERP_CHUNK) */
	__u32 code_read;		/* bytes of a code object the walker reads */
	__u8 owner_generator;		/* FRAME_OWNED_BY_GENERATOR */
	__u8 pad[3];
};

/*
 * Ruby 3.1-style layout: the execution context from a TLS variable of
 * libruby (through the DTV), control frames in the VM stack from ec->cfp up
 * to its end, iseq and method entry objects type-checked.
 */
struct interp_ruby_layout {
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
	__u32 str_noembed, str_embed_len_shift, str_embed_len_mask, str_embed, str_len, str_ptr;
	__u32 ary_embed_flag, ary_embed_len_shift, ary_embed_len_mask, ary_embed, ary_len, ary_ptr;
	__u32 symbols_last_id, symbols_ids, id_scope_shift, tlast_op_id, id_entry_unit,
	      id_entry_size;
	/* Class#method names (interp_ruby.c) */
	__u32 body_type, body_local_iseq;	/* rb_iseq_constant_body .type, .local_iseq */
	__u32 iseq_method, iseq_block, iseq_rescue, iseq_ensure;	/* enum iseq_type */
	__u32 t_class, t_module, fl_singleton;
	__u32 rclass_ext, ext_iv_tbl;	/* RClass.ptr -> rb_classext_t.iv_tbl (st_table) */
	__u32 st_entries_start, st_entries_bound, st_entries, st_entry_size;
	__u32 st_entry_key, st_entry_record;
	__u64 id_attached;		/* the ID of __attached__ (static, from id.def) */
};

/* ---- perl (interp_perl.bpf.h, interp_perl.c) ---- */

/*
 * Perl 5.36-style layout (threaded perl, docs/interpreters.md "Perl"): the
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
	__u32 xhv_aux_name, xhv_aux_name_count;
	__u32 hek_len, hek_key;
	__u32 op_type_word, op_type_mask, cop_line, cop_file;
	__u32 cxtypemask, cxt_sub, cxt_format, cxt_eval, old_op_type_shift;
	__s32 perlsi_main;
	__u32 svtypemask, svt_pvgv, svt_pvhv, svt_pvcv, svt_pvfm;
	__u32 svf_ook, svp_pok, svpgv_gp;
	__u32 cvf_named, cvf_lexical;
	__u32 op_nextstate, op_dbstate;
	/* stitch latency's perl:NAME roots: the sub pp_entersub is about to call */
	__u32 interp_stack_sp, sv_u, gp_cv, svf_rok, cvf_isxsub;
};

/*
 * Perl frames carry their names: the walker copies the HEK bytes and file
 * strings (an anonymous closure's CV or a string eval's COP may be freed
 * before user space could read them).  They go into a string area after
 * the event; a frame refers to a string as (offset | length << 16).
 */
#define INTERP_STR_BYTES 4096		/* string area of one event */
#define INTERP_STR_MAX 256		/* longest string: a longer one ends the walk */

/* interp_frame.flags for perl (their own meaning: read for perl events only) */
#define PERL_FRAME_FROM_C	(1u << 1)	/* retop NULL: entered from C (call_sv...) */
#define PERL_FRAME_EVAL		(1u << 2)	/* an eval context: "(eval)" */
#define PERL_FRAME_OLDOP0	(1u << 3)	/* eval pushed by call_sv(G_EVAL) itself */
#define PERL_FRAME_MAIN		(1u << 4)	/* the main program: "<main>" */
#define PERL_FRAME_SI_END	(1u << 5)	/* no frame: end of a nested stackinfo */
#define PERL_FRAME_NO_PKG	(1u << 6)	/* a lexical sub: name without package */
#define PERL_FRAME_SI_SHIFT	8		/* SI_END: the stackinfo type, bits 8..15 */
/*
 * Perl frame fields: addr = CV (0 for eval/main), pc = COP, id1 = sub name
 * string | package string << 32, id2 = file string, id3 = line.
 */
#define PERL_STR(off, len)	((__u64)(off) | (__u64)(len) << 16)
#define PERL_STR_OFF(s)		((__u32)(s) & 0xffff)
#define PERL_STR_LEN(s)		((__u32)((s) >> 16) & 0xffff)

/* ---- end perl ---- */

/* One entry of interp_layouts: which walker, and its offsets. */
struct interp_layout {
	__u32 lang;			/* enum interp_lang */
	__u32 pad;
	union {
		struct interp_python_layout py;
		struct interp_ruby_layout rb;
		struct interp_perl_layout pl;
	};
};

/* Per process (interp_procs, keyed by tgid): where this process keeps things. */
struct interp_proc_cfg {
	__u32 layout;			/* index into interp_layouts */
	__u32 lang;
	__u64 tss_key_addr;		/* python: &_PyRuntime.gilstate.autoTSSkey._key */
	__u64 code_type;		/* python: &PyCode_Type, checked on every frame */
	/* glibc: pthread_getspecific(key) = *(fs_base + specific + key*16 + 8) */
	__u32 pthread_specific;
	/*
	 * Set anew each time user space writes a process's config: mixed into
	 * the hash of its walks (interp_count_key), so a walk known for an
	 * exited process is never taken as known for a new one with its pid.
	 */
	__u32 gen;
	/* ruby: the TLS variable holding the ec: *(dtv[tls_modid].val + tls_sym) */
	__u64 tls_modid;
	__u64 tls_sym;
	__u64 perl_tls_off;		/* perl: my_perl = *(fs_base - perl_tls_off) */
};

/* interp_frame.flags */
#define INTERP_FRAME_ENTRY	(1u << 0)	/* first frame of an interpreter loop call */
#define INTERP_FRAME_CFUNC	(1u << 1)	/* ruby: a C method (addr: method entry) */
#define INTERP_FRAME_OWNER_SHIFT 8		/* python: frame owner in bits 8..15 */

struct interp_frame {
	__u64 addr;		/* python: code object; ruby: iseq, or method entry (cfunc) */
	__u64 pc;		/* python: prev_instr; ruby: cfp->pc, or the C function */
	__u64 id1;		/* identity checks, python: co_qualname pointer; ruby: iseq body
				 * or the cfunc's original_id */
	__u64 id2;		/* python: co_filename pointer; ruby: the class owning the
				 * frame's method (0: none found) */
	__u32 id3;		/* python: co_firstlineno */
	__u32 flags;
};

/* interp_event.flags */
#define INTERP_EV_TRUNCATED	(1u << 0)	/* more frames than INTERP_MAX_FRAMES */
#define INTERP_EV_CORRUPT	(1u << 1)	/* a type check failed: walk stopped */
#define INTERP_EV_FAULT		(1u << 2)	/* a read failed: walk stopped */
#define INTERP_EV_BAD_KEY	(1u << 3)	/* TSD key we cannot read (>= 32) */

/*
 * Sent just before the sample_event it belongs to (same tid and time_ns).
 * sample_event starts with time_ns, which never takes the value of magic.
 */
#define INTERP_EVENT_MAGIC 0xffffffff1e7e7f00ULL

struct interp_event {
	__u64 magic;
	__u64 time_ns;
	__u32 pid, tid;
	__u16 lang;
	__u16 nframes;
	__u32 flags;
	/*
	 * Not 0: the walk is a definition, sent once (interp.bpf.h): events
	 * counted in the kernel with this ihash in their key have these frames.
	 */
	__u64 ihash;
	struct interp_frame frames[INTERP_MAX_FRAMES];	/* innermost first */
};

/* kagg_key.ihash of an interpreter process's event that is not a definition's */
#define INTERP_IHASH_NONE	0	/* no interpreter frames (a thread that runs none) */
#define INTERP_IHASH_LOST	1	/* the definition did not fit in the ring: marked lost */

#define INTERP_EVENT_HDR_BYTES ((unsigned long)&((struct interp_event *)0)->frames)

#endif /* STITCH_INTERP_H */
