// SPDX-License-Identifier: GPL-2.0
/*
 * Workload for stitch record -e alloc: allocations from known stacks, in
 * known bytes, printed by the workload itself.
 *
 *   alloc_paths paths N [wait]
 *                         N rounds of: leaker -> leak_one, one 100-byte
 *                         malloc kept to the end (a leak); churner ->
 *                         churn_one twice, a 300-byte malloc freed at once.
 *                         Prints "leaked BYTES", "churned BYTES" and
 *                         "elapsed_ns NS" (the rounds' wall time).  With
 *                         "wait", first waits for a byte on stdin (bench/).
 *   alloc_paths fns       each allocator function 1000 times from a function
 *                         of its own (via_NAME), each with a size of its own,
 *                         the block freed at once.  Prints "via_NAME BYTES"
 *                         for each: what the program asked for there.
 *
 * Built without frame pointers, as Debian builds: stacks are unwound from CFI.
 */
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define FN_CALLS 1000

/* Through a volatile: the compiler may not drop a malloc whose block is never used. */
static void *volatile sink;
static void **kept;
static long nkept;

__attribute__((noipa)) static void leak_one(size_t n)
{
	void *p = malloc(n);

	memset(p, 1, n);
	kept[nkept++] = p;
}

__attribute__((noipa)) static void churn_one(size_t n)
{
	sink = malloc(n);
	memset(sink, 2, n);
	free(sink);
}

__attribute__((noipa)) static void leaker(void)
{
	leak_one(100);
	__asm__ volatile("" ::: "memory");	/* not a tail call */
}

__attribute__((noipa)) static void churner(void)
{
	churn_one(300);
	__asm__ volatile("" ::: "memory");
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int paths(long n, bool wait)
{
	unsigned long leaked = 0, churned = 0;
	long long t0;
	char go;
	long i;

	kept = calloc(n, sizeof(*kept));
	if (!kept)
		return 1;
	if (wait && read(0, &go, 1) != 1)
		return 1;
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		leaker();
		leaked += 100;
		churner();
		churner();
		churned += 600;
	}
	printf("leaked %lu\nchurned %lu\nelapsed_ns %lld\n", leaked, churned, now_ns() - t0);
	return 0;
}

/* Each allocator function from a function of its own; the block freed at once. */
#define VIA(name, size, call)							\
	__attribute__((noipa)) static unsigned long via_##name(void)	\
	{									\
		int i;								\
										\
		for (i = 0; i < FN_CALLS; i++) {				\
			call;							\
			free(sink);						\
		}								\
		return (unsigned long)(size) * FN_CALLS;			\
	}

VIA(malloc, 1000, sink = malloc(1000))
VIA(calloc, 2000, sink = calloc(10, 200))
/* glibc's realloc(NULL, n) calls its malloc: counted once. */
VIA(realloc_null, 3000, sink = realloc(NULL, 3000))
/* A block grown: its 16 bytes, then the 4000 it grows to. */
VIA(realloc_grow, 4016, sink = realloc(malloc(16), 4000))
/* An alignment malloc gives anyway: glibc calls its malloc, counted once. */
VIA(memalign_16, 5000, sink = memalign(16, 5000))
VIA(memalign_256, 6000, sink = memalign(256, 6000))
VIA(aligned_alloc, 7040, sink = aligned_alloc(64, 7040))
VIA(posix_memalign, 8000, { void *p = NULL; if (posix_memalign(&p, 128, 8000)) abort(); sink = p; })
VIA(posix_memalign_8, 9000, { void *p = NULL; if (posix_memalign(&p, 8, 9000)) abort(); sink = p; })
VIA(valloc, 10000, sink = valloc(10000))

static int fns(void)
{
	printf("via_malloc %lu\n", via_malloc());
	printf("via_calloc %lu\n", via_calloc());
	printf("via_realloc_null %lu\n", via_realloc_null());
	printf("via_realloc_grow %lu\n", via_realloc_grow());
	printf("via_memalign_16 %lu\n", via_memalign_16());
	printf("via_memalign_256 %lu\n", via_memalign_256());
	printf("via_aligned_alloc %lu\n", via_aligned_alloc());
	printf("via_posix_memalign %lu\n", via_posix_memalign());
	printf("via_posix_memalign_8 %lu\n", via_posix_memalign_8());
	printf("via_valloc %lu\n", via_valloc());
	return 0;
}

int main(int argc, char **argv)
{
	if ((argc == 3 || argc == 4) && strcmp(argv[1], "paths") == 0)
		return paths(atol(argv[2]), argc == 4 && strcmp(argv[3], "wait") == 0);
	if (argc == 2 && strcmp(argv[1], "fns") == 0)
		return fns();
	fprintf(stderr, "usage: alloc_paths paths N [wait] | fns\n");
	return 2;
}
