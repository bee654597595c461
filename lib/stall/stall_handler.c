// SPDX-License-Identifier: GPL-2.0
/*
 * The signal handler: turn ticks into stall decisions, and a due stall into
 * one report written with one write(2).
 *
 * Everything here runs in signal context: no malloc, no stdio, no locks.
 * It formats into the detector's preallocated buffer, reads the perf ring
 * with plain loads, unwinds with tables built before (stall_objects.c), and
 * reads the stack only inside [sp, stack top) of the current thread, which is
 * mapped by definition, so no read can fault.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/prctl.h>
#include <ucontext.h>
#include <unistd.h>

#include "stall_internal.h"

/*
 * initial-exec: a plain %fs-relative load in the handler.  The default model
 * of a shared library goes through __tls_get_addr, which may allocate when
 * another library with TLS was dlopen'ed since: not in a signal handler.
 */
__thread struct stitch_stall *stall_current __attribute__((tls_model("initial-exec")));
struct sigaction stall_old_sigio;
volatile int stall_old_sigio_valid;

/* ---- formatting without stdio ------------------------------------------ */

struct out {
	char *p, *end;
	bool cut;
};

static void put_s(struct out *o, const char *s)
{
	while (*s) {
		if (o->p == o->end) {
			o->cut = true;
			return;
		}
		*o->p++ = *s++;
	}
}

static void put_u(struct out *o, uint64_t v)
{
	char tmp[24];
	int i = sizeof(tmp) - 1;

	tmp[i] = 0;
	do {
		tmp[--i] = '0' + v % 10;
		v /= 10;
	} while (v);
	put_s(o, tmp + i);
}

