// SPDX-License-Identifier: GPL-2.0
/*
 * The engine's run, in its phases: setup (load and attach: setup.c; start
 * the command if there is one), the loop (read the ring until the end:
 * decode.c turns each record into a counted stack; move the kernel's count
 * epochs on), the drain (detach, then the last records and counts), and
 * the finish (report what was lost: stats.c; the command's finish hook).
 * Commands drive it through engine.h, with options they parsed.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "capture.skel.h"
#include "capture/offcpu_blocked.h"
#include "capture/offcpu_wake_counts.h"
#include "profile/copy_unwind.h"
#include "record/record_internal.h"
#include "symbolize/debuginfod_fetch.h"
#include "util/clock.h"
#include "util/fd_limit.h"
#include "util/libbpf_log.h"
#include "util/privileges.h"

static volatile sig_atomic_t stop_requested;
/* -- COMMAND, while it runs: a SIGINT or SIGTERM sent to us alone goes to it too. */
static volatile pid_t child_to_signal;
/*
 * --inuse: the BPF side's alloc_stopped, set at the signal, before the
 * command it is passed on to frees as it exits (seen in the ~100 ms a
 * uprobe takes to detach here): its blocks are what it held when stopped.
 */
static volatile bool *stop_flag;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	stop_requested = 1;
	if (stop_flag)
		*stop_flag = true;
	/*
	 * Ctrl-C in a terminal signals the whole process group, the command
	 * included (si_code SI_KERNEL): passing it on would signal it twice.
	 * A kill(1) of stitch alone (SI_USER, SI_QUEUE) is passed on, as
	 * perf record -- CMD users expect.
	 */
	if (child_to_signal > 0 && si && si->si_code != SI_KERNEL &&
	    (sig == SIGINT || sig == SIGTERM))
		kill(child_to_signal, sig);
}

/*
 * Start COMMAND stopped at a pipe, so it is traced from its first
 * instruction; a second pipe (close-on-exec) reports exec failure.
 */
