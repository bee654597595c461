// SPDX-License-Identifier: GPL-2.0
/*
 * stitch record: the run loop.  Load and attach (setup.c), start the command
 * if there is one, read the ring until the end (decode.c turns each record
 * into a counted stack), move the kernel's count epochs on, then report what
 * was lost (stats.c) and write the profile (write.c).  Options are parsed in
 * options.c; record_hooks.h lets another command drive all of it.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
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
#include "formats/output.h"
#include "offcpu/offcpu_blocked.h"
#include "offcpu/offcpu_wakes.h"
#include "record/record_internal.h"
#include "util/clock.h"
#include "util/libbpf_log.h"
#include "util/privileges.h"

static volatile sig_atomic_t stop_requested;
/* -- COMMAND, while it runs: a SIGINT or SIGTERM sent to us alone goes to it too. */
static volatile pid_t child_to_signal;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	stop_requested = 1;
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
		execvp(r->o->command[0], r->o->command);
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
	if (r->kw_ready)
		kunwind_refresh(&r->kw, &r->bins, &r->procs, model_behind, r);
}

/* Where off-CPU time read from the kernel goes. */
static void offcpu_sink_of(struct recorder *r, struct offcpu_sink *s)
{
	*s = (struct offcpu_sink){
		.kw = &r->kw,
		.fds = kagg_fds_of(r),
		.stacks = &r->stacks,
		.stops = r->unwind_stops,
		.bytes = &r->bytes_received,
		.pending = &r->offcpu,
	};
}

/* Events counted in the kernel, of one epoch (deleted from the map) or all (-1). */
static void kernel_counts_read(struct recorder *r, int64_t epoch)
{
	struct kagg_fds fds = kagg_fds_of(r);
	int64_t n;

	if (!r->kw_ready || !r->skel->rodata->kunwind_count_in_kernel)
		return;
	n = kunwind_read_counts(&r->kw, bpf_map__fd(r->skel->maps.kagg_counts), &fds, epoch,
				&r->stacks, r->unwind_stops, &r->bytes_received);
	if (n < 0)
		fprintf(stderr, "stitch: reading the kernel's counts failed: %s\n",
			strerror((int)-n));
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
	if (r->kagg_pending >= 0) {
		kernel_counts_read(r, r->kagg_pending);
		r->kagg_pending = -1;
	}
	if (now >= r->kagg_next_flip) {
		r->kagg_pending = r->skel->bss->kagg_epoch;
		__atomic_store_n(&r->skel->bss->kagg_epoch, r->kagg_pending + 1, __ATOMIC_RELEASE);
		r->kagg_next_flip = now + 1.0;
	}
}

/* Threads still off the CPU when recording ends: their time so far. */
static void offcpu_still_blocked(struct recorder *r)
{
	struct offcpu_sink sink;

	offcpu_sink_of(r, &sink);
	if (bpf_program__autoload(r->skel->progs.on_sched_switch))
		offcpu_count_blocked(bpf_map__fd(r->skel->maps.offcpu_threads), r->o->min_block_ns,
				     &sink);
}

static bool targets_alive(struct recorder *r)
{
	int i;

	if (r->o->command) {
		if (!r->child_done && waitpid(r->child, &r->child_status, WNOHANG) == r->child) {
			r->child_done = true;
			child_to_signal = 0;	/* reaped: its pid may be reused */
		}
		return !r->child_done;
	}
	if (r->o->all)
		return true;
	for (i = 0; i < r->o->npids; i++)
		if (kill(r->o->pids[i], 0) == 0 || errno == EPERM)
			return true;
	return false;
}

