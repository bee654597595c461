/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPython 3.12 to 3.15 offsets, as offsetof() printed them against each
 * version's own headers; plain macros, so that the check
 * (tools/interp-walk/offsets-python-new.c, compiled against those headers)
 * includes this very file: see python_new.h for which builds.
 */
#ifndef STITCH_INTERP_PYTHON_OFFSETS_NEW_H
#define STITCH_INTERP_PYTHON_OFFSETS_NEW_H

/* ---- 3.12 ---- */
#define PY312_RUNTIME_AUTOTSS_KEY	1548	/* _PyRuntimeState.autoTSSkey._key */
#define PY312_TSTATE_CFRAME		56
#define PY312_TSTATE_THREAD_ID		136	/* pthread_self() of its thread */
#define PY312_CFRAME_CURRENT_FRAME	0
#define PY312_FRAME_F_CODE		0
#define PY312_FRAME_PREVIOUS		8
#define PY312_FRAME_PREV_INSTR		56
#define PY312_FRAME_OWNER		70	/* char */
#define PY312_FRAME_OWNED_BY_GENERATOR	1
#define PY312_FRAME_OWNED_BY_CSTACK	3
#define PY312_CODE_FIRSTLINENO		68
#define PY312_CODE_FILENAME		112
#define PY312_CODE_QUALNAME		128
#define PY312_CODE_LINETABLE		136
#define PY312_CODE_FIRSTTRACEABLE	176
#define PY312_CODE_CODE_ADAPTIVE	192
#define PY312_CODEUNIT			2
#define PY312_OB_TYPE			8
#define PY312_VAR_SIZE			16
#define PY312_BYTES_SVAL		32
#define PY312_UNICODE_LENGTH		16
#define PY312_UNICODE_STATE		32
#define PY312_ASCII_DATA		40	/* sizeof(PyASCIIObject) */
#define PY312_COMPACT_DATA		56	/* sizeof(PyCompactUnicodeObject) */

/* ---- 3.13 (both builds above) ---- */
#define PY313_RUNTIME_AUTOTSS_KEY	2164
#define PY313_TSTATE_CURRENT_FRAME	72
#define PY313_TSTATE_THREAD_ID		152
#define PY313_FRAME_EXECUTABLE		0
#define PY313_FRAME_PREVIOUS		8
#define PY313_FRAME_INSTR_PTR		56
#define PY313_FRAME_OWNER		70
#define PY313_FRAME_OWNED_BY_GENERATOR	1
#define PY313_FRAME_OWNED_BY_CSTACK	3
#define PY313_CODE_FIRSTLINENO		68
#define PY313_CODE_FILENAME		112
#define PY313_CODE_QUALNAME		128
#define PY313_CODE_LINETABLE		136
#define PY313_CODE_FIRSTTRACEABLE	184
#define PY313_CODE_CODE_ADAPTIVE	200
#define PY313_CODEUNIT			2
#define PY313_OB_TYPE			8
#define PY313_VAR_SIZE			16
#define PY313_BYTES_SVAL		32
#define PY313_UNICODE_LENGTH		16
#define PY313_UNICODE_STATE		32
#define PY313_ASCII_DATA		40
#define PY313_COMPACT_DATA		56

/* Where fields sit in 3.13's _Py_DebugOffsets (python_debug.c) */
#define PY313_DO_SIZE			584	/* sizeof(_Py_DebugOffsets) */
#define PY313_DO_VERSION		8
#define PY313_DO_FREE_THREADED		16
#define PY313_DO_TS_CURRENT_FRAME	184
#define PY313_DO_TS_THREAD_ID		192
#define PY313_DO_FR_PREVIOUS		232
#define PY313_DO_FR_EXECUTABLE		240
#define PY313_DO_FR_INSTR_PTR		248
#define PY313_DO_FR_OWNER		264
#define PY313_DO_CO_FILENAME		280
#define PY313_DO_CO_QUALNAME		296
#define PY313_DO_CO_LINETABLE		304
#define PY313_DO_CO_FIRSTLINENO		312
#define PY313_DO_CO_CODE_ADAPTIVE	344
#define PY313_DO_OB_TYPE		360
#define PY313_DO_BYTES_OB_SIZE		520
#define PY313_DO_BYTES_OB_SVAL		528
#define PY313_DO_STR_STATE		544
#define PY313_DO_STR_LENGTH		552
#define PY313_DO_STR_ASCII_SIZE		560

/* ---- 3.14 (Debian sid's python3.14-dev, 3.14.x, compiled in the sid root) ---- */
#define PY314_RUNTIME_AUTOTSS_KEY	2340
#define PY314_TSTATE_CURRENT_FRAME	72
#define PY314_TSTATE_THREAD_ID		152
#define PY314_FRAME_EXECUTABLE		0	/* a _PyStackRef: tag bits low */
#define PY314_FRAME_PREVIOUS		8
#define PY314_FRAME_INSTR_PTR		56
#define PY314_FRAME_OWNER		74
#define PY314_FRAME_OWNED_BY_GENERATOR	1
/* The eval call's shim: FRAME_OWNED_BY_INTERPRETER in 3.14 (CSTACK is 4, and unused). */
#define PY314_FRAME_OWNED_BY_INTERPRETER 3
#define PY314_CODE_FIRSTLINENO		68
#define PY314_CODE_FILENAME		112
#define PY314_CODE_QUALNAME		128
#define PY314_CODE_LINETABLE		136
#define PY314_CODE_FIRSTTRACEABLE	192
#define PY314_CODE_CODE_ADAPTIVE	208
#define PY314_CODEUNIT			2
#define PY314_OB_TYPE			8
#define PY314_VAR_SIZE			16
#define PY314_BYTES_SVAL		32
#define PY314_UNICODE_LENGTH		16
#define PY314_UNICODE_STATE		32
#define PY314_ASCII_DATA		40
#define PY314_COMPACT_DATA		56

