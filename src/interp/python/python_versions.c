// SPDX-License-Identifier: GPL-2.0
/*
 * The CPython versions stitch can walk, and the layouts of their structures.
 * Adding a version with the same walk is one entry here.  3.12, 3.13, 3.14:
 * python_new.h (3.13's and 3.14's layout is mostly read from the process at attach,
 * python_debug.c).  3.11 offsets: checked with offsetof() against
 * python3.11-dev's headers by tools/interp-walk/offsets-python.c (Debian's
 * 3.11.2 and the pyenv 3.11.7 build have the same layout); see
 * docs/interpreters.md.
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
	PYTHON_VERSION_312,
	PYTHON_VERSION_313,
	PYTHON_VERSION_314,
	{ .version = NULL },	/* end */
};
