// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for stitch snapshot's report: /proc's state letters from raw task
 * states, untrusted text escaped and bounded, grouping by state and frames
 * (sorted by count, then time since last ran), and JSON that a parser reads
 * back whatever the comm or frames hold; the rest of a stack read only
 * from a thread that has not run since.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "snapshot/snap_report.h"
#include "snapshot/stack_rest.h"

static void test_state_letters(void **state)
{
	(void)state;
	assert_int_equal(snap_state_letter(0, 0), 'R');
	assert_int_equal(snap_state_letter(1, 0), 'S');
	assert_int_equal(snap_state_letter(2, 0), 'D');
	assert_int_equal(snap_state_letter(4, 0), 'T');
	assert_int_equal(snap_state_letter(8, 0), 't');
	assert_int_equal(snap_state_letter(0, 16), 'X');
	assert_int_equal(snap_state_letter(0x80, 32), 'Z');	/* TASK_DEAD + EXIT_ZOMBIE */
	assert_int_equal(snap_state_letter(64, 0), 'P');
	assert_int_equal(snap_state_letter(0x402, 0), 'I');	/* TASK_IDLE */
	assert_int_equal(snap_state_letter(0x1000, 0), 'D');	/* RT lock wait */
	assert_int_equal(snap_state_letter(0x8000 | 1, 0), 'S');	/* frozen bit: not reported */
}

static void test_clean(void **state)
{
	char buf[16];

	(void)state;
	snap_clean(buf, sizeof(buf), "pipe:[123]", 100);
	assert_string_equal(buf, "pipe:[123]");
	snap_clean(buf, sizeof(buf), "a\nb\x1b", 100);
	assert_string_equal(buf, "a\\x0ab\\x1b");
	snap_clean(buf, sizeof(buf), "/a/very/long/path/name", 100);
	assert_string_equal(buf, "/a/very/long...");
	assert_int_equal(strlen(buf), sizeof(buf) - 1);
	/* srclen bounds an unterminated source (a readlink result). */
	snap_clean(buf, sizeof(buf), "abcdef", 3);
	assert_string_equal(buf, "abc");
	snap_clean(buf, 1, "abc", 3);
	assert_string_equal(buf, "");
}

static void set(struct snap_thread *t, uint32_t tid, char state, const char *stack,
		uint64_t since)
{
	memset(t, 0, sizeof(*t));
	t->pid = 100;
	t->tid = tid;
	strcpy(t->comm, "worker");
	t->state = state;
	t->stack = strdup(stack);
	t->since_ns = since;
}

static void test_grouping(void **state)
{
	struct snap_thread t[7];
	struct snap_group *g;
	int ng, i;

	(void)state;
	set(&t[0], 1, 'S', "a\nb\n", 5);
	set(&t[1], 2, 'S', "x\n", 1);
	set(&t[2], 3, 'S', "a\nb\n", 9);
	set(&t[3], 4, 'D', "a\nb\n", 3);	/* same frames, other state */
	set(&t[4], 5, 'S', "a\nb\n", 7);
	set(&t[5], 6, 'S', "y\n", 8);		/* ties x on count, ran longer ago */
	set(&t[6], 7, 'S', "x\n", 2);
	ng = snap_group_threads(t, 7, &g);
	assert_int_equal(ng, 4);
	assert_int_equal(g[0].count, 3);
	assert_int_equal(g[0].min_since, 5);
	assert_int_equal(g[0].max_since, 9);
	assert_int_equal(g[1].count, 2);	/* x: 2 threads */
	assert_int_equal(g[2].count, 1);	/* y (since 8) before D (since 3) */
	assert_int_equal(t[g[2].members[0]].tid, 6);
	assert_int_equal(t[g[3].members[0]].tid, 4);
	assert_int_equal(t[0].group, 0);
	assert_int_equal(t[2].group, 0);
	assert_int_equal(t[4].group, 0);
	assert_int_equal(t[1].group, 1);
	assert_int_equal(t[6].group, 1);
	assert_int_equal(t[3].group, 3);
	snap_groups_free(g, ng);
	for (i = 0; i < 7; i++)
		free(t[i].stack);
	assert_int_equal(snap_group_threads(t, 0, &g), 0);
	assert_null(g);
}