/*
 * Driven by another command (stitch stalls), the sampler is gated: no
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

	if (!r->hooks || r->interp.disabled || read_ns < margin_ns)
		return;
	perf_tracker_drain(&r->ptrack);
	perf_tracker_apply(&r->ptrack, &r->procs, read_ns - margin_ns);
	if (r->o->command && !r->child_done)
		interp_proc_update(&r->interp, procs_get(&r->procs, r->child));
	for (i = 0; i < r->o->npids; i++)
		interp_proc_update(&r->interp, procs_get(&r->procs, r->o->pids[i]));
}

static int run(struct recorder *r)
{
	struct record_opts *o = r->o;
	struct sigaction sa = { .sa_sigaction = on_signal, .sa_flags = SA_SIGINFO };
	uint64_t st[STAT_NR];
	int go_fd = -1, err_fd = -1, i, rc = 0, exec_err = 0;
	double start, deadline;
	int poll_ms = 20;
	bool idle_backoff;
	uint64_t start_unix_ns;

	/* From here on a signal ends recording cleanly, even during setup. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (open_bpf(r))
		return 1;
	if (perf_tracker_open(&r->ptrack) != 0) {
		fprintf(stderr, "stitch record: cannot open process tracking events: %s\n",
			strerror(errno));
		return 1;
	}
	r->procs.track_all = o->all;
	if (o->command) {
		if (spawn_command(r, &go_fd, &err_fd) != 0) {
			fprintf(stderr, "stitch record: cannot start %s: %s\n", o->command[0],
				strerror(errno));
			return 1;
		}
		trace_tgid(r, r->child);
		procs_exec(&r->procs, r->child);
	}
	start = mono_s();
	for (i = 0; i < o->npids; i++) {
		trace_tgid(r, o->pids[i]);
		interp_proc_update(&r->interp, procs_get(&r->procs, o->pids[i]));
		if (r->kw_ready)
			kunwind_mark_dirty(&r->kw, o->pids[i]);
	}
	kunwind_update(r);
	r->kw_setup_s = mono_s() - start;
	if (attach_process_tracking(r) || attach_all(r)) {
		rc = 1;
		goto out;
	}
	r->rb = ring_buffer__new(bpf_map__fd(r->skel->maps.samples), handle_sample_in_turn, r,
				 NULL);
	if (!r->rb) {
		fprintf(stderr, "stitch record: cannot open the ring buffer: %s\n", strerror(errno));
		rc = 1;
		goto out;
	}
	if (r->hooks && r->hooks->attached && r->hooks->attached(r->hooks->ctx)) {
		rc = 1;
		goto out;
	}

	start = mono_s();
	start_unix_ns = clock_ns(CLOCK_REALTIME);
	deadline = o->duration > 0 ? start + o->duration : 0;
	if (o->command) {
		/* Go: the command runs from here on, traced. */
		if (write(go_fd, "g", 1) != 1) {
			fprintf(stderr, "stitch record: cannot start %s: %s\n", o->command[0],
				strerror(errno));
			rc = 1;
			goto out;
		}
		close(go_fd);
		go_fd = -1;
		if (read(err_fd, &exec_err, sizeof(exec_err)) == sizeof(exec_err)) {
			fprintf(stderr, "stitch record: cannot run %s: %s\n", o->command[0],
				strerror(exec_err));
			rc = 127;
			goto out;
		}
	} else if (isatty(STDERR_FILENO)) {
		fprintf(stderr, "stitch: recording %s... Ctrl-C to stop\n",
			o->all ? "the whole system" : "the target");
	}

	r->target_cpu_start = targets_cpu_ns(r);
	idle_backoff = r->skel->rodata->kunwind_count_in_kernel && !r->hooks;
	while (!stop_requested) {
		/*
		 * The BPF side wakes us only when the ring fills up; consume
		 * every 20 ms regardless, so processes are looked at while
		 * they still exist, and an interpreter that just started is
		 * recognized (and walked) after a few events, not thousands.
		 */
		int n, wait_ms = poll_ms;
		uint64_t read_ns;

		if (deadline && (deadline - mono_s()) * 1000 < wait_ms)
			wait_ms = (deadline - mono_s()) * 1000 + 1;
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
		kunwind_update(r);
		kernel_counts_tick(r, mono_s());
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
			rc = 1;
			break;
		}
		if (r->hooks && r->hooks->poll)
			r->hooks->poll(r->hooks->ctx);
		if (deadline && mono_s() >= deadline)
			break;
		if (!targets_alive(r))
			break;
	}

	r->target_cpu_end = targets_cpu_ns(r);
	/* Detach first so the last events are all in the ring, then drain. */
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

	offcpu_still_blocked(r);
	kernel_counts_read(r, -1);	/* the rest: nothing counts any more */
	read_stats(r, st);
	report_losses(r, st);
	if (o->unwind_mode == KUNWIND_MODE_CHECK)
		fprintf(stderr, "stitch: check: %" PRIu64 " stacks compared (%" PRIu64 " on the "
			"copied part only), %" PRIu64 " differ\n",
			r->check_compared, r->check_prefix, r->check_mismatched);
	if (o->stats)
		report_stats(r, st);
	if (r->hooks && r->hooks->finish) {
		if (r->hooks->finish(r->hooks->ctx, mono_s() - start))
			rc = 1;
	} else if (write_output(r, mono_s() - start, start_unix_ns) != 0) {
		rc = 1;
	}
	report_debuginfod();
	if (o->stats)
		report_debug_cache();
