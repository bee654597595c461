/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPython 3.12 to 3.15: their entries of python_versions[] and what
 * python_debug.c needs.  Each offset here was printed by offsetof() in a
 * program compiled against that version's own headers
 * (tools/interp-walk/offsets-python-new.c, which checks these macros):
 *   3.12: pyenv 3.12.1's include/python3.12/internal (no Debian 3.12 here);
 *   3.13: pyenv 3.13.0's and Debian trixie's python3.13-dev 3.13.5 (compiled
 *         in the trixie root): the same numbers;
 *   3.14: Debian sid's python3.14-dev (compiled in the sid root);
 *   3.15: Debian sid's python3.15-dev 3.15.2-1, the build of sid's python3.15
 *         (not in the dev root: its .deb unpacked aside, compiled on the host).
 * 3.13's to 3.15's frame, thread state, code and str offsets are not taken from here
 * but from the process's own _Py_DebugOffsets (python_debug.c); the table
 * gives only what those do not carry, and its full layout is what they are
 * checked against.  Run-time proof on every walk: the thread state found
 * through the TSD key must name the walked thread (thread_id == pthread_self()).
 */
#ifndef STITCH_INTERP_PYTHON_NEW_H
#define STITCH_INTERP_PYTHON_NEW_H

#include "interp/python/python.h"

#include "interp/python/python_offsets_new.h"

/*
 * The 3.13 entry's layout flag for user space only: fill the layout from
 * the process's _Py_DebugOffsets (python_debug.c) before using it.
 */
#define PY_LAYOUT_FROM_DEBUG_OFFSETS	(1u << 31)

#define PYTHON_VERSION_312 {							\
	.lang_name = "python", .version = "3.12", .lang = INTERP_PYTHON,	\
	.exe_name = "python3.12", .lib_prefix = "libpython3.12.so",		\
	.eval_func = "_PyEval_EvalFrameDefault",				\
	.tss_key_off = PY312_RUNTIME_AUTOTSS_KEY,				\
	.layout = { .lang = INTERP_PYTHON, .py = {				\
		.tstate_cframe = PY312_TSTATE_CFRAME,				\
		.cframe_current_frame = PY312_CFRAME_CURRENT_FRAME,		\
		.frame_code = PY312_FRAME_F_CODE,				\
		.frame_previous = PY312_FRAME_PREVIOUS,				\
		.frame_instr = PY312_FRAME_PREV_INSTR,				\
		.frame_owner = PY312_FRAME_OWNER,				\
		.code_firstlineno = PY312_CODE_FIRSTLINENO,			\
		.code_filename = PY312_CODE_FILENAME,				\
		.code_qualname = PY312_CODE_QUALNAME,				\
		.code_linetable = PY312_CODE_LINETABLE,				\
		.code_firsttraceable = PY312_CODE_FIRSTTRACEABLE,		\
		.code_bytecode = PY312_CODE_CODE_ADAPTIVE,			\
		.ob_type = PY312_OB_TYPE,					\
		.var_size = PY312_VAR_SIZE,					\
		.bytes_data = PY312_BYTES_SVAL,					\
		.unicode_length = PY312_UNICODE_LENGTH,				\
		.unicode_state = PY312_UNICODE_STATE,				\
		.ascii_data = PY312_ASCII_DATA,					\
		.compact_data = PY312_COMPACT_DATA,				\
		.codeunit = PY312_CODEUNIT,					\
		.frame_read = 72,	/* through .owner */			\
		.code_read = 184,	/* through ._co_firsttraceable */	\
		.owner_generator = PY312_FRAME_OWNED_BY_GENERATOR,		\
		.tstate_thread_id = PY312_TSTATE_THREAD_ID,			\
		.layout_flags = PY_LAYOUT_CSTACK_ENTRY,				\
		.owner_cstack = PY312_FRAME_OWNED_BY_CSTACK,			\
	} },									\
}

