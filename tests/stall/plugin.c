// SPDX-License-Identifier: GPL-2.0
/* Loaded by stall_loop after the detector started: its stall must unwind through it. */
#include <stdint.h>
#include <time.h>

static volatile unsigned long sink;

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

__attribute__((noinline)) void plugin_spin(unsigned int ms)
{
	uint64_t end = cpu_ns() + ms * 1000000ull;
	unsigned long i;

	do {
		for (i = 0; i < (1ul << 20); i++)
			sink += i;
	} while (cpu_ns() < end);
	__asm__ volatile("" ::: "memory");
}
