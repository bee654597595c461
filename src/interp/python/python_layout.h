/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPython: what its walker (python.bpf.h) and its user side (python.c,
 * python_versions.c) share, BPF C and user space.  interp.h takes the
 * layout and the config into struct interp_layout and struct
 * interp_proc_cfg (member py), as it does for every line of languages.def.
 */
#ifndef STITCH_INTERP_PYTHON_LAYOUT_H
#define STITCH_INTERP_PYTHON_LAYOUT_H

#ifndef __bpf__
#include <linux/types.h>
#endif

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
	/*
	 * 3.8 - 3.10: the PyFrameObject chain (python_frameobject.bpf.h).
	 * There code_qualname is co_name's offset, code_linetable co_lnotab's
	 * (3.8, 3.9) or co_linetable's (3.10), frame_read a PyFrameObject's
	 * bytes read; the 3.11 frame fields and code_firsttraceable unused.
	 */
	__u32 frameobject;		/* not 0: walk tstate->frame, f_back, ... */
	__u32 tstate_frame;		/* PyThreadState.frame */
	__u32 fo_back;			/* PyFrameObject.f_back */
	__u32 fo_code;			/* .f_code */
	__u32 fo_lasti;			/* .f_lasti (int) */
	__u32 lasti_unit;		/* bytes per f_lasti: 1 (3.8, 3.9), 2 (3.10) */
	__u32 lnotab;			/* line table: PYTHON_LINETABLE_*, PYTHON_LNOTAB_* */
	/*
	 * Every version: PyThreadState.thread_id, its pthread_self(), which
	 * must be the walked thread's (fs_base + interp_proc_cfg.pthread_self;
	 * 0: not checked).
	 */
	__u32 tstate_thread_id;
	/* 3.12 on (python_new.h); 0 in a 3.11-style layout unless said. */
	__u32 tstate_current_frame;	/* 3.13: .current_frame (with PY_LAYOUT_NO_CFRAME) */
	__u32 layout_flags;		/* PY_LAYOUT_* */
	__u8 owner_cstack;		/* FRAME_OWNED_BY_CSTACK (PY_LAYOUT_CSTACK_ENTRY) */
	__u8 pad2[3];
	/*
	 * 3.15: PyThreadState.base_frame, the sentinel frame at the bottom of
	 * every thread's chain (not an eval call's): the walk ends there
	 * (0: no such frame).
	 */
	__u32 tstate_base_frame;
	__u32 pad3;
};

/* interp_python_layout.lnotab: how a code object maps offsets to lines */
#define PYTHON_LINETABLE_311	0	/* 3.11 co_linetable (locations) */
#define PYTHON_LNOTAB_38	1	/* 3.8, 3.9 co_lnotab */
#define PYTHON_LINETABLE_310	2	/* 3.10 co_linetable (PEP 626) */

/*
 * interp_python_layout.layout_flags.  CSTACK_ENTRY (3.12 on): no is_entry
 * byte; each eval call pushes a shim frame owned by the C stack below its
 * first frame, sent as a frame of its own (addr 0) that ends its group.
 * NO_CFRAME (3.13 on): the thread state points to the current frame
 * itself.  TAGGED_EXEC (3.14 on): f_executable is a _PyStackRef, tag bits
 * low.  TLS_TSTATE (3.15): no pthread key; the thread's bound state is a
 * thread-local variable of the executable (interp_python_cfg.tstate_tls).
 */
#define PY_LAYOUT_CSTACK_ENTRY	(1u << 0)
#define PY_LAYOUT_NO_CFRAME	(1u << 1)
#define PY_LAYOUT_TAGGED_EXEC	(1u << 2)
#define PY_LAYOUT_TLS_TSTATE	(1u << 3)
/* 3.14's and 3.15's Py_TAG_BITS (pycore_stackref.h; free-threaded builds are refused). */
#define PY_EXEC_TAG_BITS	3

/* Where a process keeps what the walker starts from (interp_proc_cfg.py). */
struct interp_python_cfg {
	__u64 tss_key_addr;		/* &_PyRuntime.gilstate.autoTSSkey._key */
	__u64 code_type;		/* &PyCode_Type, checked on every frame */
	__u64 frame_type;		/* 3.8 - 3.10: &PyFrame_Type, checked on every frame */
	__u64 none_addr;		/* &_Py_NoneStruct: 3.13's f_executable of a C entry */
	/*
	 * 3.15 (PY_LAYOUT_TLS_TSTATE): where _Py_tss_gilstate lies from the
	 * thread pointer (fs_base), as a two's complement offset: it is below.
	 */
	__u64 tstate_tls;
};

/*
 * Python frame fields: addr = code object, pc = prev_instr (3.8 - 3.10:
 * f_lasti), id1 = co_qualname pointer (3.8 - 3.10: co_name), id2 =
 * co_filename pointer, id3 = co_firstlineno (the identity checks); flags:
 * the frame's owner in bits 8..15 (3.11).
 */
#define PYTHON_FRAME_OWNER_SHIFT 8

#endif /* STITCH_INTERP_PYTHON_LAYOUT_H */