static int spawn_command(struct recorder *r, int *go_fd, int *err_fd)
{
	pid_t parent = getpid(), pid;
	int go[2], ex[2];

	if (pipe2(go, O_CLOEXEC) || pipe2(ex, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		char c;
		int e;

		close(go[1]);
		close(ex[0]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		/*
		 * Die with the tracer: a killed stitch (kill -9) must not leave
		 * the command running untraced.  If it died before this line,
		 * the parent is no longer it.
		 */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
			_exit(127);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(r->o->target.command[0], r->o->target.command);
		e = errno;
		if (write(ex[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(ex[1]);
	r->child = pid;
	child_to_signal = pid;
	*go_fd = go[1];
	*err_fd = ex[0];
	return 0;
}

/* kunwind: has the process model of pid not caught up with its mappings yet? */
static bool model_behind(void *ctx, uint32_t pid)
{
	struct recorder *r = ctx;

	perf_tracker_drain(&r->ptrack);
	return perf_tracker_pending(&r->ptrack, pid);
}

static void kunwind_update(struct recorder *r)
{
	if (!r->kw_ready)
		return;
	/*
	 * Process-tracking records were lost: a list may have been written
	 * from a model that missed an exec or an mmap, and would walk that
	 * process wrongly until it ends.  All go; each is written again from
	 * its process's mappings read anew (procs_lost_records) once the
	 * kernel copies one of its stacks.
	 */
	if (r->ptrack.lost != r->kw_lost_seen) {
		r->kw_lost_seen = r->ptrack.lost;
		kunwind_forget_all(&r->kw);
	}
	kunwind_refresh(&r->kw, &r->bins, &r->procs, model_behind, r);
}

/* Where off-CPU time read from the kernel goes. */
static void offcpu_sink_of(struct recorder *r, struct offcpu_sink *s)
{
	*s = (struct offcpu_sink){
		.kw = &r->kw,
		.fds = counted_fds_of(r),
		.stacks = &r->stacks,
		.stops = r->unwind_stops,
		.bytes = &r->bytes_received,
		.pending = &r->offcpu,
	};
}

/* Events counted in the kernel, of one epoch (deleted from the map) or all (-1). */
static void kernel_counts_read(struct recorder *r, int64_t epoch)
{
	struct counted_fds fds = counted_fds_of(r);
	int64_t n;

	if (!r->kw_ready || !r->skel->rodata->kunwind_count_in_kernel)
		return;
	n = kunwind_read_counts(&r->kw, bpf_map__fd(r->skel->maps.kernel_counts), &fds, epoch,
				&r->stacks, r->unwind_stops, &r->bytes_received);
	if (n < 0)
		fprintf(stderr, "stitch: reading the kernel's counts failed: %s\n",
			strerror((int)-n));
	if (r->o->nevents && r->o->events[0].kind == EVENT_ALLOC) {	/* alone (record_cmd.c) */
		n = kunwind_read_objects(&r->kw, bpf_map__fd(r->skel->maps.alloc_object_counts),
					 &fds, epoch, &r->stacks);
		if (n < 0)
			fprintf(stderr, "stitch: reading the kernel's allocation counts failed: %s\n",
				strerror((int)-n));
	}
	if (r->skel->rodata->offcpu_wakers) {
		struct offcpu_sink sink;

		offcpu_sink_of(r, &sink);
		n = offcpu_read_wakes(bpf_map__fd(r->skel->maps.offcpu_wakes), epoch, &sink);
		if (n < 0)
			fprintf(stderr, "stitch: reading the kernel's wakeups failed: %s\n",
				strerror((int)-n));
	}
}

/*
 * Every second, move the kernel to a new epoch; a poll later (programs
 * never run that long) the previous epoch is complete: read and free it.
 */
static void kernel_counts_tick(struct recorder *r, double now)
{
	if (!r->kw_ready || !r->skel->rodata->kunwind_count_in_kernel)
		return;
	if (r->counted_pending >= 0) {
		kernel_counts_read(r, r->counted_pending);
		r->counted_pending = -1;
	}
	if (now >= r->counted_next_flip) {
		r->counted_pending = r->skel->bss->counted_epoch;
		__atomic_store_n(&r->skel->bss->counted_epoch, r->counted_pending + 1,
				 __ATOMIC_RELEASE);
		r->counted_next_flip = now + 1.0;
	}
}

/* Threads still off the CPU when recording ends: their time so far. */
static void offcpu_still_blocked(struct recorder *r, uint64_t end_ns)
{
	struct offcpu_sink sink;

	offcpu_sink_of(r, &sink);
	if (bpf_program__autoload(r->skel->progs.on_sched_switch) ||
	    bpf_program__autoload(r->skel->progs.capture_legacy_sched_switch))
		offcpu_count_blocked(bpf_map__fd(r->skel->maps.offcpu_threads), r->o->min_block_ns,
				     end_ns, &sink);
}

static bool targets_alive(struct recorder *r)
{
	int i;

	if (r->o->target.command) {
		if (!r->child_done && waitpid(r->child, &r->child_status, WNOHANG) == r->child) {
			r->child_done = true;
			child_to_signal = 0;	/* reaped: its pid may be reused */
		}
		return !r->child_done;
	}
	if (r->o->target.all)
		return true;
	for (i = 0; i < r->o->target.npids; i++)
		if (kill(r->o->target.pids[i], 0) == 0 || errno == EPERM)
			return true;
	return false;
}

/*
 * Driven by a command with a gate (stitch stalls), the sampler is gated: no
 * sample comes until a thread stalls, and a process is recognized as an
 * interpreter only when one of its samples is read, so the first samples of
 * the first stall would lose their script frames.  Bring the targets'
 * models up to read_ns, the moment before the ring was last read, less a
 * margin for samples timed before it but written after (a BPF program runs
 * for microseconds, not milliseconds), and look at them now.
 */
static void watch_interpreters(struct recorder *r, uint64_t read_ns)
{
	const uint64_t margin_ns = 10000000;
	int i;

	if (!record_gated(r) || r->interp.disabled || read_ns < margin_ns)
		return;
	perf_tracker_drain(&r->ptrack);
	perf_tracker_apply(&r->ptrack, &r->procs, read_ns - margin_ns);
	if (r->o->target.command && !r->child_done)
		interp_proc_update(&r->interp, procs_get(&r->procs, r->child));
	for (i = 0; i < r->o->target.npids; i++)
		interp_proc_update(&r->interp, procs_get(&r->procs, r->o->target.pids[i]));
}

/*
 * -e alloc: a traced process mapped an allocator's file (perf_tracker's
 * on_mmap): attached unless it was.  A container started after the
 * recording, a command run in another root (unshare --root, chroot) map
 * a libc of their own, which the start could not find.
 */
static void alloc_mapped(void *ctx, uint32_t pid, const char *path)
{
	struct recorder *r = ctx;
	char err[1024];

	if (!attach_alloc_is_lib(path))
		return;
	if (attach_alloc_late(&r->att, pid, path, err, sizeof(err)) < 0)
		fprintf(stderr, "stitch record: %s\n", err);
}

/* A tracked process mapped code (perf_tracker's on_mmap), its model has it. */
static void code_mapped(void *ctx, uint32_t pid, const char *path)
{
	struct recorder *r = ctx;

	/* -a: its list goes in before its first stack, if its binaries are known. */
	if (r->kw_ready && r->kw.lazy)
		kunwind_mark_new(&r->kw, pid);
	if (r->o->nevents && r->o->events[0].kind == EVENT_ALLOC)
		alloc_mapped(r, pid, path);
}

/*
 * ... looked at every turn, as watch_interpreters does: no sample of such
 * a process comes before its allocator is attached, and it allocates from
 * its first instructions: what comes before the attach is not seen (a
 * command in another root was attached 40-60 ms after its start here).
 */
static void watch_allocators(struct recorder *r, uint64_t read_ns)
{
	const uint64_t margin_ns = 10000000;

	if (!r->ptrack.on_mmap || read_ns < margin_ns)
		return;
	perf_tracker_drain(&r->ptrack);
	perf_tracker_apply(&r->ptrack, &r->procs, read_ns - margin_ns);
}

/* Where a period's cut is (hooks->period). */
enum period_stage {
	PERIOD_RUNNING,
	PERIOD_FLIPPED,			/* the kernel's epoch flipped this turn */
	PERIOD_READ,			/* ... and was read this turn: hand over */
};

/* One run of the engine, from setup to finish. */
struct run {
	struct recorder *r;
	int go_fd, err_fd;		/* -- COMMAND: its start, its exec error (spawn_command) */
	double start, deadline;		/* mono_s() at the targets' start; the end, or 0 */
	uint64_t start_unix_ns;
	/* hooks->period: the current period's start, the next cut, the cut under way */
	double period_start, period_next, cut;
	uint64_t period_start_unix_ns, cut_unix_ns;
	enum period_stage stage;
};

static bool counting_in_kernel(struct recorder *r)
{
	return r->kw_ready && r->skel->rodata->kunwind_count_in_kernel;
}

/*
 * A period ends: counted in the kernel, the count epoch flips at this
 * turn's tick and is read at the next one (kernel_counts_tick), so the
 * period's stacks are all in r->stacks a turn (20 to 100 ms) after its end.
 */
static void period_cut_start(struct run *run, double now)
{
	struct recorder *r = run->r;

	if (!r->hooks || !r->hooks->period || run->stage != PERIOD_RUNNING ||
	    now < run->period_next)
		return;
	run->cut = now;
	run->cut_unix_ns = clock_ns(CLOCK_REALTIME);
	run->stage = PERIOD_FLIPPED;
	r->counted_next_flip = 0;
}

/*
 * The period's stacks to the hook, then a new period (last: the one the
 * recording's end cut).  0, or 1 if the hook failed.
 */
static int period_hand_over(struct run *run, bool last)
{
	struct recorder *r = run->r;
	struct record_result res = {
		.seconds = run->cut - run->period_start,
		.start_unix_ns = run->period_start_unix_ns,
		.end_unix_ns = run->cut_unix_ns,
		.stacks = &r->stacks,
		.bins = &r->bins,
	};
	uint64_t dropped = r->bins.syms_dropped;
	double held_at;
	int rc;

	/*
	 * --inuse: what is held at the period's end, for the last one when
	 * the programs stopped (inuse_stop), just after the deadline.  A -d
	 * that is a multiple of the period puts that a moment after the
	 * period before's read: the same blocks would go again, as a second
	 * snapshot (the cut comes later: detaching took 1.6 s here).
	 */
	held_at = r->inuse_stopped ? r->end_ns / 1e9 : run->cut;
	if (!last || held_at - run->period_start >= r->hooks->period_s / 10)
		inuse_period(r);
	alloc_leaves_drop_inner(&r->att.alloc_leaves, &r->stacks);
	rc = r->hooks->period(r->hooks->ctx, &res) ? 1 : 0;
	stacks_free(&r->stacks);
	/*
	 * New kernel stacks go to the other map, emptied first, so that a long
	 * run's never fill it.  It holds the period before last's, all read by
	 * now: here, not at the cut, whose epoch is read a turn later with keys
	 * that took their stacks in the period before (an off-CPU interval
	 * across the cut: seen as 100 ms sleeps without kernel frames).
	 */
	if (counting_in_kernel(r))
		kstacks_flip(r);
	/*
	 * The period's stacks are named and gone: the binaries only they
	 * named may go once no process maps them (reclaim.c), or an agent
	 * would keep every binary the host ever ran.  Held off-CPU stacks
	 * still name theirs.
	 */
	binary_cache_unmark_sampled(&r->bins);
	offcpu_pending_mark_sampled(&r->offcpu);
	/*
	 * Those of exited processes need their symbols no more (most let
	 * them go as they were named: resolver_release_gone): with DWARF,
	 * ~1.5 MB a binary (and its file's pages), held for their processes'
	 * grace, 7 s and more, after being named (reclaim.c).  What naming
	 * took goes back to the kernel now: a period naming 100 such binaries
	 * took 160 MB more, which stayed in our RSS as free heap for good.
	 */
	binary_cache_release_unnamed(&r->bins);
	if (r->bins.syms_dropped != dropped)
		malloc_trim(0);
	/*
	 * A binary named while a debuginfod server was down or the period's
	 * budget spent asks again at a later period (debuginfod_fetch.h):
	 * else a long-running process stayed unnamed for good.
	 */
	binary_cache_retry_debuginfod(&r->bins);
	if (stacks_init(&r->stacks)) {
		fprintf(stderr, "stitch record: out of memory\n");
		rc = 1;
	}
	run->period_start = run->cut;
	run->period_start_unix_ns = run->cut_unix_ns;
	while (run->period_next <= run->cut)
		run->period_next += r->hooks->period_s;
	run->stage = PERIOD_RUNNING;
	return rc;
}

/* After the turn's kernel tick: hand the period over once its counts are read. */
static int period_cut_end(struct run *run)
{
	if (run->stage == PERIOD_FLIPPED && counting_in_kernel(run->r))
		run->stage = PERIOD_READ;
	else if (run->stage != PERIOD_RUNNING)
		return period_hand_over(run, false);
	return 0;
}

/*
 * Setup: load the programs, start the process model, the command (stopped)
 * and every target's tables, attach, open the ring.  0, or the exit status.
 */
static int run_setup(struct run *run)
{
	struct recorder *r = run->r;
	struct record_opts *o = r->o;
	struct sigaction sa = { .sa_sigaction = on_signal, .sa_flags = SA_SIGINFO };
	double start;
	int i;

	/* From here on a signal ends recording cleanly, even during setup. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (fetch_check_all(r) || open_bpf(r))
		return 1;
	if (r->alloc_live)
		stop_flag = &r->skel->bss->alloc_stopped;
	if (perf_tracker_open(&r->ptrack) != 0) {
		fprintf(stderr, "stitch record: cannot open process tracking events: %s\n",
			strerror(errno));
		return 1;
	}
	r->procs.track_all = o->target.all;
	if ((o->nevents && o->events[0].kind == EVENT_ALLOC) || (r->kw_ready && r->kw.lazy)) {
		r->ptrack.on_mmap = code_mapped;
		r->ptrack.on_mmap_ctx = r;
	}
	if (o->target.command) {
		if (spawn_command(r, &run->go_fd, &run->err_fd) != 0) {
			fprintf(stderr, "stitch record: cannot start %s: %s\n",
				o->target.command[0], strerror(errno));
			return 1;
		}
		trace_tgid(r, r->child);
		procs_exec(&r->procs, r->child);
	}
	start = mono_s();
	for (i = 0; i < o->target.npids; i++) {
		struct proc *p;

		trace_tgid(r, o->target.pids[i]);
		p = procs_get(&r->procs, o->target.pids[i]);
		interp_proc_update(&r->interp, p);
		if (r->kw_ready)
			kunwind_mark_dirty(&r->kw, o->target.pids[i]);
		else if (p)
			copy_unwind_prepare(&r->bins, p);
	}
	kunwind_update(r);
	r->kw_setup_s = mono_s() - start;
	if (attach_process_tracking(r) || attach_all(r))
		return 1;
	r->rb = ring_buffer__new(bpf_map__fd(r->skel->maps.samples), handle_record_in_turn, r,
				 NULL);
	if (!r->rb) {
		fprintf(stderr, "stitch record: cannot open the ring buffer: %s\n", strerror(errno));
		return 1;
	}
	if (r->hooks && r->hooks->attached && r->hooks->attached(r->hooks->ctx))
		return 1;
	return 0;
}

/* The clock starts, and the command runs from here on, traced.  0, or the exit status. */
static int run_start(struct run *run)
{
	struct recorder *r = run->r;
	struct record_opts *o = r->o;
	int exec_err = 0;

	run->start = mono_s();
	run->start_unix_ns = clock_ns(CLOCK_REALTIME);
	run->deadline = o->duration > 0 ? run->start + o->duration : 0;
	/* The programs drop what comes after it, however long a turn takes (filter.bpf.h). */
	if (run->deadline)
		r->skel->bss->capture_end_ns = (uint64_t)(run->deadline * 1e9);
	run->period_start = run->start;
	run->period_start_unix_ns = run->start_unix_ns;
	if (r->hooks && r->hooks->period)
		run->period_next = run->start + r->hooks->period_s;
	if (o->target.command) {
		if (write(run->go_fd, "g", 1) != 1) {
			fprintf(stderr, "stitch record: cannot start %s: %s\n",
				o->target.command[0], strerror(errno));
			return 1;
		}
		close(run->go_fd);
		run->go_fd = -1;
		if (read(run->err_fd, &exec_err, sizeof(exec_err)) == sizeof(exec_err)) {
			fprintf(stderr, "stitch record: cannot run %s: %s\n", o->target.command[0],
				strerror(exec_err));
			return 127;
		}
	} else if (isatty(STDERR_FILENO)) {
		fprintf(stderr, "stitch: recording %s... Ctrl-C to stop\n",
			o->target.all ? "the whole system" : "the target");
	}
	return 0;
}

/* The loop: read the ring, turn after turn, until the end.  0, or 1 if reading failed. */
static int run_loop(struct run *run)
{
	struct recorder *r = run->r;
	int poll_ms = 20;
	bool idle_backoff;

	r->target_cpu_start = targets_cpu_ns(r);
	/* A driving command's poll hook wants its turns. */
	idle_backoff = r->skel->rodata->kunwind_count_in_kernel && !(r->hooks && r->hooks->poll);
	while (!stop_requested) {
		/*
		 * The BPF side wakes us only when the ring fills up; consume
		 * every 20 ms regardless, so processes are looked at while
		 * they still exist, and an interpreter that just started is
		 * recognized (and walked) after a few events, not thousands.
		 */
		int n, wait_ms = poll_ms;
		uint64_t read_ns;

		if (run->deadline && (run->deadline - mono_s()) * 1000 < wait_ms)
			wait_ms = (run->deadline - mono_s()) * 1000 + 1;
		r->turn_start = 0;
		r->turn_records = 0;
		n = ring_buffer__poll(r->rb, wait_ms > 0 ? wait_ms : 0);
		read_ns = mono_ns();
		if (n >= 0)
			n = ring_buffer__consume(r->rb);
		/*
		 * A full turn: the rest waits for the next one, after the work
		 * below, and the process model moves on only to the last record
		 * read (those still in the ring must see it as it was).
		 */
		if (n == RECORD_TURN_OVER) {
			n = 0;
			if (r->turn_last_ns < read_ns)
				read_ns = r->turn_last_ns;
		}
		watch_interpreters(r, read_ns);
		watch_allocators(r, read_ns);
		kunwind_update(r);
		period_cut_start(run, mono_s());
		kernel_counts_tick(r, mono_s());
		reclaim_exited(r, read_ns);
		if (period_cut_end(run))
			return 1;
		/*
		 * Counted in the kernel, a steady profile leaves the ring
		 * idle, and 50 wakeups a second were most of what it cost us
		 * (~1 ms of CPU a second, 1.1 us per sample at 999 Hz on two
		 * CPUs): turns with nothing read wait longer, up to 100 ms.
		 * A record (a new process's copies, an interpreter's walk)
		 * brings back 20 ms turns; the BPF side wakes us when the
		 * ring fills, whatever the wait.
		 */
		poll_ms = n > 0 || !idle_backoff ? 20 : poll_ms * 2 > 100 ? 100 : poll_ms * 2;

		if (n < 0 && n != -EINTR) {
			fprintf(stderr, "stitch record: reading events failed: %s\n", strerror(-n));
			return 1;
		}
		if (r->hooks && r->hooks->poll)
			r->hooks->poll(r->hooks->ctx);
		if (run->deadline && mono_s() >= run->deadline)
			break;
		if (!targets_alive(r))
			break;
	}
	return 0;
}

/*
 * Where the recording ended: now, or its deadline when the loop went past
 * it (a long turn), as the programs stopped taking events there.
 */
static double run_end_s(const struct run *run)
{
	double now = mono_s();

	return run->deadline && run->deadline < now ? run->deadline : now;
}

/* The drain: detach first so the last events are all in the ring, then read them all. */
static void run_drain(struct run *run)
{
	struct recorder *r = run->r;

	r->target_cpu_end = targets_cpu_ns(r);
	/* The end, for --inuse: detaching uprobes takes ~100 ms each here. */
	inuse_stop(r);
	attach_destroy(&r->att);
	capture_bpf__detach(r->skel);
	do {
		r->turn_start = 0;
		r->turn_records = 0;
	} while (ring_buffer__consume(r->rb) == RECORD_TURN_OVER);
	perf_tracker_drain(&r->ptrack);
	perf_tracker_apply(&r->ptrack, &r->procs, UINT64_MAX);
	/* Processes that exited as the recording ended let go of their tables too. */
	kunwind_update(r);

	offcpu_still_blocked(r, run_end_s(run) * 1e9);
	kernel_counts_read(r, -1);	/* the rest: nothing counts any more */
	inuse_read(r);
	/* -e alloc: the allocators' own mmap, mremap and sbrk, counted at their malloc already */
	alloc_leaves_drop_inner(&r->att.alloc_leaves, &r->stacks);
}

/* The finish: what was lost and what it cost, then the command's output.  0 or 1. */
static int run_finish(struct run *run)
{
	struct recorder *r = run->r;
	struct record_opts *o = r->o;
	struct record_result res = {
		.start_unix_ns = run->start_unix_ns,
		.stacks = &r->stacks,
		.bins = &r->bins,
	};
	uint64_t st[STAT_NR];
	int rc = 0;

	read_stats(r, st);
	report_losses(r, st);
	if (o->unwind_mode == KUNWIND_MODE_CHECK)
		fprintf(stderr, "stitch: check: %" PRIu64 " stacks compared (%" PRIu64 " on the "
			"copied part only), %" PRIu64 " differ\n",
			r->check_compared, r->check_prefix, r->check_mismatched);
	if (o->stats)
		report_stats(r, st);
	/*
	 * Naming the stacks (the finish hook) opens every sampled binary's
	 * symbols and DWARF: ~40 MB of a make -j2 build's.  What only the
	 * recording needed goes first: the ring's pages (16 MB of RSS at
	 * 8 MiB, mapped twice), the unwind tables (~20 MB).
	 */
	ring_buffer__free(r->rb);
	r->rb = NULL;
	binary_cache_drop_tables(&r->bins);
	malloc_trim(0);
	res.seconds = run_end_s(run) - run->start;
	/* The last period: everything since the last cut, all read by the drain. */
	if (r->hooks && r->hooks->period) {
		run->cut = mono_s();
		run->cut_unix_ns = clock_ns(CLOCK_REALTIME);
		if (period_hand_over(run, true))
			rc = 1;
	}
	if (r->hooks && r->hooks->finish && r->hooks->finish(r->hooks->ctx, &res))
		rc = 1;
	debuginfod_report();
	if (o->stats)
		report_debug_cache();
	return rc;
}

static int run(struct recorder *r)
{
	struct run run = { .r = r, .go_fd = -1, .err_fd = -1 };
	int rc;

	rc = run_setup(&run);
	if (!rc)
		rc = run_start(&run);
	if (!rc) {
		rc = run_loop(&run);
		run_drain(&run);
		if (run_finish(&run))
			rc = 1;
	}
	if (run.go_fd >= 0)
		close(run.go_fd);
	if (run.err_fd >= 0)
		close(run.err_fd);
	/* A run that failed takes its command with it (never pid -1: every process). */
	if (r->o->target.command && !r->child_done && r->child > 0 && (rc == 127 || rc == 1)) {
		kill(r->child, SIGKILL);
		waitpid(r->child, NULL, 0);
	}
	return rc;
}

/* The recorder's tables and scratch buffers; 0, or -1 (said). */
static int recorder_init(struct recorder *r, struct record_opts *o,
			 const struct record_hooks *hooks)
{
	memset(r, 0, sizeof(*r));
	r->o = o;
	r->hooks = hooks;
	r->child = -1;
	r->counted_pending = -1;
	/* The kernel stack, after an off-CPU tag, and every user frame, and a probe's values. */
	r->key_buf = malloc(sizeof(struct stack_key) + (1 + STITCH_MAX_KSTACK) * sizeof(uint64_t) +
			    (MAX_UFRAMES + 2 + INTERP_MAX_FRAMES) * sizeof(struct uframe));
	r->uframes = malloc(MAX_UFRAMES * sizeof(*r->uframes));
	r->check_uf = malloc((MAX_UFRAMES + 1) * sizeof(*r->check_uf));
	r->check_kuf = malloc((MAX_UFRAMES + 1) * sizeof(*r->check_kuf));
	if (!r->key_buf || !r->uframes || !r->check_uf || !r->check_kuf || binary_cache_init(&r->bins) ||
	    procs_init(&r->procs, &r->bins) || stacks_init(&r->stacks) ||
	    offcpu_pending_init(&r->offcpu) || inuse_open(r)) {
		fprintf(stderr, "stitch record: out of memory\n");
		return -1;
	}
	if (hooks && hooks->weighed) {
		r->offcpu.sink = hooks->weighed;
		r->offcpu.sink_ctx = hooks->ctx;
	}
	return 0;
}

static void recorder_free(struct recorder *r)
{
	if (r->rb)
		ring_buffer__free(r->rb);
	attach_destroy(&r->att);
	stop_flag = NULL;	/* its page goes with the skeleton */
	if (r->skel)
		capture_bpf__destroy(r->skel);
	walkers_free(r);
	perf_tracker_close(&r->ptrack);
	stacks_free(&r->stacks);
	offcpu_pending_free(&r->offcpu);
	inuse_close(r);
	procs_free(&r->procs);
	binary_cache_free(&r->bins);
	interp_free(&r->interp);
	free(r->key_buf);
	free(r->att.fetch_sites);
	fetched_free(r);
	free(r->uframes);
	free(r->check_uf);
	free(r->check_kuf);
	free(r->kstacks_kept[0]);
	free(r->kstacks_kept[1]);
	kunwind_free(&r->kw);
}

int record_run(struct record_opts *o, const struct record_hooks *hooks)
{
	struct recorder r;
	int rc = 1;

	libbpf_quiet();
	fd_limit_raise();
	/*
	 * Large blocks (an unwind table's build: ~70 MB at its peak for
	 * cc1's 478k rows) straight from mmap, given back when freed: with
	 * glibc's threshold, raised by each such free up to 32 MB, they were
	 * carved from the heap, and its fragments stayed in our RSS for good.
	 */
	mallopt(M_MMAP_THRESHOLD, 256 << 10);
	if (!o->max_table_mb)
		o->max_table_mb = o->target.all ? DEFAULT_TABLE_MB_ALL : DEFAULT_TABLE_MB;
	if (!recorder_init(&r, o, hooks))
		rc = run(&r);
	recorder_free(&r);
	return rc;
}

int record_run_each(struct record_opts *o, const char *event, const struct record_hooks *hooks)
{
	char err[256];

	o->per_event = true;
	if (record_opts_add_event(o, event, err, sizeof(err))) {
		fprintf(stderr, "stitch record: %s\n", err);
		return 1;
	}
	return record_run(o, hooks);
}

void record_opts_init(struct record_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->stack_bytes = STITCH_DEFAULT_USTACK;
	o->unwind_mode = KUNWIND_MODE_KERNEL;
}

int record_opts_add_event(struct record_opts *o, const char *name, char *err, size_t errlen)
{
	static const char *const wall_events[] = { "cpu", "offcpu" };
	bool wall = strcmp(name, "wall") == 0;
	int k;

	if (o->nevents + (wall ? 2 : 1) > MAX_EVENTS) {
		snprintf(err, errlen, "too many events (at most %d)", MAX_EVENTS);
		return -1;
	}
	for (k = 0; k < (wall ? 2 : 1); k++) {
		struct event_spec *ev = &o->events[o->nevents];

		if (event_parse(wall ? wall_events[k] : name, ev, err, errlen) != 0) {
			event_free(ev);
			return -1;
		}
		o->event_names[o->nevents++] = ev->text;
	}
	return 0;
}

void record_opts_free(struct record_opts *o)
{
	int i;

	for (i = 0; i < o->nevents; i++)
		event_free(&o->events[i]);
	o->nevents = 0;
}