/* What the debug offsets overwrite is the headers' value too: the check's reference. */
#define PYTHON_VERSION_313 {							\
	.lang_name = "python", .version = "3.13", .lang = INTERP_PYTHON,	\
	.exe_name = "python3.13", .lib_prefix = "libpython3.13.so",		\
	.eval_func = "_PyEval_EvalFrameDefault",				\
	.tss_key_off = PY313_RUNTIME_AUTOTSS_KEY,				\
	.layout = { .lang = INTERP_PYTHON, .py = {				\
		.tstate_current_frame = PY313_TSTATE_CURRENT_FRAME,		\
		.frame_code = PY313_FRAME_EXECUTABLE,				\
		.frame_previous = PY313_FRAME_PREVIOUS,				\
		.frame_instr = PY313_FRAME_INSTR_PTR,				\
		.frame_owner = PY313_FRAME_OWNER,				\
		.code_firstlineno = PY313_CODE_FIRSTLINENO,			\
		.code_filename = PY313_CODE_FILENAME,				\
		.code_qualname = PY313_CODE_QUALNAME,				\
		.code_linetable = PY313_CODE_LINETABLE,				\
		.code_firsttraceable = PY313_CODE_FIRSTTRACEABLE,		\
		.code_bytecode = PY313_CODE_CODE_ADAPTIVE,			\
		.ob_type = PY313_OB_TYPE,					\
		.var_size = PY313_VAR_SIZE,					\
		.bytes_data = PY313_BYTES_SVAL,					\
		.unicode_length = PY313_UNICODE_LENGTH,				\
		.unicode_state = PY313_UNICODE_STATE,				\
		.ascii_data = PY313_ASCII_DATA,					\
		.compact_data = PY313_COMPACT_DATA,				\
		.codeunit = PY313_CODEUNIT,					\
		.frame_read = 72,						\
		.code_read = 192,						\
		.owner_generator = PY313_FRAME_OWNED_BY_GENERATOR,		\
		.tstate_thread_id = PY313_TSTATE_THREAD_ID,			\
		.layout_flags = PY_LAYOUT_CSTACK_ENTRY | PY_LAYOUT_NO_CFRAME |	\
				PY_LAYOUT_FROM_DEBUG_OFFSETS,			\
		.owner_cstack = PY313_FRAME_OWNED_BY_CSTACK,			\
	} },									\
}

/* 3.14: as 3.13, plus a tagged f_executable; its shim is owned "by the interpreter". */
#define PYTHON_VERSION_314 {							\
	.lang_name = "python", .version = "3.14", .lang = INTERP_PYTHON,	\
	.exe_name = "python3.14", .lib_prefix = "libpython3.14.so",		\
	.eval_func = "_PyEval_EvalFrameDefault",				\
	.tss_key_off = PY314_RUNTIME_AUTOTSS_KEY,				\
	.layout = { .lang = INTERP_PYTHON, .py = {				\
		.tstate_current_frame = PY314_TSTATE_CURRENT_FRAME,		\
		.frame_code = PY314_FRAME_EXECUTABLE,				\
		.frame_previous = PY314_FRAME_PREVIOUS,				\
		.frame_instr = PY314_FRAME_INSTR_PTR,				\
		.frame_owner = PY314_FRAME_OWNER,				\
		.code_firstlineno = PY314_CODE_FIRSTLINENO,			\
		.code_filename = PY314_CODE_FILENAME,				\
		.code_qualname = PY314_CODE_QUALNAME,				\
		.code_linetable = PY314_CODE_LINETABLE,				\
		.code_firsttraceable = PY314_CODE_FIRSTTRACEABLE,		\
		.code_bytecode = PY314_CODE_CODE_ADAPTIVE,			\
		.ob_type = PY314_OB_TYPE,					\
		.var_size = PY314_VAR_SIZE,					\
		.bytes_data = PY314_BYTES_SVAL,					\
		.unicode_length = PY314_UNICODE_LENGTH,				\
		.unicode_state = PY314_UNICODE_STATE,				\
		.ascii_data = PY314_ASCII_DATA,					\
		.compact_data = PY314_COMPACT_DATA,				\
		.codeunit = PY314_CODEUNIT,					\
		.frame_read = 80,						\
		.code_read = 200,						\
		.owner_generator = PY314_FRAME_OWNED_BY_GENERATOR,		\
		.tstate_thread_id = PY314_TSTATE_THREAD_ID,			\
		.layout_flags = PY_LAYOUT_CSTACK_ENTRY | PY_LAYOUT_NO_CFRAME |	\
				PY_LAYOUT_TAGGED_EXEC | PY_LAYOUT_FROM_DEBUG_OFFSETS,	\
		.owner_cstack = PY314_FRAME_OWNED_BY_INTERPRETER,		\
	} },									\
}

