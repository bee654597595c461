// SPDX-License-Identifier: GPL-2.0
/*
 * stitch stalls -p: stall candidates for the threads already running at
 * attach (see stalls_seed.h).  Everything read from /proc here belongs to
 * the target and is bounded; a thread that exits meanwhile is skipped.
 */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>

#include "stalls/stalls.h"
#include "stalls/stalls_seed.h"
#include "util/clock.h"

uint64_t stalls_thread_runtime(uint32_t pid, uint32_t tid)
{
	unsigned long long ns = 0;
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/task/%u/schedstat", pid, tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &ns) != 1)
		ns = 0;
	fclose(f);
	return ns;
}

/*
 * The system call the thread is in (/proc/PID/task/TID/syscall: its number
 * first), or -1: running in user space ("running"), blocked outside any
 * system call ("-1"), or gone.
 */
static long thread_syscall(uint32_t pid, uint32_t tid)
{
	char path[64], buf[32];
	long nr = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/task/%u/syscall", pid, tid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f) && buf[0] >= '0' && buf[0] <= '9')
		nr = strtol(buf, NULL, 10);
	fclose(f);
	return nr;
}

static bool is_loop_wait(long nr, long loop_nr, const uint32_t *candidates, int n)
{
	int i;

	if (nr < 0)
		return false;
	if (loop_nr >= 0)
		return nr == loop_nr;
	for (i = 0; i < n; i++)
		if ((uint32_t)nr == candidates[i])
			return true;
	return false;
}

static int seed_process(int map_fd, int gate_fd, uint64_t threshold_ns, uint32_t pid,
			long loop_nr, const uint32_t *candidates, int ncandidates)
{
	char path[64];
	struct dirent *d;
	int seeded = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%u/task", pid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((d = readdir(dir))) {
		struct stall_thread t = { .from_attach = 1 };
		char *end;
		unsigned long tid = strtoul(d->d_name, &end, 10);

		if (end == d->d_name || *end || !tid || tid > 0x7fffffff)
			continue;
		/* Waiting in its loop: the kernel side starts counting at its return. */
		if (is_loop_wait(thread_syscall(pid, tid), loop_nr, candidates, ncandidates))
			continue;
		t.runtime_at_exit = stalls_thread_runtime(pid, tid);
		if (!t.runtime_at_exit)
			continue;	/* gone, or never ran */
		t.loop_exit_ns = mono_ns();
		t.loop_nr = loop_nr < 0 ? STALLS_LOOP_UNKNOWN : (uint32_t)loop_nr;
		if (bpf_map_update_elem(map_fd, &(uint32_t){ tid }, &t, BPF_NOEXIST) == 0) {
			uint64_t open_at = t.runtime_at_exit + threshold_ns;

			bpf_map_update_elem(gate_fd, &(uint32_t){ tid }, &open_at, BPF_NOEXIST);
			seeded++;
		}
	}
	closedir(dir);
	return seeded;
}

int stalls_seed_threads(int map_fd, int gate_fd, uint64_t threshold_ns, const uint32_t *pids,
			int npids, long loop_nr, const uint32_t *candidates, int ncandidates)
{
	int seeded = 0, i;

	for (i = 0; i < npids; i++)
		seeded += seed_process(map_fd, gate_fd, threshold_ns, pids[i], loop_nr, candidates,
				       ncandidates);
	return seeded;
}