static void put_x(struct out *o, uint64_t v)
{
	char tmp[24];
	int i = sizeof(tmp) - 1;

	tmp[i] = 0;
	do {
		tmp[--i] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	tmp[--i] = 'x';
	tmp[--i] = '0';
	put_s(o, tmp + i);
}

/* 0 if the clock cannot be read. */
static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	if (clock_gettime(c, &ts))	/* async-signal-safe (POSIX) */
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* ---- the user backtrace ------------------------------------------------ */

static const struct unwind_table *lookup(void *ctx, uint64_t pc, uint64_t *bias)
{
	const struct stall_object *o = stall_object_find(ctx, pc);

	if (!o || !o->table.nr)
		return NULL;
	*bias = o->bias;
	return &o->table;
}

static const char *stop_name(enum unwind_stop why)
{
	switch (why) {
	case UNWIND_STOP_END:
		return NULL;
	case UNWIND_STOP_TRUNCATED:
		return "truncated";
	case UNWIND_STOP_NO_MODULE:
		return "no-module";
	case UNWIND_STOP_NO_RULE:
		return "no-cfi";
	default:
		return "bad-frame";
	}
}

static void put_user_stack(struct stitch_stall *d, struct out *o, const ucontext_t *uc)
{
	const struct stall_objects *objs = __atomic_load_n(&d->objs, __ATOMIC_ACQUIRE);
	struct unwind_regs regs = {
#ifdef __aarch64__
		.ip = uc->uc_mcontext.pc,
		.sp = uc->uc_mcontext.sp,
		.bp = uc->uc_mcontext.regs[29],
		.lr = uc->uc_mcontext.regs[30],
#else
		.ip = uc->uc_mcontext.gregs[REG_RIP],
		.sp = uc->uc_mcontext.gregs[REG_RSP],
		.bp = uc->uc_mcontext.gregs[REG_RBP],
#endif
	};
	struct unwind_stack stack = { .start = regs.sp };
	enum unwind_stop why;
	const char *stop;
	int n, i;

	/*
	 * Everything from sp up to the top of this thread's stack is live and
	 * mapped.  On any other stack (sigaltstack, a coroutine's) we know no
	 * bounds, so only the interrupted pc is shown.
	 */
	if (regs.sp >= d->stack_lo && regs.sp < d->stack_hi) {
		stack.data = (const uint8_t *)(uintptr_t)regs.sp;
		stack.len = d->stack_hi - regs.sp;
	}
	n = unwind_user(&regs, &stack, lookup, (void *)objs, d->uframes, STALL_MAX_UFRAMES, &why);
	for (i = 0; i < n; i++) {
		/* A return address points after the call: name the call itself. */
		uint64_t pc = d->uframes[i].exact ? d->uframes[i].pc : d->uframes[i].pc - 1;
		const struct stall_object *obj = stall_object_find(objs, pc);

		put_s(o, "  user ");
		if (obj) {
			put_s(o, obj->name);
			put_s(o, "+");
			put_x(o, pc - obj->bias);
			if (obj->build_id[0]) {
				put_s(o, " build-id=");
				put_s(o, obj->build_id);
			}
		} else {
			put_x(o, pc);
			d->need_refresh = 1;	/* maybe dlopen'ed since: look at next task_end */
		}
		put_s(o, "\n");
	}
	stop = stop_name(why);
	if (stop) {
		put_s(o, "  user-stop ");
		put_s(o, stop);
		put_s(o, "\n");
	}
}

/* ---- reports ----------------------------------------------------------- */

static void deliver(const struct stitch_stall *d, const char *text, size_t len)
{
	ssize_t r;

	if (d->cfg.report) {
		d->cfg.report(text, len, d->cfg.report_arg);
		return;
	}
	do
		r = write(d->cfg.fd, text, len);	/* one write: reports never interleave */
	while (r < 0 && errno == EINTR);
}

/* Rate limit per detector: true if this report may be written now. */
static bool rate_ok(struct stitch_stall *d)
{
	uint64_t now = clock_ns(CLOCK_MONOTONIC);

	if (!d->cfg.reports_per_minute)
		return true;
	if (!d->window_start || now - d->window_start >= d->window_ns) {
		d->window_start = now;
		d->window_count = 0;
	}
	if (d->window_count >= d->cfg.reports_per_minute) {
		d->suppressed++;
		return false;
	}
	d->window_count++;
	return true;
}

static void emit(struct stitch_stall *d, const ucontext_t *uc)
{
	struct out o = { d->buf, d->buf + STALL_REPORT_SIZE - 16 };
	char comm[17] = "";
	int i;

	if (!rate_ok(d))
		return;
	prctl(PR_GET_NAME, comm);	/* now, not at start: threads rename themselves */
	put_s(&o, "stitch-stall: tid=");
	put_u(&o, d->tid);
	put_s(&o, " comm=");
	for (i = 0; comm[i]; i++)	/* one token: the line stays parseable */
		if (comm[i] == ' ' || comm[i] == '\n')
			comm[i] = '_';
	put_s(&o, comm);
	put_s(&o, " stall=");
	put_u(&o, (d->cand_quiet + 500000) / 1000000);
	put_s(&o, d->mode == STALL_MODE_WALL_TIMER ? "ms clock=wall threshold=" : "ms clock=cpu threshold=");
	put_u(&o, d->cfg.threshold_ms);
	put_s(&o, "ms suppressed=");
	put_u(&o, d->suppressed);
	if (d->lost) {
		put_s(&o, " lost=");
		put_u(&o, d->lost);
	}
	put_s(&o, "\n");
	/* Innermost first: the kernel frames are below the user ones. */
	for (i = 0; i < d->nkframes; i++) {
		put_s(&o, "  kernel ");
		put_x(&o, d->kframes[i]);
		put_s(&o, "\n");
	}
	put_user_stack(d, &o, uc);
	if (o.cut) {
		o.end += 16;	/* the reserve */
		put_s(&o, "  [cut]\n");
	}
	deliver(d, d->buf, o.p - d->buf);
	d->suppressed = 0;
}

/* Outside the handler: tell suppressed reports that no later report carried. */
void stall_tell_suppressed(struct stitch_stall *d)
{
	struct out o = { d->buf, d->buf + STALL_REPORT_SIZE };

	if (!d->suppressed)
		return;
	put_s(&o, "stitch-stall: tid=");
	put_u(&o, d->tid);
	put_s(&o, " suppressed=");
	put_u(&o, d->suppressed);
	put_s(&o, " (reports over the per-minute limit, not written)\n");
	deliver(d, d->buf, o.p - d->buf);
	d->suppressed = 0;
}

void stall_write_line(const struct stitch_stall *d, const char *s)
{
	deliver(d, s, strlen(s));
}

/* ---- ticks ------------------------------------------------------------- */

/*
 * One handler invocation sees a batch of ticks (the perf samples queued
 * since the last one, or a timer expiry and its overruns).  The ticks are
 * in time order; seq is read once per batch.
 */
struct batch {
	bool changed;		/* a task ended (or idle) since the previous batch */
	bool started;
	bool prev_user;		/* the previous tick of this batch was in user mode */
	bool candidate;		/* a report is due */
};

/*
 * perf's ticks count the task clock, which in a VM also counts the time the
 * hypervisor took the vCPU from the thread (steal); the thread's CPU time
 * (CLOCK_THREAD_CPUTIME_ID) leaves it out.  Their difference now: the
 * steal so far, plus a constant.  False if either cannot be read.
 */
static bool stolen_ns(const struct stitch_stall *d, int64_t *stolen)
{
	uint64_t task, cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);

	if (!cpu || read(d->perf_fd, &task, sizeof(task)) != sizeof(task))
		return false;
	*stolen = (int64_t)(task - cpu);
	return true;
}