/*
 * 3.15: as 3.14, but the thread's state is found through its own
 * thread-local variable (python_tls.c), not a pthread key: no tss_key_off;
 * and every thread's chain ends in a sentinel frame owned "by the
 * interpreter", like an eval call's shim: the walk stops there.
 */
#define PYTHON_VERSION_315 {							\
	.lang_name = "python", .version = "3.15", .lang = INTERP_PYTHON,	\
	.exe_name = "python3.15", .lib_prefix = "libpython3.15.so",		\
	.eval_func = "_PyEval_EvalFrameDefault",				\
	.layout = { .lang = INTERP_PYTHON, .py = {				\
		.tstate_current_frame = PY315_TSTATE_CURRENT_FRAME,		\
		.frame_code = PY315_FRAME_EXECUTABLE,				\
		.frame_previous = PY315_FRAME_PREVIOUS,				\
		.frame_instr = PY315_FRAME_INSTR_PTR,				\
		.frame_owner = PY315_FRAME_OWNER,				\
		.code_firstlineno = PY315_CODE_FIRSTLINENO,			\
		.code_filename = PY315_CODE_FILENAME,				\
		.code_qualname = PY315_CODE_QUALNAME,				\
		.code_linetable = PY315_CODE_LINETABLE,				\
		.code_firsttraceable = PY315_CODE_FIRSTTRACEABLE,		\
		.code_bytecode = PY315_CODE_CODE_ADAPTIVE,			\
		.ob_type = PY315_OB_TYPE,					\
		.var_size = PY315_VAR_SIZE,					\
		.bytes_data = PY315_BYTES_SVAL,					\
		.unicode_length = PY315_UNICODE_LENGTH,				\
		.unicode_state = PY315_UNICODE_STATE,				\
		.ascii_data = PY315_ASCII_DATA,					\
		.compact_data = PY315_COMPACT_DATA,				\
		.codeunit = PY315_CODEUNIT,					\
		.frame_read = 80,						\
		.code_read = 200,						\
		.owner_generator = PY315_FRAME_OWNED_BY_GENERATOR,		\
		.tstate_thread_id = PY315_TSTATE_THREAD_ID,			\
		.tstate_base_frame = PY315_TSTATE_BASE_FRAME,			\
		.layout_flags = PY_LAYOUT_CSTACK_ENTRY | PY_LAYOUT_NO_CFRAME |	\
				PY_LAYOUT_TAGGED_EXEC | PY_LAYOUT_FROM_DEBUG_OFFSETS |	\
				PY_LAYOUT_TLS_TSTATE,				\
		.owner_cstack = PY315_FRAME_OWNED_BY_INTERPRETER,		\
	} },									\
}

/*
 * Fill *L (a copy of version v's layout) from the _Py_DebugOffsets at the
 * start of _PyRuntime (runtime) in process pid.  0 when done; -EAGAIN if
 * it cannot be read yet; -EINVAL when it does not hold (why says what, for
 * one stderr line naming the version).
 */
int py_debug_layout(pid_t pid, uint64_t runtime, const struct interp_version *v,
		    struct interp_python_layout *L, char *why, size_t why_len);

/*
 * The second part of the eval function at [eval, eval + size) of elf, when
 * the compiler split it (python_split.c): its ELF vaddr range.  False: none
 * found with certainty.
 */
bool py_eval_part(Elf *elf, uint64_t eval, uint64_t size, uint64_t *start, uint64_t *end);

/*
 * 3.15: where the thread-local that PyGILState_GetThisThreadState() returns
 * lies from the thread pointer, read from that function's code in elf
 * (python_tls.c).  False: not code stitch knows the meaning of.
 */
bool py_tls_tstate(Elf *elf, int64_t *tpoff);

/* The bytes of [vaddr, vaddr + size) in an executable section of elf, or NULL. */
const uint8_t *py_text_at(Elf *elf, uint64_t vaddr, uint64_t size);

#endif /* STITCH_INTERP_PYTHON_NEW_H */