/* Where fields sit in 3.14's _Py_DebugOffsets (its own header, pycore_debug_offsets.h) */
#define PY314_DO_SIZE			760
#define PY314_DO_VERSION		8
#define PY314_DO_FREE_THREADED		16
#define PY314_DO_TS_CURRENT_FRAME	208
#define PY314_DO_TS_THREAD_ID		216
#define PY314_DO_FR_PREVIOUS		256
#define PY314_DO_FR_EXECUTABLE		264
#define PY314_DO_FR_INSTR_PTR		272
#define PY314_DO_FR_OWNER		288
#define PY314_DO_CO_FILENAME		320
#define PY314_DO_CO_QUALNAME		336
#define PY314_DO_CO_LINETABLE		344
#define PY314_DO_CO_FIRSTLINENO		352
#define PY314_DO_CO_CODE_ADAPTIVE	384
#define PY314_DO_OB_TYPE		408
#define PY314_DO_BYTES_OB_SIZE		600
#define PY314_DO_BYTES_OB_SVAL		608
#define PY314_DO_STR_STATE		624
#define PY314_DO_STR_LENGTH		632
#define PY314_DO_STR_ASCII_SIZE		640

/*
 * ---- 3.15 (Debian sid's python3.15-dev 3.15.2-1, the build of sid's
 * python3.15: offsetof() on its headers; every _Py_DebugOffsets value the
 * headers give equals the one in that binary's .PyRuntime, but for the
 * sizes of _PyRuntimeState and PyInterpreterState, 8 bytes more in the
 * binary, both unused here) ----
 * No autoTSSkey any more: the thread's bound state is the thread-local
 * _Py_tss_gilstate (Python/pystate.c), found by python_tls.c.
 */
#define PY315_TSTATE_CURRENT_FRAME	72
#define PY315_TSTATE_THREAD_ID		176	/* moved: 3.15 added fields before it */
#define PY315_TSTATE_BASE_FRAME		80	/* -> _PyThreadStateImpl.base_frame */
#define PY315_FRAME_EXECUTABLE		0	/* a _PyStackRef: tag bits low */
#define PY315_FRAME_PREVIOUS		8
#define PY315_FRAME_INSTR_PTR		56
#define PY315_FRAME_OWNER		74
#define PY315_FRAME_OWNED_BY_GENERATOR	1
#define PY315_FRAME_OWNED_BY_INTERPRETER 3	/* the eval call's shim, as 3.14 */
#define PY315_CODE_FIRSTLINENO		68
#define PY315_CODE_FILENAME		112
#define PY315_CODE_QUALNAME		128
#define PY315_CODE_LINETABLE		136
#define PY315_CODE_FIRSTTRACEABLE	192
#define PY315_CODE_CODE_ADAPTIVE	208
#define PY315_CODEUNIT			2
#define PY315_OB_TYPE			8
#define PY315_VAR_SIZE			16
#define PY315_BYTES_SVAL		32
#define PY315_UNICODE_LENGTH		16
#define PY315_UNICODE_STATE		32
#define PY315_ASCII_DATA		40
#define PY315_COMPACT_DATA		56

/*
 * Where fields sit in 3.15's _Py_DebugOffsets: its thread state section
 * grew (base_frame, last_profiled_frame... before thread_id) and an
 * err_stackitem section came before the frame's, so all but the first
 * fields moved.
 */
#define PY315_DO_SIZE			888
#define PY315_DO_VERSION		8
#define PY315_DO_FREE_THREADED		16
#define PY315_DO_TS_CURRENT_FRAME	208
#define PY315_DO_TS_BASE_FRAME		216
#define PY315_DO_TS_THREAD_ID		240
#define PY315_DO_FR_PREVIOUS		320
#define PY315_DO_FR_EXECUTABLE		328
#define PY315_DO_FR_INSTR_PTR		336
#define PY315_DO_FR_OWNER		352
#define PY315_DO_CO_FILENAME		384
#define PY315_DO_CO_QUALNAME		400
#define PY315_DO_CO_LINETABLE		408
#define PY315_DO_CO_FIRSTLINENO		416
#define PY315_DO_CO_CODE_ADAPTIVE	448
#define PY315_DO_OB_TYPE		472
#define PY315_DO_BYTES_OB_SIZE		696
#define PY315_DO_BYTES_OB_SVAL		704
#define PY315_DO_STR_STATE		720
#define PY315_DO_STR_LENGTH		728
#define PY315_DO_STR_ASCII_SIZE		736

#endif /* STITCH_INTERP_PYTHON_OFFSETS_NEW_H */
