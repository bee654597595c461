// SPDX-License-Identifier: GPL-2.0
/*
 * stitch stalls: event-loop stalls of an unmodified program.  A thread is
 * stalled when it has been on CPU for longer than the threshold since it
 * last returned from its loop's waiting system call (stalls.bpf.c).  While
 * it is, record's cpu sampler (its gate opened by the same per-thread state)
 * captures kernel + user stacks, which the recording engine unwinds; when the
 * thread waits again, the stall is reported with the stacks taken in it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kernel/features.h"
#include "util/cli.h"
#include "stalls/stalls_cmd.h"
#include "formats/output.h"
#include "capture/capture.h"
#include "record/engine.h"
#include "record/run_opts.h"
#include "capture.skel.h"
#include "stalls.skel.h"
#include "stalls/stall_stacks.h"
#include "stalls/stalls_seed.h"
#include "util/clock.h"
#include "util/libbpf_log.h"

#define DEFAULT_THRESHOLD_MS 50
#define DEFAULT_FREQ 999
#define DEFAULT_TOP 3

static const char *const auto_loop_syscalls[] = {
	"epoll_wait", "epoll_pwait", "epoll_pwait2", "poll", "ppoll", "select", "pselect6",
	"io_uring_enter",
};
#define AUTO_LOOP_SYSCALLS (sizeof(auto_loop_syscalls) / sizeof(auto_loop_syscalls[0]))

/* The numbers of those this architecture has (arm64: no epoll_wait, poll, select). */
static size_t loop_candidates(uint32_t out[AUTO_LOOP_SYSCALLS])
{
	size_t i, n = 0;

	for (i = 0; i < AUTO_LOOP_SYSCALLS; i++)
		if (stalls_syscall_nr(auto_loop_syscalls[i]) >= 0)
			out[n++] = stalls_syscall_nr(auto_loop_syscalls[i]);
	return n;
}

struct stalls_opts {
	struct record_opts run;		/* the engine's: the targets, -F, -d */
	struct run_outputs out;		/* -o, --force */
	uint64_t threshold_ns;
	long loop_nr;			/* -1: automatic */
	int top;
};

struct stalls {
	struct stalls_opts *o;
	struct stalls_bpf *skel;
	struct ring_buffer *rb;
	struct stall_event *pending;	/* read last turn, reported next turn */
	size_t npending, cap;
	uint64_t unqueued;		/* stalls dropped for want of memory */
	struct resolver res;
	struct stalls_report rep;
	bool res_ready, rep_ready;
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: stitch stalls (-p PID[,PID...] | -- COMMAND [ARGS...]) [--threshold TIME]\n"
"                     [--loop-syscall NAME] [-F HZ] [-d SECONDS] [-o FILE]...\n"
"\n"
"Report the stalls of an event loop in an unmodified program: a thread that\n"
"runs longer than the threshold of its CPU time between returning from its loop's\n"
"waiting system call and entering it again.  Each stall is printed when it ends\n"
"(tid, on-CPU and wall time) with the kernel and native stacks sampled during\n"
"it, counted and symbolized (with Python, Ruby and Perl script frames); one\n"
"that ends with its thread (an exit, a kill) is marked so.  Time spent waiting,\n"
"or off CPU, is never a stall.  With -p, a thread not waiting in its loop at\n"
"attach is counted from the attach (its stall's length is then a lower bound,\n"
"and said so).\n"
"\n"
"Options:\n"
"  -p, --pid PID[,PID...]   watch these processes (all their threads)\n"
"  -- COMMAND [ARGS...]     run COMMAND and watch it (and its children)\n"
"  -t, --threshold TIME     on-CPU time that makes a stall: 50ms (default),\n"
"                           500us, 0.2s; a number alone is milliseconds\n"
"  -l, --loop-syscall NAME  the loop's waiting system call; default: each\n"
"                           thread's first of epoll_wait, epoll_pwait,\n"
"                           epoll_pwait2, poll, ppoll, select, pselect6,\n"
"                           io_uring_enter.  Also: read, recvfrom, recvmsg,\n"
"                           accept4, futex, nanosleep, clock_nanosleep, ...\n"
"  -F, --freq HZ            sampling frequency during stalls (default %d)\n"
"  -d, --duration SECONDS   stop after this long (default: Ctrl-C, or when\n"
"                           COMMAND exits)\n"
"  -o, --output FILE        also write every stall's stacks, weighted by its\n"
"                           on-CPU milliseconds, repeatable; the name sets the\n"
"                           format: FILE.svg, FILE.pb.gz, FILE.speedscope.json,\n"
"                           FILE.folded, FILE.txt or -; checked before tracing,\n"
"                           written whole or not at all\n"
"      --force              let -o replace a symlink (the link itself)\n"
"      --no-debuginfod      ask no debuginfod server (DEBUGINFOD_URLS) for\n"
"                           debug files\n"
"      --top N              stacks printed per stall (default %d)\n"
"  -h, --help               this help\n"
"\n"
"Examples:\n"
"  sudo stitch stalls -p $(pidof server) --threshold 50ms -d 60\n"
"  sudo stitch stalls -t 20ms -o stalls.svg -- ./server --port 8080\n"
"Needs root (or CAP_BPF + CAP_PERFMON).\n",
		DEFAULT_FREQ, DEFAULT_TOP);
}