out:
	if (go_fd >= 0)
		close(go_fd);
	if (err_fd >= 0)
		close(err_fd);
	if (o->command && !r->child_done) {
		if (rc == 127 || rc == 1) {
			kill(r->child, SIGKILL);
			waitpid(r->child, NULL, 0);
		}
	}
	return rc;
}

int cmd_record(int argc, char **argv)
{
	return record_main(argc, argv, NULL);
}

int record_main(int argc, char **argv, const struct record_hooks *hooks)
{
	struct record_opts *o = calloc(1, sizeof(*o));
	struct recorder r;
	int rc, i;

	if (!o)
		return 1;
	rc = parse_opts(argc, argv, o);
	if (rc)
		goto out_opts;
	/* A typo in -o is found now, not after a long recording. */
	if (output_check_all("record", o->outputs, o->noutputs, o->force)) {
		rc = 1;
		goto out_opts;
	}
	if (check_tracing_privileges("stitch record") != 0) {
		rc = 1;
		goto out_opts;
	}
	libbpf_quiet();

	memset(&r, 0, sizeof(r));
	r.o = o;
	r.hooks = hooks;
	r.child = -1;
	r.kagg_pending = -1;
	/* The kernel stack, after an off-CPU tag, and every user frame. */
	r.key_buf = malloc(sizeof(struct stack_key) + (1 + STITCH_MAX_KSTACK) * sizeof(uint64_t) +
			   (MAX_UFRAMES + 1 + INTERP_MAX_FRAMES) * sizeof(struct uframe));
	r.uframes = malloc(MAX_UFRAMES * sizeof(*r.uframes));
	r.check_uf = malloc((MAX_UFRAMES + 1) * sizeof(*r.check_uf));
	if (!r.key_buf || !r.uframes || !r.check_uf || binary_cache_init(&r.bins) ||
	    procs_init(&r.procs, &r.bins) || stacks_init(&r.stacks) ||
	    offcpu_pending_init(&r.offcpu)) {
		fprintf(stderr, "stitch record: out of memory\n");
		rc = 1;
		goto out;
	}
	if (hooks && hooks->weighed) {
		r.offcpu.sink = hooks->weighed;
		r.offcpu.sink_ctx = hooks->ctx;
	}
	rc = run(&r);
out:
	if (r.rb)
		ring_buffer__free(r.rb);
	attach_destroy(&r.att);
	if (r.skel)
		capture_bpf__destroy(r.skel);
	walkers_free(&r);
	perf_tracker_close(&r.ptrack);
	stacks_free(&r.stacks);
	offcpu_pending_free(&r.offcpu);
	procs_free(&r.procs);
	binary_cache_free(&r.bins);
	interp_free(&r.interp);
	free(r.key_buf);
	free(r.uframes);
	free(r.check_uf);
	kunwind_free(&r.kw);
out_opts:
	for (i = 0; i < o->nevents; i++)
		event_free(&o->events[i]);
	free(o);
	return rc;
}

/* record's argv for r in av (max entries with the NULL); argc, or -1 if it does not fit. */
static int request_args(const struct record_request *r, char **av, int max)
{
	char *fixed[] = { (char *)r->name, "-e", (char *)r->event, "-F",
			  (char *)(r->freq ? r->freq : "999"), "--per-event" };
	int n = 0, i;

	if (max < 13)
		return -1;
	for (i = 0; i < (int)(sizeof(fixed) / sizeof(fixed[0])); i++)
		av[n++] = fixed[i];
	if (r->duration) {
		av[n++] = "-d";
		av[n++] = (char *)r->duration;
	}
	if (r->pids) {
		av[n++] = "-p";
		av[n++] = (char *)r->pids;
	}
	if (r->all)
		av[n++] = "-a";
	if (r->wakers)
		av[n++] = "--wakers";
	if (r->command) {
		av[n++] = "--";
		for (i = 0; r->command[i]; i++) {
			if (n == max - 1)
				return -1;
			av[n++] = r->command[i];
		}
	}
	av[n] = NULL;
	return n;
}

int record_run(const struct record_request *r, const struct record_hooks *hooks)
{
	/* Room for every option a request turns into, then COMMAND's words. */
	int max = 32, n, rc;
	char **av;

	for (n = 0; r->command && r->command[n]; n++)
		max++;
	av = calloc(max, sizeof(*av));
	if (!av)
		return 1;
	n = request_args(r, av, max);
	rc = n < 0 ? 1 : record_main(n, av, hooks);
	free(av);
	return rc;
}
