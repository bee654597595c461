// SPDX-License-Identifier: GPL-2.0
/*
 * Test workload for `stitch snapshot`: 54 threads parked in known places,
 * each behind its own named call chain, built with -O2
 * -fomit-frame-pointer so only CFI can unwind them:
 *
 *   20  mutex_worker -> mutex_wait_a -> mutex_wait_b -> pthread_mutex_lock
 *       (main holds the mutex for ever)
 *   10  pipe_worker -> pipe_wait_a -> read() on a pipe nobody writes
 *   10  sleep_worker -> sleep_wait_a -> nanosleep(1000 s)
 *    8  epoll_worker -> epoll_wait_a -> epoll_wait() on an empty epoll set
 *    1  spin_worker -> spin_loop: increments a counter for ever
 *    1  deep_worker -> deep_recurse x DEEP_DEPTH -> nanosleep
 *    3  churn_worker: threads that start and exit all the time (only with
 *       "churn": a thread exiting mid-walk)
 *   With "quiet" (for timing 50 of them): 6, 4, 4, 4, no spinner, 1:
 *   20 threads with main.
 *   main -> main_report: every 100 ms appends the spinner's counter to
 *       the file named by argv[1] (if any, else sleeps), for the
 *       never-stopped test
 *
 * Prints "ready" once every thread has started.  Calls are followed by a
 * volatile store so the compiler cannot turn them into tail calls.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define DEEP_DEPTH 100

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int pipe_fds[2], epfd;
static volatile unsigned long counter;
static volatile int sink;
static volatile int started;

static void mark_started(void)
{
	__atomic_fetch_add(&started, 1, __ATOMIC_SEQ_CST);
}

static NOINLINE void mutex_wait_b(void)
{
	pthread_mutex_lock(&lock);
	pthread_mutex_unlock(&lock);
	sink = 1;
}

static NOINLINE void mutex_wait_a(void)
{
	mutex_wait_b();
	sink = 2;
}

static NOINLINE void *mutex_worker(void *arg)
{
	mark_started();
	mutex_wait_a();
	sink = 3;
	return arg;
}

static NOINLINE void pipe_wait_a(void)
{
	char c;

	sink = read(pipe_fds[0], &c, 1);
	sink = 4;
}

static NOINLINE void *pipe_worker(void *arg)
{
	mark_started();
	pipe_wait_a();
	sink = 5;
	return arg;
}

static NOINLINE void sleep_wait_a(void)
{
	struct timespec ts = { 1000, 0 };

	nanosleep(&ts, NULL);
	sink = 6;
}

static NOINLINE void *sleep_worker(void *arg)
{
	mark_started();
	sleep_wait_a();
	sink = 7;
	return arg;
}

static NOINLINE void epoll_wait_a(void)
{
	struct epoll_event ev;

	sink = epoll_wait(epfd, &ev, 1, -1);
	sink = 8;
}

static NOINLINE void *epoll_worker(void *arg)
{
	mark_started();
	epoll_wait_a();
	sink = 9;
	return arg;
}

static NOINLINE void spin_loop(void)
{
	for (;;)
		counter++;
}

static NOINLINE void *spin_worker(void *arg)
{
	mark_started();
	spin_loop();
	sink = 10;
	return arg;
}

static NOINLINE void deep_recurse(int n)
{
	if (n > 1) {
		deep_recurse(n - 1);
	} else {
		struct timespec ts = { 1000, 0 };

		nanosleep(&ts, NULL);
	}
	sink = n;
}

static NOINLINE void *deep_worker(void *arg)
{
	mark_started();
	deep_recurse(DEEP_DEPTH);
	sink = 11;
	return arg;
}

static NOINLINE void *churn_once(void *arg)
{
	sink = 12;
	return arg;
}

static NOINLINE void *churn_worker(void *arg)
{
	mark_started();
	for (;;) {
		pthread_t t;

		if (pthread_create(&t, NULL, churn_once, NULL) == 0)
			pthread_join(t, NULL);
	}
	return arg;
}

static void start(void *(*fn)(void *), int n)
{
	pthread_t t;
	int i;

	for (i = 0; i < n; i++) {
		if (pthread_create(&t, NULL, fn, NULL)) {
			perror("pthread_create");
			exit(1);
		}
	}
}

static NOINLINE void main_report(const char *path)
{
	FILE *f = path ? fopen(path, "w") : NULL;
	/* Without a log, wake never: main's stack stays put for the tests. */
	struct timespec ts = { f ? 0 : 1000, f ? 100000000 : 0 };

	for (;;) {
		struct timespec now;

		nanosleep(&ts, NULL);
		if (f) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			fprintf(f, "%ld.%09ld %lu\n", (long)now.tv_sec, now.tv_nsec, counter);
			fflush(f);
		}
	}
}

int main(int argc, char **argv)
{
	const char *log = argc > 1 && strcmp(argv[1], "-") ? argv[1] : NULL;
	int churn = argc > 2 && !strcmp(argv[2], "churn");
	int quiet = argc > 2 && !strcmp(argv[2], "quiet");
	int want = quiet ? 6 + 4 + 4 + 4 + 1 : 20 + 10 + 10 + 8 + 1 + 1 + (churn ? 3 : 0);

	if (pipe(pipe_fds) || (epfd = epoll_create1(0)) < 0) {
		perror("setup");
		return 1;
	}
	pthread_mutex_lock(&lock);
	start(mutex_worker, quiet ? 6 : 20);
	start(pipe_worker, quiet ? 4 : 10);
	start(sleep_worker, quiet ? 4 : 10);
	start(epoll_worker, quiet ? 4 : 8);
	start(spin_worker, quiet ? 0 : 1);
	start(deep_worker, 1);
	if (churn)
		start(churn_worker, 3);
	while (__atomic_load_n(&started, __ATOMIC_SEQ_CST) < want)
		usleep(1000);
	/* Every thread has started; let each reach its wait. */
	usleep(200000);
	printf("ready\n");
	fflush(stdout);
	main_report(log);
	return 0;
}
