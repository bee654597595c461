// SPDX-License-Identifier: GPL-2.0
/*
 * CPython 3.13 on: the layout a process says it has.  _PyRuntime starts
 * with _Py_DebugOffsets (pycore_runtime.h in 3.13, pycore_debug_offsets.h
 * from 3.14), written for out-of-process debuggers: a cookie, the version,
 * whether the build is free-threaded, then the offsets of the runtime,
 * thread state, interpreter frame, code object, str and bytes fields.  It
 * is read once at attach, untrusted: the cookie, the version (the module's
 * major.minor), the build (not free-threaded: its objects and frames
 * differ) and every offset (within what the walker reads at once) are
 * checked, else one stderr line names the version and its frames stay
 * native.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "interp/python/python_new.h"

/*
 * Where the fields stitch uses sit in _Py_DebugOffsets (every one a
 * uint64_t), per minor version: offsetof() in a program compiled against
 * the version's headers (3.13.0 pyenv and 3.13.5 trixie agree; 3.14: sid's;
 * 3.15: sid's 3.15.2-1; tools/interp-walk/offsets-python-new.c checks them).
 */
struct py_debug_pos {
	int minor;
	uint32_t size;			/* sizeof(_Py_DebugOffsets) */
	uint32_t version, free_threaded;
	uint32_t ts_current_frame, ts_thread_id;
	uint32_t ts_base_frame;		/* 3.15 on; 0: none */
	uint32_t fr_previous, fr_executable, fr_instr_ptr, fr_owner;
	uint32_t co_filename, co_qualname, co_linetable, co_firstlineno, co_code_adaptive;
	uint32_t ob_type;
	uint32_t bytes_ob_size, bytes_ob_sval;
	uint32_t str_state, str_length, str_ascii_size;
};

static const struct py_debug_pos py_debug_pos[] = {
	{ .minor = 13, .size = PY313_DO_SIZE, .version = PY313_DO_VERSION,
	  .free_threaded = PY313_DO_FREE_THREADED,
	  .ts_current_frame = PY313_DO_TS_CURRENT_FRAME, .ts_thread_id = PY313_DO_TS_THREAD_ID,
	  .fr_previous = PY313_DO_FR_PREVIOUS, .fr_executable = PY313_DO_FR_EXECUTABLE,
	  .fr_instr_ptr = PY313_DO_FR_INSTR_PTR, .fr_owner = PY313_DO_FR_OWNER,
	  .co_filename = PY313_DO_CO_FILENAME, .co_qualname = PY313_DO_CO_QUALNAME,
	  .co_linetable = PY313_DO_CO_LINETABLE, .co_firstlineno = PY313_DO_CO_FIRSTLINENO,
	  .co_code_adaptive = PY313_DO_CO_CODE_ADAPTIVE, .ob_type = PY313_DO_OB_TYPE,
	  .bytes_ob_size = PY313_DO_BYTES_OB_SIZE, .bytes_ob_sval = PY313_DO_BYTES_OB_SVAL,
	  .str_state = PY313_DO_STR_STATE, .str_length = PY313_DO_STR_LENGTH,
	  .str_ascii_size = PY313_DO_STR_ASCII_SIZE },
	{ .minor = 14, .size = PY314_DO_SIZE, .version = PY314_DO_VERSION,
	  .free_threaded = PY314_DO_FREE_THREADED,
	  .ts_current_frame = PY314_DO_TS_CURRENT_FRAME, .ts_thread_id = PY314_DO_TS_THREAD_ID,
	  .fr_previous = PY314_DO_FR_PREVIOUS, .fr_executable = PY314_DO_FR_EXECUTABLE,
	  .fr_instr_ptr = PY314_DO_FR_INSTR_PTR, .fr_owner = PY314_DO_FR_OWNER,
	  .co_filename = PY314_DO_CO_FILENAME, .co_qualname = PY314_DO_CO_QUALNAME,
	  .co_linetable = PY314_DO_CO_LINETABLE, .co_firstlineno = PY314_DO_CO_FIRSTLINENO,
	  .co_code_adaptive = PY314_DO_CO_CODE_ADAPTIVE, .ob_type = PY314_DO_OB_TYPE,
	  .bytes_ob_size = PY314_DO_BYTES_OB_SIZE, .bytes_ob_sval = PY314_DO_BYTES_OB_SVAL,
	  .str_state = PY314_DO_STR_STATE, .str_length = PY314_DO_STR_LENGTH,
	  .str_ascii_size = PY314_DO_STR_ASCII_SIZE },
	{ .minor = 15, .size = PY315_DO_SIZE, .version = PY315_DO_VERSION,
	  .free_threaded = PY315_DO_FREE_THREADED,
	  .ts_current_frame = PY315_DO_TS_CURRENT_FRAME, .ts_thread_id = PY315_DO_TS_THREAD_ID,
	  .ts_base_frame = PY315_DO_TS_BASE_FRAME,
	  .fr_previous = PY315_DO_FR_PREVIOUS, .fr_executable = PY315_DO_FR_EXECUTABLE,
	  .fr_instr_ptr = PY315_DO_FR_INSTR_PTR, .fr_owner = PY315_DO_FR_OWNER,
	  .co_filename = PY315_DO_CO_FILENAME, .co_qualname = PY315_DO_CO_QUALNAME,
	  .co_linetable = PY315_DO_CO_LINETABLE, .co_firstlineno = PY315_DO_CO_FIRSTLINENO,
	  .co_code_adaptive = PY315_DO_CO_CODE_ADAPTIVE, .ob_type = PY315_DO_OB_TYPE,
	  .bytes_ob_size = PY315_DO_BYTES_OB_SIZE, .bytes_ob_sval = PY315_DO_BYTES_OB_SVAL,
	  .str_state = PY315_DO_STR_STATE, .str_length = PY315_DO_STR_LENGTH,
	  .str_ascii_size = PY315_DO_STR_ASCII_SIZE },
	{ .minor = 0 },
};

