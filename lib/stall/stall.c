// SPDX-License-Identifier: GPL-2.0
/*
 * libstitch-stall: the public API, and setting up the tick source.
 *
 * The tick source runs freely for the detector's whole life (see
 * stall_internal.h for why): nothing is armed or disarmed per task, so
 * task_begin/task_end are a store each, and there is no re-arm that could
 * lose the countdown (PERF_EVENT_IOC_RESET would not restart it anyway).
 * Only the wall-clock timer is stopped while the loop sleeps, and restarted
 * by the next task_begin.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "stall_internal.h"

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

static sigset_t our_signals;	/* under stall_lock */
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static int told_timer;		/* the fallback is announced once per process */

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * One handler for all our signals and SIGIO, each blocking all the others
 * while it runs: two ticks of one detector must never interleave.
 */
static int install_handlers(int signo)
{
	struct sigaction sa = { .sa_sigaction = stall_signal_handler }, cur;
	int sig, err = 0;

	pthread_mutex_lock(&stall_lock);
	sigaddset(&our_signals, signo);
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sa.sa_mask = our_signals;
	sigaddset(&sa.sa_mask, SIGIO);
	for (sig = SIGRTMIN; sig <= SIGRTMAX && !err; sig++)
		if (sigismember(&our_signals, sig) == 1 && sigaction(sig, &sa, NULL))
			err = -errno;
	if (!err && sigaction(SIGIO, NULL, &cur) == 0) {
		/*
		 * The program may have set its own SIGIO handler since we took
		 * SIGIO: keep calling it (an old one is dropped only if it was
		 * ours).  Swapping it while a SIGIO handler runs on another
		 * thread is a race we accept: start() is rare.
		 */
		if (!(cur.sa_flags & SA_SIGINFO) || cur.sa_sigaction != stall_signal_handler) {
			__atomic_store_n(&stall_old_sigio_valid, 0, __ATOMIC_RELEASE);
			stall_old_sigio = cur;
			__atomic_store_n(&stall_old_sigio_valid, 1, __ATOMIC_RELEASE);
		}
		sigaction(SIGIO, &sa, NULL);	/* ours, or the mask grew */
	}
	pthread_mutex_unlock(&stall_lock);
	return err;
}

/*
 * A forked child is a new thread with no perf event or timer of ours: it
 * must not look like it has a detector (start would say EBUSY).  The copied
 * detector's memory is left alone, as the parent's other memory is.
 */
static void forget_in_child(void)
{
	stall_current = NULL;
}

static void register_atfork(void)
{
	pthread_atfork(NULL, NULL, forget_in_child);
}

static void say_once(struct stitch_stall *d, int *told, const char *msg)
{
	if (!__atomic_exchange_n(told, 1, __ATOMIC_RELAXED))
		stall_write_line(d, msg);
}

static int perf_open(struct stitch_stall *d)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_TASK_CLOCK,	/* the thread's CPU time, in ns */
		.sample_period = d->period_ns,
		/* READ carries the task clock at the sample: the tick's time. */
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_READ |
			       PERF_SAMPLE_CALLCHAIN,
		.disabled = 1,
		.exclude_hv = 1,
		.exclude_callchain_user = 1,	/* we unwind user space ourselves, with CFI */
		.wakeup_events = 1,		/* a signal per sample */
		.sample_max_stack = STALL_MAX_KFRAMES,
	};
	struct f_owner_ex owner = { .type = F_OWNER_TID, .pid = d->tid };
	long page = sysconf(_SC_PAGESIZE);
	void *map;
	int fd, fl;

	fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	/*
	 * No retry with exclude_kernel when kernel profiling is refused
	 * (perf_event_paranoid 2): samples in the kernel would be dropped, so a
	 * stall in a system call would go unseen, while the CPU timer still
	 * sees it (as overruns) with the same user-only backtrace.
	 */
	if (fd < 0)
		return -errno;
	d->ring_size = STALL_RING_PAGES * page;
	d->ring_map_size = (STALL_RING_PAGES + 1) * page;
	map = mmap(NULL, d->ring_map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		int err = -errno;	/* perf_event_mlock_kb is per user: many threads can hit it */

		close(fd);
		return err;
	}
	d->meta = map;
	d->ring = (uint8_t *)map + page;
	/* Signal this thread (not the process) with our real-time signal. */
	fl = fcntl(fd, F_GETFL);
	if (fcntl(fd, F_SETOWN_EX, &owner) || fcntl(fd, F_SETSIG, d->cfg.signo) ||
	    fl < 0 || fcntl(fd, F_SETFL, fl | O_ASYNC)) {
		int err = -errno;

		munmap(map, d->ring_map_size);
		close(fd);
		return err;
	}
	d->perf_fd = fd;
	return 0;
}

