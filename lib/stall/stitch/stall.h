/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libstitch-stall: report event-loop stalls with the user backtrace and the
 * kernel callchain.
 *
 *	struct stitch_stall_config cfg = STITCH_STALL_CONFIG_DEFAULT;
 *	cfg.threshold_ms = 20;
 *	struct stitch_stall *d = stitch_stall_start(&cfg);
 *	for (;;) {
 *		stitch_stall_idle(d);		// about to block: not a stall
 *		n = epoll_wait(...);
 *		for (each event) {
 *			stitch_stall_task_begin(d);
 *			run_task();
 *			stitch_stall_task_end(d);
 *		}
 *	}
 *	stitch_stall_stop(d);
 *
 * A stall is "no task finished for threshold_ms of the thread's CPU time"
 * (or of wall time with STITCH_STALL_WALL_CLOCK).  The ticks come from
 * perf's task clock, which in a VM also counts what the hypervisor took
 * from the vCPU while the thread was on it (steal: on a test VM with 5%
 * steal a 30 ms spin of CPU time was up to 43 ms of it); what was stolen
 * since the last task end (its difference from CLOCK_THREAD_CPUTIME_ID,
 * read at each tick's handler) is taken out of a report's time.  With
 * STITCH_STALL_FORCE_TIMER the clock is CLOCK_THREAD_CPUTIME_ID's, which
 * counts no steal.  One detector watches the thread that started
 * it; every call but stop must come from that thread.  What the thread runs
 * between the start and its first task end (or stitch_stall_idle) is a
 * task too.
 *
 * A report is one write(2) of several lines:
 *
 *	stitch-stall: tid=1234 comm=worker stall=40ms clock=cpu threshold=20ms suppressed=0
 *	  kernel 0xffffffff8a2b3c4d			(innermost first; absent when the
 *	  kernel 0xffffffff8a2b1234			 stall was sampled in user mode)
 *	  user /usr/bin/server+0x1a2b build-id=0123abcd...
 *	  user /lib/x86_64-linux-gnu/libc.so.6+0x271c9 build-id=...
 *	  user-stop no-cfi				(only if the unwind did not reach the end)
 *
 * User frames are ELF virtual addresses, ready for `addr2line -e module`:
 * return addresses are already moved back by one byte into the call.
 *
 * The signal handler (a real-time signal, plus SIGIO, which the kernel sends
 * when the real-time queue is full; other SIGIO handlers are still called)
 * may interrupt the program's system calls: blocking calls the kernel never
 * restarts (epoll_wait, nanosleep) can return EINTR, as with any signal.
 */
#ifndef STITCH_STALL_H
#define STITCH_STALL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(STITCH_STALL_BUILD)
#define STITCH_STALL_API __attribute__((visibility("default")))
#else
#define STITCH_STALL_API
#endif

/*
 * Never use perf_event_open, only the CPU-time timer (user backtraces only).
 * Coarser under load: the kernel notices the timer's expiries only at a
 * scheduler tick that finds the thread running (up to 209 ms of CPU apart at
 * load 9 on 2 CPUs), so a stall shorter than that may go unseen.
 */
#define STITCH_STALL_FORCE_TIMER	(1u << 0)
/*
 * Count wall time instead of CPU time (a POSIX CLOCK_MONOTONIC timer): also
 * catches a task blocked in the kernel (sleeping, waiting on a lock), at the
 * price of one signal per idle period of more than threshold/4.  User
 * backtraces only.
 */
#define STITCH_STALL_WALL_CLOCK		(1u << 1)

struct stitch_stall_config {
	unsigned int threshold_ms;	/* a stall: no task end for this long (> 0) */
	unsigned int reports_per_minute;/* per detector; 0 = no limit */
	int fd;				/* reports are written here (default 2) */
	/*
	 * If set, called instead of write(fd) with each report, *inside the
	 * signal handler*: it must be async-signal-safe.
	 */
	void (*report)(const char *text, size_t len, void *arg);
	void *report_arg;
	unsigned int flags;		/* STITCH_STALL_FORCE_TIMER, STITCH_STALL_WALL_CLOCK */
	int signo;			/* real-time signal to use; 0 = SIGRTMAX - 3 */
};

#define STITCH_STALL_CONFIG_DEFAULT { \
	.threshold_ms = 50, .reports_per_minute = 10, .fd = 2, \
	.report = NULL, .report_arg = NULL, .flags = 0, .signo = 0 }

struct stitch_stall;

/*
 * Start watching the calling thread.  NULL and errno on failure (EINVAL: bad
 * config, EBUSY: this thread already has a detector, ENOMEM...).  The
 * environment variable STITCH_STALL_FORCE_TIMER=1 has the effect of the flag.
 */
STITCH_STALL_API struct stitch_stall *stitch_stall_start(const struct stitch_stall_config *cfg);

/* A task starts / ended.  A few nanoseconds; async-signal-safe. */
STITCH_STALL_API void stitch_stall_task_begin(struct stitch_stall *d);
STITCH_STALL_API void stitch_stall_task_end(struct stitch_stall *d);

/* The loop is about to block waiting for work: the time until the next task_begin is not a stall. */
STITCH_STALL_API void stitch_stall_idle(struct stitch_stall *d);

/* Stop and free; call from the watched thread.  Reports suppressed and not yet told are told now. */
STITCH_STALL_API void stitch_stall_stop(struct stitch_stall *d);

#ifdef __cplusplus
}
#endif

#endif /* STITCH_STALL_H */
