/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPU-time spinning for the stall workloads (stall_epoll, tests/stall).
 * A macro, not a function: the spin stays in its caller's frame (no
 * inlined frame of its own), whose name the tests look for.
 */
#ifndef STITCH_TEST_CPU_SPIN_H
#define STITCH_TEST_CPU_SPIN_H

#include <stdint.h>
#include <time.h>

static volatile unsigned long sink;

/* This thread's CPU time: the VM may steal wall time, and threads share CPUs. */
static inline uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * Spin for ms of this thread's CPU time.  The clock is a system call, so it
 * is read only every 1M iterations (~0.5 ms): samples land in the loop, in
 * user mode.
 */
#define SPIN_CPU_MS(ms)							\
	do {								\
		uint64_t spin_end_ = cpu_ns() + (ms) * 1000000ull;	\
		unsigned long spin_i_;					\
									\
		do {							\
			for (spin_i_ = 0; spin_i_ < (1ul << 20); spin_i_++) \
				sink += spin_i_;			\
		} while (cpu_ns() < spin_end_);				\
	} while (0)

#endif /* STITCH_TEST_CPU_SPIN_H */
