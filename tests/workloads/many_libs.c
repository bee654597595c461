// SPDX-License-Identifier: GPL-2.0
/*
 * A program that spends its time in ten libraries of its own
 * (tests/workloads/many_lib.c built ten times), in turn:
 * main -> burn_libN -> spin_libN, for SECONDS.  Stripped, with its
 * libraries, it has eleven binaries whose names only their debug files
 * hold: the debuginfod tests serve those and count what got named.
 */
#include <stdlib.h>
#include <time.h>

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

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 2.0);

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
