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
 * Spin for at least ms of clock()'s nanoseconds (cpu_ns: this thread's CPU
 * time), reading the clock every
 * `every` iterations.  The spin overruns by up to one round of `every`
 * iterations, whose CPU time is not fixed.  On the 2-vCPU test VM at load
 * 6: 1M iterations took 2.8 ms on average, 3.5 ms at most when not
 * preempted, but up to 16-24 ms when preempted during the round (2 to 5
 * involuntary switches; 92 of 3,000 rounds took over 5 ms).  64K iterations
 * took 0.17 ms on average and 2.2 ms at most in 20,000 rounds, preempted
 * or not.
 */
#define SPIN_CLOCK_MS_EVERY(clock, ms, every)				\
	do {								\
		uint64_t spin_end_ = clock() + (ms) * 1000000ull;	\
		unsigned long spin_i_;					\
									\
		do {							\
			for (spin_i_ = 0; spin_i_ < (every); spin_i_++)	\
				sink += spin_i_;			\
		} while (clock() < spin_end_);				\
	} while (0)

/*
 * The clock is a system call, so it is read only every 1M iterations: the
 * samples land in the loop, in user mode.  For stalls with no upper bound on
 * their length (see above).
 */
#define SPIN_CPU_MS(ms) SPIN_CLOCK_MS_EVERY(cpu_ns, ms, 1ul << 20)

#endif /* STITCH_TEST_CPU_SPIN_H */
