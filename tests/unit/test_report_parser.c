// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for the libstitch-stall report parser (stitch symbolize's input):
 * every line kind as the library writes it, paths with spaces and '+',
 * and lines that are almost report lines, which must pass through as
 * STALL_LINE_OTHER.  Every line is parsed from an exact-size heap copy
 * without its NUL, so ASan catches any read past the end.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "stalls/stall_report_parser.h"

static enum stall_line_kind parse(const char *text, struct stall_line *l)
{
	size_t n = strlen(text);
	char *copy = malloc(n ? n : 1);
	enum stall_line_kind k;

	assert_non_null(copy);
	memcpy(copy, text, n);
	k = stall_log_parse(copy, n, l);
	free(copy);
	return k;
}

static void test_header(void **state)
{
	struct stall_line l;

	assert_int_equal(parse("stitch-stall: tid=1234 comm=worker stall=40ms clock=cpu "
			       "threshold=20ms suppressed=0\n", &l), STALL_LINE_HEADER);
	assert_int_equal(l.tid, 1234);
	assert_string_equal(l.comm, "worker");
	assert_int_equal(l.stall_ms, 40);
	assert_int_equal(l.threshold_ms, 20);
	/* lost= and clock=wall, no newline */
	assert_int_equal(parse("stitch-stall: tid=7 comm=a;b stall=1945ms clock=wall "
			       "threshold=20ms suppressed=3 lost=159", &l), STALL_LINE_HEADER);
	assert_int_equal(l.tid, 7);
	assert_string_equal(l.comm, "a;b");
	assert_int_equal(l.stall_ms, 1945);
	/* An empty comm is still a report. */
	assert_int_equal(parse("stitch-stall: tid=7 comm= stall=20ms\r\n", &l), STALL_LINE_HEADER);
	assert_string_equal(l.comm, "");
}

static void test_comm_bounded(void **state)
{
	char line[512];
	struct stall_line l;

	snprintf(line, sizeof(line), "stitch-stall: tid=1 comm=%0200d stall=20ms", 0);
	assert_int_equal(parse(line, &l), STALL_LINE_HEADER);
	assert_int_equal(strlen(l.comm), STALL_LOG_COMM_MAX - 1);
}

static void test_suppressed_note(void **state)
{
	struct stall_line l;

	assert_int_equal(parse("stitch-stall: tid=99 suppressed=4 (reports over the per-minute "
			       "limit, not written)\n", &l), STALL_LINE_SUPPRESSED);
	assert_int_equal(l.tid, 99);
}

static void test_bad_headers(void **state)
{
	static const char *const bad[] = {
		"stitch-stall: comm=x tid=1 stall=20ms",	/* tid not first */
		"stitch-stall: tid=1 comm=x",			/* no stall */
		"stitch-stall: tid=1 comm=x stall=20",		/* no ms */
		"stitch-stall: tid=1 comm=x stall=ms",
		"stitch-stall: tid=x comm=x stall=20ms",
		"stitch-stall: tid=99999999999 comm=x stall=20ms",	/* > 2^32 */
		"stitch-stall: tid=1 comm=x stall=20ms bogus=1",
		"stitch-stall: tid=1 comm=x stall=4294967296ms",
		"stitch-stall:tid=1 stall=20ms",
		" stitch-stall: tid=1 stall=20ms",
		"stitch-stall: ",
		"stitch-stall: tid=",
		"",
	};
	struct stall_line l;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse(bad[i], &l) != STALL_LINE_OTHER)
			fail_msg("accepted: '%s'", bad[i]);
		assert_int_equal(l.tid, 0);	/* nothing half-parsed is left */
	}
}

static void test_kernel(void **state)
{
	struct stall_line l;

	assert_int_equal(parse("  kernel 0xffffffff8a2b3c4d\n", &l), STALL_LINE_KERNEL);
	assert_true(l.addr == 0xffffffff8a2b3c4dull);
	assert_int_equal(parse("  kernel 0x1", &l), STALL_LINE_KERNEL);
	assert_true(l.addr == 1);
	assert_int_equal(parse("  kernel 0x1ffffffff8a2b3c4d", &l), STALL_LINE_OTHER);	/* 17 digits */
	assert_int_equal(parse("  kernel 0x", &l), STALL_LINE_OTHER);
	assert_int_equal(parse("  kernel 0xfff name", &l), STALL_LINE_OTHER);
	assert_int_equal(parse("  kernel ffff", &l), STALL_LINE_OTHER);
	/* Already symbolized output is not parsed again as an address. */
	assert_int_equal(parse("  kernel clear_page_erms+0x7 (0xffffffff821e83a7)", &l),
			 STALL_LINE_OTHER);
}

