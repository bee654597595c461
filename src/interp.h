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

enum interp_lang {
	INTERP_NONE,
	INTERP_PYTHON,
	INTERP_RUBY,
	INTERP_PERL,
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
	__u32 ep_me_cref_below;		/* method entry at ep - this (ep[-2]) */
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
	/* user space only */
	__u32 body_iseq_size, body_iseq_encoded, body_pathobj, body_label;
	__u32 body_insns_info, body_insns_info_size, body_succ_index, body_read;
	__u32 insn_info_entry_size;
	__u32 t_string, t_array;
	__u32 str_noembed, str_embed_len_shift, str_embed_len_mask, str_embed, str_len, str_ptr;
	__u32 ary_embed_flag, ary_embed_len_shift, ary_embed_len_mask, ary_embed, ary_len, ary_ptr;
	__u32 symbols_last_id, symbols_ids, id_scope_shift, tlast_op_id, id_entry_unit,
	      id_entry_size;
};

/* One entry of interp_layouts: which walker, and its offsets. */
struct interp_layout {
	__u32 lang;			/* enum interp_lang */
	__u32 pad;
	union {
		struct interp_python_layout py;
		struct interp_ruby_layout rb;
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
	__u32 pad;
	/* ruby: the TLS variable holding the ec: *(dtv[tls_modid].val + tls_sym) */
	__u64 tls_modid;
	__u64 tls_sym;
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
	__u64 id2;		/* python: co_filename pointer */
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
	struct interp_frame frames[INTERP_MAX_FRAMES];	/* innermost first */
};

#define INTERP_EVENT_HDR_BYTES ((unsigned long)&((struct interp_event *)0)->frames)

#endif /* STITCH_INTERP_H */
