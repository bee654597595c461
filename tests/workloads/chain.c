// SPDX-License-Identifier: GPL-2.0
/*
 * Test workload for stitch's integration tests.  Built with
 * -O2 -fomit-frame-pointer, so only CFI can unwind it.  Every mode runs a
 * known call chain main -> a -> b -> c and spends its time at the end of it:
 *
 *   chain spin SECONDS        burn CPU in c()
 *   chain syscall SECONDS     c() calls getppid() in a loop
 *   chain deep DEPTH SECONDS  main -> a -> b -> recurse() x DEPTH -> c()
 *   chain two SECONDS         c() calls burn_a() and burn_b() in turn, each
 *                             calling burn(): two stacks of the same depth
 *                             that differ in one frame
 *   chain twins SECONDS       c() calls twin_x() once, then twin_y() three
 *                             times, each calling twin_mid() -> burn(): the
 *                             two stacks differ only in a return address two
 *                             frames above the leaf, with the same registers
 *                             and stack pointer below it
 *   chain deep-syscall DEPTH SECONDS
 *                             the same chain, c() calls getppid() in a loop
 *                             (a hot event with a deep stack, for benchmarks)
 *   chain signal SECONDS      main -> a -> b -> c() sleeps; a SIGALRM handler
 *                             spins in on_alarm() -> spin_in_handler()
 *   chain threads SECONDS     two threads: worker -> a -> b -> c() (spin)
 *   chain usdt SECONDS        c() fires USDT probe stitchtest:tick, guarded by
 *                             a semaphore, so it fires only when traced
 *   chain vdso SECONDS        c() calls clock_gettime() in a loop
 *   chain badsp SECONDS       c() -> spin_on_unmapped_stack() spins with its
 *                             stack pointer at 0x1000, a page never mapped
 *                             (below mmap_min_addr): the stack a sample
 *                             finds is unreadable
 *   chain work COUNT [wait [THREADS]]
 *                             c() calls burn() COUNT times, then prints the
 *                             elapsed seconds (fixed work, for benchmarks);
 *                             with "wait", first waits for a byte on stdin;
 *                             THREADS (default 1): main and THREADS-1
 *                             workers each do COUNT
 *
 * Calls are followed by a volatile store so the compiler cannot turn them
 * into tail calls (which would legitimately remove frames).
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

unsigned short stitchtest_tick_semaphore __attribute__((unused, section(".probes")));

#define NOINLINE __attribute__((noinline))

static volatile unsigned long sink;
static double deadline;
static const char *mode;
static long work_count;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static NOINLINE void burn(void)
{
	/*
	 * On the stack: each thread its own (a shared global bounces between
	 * CPUs).  Not __thread: a volatile TLS variable made this loop 2x
	 * slower and ~70% slower again under a 999 Hz timer on our VM.
	 */
	volatile unsigned long acc = 0;
	unsigned long i;

	for (i = 0; i < 2000000; i++)
		acc += i;
	sink += acc & 1;
}

NOINLINE void spin_in_handler(void)
{
	double until = now() + 0.2;

	while (now() < until)
		burn();
	sink++;
}

NOINLINE void on_alarm(int sig)
{
	(void)sig;
	spin_in_handler();
	sink++;
}

NOINLINE void burn_a(void)
{
	burn();
	sink++;
}

NOINLINE void burn_b(void)
{
	burn();
	sink++;
}

NOINLINE void twin_mid(void)
{
	burn();
	sink++;
}

/* Same frame size, different bodies (so that the compiler cannot merge them). */
NOINLINE void twin_x(void)
{
	twin_mid();
	sink += 1;
}

NOINLINE void twin_y(void)
{
	twin_mid();
	sink += 2;
}

static volatile int badsp_stop;

/* Until another thread sets badsp_stop: no call, no push, nothing on the stack. */
NOINLINE void spin_on_unmapped_stack(void)
{
#if defined(__x86_64__)
	asm volatile("mov %%rsp, %%r12\n\t"
		     "mov $0x1000, %%rsp\n"
		     "1:\tcmpl $0, %0\n\t"
		     "je 1b\n\t"
		     "mov %%r12, %%rsp"
		     : : "m"(badsp_stop) : "r12", "memory", "cc");
#elif defined(__aarch64__)
	asm volatile("mov x9, sp\n\t"
		     "mov x10, #0x1000\n\t"
		     "mov sp, x10\n"
		     "1:\tldr w10, [%0]\n\t"
		     "cbz w10, 1b\n\t"
		     "mov sp, x9"
		     : : "r"(&badsp_stop) : "x9", "x10", "memory");
#endif
	sink++;
}

static void *stop_badsp(void *arg)
{
	(void)arg;
	while (now() < deadline)
		usleep(10000);
	badsp_stop = 1;
	return NULL;
}