static void saw_progress(struct stitch_stall *d, uint64_t t)
{
	d->progress = t;
	d->progress_valid = true;
	d->next_report = d->threshold_ns;
	d->progress_stolen_valid = d->mode == STALL_MODE_PERF &&
				   stolen_ns(d, &d->progress_stolen);
}

/*
 * Steal is no code's time: a report is due only once the quiet time less
 * what was stolen since the progress is due, and says that.  Without, a
 * 3 ms task was reported as a 20 ms stall (1 run in 40 of stall_loop
 * appsigio beside make -j3, on a VM with ~5% steal; not seen again at 0.3%,
 * in 40 runs either way): 17 ms taken from the vCPU under it would do
 * that, and a CI run's off-CPU test read 1.056 s of task clock for 1.000 s
 * of CPU time the same day.  Both clocks are read when the handler runs,
 * not at the ticks: steal between a tick and its handler is counted with
 * the next stretch (a long system call's ticks come in one batch on its
 * way out: steal inside one is not taken out).  Two system calls a
 * progress and a due report: 2.4 us here, every 5 ms of CPU at most (0.05%).
 */
static uint64_t own_quiet(const struct stitch_stall *d, uint64_t quiet)
{
	int64_t now;
	uint64_t stolen;

	if (!d->progress_stolen_valid || !stolen_ns(d, &now) || now <= d->progress_stolen)
		return quiet;
	stolen = now - d->progress_stolen;
	return stolen >= quiet ? 0 : quiet - stolen;
}

static void tick(struct stitch_stall *d, struct batch *b, uint64_t t, bool user_mode,
		 const uint64_t *kc, int nk)
{
	bool first = !b->started;
	uint64_t quiet, slack = d->period_ns / 8;

	b->started = true;
	/*
	 * Where in the batch did the task end?  Before its first tick: a tick
	 * taken in user mode is handled at once, and one taken in the kernel
	 * is handled on the way back, before any user code runs.  A user-mode
	 * tick followed by more ticks means the signal was blocked while user
	 * code ran, so the end may be as late as the next tick.
	 */
	if (!d->progress_valid || (b->changed && (first || b->prev_user))) {
		b->prev_user = user_mode;
		b->candidate = false;
		saw_progress(d, t);
		return;
	}
	b->prev_user = user_mode;
	/*
	 * The first of merged expiries is an estimate (now less the missed
	 * periods) and may fall before the last progress: nothing was quiet
	 * then.  Unchecked, the difference wrapped, and the doubling below
	 * would have spun for ever in the signal handler.
	 */
	if (t <= d->progress)
		return;
	quiet = t - d->progress;
	/* Ticks are period_ns apart give or take timer jitter: don't miss the threshold by a hair. */
	if (quiet + slack >= d->next_report)
		quiet = own_quiet(d, quiet);
	if (quiet + slack >= d->next_report) {
		/* reports at threshold, 2x, 4x... while it lasts */
		while (d->next_report <= quiet + slack && d->next_report <= UINT64_MAX / 2)
			d->next_report *= 2;
		b->candidate = true;
	}
	/*
	 * The report goes out when the batch ends (a long system call shows
	 * up as one batch on its way out): it tells the stall's length then,
	 * with the latest kernel stack.
	 */
	if (!b->candidate)
		return;
	d->cand_quiet = quiet;
	d->nkframes = nk;
	if (nk)
		memcpy(d->kframes, kc, nk * sizeof(*kc));
}

static void ring_copy(const struct stitch_stall *d, uint64_t pos, void *dst, size_t len)
{
	uint64_t off = pos & (d->ring_size - 1);
	size_t first = len;

	/* Records wrap around the end of the data area. */
	if (off + len > d->ring_size)
		first = d->ring_size - off;
	memcpy(dst, d->ring + off, first);
	memcpy((uint8_t *)dst + first, d->ring, len - first);
}

