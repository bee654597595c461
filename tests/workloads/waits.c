// SPDX-License-Identifier: GPL-2.0
/*
 * Off-CPU workload for stitch's tests: threads that wait in known places for
 * times they measure themselves.  Built -O2 -fomit-frame-pointer like chain.c,
 * so only CFI unwinds it.  Every waiting call sits at the end of a named
 * chain (main or a thread start -> wait_<kind>() -> the blocking call), and
 * the time spent inside the call is summed: its wall time (CLOCK_MONOTONIC)
 * less the thread's CPU time in it (CLOCK_THREAD_CPUTIME_ID: fsync, for one,
 * spends a third of its time on the CPU), which is the time it was off the
 * CPU.  At exit each mode prints one line per kind:
 *
 *     waited KIND OFFCPU_SECONDS CALLS WALL_SECONDS
 *
 *   waits blockers SECONDS   four threads for SECONDS each:
 *                            sleep: wait_sleep() -> nanosleep(10 ms);
 *                            pipe: wait_pipe() -> read() of a pipe a feeder
 *                            thread writes every 10 ms (feed_pipe());
 *                            mutex: wait_mutex() -> pthread_mutex_lock() of a
 *                            mutex a holder thread keeps for 10 ms at a time
 *                            (hold_mutex());
 *                            fsync: wait_fsync() -> fsync() of 64 KiB written
 *                            to a file in the current directory
 *   waits wall SECONDS       one thread: compute_phase() burns SECONDS of its
 *                            CPU time, then sleep_phase() sleeps for SECONDS
 *                            (prints "oncpu SECONDS" of its task clock and
 *                            "waited sleep ...")
 *   waits wakers SECONDS     a producer computes ~5 ms then writes a byte in
 *                            produce(); the consumer blocks in consume() ->
 *                            read(): every wakeup of the consumer is the
 *                            producer's write
 *   waits storm SECONDS      two threads ping-pong one byte over two pipes
 *                            (pong_a(), pong_b()) on one CPU: a context
 *                            switch storm (~790k switches/s on our 2-vCPU VM;
 *                            ~29k/s across two CPUs, where every wakeup is an
 *                            IPI); prints "switches N" (round trips x 2)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "task_clock.h"

#define NOINLINE __attribute__((noinline))
#define TICK_NS 10000000L	/* 10 ms */

static volatile unsigned long sink;
static double seconds;
static volatile int stop;

struct tally {
	const char *kind;
	double waited;		/* off the CPU */
	double wall;
	long calls;
	double t0, c0;		/* the call in progress */
};