NOINLINE void c(void)
{
	if (strcmp(mode, "syscall") == 0 || strcmp(mode, "deep-syscall") == 0) {
		while (now() < deadline) {
			int i;

			for (i = 0; i < 1000; i++)
				sink += getppid();
		}
	} else if (strcmp(mode, "usdt") == 0) {
		while (now() < deadline) {
			if (stitchtest_tick_semaphore)
				DTRACE_PROBE1(stitchtest, tick, sink);
			usleep(1000);
		}
	} else if (strcmp(mode, "vdso") == 0) {
		struct timespec ts;

		while (now() < deadline)
			for (int i = 0; i < 1000; i++) {
				clock_gettime(CLOCK_MONOTONIC, &ts);
				sink += ts.tv_nsec;
			}
	} else if (strcmp(mode, "signal") == 0) {
		sigset_t alrm;

		while (now() < deadline)
			pause();
		/*
		 * The timer stays armed: a signal during exit() would spin its
		 * handler over exit's frames (under emulation 12% of the
		 * handler's samples, once), true but not the c() the tests ask.
		 */
		sigemptyset(&alrm);
		sigaddset(&alrm, SIGALRM);
		sigprocmask(SIG_BLOCK, &alrm, NULL);
	} else if (strcmp(mode, "badsp") == 0) {
		pthread_t stopper;

		if (pthread_create(&stopper, NULL, stop_badsp, NULL) == 0) {
			spin_on_unmapped_stack();
			pthread_join(stopper, NULL);
		}
	} else if (strcmp(mode, "two") == 0) {
		while (now() < deadline) {
			burn_a();
			burn_b();
		}
	} else if (strcmp(mode, "twins") == 0) {
		/* One call site each: a return address per twin, not per call. */
		static volatile int three = 3;

		while (now() < deadline) {
			twin_x();
			for (int i = 0; i < three; i++)
				twin_y();
		}
	} else if (strcmp(mode, "work") == 0) {
		long i;

		for (i = 0; i < work_count; i++)
			burn();
	} else {
		while (now() < deadline)
			burn();
	}
	sink++;
}

NOINLINE void recurse(int depth)
{
	if (depth > 1)
		recurse(depth - 1);
	else
		c();
	sink++;
}

static int deep_depth;

NOINLINE void b(void)
{
	if (deep_depth)
		recurse(deep_depth);
	else
		c();
	sink++;
}

NOINLINE void a(void)
{
	b();
	sink++;
}

static void *worker(void *arg)
{
	(void)arg;
	a();
	return NULL;
}

int main(int argc, char **argv)
{
	double seconds;

	if (argc < 3) {
		fprintf(stderr, "usage: chain MODE [DEPTH] SECONDS\n");
		return 2;
	}
	mode = argv[1];
	if (strcmp(mode, "deep") == 0 || strcmp(mode, "deep-syscall") == 0) {
		if (argc < 4)
			return 2;
		deep_depth = atoi(argv[2]);
		seconds = atof(argv[3]);
	} else if (strcmp(mode, "work") == 0) {
		pthread_t th[64];
		int i, nthreads = argc > 4 ? atoi(argv[4]) : 1;
		double t0;
		char go;

		if (nthreads < 1 || nthreads > 64)
			return 2;
		/* Start on cue, once a tracer is ready. */
		if (argc > 3 && strcmp(argv[3], "wait") == 0 && read(0, &go, 1) != 1)
			return 1;
		t0 = now();
		work_count = atol(argv[2]);
		for (i = 1; i < nthreads; i++)
			if (pthread_create(&th[i], NULL, worker, NULL))
				return 1;
		a();
		for (i = 1; i < nthreads; i++)
			pthread_join(th[i], NULL);
		printf("%.3f\n", now() - t0);
		return 0;
	} else {
		seconds = atof(argv[2]);
	}
	deadline = now() + seconds;

	if (strcmp(mode, "signal") == 0) {
		struct sigaction sa;
		struct itimerval;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_alarm;
		sigaction(SIGALRM, &sa, NULL);
		/*
		 * A periodic signal; the handler spins, interrupting c()'s pause().
		 * The first comes 200 ms on, when c() waits in pause(): at 10 ms it
		 * once found the process still on its way there (a guest's vCPU
		 * held up), and that handler's samples were, truly, under c alone.
		 */
		timer_t t;
		struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGALRM };
		struct itimerspec its = { { 0, 250000000 }, { 0, 200000000 } };

		timer_create(CLOCK_MONOTONIC, &sev, &t);
		timer_settime(t, 0, &its, NULL);
	}
	if (strcmp(mode, "threads") == 0) {
		pthread_t th[2];
		int i;

		mode = "spin";
		for (i = 0; i < 2; i++)
			pthread_create(&th[i], NULL, worker, NULL);
		for (i = 0; i < 2; i++)
			pthread_join(th[i], NULL);
		return 0;
	}
	a();
	sink++;
	return 0;
}
