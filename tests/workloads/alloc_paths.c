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
 *   alloc_paths fns [wait]
 *                         each allocator function 1000 times from a function
 *                         of its own (via_NAME), each with a size of its own,
 *                         the block freed at once.  Prints "via_NAME BYTES"
 *                         for each: what the program asked for there.  Last,
 *                         via_realloc_kept: 100 blocks of 100 bytes, each
 *                         moved by a realloc to 20000 and kept ("moved_kept
 *                         BYTES": what they hold at the end); then
 *                         via_realloc_failed: 100 blocks of 100 bytes, each
 *                         kept through a realloc that fails ("failed_kept
 *                         BYTES"); "kept BYTES": both.
 *   alloc_paths forked N  a child leaks N 100-byte blocks (child_leak) and
 *                         exits; then the parent leaks N (parent_leak) and
 *                         exits.  Prints "child BYTES" and "parent BYTES".
 *   alloc_paths execs N   leaks N 100-byte blocks (exec_leak), prints
 *                         "before_exec BYTES", then execs itself as
 *                         "alloc_paths paths N": the same process, a new image.
 *   alloc_paths aged N SECONDS
 *                         leak_old: N 100-byte blocks kept; SECONDS of
 *                         sleep; leak_young: N more.  Prints "old BYTES"
 *                         and "young BYTES".
 *   alloc_paths badfree N   leak_one N 100-byte blocks ("leaked BYTES"),
 *                         then frees a block twice and an address never
 *                         allocated, and dies of glibc's abort at the first
 *                         it detects: what a tracer must survive.
 *   alloc_paths leaky SECONDS
 *                         steady's rounds, each with ten leaker calls too
 *                         (~1 MB a second kept), for SECONDS: a service
 *                         that grows, for agent --inuse.
 *   alloc_paths mapped    memory asked of the kernel: map_one, 100 anonymous
 *                         mmaps of 1 MiB, every other one unmapped; big_one,
 *                         100 mallocs of 1 MiB (glibc maps each itself),
 *                         every other one freed; brk_one, 10 sbrk(4096).
 *                         Prints "mapped", "mapped_kept", "big", "big_kept"
 *                         and "braked" BYTES.
 *   alloc_paths cut       mappings munmap takes part of: cut_map, nine
 *                         anonymous mmaps of 1 MiB, then of one the head
 *                         (mapped again at once, a quarter MiB of its own),
 *                         of one the tail, of one 4 pages in the middle,
 *                         one all in two halves, one all at once, one not
 *                         at all, across two neighbours, half of each, and
 *                         of one a page and a byte, then the page after the
 *                         two that took;
 *                         and two more that remap_one's mremap grows to
 *                         2 MiB (moving it, as it has no room) and
 *                         shrinks to a quarter.
 *                         Prints "cut_mapped", "cut_kept" and "remap_kept"
 *                         BYTES.
 *   alloc_paths steady SECONDS
 *                         churner rounds (two 300-byte blocks, each freed)
 *                         for SECONDS, 1000 a millisecond at most: a
 *                         process that allocates all along, for -a.
 *
 * Built without frame pointers, as Debian builds: stacks are unwound from CFI.
 */
#define _GNU_SOURCE	/* mremap */
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FN_CALLS 1000

#define MAX_KEPT 1000000

/* Through a volatile: the compiler may not drop a malloc whose block is never used. */
static void *volatile sink;
/*
 * The leaked blocks' list is no allocation of its own (--inuse shows the
 * leak alone), and global: stores the compiler must keep, so the mallocs too.
 */
void *kept[MAX_KEPT];
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

	if (n > MAX_KEPT / 2)
		return 2;
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

/* Moved by realloc (past the 100-byte block's room), kept: only the new block is in use. */
__attribute__((noipa)) static unsigned long via_realloc_kept(unsigned long *held)
{
	int i;

	for (i = 0; i < 100; i++) {
		void *p = malloc(100);

		memset(p, 3, 100);
		kept[nkept++] = realloc(p, 20000);
	}
	*held = 100 * 20000;
	return 100 * (100 + 20000);
}

/* Kept through a realloc that fails: the block is still the program's. */
__attribute__((noipa)) static unsigned long via_realloc_failed(unsigned long *held)
{
	/* Through a volatile: no warning for a constant size past any heap's */
	volatile size_t huge = (size_t)1 << 62;
	int i;

	for (i = 0; i < 100; i++) {
		void *p = malloc(100);

		memset(p, 4, 100);
		if (realloc(p, huge))
			abort();
		kept[nkept++] = p;
	}
	*held = 100 * 100;
	return 100 * 100;
}

__attribute__((noipa)) static void child_leak(long n)
{
	while (n--)
		leak_one(100);
}

__attribute__((noipa)) static void parent_leak(long n)
{
	while (n--)
		leak_one(100);
}

/* A child's leak that its exit frees, and its parent's, which outlives it. */
static int forked(long n)
{
	pid_t pid;
	int status;

	if (n > MAX_KEPT)
		return 2;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		child_leak(n);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return 1;
	parent_leak(n);
	printf("child %ld\nparent %ld\n", n * 100, n * 100);
	return 0;
}

__attribute__((noipa)) static void exec_leak(long n)
{
	while (n--)
		leak_one(100);
}

/* A leak that the process's exec frees, then the new image's own. */
static int execs(long n)
{
	char count[32];

	if (n > MAX_KEPT)
		return 2;
	exec_leak(n);
	printf("before_exec %ld\n", n * 100);
	fflush(stdout);
	snprintf(count, sizeof(count), "%ld", n);
	execl("/proc/self/exe", "alloc_paths", "paths", count, (char *)NULL);
	return 1;
}

__attribute__((noipa)) static void leak_old(long n)
{
	while (n--)
		leak_one(100);
}

__attribute__((noipa)) static void leak_young(long n)
{
	while (n--)
		leak_one(100);
}

/* Blocks of two ages, for --min-age. */
static int aged(long n, int seconds)
{
	if (n > MAX_KEPT / 2)
		return 2;
	leak_old(n);
	sleep(seconds);
	leak_young(n);
	printf("old %ld\nyoung %ld\n", n * 100, n * 100);
	return 0;
}

/* Leaks, then the frees glibc aborts on. */
static int badfree(long n)
{
	static char not_heap[64];
	void *p;
	long i;

	if (n > MAX_KEPT / 2)
		return 2;
	for (i = 0; i < n; i++)
		leak_one(100);
	printf("leaked %ld\n", n * 100);
	fflush(stdout);
	p = malloc(200);
	free(p);
	free(p);		/* a double free */
	sink = not_heap + 16;	/* 16-byte aligned, and no chunk */
	free(sink);
	return 0;
}

/* Churn for seconds, paced: a steady allocator for -a to find; leaking too if leaky. */
__attribute__((noipa)) static void steady(int seconds, bool leaky)
{
	long long end = now_ns() + seconds * 1000000000LL;
	int i;

	while (now_ns() < end) {
		for (i = 0; i < 1000; i++)
			churner();
		for (i = 0; leaky && i < 10 && nkept < MAX_KEPT; i++)
			leaker();
		usleep(1000);
	}
}

__attribute__((noipa)) static void *map_one(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		abort();
	return p;
}

__attribute__((noipa)) static void *big_one(size_t n)
{
	void *p = malloc(n);

	if (!p)
		abort();
	return p;
}

__attribute__((noipa)) static void brk_one(long n)
{
	if (sbrk(n) == (void *)-1)
		abort();
}

/* An anonymous mapping of n bytes, at at (MAP_FIXED) unless NULL. */
__attribute__((noipa)) static char *cut_map(char *at, size_t n)
{
	void *p = mmap(at, n, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | (at ? MAP_FIXED : 0), -1, 0);

	if (p == MAP_FAILED)
		abort();
	return p;
}

/* mremap of n bytes at p to m, moved if it must be. */
__attribute__((noipa)) static char *remap_one(char *p, size_t n, size_t m)
{
	void *q = mremap(p, n, m, MREMAP_MAYMOVE);

	if (q == MAP_FAILED)
		abort();
	return q;
}

static int cut(void)
{
	const size_t mib = 1 << 20, page = sysconf(_SC_PAGESIZE);
	char *head = cut_map(NULL, mib), *tail = cut_map(NULL, mib);
	char *middle = cut_map(NULL, mib), *halves = cut_map(NULL, mib);
	char *whole = cut_map(NULL, mib), *untouched = cut_map(NULL, mib);
	char *pair = mmap(NULL, 2 * mib, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *grown = cut_map(NULL, mib), *shrunk = cut_map(NULL, mib);
	char *ragged = cut_map(NULL, mib);

	if (pair == MAP_FAILED)
		abort();
	/* Its head's hole mapped again: a new mapping at the old one's start. */
	munmap(head, mib / 4);
	cut_map(head, mib / 4);
	/* Mapped just below the pair's reservation, it has no room to grow in place. */
	grown = remap_one(grown, mib, 2 * mib);
	shrunk = remap_one(shrunk, mib, mib / 4);
	(void)grown, (void)shrunk;
	munmap(tail + mib / 2, mib / 2);
	munmap(middle + 16 * page, 4 * page);
	munmap(halves, mib / 2);
	munmap(halves + mib / 2, mib / 2);
	munmap(whole, mib);
	/* Two neighbours where a 2 MiB reservation was, cut across the seam. */
	munmap(pair, 2 * mib);
	cut_map(pair, mib);
	cut_map(pair + mib, mib);
	munmap(pair + mib / 2, mib);
	/*
	 * A length that is not whole pages: the kernel takes whole pages (the
	 * first 2 here), and the next cut starts where they end.
	 */
	munmap(ragged, page + 1);
	munmap(ragged + 2 * page, page);
	(void)untouched;
	printf("cut_mapped %zu\ncut_kept %zu\nremap_kept %zu\n", 11 * mib + mib / 4,
	       mib / 4 * 3 + mib / 4 + mib / 2 + (mib - 4 * page) + mib + mib / 2 + mib / 2 +
	       (mib - 3 * page), 2 * mib + mib / 4);
	return 0;
}

/* A file mapping: no anonymous memory, none of the allocations. */
static void map_file(void)
{
	void *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, 0, 0);

	if (p != MAP_FAILED)
		munmap(p, 4096);
}

static int mapped(void)
{
	const size_t mib = 1 << 20;
	int i;

	for (i = 0; i < 100; i++) {
		void *p = map_one(mib);

		if (i % 2)
			munmap(p, mib);
	}
	for (i = 0; i < 100; i++) {
		void *p = big_one(mib);

		if (i % 2)
			free(p);
	}
	for (i = 0; i < 10; i++)
		brk_one(4096);
	map_file();
	printf("mapped %zu\nmapped_kept %zu\nbig %zu\nbig_kept %zu\nbraked %d\n", 100 * mib,
	       50 * mib, 100 * mib, 50 * mib, 10 * 4096);
	return 0;
}

static int fns(void)
{
	unsigned long held, failed;

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
	printf("via_realloc_kept %lu\n", via_realloc_kept(&held));
	printf("via_realloc_failed %lu\n", via_realloc_failed(&failed));
	printf("moved_kept %lu\nfailed_kept %lu\nkept %lu\n", held, failed, held + failed);
	return 0;
}

int main(int argc, char **argv)
{
	if ((argc == 3 || argc == 4) && strcmp(argv[1], "paths") == 0)
		return paths(atol(argv[2]), argc == 4 && strcmp(argv[3], "wait") == 0);
	if ((argc == 2 || argc == 3) && strcmp(argv[1], "fns") == 0) {
		char go;

		if (argc == 3 && (strcmp(argv[2], "wait") != 0 || read(0, &go, 1) != 1))
			return 2;
		return fns();
	}
	if (argc == 4 && strcmp(argv[1], "aged") == 0)
		return aged(atol(argv[2]), atoi(argv[3]));
	if (argc == 3 && strcmp(argv[1], "forked") == 0)
		return forked(atol(argv[2]));
	if (argc == 3 && strcmp(argv[1], "badfree") == 0)
		return badfree(atol(argv[2]));
	if (argc == 3 && strcmp(argv[1], "execs") == 0)
		return execs(atol(argv[2]));
	if (argc == 2 && strcmp(argv[1], "mapped") == 0)
		return mapped();
	if (argc == 2 && strcmp(argv[1], "cut") == 0)
		return cut();
	if (argc == 3 && (strcmp(argv[1], "steady") == 0 || strcmp(argv[1], "leaky") == 0)) {
		steady(atoi(argv[2]), strcmp(argv[1], "leaky") == 0);
		return 0;
	}
	fprintf(stderr, "usage: alloc_paths paths N [wait] | fns [wait] | aged N SECONDS | badfree N\n"
		"       | forked N | execs N | steady SECONDS | leaky SECONDS | mapped | cut\n");
	return 2;
}
