/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPython 3.12 and 3.13 offsets, as offsetof() printed them against each
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

#endif /* STITCH_INTERP_PYTHON_OFFSETS_NEW_H */
