/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libstitch-stall internals: the detector, the loaded-object tables the
 * signal handler unwinds with, and the handler itself.
 *
 * How a stall is seen without touching the kernel per task: a periodic
 * "tick" every threshold/4 of the thread's CPU time (a task-clock perf event,
 * or a POSIX CPU timer) runs the handler; task_end only bumps a sequence
 * number.  A tick that finds the number unchanged since the previous tick
 * knows no task ended in between, so the quiet time grows by one period; a
 * report is due when it reaches the threshold (then 2x, 4x...).  Four ticks
 * per threshold bound the detection delay to a quarter of the threshold
 * without arming anything per task.
 */
#ifndef STITCH_STALL_INTERNAL_H
#define STITCH_STALL_INTERNAL_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "unwind/cfi.h"
#include "unwind/unwind.h"
#include "stitch/stall.h"

#define STALL_TICKS_PER_THRESHOLD 4
#define STALL_MAX_KFRAMES	64	/* perf sample_max_stack */
#define STALL_MAX_UFRAMES	128
#define STALL_REPORT_SIZE	(32 << 10)
#define STALL_RECORD_MAX	2048	/* biggest sample we parse (64 frames need ~600 bytes) */
#define STALL_RING_PAGES	8	/* data pages; a lost record only costs a tick */
#define STALL_REFRESH_MASK	1023	/* task_end checks for new objects every 1024 tasks */

enum stall_mode {
	STALL_MODE_PERF,	/* task-clock perf event: user + kernel stacks */
	STALL_MODE_CPU_TIMER,	/* timer_create(CLOCK_THREAD_CPUTIME_ID) */
	STALL_MODE_WALL_TIMER,	/* timer_create(CLOCK_MONOTONIC) */
};

/* One loaded object: where its code is, and how to unwind through it. */
struct stall_object {
	uint64_t lo, hi;		/* executable segments, run-time addresses */
	uint64_t bias;			/* run-time address - ELF vaddr */
	char *name;			/* as reported: the path */
	char build_id[2 * 20 + 1];	/* hex, "" if none */
	struct unwind_table table;	/* empty if the file could not be read */
	struct stall_object *next;	/* in the process-wide cache */
};

/* An immutable, sorted view of the loaded objects (a snapshot), shared by detectors. */
struct stall_objects {
	int refs;			/* under stall_lock */
	unsigned long long adds, subs;	/* dl_iterate_phdr counters it was built at */
	size_t nr;
	struct stall_object **obj;	/* sorted by lo */
};

struct stitch_stall {
	/*
	 * Hot, written by task_begin/end on every task: a cache line of its
	 * own so detectors of different threads never share one.
	 */
	volatile unsigned long seq;	/* task ends + idles */
	volatile int idle;		/* between stitch_stall_idle() and task_begin() */
	volatile int disarmed;		/* wall mode: the handler stopped the timer while idle */
	char pad[64 - sizeof(unsigned long) - 2 * sizeof(int)];

	/* Set up at start, read by the handler. */
	struct stitch_stall_config cfg;
	enum stall_mode mode;
	pid_t tid;
	uint64_t period_ns, threshold_ns;
	int perf_fd;
	struct perf_event_mmap_page *meta;
	uint8_t *ring;			/* data pages */
	uint64_t ring_size;
	size_t ring_map_size;
	timer_t timer;
	bool have_timer;
	uint64_t stack_lo, stack_hi;	/* the thread's stack: the unwinder reads only [sp, stack_hi) */
	struct stall_objects *objs;	/* swapped only by this thread, outside the handler */
	volatile int need_refresh;	/* the handler met a pc in no known object */

	/* Handler state: only the handler (on this thread) touches it. */
	unsigned long last_seq;
	bool progress_valid;
	uint64_t progress;		/* tick time (ns of the mode's clock) progress was last seen */
	int64_t progress_stolen;	/* perf's ticks: stolen_ns() at the progress */
	bool progress_stolen_valid;
	uint64_t next_report;		/* quiet time of the next report: threshold, 2x, 4x... */
	uint64_t window_ns;		/* rate limit window: a minute (tests shorten it) */
	uint64_t window_start;		/* rate limiting, CLOCK_MONOTONIC ns */
	unsigned int window_count;
	unsigned long suppressed;
	unsigned long lost;		/* perf records lost (ring full) */

	/* The report being built: preallocated, the handler never allocates. */
	uint64_t kframes[STALL_MAX_KFRAMES];
	int nkframes;
	uint64_t cand_quiet;
	struct unwind_frame uframes[STALL_MAX_UFRAMES];
	uint8_t record[STALL_RECORD_MAX];
	char *buf;
};

/* stall_objects.c */
extern pthread_mutex_t stall_lock;
struct stall_objects *stall_objects_get(void);		/* current snapshot, ref taken; NULL on ENOMEM */
void stall_objects_put(struct stall_objects *o);	/* under no lock */
bool stall_objects_changed(const struct stall_objects *o);
void stall_objects_refresh(struct stitch_stall *d);	/* rebuild if objects were (un)loaded */
const struct stall_object *stall_object_find(const struct stall_objects *o, uint64_t pc);

/* stall_report.c */
void stall_signal_handler(int sig, siginfo_t *si, void *uc);
extern struct sigaction stall_old_sigio;
extern volatile int stall_old_sigio_valid;
extern __thread struct stitch_stall *stall_current __attribute__((tls_model("initial-exec")));
void stall_write_line(const struct stitch_stall *d, const char *s);	/* outside the handler */
void stall_tell_suppressed(struct stitch_stall *d);

#endif /* STITCH_STALL_INTERNAL_H */
