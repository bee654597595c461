// SPDX-License-Identifier: GPL-2.0
/*
 * The CPython versions stitch can walk, and the layouts of their structures.
 * Adding a version with the same walk is one entry here.  3.12 to 3.15:
 * python_new.h (3.13's to 3.15's layout is mostly read from the process at
 * attach, python_debug.c).  3.11 offsets: checked with offsetof() against
 * python3.11-dev's headers by tools/interp-walk/offsets-python.c (Debian's
 * 3.11.2 and the pyenv 3.11.7 build have the same layout); see
 * docs/interpreters.md.
 *
 * 3.8, 3.9, 3.10 walk the PyFrameObject chain (python_frameobject.bpf.h):
 * their entries are what tools/interp-walk/offsets-python-old.c prints,
 * compiled against each version's own headers (pyenv 3.8.18, 3.9.18,
 * 3.10.13, and Debian bullseye's python3.9-dev 3.9.2, the same as 3.9.18);
 * offsets-python-old.sh compares them with these entries, and the
 * integration tests prove them by exact frames and lines.
 */
#include "interp/python/python_new.h"

const struct interp_version python_versions[] = {
	{
		.lang_name = "python", .version = "3.11", .lang = INTERP_PYTHON,
		.exe_name = "python3.11", .lib_prefix = "libpython3.11.so",
		.eval_func = "_PyEval_EvalFrameDefault",
		.tss_key_off = 596,
		.layout = { .lang = INTERP_PYTHON, .py = {
			.tstate_cframe = 56,
			.cframe_current_frame = 8,
			.frame_code = 32,
			.frame_previous = 48,
			.frame_instr = 56,
			.frame_is_entry = 68,
			.frame_owner = 69,
			.code_firstlineno = 72,
			.code_filename = 112,
			.code_qualname = 128,
			.code_linetable = 136,
			.code_firsttraceable = 168,
			.code_bytecode = 184,
			.ob_type = 8,
			.var_size = 16,
			.bytes_data = 32,
			.unicode_length = 16,
			.unicode_state = 32,
			.ascii_data = 48,
			.compact_data = 72,
			.codeunit = 2,
			.frame_read = 72,	/* through .owner */
			.code_read = 176,	/* through ._co_firsttraceable */
			.owner_generator = 1,
			.tstate_thread_id = 152,	/* checked as PY311_TSTATE_THREAD_ID */
		} },
	},
	{
		.lang_name = "python", .version = "3.8", .lang = INTERP_PYTHON,
		.exe_name = "python3.8", .lib_prefix = "libpython3.8.so",
		.eval_func = "_PyEval_EvalFrameDefault",
		.tss_key_off = 1396,
		.layout = { .lang = INTERP_PYTHON, .py = {
			.frameobject = 1,
			.lnotab = PYTHON_LNOTAB_38,
			.code_firstlineno = 40,
			.code_filename = 104,
			.code_qualname = 112,
			.code_linetable = 120,
			.ob_type = 8,
			.var_size = 16,
			.bytes_data = 32,
			.unicode_length = 16,
			.unicode_state = 32,
			.ascii_data = 48,
			.compact_data = 72,
			.frame_read = 108,
			.code_read = 128,
			.tstate_frame = 24,
			.tstate_thread_id = 176,
			.fo_back = 24,
			.fo_code = 32,
			.fo_lasti = 104,
			.lasti_unit = 1,
		} },
	},
	{
		.lang_name = "python", .version = "3.9", .lang = INTERP_PYTHON,
		.exe_name = "python3.9", .lib_prefix = "libpython3.9.so",
		.eval_func = "_PyEval_EvalFrameDefault",
		.tss_key_off = 588,
		.layout = { .lang = INTERP_PYTHON, .py = {
			.frameobject = 1,
			.lnotab = PYTHON_LNOTAB_38,
			.code_firstlineno = 40,
			.code_filename = 104,
			.code_qualname = 112,
			.code_linetable = 120,
			.ob_type = 8,
			.var_size = 16,
			.bytes_data = 32,
			.unicode_length = 16,
			.unicode_state = 32,
			.ascii_data = 48,
			.compact_data = 72,
			.frame_read = 108,
			.code_read = 128,
			.tstate_frame = 24,
			.tstate_thread_id = 176,
			.fo_back = 24,
			.fo_code = 32,
			.fo_lasti = 104,
			.lasti_unit = 1,
		} },
	},
	{
		.lang_name = "python", .version = "3.10", .lang = INTERP_PYTHON,
		.exe_name = "python3.10", .lib_prefix = "libpython3.10.so",
		.eval_func = "_PyEval_EvalFrameDefault",
		.tss_key_off = 588,
		.layout = { .lang = INTERP_PYTHON, .py = {
			.frameobject = 1,
			.lnotab = PYTHON_LINETABLE_310,
			.code_firstlineno = 40,
			.code_filename = 104,
			.code_qualname = 112,
			.code_linetable = 120,
			.ob_type = 8,
			.var_size = 16,
			.bytes_data = 32,
			.unicode_length = 16,
			.unicode_state = 32,
			.ascii_data = 48,
			.compact_data = 72,
			.frame_read = 100,
			.code_read = 128,
			.tstate_frame = 24,
			.tstate_thread_id = 176,
			.fo_back = 24,
			.fo_code = 32,
			.fo_lasti = 96,
			.lasti_unit = 2,
		} },
	},
	PYTHON_VERSION_312,
	PYTHON_VERSION_313,
	PYTHON_VERSION_314,
	PYTHON_VERSION_315,
	{ .version = NULL },	/* end */
};
