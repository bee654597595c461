// SPDX-License-Identifier: GPL-2.0
/*
 * Workload for stitch latency's tests: calls of which a known share is
 * slow, for a known reason.  Waits for SIGUSR1 after printing "ready" (so
 * that a tracer attached with -p sees every call), makes N calls, then
 * prints what it measured itself: the count, the slow ones' total, its own
 * p99 (clock_gettime, the vDSO: no system call of its own) and how many slow
 * calls were the ones meant to be slow: a busy runner makes the odd other
 * call slow too (a preemption, a page fault), which the tests must allow.
 *
 *   slow_calls pipe N   read(2) of one byte from a pipe; every 20th byte
 *                       the writer thread sends 5 ms after the reader is
 *                       there to wait for it (blocked in the kernel's pipe
 *                       read): a reader slower than the writer (a guest's
 *                       probes under emulation) would otherwise find the
 *                       late bytes already written
 *   slow_calls lock N   lookup_record(): read_block(), a pread(2) of a file in memory;
 *                       every 20th call also takes a mutex another thread
 *                       holds for 5 ms (wait_for_lock: blocked in futex_wait)
 *
 * Every call is also between two USDT probes, slowcalls:call__begin(i) and
 * slowcalls:call__end(i), for a root made of a probe pair.
 */
#define _GNU_SOURCE		/* memfd_create */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/sdt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>

#define EVERY 20
#define DELAY_NS 5000000L

static int fds[2], file_fd, ncalls;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t turn;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_ns(long ns)
{
	struct timespec ts = { 0, ns };

	while (nanosleep(&ts, &ts))
		;
}

/* pipe: one byte per call, every EVERY-th one late, counted from the reader's turn. */
static void *writer(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < ncalls; i++) {
		if (i % EVERY == EVERY - 1) {
			pthread_barrier_wait(&turn);
			sleep_ns(DELAY_NS);
		}
		if (write(fds[1], "x", 1) != 1)
			exit(1);
	}
	return NULL;
}

/* lock: holds the mutex 5 ms each time the reader is about to need it. */
static void *holder(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < ncalls / EVERY; i++) {
		pthread_mutex_lock(&lock);
		pthread_barrier_wait(&turn);
		sleep_ns(DELAY_NS);
		pthread_mutex_unlock(&lock);
		pthread_barrier_wait(&turn);
	}
	return NULL;
}

__attribute__((noinline)) static void wait_for_lock(void)
{
	pthread_mutex_lock(&lock);
	pthread_mutex_unlock(&lock);
}

__attribute__((noinline)) static int read_block(int i, char *buf)
{
	return pread(file_fd, buf, 512, (i % 8) * 512);
}

/* The root of the lock mode: a lookup that sometimes waits for the lock. */
__attribute__((noinline)) int lookup_record(int i, char *buf)
{
	int n = read_block(i, buf);

	if (i % EVERY == EVERY - 1)
		wait_for_lock();
	return n;
}

__attribute__((noinline)) static int read_byte(char *c)
{
	return read(fds[0], c, 1);
}

static int cmp(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	long long *d, t0, slow_ns = 0;
	int i, lockmode, nslow = 0, nslow_meant = 0, sig;
	pthread_t th;
	sigset_t set;
	char buf[512];

	if (argc != 3 || (strcmp(argv[1], "pipe") && strcmp(argv[1], "lock")))
		return 2;
	lockmode = !strcmp(argv[1], "lock");
	ncalls = atoi(argv[2]);
	d = calloc(ncalls, sizeof(*d));
	if (!d || pipe(fds))
		return 1;
	/* read_block's file, in memory: a guest's over 9p took up to 20 ms a read. */
	file_fd = memfd_create("slow_calls_block", 0);
	if (file_fd < 0 || ftruncate(file_fd, 8 * 512))
		return 1;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	pthread_barrier_init(&turn, NULL, 2);
	/* The pipe's read end too: what a traced read(2) names (fd 3 unless we inherited more). */
	printf("ready %d fd %d\n", getpid(), fds[0]);
	fflush(stdout);
	sigwait(&set, &sig);
	pthread_create(&th, NULL, lockmode ? holder : writer, NULL);
	for (i = 0; i < ncalls; i++) {
		/*
		 * lock: the holder takes the mutex before the call that needs it;
		 * pipe: the writer's delay starts now.
		 */
		if (i % EVERY == EVERY - 1)
			pthread_barrier_wait(&turn);
		t0 = now_ns();
		STAP_PROBE1(slowcalls, call__begin, i);
		if (lockmode)
			lookup_record(i, buf);
		else if (read_byte(buf) != 1)
			return 1;
		STAP_PROBE1(slowcalls, call__end, i);
		d[i] = now_ns() - t0;
		if (lockmode && i % EVERY == EVERY - 1)
			pthread_barrier_wait(&turn);
		if (d[i] >= 1000000) {
			nslow++;
			slow_ns += d[i];
			nslow_meant += i % EVERY == EVERY - 1;
		}
	}
	pthread_join(th, NULL);
	qsort(d, ncalls, sizeof(*d), cmp);
	printf("calls %d slow %d slow_ns %lld p99_ns %lld slow_meant %d\n", ncalls, nslow,
	       slow_ns, d[(ncalls * 99 + 99) / 100 - 1], nslow_meant);
	return 0;
}