static void test_text_group_header(void **state)
{
	struct snap_thread t[2];
	struct snap_group *g;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int ng;

	(void)state;
	set(&t[0], 101, 'D', "io_schedule [k]\nhandle (server.c:87)\n", 2100000000ull);
	set(&t[1], 137, 'D', "io_schedule [k]\nhandle (server.c:87)\n", 4700000000ull);
	t[1].pid = 137;
	ng = snap_group_threads(t, 2, &g);
	snap_print_text(f, t, 2, g, ng, false);
	fclose(f);
	assert_non_null(strstr(buf, "2 threads (worker pids 100-137, tids 101-137) in D for "
				    "2.1-4.7 s (uninterruptible):\n"));
	assert_non_null(strstr(buf, "        io_schedule [k]\n        handle (server.c:87)\n"));
	free(buf);
	snap_groups_free(g, ng);
	free(t[0].stack);
	free(t[1].stack);
}

static void test_json_escapes(void **state)
{
	struct snap_thread t;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	set(&t, 7, 'S', "we\"ird\\ name\nmain (m.c:3)\n", 0);
	strcpy(t.comm, "a\"b");
	t.wait = strdup("read(fd 3: /tmp/<x>)");
	snap_print_json(f, &t);
	fclose(f);
	assert_non_null(strstr(buf, "\"comm\":\"a\\\"b\""));
	assert_non_null(strstr(buf, "\"state\":\"S\""));
	assert_non_null(strstr(buf, "\"frames\":[\"we\\\"ird\\\\ name\",\"main (m.c:3)\"]"));
	assert_non_null(strstr(buf, "\"wait\":\"read(fd 3: /tmp/\\u003cx\\u003e)\""));
	assert_non_null(strstr(buf, "\"note\":null"));
	free(buf);
	free(t.stack);
	free(t.wait);
}

/* A child that wrote a known pattern over 64 KiB of memory, then sleeps. */
static uint8_t pattern[64 * 1024];

static uint64_t cpu_ns_of(pid_t pid)
{
	char path[64];
	uint64_t ns = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", pid, pid);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%" SCNu64, &ns), 1);
	fclose(f);
	return ns;
}

static void test_stack_rest_only_if_not_run(void **state)
{
	const uint8_t copied[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	int ready[2], status;
	uint8_t *whole;
	size_t len = 0, i;
	uint64_t cpu;
	pid_t child;
	char c;

	(void)state;
	assert_int_equal(pipe(ready), 0);
	child = fork();
	assert_true(child >= 0);
	if (!child) {
		for (i = 0; i < sizeof(pattern); i++)
			pattern[i] = (uint8_t)(i * 7);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	assert_int_equal(read(ready[0], &c, 1), 1);
	usleep(50000);		/* asleep in pause() */
	cpu = cpu_ns_of(child);
	/* sp 8 bytes below the pattern: the copy, then the child's memory (same address here). */
	whole = stack_rest_read(child, child, cpu, (uint64_t)(uintptr_t)pattern - 8, copied,
				sizeof(copied), &len);
	assert_non_null(whole);
	assert_true(len >= sizeof(copied) + sizeof(pattern));
	assert_memory_equal(whole, copied, sizeof(copied));
	for (i = 0; i < sizeof(pattern); i++)
		if (whole[sizeof(copied) + i] != (uint8_t)(i * 7))
			fail_msg("byte %zu of the rest differs", i);
	free(whole);
	/* It ran since (another CPU time): the rest is not trusted. */
	assert_null(stack_rest_read(child, child, cpu - 1, (uint64_t)(uintptr_t)pattern - 8,
				    copied, sizeof(copied), &len));
	/* Gone: nothing to read. */
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	assert_null(stack_rest_read(child, child, cpu, (uint64_t)(uintptr_t)pattern - 8, copied,
				    sizeof(copied), &len));
	close(ready[0]);
	close(ready[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_state_letters),
		cmocka_unit_test(test_clean),
		cmocka_unit_test(test_grouping),
		cmocka_unit_test(test_text_group_header),
		cmocka_unit_test(test_json_escapes),
		cmocka_unit_test(test_stack_rest_only_if_not_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
