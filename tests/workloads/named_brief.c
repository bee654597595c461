// SPDX-License-Identifier: GPL-2.0
/*
 * A short-lived process with a lot to name: 4,096 functions with long
 * names, and DWARF when built with -g.  It spins through them for argv[1]
 * ms of CPU (default 30), so a whole-machine recording samples it and its
 * period's profile opens its symbols.  Copied to many distinct files, it
 * is a churn of binaries that each cost their symbol table to name, for the
 * agent's memory test and bench/agent_churn.sh.
 */
#include <stdlib.h>
#include <time.h>

#define F(n) \
	__attribute__((noinline)) unsigned long \
	function_with_a_rather_long_name_to_fill_the_string_table_##n(unsigned long x) \
	{ \
		return x * 2654435761u + n; \
	}
#define F4(n) F(n##0) F(n##1) F(n##2) F(n##3)
#define F16(n) F4(n##0) F4(n##1) F4(n##2) F4(n##3)
#define F64(n) F16(n##0) F16(n##1) F16(n##2) F16(n##3)
#define F256(n) F64(n##0) F64(n##1) F64(n##2) F64(n##3)
#define F1024(n) F256(n##0) F256(n##1) F256(n##2) F256(n##3)
F1024(1) F1024(2) F1024(3) F1024(4)

#define P(n) function_with_a_rather_long_name_to_fill_the_string_table_##n,
#define P4(n) P(n##0) P(n##1) P(n##2) P(n##3)
#define P16(n) P4(n##0) P4(n##1) P4(n##2) P4(n##3)
#define P64(n) P16(n##0) P16(n##1) P16(n##2) P16(n##3)
#define P256(n) P64(n##0) P64(n##1) P64(n##2) P64(n##3)
#define P1024(n) P256(n##0) P256(n##1) P256(n##2) P256(n##3)
static unsigned long (*const fns[])(unsigned long) = { P1024(1) P1024(2) P1024(3) P1024(4) };

static double cpu_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 30;
	volatile unsigned long sink = 0;
	unsigned long x = 1;
	size_t i;

	while (cpu_ms() < ms)
		for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
			x = fns[i](x);
	sink = x;
	return (int)(sink & 0);
}
