/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This thread's perf task clock, for workloads that measure themselves in
 * the clock a profile's samples (and libstitch-stall's ticks) count in.  In
 * a VM it also holds the time the hypervisor took from the vCPU while the
 * thread was on it (steal), which CLOCK_THREAD_CPUTIME_ID leaves out.
 */
#ifndef STITCH_TEST_TASK_CLOCK_H
#define STITCH_TEST_TASK_CLOCK_H

#include <linux/perf_event.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

/* A counter of this thread's task clock, or -1 (errno says why). */
static inline int task_clock_open(void)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_TASK_CLOCK,
		.exclude_hv = 1,	/* as libstitch-stall's */
	};

	return syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Its nanoseconds: false if it cannot be read. */
static inline int task_clock_read(int fd, uint64_t *ns)
{
	return read(fd, ns, sizeof(*ns)) == sizeof(*ns);
}

#endif
