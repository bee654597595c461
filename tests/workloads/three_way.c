// SPDX-License-Identifier: GPL-2.0
/*
 * Workload for stitch latency: a request handler slow three ways, with
 * helper threads.  Of every 20 calls of handle_request(), one waits ~12 ms
 * for a mutex another thread took just before the call (lock_state:
 * blocked in a futex), one
 * waits ~6 ms for a reply on a pipe a worker thread writes late
 * (fetch_reply: blocked in read), one computes for 7 ms of its own CPU time
 * in nested functions (parse -> checksum -> mix), and the others return in
 * microseconds.  Every slow kind is far from a 5 ms threshold, the fast
 * ones far under it.  Waits for SIGUSR1 after printing "ready", makes N
 * calls, then prints what it measured itself:
 *
 *   calls N slow S slow_ns NS lock_ns NS pipe_ns NS compute_ns NS
 *
 * slow: calls of 5 ms or more by its own clock (around the call); lock_ns,
 * pipe_ns, compute_ns: the wall time of the calls of each kind.
 *
 *   three_way N
 */
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define EVERY 20
#define HOLD_NS 12000000L
#define REPLY_NS 6000000L
#define COMPUTE_NS 7000000LL
#define SLOW_NS 5000000LL

static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;
static sem_t hold_go, hold_taken;
static int req_pipe[2], reply_pipe[2];
static volatile unsigned long state, sink;

static long long clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_ns(long ns)
{
	struct timespec ts = { 0, ns };

	while (nanosleep(&ts, &ts))
		;
}

/* Takes the lock when asked and keeps it HOLD_NS. */
static void *holder(void *arg)
{
	(void)arg;
	for (;;) {
		while (sem_wait(&hold_go))
			;
		pthread_mutex_lock(&state_lock);
		sem_post(&hold_taken);
		sleep_ns(HOLD_NS);
		pthread_mutex_unlock(&state_lock);
	}
	return NULL;
}

/* Answers each request byte REPLY_NS late. */
static void *replier(void *arg)
{
	char c;

	(void)arg;
	while (read(req_pipe[0], &c, 1) == 1) {
		sleep_ns(REPLY_NS);
		if (write(reply_pipe[1], &c, 1) != 1)
			break;
	}
	return NULL;
}

__attribute__((noinline)) static void lock_state(void)
{
	pthread_mutex_lock(&state_lock);
	state++;
	pthread_mutex_unlock(&state_lock);
}

__attribute__((noinline)) static int fetch_reply(char c)
{
	if (write(req_pipe[1], &c, 1) != 1 || read(reply_pipe[0], &c, 1) != 1)
		exit(1);
	return c;
}

__attribute__((noinline)) static void mix(int rounds)
{
	int i;

	for (i = 0; i < rounds; i++)
		sink = sink * 6364136223846793005UL + 1442695040888963407UL;
}

__attribute__((noinline)) static void checksum(long long end)
{
	while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		mix(4000);
}

/* COMPUTE_NS of this thread's CPU time. */
__attribute__((noinline)) static void parse(void)
{
	checksum(clock_ns(CLOCK_THREAD_CPUTIME_ID) + COMPUTE_NS);
}

__attribute__((noinline)) int handle_request(int i)
{
	switch (i % EVERY) {
	case 5:
		lock_state();
		break;
	case 10:
		fetch_reply('x');
		break;
	case 15:
		parse();
		break;
	default:
		mix(100);
	}
	return i;
}

int main(int argc, char **argv)
{
	long long t0, d, slow_ns = 0, kind_ns[EVERY] = { 0 };
	int i, n, nslow = 0, sig;
	pthread_t th;
	sigset_t set;

	if (argc != 2 || (n = atoi(argv[1])) <= 0)
		return 2;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (sem_init(&hold_go, 0, 0) || sem_init(&hold_taken, 0, 0) || pipe(req_pipe) ||
	    pipe(reply_pipe) || pthread_create(&th, NULL, holder, NULL) ||
	    pthread_create(&th, NULL, replier, NULL))
		return 1;
	printf("ready %d\n", getpid());
	fflush(stdout);
	sigwait(&set, &sig);
	for (i = 0; i < n; i++) {
		if (i % EVERY == 5) {
			/* the holder has the lock before the call asks for it */
			sem_post(&hold_go);
			while (sem_wait(&hold_taken))
				;
		}
		t0 = clock_ns(CLOCK_MONOTONIC);
		handle_request(i);
		d = clock_ns(CLOCK_MONOTONIC) - t0;
		if (d >= SLOW_NS) {
			nslow++;
			slow_ns += d;
		}
		kind_ns[i % EVERY] += d;
	}
	printf("calls %d slow %d slow_ns %lld lock_ns %lld pipe_ns %lld compute_ns %lld\n", n,
	       nslow, slow_ns, kind_ns[5], kind_ns[10], kind_ns[15]);
	return 0;
}