static int fail_usage(const char *fmt, const char *arg)
{
	return cli_usage_error("stalls", fmt, arg);
}

enum { OPT_TOP = 256 };

/* stalls' own options; -p, -F, -d, -o, --force and --no-debuginfod are shared (run_opts.h). */
static const struct option longopts[] = {
	{ "threshold", required_argument, NULL, 't' },
	{ "loop-syscall", required_argument, NULL, 'l' },
	{ "top", required_argument, NULL, OPT_TOP },
	{ NULL, 0, NULL, 0 },
};

/* --loop-syscall: a name stitch knows, or a number. */
static int set_loop(struct stalls_opts *o, const char *arg)
{
	long v;

	o->loop_nr = stalls_syscall_nr(arg);
	if (o->loop_nr >= 0)
		return 0;
	if (!cli_parse_long(arg, 0, 1023, &v))
		return fail_usage("--loop-syscall: '%s' is not a system call stitch knows (see "
				  "--help) nor a number", arg);
	o->loop_nr = v;
	return 0;
}

/* One of stitch stalls' own options: a cli_opt_fn. */
static int take_opt(void *ctx, int c, const char *arg)
{
	struct stalls_opts *o = ctx;
	long v;

	switch (c) {
	case 't':
		o->threshold_ns = cli_parse_time(arg);
		if (!o->threshold_ns)
			return fail_usage("--threshold: '%s' is not a time between 1us and 1h "
					  "(like 50ms, 500us, 0.2s)", arg);
		break;
	case 'l':
		return set_loop(o, arg);
	case OPT_TOP:
		if (!cli_parse_long(arg, 1, 100000, &v))
			return fail_usage("--top: '%s' is not a positive count", arg);
		o->top = v;
		break;
	}
	return 0;
}

static const struct run_cmd stalls_run_cmd = {
	.name = "stalls",
	.usage = usage,
	.shared = RUN_OPT_PID | RUN_OPT_FREQ | RUN_OPT_DURATION | RUN_OPT_OUTPUT |
		  RUN_OPT_DEBUGINFOD,
	.default_freq = DEFAULT_FREQ,
	.shortopts = "t:l:",
	.longopts = longopts,
	.take = take_opt,
	.pids_after_outputs = true,
	.target_what = "what to watch",
	.target_choices = "-p PID, or -- COMMAND",
};

static int parse_opts(int argc, char **argv, struct stalls_opts *o, struct run_args *a)
{
	int rc;

	o->threshold_ns = DEFAULT_THRESHOLD_MS * 1000000ull;
	o->loop_nr = -1;
	o->top = DEFAULT_TOP;
	rc = run_opts_parse(&stalls_run_cmd, argc, argv, a, o);
	if (rc)
		return rc;
	return run_target_check(&stalls_run_cmd, a);
}

/* ---- hooks into the recording engine (record/engine.h) ------------------ */

static int before_load(void *ctx, struct capture_bpf *rskel)
{
	struct stalls *s = ctx;
	struct stalls_opts *o = s->o;
	uint32_t candidates[AUTO_LOOP_SYSCALLS];
	size_t i, n;
	int err;

	s->skel = stalls_bpf__open();
	if (!s->skel) {
		fprintf(stderr, "stitch stalls: cannot open the BPF object: %s\n", strerror(errno));
		return -1;
	}
	s->skel->rodata->threshold_ns = o->threshold_ns;
	s->skel->rodata->loop_nr = o->loop_nr < 0 ? STALLS_LOOP_UNKNOWN : (uint32_t)o->loop_nr;
	n = loop_candidates(candidates);
	for (i = 0; i < n; i++)
		s->skel->rodata->candidates[i] = candidates[i];
	s->skel->rodata->ncandidates = n;
	/* The capture program's perf_event workers look them up (kernel/features.h). */
	kfeat_prealloc_for_nmi(s->skel->maps.gate_threads);
	kfeat_prealloc_for_nmi(s->skel->maps.traced_tgids);
	err = stalls_bpf__load(s->skel);
	if (err) {
		libbpf_load_failed("stitch stalls", err);
		return -1;
	}
	/* One state per thread, one target set: record reads them, we own them. */
	return record_gate_share(rskel, "stitch stalls", bpf_map__fd(s->skel->maps.gate_threads),
				 bpf_map__fd(s->skel->maps.traced_tgids));
}

