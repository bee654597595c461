// SPDX-License-Identifier: GPL-2.0
/*
 * CPython 3.13's (and 3.14's, 3.15's) _Py_DebugOffsets, as python_debug.c reads it from a
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

#include "interp/interp_internal.h"
#include "interp/python/python_new.h"

static uint64_t dbg[PY315_DO_SIZE / 8];	/* the largest */

static void put(uint32_t off, uint64_t v)
{
	memcpy((uint8_t *)dbg + off, &v, 8);
}

/* Version V's own values (python_offsets_new.h) where its headers put them. */
#define FILL(V, HEX) do {							\
	memset(dbg, 0, sizeof(dbg));						\
	memcpy(dbg, "xdebugpy", 8);						\
	put(PY##V##_DO_VERSION, HEX);						\
	put(PY##V##_DO_FREE_THREADED, 0);					\
	put(PY##V##_DO_TS_CURRENT_FRAME, PY##V##_TSTATE_CURRENT_FRAME);		\
	put(PY##V##_DO_TS_THREAD_ID, PY##V##_TSTATE_THREAD_ID);			\
	put(PY##V##_DO_FR_PREVIOUS, PY##V##_FRAME_PREVIOUS);			\
	put(PY##V##_DO_FR_EXECUTABLE, PY##V##_FRAME_EXECUTABLE);		\
	put(PY##V##_DO_FR_INSTR_PTR, PY##V##_FRAME_INSTR_PTR);			\
	put(PY##V##_DO_FR_OWNER, PY##V##_FRAME_OWNER);				\
	put(PY##V##_DO_CO_FILENAME, PY##V##_CODE_FILENAME);			\
	put(PY##V##_DO_CO_QUALNAME, PY##V##_CODE_QUALNAME);			\
	put(PY##V##_DO_CO_LINETABLE, PY##V##_CODE_LINETABLE);			\
	put(PY##V##_DO_CO_FIRSTLINENO, PY##V##_CODE_FIRSTLINENO);		\
	put(PY##V##_DO_CO_CODE_ADAPTIVE, PY##V##_CODE_CODE_ADAPTIVE);		\
	put(PY##V##_DO_OB_TYPE, PY##V##_OB_TYPE);				\
	put(PY##V##_DO_BYTES_OB_SIZE, PY##V##_VAR_SIZE);			\
	put(PY##V##_DO_BYTES_OB_SVAL, PY##V##_BYTES_SVAL);			\
	put(PY##V##_DO_STR_STATE, PY##V##_UNICODE_STATE);			\
	put(PY##V##_DO_STR_LENGTH, PY##V##_UNICODE_LENGTH);			\
	put(PY##V##_DO_STR_ASCII_SIZE, PY##V##_ASCII_DATA);			\
} while (0)

/* 3.13.5 final */
static void fill(void)
{
	FILL(313, 0x030d05f0);
}

static const struct interp_version *version(const char *name)
{
	const struct interp_version *v;

	for (v = python_versions; v->version; v++)
		if (strcmp(v->version, name) == 0)
			return v;
	fail_msg("no %s entry", name);
	return NULL;
}

static const struct interp_version *v313(void)
{
	return version("3.13");
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

/* 3.14's struct is laid out differently (more fields before the ones read). */
static void test_debug_offsets_314(void **state)
{
	struct interp_python_layout L;
	char why[64];

	(void)state;
	FILL(314, 0x030e0af0);
	assert_int_equal(py_debug_layout(getpid(), (uint64_t)(uintptr_t)dbg, version("3.14"), &L,
					 why, sizeof(why)), 0);
	assert_memory_equal(&L, &version("3.14")->layout.py, sizeof(L));
	assert_true(L.layout_flags & PY_LAYOUT_TAGGED_EXEC);
	/* 3.13's positions in a 3.14 process: its version says 3.13, refused. */
	FILL(313, 0x030d05f0);
	assert_int_equal(py_debug_layout(getpid(), (uint64_t)(uintptr_t)dbg, version("3.14"), &L,
					 why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "python 3.14 (debug offsets say 3.13)");
}

/* 3.15's grew again (thread state section); it also gives the base frame's offset. */
static void test_debug_offsets_315(void **state)
{
	struct interp_python_layout L;
	char why[64];

	(void)state;
	FILL(315, 0x030f02f0);
	put(PY315_DO_TS_BASE_FRAME, PY315_TSTATE_BASE_FRAME);
	assert_int_equal(py_debug_layout(getpid(), (uint64_t)(uintptr_t)dbg, version("3.15"), &L,
					 why, sizeof(why)), 0);
	assert_memory_equal(&L, &version("3.15")->layout.py, sizeof(L));
	assert_true(L.layout_flags & PY_LAYOUT_TLS_TSTATE);
	/* A build whose base frame pointer moved: followed. */
	put(PY315_DO_TS_BASE_FRAME, 88);
	assert_int_equal(py_debug_layout(getpid(), (uint64_t)(uintptr_t)dbg, version("3.15"), &L,
					 why, sizeof(why)), 0);
	assert_int_equal(L.tstate_base_frame, 88);
	/* None, or past any thread state: refused (the walk could not end right). */
	put(PY315_DO_TS_BASE_FRAME, 0);
	assert_int_equal(py_debug_layout(getpid(), (uint64_t)(uintptr_t)dbg, version("3.15"), &L,
					 why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "python 3.15 (debug offsets out of range)");
	put(PY315_DO_TS_BASE_FRAME, 1u << 20);
	assert_int_equal(py_debug_layout(getpid(), (uint64_t)(uintptr_t)dbg, version("3.15"), &L,
					 why, sizeof(why)), -EINVAL);
	/* 3.14's positions in a 3.15 process: its version says 3.14, refused. */
	FILL(314, 0x030e0af0);
	assert_int_equal(py_debug_layout(getpid(), (uint64_t)(uintptr_t)dbg, version("3.15"), &L,
					 why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "python 3.15 (debug offsets say 3.14)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_debug_offsets_make_the_headers_layout),
		cmocka_unit_test(test_debug_offsets_followed),
		cmocka_unit_test(test_debug_offsets_refused),
		cmocka_unit_test(test_debug_offsets_314),
		cmocka_unit_test(test_debug_offsets_315),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