/* A sample as we asked for it: ip, pid/tid, read value (task clock ns), callchain. */
static void perf_sample(struct stitch_stall *d, struct batch *b, const struct perf_event_header *h)
{
	const uint64_t *w = (const uint64_t *)(d->record + sizeof(*h));
	size_t words = (h->size - sizeof(*h)) / 8, i, nr;
	uint64_t kc[STALL_MAX_KFRAMES];
	bool user_mode = (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_USER;
	int nk = 0;

	if (words < 4)
		return;
	nr = w[3];
	if (nr > words - 4)
		nr = words - 4;
	for (i = 0; i < nr && nk < STALL_MAX_KFRAMES; i++) {
		uint64_t ip = w[4 + i];

		if (ip >= (uint64_t)PERF_CONTEXT_MAX)	/* PERF_CONTEXT_KERNEL and friends: markers */
			continue;
		kc[nk++] = ip;
	}
	/* The chain of a user-mode sample is empty: no kernel line at all. */
	tick(d, b, w[2], user_mode, kc, user_mode ? 0 : nk);
}

static void perf_batch(struct stitch_stall *d, struct batch *b)
{
	struct perf_event_mmap_page *m = d->meta;
	uint64_t head = __atomic_load_n(&m->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = m->data_tail;

	while (tail < head) {
		struct perf_event_header h;

		ring_copy(d, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || tail + h.size > head) {
			tail = head;	/* cannot happen with a sane kernel: resynchronize */
			break;
		}
		if (h.type == PERF_RECORD_SAMPLE && h.size <= sizeof(d->record)) {
			ring_copy(d, tail, d->record, h.size);
			perf_sample(d, b, &h);
		} else if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 16) {
			uint64_t lost[2];

			ring_copy(d, tail + sizeof(h), lost, sizeof(lost));
			d->lost += lost[1];
		}
		tail += h.size;
	}
	__atomic_store_n(&m->data_tail, tail, __ATOMIC_RELEASE);
}

static void disarm(struct stitch_stall *d)
{
	struct itimerspec off = { 0 };

	timer_settime(d->timer, 0, &off, NULL);	/* async-signal-safe */
	d->disarmed = 1;
}

static void handle(struct stitch_stall *d, int sig, siginfo_t *si, const ucontext_t *uc)
{
	unsigned long seq = d->seq;
	struct batch b = { .changed = seq != d->last_seq || d->idle };

	if (d->mode == STALL_MODE_PERF) {
		/* Our signal, or SIGIO when the real-time queue was full: drain the ring either way. */
		perf_batch(d, &b);
	} else if (sig == d->cfg.signo) {
		bool wall = d->mode == STALL_MODE_WALL_TIMER;
		uint64_t now = clock_ns(wall ? CLOCK_MONOTONIC : CLOCK_THREAD_CPUTIME_ID);
		uint64_t missed = si->si_code == SI_TIMER && si->si_overrun > 0 ? si->si_overrun : 0;

		if (wall && d->idle) {
			/* Blocked waiting for work: sleep without waking every period. */
			d->last_seq = seq;
			saw_progress(d, now);
			disarm(d);
			return;
		}
		/*
		 * Expiries merged into one signal: the first of them, then now.
		 * A wall timer's expiries merge while the thread waits to run,
		 * so no task ends in between (as for kernel-mode samples).  A
		 * CPU timer's merge while the thread runs (its clock moves only
		 * then): the kernel notices an expiry only at a scheduler tick
		 * that finds the thread running, up to 209 ms of CPU late at
		 * load 9 on 2 CPUs, so a task may end as late as now (as for
		 * user-mode samples).  Taken as quiet time, that merged time
		 * made a report of short tasks after the end of a real stall.
		 */
		if (missed)
			tick(d, &b, now - missed * d->period_ns, !wall, NULL, 0);
		tick(d, &b, now, !wall, NULL, 0);
	}
	/*
	 * Task ends are seen only by a batch with a tick.  One without (the
	 * program's own SIGIO, or our signal for a record an earlier handler
	 * took) leaves them to the next: taken as seen, they were lost, and
	 * the next tick's quiet time ran from a tick before them.  A program
	 * with O_ASYNC sockets (SIGIO every 2 ms, tasks of 3 ms) got 18-21
	 * reports of stalls that never were in 1.5 s (stall_loop appsigio).
	 */
	if (b.started)
		d->last_seq = seq;
	if (b.candidate)
		emit(d, uc);
}

static void chain_sigio(int sig, siginfo_t *si, void *uc)
{
	const struct sigaction *old = &stall_old_sigio;

	if (!stall_old_sigio_valid)
		return;
	/* SIGIO may be the program's own (O_ASYNC sockets): its handler still runs. */
	if (old->sa_flags & SA_SIGINFO) {
		if (old->sa_sigaction)
			old->sa_sigaction(sig, si, uc);
	} else if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
		old->sa_handler(sig);
	}
}

void stall_signal_handler(int sig, siginfo_t *si, void *uc)
{
	int saved_errno = errno;
	struct stitch_stall *d = stall_current;

	/* No detector on this thread: a late signal after stop, or another's SIGIO. */
	if (d)
		handle(d, sig, si, uc);
	if (sig == SIGIO)
		chain_sigio(sig, si, uc);
	errno = saved_errno;
}
