// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for the commands' shared option parsing (util/cli.c): the walk over
 * the options, numbers, times in either default unit, -p lists and the one-target
 * rule.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "util/cli.h"

static void usage(FILE *f)
{
	fputs("Usage: stitch test\n", f);
}

static const struct option longopts[] = {
	{ "value", required_argument, NULL, 'v' },
	{ "flag", no_argument, NULL, 256 },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const struct cli_cmd test_cmd = { "test", usage, "+v:h", longopts };

/* What take_opt saw, and what it answers. */
struct seen {
	int opts[8];
	const char *args[8];
	int n;
	int answer;
};

static int take_opt(void *ctx, int opt, const char *arg)
{
	struct seen *s = ctx;

	s->opts[s->n] = opt;
	s->args[s->n++] = arg;
	return s->answer;
}

static void test_parse_walks_options(void **state)
{
	char *argv[] = { "test", "-v", "one", "--flag", "--value=two", "operand", "-v", NULL };
	struct seen s = { 0 };

	assert_int_equal(cli_parse(&test_cmd, 7, argv, take_opt, &s), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.opts[0], 'v');
	assert_string_equal(s.args[0], "one");
	assert_int_equal(s.opts[1], 256);
	assert_null(s.args[1]);
	assert_string_equal(s.args[2], "two");
	/* '+': the operands start at the first one, the rest is theirs. */
	assert_int_equal(optind, 5);
	assert_string_equal(argv[optind], "operand");
}

static void test_parse_stops(void **state)
{
	char *bad[] = { "test", "--nosuch", "-v", "x", NULL };
	char *refused[] = { "test", "-v", "x", "-v", "y", NULL };
	struct seen s = { .answer = 0 };

	/* getopt_long refuses it: a usage error, take never called. */
	opterr = 0;
	assert_int_equal(cli_parse(&test_cmd, 4, bad, take_opt, &s), 2);
	opterr = 1;
	assert_int_equal(s.n, 0);
	/* take's first non-zero answer ends the walk. */
	s.answer = 7;
	assert_int_equal(cli_parse(&test_cmd, 5, refused, take_opt, &s), 7);
	assert_int_equal(s.n, 1);
}

static void test_numbers(void **state)
{
	double v = -1;

	/* Decimals in [min, max], nothing after: -d, --max-table-mb. */
	assert_true(cli_parse_double("2.5", 0, 1e7, &v));
	assert_true(v == 2.5);
	assert_true(cli_parse_double("0", 0, 1e7, &v));
	assert_true(v == 0);
	assert_false(cli_parse_double("0.001", 0.01, 65536, &v));
	assert_false(cli_parse_double("1e8", 0, 1e7, &v));
	assert_false(cli_parse_double("2s", 0, 1e7, &v));
	assert_false(cli_parse_double("", 0, 1e7, &v));
	assert_false(cli_parse_double("nan", 0, 1e7, &v));
	assert_true(v == 0);
}

static void test_durations(void **state)
{
	double v = -1;

	/* -d: seconds alone, or with a unit; an agent's days fit. */
	assert_true(cli_parse_duration("30", 1e7, &v));
	assert_true(v == 30);
	assert_true(cli_parse_duration("2.5", 1e7, &v));
	assert_true(v == 2.5);
	assert_true(cli_parse_duration("30s", 1e7, &v));
	assert_true(v == 30);
	assert_true(cli_parse_duration("2m", 1e7, &v));
	assert_true(v == 120);
	assert_true(cli_parse_duration("1.5h", 1e7, &v));
	assert_true(v == 5400);
	assert_true(cli_parse_duration("500ms", 1e7, &v));
	assert_true(v == 0.5);
	assert_true(cli_parse_duration("48h", 1e7, &v));
	assert_true(v == 48 * 3600);
	v = -1;
	assert_false(cli_parse_duration("0", 1e7, &v));
	assert_false(cli_parse_duration("0s", 1e7, &v));
	assert_false(cli_parse_duration("-1", 1e7, &v));
	assert_false(cli_parse_duration("3000h", 1e7, &v));
	assert_false(cli_parse_duration("2 m", 1e7, &v));
	assert_false(cli_parse_duration("2min", 1e7, &v));
	assert_false(cli_parse_duration("m", 1e7, &v));
	assert_false(cli_parse_duration("", 1e7, &v));
	assert_false(cli_parse_duration("nan", 1e7, &v));
	assert_false(cli_parse_duration("infs", 1e7, &v));
	assert_true(v == -1);
}

static void test_times(void **state)
{
	/* Milliseconds by default, 1us to 1h. */
	assert_int_equal(cli_parse_time("50"), 50000000);
	assert_int_equal(cli_parse_time("500us"), 500000);
	assert_int_equal(cli_parse_time("0.2s"), 200000000);
	assert_int_equal(cli_parse_time("1h"), 3600000000000ull);
	assert_int_equal(cli_parse_time("5m"), 300000000000ull);
	assert_int_equal(cli_parse_time("0.5m"), 30000000000ull);
	assert_int_equal(cli_parse_time("61m"), 0);
	assert_int_equal(cli_parse_time("1.5h"), 0);
	assert_int_equal(cli_parse_time("5min"), 0);
	assert_int_equal(cli_parse_time("3600s"), 3600000000000ull);
	assert_int_equal(cli_parse_time("3601s"), 0);
	assert_int_equal(cli_parse_time("0.5us"), 0);
	assert_int_equal(cli_parse_time("x"), 0);
	assert_int_equal(cli_parse_time("-1ms"), 0);
	assert_int_equal(cli_parse_time("1ms "), 0);
	/* Seconds by default and no floor: snapshot's --interval. */
	assert_int_equal(cli_parse_time_in("1.5", 1000000000, 0), 1500000000);
	assert_int_equal(cli_parse_time_in("100ms", 1000000000, 0), 100000000);
	assert_int_equal(cli_parse_time_in("0.5us", 1000000000, 0), 500);
	assert_int_equal(cli_parse_time_in("3601", 1000000000, 0), 0);
	assert_int_equal(cli_parse_time_in("0", 1000000000, 0), 0);
}

/* Keeps the pids it is given; refuses the one it is told to. */
struct kept {
	long pids[4];
	int n;
	long refuse;
};

static int keep(void *ctx, long pid)
{
	struct kept *k = ctx;

	if (pid == k->refuse || k->n == 4)
		return -1;
	k->pids[k->n++] = pid;
	return 0;
}

static void test_pid_lists(void **state)
{
	long me = getpid();
	char list[64];
	struct kept k = { .refuse = -1 };

	snprintf(list, sizeof(list), "1,%ld", me);
	assert_int_equal(cli_parse_pids("test", list, NULL, keep, &k), 0);
	assert_int_equal(k.n, 2);
	assert_int_equal(k.pids[0], 1);
	assert_int_equal(k.pids[1], me);
	/* A token that is no pid is a usage error; those before it were kept. */
	k.n = 0;
	assert_int_equal(cli_parse_pids("test", "1,x,2", NULL, keep, &k), 2);
	assert_int_equal(k.n, 1);
	assert_int_equal(cli_parse_pids("test", "0", NULL, keep, &k), 2);
	/* No such process, or one take refuses: 1. */
	assert_int_equal(cli_parse_pids("test", "999999999", " (hint)", keep, &k), 1);
	k.refuse = me;
	snprintf(list, sizeof(list), "%ld", me);
	assert_int_equal(cli_parse_pids("test", list, NULL, keep, &k), 1);
	/* Only checked, and a bad token said plainly: 1, not a usage error. */
	assert_int_equal(cli_check_pids("test", list), 0);
	assert_int_equal(cli_check_pids("test", "1,x"), 1);
	assert_int_equal(cli_check_pids("test", "999999999"), 1);
}

static void test_one_target(void **state)
{
	assert_int_equal(cli_one_target("test", 1, "what to test", "-p PID, -a"), 0);
	assert_int_equal(cli_one_target("test", 0, "what to test", "-p PID, -a"), 2);
	assert_int_equal(cli_one_target("test", 2, "what to test", "-p PID, -a"), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_walks_options),
		cmocka_unit_test(test_parse_stops),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_times),
		cmocka_unit_test(test_pid_lists),
		cmocka_unit_test(test_one_target),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
