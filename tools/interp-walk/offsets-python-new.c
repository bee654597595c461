/*
 * Checks src/interp/python/python_offsets_new.h against offsetof() in a
 * CPython build's own headers.  Compile with the version's include dir and
 * -DPYV=312, 313, 314 or 315 (3.13: in the trixie root too, with its
 * python3.13-dev; 3.14: in the sid root, with its python3.14-dev; 3.15:
 * sid's python3.15-dev and libpython3.15-dev unpacked anywhere, given to
 * run-checks.sh as PY315_INCLUDE); run-checks.sh does.  Exit status: 0 when every value matches.
 */
#define Py_BUILD_CORE 1
#include <Python.h>
#include <internal/pycore_runtime.h>
#include <internal/pycore_interp.h>
#include <internal/pycore_frame.h>
#if PYV >= 314
#include <internal/pycore_interpframe.h>
#include <internal/pycore_debug_offsets.h>
#endif
#include <stddef.h>
#include <stdio.h>
#include "python_offsets_new.h"	/* -I src/interp/python */

static int bad;
#define C(mac, val) do {							\
	if ((size_t)(mac) != (size_t)(val)) {					\
		printf("MISMATCH %s=%zu real %zu\n", #mac, (size_t)(mac), (size_t)(val)); \
		bad = 1;							\
	} else {								\
		printf("ok %s=%zu\n", #mac, (size_t)(mac));			\
	}									\
} while (0)

#if PYV == 312
#define P(x) PY312_##x
#define FRAME_CODE f_code
#define FRAME_INSTR prev_instr
#elif PYV == 313
#define P(x) PY313_##x
#define FRAME_CODE f_executable
#define FRAME_INSTR instr_ptr
#elif PYV == 314
#define P(x) PY314_##x
#define FRAME_CODE f_executable
#define FRAME_INSTR instr_ptr
#elif PYV == 315
#define P(x) PY315_##x
#define FRAME_CODE f_executable
#define FRAME_INSTR instr_ptr
#else
#error "PYV: 312, 313, 314 or 315"
#endif

int main(void)
{
#if PYV < 315	/* 3.15: no autoTSSkey (python_tls.c) */
	C(P(RUNTIME_AUTOTSS_KEY), offsetof(_PyRuntimeState, autoTSSkey._key));
#else
	C(P(TSTATE_BASE_FRAME), offsetof(PyThreadState, base_frame));
	C(P(DO_TS_BASE_FRAME), offsetof(_Py_DebugOffsets, thread_state.base_frame));
#endif
	C(P(TSTATE_THREAD_ID), offsetof(PyThreadState, thread_id));
#if PYV == 312
	C(P(TSTATE_CFRAME), offsetof(PyThreadState, cframe));
	C(P(CFRAME_CURRENT_FRAME), offsetof(_PyCFrame, current_frame));
	C(P(FRAME_F_CODE), offsetof(_PyInterpreterFrame, FRAME_CODE));
	C(P(FRAME_PREV_INSTR), offsetof(_PyInterpreterFrame, FRAME_INSTR));
#else
	C(P(TSTATE_CURRENT_FRAME), offsetof(PyThreadState, current_frame));
	C(P(FRAME_EXECUTABLE), offsetof(_PyInterpreterFrame, FRAME_CODE));
	C(P(FRAME_INSTR_PTR), offsetof(_PyInterpreterFrame, FRAME_INSTR));
#endif
	C(P(FRAME_PREVIOUS), offsetof(_PyInterpreterFrame, previous));
	C(P(FRAME_OWNER), offsetof(_PyInterpreterFrame, owner));
	C(P(FRAME_OWNED_BY_GENERATOR), FRAME_OWNED_BY_GENERATOR);
#if PYV >= 314
	C(P(FRAME_OWNED_BY_INTERPRETER), FRAME_OWNED_BY_INTERPRETER);
#else
	C(P(FRAME_OWNED_BY_CSTACK), FRAME_OWNED_BY_CSTACK);
#endif
	C(P(CODE_FIRSTLINENO), offsetof(PyCodeObject, co_firstlineno));
	C(P(CODE_FILENAME), offsetof(PyCodeObject, co_filename));
	C(P(CODE_QUALNAME), offsetof(PyCodeObject, co_qualname));
	C(P(CODE_LINETABLE), offsetof(PyCodeObject, co_linetable));
	C(P(CODE_FIRSTTRACEABLE), offsetof(PyCodeObject, _co_firsttraceable));
	C(P(CODE_CODE_ADAPTIVE), offsetof(PyCodeObject, co_code_adaptive));
	C(P(CODEUNIT), sizeof(_Py_CODEUNIT));
	C(P(OB_TYPE), offsetof(PyObject, ob_type));
	C(P(VAR_SIZE), offsetof(PyVarObject, ob_size));
	C(P(BYTES_SVAL), offsetof(PyBytesObject, ob_sval));
	C(P(UNICODE_LENGTH), offsetof(PyASCIIObject, length));
	C(P(UNICODE_STATE), offsetof(PyASCIIObject, state));
	C(P(ASCII_DATA), sizeof(PyASCIIObject));
	C(P(COMPACT_DATA), sizeof(PyCompactUnicodeObject));
#if PYV >= 313
	C(P(DO_SIZE), sizeof(_Py_DebugOffsets));
	C(P(DO_VERSION), offsetof(_Py_DebugOffsets, version));
	C(P(DO_FREE_THREADED), offsetof(_Py_DebugOffsets, free_threaded));
	C(P(DO_TS_CURRENT_FRAME), offsetof(_Py_DebugOffsets, thread_state.current_frame));
	C(P(DO_TS_THREAD_ID), offsetof(_Py_DebugOffsets, thread_state.thread_id));
	C(P(DO_FR_PREVIOUS), offsetof(_Py_DebugOffsets, interpreter_frame.previous));
	C(P(DO_FR_EXECUTABLE), offsetof(_Py_DebugOffsets, interpreter_frame.executable));
	C(P(DO_FR_INSTR_PTR), offsetof(_Py_DebugOffsets, interpreter_frame.instr_ptr));
	C(P(DO_FR_OWNER), offsetof(_Py_DebugOffsets, interpreter_frame.owner));
	C(P(DO_CO_FILENAME), offsetof(_Py_DebugOffsets, code_object.filename));
	C(P(DO_CO_QUALNAME), offsetof(_Py_DebugOffsets, code_object.qualname));
	C(P(DO_CO_LINETABLE), offsetof(_Py_DebugOffsets, code_object.linetable));
	C(P(DO_CO_FIRSTLINENO), offsetof(_Py_DebugOffsets, code_object.firstlineno));
	C(P(DO_CO_CODE_ADAPTIVE), offsetof(_Py_DebugOffsets, code_object.co_code_adaptive));
	C(P(DO_OB_TYPE), offsetof(_Py_DebugOffsets, pyobject.ob_type));
	C(P(DO_BYTES_OB_SIZE), offsetof(_Py_DebugOffsets, bytes_object.ob_size));
	C(P(DO_BYTES_OB_SVAL), offsetof(_Py_DebugOffsets, bytes_object.ob_sval));
	C(P(DO_STR_STATE), offsetof(_Py_DebugOffsets, unicode_object.state));
	C(P(DO_STR_LENGTH), offsetof(_Py_DebugOffsets, unicode_object.length));
	C(P(DO_STR_ASCII_SIZE), offsetof(_Py_DebugOffsets, unicode_object.asciiobject_size));
	/* The debug offsets must start _PyRuntime. */
	C(0, offsetof(_PyRuntimeState, debug_offsets));
#endif
	return bad;
}
