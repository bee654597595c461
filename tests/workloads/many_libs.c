// SPDX-License-Identifier: GPL-2.0
/*
 * A program that spends its time in ten libraries of its own
 * (tests/workloads/many_lib.c built ten times), in turn:
 * main -> burn_libN -> spin_libN, for SECONDS.  Stripped, with its
 * libraries, it has eleven binaries whose names only their debug files
 * hold: the debuginfod tests serve those and count what got named.
 * "many_libs park": ten threads parked for good, one in each library
 * (parker -> park_libN -> wait_libN -> pause), main in pause(): a
 * snapshot's stacks need all eleven binaries at once.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void burn_lib0(void);
void burn_lib1(void);
void burn_lib2(void);
void burn_lib3(void);
void burn_lib4(void);
void burn_lib5(void);
void burn_lib6(void);
void burn_lib7(void);
void burn_lib8(void);
void burn_lib9(void);
void park_lib0(void);
void park_lib1(void);
void park_lib2(void);
void park_lib3(void);
void park_lib4(void);
void park_lib5(void);
void park_lib6(void);
void park_lib7(void);
void park_lib8(void);
void park_lib9(void);

static void (*const parks[])(void) = {
	park_lib0, park_lib1, park_lib2, park_lib3, park_lib4,
	park_lib5, park_lib6, park_lib7, park_lib8, park_lib9,
};

static void *parker(void *arg)
{
	parks[(long)arg]();
	asm volatile("" ::: "memory");
	return NULL;
}

__attribute__((noinline)) static int park_all(void)
{
	pthread_t tid;
	long i;

	for (i = 0; i < 10; i++)
		if (pthread_create(&tid, NULL, parker, (void *)i))
			return 1;
	for (;;)
		pause();
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double end;

	if (argc > 1 && !strcmp(argv[1], "park"))
		return park_all();
	end = now() + (argc > 1 ? atof(argv[1]) : 2.0);

	while (now() < end) {
		burn_lib0();
		burn_lib1();
		burn_lib2();
		burn_lib3();
		burn_lib4();
		burn_lib5();
		burn_lib6();
		burn_lib7();
		burn_lib8();
		burn_lib9();
	}
	return 0;
}
