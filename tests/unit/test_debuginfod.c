// SPDX-License-Identifier: GPL-2.0
/*
 * The parsing of the debuginfod client's settings (debuginfod_fetch.c):
 * DEBUGINFOD_URLS and DEBUGINFOD_TIMEOUT.  The client itself is tested
 * against a real debuginfod in tests/integration/debuginfo.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "symbolize/debuginfod_fetch.h"

static char urls[DEBUGINFOD_MAX_SERVERS][DEBUGINFOD_URL_MAX];

static void test_urls_split_on_blanks(void **state)
{
	assert_int_equal(debuginfod_split_urls("  http://a:1 \thttps://b/x\n http://c  ", urls,
					       DEBUGINFOD_MAX_SERVERS), 3);
	assert_string_equal(urls[0], "http://a:1");
	assert_string_equal(urls[1], "https://b/x");
	assert_string_equal(urls[2], "http://c");
}

static void test_urls_empty_and_capped(void **state)
{
	assert_int_equal(debuginfod_split_urls(NULL, urls, DEBUGINFOD_MAX_SERVERS), 0);
	assert_int_equal(debuginfod_split_urls("", urls, DEBUGINFOD_MAX_SERVERS), 0);
	assert_int_equal(debuginfod_split_urls(" \t\n", urls, DEBUGINFOD_MAX_SERVERS), 0);
	assert_int_equal(debuginfod_split_urls("a b c d", urls, 2), 2);
	assert_string_equal(urls[1], "b");
}

static void test_urls_too_long_skipped(void **state)
{
	char env[DEBUGINFOD_URL_MAX + 64];

	memset(env, 'x', DEBUGINFOD_URL_MAX);
	memcpy(env + DEBUGINFOD_URL_MAX, " http://ok", sizeof(" http://ok"));
	assert_int_equal(debuginfod_split_urls(env, urls, DEBUGINFOD_MAX_SERVERS), 1);
	assert_string_equal(urls[0], "http://ok");
	/* One byte shorter fits (the NUL makes DEBUGINFOD_URL_MAX). */
	env[DEBUGINFOD_URL_MAX - 1] = ' ';
	assert_int_equal(debuginfod_split_urls(env, urls, DEBUGINFOD_MAX_SERVERS), 2);
	assert_int_equal(strlen(urls[0]), DEBUGINFOD_URL_MAX - 1);
}

static void test_timeout(void **state)
{
	assert_int_equal(debuginfod_parse_timeout(NULL), DEBUGINFOD_DEFAULT_TIMEOUT_S);
	assert_int_equal(debuginfod_parse_timeout(""), DEBUGINFOD_DEFAULT_TIMEOUT_S);
	assert_int_equal(debuginfod_parse_timeout("5"), 5);
	assert_int_equal(debuginfod_parse_timeout("0"), DEBUGINFOD_DEFAULT_TIMEOUT_S);
	assert_int_equal(debuginfod_parse_timeout("-3"), DEBUGINFOD_DEFAULT_TIMEOUT_S);
	assert_int_equal(debuginfod_parse_timeout("2s"), DEBUGINFOD_DEFAULT_TIMEOUT_S);
	assert_int_equal(debuginfod_parse_timeout("99999999999999999999"),
			 DEBUGINFOD_DEFAULT_TIMEOUT_S);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_urls_split_on_blanks),
		cmocka_unit_test(test_urls_empty_and_capped),
		cmocka_unit_test(test_urls_too_long_skipped),
		cmocka_unit_test(test_timeout),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
