/* CPython 3.11 (Debian 12: python3.11 3.11.2) offsets, x86-64.
 *
 * Every value below was printed with offsetof() by a program compiled against the
 * headers that ship with this exact build (python3.11-dev: /usr/include/python3.11,
 * including internal/ with Py_BUILD_CORE), so they match the ABI of /usr/bin/python3.11.
 * run-checks.sh recompiles that program and compares (tools/interp-walk/offsets-python.c).
 * Then each offset is exercised by walking known stacks (tests/workloads/interp/py_threads.py).
 */
#ifndef INTERP_PYTHON311_H
#define INTERP_PYTHON311_H

/* Include/internal/pycore_runtime.h: struct _PyRuntimeState */
#define PY311_RUNTIME_INTERPRETERS_HEAD 40   /* .interpreters.head (PyInterpreterState *) */
#define PY311_RUNTIME_TSTATE_CURRENT    576  /* .gilstate.tstate_current (GIL holder: NOT used) */
#define PY311_RUNTIME_AUTOTSS_INIT      592  /* .gilstate.autoTSSkey._is_initialized (int) */
#define PY311_RUNTIME_AUTOTSS_KEY       596  /* .gilstate.autoTSSkey._key (pthread_key_t, u32) */

/* Include/internal/pycore_interp.h: struct _is (PyInterpreterState) */
#define PY311_INTERP_NEXT          0    /* .next */
#define PY311_INTERP_THREADS_HEAD  16   /* .threads.head (PyThreadState *) */

/* Include/cpython/pystate.h: struct _ts (PyThreadState) */
#define PY311_TSTATE_NEXT             8    /* .next */
#define PY311_TSTATE_INTERP           16   /* .interp */
#define PY311_TSTATE_CFRAME           56   /* .cframe (_PyCFrame *) */
#define PY311_TSTATE_THREAD_ID        152  /* .thread_id (pthread_t) */
#define PY311_TSTATE_NATIVE_THREAD_ID 160  /* .native_thread_id (gettid()) */

/* Include/cpython/pystate.h: struct _PyCFrame */
#define PY311_CFRAME_CURRENT_FRAME 8    /* .current_frame (_PyInterpreterFrame *) */

/* Include/internal/pycore_frame.h: struct _PyInterpreterFrame */
#define PY311_FRAME_F_CODE     32   /* .f_code (PyCodeObject *) */
#define PY311_FRAME_PREVIOUS   48   /* .previous */
#define PY311_FRAME_PREV_INSTR 56   /* .prev_instr (_Py_CODEUNIT *, the instruction being executed) */
#define PY311_FRAME_IS_ENTRY   68   /* .is_entry (bool: first frame of a _PyEval_EvalFrameDefault call) */
#define PY311_FRAME_OWNER      69   /* .owner (char: 0 thread, 1 generator, 2 frame object) */
#define PY311_FRAME_SIZE       72   /* bytes read per frame (through .owner) */
#define PY311_FRAME_OWNED_BY_GENERATOR 1

/* Include/cpython/code.h: struct PyCodeObject (_PyCode_DEF(1)) */
#define PY311_CODE_FIRSTLINENO      72   /* .co_firstlineno (int) */
#define PY311_CODE_FILENAME         112  /* .co_filename (str) */
#define PY311_CODE_NAME             120  /* .co_name (str) */
#define PY311_CODE_QUALNAME         128  /* .co_qualname (str) */
#define PY311_CODE_LINETABLE        136  /* .co_linetable (bytes, 3.11 location table) */
#define PY311_CODE_FIRSTTRACEABLE   168  /* ._co_firsttraceable (int, in code units) */
#define PY311_CODE_CODE_ADAPTIVE    184  /* .co_code_adaptive: the bytecode is inline here */
#define PY311_CODE_READ             188  /* bytes read per code object */
#define PY311_CODEUNIT              2    /* sizeof(_Py_CODEUNIT) */

/* Include/object.h, Include/cpython/unicodeobject.h, Include/cpython/bytesobject.h */
#define PY311_OB_TYPE          8    /* PyObject.ob_type */
#define PY311_VAR_SIZE         16   /* PyVarObject.ob_size (bytes: length) */
#define PY311_BYTES_SVAL       32   /* PyBytesObject.ob_sval */
#define PY311_UNICODE_LENGTH   16   /* PyASCIIObject.length (code points) */
#define PY311_UNICODE_STATE    32   /* PyASCIIObject.state: interned:2 kind:3 compact:1 ascii:1 ready:1 */
#define PY311_ASCII_DATA       48   /* sizeof(PyASCIIObject): compact ASCII data follows */
#define PY311_COMPACT_DATA     72   /* sizeof(PyCompactUnicodeObject): compact non-ASCII data */

/* glibc 2.36 (Debian 12) struct pthread, from libc6-dbg DWARF (gdb: &((struct pthread*)0)->f).
 * THREAD_SELF == fs_base on x86-64. pthread_getspecific(key) for key < 32 is
 * specific_1stblock[key].data; each struct pthread_key_data is { uintptr_t seq; void *data; }. */
#define GLIBC236_PTHREAD_SPECIFIC_1STBLOCK 784
#define GLIBC236_PTHREAD_KEY_DATA_SIZE     16
#define GLIBC236_PTHREAD_KEY_DATA_DATA     8
#define GLIBC_PTHREAD_KEY_2NDLEVEL_SIZE    32

#endif
