// SPDX-License-Identifier: GPL-2.0
/*
 * An event loop built WITHOUT libstitch-stall, for `stitch stalls`: every
 * task arrives through epoll_wait (an eventfd the loop pokes itself), runs,
 * and the loop waits again.  Thousands of short tasks, then the stalls on
 * purpose, each between two epoll_waits:
 *
 *   stall_epoll [SHORT_TASKS [SPIN_MS [POPULATE_MB]]]
 *
 * short_task: ~100 us of CPU each (never a stall); spin_for_stall: SPIN_MS of
 * this thread's CPU time in user code; populate_task: an mmap of POPULATE_MB
 * with MAP_POPULATE, a stall in the kernel.  Built -O2
 * -fomit-frame-pointer: stacks only name these functions if unwound by CFI.
 * Prints "tid=N" first, then one line per stall it caused.  With
 * STALL_EPOLL_GO=FILE in the environment it first idles in epoll_wait (5 ms
 * timeouts, a real wait) until FILE exists, for a tracer attaching by pid.
 * With STALL_EPOLL_EXIT_IN_STALL set it exits right after the spin, from
 * inside the stall (no loop syscall ends it).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cpu_spin.h"

__attribute__((noinline)) void short_task(void)
{
	uint64_t end = cpu_ns() + 100000;

	while (cpu_ns() < end)
		sink++;
}

/* Spins for ms of this thread's CPU time (cpu_spin.h). */
__attribute__((noinline)) void spin_for_stall(unsigned int ms)
{
	SPIN_CPU_MS(ms);
}

__attribute__((noinline)) void populate_task(size_t mb)
{
	void *p = mmap(NULL, mb << 20, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	munmap(p, mb << 20);
	__asm__ volatile("" ::: "memory");	/* keep this frame: no tail call */
}

enum task { SHORT, SPIN, POPULATE };

/* One turn of the loop: wait for the (self-posted) event, then run one task. */
static void turn(int ep, int efd, enum task t, unsigned int arg)
{
	struct epoll_event ev;
	uint64_t one = 1;

	if (write(efd, &one, sizeof(one)) != sizeof(one) || epoll_wait(ep, &ev, 1, -1) != 1 ||
	    read(efd, &one, sizeof(one)) != sizeof(one)) {
		perror("event");
		exit(2);
	}
	switch (t) {
	case SHORT:
		short_task();
		break;
	case SPIN:
		spin_for_stall(arg);
		break;
	case POPULATE:
		populate_task(arg);
		break;
	}
}

static volatile int helper_stop;

/* Another event loop in the same process, only ever running short tasks. */
static void *helper_loop(void *arg __attribute__((unused)))
{
	struct epoll_event ev = { .events = EPOLLIN };
	int ep = epoll_create1(EPOLL_CLOEXEC), efd = eventfd(0, EFD_CLOEXEC);

	if (ep < 0 || efd < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, efd, &ev)) {
		perror("helper epoll");
		exit(2);
	}
	printf("helper tid=%d\n", gettid());
	fflush(stdout);
	while (!helper_stop)
		turn(ep, efd, SHORT, 0);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3000, i;
	unsigned int spin_ms = argc > 2 ? atoi(argv[2]) : 150;
	unsigned int mb = argc > 3 ? atoi(argv[3]) : 256;
	struct epoll_event ev = { .events = EPOLLIN };
	int ep = epoll_create1(EPOLL_CLOEXEC), efd = eventfd(0, EFD_CLOEXEC);

	if (ep < 0 || efd < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, efd, &ev)) {
		perror("epoll");
		return 2;
	}
	pthread_t helper;

	printf("tid=%d\n", gettid());
	fflush(stdout);
	if (getenv("STALL_EPOLL_HELPER"))
		pthread_create(&helper, NULL, helper_loop, NULL);
	if (getenv("STALL_EPOLL_GO")) {
		struct stat st;

		while (stat(getenv("STALL_EPOLL_GO"), &st) != 0)
			epoll_wait(ep, &ev, 1, 5);	/* nothing posted: times out */
	}
	for (i = 0; i < n; i++)
		turn(ep, efd, SHORT, 0);
	if (spin_ms) {
		turn(ep, efd, SPIN, spin_ms);
		printf("stall spin %u ms\n", spin_ms);
		if (getenv("STALL_EPOLL_EXIT_IN_STALL"))
			exit(0);
	}
	for (i = 0; i < n / 10; i++)
		turn(ep, efd, SHORT, 0);
	if (mb) {
		turn(ep, efd, POPULATE, mb);
		printf("stall populate %u MB\n", mb);
	}
	for (i = 0; i < n / 10; i++)
		turn(ep, efd, SHORT, 0);
	/* The last turn: wait once more, so the last stall ends at a loop syscall. */
	turn(ep, efd, SHORT, 0);
	if (getenv("STALL_EPOLL_HELPER")) {
		helper_stop = 1;
		pthread_join(helper, NULL);
	}
	fflush(stdout);
	return 0;
}