static int on_stall_event(void *ctx, void *data, size_t size)
{
	struct stalls *s = ctx;

	if (size < sizeof(struct stall_event))
		return 0;
	if (s->npending == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		struct stall_event *v = realloc(s->pending, cap * sizeof(*v));

		if (!v) {
			s->unqueued++;	/* out of memory: said at the end */
			return 0;
		}
		s->pending = v;
		s->cap = cap;
	}
	memcpy(&s->pending[s->npending++], data, sizeof(struct stall_event));
	return 0;
}

/*
 * -p: a thread already stuck in a handler would never be counted (its
 * count starts at a return from its loop syscall): count it from now.
 */
static void seed_running_threads(struct stalls *s)
{
	uint32_t candidates[AUTO_LOOP_SYSCALLS];
	size_t n = loop_candidates(candidates);
	int seeded;

	seeded = stalls_seed_threads(bpf_map__fd(s->skel->maps.stall_threads),
				     bpf_map__fd(s->skel->maps.gate_threads), s->o->threshold_ns,
				     s->o->run.target.pids, s->o->run.target.npids,
				     s->o->loop_nr, candidates, n);
	if (seeded)
		fprintf(stderr, "stitch stalls: %d threads not waiting in their loop at attach: "
			"counted from now (a stall under way is reported from the attach)\n",
			seeded);
}

static int attached(void *ctx)
{
	struct stalls *s = ctx;
	int err;

	/*
	 * Before the programs run: once they do, any system call creates the
	 * thread's state (loop return not seen), which a seed must not replace.
	 */
	if (s->o->run.target.npids)
		seed_running_threads(s);
	err = stalls_bpf__attach(s->skel);
	if (err) {
		fprintf(stderr, "stitch stalls: cannot attach to sched_switch and the system call "
			"tracepoints: %s\n", strerror(-err));
		return -1;
	}
	s->rb = ring_buffer__new(bpf_map__fd(s->skel->maps.stall_events), on_stall_event, s, NULL);
	if (!s->rb) {
		fprintf(stderr, "stitch stalls: cannot open the ring buffer: %s\n", strerror(errno));
		return -1;
	}
	if (s->o->loop_nr < 0)
		fprintf(stderr, "stitch stalls: threshold %.1f ms of CPU; loop syscall: each "
			"thread's first epoll/poll/select/io_uring_enter\n", s->o->threshold_ns / 1e6);
	else
		fprintf(stderr, "stitch stalls: threshold %.1f ms of CPU; loop syscall: %s\n",
			s->o->threshold_ns / 1e6, stalls_syscall_name(s->o->loop_nr) ?: "by number");
	return 0;
}

static void on_sample(void *ctx, const struct sample_event *e, const struct stack_key *key,
		      uint32_t key_bytes)
{
	struct stalls *s = ctx;

	stalls_report_sample(&s->rep, e->time_ns, key, key_bytes);
}

/*
 * Stalls read in the previous turn are reported now: their samples were in
 * record's ring before the stall record was written, and record's ring has
 * been read again since.
 */
static void on_poll(void *ctx)
{
	struct stalls *s = ctx;
	size_t i;

	for (i = 0; i < s->npending; i++)
		stalls_report_stall(&s->rep, &s->pending[i], false);
	s->npending = 0;
	ring_buffer__consume(s->rb);
}

