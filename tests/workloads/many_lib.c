// SPDX-License-Identifier: GPL-2.0
/*
 * One of tests/workloads/many_libs.c's ten libraries, built with
 * -DLIB_N=0..9: each has its own function names (burn_lib0 -> spin_lib0),
 * hence its own build-id, and is stripped, its debug file served apart.
 * park_libN -> wait_libN parks its caller in pause() (many_libs park).
 */
#include <unistd.h>

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

static volatile unsigned long sink;

__attribute__((noinline)) static void CAT(spin_lib, LIB_N)(void)
{
	unsigned long i;

	for (i = 0; i < 2000000; i++)
		sink += i;
}

void CAT(burn_lib, LIB_N)(void)
{
	CAT(spin_lib, LIB_N)();
	asm volatile("" ::: "memory");
}

static volatile int unparked;

__attribute__((noinline)) static void CAT(wait_lib, LIB_N)(void)
{
	while (!unparked)
		pause();
}

void CAT(park_lib, LIB_N)(void)
{
	CAT(wait_lib, LIB_N)();
	asm volatile("" ::: "memory");
}