static int timer_open(struct stitch_stall *d, clockid_t clock)
{
	struct sigevent se = {
		.sigev_notify = SIGEV_THREAD_ID,	/* this thread, not any thread */
		.sigev_signo = d->cfg.signo,
		.sigev_value.sival_ptr = d,
	};

	se._sigev_un._tid = d->tid;
	if (timer_create(clock, &se, &d->timer))
		return -errno;
	d->have_timer = true;
	return 0;
}

static void timer_arm(struct stitch_stall *d)
{
	struct itimerspec its = {
		.it_value = { d->period_ns / 1000000000, d->period_ns % 1000000000 },
		.it_interval = { d->period_ns / 1000000000, d->period_ns % 1000000000 },
	};

	timer_settime(d->timer, 0, &its, NULL);
}

static void stack_bounds(struct stitch_stall *d)
{
	pthread_attr_t attr;
	void *addr;
	size_t size;

	if (pthread_getattr_np(pthread_self(), &attr))
		return;		/* no bounds: reports carry the interrupted pc only */
	if (!pthread_attr_getstack(&attr, &addr, &size)) {
		d->stack_lo = (uintptr_t)addr;
		d->stack_hi = (uintptr_t)addr + size;
	}
	pthread_attr_destroy(&attr);
}

static bool env_true(const char *name)
{
	const char *v = getenv(name);

	return v && *v && strcmp(v, "0") != 0;
}

static int pick_tick_source(struct stitch_stall *d)
{
	char msg[256];
	int err;

	if (d->cfg.flags & STITCH_STALL_WALL_CLOCK) {
		d->mode = STALL_MODE_WALL_TIMER;
		return timer_open(d, CLOCK_MONOTONIC);
	}
	if ((d->cfg.flags & STITCH_STALL_FORCE_TIMER) || env_true("STITCH_STALL_FORCE_TIMER")) {
		snprintf(msg, sizeof(msg), "stitch-stall: perf_event_open disabled (%s), using a "
			 "CPU timer: user backtraces only\n",
			 d->cfg.flags & STITCH_STALL_FORCE_TIMER ? "STITCH_STALL_FORCE_TIMER flag"
								 : "STITCH_STALL_FORCE_TIMER=1");
	} else {
		d->mode = STALL_MODE_PERF;
		err = perf_open(d);
		if (!err)
			return 0;
		snprintf(msg, sizeof(msg), "stitch-stall: perf_event_open refused (%s), using a "
			 "CPU timer: user backtraces only\n", strerror(-err));
	}
	d->mode = STALL_MODE_CPU_TIMER;
	err = timer_open(d, CLOCK_THREAD_CPUTIME_ID);
	if (!err)
		say_once(d, &told_timer, msg);
	return err;
}

struct stitch_stall *stitch_stall_start(const struct stitch_stall_config *cfg)
{
	struct stitch_stall *d;
	const char *win;
	sigset_t set;
	int err;

