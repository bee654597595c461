// SPDX-License-Identifier: GPL-2.0
/*
 * The parsing of the debuginfod client's settings (debuginfod_fetch.c):
 * DEBUGINFOD_URLS and DEBUGINFOD_TIMEOUT; which server failed a query, from
 * libdebuginfod's verbose lines (debuginfod_blame.c), on lines elfutils
 * 0.188 wrote here (a small program calling debuginfod_find_debuginfo with
 * debuginfod_set_verbose_fd, against a listener that never answers, a real
 * debuginfod without the file, a closed port, and one with the file).  The
 * client itself is tested against a real debuginfod in
 * tests/integration/debuginfo.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "symbolize/debuginfod_fetch.h"
#include "symbolize/debuginfod_query.h"

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

/* A server given up: 5 min, 10, 20, 40, then every hour; a build-id: 1 min .. 1 h. */
static void test_retry_backoff(void **state)
{
	assert_true(debuginfod_retry_after(1, DEBUGINFOD_SERVER_RETRY_S,
					   DEBUGINFOD_SERVER_RETRY_MAX_S) == 300.0);
	assert_true(debuginfod_retry_after(2, DEBUGINFOD_SERVER_RETRY_S,
					   DEBUGINFOD_SERVER_RETRY_MAX_S) == 600.0);
	assert_true(debuginfod_retry_after(4, DEBUGINFOD_SERVER_RETRY_S,
					   DEBUGINFOD_SERVER_RETRY_MAX_S) == 2400.0);
	assert_true(debuginfod_retry_after(5, DEBUGINFOD_SERVER_RETRY_S,
					   DEBUGINFOD_SERVER_RETRY_MAX_S) == 3600.0);
	/* No overflow however often it failed. */
	assert_true(debuginfod_retry_after(100000, DEBUGINFOD_SERVER_RETRY_S,
					   DEBUGINFOD_SERVER_RETRY_MAX_S) == 3600.0);
	assert_true(debuginfod_retry_after(1, DEBUGINFOD_ID_RETRY_S,
					   DEBUGINFOD_ID_RETRY_MAX_S) == 60.0);
	assert_true(debuginfod_retry_after(7, DEBUGINFOD_ID_RETRY_S,
					   DEBUGINFOD_ID_RETRY_MAX_S) == 3600.0);
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

#define ID "35ad3d6412ceddd74f0fde0d0291e1198cb92cc1"

/* Silent (timed out), without the file (404), closed port (refused). */
static const char three_servers[] =
	"debuginfod_find_debuginfo " ID "\n"
	"server urls \"http://127.0.0.1:57041 http://127.0.0.1:42051 http://127.0.0.1:1\"\n"
	"checking build-id\n"
	"checking cache dir /tmp/dbgd-vc\n"
	"using timeout 2\n"
	"init server 0 http://127.0.0.1:57041/buildid\n"
	"url 0 http://127.0.0.1:57041/buildid/" ID "/debuginfo\n"
	"init server 1 http://127.0.0.1:42051/buildid\n"
	"url 1 http://127.0.0.1:42051/buildid/" ID "/debuginfo\n"
	"init server 2 http://127.0.0.1:1/buildid\n"
	"url 2 http://127.0.0.1:1/buildid/" ID "/debuginfo\n"
	"query 3 urls in parallel\n"
	"header HTTP/1.1 404 Not Found\n"
	"header Content-Length: 9\n"
	"header \n"
	"server response HTTP response code said error\n"
	"url 1 The requested URL returned error: 404\n"
	"server response Couldn't connect to server\n"
	"url 2 Failed to connect to 127.0.0.1 port 1 after 0 ms: Couldn't connect to server\n"
	"server response Timeout was reached\n"
	"url 0 Operation too slow. Less than 102400 bytes/sec transferred the last 2 seconds\n"
	"not found Timer expired (err=-62)\n";

/* The silent server (with a trailing '/') beside one that has the file. */
static const char found_beside_silent[] =
	"server urls \"http://127.0.0.1:57041/ http://127.0.0.1:54643\"\n"
	"init server 0 http://127.0.0.1:57041/buildid\n"
	"url 0 http://127.0.0.1:57041/buildid/" ID "/debuginfo\n"
	"init server 1 http://127.0.0.1:54643/buildid\n"
	"url 1 http://127.0.0.1:54643/buildid/" ID "/debuginfo\n"
	"query 2 urls in parallel\n"
	"header HTTP/1.1 200 OK\n"
	"committed to url 1\n"
	"server response No error\n"
	"got file from server\n";

static void set_urls(const char *a, const char *b, const char *c)
{
	memset(urls, 0, sizeof(urls));
	strcpy(urls[0], a);
	strcpy(urls[1], b);
	strcpy(urls[2], c);
}

static unsigned int blame(const char *text, unsigned int asked, bool stalled)
{
	return di_blame(text, strlen(text), (const char (*)[DEBUGINFOD_URL_MAX])urls, asked,
			stalled);
}

static void test_blame_timeout_and_refused_not_404(void **state)
{
	set_urls("http://127.0.0.1:57041", "http://127.0.0.1:42051", "http://127.0.0.1:1");
	assert_int_equal(blame(three_servers, 7, false), 1u << 0 | 1u << 2);
	/* A server not in the query is never blamed, whatever the lines say. */
	assert_int_equal(blame(three_servers, 1u << 1, false), 0);
	/* Bit i is urls[i] even when the query's own indices differ. */
	set_urls("http://127.0.0.1:1", "http://127.0.0.1:57041", "http://127.0.0.1:42051");
	assert_int_equal(blame(three_servers, 7, false), 1u << 0 | 1u << 1);
}

static void test_blame_stalled_cut(void **state)
{
	size_t cut = strstr(three_servers, "query 3 urls") - three_servers;
	char text[sizeof(three_servers)];

	/* We cut the query before any server ended: all that had not answered. */
	memcpy(text, three_servers, cut);
	text[cut] = '\0';
	set_urls("http://127.0.0.1:57041", "http://127.0.0.1:42051", "http://127.0.0.1:1");
	assert_int_equal(blame(text, 7, true), 7);
	assert_int_equal(blame(text, 7, false), 0);
	/* The file found: the silent server's dropped transfer is no failure. */
	set_urls("http://127.0.0.1:57041/", "http://127.0.0.1:54643", "");
	assert_int_equal(blame(found_beside_silent, 3, false), 0);
	/* Cut while stalled after the winner's end: the other one had not answered. */
	assert_int_equal(blame(found_beside_silent, 3, true), 1u << 0);
}

static void test_blame_other_lines(void **state)
{
	set_urls("http://127.0.0.1:57041", "http://127.0.0.1:42051", "http://127.0.0.1:1");
	assert_int_equal(blame("", 7, true), 0);
	assert_int_equal(blame("server response Timeout was reached\nurl 99 x\nurl -1 y\n"
			       "url 0\nurl 0http://127.0.0.1:57041/buildid/x\n", 7, false), 0);
	/* A URL that only starts like a server's is not that server's. */
	assert_int_equal(blame("url 0 http://127.0.0.1:570410/buildid/" ID "/debuginfo\n", 7, true),
			 0);
	/* No newline at the end: the last line still counts. */
	assert_int_equal(blame("url 0 http://127.0.0.1:57041/buildid/x\nserver response "
			       "Timeout was reached\nurl 0 slow", 7, false), 1u << 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_urls_split_on_blanks),
		cmocka_unit_test(test_urls_empty_and_capped),
		cmocka_unit_test(test_urls_too_long_skipped),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_retry_backoff),
		cmocka_unit_test(test_blame_timeout_and_refused_not_404),
		cmocka_unit_test(test_blame_stalled_cut),
		cmocka_unit_test(test_blame_other_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
