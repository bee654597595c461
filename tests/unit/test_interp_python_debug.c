// SPDX-License-Identifier: GPL-2.0
/*
 * CPython 3.13's _Py_DebugOffsets, as python_debug.c reads it from a
 * process (here: this one, a buffer laid out as 3.13's headers lay it out,
 * the values those headers give): the layout it makes, and each check that
 * must refuse it (cookie, version, free-threaded build, offsets out of
 * range, a code object unlike the headers') with the reason named.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "interp/common.h"
#include "interp/python/python_new.h"

static uint64_t dbg[PY313_DO_SIZE / 8];

static void put(uint32_t off, uint64_t v)
{
	memcpy((uint8_t *)dbg + off, &v, 8);
}

/* 3.13.5's own values (python_offsets_new.h), version 3.13.5 final. */
static void fill(void)
{
	memset(dbg, 0, sizeof(dbg));
	memcpy(dbg, "xdebugpy", 8);
	put(PY313_DO_VERSION, 0x030d05f0);
	put(PY313_DO_FREE_THREADED, 0);
	put(PY313_DO_TS_CURRENT_FRAME, PY313_TSTATE_CURRENT_FRAME);
	put(PY313_DO_TS_THREAD_ID, PY313_TSTATE_THREAD_ID);
	put(PY313_DO_FR_PREVIOUS, PY313_FRAME_PREVIOUS);
	put(PY313_DO_FR_EXECUTABLE, PY313_FRAME_EXECUTABLE);
	put(PY313_DO_FR_INSTR_PTR, PY313_FRAME_INSTR_PTR);
	put(PY313_DO_FR_OWNER, PY313_FRAME_OWNER);
	put(PY313_DO_CO_FILENAME, PY313_CODE_FILENAME);
	put(PY313_DO_CO_QUALNAME, PY313_CODE_QUALNAME);
	put(PY313_DO_CO_LINETABLE, PY313_CODE_LINETABLE);
	put(PY313_DO_CO_FIRSTLINENO, PY313_CODE_FIRSTLINENO);
	put(PY313_DO_CO_CODE_ADAPTIVE, PY313_CODE_CODE_ADAPTIVE);
	put(PY313_DO_OB_TYPE, PY313_OB_TYPE);
	put(PY313_DO_BYTES_OB_SIZE, PY313_VAR_SIZE);
	put(PY313_DO_BYTES_OB_SVAL, PY313_BYTES_SVAL);
	put(PY313_DO_STR_STATE, PY313_UNICODE_STATE);
	put(PY313_DO_STR_LENGTH, PY313_UNICODE_LENGTH);
	put(PY313_DO_STR_ASCII_SIZE, PY313_ASCII_DATA);
}

static const struct interp_version *v313(void)
{
	const struct interp_version *v;

	for (v = python_versions; v->version; v++)
		if (strcmp(v->version, "3.13") == 0)
			return v;
	fail_msg("no 3.13 entry");
	return NULL;
}

static int run(struct interp_python_layout *L, char *why, size_t len)
{
	why[0] = '\0';
	return py_debug_layout(getpid(), (uint64_t)(uintptr_t)dbg, v313(), L, why, len);
}

static void test_debug_offsets_make_the_headers_layout(void **state)
{
	struct interp_python_layout L;
	char why[64];

	(void)state;
	fill();
	assert_int_equal(run(&L, why, sizeof(why)), 0);
	/* The same layout as the table checked against the headers. */
	assert_memory_equal(&L, &v313()->layout.py, sizeof(L));
	assert_true(L.frame_read < INTERP_CHUNK && L.code_read < INTERP_CHUNK);
	assert_true(L.code_read >= L.code_firsttraceable + 4);
	assert_true(L.frame_read > L.frame_owner);
}

static void test_debug_offsets_followed(void **state)
{
	struct interp_python_layout L;
	char why[64];

	(void)state;
	fill();
	/* A build whose frame or code fields moved: the walker follows them. */
	put(PY313_DO_FR_OWNER, 78);
	put(PY313_DO_CO_QUALNAME, 160);
	put(PY313_DO_TS_THREAD_ID, 160);
	assert_int_equal(run(&L, why, sizeof(why)), 0);
	assert_int_equal(L.frame_owner, 78);
	assert_int_equal(L.frame_read, 80);
	assert_int_equal(L.code_qualname, 160);
	assert_int_equal(L.tstate_thread_id, 160);
	assert_int_equal(L.code_read, 192);
}

static void expect_refused(const char *reason)
{
	struct interp_python_layout L;
	char why[64];

	assert_int_equal(run(&L, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, reason);
}

static void test_debug_offsets_refused(void **state)
{
	(void)state;
	fill();
	memcpy(dbg, "xdebugpz", 8);
	expect_refused("python 3.13 (no debug offsets cookie)");
	fill();
	put(PY313_DO_VERSION, 0x030e00f0);
	expect_refused("python 3.13 (debug offsets say 3.14)");
	fill();
	put(PY313_DO_FREE_THREADED, 1);
	expect_refused("python 3.13 free-threaded");
	fill();
	put(PY313_DO_FR_PREVIOUS, INTERP_CHUNK - 4);
	expect_refused("python 3.13 (debug offsets out of range)");
	fill();
	put(PY313_DO_CO_QUALNAME, (uint64_t)-8);	/* wraps to 0 if added carelessly */
	expect_refused("python 3.13 (debug offsets out of range)");
	fill();
	put(PY313_DO_TS_CURRENT_FRAME, 1u << 20);
	expect_refused("python 3.13 (debug offsets out of range)");
	fill();
	put(PY313_DO_CO_CODE_ADAPTIVE, PY313_CODE_CODE_ADAPTIVE + 8);
	expect_refused("python 3.13 (code object unlike its headers')");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_debug_offsets_make_the_headers_layout),
		cmocka_unit_test(test_debug_offsets_followed),
		cmocka_unit_test(test_debug_offsets_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
