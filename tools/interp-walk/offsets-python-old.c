/*
 * CPython 3.8, 3.9, 3.10: the layout stitch walks (python_versions.c), from
 * offsetof() in the version's own headers.  Prints the version and its
 * layout as the lines of its python_versions.c entry, which
 * offsets-python-old.sh compares with that entry.  Build against one
 * version's headers: gcc -I.../include/python3.X offsets-python-old.c
 */
#define Py_BUILD_CORE 1
#include <Python.h>
#include <frameobject.h>
#include <code.h>
#include <internal/pycore_pystate.h>
#include <stddef.h>
#include <stdio.h>

#if PY_VERSION_HEX < 0x03080000 || PY_VERSION_HEX >= 0x030b0000
#error "offsets-python-old.c is for CPython 3.8, 3.9 and 3.10"
#endif

#define MAX2(a, b) ((a) > (b) ? (a) : (b))
#define P(name, val) printf("\t\t\t.%s = %zu,\n", name, (size_t)(val))

int main(void)
{
#if PY_VERSION_HEX >= 0x030a0000
	size_t linetable = offsetof(PyCodeObject, co_linetable);
	size_t lasti_unit = sizeof(_Py_CODEUNIT);	/* 3.10: f_lasti counts code units */
#else
	size_t linetable = offsetof(PyCodeObject, co_lnotab);
	size_t lasti_unit = 1;				/* 3.8, 3.9: f_lasti counts bytes */
#endif
	size_t frame_end = MAX2(MAX2(offsetof(PyFrameObject, f_back),
				     offsetof(PyFrameObject, f_code)) + 8,
				offsetof(PyFrameObject, f_lasti) + sizeof(int));
	size_t code_end = MAX2(MAX2(offsetof(PyCodeObject, co_filename),
				    offsetof(PyCodeObject, co_name)), linetable) + 8;

	code_end = MAX2(code_end, offsetof(PyCodeObject, co_firstlineno) + sizeof(int));
	printf("version %d.%d\n", PY_MAJOR_VERSION, PY_MINOR_VERSION);
	P("frameobject", 1);	/* the walk: tstate->frame, f_back, ... */
	P("tss_key_off", offsetof(_PyRuntimeState, gilstate.autoTSSkey._key));
	P("code_firstlineno", offsetof(PyCodeObject, co_firstlineno));
	P("code_filename", offsetof(PyCodeObject, co_filename));
	P("code_qualname", offsetof(PyCodeObject, co_name));
	P("code_linetable", linetable);
	P("ob_type", offsetof(PyObject, ob_type));
	P("var_size", offsetof(PyVarObject, ob_size));
	P("bytes_data", offsetof(PyBytesObject, ob_sval));
	P("unicode_length", offsetof(PyASCIIObject, length));
	P("unicode_state", offsetof(PyASCIIObject, state));
	P("ascii_data", sizeof(PyASCIIObject));
	P("compact_data", sizeof(PyCompactUnicodeObject));
	P("frame_read", frame_end);
	P("code_read", code_end);
	P("tstate_frame", offsetof(PyThreadState, frame));
	P("tstate_thread_id", offsetof(PyThreadState, thread_id));
	P("fo_back", offsetof(PyFrameObject, f_back));
	P("fo_code", offsetof(PyFrameObject, f_code));
	P("fo_lasti", offsetof(PyFrameObject, f_lasti));
	P("lasti_unit", lasti_unit);
	return 0;
}
