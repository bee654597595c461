// SPDX-License-Identifier: GPL-2.0
/*
 * The agent's per-process labels (agent/proc_labels.c) over a /proc made
 * by the test: read once, kept while the process lives, forgotten when it
 * exits, when its pid names another process, or when an exec renames it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "agent/proc_labels.h"

#define ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static char root[64];

static void put(const char *pid, const char *file, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, pid);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/%s/%s", root, pid, file);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A process: its name in stat and comm, its start time, its cgroup. */
static void process(const char *pid, const char *name, const char *start, const char *cgroup)
{
	char stat[512], comm[64];

	/* A name with ") (" in it: fields are counted after the last ')'. */
	snprintf(stat, sizeof(stat), "%s (%s) S 1 1 1 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 "
		 "%s 1000 100 18446744073709551615\n", pid, name, start);
	snprintf(comm, sizeof(comm), "%s\n", name);
	put(pid, "stat", stat);
	put(pid, "comm", comm);
	put(pid, "cgroup", cgroup);
}

static void gone(const char *pid)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s/%s'", root, pid);
	assert_int_equal(system(cmd), 0);
}

static int setup(void **state)
{
	snprintf(root, sizeof(root), "/tmp/stitch-proc-labels.XXXXXX");
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
	gone("");
	return 0;
}

static void test_cached_until_gone(void **state)
{
	struct proc_labels_cache c;
	const struct proc_labels *pl;

	assert_int_equal(proc_labels_init(&c), 0);
	c.proc = root;
	process("100", "we) (ird", "5000", "0::/system.slice/docker-" ID ".scope\n");
	pl = proc_labels_get(&c, 100, "worker");
	assert_non_null(pl);
	assert_string_equal(pl->name, "we) (ird");
	assert_string_equal(pl->ids.container_id, ID);
	assert_int_equal(pl->start_ticks, 5000);

	/* Alive and unchanged: kept, not read again (a changed cgroup file is not seen). */
	put("100", "cgroup", "0::/\n");
	proc_labels_sweep(&c);
	pl = proc_labels_get(&c, 100, "worker");
	assert_string_equal(pl->ids.container_id, ID);

	/* Gone: forgotten; sampled again after it exited, named by the thread's comm. */
	gone("100");
	proc_labels_sweep(&c);
	assert_int_equal(c.map.count, 0);
	pl = proc_labels_get(&c, 100, "worker");
	assert_string_equal(pl->name, "worker");
	assert_int_equal(pl->start_ticks, 0);
	assert_string_equal(pl->ids.container_id, "");
	proc_labels_sweep(&c);
	assert_int_equal(c.map.count, 0);
	proc_labels_free(&c);
}

static void test_pid_reused_or_exec(void **state)
{
	struct proc_labels_cache c;
	const struct proc_labels *pl;

	assert_int_equal(proc_labels_init(&c), 0);
	c.proc = root;
	process("200", "bash", "7000", "0::/\n");
	pl = proc_labels_get(&c, 200, "bash");
	assert_string_equal(pl->name, "bash");

	/* exec: the same process, another name */
	process("200", "python3", "7000", "0::/\n");
	proc_labels_sweep(&c);
	pl = proc_labels_get(&c, 200, "python3");
	assert_string_equal(pl->name, "python3");

	/* the pid reused by another process (another start), in a container */
	process("200", "python3", "9000", "0::/docker/" ID "\n");
	proc_labels_sweep(&c);
	pl = proc_labels_get(&c, 200, "python3");
	assert_int_equal(pl->start_ticks, 9000);
	assert_string_equal(pl->ids.container_id, ID);
	proc_labels_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_cached_until_gone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pid_reused_or_exec, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