/* Threads still stalled when tracing stops: reported from their state. */
static void report_ongoing(struct stalls *s)
{
	uint32_t tids[256], pids[256];
	int n = stalls_report_pending(&s->rep, tids, pids, 256), i;
	uint64_t now = mono_ns();

	for (i = 0; i < n; i++) {
		struct stall_event ev = { .tid = tids[i], .pid = pids[i], .end_ns = now };
		uint64_t runtime = stalls_thread_runtime(pids[i], tids[i]);
		struct stall_thread t;
		char path[64];
		FILE *f;

		if (bpf_map__lookup_elem(s->skel->maps.stall_threads, &tids[i], sizeof(tids[i]), &t,
					 sizeof(t), 0) ||
		    !stall_gate_open(&t, runtime, s->o->threshold_ns))
			continue;
		ev.start_ns = t.loop_exit_ns;
		ev.oncpu_ns = runtime - t.runtime_at_exit;
		ev.loop_nr = t.loop_nr;
		ev.from_attach = t.from_attach;
		snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", pids[i], tids[i]);
		f = fopen(path, "re");
		if (f) {
			if (fgets(ev.comm, sizeof(ev.comm), f))
				ev.comm[strcspn(ev.comm, "\n")] = '\0';
			fclose(f);
		}
		stalls_report_stall(&s->rep, &ev, true);
	}
}

static int finish(void *ctx, const struct record_result *res)
{
	struct stalls *s = ctx;
	double seconds = res->seconds;
	static const char *const events[] = { "stall" };
	struct output_opts oo = { .top = 10, .subtitle = "on-CPU milliseconds of event-loop stalls" };
	uint64_t lost = s->skel->bss->lost_stalls, untracked = s->skel->bss->untracked_threads;
	struct profile p;
	char what[64];
	int rc = 0;

	stalls_bpf__detach(s->skel);
	on_poll(s);		/* every sample is in: report what is left */
	on_poll(s);
	report_ongoing(s);
	fprintf(stderr, "stitch stalls: %" PRIu64 " stalls, %" PRIu64 " ms on CPU, in %.1f s\n",
		s->rep.nstalls, s->rep.oncpu_ms, seconds);
	if (lost)
		fprintf(stderr, "stitch stalls: LOST %" PRIu64 " stalls (their ring buffer was "
			"full)\n", lost);
	if (s->unqueued)
		fprintf(stderr, "stitch stalls: LOST %" PRIu64 " stalls (out of memory)\n",
			s->unqueued);
	if (untracked)
		fprintf(stderr, "stitch stalls: %" PRIu64 " threads not watched (more than %d)\n",
			untracked, STALLS_MAX_THREADS);
	if (stalls_report_unclaimed(&s->rep))
		fprintf(stderr, "stitch stalls: %" PRIu64 " samples outside any stall ignored\n",
			stalls_report_unclaimed(&s->rep));
	if (s->rep.dropped_samples)
		fprintf(stderr, "stitch stalls: %" PRIu64 " samples of very long stalls not kept\n",
			s->rep.dropped_samples);
	if (!s->o->out.n)
		return 0;
	profile_init(&p);
	rc = profile_from_stacks(&p, &s->rep.weighted, &s->res, events, 1);
	p.title = profile_str(&p, "event-loop stalls (on-CPU ms)");
	p.duration_ns = seconds * 1e9;
	snprintf(what, sizeof(what), "%" PRIu64 " stall ms", s->rep.weighted.total);
	oo.force = s->o->out.force;
	if (!rc)
		rc = output_write_all("stalls", s->o->out.paths, s->o->out.formats, s->o->out.n,
				      &p, &oo, what);
	profile_free(&p);
	return rc ? -1 : 0;
}

int cmd_stalls(int argc, char **argv)
{
	struct stalls_opts o = { 0 };
	struct run_args a = { .o = &o.run, .out = &o.out };
	struct stalls s = { .o = &o };
	const struct record_hooks hooks = {
		.ctx = &s,
		.before_load = before_load,
		.attached = attached,
		.sample = on_sample,
		.poll = on_poll,
		.finish = finish,
	};
	int rc;

	rc = parse_opts(argc, argv, &o, &a);
	if (!rc)
		rc = run_opts_ready(&stalls_run_cmd, &a);
	if (rc)
		goto out;
	if (resolver_init(&s.res, NULL) ||
	    stalls_report_init(&s.rep, stdout, o.top, &s.res)) {
		fprintf(stderr, "stitch stalls: out of memory\n");
		rc = 1;
		goto out;
	}
	resolver_name_kernel_lazily(&s.res, "/proc/kallsyms");
	/* cpu samples of the same targets: each matched to a stall */
	rc = record_run_each(&o.run, "cpu", &hooks);
out:
	record_opts_free(&o.run);
	stalls_report_free(&s.rep);
	resolver_free(&s.res);
	ring_buffer__free(s.rb);
	stalls_bpf__destroy(s.skel);
	free(s.pending);
	return rc;
}
