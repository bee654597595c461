// SPDX-License-Identifier: GPL-2.0
/*
 * A mapped file's name taken for a library's (record/attach_internal.h):
 * the soname, the name without its version, and glibc's files before
 * 2.34, which the soname links to (a bullseye container's libc-2.31.so),
 * and nothing that only begins alike.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "record/attach.h"
#include "record/attach_internal.h"

static void test_lib_names(void **state)
{
	(void)state;
	assert_true(lib_name_matches("libc.so.6", "libc.so.6"));
	assert_true(lib_name_matches("libc.so.6", "libc"));
	assert_true(lib_name_matches("libc-2.36.so", "libc"));
	assert_true(lib_name_matches("libc-2.31.so", "libc.so.6"));
	assert_true(lib_name_matches("libpthread-2.28.so", "libpthread.so.0"));
	assert_true(lib_name_matches("libtcmalloc.so.4.5.9", "libtcmalloc.so.4"));
	assert_false(lib_name_matches("libcrypt.so.1", "libc.so.6"));
	assert_false(lib_name_matches("libc.so", "libc.so.6"));
	assert_false(lib_name_matches("libc-.so", "libc.so.6"));
	assert_false(lib_name_matches("libc-2.31.so.bak", "libc.so.6"));
	assert_false(lib_name_matches("libc-x.so", "libc.so.6"));
	assert_false(lib_name_matches("libcap-2.so", "libc.so.6"));
	assert_false(lib_name_matches("libtcmalloc_minimal.so.4", "libtcmalloc.so.4"));
	assert_false(lib_name_matches("", "libc.so.6"));
}

/* The allocators -e alloc attaches late, by a mapping's path. */
static void test_alloc_libs(void **state)
{
	(void)state;
	assert_true(attach_alloc_is_lib("/usr/lib/x86_64-linux-gnu/libc.so.6"));
	assert_true(attach_alloc_is_lib("/lib/x86_64-linux-gnu/libc-2.31.so"));
	assert_true(attach_alloc_is_lib("/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"));
	assert_true(attach_alloc_is_lib("/usr/lib/libtcmalloc_minimal.so.4.5.9"));
	assert_false(attach_alloc_is_lib("/usr/lib/x86_64-linux-gnu/libm.so.6"));
	assert_false(attach_alloc_is_lib("/usr/bin/python3.11"));
	assert_false(attach_alloc_is_lib("libc.so.6.d/x"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lib_names),
		cmocka_unit_test(test_alloc_libs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
