// SPDX-License-Identifier: GPL-2.0
/*
 * A native stack that changes at every sample, for the per-event cost
 * headline: -O2, no frame pointers, PIE.  main loops calling rec(DEPTH, i):
 * each level passes the loop counter down plus its depth and uses both
 * after its call returns, so every frame keeps callee-saved registers and
 * locals on the stack that differ from one iteration to the next (a
 * remembered walk that checks the words it read never matches); every 8th
 * level picks one of two functions by a bit of the iteration, so the return
 * addresses change too, among 32 paths at depth 40 (a program's few code
 * paths, not one new stack per sample).  A 100 Hz SIGALRM handler runs its
 * own short recursion, so some samples stand on a signal frame.
 *
 *   recurse DEPTH SECONDS [wait|syscall]
 *     wait: start when a byte arrives on stdin
 *     syscall: the leaf also calls getppid() (for -e syscall:getppid)
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static volatile uint64_t sink;
static volatile sig_atomic_t stop;
static uint64_t iter;
static int with_syscall;

NOINLINE static uint64_t leaf(uint64_t n)
{
	uint64_t x = n;
	int i;

	for (i = 0; i < 400; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	if (with_syscall)
		x += getppid();
	return x;
}

/* rec_b instead of rec_a at every 8th level, by a bit of the iteration: 32 paths at 40. */
static inline int take_b(int depth)
{
	return depth % 8 == 0 && ((iter >> (depth / 8)) & 1);
}

NOINLINE uint64_t rec_b(int depth, uint64_t n);

/* Uses depth and n after the call: no tail call, both saved on the stack. */
NOINLINE uint64_t rec_a(int depth, uint64_t n)
{
	uint64_t r;

	if (depth == 0)
		return leaf(n);
	r = take_b(depth) ? rec_b(depth - 1, n + depth) : rec_a(depth - 1, n + depth);
	return r ^ (n * (uint64_t)depth);
}

NOINLINE uint64_t rec_b(int depth, uint64_t n)
{
	uint64_t r;

	if (depth == 0)
		return leaf(~n);
	r = take_b(depth) ? rec_a(depth - 1, n * 3 + depth) : rec_b(depth - 1, n * 3 + depth);
	return r + (n ^ (uint64_t)depth);
}

NOINLINE static void on_alarm(int sig)
{
	sink += rec_a(4, (uint64_t)sig + sink);
}

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct itimerval it = { { 0, 10000 }, { 0, 10000 } };
	struct timespec t0, t;
	int depth;
	double secs;
	uint64_t i;
	char go;

	if (argc < 3) {
		fprintf(stderr, "usage: recurse DEPTH SECONDS [wait]\n");
		return 2;
	}
	depth = atoi(argv[1]);
	secs = atof(argv[2]);
	if (argc > 3 && !strcmp(argv[3], "wait") && read(0, &go, 1) != 1)
		return 1;
	with_syscall = argc > 3 && !strcmp(argv[3], "syscall");
	signal(SIGALRM, on_alarm);
	signal(SIGTERM, on_term);
	setitimer(ITIMER_REAL, &it, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; !stop; i++) {
		iter = i;
		sink += rec_a(depth, i);
		if ((i & 63) == 0) {
			clock_gettime(CLOCK_MONOTONIC, &t);
			if (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 >= secs)
				break;
		}
	}
	printf("iterations %llu\n", (unsigned long long)i);
	return 0;
}
