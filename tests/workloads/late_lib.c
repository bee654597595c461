// SPDX-License-Identifier: GPL-2.0
/* The library tests/workloads/late.c loads late: a leaf worth sampling. */
static volatile unsigned long sink;

__attribute__((noinline)) static void late_inner(void)
{
	unsigned long i;

	for (i = 0; i < 100000; i++)
		sink += i;
}

void late_burn(void)
{
	late_inner();
	asm volatile("" ::: "memory");
}
