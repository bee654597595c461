// SPDX-License-Identifier: GPL-2.0
/*
 * bench/jit_cost.sh: a native stack of DEPTH frames below main, every one a
 * different function (as flat.js's JavaScript frames are), over a leaf that
 * computes; built -O2 without frame pointers, unwound from its CFI.
 *   depth SECONDS DEPTH
 */
#include <stdlib.h>
#include <time.h>

#define MAX_DEPTH 64

static volatile unsigned long sink;
static int depth;

static __attribute__((noinline)) unsigned long leaf(unsigned long i)
{
	unsigned long s = 0, k;

	for (k = 0; k < 3000; k++)
		s += (k * i) % 7;
	return s;
}

typedef unsigned long (*level_fn)(unsigned long i, int d);
static level_fn levels[MAX_DEPTH];

/* The level at d calls the one at d + 1 until the depth asked, then the leaf. */
#define LEVEL(n)								\
	static __attribute__((noinline)) unsigned long level##n(unsigned long i, int d) \
	{									\
		unsigned long r = d + 1 < depth ? levels[d + 1](i + n, d + 1) : leaf(i); \
		__asm__ volatile("" ::: "memory");	/* not a tail call */	\
		return r + 1;							\
	}
#define LEVEL8(n) LEVEL(n##0) LEVEL(n##1) LEVEL(n##2) LEVEL(n##3) \
	LEVEL(n##4) LEVEL(n##5) LEVEL(n##6) LEVEL(n##7)
LEVEL8(1) LEVEL8(2) LEVEL8(3) LEVEL8(4) LEVEL8(5) LEVEL8(6) LEVEL8(7) LEVEL8(8)

#define SET8(n) levels[nset++] = level##n##0; levels[nset++] = level##n##1;		\
	levels[nset++] = level##n##2; levels[nset++] = level##n##3;			\
	levels[nset++] = level##n##4; levels[nset++] = level##n##5;			\
	levels[nset++] = level##n##6; levels[nset++] = level##n##7;

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 5;
	struct timespec t0, t;
	int nset = 0;

	depth = argc > 2 ? atoi(argv[2]) : 20;
	if (depth < 1 || depth > MAX_DEPTH)
		return 2;
	SET8(1) SET8(2) SET8(3) SET8(4) SET8(5) SET8(6) SET8(7) SET8(8)
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		sink += levels[0](sink & 1023, 0);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	return 0;
}
