/* Checks python311.h against offsetof() in this build's own headers (python3.11-dev). */
#define Py_BUILD_CORE 1
#include <Python.h>
#include <internal/pycore_runtime.h>
#include <internal/pycore_interp.h>
#include <internal/pycore_frame.h>
#include <stddef.h>
#include <stdio.h>
#include "python311.h"
static int bad;
#define C(mac, val) do { if ((size_t)(mac) != (size_t)(val)) { printf("MISMATCH %s=%zu real %zu\n", #mac, (size_t)(mac), (size_t)(val)); bad = 1; } else printf("ok %s=%zu\n", #mac, (size_t)(mac)); } while (0)
int main(void)
{
	C(PY311_RUNTIME_INTERPRETERS_HEAD, offsetof(_PyRuntimeState, interpreters.head));
	C(PY311_RUNTIME_TSTATE_CURRENT, offsetof(_PyRuntimeState, gilstate.tstate_current));
	C(PY311_RUNTIME_AUTOTSS_INIT, offsetof(_PyRuntimeState, gilstate.autoTSSkey._is_initialized));
	C(PY311_RUNTIME_AUTOTSS_KEY, offsetof(_PyRuntimeState, gilstate.autoTSSkey._key));
	C(PY311_INTERP_NEXT, offsetof(PyInterpreterState, next));
	C(PY311_INTERP_THREADS_HEAD, offsetof(PyInterpreterState, threads.head));
	C(PY311_TSTATE_NEXT, offsetof(PyThreadState, next));
	C(PY311_TSTATE_INTERP, offsetof(PyThreadState, interp));
	C(PY311_TSTATE_CFRAME, offsetof(PyThreadState, cframe));
	C(PY311_TSTATE_THREAD_ID, offsetof(PyThreadState, thread_id));
	C(PY311_TSTATE_NATIVE_THREAD_ID, offsetof(PyThreadState, native_thread_id));
	C(PY311_CFRAME_CURRENT_FRAME, offsetof(_PyCFrame, current_frame));
	C(PY311_FRAME_F_CODE, offsetof(_PyInterpreterFrame, f_code));
	C(PY311_FRAME_PREVIOUS, offsetof(_PyInterpreterFrame, previous));
	C(PY311_FRAME_PREV_INSTR, offsetof(_PyInterpreterFrame, prev_instr));
	C(PY311_FRAME_IS_ENTRY, offsetof(_PyInterpreterFrame, is_entry));
	C(PY311_FRAME_OWNER, offsetof(_PyInterpreterFrame, owner));
	C(PY311_FRAME_SIZE, offsetof(_PyInterpreterFrame, owner) + 3);
	C(PY311_FRAME_OWNED_BY_GENERATOR, FRAME_OWNED_BY_GENERATOR);
	C(PY311_CODE_FIRSTLINENO, offsetof(PyCodeObject, co_firstlineno));
	C(PY311_CODE_FILENAME, offsetof(PyCodeObject, co_filename));
	C(PY311_CODE_NAME, offsetof(PyCodeObject, co_name));
	C(PY311_CODE_QUALNAME, offsetof(PyCodeObject, co_qualname));
	C(PY311_CODE_LINETABLE, offsetof(PyCodeObject, co_linetable));
	C(PY311_CODE_FIRSTTRACEABLE, offsetof(PyCodeObject, _co_firsttraceable));
	C(PY311_CODE_CODE_ADAPTIVE, offsetof(PyCodeObject, co_code_adaptive));
	C(PY311_CODEUNIT, sizeof(_Py_CODEUNIT));
	C(PY311_OB_TYPE, offsetof(PyObject, ob_type));
	C(PY311_VAR_SIZE, offsetof(PyVarObject, ob_size));
	C(PY311_BYTES_SVAL, offsetof(PyBytesObject, ob_sval));
	C(PY311_UNICODE_LENGTH, offsetof(PyASCIIObject, length));
	C(PY311_UNICODE_STATE, offsetof(PyASCIIObject, state));
	C(PY311_ASCII_DATA, sizeof(PyASCIIObject));
	C(PY311_COMPACT_DATA, sizeof(PyCompactUnicodeObject));
	return bad;
}
