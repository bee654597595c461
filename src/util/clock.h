/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Clocks in the units stitch uses.  CLOCK_MONOTONIC is bpf_ktime_get_ns()'s
 * clock and the one perf records carry, so times from BPF, perf and user
 * space compare directly.
 */
#ifndef STITCH_UTIL_CLOCK_H
#define STITCH_UTIL_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t clock_ns(clockid_t which)
{
	struct timespec ts;

	clock_gettime(which, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* CLOCK_MONOTONIC in ns. */
static inline uint64_t mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* CLOCK_MONOTONIC in seconds, for elapsed times. */
static inline double mono_s(void)
{
	return mono_ns() / 1e9;
}

#endif /* STITCH_UTIL_CLOCK_H */
