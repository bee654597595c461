// SPDX-License-Identifier: GPL-2.0
/*
 * Cost of libstitch-stall on an event loop's hot path: ns per
 * task_begin/task_end pair and per idle, with the detector running (its
 * ticks included, amortized), against a pair of empty calls.
 *
 *   stall_bench [iterations]      (make stall-bench runs the .so and the static build)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "stitch/stall.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* The baseline: what two calls cost without the library. */
__attribute__((noinline)) static void empty_begin(void *p)
{
	__asm__ volatile("" :: "r"(p) : "memory");
}

__attribute__((noinline)) static void empty_end(void *p)
{
	__asm__ volatile("" :: "r"(p) : "memory");
}

static double run_empty(long n)
{
	uint64_t t = now_ns();
	long i;

	for (i = 0; i < n; i++) {
		empty_begin(&i);
		empty_end(&i);
	}
	return (double)(now_ns() - t) / n;
}

static double run_pairs(struct stitch_stall *d, long n)
{
	uint64_t t = now_ns();
	long i;

	for (i = 0; i < n; i++) {
		stitch_stall_task_begin(d);
		stitch_stall_task_end(d);
	}
	return (double)(now_ns() - t) / n;
}

static double run_idle(struct stitch_stall *d, long n)
{
	uint64_t t = now_ns();
	long i;

	for (i = 0; i < n; i++) {
		stitch_stall_idle(d);
		stitch_stall_task_begin(d);
		stitch_stall_task_end(d);
	}
	return (double)(now_ns() - t) / n;
}

static void bench(const char *name, unsigned int flags, long n)
{
	struct stitch_stall_config cfg = STITCH_STALL_CONFIG_DEFAULT;
	struct stitch_stall *d;
	double pair, idle;

	cfg.threshold_ms = 20;	/* 200 ticks per CPU second: their cost shows in the numbers */
	cfg.flags = flags;
	cfg.fd = 1;
	d = stitch_stall_start(&cfg);
	if (!d) {
		perror("stitch_stall_start");
		exit(1);
	}
	run_pairs(d, n / 10);	/* warm up */
	pair = run_pairs(d, n);
	idle = run_idle(d, n / 10);
	stitch_stall_stop(d);
	printf("%-12s begin+end pair %6.2f ns   idle+begin+end %6.2f ns\n", name, pair, idle);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000000;

	run_empty(n / 10);
	printf("%-12s two empty calls %5.2f ns\n", "baseline", run_empty(n));
	bench("perf", 0, n);
	bench("cpu-timer", STITCH_STALL_FORCE_TIMER, n);
	bench("wall-timer", STITCH_STALL_WALL_CLOCK, n);
	return 0;
}
