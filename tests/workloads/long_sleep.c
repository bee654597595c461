// SPDX-License-Identifier: GPL-2.0
/*
 * long_sleep SECONDS: fifteen sleeps of 0.1 s (a tracer started with it is
 * attached by then), then one of SECONDS: an off-CPU interval across
 * several of the agent's periods.
 */
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 3.5;
	struct timespec s = { 0, 100000000 }, l = { (time_t)secs, (secs - (time_t)secs) * 1e9 };
	int i;

	for (i = 0; i < 15; i++)
		nanosleep(&s, NULL);
	return nanosleep(&l, NULL);
}