#define PY_DEBUG_MAX 1024	/* bytes read: more than any version's struct */
/* Thread state offsets are read one at a time: any below this is plausible. */
#define PY_TSTATE_MAX 4096

static uint64_t at(const uint8_t *buf, uint32_t off)
{
	uint64_t v;

	memcpy(&v, buf + off, 8);
	return v;
}

int py_debug_layout(pid_t pid, uint64_t runtime, const struct interp_version *v,
		    struct interp_python_layout *L, char *why, size_t why_len)
{
	const struct interp_python_layout *ref = &v->layout.py;
	const struct py_debug_pos *p;
	uint8_t buf[PY_DEBUG_MAX];
	uint64_t ver, f[13], ascii, current, thread_id, bytecode;
	int major, minor, i;

	if (sscanf(v->version, "%d.%d", &major, &minor) != 2)
		return -EINVAL;
	for (p = py_debug_pos; p->minor && p->minor != minor; p++)
		;
	if (!p->minor || p->size > sizeof(buf)) {
		snprintf(why, why_len, "python %s (debug offsets unknown)", v->version);
		return -EINVAL;
	}
	if (interp_read(pid, runtime, buf, p->size))
		return -EAGAIN;
	if (memcmp(buf, "xdebugpy", 8) != 0) {
		snprintf(why, why_len, "python %s (no debug offsets cookie)", v->version);
		return -EINVAL;
	}
	/* PY_VERSION_HEX: 0xMMmmPPLS */
	ver = at(buf, p->version);
	if ((ver >> 24) != (uint64_t)major || ((ver >> 16) & 0xff) != (uint64_t)minor) {
		snprintf(why, why_len, "python %s (debug offsets say %d.%d)", v->version,
			 (int)(ver >> 24 & 0xff), (int)(ver >> 16 & 0xff));
		return -EINVAL;
	}
	if (at(buf, p->free_threaded)) {
		snprintf(why, why_len, "python %s free-threaded", v->version);
		return -EINVAL;
	}
	*L = *ref;
	f[0] = at(buf, p->fr_previous);
	f[1] = at(buf, p->fr_executable);
	f[2] = at(buf, p->fr_instr_ptr);
	f[3] = at(buf, p->fr_owner);
	f[4] = at(buf, p->co_filename);
	f[5] = at(buf, p->co_qualname);
	f[6] = at(buf, p->co_linetable);
	f[7] = at(buf, p->co_firstlineno);
	f[8] = at(buf, p->ob_type);
	f[9] = at(buf, p->bytes_ob_size);
	f[10] = at(buf, p->bytes_ob_sval);
	f[11] = at(buf, p->str_state);
	f[12] = at(buf, p->str_length);
	for (i = 0; i < 13; i++) {
		/* Read as 8 bytes by the walker or by naming, within a chunk (no wrap). */
		if (f[i] > INTERP_CHUNK - 8) {
			snprintf(why, why_len, "python %s (debug offsets out of range)",
				 v->version);
			return -EINVAL;
		}
	}
	L->frame_previous = f[0];
	L->frame_code = f[1];
	L->frame_instr = f[2];
	L->frame_owner = f[3];
	L->code_filename = f[4];
	L->code_qualname = f[5];
	L->code_linetable = f[6];
	L->code_firstlineno = f[7];
	L->ob_type = f[8];
	L->var_size = f[9];
	L->bytes_data = f[10];
	L->unicode_state = f[11];
	L->unicode_length = f[12];
	ascii = at(buf, p->str_ascii_size);
	current = at(buf, p->ts_current_frame);
	thread_id = at(buf, p->ts_thread_id);
	bytecode = at(buf, p->co_code_adaptive);
	if (ascii > L->compact_data || current >= PY_TSTATE_MAX || !thread_id ||
	    thread_id >= PY_TSTATE_MAX || bytecode >= PY_TSTATE_MAX) {
		snprintf(why, why_len, "python %s (debug offsets out of range)", v->version);
		return -EINVAL;
	}
	if (p->ts_base_frame) {
		uint64_t base = at(buf, p->ts_base_frame);

		if (!base || base >= PY_TSTATE_MAX) {
			snprintf(why, why_len, "python %s (debug offsets out of range)",
				 v->version);
			return -EINVAL;
		}
		L->tstate_base_frame = base;
	}
	L->ascii_data = ascii;
	L->tstate_current_frame = current;
	L->tstate_thread_id = thread_id;
	L->code_bytecode = bytecode;
	/*
	 * _co_firsttraceable is not in the debug offsets: the table's value
	 * holds only while co_code_adaptive, its neighbour, is where the
	 * headers put it.
	 */
	if (L->code_bytecode != ref->code_bytecode) {
		snprintf(why, why_len, "python %s (code object unlike its headers')",
			 v->version);
		return -EINVAL;
	}
	L->frame_read = L->frame_owner + 2 > L->frame_read ? L->frame_owner + 2 : L->frame_read;
	for (i = 0; i < 3; i++)
		if (f[i] + 8 > L->frame_read)
			L->frame_read = f[i] + 8;
	L->code_read = L->code_firsttraceable + 4;
	for (i = 4; i < 9; i++)
		if (f[i] + 8 > L->code_read)
			L->code_read = f[i] + 8;
	L->code_read = (L->code_read + 7) & ~7u;
	if (L->frame_read >= INTERP_CHUNK || L->code_read >= INTERP_CHUNK) {
		snprintf(why, why_len, "python %s (debug offsets out of range)", v->version);
		return -EINVAL;
	}
	return 0;
}
