// SPDX-License-Identifier: GPL-2.0
/*
 * Workload for stitch latency: a handler slow two ways.  Of every 25
 * calls of handle(), one sleeps 20 ms (fetch_slow: blocked in
 * nanosleep), one computes for 10 ms of its own CPU time (compute_slow ->
 * crunch: on CPU all along, however busy the machine), and the others
 * return in microseconds.  Both slow kinds are far from a 5 ms threshold,
 * the fast ones far under it.  Waits for SIGUSR1 after printing "ready",
 * makes N calls, then prints what it measured itself:
 *
 *   calls N slow S slow_ns NS sleep_ns NS compute_ns NS
 *
 * slow: calls of 5 ms or more by its own clock (around the call, so never
 * shorter than a tracer's probes see it); sleep_ns and compute_ns: the
 * wall time of fetch_slow's and compute_slow's calls.
 *
 *   two_way N
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define EVERY 25
#define SLEEP_NS 20000000LL
#define COMPUTE_NS 10000000LL
#define SLOW_NS 5000000LL

static volatile unsigned long sink;

static long long clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

__attribute__((noinline)) static void fetch_slow(void)
{
	struct timespec ts = { 0, SLEEP_NS };

	while (nanosleep(&ts, &ts))
		;
}

__attribute__((noinline)) static void crunch(int rounds)
{
	int i;

	for (i = 0; i < rounds; i++)
		sink = sink * 6364136223846793005UL + 1442695040888963407UL;
}

/* 10 ms of this thread's CPU time, checked every ~10 us of work. */
__attribute__((noinline)) static void compute_slow(void)
{
	long long end = clock_ns(CLOCK_THREAD_CPUTIME_ID) + COMPUTE_NS;

	while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		crunch(4000);
}

__attribute__((noinline)) int handle(int i)
{
	if (i % EVERY == 0)
		fetch_slow();
	else if (i % EVERY == EVERY / 2)
		compute_slow();
	else
		crunch(100);
	return i;
}

int main(int argc, char **argv)
{
	long long t0, t1, d, slow_ns = 0, sleep_ns = 0, compute_ns = 0;
	int i, n, nslow = 0, sig;
	sigset_t set;

	if (argc != 2 || (n = atoi(argv[1])) <= 0)
		return 2;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	printf("ready %d\n", getpid());
	fflush(stdout);
	sigwait(&set, &sig);
	for (i = 0; i < n; i++) {
		t0 = clock_ns(CLOCK_MONOTONIC);
		handle(i);
		t1 = clock_ns(CLOCK_MONOTONIC);
		d = t1 - t0;
		if (d >= SLOW_NS) {
			nslow++;
			slow_ns += d;
		}
		if (i % EVERY == 0)
			sleep_ns += d;
		else if (i % EVERY == EVERY / 2)
			compute_ns += d;
	}
	printf("calls %d slow %d slow_ns %lld sleep_ns %lld compute_ns %lld\n", n, nslow, slow_ns,
	       sleep_ns, compute_ns);
	return 0;
}