	if (!cfg || !cfg->threshold_ms || cfg->threshold_ms > 3600 * 1000 ||
	    (cfg->signo && (cfg->signo < SIGRTMIN || cfg->signo > SIGRTMAX)) ||
	    (!cfg->report && cfg->fd < 0)) {
		errno = EINVAL;
		return NULL;
	}
	if (stall_current) {
		errno = EBUSY;
		return NULL;
	}
	d = aligned_alloc(64, (sizeof(*d) + 63) & ~(size_t)63);
	if (!d) {
		errno = ENOMEM;
		return NULL;
	}
	memset(d, 0, sizeof(*d));
	d->perf_fd = -1;
	d->cfg = *cfg;
	if (!d->cfg.signo)
		d->cfg.signo = SIGRTMAX - 3;
	d->tid = gettid();
	d->threshold_ns = (uint64_t)cfg->threshold_ms * 1000000;
	d->period_ns = d->threshold_ns / STALL_TICKS_PER_THRESHOLD;
	d->next_report = d->threshold_ns;
	d->window_ns = 60ull * 1000000000;
	/* For tests only: waiting a real minute to see "suppressed" is too slow. */
	win = getenv("STITCH_STALL_RATE_WINDOW_MS");
	if (win && atoi(win) > 0)
		d->window_ns = (uint64_t)atoi(win) * 1000000;
	stack_bounds(d);
	d->buf = malloc(STALL_REPORT_SIZE);
	d->objs = stall_objects_get();
	err = -ENOMEM;
	if (!d->buf || !d->objs)
		goto fail;
	pthread_once(&atfork_once, register_atfork);
	err = install_handlers(d->cfg.signo);
	if (err)
		goto fail;
	err = pick_tick_source(d);
	if (err)
		goto fail;
	/* A thread that inherited a mask blocking our signal would never tick. */
	sigemptyset(&set);
	sigaddset(&set, d->cfg.signo);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);

	d->last_seq = d->seq;
	stall_current = d;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	/* Arm only now that the handler can find us. */
	if (d->mode == STALL_MODE_PERF) {
		/* Nothing stale may be taken for a tick: start from an empty ring. */
		d->meta->data_tail = __atomic_load_n(&d->meta->data_head, __ATOMIC_ACQUIRE);
		ioctl(d->perf_fd, PERF_EVENT_IOC_ENABLE, 0);
	} else {
		if (d->mode == STALL_MODE_WALL_TIMER) {
			d->progress = now_ns(CLOCK_MONOTONIC);
			d->progress_valid = true;
		}
		timer_arm(d);
	}
	return d;

fail:
	if (d->objs)
		stall_objects_put(d->objs);
	free(d->buf);
	free(d);
	errno = -err;
	return NULL;
}

/* Wall mode: the handler stopped the timer while we were idle; start it again. */
static __attribute__((noinline)) void rearm(struct stitch_stall *d)
{
	/* The timer is stopped: no tick can run while we reset the handler's state. */
	d->progress = now_ns(CLOCK_MONOTONIC);
	d->progress_valid = true;
	d->next_report = d->threshold_ns;
	d->last_seq = d->seq;
	d->disarmed = 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	timer_arm(d);
}

void stitch_stall_task_begin(struct stitch_stall *d)
{
	d->idle = 0;
	/* Ordered against the handler only: it runs on this thread. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (unlikely(d->disarmed))
		rearm(d);
}

void stitch_stall_task_end(struct stitch_stall *d)
{
	unsigned long s = d->seq + 1;

	__atomic_signal_fence(__ATOMIC_SEQ_CST);	/* the task's work happened before */
	d->seq = s;
	/* Now and then, a look for dlopen'ed objects (one dl_iterate_phdr call). */
	if (unlikely(!(s & STALL_REFRESH_MASK)))
		stall_objects_refresh(d);
}

void stitch_stall_idle(struct stitch_stall *d)
{
	unsigned long s = d->seq + 1;

	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	d->seq = s;
	d->idle = 1;
	/* About to block anyway: a cheaper place to look for new objects. */
	if (unlikely(!(s & 15) || d->need_refresh))
		stall_objects_refresh(d);
}

void stitch_stall_stop(struct stitch_stall *d)
{
	if (!d)
		return;
	/* First make the handler ignore us: a queued signal may still come. */
	if (stall_current == d)
		stall_current = NULL;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (d->perf_fd >= 0) {
		ioctl(d->perf_fd, PERF_EVENT_IOC_DISABLE, 0);
		munmap(d->meta, d->ring_map_size);
		close(d->perf_fd);
	}
	if (d->have_timer)
		timer_delete(d->timer);
	stall_tell_suppressed(d);
	stall_objects_put(d->objs);
	free(d->buf);
	free(d);
}
