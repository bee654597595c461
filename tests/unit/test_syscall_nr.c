// SPDX-License-Identifier: GPL-2.0
/*
 * System call numbers by name (record/syscall_nr.c), the table made from the
 * compiler's <asm/unistd.h>: the raw sys_enter path matches events by them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <cmocka.h>

#include "record/syscall_nr.h"

static void test_known_names(void **state)
{
	assert_int_equal(syscall_nr_of("getppid"), SYS_getppid);
	assert_int_equal(syscall_nr_of("read"), SYS_read);
	assert_int_equal(syscall_nr_of("openat"), SYS_openat);
	assert_int_equal(syscall_nr_of("clock_nanosleep"), SYS_clock_nanosleep);
	assert_int_equal(syscall_nr_of("io_uring_enter"), SYS_io_uring_enter);
}

static void test_unknown_names(void **state)
{
	assert_int_equal(syscall_nr_of("nosuchcall"), -1);
	assert_int_equal(syscall_nr_of(""), -1);
	/* Names, not prefixes: sys_enter_ is the caller's to cut. */
	assert_int_equal(syscall_nr_of("sys_enter_getppid"), -1);
	assert_int_equal(syscall_nr_of("getppi"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_names),
		cmocka_unit_test(test_unknown_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
