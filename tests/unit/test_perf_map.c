// SPDX-License-Identifier: GPL-2.0
/* The perf map parser (symbolize/perf_map.h): lines, overlaps, bounds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "symbolize/perf_map.h"

static void feed(struct perf_map *pm, const char *s)
{
	assert_int_equal(perf_map_feed(pm, s, strlen(s)), 0);
}

static void expect(struct perf_map *pm, uint64_t addr, const char *name)
{
	const char *got = perf_map_find(pm, addr);

	if (!name)
		assert_null(got);
	else
		assert_string_equal(got, name);
}

/* V8's and HotSpot's lines: hex with and without 0x, names with spaces. */
static void test_lines(void **state)
{
	struct perf_map pm;

	perf_map_init(&pm);
	feed(&pm, "7efc8c023400 378 JS:~outer /tmp/jit/chain.js:3:15\n"
		  "0x7f0001000 0x40 Interpreter\n"
		  "18c4000 300 Builtin:DeoptimizationEntry_Eager\r\n");
	expect(&pm, 0x7efc8c023400, "JS:~outer /tmp/jit/chain.js:3:15");
	expect(&pm, 0x7efc8c023777, "JS:~outer /tmp/jit/chain.js:3:15");
	expect(&pm, 0x7efc8c023778, NULL);
	expect(&pm, 0x7efc8c0233ff, NULL);
	expect(&pm, 0x7f000103f, "Interpreter");
	expect(&pm, 0x18c42ff, "Builtin:DeoptimizationEntry_Eager");
	assert_int_equal(pm.bad_lines, 0);
	perf_map_free(&pm);
}

/* Code moves and memory is reused: the later line names what it covers. */
static void test_later_wins(void **state)
{
	struct perf_map pm;

	perf_map_init(&pm);
	feed(&pm, "1000 100 old\n");
	feed(&pm, "1080 10 new\n");
	feed(&pm, "1000 8 newer\n");
	expect(&pm, 0x1000, "newer");
	expect(&pm, 0x1008, "old");
	expect(&pm, 0x107f, "old");
	expect(&pm, 0x1080, "new");
	expect(&pm, 0x108f, "new");
	expect(&pm, 0x1090, "old");
	expect(&pm, 0x10ff, "old");
	expect(&pm, 0x1100, NULL);
	/* Whole cover by a later, larger one. */
	feed(&pm, "f00 300 all\n");
	expect(&pm, 0x1080, "all");
	expect(&pm, 0x11ff, "all");
	expect(&pm, 0x1200, NULL);
	perf_map_free(&pm);
}

/* Lines split anywhere across reads; a line without its newline waits. */
static void test_split(void **state)
{
	struct perf_map pm;

	perf_map_init(&pm);
	feed(&pm, "2000 1");
	feed(&pm, "0 spl");
	expect(&pm, 0x2000, NULL);
	feed(&pm, "it\n3000 10 x");
	expect(&pm, 0x200f, "split");
	expect(&pm, 0x3000, NULL);
	feed(&pm, "\n");
	expect(&pm, 0x3000, "x");
	perf_map_free(&pm);
}

/* Untrusted input: malformed lines skipped, names cleaned and cut, long lines dropped. */
static void test_malformed(void **state)
{
	char longline[PERF_MAP_MAX_LINE + 100], name[PERF_MAP_MAX_NAME + 1];
	struct perf_map pm;

	perf_map_init(&pm);
	feed(&pm, "zz 10 bad start\n"
		  "1000 xyz size\n"
		  "1000 0 empty\n"
		  "1000 10\n"
		  "ffffffffffffffff 10 wraps\n"
		  "11112222333344445 10 too many digits\n"
		  " 1000 10 leading space\n"
		  "\n"
		  "4000 10 tab\there\x01\n");
	assert_int_equal(pm.bad_lines, 8);
	expect(&pm, 0x1000, NULL);
	expect(&pm, 0x4000, "tab?here?");
	memset(longline, 'a', sizeof(longline));
	memcpy(longline, "5000 10 ", 8);
	longline[sizeof(longline) - 1] = '\n';
	assert_int_equal(perf_map_feed(&pm, longline, sizeof(longline)), 0);
	feed(&pm, "6000 10 after\n");
	expect(&pm, 0x5000, NULL);
	expect(&pm, 0x6000, "after");
	memset(longline, 'b', PERF_MAP_MAX_LINE - 2);
	memcpy(longline, "7000 10 ", 8);
	longline[PERF_MAP_MAX_LINE - 2] = '\n';
	assert_int_equal(perf_map_feed(&pm, longline, PERF_MAP_MAX_LINE - 1), 0);
	memset(name, 'b', PERF_MAP_MAX_NAME);
	name[PERF_MAP_MAX_NAME] = '\0';
	expect(&pm, 0x7000, name);
	perf_map_free(&pm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_later_wins),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
