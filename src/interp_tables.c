// SPDX-License-Identifier: GPL-2.0
/*
 * The interpreter versions stitch can walk, and the layouts of their
 * structures.  Adding a version with the same walk (CPython 3.12 keeps the
 * 3.11 frame list; Ruby 3.2/3.3, Perl 5.38/5.40 likewise) is one entry here.
 *
 * CPython 3.11 offsets: checked with offsetof() against python3.11-dev's
 * headers by tools/interp-walk/offsets-python.c (Debian's 3.11.2 and the
 * pyenv 3.11.7 build have the same layout); see docs/interpreters.md.
 */
#include <stdio.h>
#include <string.h>

#include "interp_user.h"

const struct interp_version interp_versions[] = {
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
		} },
	},
};

const size_t interp_nversions = sizeof(interp_versions) / sizeof(interp_versions[0]);

/*
 * pthread_getspecific() inlined: glibc's struct pthread (== fs_base on
 * x86-64) holds specific_1stblock, 32 entries of { seq, data }.  The offset
 * is per glibc version (checked with libc6-dbg's DWARF).
 */
uint32_t interp_glibc_pthread_specific(int major, int minor)
{
	if (major == 2 && minor == 36)
		return 784;
	return 0;
}

/* "python3.12" -> ("python", "3.12"): names that look like an interpreter. */
static bool looks_like(const char *base, const char *prefix, const char *lang, char *lang_out,
		       size_t lang_len, char *ver_out, size_t ver_len)
{
	size_t n = strlen(prefix), i;

	if (strncmp(base, prefix, n) != 0)
		return false;
	for (i = n; base[i] && (base[i] == '.' || (base[i] >= '0' && base[i] <= '9')); i++)
		;
	if (i == n || base[n] < '0' || base[n] > '9')
		return false;
	snprintf(lang_out, lang_len, "%s", lang);
	snprintf(ver_out, ver_len, "%.*s", (int)(i - n), base + n);
	/* libpython3.11.so -> "3.11"; drop what follows the minor version. */
	for (i = 0, n = 0; ver_out[i]; i++)
		if (ver_out[i] == '.' && ++n == 2)
			ver_out[i] = '\0';
	n = strlen(ver_out);
	if (n && ver_out[n - 1] == '.')
		ver_out[n - 1] = '\0';
	return true;
}

const struct interp_version *interp_version_for_module(const char *base, char *lang_out,
							size_t lang_len, char *ver_out,
							size_t ver_len)
{
	size_t i;

	lang_out[0] = ver_out[0] = '\0';
	for (i = 0; i < interp_nversions; i++) {
		const struct interp_version *v = &interp_versions[i];

		if (strcmp(base, v->exe_name) == 0 ||
		    strncmp(base, v->lib_prefix, strlen(v->lib_prefix)) == 0)
			return v;
	}
	if (looks_like(base, "python", "python", lang_out, lang_len, ver_out, ver_len) ||
	    looks_like(base, "libpython", "python", lang_out, lang_len, ver_out, ver_len) ||
	    looks_like(base, "libruby-", "ruby", lang_out, lang_len, ver_out, ver_len) ||
	    looks_like(base, "libruby.so.", "ruby", lang_out, lang_len, ver_out, ver_len) ||
	    looks_like(base, "libperl.so.", "perl", lang_out, lang_len, ver_out, ver_len))
		return NULL;
	lang_out[0] = ver_out[0] = '\0';
	return NULL;
}