static double clock_s(clockid_t which)
{
	struct timespec ts;

	clock_gettime(which, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double now(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

static void call_begin(struct tally *t)
{
	t->t0 = now();
	t->c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
}

static void call_end(struct tally *t)
{
	double wall = now() - t->t0;

	t->wall += wall;
	t->waited += wall - (clock_s(CLOCK_THREAD_CPUTIME_ID) - t->c0);
	t->calls++;
}

static void report(const struct tally *t)
{
	printf("waited %s %.6f %ld %.6f\n", t->kind, t->waited, t->calls, t->wall);
}

static NOINLINE void burn_ns(long ns)
{
	double end = now() + ns / 1e9;
	unsigned long i;

	while (now() < end)
		for (i = 0; i < 1000; i++)
			sink += i;
}

/*
 * Burn ns of this thread's CPU time: on a busy machine the wall time of a
 * phase holds time spent waiting for a CPU, which a profile counts apart
 * ([runnable]).  The clock is a system call, read every ~0.1 ms.
 */
static NOINLINE void burn_cpu_ns(long ns)
{
	double end = clock_s(CLOCK_THREAD_CPUTIME_ID) + ns / 1e9;
	unsigned long i;

	while (clock_s(CLOCK_THREAD_CPUTIME_ID) < end)
		for (i = 0; i < (1ul << 18); i++)
			sink += i;
}

static void sleep_ns(long ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000L, .tv_nsec = ns % 1000000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* ---- blockers ---- */

static int feed[2];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static NOINLINE void wait_sleep(struct tally *t)
{
	double end = now() + seconds;

	while (now() < end) {
		call_begin(t);
		sleep_ns(TICK_NS);
		call_end(t);
	}
	sink++;
}

static NOINLINE void wait_pipe(struct tally *t)
{
	double end = now() + seconds;
	char c;

	while (now() < end) {
		call_begin(t);
		if (read(feed[0], &c, 1) != 1)
			break;
		call_end(t);
	}
	sink++;
}

static NOINLINE void wait_mutex(struct tally *t)
{
	double end = now() + seconds;

	while (now() < end) {
		call_begin(t);
		pthread_mutex_lock(&lock);
		call_end(t);
		pthread_mutex_unlock(&lock);
		/* Let the holder take it again: it waits on CPU-free sleeps only. */
		sleep_ns(100000);
	}
	sink++;
}

static NOINLINE void wait_fsync(struct tally *t)
{
	static char buf[64 << 10];
	double end = now() + seconds;
	char path[] = "waits-fsync.XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0) {
		perror("waits: mkstemp");
		exit(1);
	}
	unlink(path);
	memset(buf, 'x', sizeof(buf));
	while (now() < end) {
		if (pwrite(fd, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf))
			break;
		call_begin(t);
		fsync(fd);
		call_end(t);
	}
	close(fd);
	sink++;
}

static NOINLINE void *feed_pipe(void *arg __attribute__((unused)))
{
	while (!stop) {
		sleep_ns(TICK_NS);
		if (write(feed[1], "x", 1) != 1)
			break;
	}
	return NULL;
}

static NOINLINE void *hold_mutex(void *arg __attribute__((unused)))
{
	while (!stop) {
		pthread_mutex_lock(&lock);
		sleep_ns(TICK_NS);
		pthread_mutex_unlock(&lock);
		sleep_ns(100000);
	}
	return NULL;
}

static void *run_waiter(void *arg __attribute__((unused)))
{
	struct tally *t = arg;

	if (!strcmp(t->kind, "sleep"))
		wait_sleep(t);
	else if (!strcmp(t->kind, "pipe"))
		wait_pipe(t);
	else if (!strcmp(t->kind, "mutex"))
		wait_mutex(t);
	else
		wait_fsync(t);
	return NULL;
}

static void blockers(void)
{
	struct tally t[] = { { .kind = "sleep" }, { .kind = "pipe" }, { .kind = "mutex" }, { .kind = "fsync" } };
	pthread_t waiters[4], feeder, holder;
	int i;

	if (pipe(feed)) {
		perror("waits: pipe");
		exit(1);
	}
	pthread_create(&feeder, NULL, feed_pipe, NULL);
	pthread_create(&holder, NULL, hold_mutex, NULL);
	for (i = 0; i < 4; i++)
		pthread_create(&waiters[i], NULL, run_waiter, &t[i]);
	for (i = 0; i < 4; i++)
		pthread_join(waiters[i], NULL);
	stop = 1;
	pthread_join(feeder, NULL);
	pthread_join(holder, NULL);
	for (i = 0; i < 4; i++)
		report(&t[i]);
}

/* ---- wall ---- */

/*
 * Its time on a CPU as perf counts it (task_clock.h): what a profile's CPU
 * samples add up to, steal included, which CLOCK_THREAD_CPUTIME_ID leaves
 * out: at ~5% steal a CI run's samples held 1.056 s for 1.000 s of the
 * latter.  The thread's CPU time where perf will not count.
 */
static double task_clock_s(int fd)
{
	uint64_t ns;

	if (fd < 0 || !task_clock_read(fd, &ns))
		return clock_s(CLOCK_THREAD_CPUTIME_ID);
	return ns / 1e9;
}

static NOINLINE void compute_phase(double *oncpu)
{
	int fd = task_clock_open();
	double t0 = task_clock_s(fd);

	burn_cpu_ns((long)(seconds * 1e9));
	*oncpu = task_clock_s(fd) - t0;
	if (fd >= 0)
		close(fd);
}

static NOINLINE void sleep_phase(struct tally *t)
{
	call_begin(t);
	sleep_ns((long)(seconds * 1e9));
	call_end(t);
}

static void wall(void)
{
	struct tally t = { .kind = "sleep" };
	double oncpu;

	compute_phase(&oncpu);
	sleep_phase(&t);
	printf("oncpu %.6f\n", oncpu);
	report(&t);
}

/* ---- wakers ---- */

static int chan[2];

static NOINLINE void produce(void)
{
	burn_ns(5000000);
	if (write(chan[1], "x", 1) != 1)
		stop = 1;
}

static void *producer(void *arg __attribute__((unused)))
{
	while (!stop)
		produce();
	return NULL;
}

static NOINLINE void consume(struct tally *t, double end)
{
	char c;

	while (now() < end) {
		call_begin(t);
		if (read(chan[0], &c, 1) != 1)
			break;
		call_end(t);
	}
	sink++;
}

static void wakers(void)
{
	struct tally t = { .kind = "consume" };
	pthread_t p;

	if (pipe(chan)) {
		perror("waits: pipe");
		exit(1);
	}
	pthread_create(&p, NULL, producer, NULL);
	consume(&t, now() + seconds);
	stop = 1;
	pthread_join(p, NULL);
	report(&t);
}

/* ---- storm ---- */

static int ping[2], pong[2];
static long round_trips;

static NOINLINE void *pong_b(void *arg __attribute__((unused)))
{
	char c;

	while (read(ping[0], &c, 1) == 1 && c == 'x')
		if (write(pong[1], &c, 1) != 1)
			break;
	return NULL;
}

static NOINLINE void pong_a(double end)
{
	char c = 'x';

	while (now() < end) {
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			break;
		round_trips++;
	}
	c = 'q';
	if (write(ping[1], &c, 1) != 1)
		sink++;
}

static void storm(void)
{
	cpu_set_t one;
	pthread_t b;

	/* Both threads on one CPU: each write switches directly to the reader. */
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu() < 0 ? 0 : sched_getcpu(), &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		perror("waits: sched_setaffinity");

	if (pipe(ping) || pipe(pong)) {
		perror("waits: pipe");
		exit(1);
	}
	pthread_create(&b, NULL, pong_b, NULL);
	pong_a(now() + seconds);
	pthread_join(b, NULL);
	printf("switches %ld\n", round_trips * 2);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 2 ? argv[1] : "";

	seconds = argc > 2 ? atof(argv[2]) : 0;
	if (seconds <= 0) {
		fprintf(stderr, "usage: waits blockers|wall|wakers|storm SECONDS\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(mode, "blockers"))
		blockers();
	else if (!strcmp(mode, "wall"))
		wall();
	else if (!strcmp(mode, "wakers"))
		wakers();
	else if (!strcmp(mode, "storm"))
		storm();
	else {
		fprintf(stderr, "waits: unknown mode '%s'\n", mode);
		return 2;
	}
	sink++;
	return 0;
}
