// SPDX-License-Identifier: GPL-2.0
/*
 * A library that appears after the process started: sleeps, then dlopen()s
 * LIB and calls its late_burn() for SECONDS.  Built -O2 without frame
 * pointers, like the library.
 *
 *   late LIB SLEEP_SECONDS SECONDS
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void run_late(void (*burn)(void), double seconds)
{
	double end = now() + seconds;

	while (now() < end)
		burn();
	asm volatile("" ::: "memory");	/* no tail call: keep this frame */
}

int main(int argc, char **argv)
{
	void (*burn)(void);
	void *h;

	if (argc != 4)
		return 2;
	usleep(atof(argv[2]) * 1e6);
	h = dlopen(argv[1], RTLD_NOW);
	if (!h) {
		fprintf(stderr, "late: %s\n", dlerror());
		return 1;
	}
	burn = (void (*)(void))dlsym(h, "late_burn");
	if (!burn)
		return 1;
	run_late(burn, atof(argv[3]));
	return 0;
}