static void test_user(void **state)
{
	struct stall_line l;

	assert_int_equal(parse("  user /usr/bin/server+0x1a2b build-id=0123ABCDef\n", &l),
			 STALL_LINE_USER);
	assert_string_equal(l.path, "/usr/bin/server");
	assert_true(l.addr == 0x1a2b);
	assert_string_equal(l.build_id, "0123abcdef");	/* lower case */
	/* No build-id. */
	assert_int_equal(parse("  user /lib/libc.so.6+0x271c9", &l), STALL_LINE_USER);
	assert_string_equal(l.path, "/lib/libc.so.6");
	assert_string_equal(l.build_id, "");
	/* Spaces and "+0x" inside the path: the last one splits. */
	assert_int_equal(parse("  user /opt/my app/a+0x1/lib x.so+0x10 build-id=ab", &l),
			 STALL_LINE_USER);
	assert_string_equal(l.path, "/opt/my app/a+0x1/lib x.so");
	assert_true(l.addr == 0x10);
	/* Outside any module. */
	assert_int_equal(parse("  user 0x7f001234", &l), STALL_LINE_USER_RAW);
	assert_true(l.addr == 0x7f001234);
}

static void test_bad_user(void **state)
{
	static const char *const bad[] = {
		"  user +0x10",				/* no path */
		"  user /x+0x",				/* no offset */
		"  user /x+0xzz",
		"  user /x+0x10 build-id=",		/* empty build-id */
		"  user /x+0x10 build-id=xyz",
		"  user /x+0x10 junk",
		"  user /x",
		"  user ",
		"  user 0x",
		"  user spin_for_stall stall_loop.c:65 (/b/stall_loop+0x309d)",
	};
	struct stall_line l;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (parse(bad[i], &l) != STALL_LINE_OTHER)
			fail_msg("accepted: '%s' as %d", bad[i], l.kind);
}

static void test_long_build_id_and_path(void **state)
{
	char *line = malloc(2 * STALL_LOG_PATH_MAX);
	struct stall_line l;

	assert_non_null(line);
	snprintf(line, 256, "  user /x+0x10 build-id=%0*d", STALL_LOG_BUILD_ID_MAX, 0);
	assert_int_equal(parse(line, &l), STALL_LINE_USER);
	snprintf(line, 256, "  user /x+0x10 build-id=%0*d", STALL_LOG_BUILD_ID_MAX + 1, 0);
	assert_int_equal(parse(line, &l), STALL_LINE_OTHER);
	/* A path that does not fit is refused, not cut. */
	memcpy(line, "  user /", 8);
	memset(line + 8, 'a', STALL_LOG_PATH_MAX);
	strcpy(line + 8 + STALL_LOG_PATH_MAX, "+0x10");
	assert_int_equal(parse(line, &l), STALL_LINE_OTHER);
	free(line);
}

static void test_nul_in_path(void **state)
{
	static const char line[] = "  user /a\0b+0x10";
	struct stall_line l;

	assert_int_equal(stall_log_parse(line, sizeof(line) - 1, &l), STALL_LINE_OTHER);
}

static void test_stop_lines(void **state)
{
	struct stall_line l;

	assert_int_equal(parse("  user-stop no-cfi\n", &l), STALL_LINE_STOP);
	assert_int_equal(parse("  [cut]\n", &l), STALL_LINE_STOP);
	assert_int_equal(parse("  [cut] more", &l), STALL_LINE_OTHER);
	assert_int_equal(parse("server log line", &l), STALL_LINE_OTHER);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_comm_bounded),
		cmocka_unit_test(test_suppressed_note),
		cmocka_unit_test(test_bad_headers),
		cmocka_unit_test(test_kernel),
		cmocka_unit_test(test_user),
		cmocka_unit_test(test_bad_user),
		cmocka_unit_test(test_long_build_id_and_path),
		cmocka_unit_test(test_nul_in_path),
		cmocka_unit_test(test_stop_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
