// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for the options record, stalls and latency share (record/run_opts.c):
 * one table parsed into the engine's typed options, a command's own options
 * beside them, only the shared ones a command takes, -p's processes taken
 * as thread groups, now or once the outputs are checked.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>

#include "capture/capture.h"
#include "formats/output.h"
#include "capture/unwind_in_kernel.h"
#include "record/run_opts.h"

static void usage(FILE *f)
{
	fputs("Usage: stitch test\n", f);
}

static const struct option own_longopts[] = {
	{ "threshold", required_argument, NULL, 't' },
	{ "top", required_argument, NULL, 256 },
	{ NULL, 0, NULL, 0 },
};

/* The command's own options: what it saw. */
struct own {
	const char *threshold;
	const char *top;
};

static int take_own(void *ctx, int c, const char *arg)
{
	struct own *own = ctx;

	if (c == 't')
		own->threshold = arg;
	else if (c == 256)
		own->top = arg;
	return 0;
}

static const struct run_cmd all_shared = {
	.name = "test",
	.usage = usage,
	.shared = RUN_OPT_PID | RUN_OPT_ALL | RUN_OPT_FREQ | RUN_OPT_DURATION | RUN_OPT_OUTPUT |
		  RUN_OPT_WAKERS,
	.default_freq = 999,
	.shortopts = "t:",
	.longopts = own_longopts,
	.take = take_own,
	.json_outputs = true,
	.target_what = "what",
	.target_choices = "-p PID, -a, or -- COMMAND",
};

/* Like stalls: no -a, no --wakers; -p looked at once the outputs are checked. */
static const struct run_cmd few_shared = {
	.name = "test",
	.usage = usage,
	.shared = RUN_OPT_PID | RUN_OPT_FREQ | RUN_OPT_OUTPUT,
	.default_freq = 99,
	.shortopts = "t:",
	.longopts = own_longopts,
	.take = take_own,
	.pids_after_outputs = true,
	.target_what = "what",
	.target_choices = "-p PID, or -- COMMAND",
};

struct parsed {
	struct record_opts o;
	struct run_outputs out;
	struct run_args a;
	struct own own;
};

static struct parsed *parse(const struct run_cmd *cmd, char **argv, int *rc)
{
	struct parsed *p = calloc(1, sizeof(*p));
	int argc = 0;

	assert_non_null(p);
	p->a.o = &p->o;
	p->a.out = &p->out;
	while (argv[argc])
		argc++;
	*rc = run_opts_parse(cmd, argc, argv, &p->a, &p->own);
	return p;
}

static void test_typed_options_and_own(void **state)
{
	char tid[32], *argv[] = { "test", "-p", tid, "-F", "49", "--duration", "2.5", "-t", "5ms",
				  "--wakers", "-o", "x.json", "--output=y.svg", "--force",
				  "--top", "7", NULL };
	struct parsed *p;
	int rc;

	/* A thread's id is taken as its process. */
	snprintf(tid, sizeof(tid), "%ld", (long)syscall(SYS_gettid));
	p = parse(&all_shared, argv, &rc);
	assert_int_equal(rc, 0);
	assert_int_equal(p->o.target.npids, 1);
	assert_int_equal(p->o.target.pids[0], (uint32_t)getpid());
	assert_false(p->o.target.all);
	assert_null(p->o.target.command);
	assert_int_equal(p->o.freq, 49);
	assert_true(p->o.duration == 2.5);
	assert_true(p->o.wakers);
	assert_int_equal(p->out.n, 2);
	assert_string_equal(p->out.paths[0], "x.json");
	assert_int_equal(p->out.formats[0], OUTPUT_JSON);
	assert_string_equal(p->out.paths[1], "y.svg");
	assert_true(p->out.force);
	assert_string_equal(p->own.threshold, "5ms");
	assert_string_equal(p->own.top, "7");
	/* The engine's defaults under what was said. */
	assert_int_equal(p->o.unwind_mode, KUNWIND_MODE_KERNEL);
	assert_int_equal(p->o.stack_bytes, STITCH_DEFAULT_USTACK);
	assert_int_equal(run_target_check(&all_shared, &p->a), 0);
	free(p);
}

static void test_command_and_defaults(void **state)
{
	char *argv[] = { "test", "-a", "--", "sleep", "1", NULL };
	struct parsed *p;
	int rc;

	p = parse(&all_shared, argv, &rc);
	assert_int_equal(rc, 0);
	assert_true(p->o.target.all);
	assert_non_null(p->o.target.command);
	assert_string_equal(p->o.target.command[0], "sleep");
	assert_int_equal(p->o.freq, 999);
	assert_true(p->o.duration == 0);
	assert_int_equal(p->out.n, 0);
	/* -a and a command: two targets. */
	assert_int_equal(run_target_check(&all_shared, &p->a), 2);
	free(p);
}

static void test_bad_values_are_usage_errors(void **state)
{
	char *bad_freq[] = { "test", "-F", "0", NULL };
	char *bad_duration[] = { "test", "-d", "0", NULL };
	char *bad_pid[] = { "test", "-p", "1,x", NULL };
	char *bad_output[] = { "test", "-o", "x.bin", NULL };
	struct parsed *p;
	int rc;

	free(parse(&all_shared, bad_freq, &rc));
	assert_int_equal(rc, 2);
	free(parse(&all_shared, bad_duration, &rc));
	assert_int_equal(rc, 2);
	free(parse(&all_shared, bad_pid, &rc));
	assert_int_equal(rc, 2);
	p = parse(&all_shared, bad_output, &rc);
	assert_int_equal(rc, 2);
	free(p);
}

static void test_only_the_shared_options_taken(void **state)
{
	char *all[] = { "test", "-a", NULL };
	char *wakers[] = { "test", "--wakers", NULL };
	char *duration[] = { "test", "-d", "1", NULL };
	int rc;

	free(parse(&few_shared, all, &rc));
	assert_int_equal(rc, 2);
	free(parse(&few_shared, wakers, &rc));
	assert_int_equal(rc, 2);
	free(parse(&few_shared, duration, &rc));
	assert_int_equal(rc, 2);
}

static void test_pids_after_outputs(void **state)
{
	char pid[32], *argv[] = { "test", "-p", pid, NULL };
	char *bad[] = { "test", "-p", "1,x", NULL };
	struct parsed *p;
	int rc;

	snprintf(pid, sizeof(pid), "%d", getpid());
	p = parse(&few_shared, argv, &rc);
	assert_int_equal(rc, 0);
	assert_int_equal(p->o.freq, 99);
	/* Kept until run_opts_ready, yet a target already. */
	assert_int_equal(p->o.target.npids, 0);
	assert_string_equal(p->a.pid_list, pid);
	assert_int_equal(run_target_check(&few_shared, &p->a), 0);
	/* Then taken, whatever the privileges check says after. */
	run_opts_ready(&few_shared, &p->a);
	assert_int_equal(p->o.target.npids, 1);
	assert_int_equal(p->o.target.pids[0], (uint32_t)getpid());
	free(p);
	/* Not a usage error here: said plainly once the outputs are checked (1). */
	p = parse(&few_shared, bad, &rc);
	assert_int_equal(rc, 0);
	assert_int_equal(run_opts_ready(&few_shared, &p->a), 1);
	assert_int_equal(p->o.target.npids, 0);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_typed_options_and_own),
		cmocka_unit_test(test_command_and_defaults),
		cmocka_unit_test(test_bad_values_are_usage_errors),
		cmocka_unit_test(test_only_the_shared_options_taken),
		cmocka_unit_test(test_pids_after_outputs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
