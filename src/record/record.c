// SPDX-License-Identifier: GPL-2.0
/*
 * stitch record: attach to the requested events, receive raw samples
 * (kernel stack, user registers, user stack bytes), unwind the user stack
 * with CFI tables against the process model as it was at the event, count
 * identical stacks, and write them out when recording ends.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
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

#include "util/cli.h"
#include "capture/attach.h"
#include "interp/interp_user.h"
#include "proc/binary.h"
#include "symbolize/debug_cache.h"
#include "symbolize/kallsyms.h"
#include "kunwind/kunwind.h"
#include "formats/output.h"
#include "proc/perf_tracker.h"
#include "util/privileges.h"
#include "proc/procs.h"
#include "capture/capture.h"
#include "record/record_hooks.h"
#include "offcpu/offcpu.h"
#include "offcpu/offcpu_pending.h"
#include "offcpu/offcpu_blocked.h"
#include "offcpu/offcpu_wakes.h"
#include "offcpu/wall.h"
#include "util/clock.h"
#include "capture.skel.h"
#include "profile/resolve.h"
#include "profile/stacks.h"
#include "unwind/unwind.h"

#define MAX_EVENTS 64
#define MAX_PIDS 1024
#define MAX_UFRAMES 1024
#define DEFAULT_FREQ 99
#define DEFAULT_TOP 10
#define MAX_OUTPUTS 8
#define DEFAULT_TABLE_MB 64

struct record_opts {
	struct event_spec events[MAX_EVENTS];
	const char *event_names[MAX_EVENTS];
	int nevents;
	uint32_t pids[MAX_PIDS];
	int npids;
	bool all;
	int freq;
	double duration;
	const char *outputs[MAX_OUTPUTS];	/* -o, repeatable */
	int formats[MAX_OUTPUTS];
	int noutputs;
	uint32_t stack_bytes;
	size_t ringbuf_mb;
	int top;
	bool stats;
	bool time_walks;		/* --stats=walks */
	bool no_lines;
	bool no_interp;
	char **command;
	int unwind_mode;		/* enum kunwind_mode */
	bool unwind_asked;		/* --unwind given: no silent fallback */
	bool per_event;			/* --per-event: no counting in the kernel */
	uint64_t min_block_ns;		/* offcpu: --min-block */
	bool wall;			/* cpu + offcpu, both weighed in nanoseconds */
	uint32_t wall_cpu_idx;		/* wall: the cpu event's index */
	bool no_runnable;		/* offcpu: --no-runnable */
	bool wakers;			/* offcpu: --wakers */
	bool force;			/* -o may replace a symlink */
	double max_table_mb;
};

struct recorder {
	struct record_opts *o;
	const struct record_hooks *hooks;	/* another command driving us, or NULL */
	struct capture_bpf *skel;
	struct attacher att;
	struct ring_buffer *rb;
	struct perf_tracker ptrack;
	struct binary_cache bins;
	struct procs procs;
	struct stack_table stacks;
	size_t ringbuf_mb;		/* the ring buffer's size: ringbuf_mb_of() */
	pid_t child;
	int child_status;
	bool child_done;
	uint64_t bad_records;
	uint64_t bytes_received;	/* ring buffer bytes, for --stats */
	uint64_t unwind_stops[UNWIND_STOP_BAD + 1];
	/* kunwind */
	struct kunwind kw;
	bool kw_ready;
	uint64_t check_compared, check_mismatched, check_prefix;
	double kw_setup_s;		/* -p: targets' tables loaded and lists written */
	int64_t kagg_pending;		/* epoch to read at the next poll, or -1 */
	double kagg_next_flip;
	/* scratch for building one stack key */
	uint8_t *key_buf;
	struct unwind_frame *uframes;
	struct uframe *check_uf;	/* --unwind=check: the copy's frames */
	struct interp_state interp;	/* interpreter frames (interp_*.c) */
	struct offcpu_pending offcpu;	/* off-CPU samples awaiting their weight */
};

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

static void usage(FILE *f)
{
	fprintf(f,
"Usage: stitch record [-e EVENT]... [-p PID[,PID...] | -a] [-F HZ] [-d SECONDS]\n"
"                     [-o FILE]... [-- COMMAND [ARGS...]]\n"
"\n"
"Record one complete stack (kernel + user, unwound without frame pointers)\n"
"for every event, and count identical stacks.\n"
"\n"
"Events (-e, repeatable; default: cpu):\n"
"  cpu                      on-CPU stacks sampled at -F Hz (cpu-clock)\n"
"  syscall:NAME             entry of a system call, e.g. syscall:openat\n"
"  tracepoint:CAT:NAME      a kernel tracepoint, e.g.\n"
"                           tracepoint:lock:contention_begin\n"
"  uprobe:PATH:SYMBOL       a user function; PATH absolute or a loaded library's\n"
"                           name; SYMBOL may be an ELF address (0x...)\n"
"  usdt:PATH:PROVIDER:NAME  a USDT probe (semaphores are handled)\n"
"  kprobe:FUNC              a kernel function, where the kernel has kprobes\n"
"  offcpu                   time off the CPU: each thread's stack when it\n"
"                           blocks (sleep, I/O, lock, futex), weighed by the\n"
"                           nanoseconds until it runs again; time it waits\n"
"                           for a CPU after preemption is a [runnable] leaf.\n"
"                           Recorded alone, or with cpu as wall\n"
"  wall                     cpu + offcpu, both in nanoseconds (a cpu sample\n"
"                           weighs 1/F s): the widths add up to the threads'\n"
"                           wall time; the text summary splits each thread's\n"
"                           time into on CPU, blocked and runnable\n"
"\n"
"Targets (one of):\n"
"  -p, --pid PID[,PID...]   all threads of these processes\n"
"  -a, --all                the whole system\n"
"  -- COMMAND [ARGS...]     run COMMAND, trace it and every process it starts,\n"
"                           stop when it exits\n"
"\n"
"Options:\n"
"  -F, --freq HZ            cpu sampling frequency (default %d)\n"
"  -d, --duration SECONDS   stop after this long (default: at Ctrl-C, or when\n"
"                           COMMAND exits)\n"
"  -o, --output FILE        where to write, repeatable; the name sets the format:\n"
"                           FILE.svg (interactive flame graph), FILE.pb.gz\n"
"                           (pprof), FILE.speedscope.json, FILE.folded\n"
"                           (FlameGraph folded stacks), FILE.txt or - (summary\n"
"                           of the top stacks; the default, on stdout).  Each\n"
"                           is checked before recording starts, and written\n"
"                           whole or not at all (a new file renamed over it);\n"
"                           if one cannot be written, the others still are and\n"
"                           the recording is saved once more as pprof\n"
"      --force              let -o replace a symlink (the link itself; what it\n"
"                           points to is never written)\n"
"      --top N              stacks shown in the text summary (default %d)\n"
"      --stack-bytes N      user stack bytes copied per event\n"
"                           (default %d, max %d)\n"
"      --ringbuf-mb N       ring buffer size in MiB (default: a quarter second\n"
"                           of cpu samples, 8..64; 64 for other events, -a)\n"
"      --unwind MODE        where native stacks are unwound: kernel (default;\n"
"                           from CFI tables in BPF maps, no stack copy), copy\n"
"                           (copy --stack-bytes of stack per event, unwind in\n"
"                           user space), check (both, compared frame for frame)\n"
"      --max-table-mb N     memory for in-kernel unwind tables (default %d)\n"
"      --per-event          send every event to user space; by default events\n"
"                           the kernel unwinds are counted in the kernel\n"
"                           (except those of interpreters, which are named)\n"
"      --no-lines           interpreter frames without line numbers, so one\n"
"                           function is one frame: 'name (file)'\n"
"      --no-interp          native frames only: do not walk interpreters\n"
"      --min-block TIME     offcpu: drop intervals shorter than TIME (1ms,\n"
"                           500us; default 0, keep all)\n"
"      --wakers             offcpu: join each blocked stack to the stack of\n"
"                           who woke the thread, drawn above it past a '--'\n"
"                           frame (a traced waker's user frames too; an\n"
"                           interrupt's kernel frames); native stacks only\n"
"      --no-runnable        offcpu: leave out time waiting for a CPU after\n"
"                           preemption (shown by default: it is time the\n"
"                           thread waited too)\n"
"      --stats[=walks]      what recording cost and how stacks ended: bytes\n"
"                           and BPF time per event (BPF time needs sysctl\n"
"                           kernel.bpf_stats_enabled=1), unwind outcomes;\n"
"                           =walks also times each in-kernel unwind (adds\n"
"                           ~100 ns to every event)\n"
"  -h, --help               this help\n"
"\n"
"Off-CPU profiles weigh stacks in nanoseconds (pprof: off_cpu/nanoseconds);\n"
"folded output writes microseconds.  The state a thread left the CPU in is\n"
"its innermost frame: [S sleeping], [D uninterruptible], [runnable].\n"
"Folded lines are 'comm;outermost;...;innermost COUNT'.  Kernel frames end in\n"
"_[k], inlined ones in _[i]; a frame that cannot be named is module+0xVADDR or\n"
"[unknown]; a stack cut short is marked [truncated].\n"
"Interpreter frames (CPython 3.11, Ruby 3.1, Perl 5.36 as /usr/bin/perl)\n"
"replace the interpreter loop's native frames and show as\n"
"'function (file:line)'; other versions say so once and show native frames\n"
"only.\n"
"Compressed debug files (libc6-dbg, -dbgsym) are decompressed once into\n"
"$STITCH_CACHE_DIR/debug (default ~/.cache/stitch/debug); STITCH_CACHE_DIR=\n"
"turns that off.\n"
"Needs root (or CAP_BPF + CAP_PERFMON).\n",
		DEFAULT_FREQ, DEFAULT_TOP, STITCH_DEFAULT_USTACK, STITCH_MAX_USTACK, DEFAULT_TABLE_MB);
}

static int fail_usage(const char *fmt, const char *arg)
{
	return cli_usage_error("record", fmt, arg);
}

/* A pid or tid: traced as its whole thread group. */
static int add_pid(struct record_opts *o, long v)
{
	char path[64], line[256];
	long tgid = v;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/status", v);
	f = fopen(path, "re");
	if (!f)
		return -ESRCH;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %ld", &tgid) == 1)
			break;
	fclose(f);
	if (o->npids == MAX_PIDS)
		return -E2BIG;
	o->pids[o->npids++] = (uint32_t)tgid;
	return 0;
}

static int parse_pids(struct record_opts *o, const char *arg)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	int rc = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		long v;

		if (!cli_parse_long(tok, 1, 0x7fffffff, &v)) {
			rc = fail_usage("-p: '%s' is not a process id", tok);
			break;
		}
		if (add_pid(o, v) != 0) {
			fprintf(stderr, "stitch record: no process with pid %ld\n", v);
			rc = 1;
		}
	}
	free(copy);
	return rc;
}

enum { OPT_TOP = 256, OPT_STACK_BYTES, OPT_RINGBUF_MB, OPT_STATS, OPT_UNWIND, OPT_MAX_TABLE_MB,
       OPT_PER_EVENT, OPT_NO_LINES, OPT_NO_INTERP, OPT_MIN_BLOCK, OPT_NO_RUNNABLE, OPT_WAKERS,
       OPT_FORCE };

static int parse_opts(int argc, char **argv, struct record_opts *o)
{
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "pid", required_argument, NULL, 'p' },
		{ "all", no_argument, NULL, 'a' },
		{ "freq", required_argument, NULL, 'F' },
		{ "duration", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "stack-bytes", required_argument, NULL, OPT_STACK_BYTES },
		{ "ringbuf-mb", required_argument, NULL, OPT_RINGBUF_MB },
		{ "stats", optional_argument, NULL, OPT_STATS },
		{ "unwind", required_argument, NULL, OPT_UNWIND },
		{ "max-table-mb", required_argument, NULL, OPT_MAX_TABLE_MB },
		{ "per-event", no_argument, NULL, OPT_PER_EVENT },
		{ "no-lines", no_argument, NULL, OPT_NO_LINES },
		{ "no-interp", no_argument, NULL, OPT_NO_INTERP },
		{ "min-block", required_argument, NULL, OPT_MIN_BLOCK },
		{ "no-runnable", no_argument, NULL, OPT_NO_RUNNABLE },
		{ "wakers", no_argument, NULL, OPT_WAKERS },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char err[512];
	long v;
	int c, rc, i;

	o->freq = DEFAULT_FREQ;
	o->stack_bytes = STITCH_DEFAULT_USTACK;
	o->ringbuf_mb = 0;	/* ringbuf_mb_of(): sized by what goes through it */
	o->top = DEFAULT_TOP;
	o->unwind_mode = KUNWIND_MODE_KERNEL;
	o->max_table_mb = DEFAULT_TABLE_MB;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+e:p:aF:d:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'e': {
			/* wall: on-CPU samples and off-CPU time, in one unit. */
			bool wall = strcmp(optarg, "wall") == 0;
			const char *const wall_events[] = { "cpu", "offcpu" };
			int k;

			if (o->nevents + (wall ? 2 : 1) > MAX_EVENTS)
				return fail_usage("too many events (at most %s)", "64");
			for (k = 0; k < (wall ? 2 : 1); k++) {
				struct event_spec *ev = &o->events[o->nevents];

				if (event_parse(wall ? wall_events[k] : optarg, ev, err,
						sizeof(err)) != 0) {
					event_free(ev);
					return fail_usage("%s", err);
				}
				o->event_names[o->nevents++] = ev->text;
			}
			break;
		}
		case 'p':
			rc = parse_pids(o, optarg);
			if (rc)
				return rc;
			break;
		case 'a':
			o->all = true;
			break;
		case 'F':
			if (!cli_parse_long(optarg, 1, 100000, &v))
				return fail_usage("-F: '%s' is not a frequency in Hz (1..100000)", optarg);
			o->freq = v;
			break;
		case 'd': {
			char *end;

			o->duration = strtod(optarg, &end);
			if (end == optarg || *end || !(o->duration > 0) || o->duration > 1e7)
				return fail_usage("-d: '%s' is not a positive number of seconds", optarg);
			break;
		}
		case 'o':
			if (output_add("record", o->outputs, o->formats, &o->noutputs, MAX_OUTPUTS,
				       optarg))
				return 2;
			break;
		case OPT_TOP:
			if (!cli_parse_long(optarg, 1, 1000000, &v))
				return fail_usage("--top: '%s' is not a positive count", optarg);
			o->top = v;
			break;
		case OPT_STACK_BYTES:
			if (!cli_parse_long(optarg, 0, STITCH_MAX_USTACK, &v))
				return fail_usage("--stack-bytes: '%s' must be 0..65536", optarg);
			o->stack_bytes = v;
			break;
		case OPT_RINGBUF_MB:
			if (!cli_parse_long(optarg, 1, 4096, &v) || (v & (v - 1)))
				return fail_usage("--ringbuf-mb: '%s' must be a power of two, 1..4096", optarg);
			o->ringbuf_mb = v;
			break;
		case OPT_STATS:
			o->stats = true;
			if (optarg && strcmp(optarg, "walks") != 0)
				return fail_usage("--stats: '%s' is not 'walks'", optarg);
			o->time_walks = optarg != NULL;
			break;
		case OPT_UNWIND:
			if (strcmp(optarg, "kernel") == 0)
				o->unwind_mode = KUNWIND_MODE_KERNEL;
			else if (strcmp(optarg, "copy") == 0)
				o->unwind_mode = KUNWIND_MODE_COPY;
			else if (strcmp(optarg, "check") == 0)
				o->unwind_mode = KUNWIND_MODE_CHECK;
			else
				return fail_usage("--unwind: '%s' is not kernel, copy or check", optarg);
			o->unwind_asked = true;
			break;
		case OPT_PER_EVENT:
			o->per_event = true;
			break;
		case OPT_MAX_TABLE_MB: {
			char *end;

			o->max_table_mb = strtod(optarg, &end);
			if (end == optarg || *end || !(o->max_table_mb >= 0.01) ||
			    o->max_table_mb > 65536)
				return fail_usage("--max-table-mb: '%s' must be a number of MiB, "
						  "0.01..65536", optarg);
			break;
		}
		case OPT_NO_LINES:
			o->no_lines = true;
			break;
		case OPT_NO_INTERP:
			o->no_interp = true;
			break;
		case OPT_MIN_BLOCK:
			o->min_block_ns = strcmp(optarg, "0") ? cli_parse_time(optarg) : 0;
			if (!o->min_block_ns && strcmp(optarg, "0"))
				return fail_usage("--min-block: '%s' is not a time (like 1ms, 500us, "
						  "0.2s; 0 keeps every interval)", optarg);
			break;
		case OPT_NO_RUNNABLE:
			o->no_runnable = true;
			break;
		case OPT_WAKERS:
			o->wakers = true;
			break;
		case OPT_FORCE:
			o->force = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			fprintf(stderr, "Try 'stitch record --help'.\n");
			return 2;
		}
	}
	if (optind < argc)
		o->command = &argv[optind];
	if (!o->nevents) {
		event_parse("cpu", &o->events[0], err, sizeof(err));
		o->event_names[0] = o->events[0].text;
		o->nevents = 1;
	}
	if (!o->noutputs) {
		o->outputs[0] = "-";
		o->formats[0] = OUTPUT_TEXT;
		o->noutputs = 1;
	}
		if (o->wakers) {
		for (i = 0; i < o->nevents && o->events[i].kind != EVENT_OFFCPU; i++)
			;
		if (i == o->nevents)
			return fail_usage("%s", "--wakers goes with -e offcpu (or -e wall)");
	}
/* cpu with offcpu is wall time: both in nanoseconds; anything else is not time. */
	for (i = 0; i < o->nevents; i++) {
		if (o->events[i].kind != EVENT_OFFCPU || o->nevents == 1)
			continue;
		o->wall = o->nevents == 2 && o->events[!i].kind == EVENT_CPU;
		o->wall_cpu_idx = !i;
		if (!o->wall)
			return fail_usage("%s", "-e offcpu weighs stacks in time, other events in "
					  "counts: record it alone, or with cpu (-e wall)");
	}
	if ((o->all ? 1 : 0) + (o->npids ? 1 : 0) + (o->command ? 1 : 0) != 1)
		return fail_usage("%s", "say what to trace with exactly one of: -p PID, -a (whole "
				  "system), or -- COMMAND");
	return 0;
}

/* ---- sample processing ------------------------------------------------- */

struct lookup_ctx {
	struct recorder *r;
	struct proc *proc;
};

static const struct unwind_table *lookup_table(void *ctx, uint64_t pc, uint64_t *bias)
{
	struct lookup_ctx *l = ctx;
	const struct map *m = proc_find_map(l->proc, pc);

	if (!m || !m->bin)
		return NULL;
	*bias = m->bias;
	return binary_table(&l->r->bins, m->bin);
}

static size_t key_bytes_for(uint16_t nk, uint16_t nu)
{
	return sizeof(struct stack_key) + nk * sizeof(uint64_t) + nu * sizeof(struct uframe);
}

/* Mark how a stack ended, unless it visibly ends in an unknown frame already. */
static int end_marker(struct uframe *uf, int nu, enum unwind_stop why)
{
	if (why != UNWIND_STOP_END && !(nu && uf[nu - 1].kind == UFRAME_UNKNOWN)) {
		memset(&uf[nu], 0, sizeof(uf[nu]));
		uf[nu].kind = why == UNWIND_STOP_TRUNCATED ? UFRAME_TRUNCATED : UFRAME_CUT;
		nu++;
	}
	return nu;
}

/* User frames from the copied stack, unwound here; sets *why. */
static int frames_from_copy(struct recorder *r, const struct sample_event *e, struct proc *proc,
			    struct uframe *uf, enum unwind_stop *why)
{
	struct unwind_regs regs = { e->ip, e->sp, e->bp };
	struct unwind_stack stack = { e->sp, e->ustack + e->ucopy_off,
				      e->ustack_bytes - e->ucopy_off };
	struct lookup_ctx lc = { r, proc };
	int n, i, nu = 0;

	*why = UNWIND_STOP_END;
	n = unwind_user(&regs, &stack, lookup_table, &lc, r->uframes, MAX_UFRAMES, why);
	for (i = 0; i < n; i++) {
		const struct map *m = proc_find_map(proc, r->uframes[i].pc);

		memset(&uf[nu], 0, sizeof(uf[nu]));
		uf[nu].exact = r->uframes[i].exact;
		if (m && m->bin) {
			uf[nu].kind = UFRAME_ELF;
			uf[nu].bin = m->bin;
			uf[nu].addr = r->uframes[i].pc - m->bias;
		} else {
			uf[nu].kind = UFRAME_UNKNOWN;
			uf[nu].addr = r->uframes[i].pc;
		}
		nu++;
	}
	return end_marker(uf, nu, *why);
}

/* User frames the kernel unwound (kunwind frame words); -1 if malformed. */
static int frames_from_kernel(struct recorder *r, const struct sample_event *e,
			      struct uframe *uf, enum unwind_stop *why)
{
	*why = e->ustop;
	return kunwind_decode(&r->kw, (const uint64_t *)e->ustack, e->nuframes, e->ustop, uf);
}

static bool uframe_eq(const struct uframe *a, const struct uframe *b)
{
	return a->kind == b->kind && a->bin == b->bin && a->addr == b->addr &&
	       a->exact == b->exact;
}

/*
 * --unwind=check: the kernel's frames must equal the user-space unwinder's
 * on the same stack, frame for frame.  Where the copy was cut at
 * --stack-bytes, the kernel (which reads on) must agree on the copied part.
 */
static void check_frames(struct recorder *r, const struct sample_event *e,
			 const struct uframe *kuf, int nk, const struct uframe *cuf, int nc)
{
	bool capped = (e->flags & STITCH_SAMPLE_USTACK_CAPPED) && nc &&
		      cuf[nc - 1].kind == UFRAME_TRUNCATED;
	int i, n = capped ? nc - 1 : nc;
	bool same = capped ? nk >= n : nk == nc;

	for (i = 0; same && i < n; i++)
		same = uframe_eq(&kuf[i], &cuf[i]);
	r->check_compared++;
	if (capped)
		r->check_prefix++;
	if (same)
		return;
	if (r->check_mismatched++ < 5) {
		fprintf(stderr, "stitch: check: pid %u tid %u: kernel %d frames (stop %u), "
			"copy %d frames differ:\n", e->pid, e->tid, nk, e->ustop, nc);
		for (i = 0; i < nk || i < nc; i++)
			fprintf(stderr, "  %3d  kernel %s+0x%" PRIx64 "%s  copy %s+0x%" PRIx64 "%s\n", i,
				i < nk && kuf[i].bin ? kuf[i].bin->name : "-",
				i < nk ? kuf[i].addr : 0, i < nk && kuf[i].exact ? "!" : "",
				i < nc && cuf[i].bin ? cuf[i].bin->name : "-",
				i < nc ? cuf[i].addr : 0, i < nc && cuf[i].exact ? "!" : "");
	}
}

static int handle_sample(void *ctx, void *data, size_t size)
{
	struct recorder *r = ctx;
	const struct sample_event *e = data;
	struct stack_key *key = (struct stack_key *)r->key_buf;
	struct uframe *uf;
	uint64_t *kips;
	struct proc *proc = NULL, *iproc;
	enum unwind_stop why = UNWIND_STOP_END;
	bool kframes, copied;
	int nk, nu = 0, i;

	r->bytes_received += size;
	/* Interpreter frames come just before their sample: keep them for it. */
	if (size >= sizeof(uint64_t) && *(const uint64_t *)data == INTERP_EVENT_MAGIC) {
		interp_stash(&r->interp, data, size);
		return 0;
	}
	/* An off-CPU interval ended: what the thread's sent stack weighs. */
	if (size == sizeof(struct offcpu_weight) &&
	    *(const uint64_t *)data == OFFCPU_WEIGHT_MAGIC) {
		const struct offcpu_weight *w = data;

		offcpu_weigh(&r->offcpu, w->tid, w->ns, &r->stacks);
		return 0;
	}
	if (size < STITCH_SAMPLE_HDR_BYTES || e->kstack_bytes > sizeof(e->kstack) ||
	    e->ustack_bytes > size - STITCH_SAMPLE_HDR_BYTES ||
	    e->ustack_bytes > STITCH_USTACK_ROOM + STITCH_MAX_USTACK ||
	    e->ucopy_off > e->ustack_bytes || e->nuframes > KUNWIND_MAX_FRAMES ||
	    e->nuframes * 8u > e->ustack_bytes) {
		r->bad_records++;
		return 0;
	}
	kframes = (e->flags & STITCH_SAMPLE_USER_REGS) && (e->flags & STITCH_SAMPLE_KFRAMES);
	copied = (e->flags & STITCH_SAMPLE_USER_REGS) &&
		 (!kframes || r->o->unwind_mode == KUNWIND_MODE_CHECK);
	if (kframes && e->ucopy_off && e->ucopy_off < e->nuframes * 8u) {
		r->bad_records++;
		return 0;
	}
	/* Bring the process model up to the moment of this event. */
	perf_tracker_drain(&r->ptrack);
	perf_tracker_apply(&r->ptrack, &r->procs, e->time_ns);

	memset(key, 0, sizeof(*key));
	key->pid = e->pid;
	key->tid = e->tid;
	key->event_idx = e->event_idx;
	memcpy(key->comm, e->comm, STITCH_COMM_LEN);
	kips = (uint64_t *)(key + 1);
	nk = 0;
	/* An off-CPU stack's thread state: its innermost frame (stack_tag_frame). */
	if (e->tag && e->tag < OFFCPU_TAG_NR)
		kips[nk++] = e->tag;
	for (i = 0; i < (int)(e->kstack_bytes / 8) && e->kstack[i]; i++)
		kips[nk++] = e->kstack[i];
	key->nkernel = nk;
	uf = (struct uframe *)(kips + nk);

	/* kunwind: the kernel could not walk this one; give it the process's tables. */
	if (copied && !kframes && r->kw_ready)
		kunwind_mark_dirty(&r->kw, e->pid);
	if (copied)
		proc = procs_get(&r->procs, e->pid);
	/* Interpreters: look at the process (new mappings), and splice its frames below. */
	iproc = proc ? proc : (e->flags & STITCH_SAMPLE_USER_REGS) ?
		procs_get(&r->procs, e->pid) : NULL;
	interp_proc_update(&r->interp, iproc);
	if (kframes) {
		nu = frames_from_kernel(r, e, uf, &why);
		if (nu < 0) {
			r->bad_records++;
			return 0;
		}
		if (proc) {
			int nc = frames_from_copy(r, e, proc, r->check_uf, &why);

			check_frames(r, e, uf, nu, r->check_uf, nc);
			why = e->ustop;
		}
	} else if (proc) {
		nu = frames_from_copy(r, e, proc, uf, &why);
	}
	if (iproc)
		nu = interp_stitch(&r->interp, iproc, e->tid, e->time_ns, uf, nu,
				   MAX_UFRAMES + 1 + INTERP_MAX_FRAMES, why == UNWIND_STOP_END,
				   e->flags & STITCH_SAMPLE_INTERP_LOST);
	if (kframes || proc)
		r->unwind_stops[why]++;
	key->nuser = nu;
	if (e->flags & STITCH_SAMPLE_WEIGHT_LATER)
		offcpu_hold(&r->offcpu, e->tid, key, key_bytes_for(nk, nu));
	else if (r->hooks && r->hooks->sample)
		r->hooks->sample(r->hooks->ctx, e, key, key_bytes_for(nk, nu));
	else
		stacks_add(&r->stacks, key, key_bytes_for(nk, nu));
	return 0;
}

/* ---- setup and teardown ------------------------------------------------ */

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_WARN && getenv("STITCH_DEBUG"))
		return vfprintf(stderr, fmt, ap);
	if (level == LIBBPF_DEBUG && getenv("STITCH_DEBUG_BPF"))
		return vfprintf(stderr, fmt, ap);
	return 0;
}

static int load_bpf(struct recorder *r);

/*
 * Load, unwinding in the kernel unless told otherwise; where the kernel
 * cannot (no bpf_loop, verifier limits), say so and copy stacks instead.
 */
static int open_bpf(struct recorder *r)
{
	struct record_opts *o = r->o;
	int err;

	err = load_bpf(r);
	if (!err || err == -EPERM || o->unwind_mode == KUNWIND_MODE_COPY || o->unwind_asked)
		return err ? -1 : 0;
	kunwind_free(&r->kw);
	r->kw_ready = false;
	fprintf(stderr, "stitch: this kernel cannot unwind stacks in BPF (%s); copying "
		"stacks to user space instead (--unwind=copy)\n", strerror(-err));
	if (r->skel)
		capture_bpf__destroy(r->skel);
	r->skel = NULL;
	o->unwind_mode = KUNWIND_MODE_COPY;
	return load_bpf(r) ? -1 : 0;
}

/*
 * Verify only the capture programs our events attach: each is the whole
 * capture path, ~20 ms of verifier time, most of stitch's startup CPU.
 */
static void load_used_programs_only(struct recorder *r)
{
	struct record_opts *o = r->o;
	bool perf = false, tp = false, uprobe = false, kprobe = false, offcpu = false;
	int i;

	for (i = 0; i < o->nevents; i++) {
		switch (o->events[i].kind) {
		case EVENT_CPU:
			perf = true;
			break;
		case EVENT_SYSCALL:
		case EVENT_TRACEPOINT:
			tp = true;
			break;
		case EVENT_UPROBE:
		case EVENT_USDT:
			uprobe = true;
			break;
		case EVENT_KPROBE:
			kprobe = true;
			break;
		case EVENT_OFFCPU:
			offcpu = true;
			r->skel->rodata->offcpu_event_idx = i;
			break;
		}
	}
	bpf_program__set_autoload(r->skel->progs.on_perf_event, perf);
	bpf_program__set_autoload(r->skel->progs.on_tracepoint, tp);
	bpf_program__set_autoload(r->skel->progs.on_uprobe, uprobe);
	bpf_program__set_autoload(r->skel->progs.on_kprobe, kprobe);
	bpf_program__set_autoload(r->skel->progs.on_sched_switch, offcpu);
	bpf_program__set_autoload(r->skel->progs.on_sched_waking, offcpu && o->wakers);
	r->skel->rodata->offcpu_wakers = offcpu && o->wakers;
	r->skel->rodata->offcpu_min_block_ns = o->min_block_ns;
	r->skel->rodata->offcpu_runnable = !o->no_runnable;
}

/*
 * The ring's default size: what a quarter of a second of events can fill,
 * the reader polling every 20 ms.  Only cpu sampling of chosen processes
 * has a known rate: -F on every CPU, each record at most its stack copy
 * (while tables load, for interpreters, with --per-event) and a kernel
 * stack.  Other events fire at any rate: until a new process's tables are
 * loaded its events are copied (~2.5 KB each), and a hot syscall (~250k
 * events/s) overflowed a 16 MiB ring in that time; -a starts by loading
 * tables for every process.  Those get 64 MiB.  A smaller ring costs less
 * to create and map (64 MiB: ~18 ms of the start).
 */
static size_t ringbuf_mb_of(const struct record_opts *o)
{
	uint64_t need;
	size_t mb = 8;
	int i;
	int ncpus = libbpf_num_possible_cpus();

	if (o->ringbuf_mb)
		return o->ringbuf_mb;
	if (o->all || ncpus <= 0)
		return 64;
	for (i = 0; i < o->nevents; i++)
		if (o->events[i].kind != EVENT_CPU)
			return 64;
	need = (uint64_t)o->freq * ncpus *
	       (o->stack_bytes + sizeof(((struct sample_event *)0)->kstack) + 512) / 4;
	while (mb < 64 && ((uint64_t)mb << 20) < need)
		mb <<= 1;
	return mb;
}

static int load_bpf(struct recorder *r)
{
	struct record_opts *o = r->o;
	bool quiet = o->unwind_mode == KUNWIND_MODE_KERNEL && !o->unwind_asked;
	const char *test_mask;
	int err, i;

	r->skel = capture_bpf__open();
	if (r->skel)
		r->ringbuf_mb = ringbuf_mb_of(o);
	if (!r->skel) {
		fprintf(stderr, "stitch record: cannot open the BPF object: %s\n", strerror(errno));
		return -errno;
	}
	r->skel->rodata->kunwind_mode = o->unwind_mode;
	r->skel->rodata->kunwind_time_walks = o->time_walks;
	r->skel->rodata->kunwind_count_in_kernel = o->unwind_mode == KUNWIND_MODE_KERNEL &&
						   !o->per_event;
	/* Tests only: force stacks to share hashes (kagg_hash_mask). */
	test_mask = getenv("STITCH_TEST_HASH_MASK");
	if (test_mask)
		r->skel->rodata->kagg_hash_mask = strtoull(test_mask, NULL, 0);
	/* Copy mode needs no tables: keep the row array minimal. */
	bpf_map__set_max_entries(r->skel->maps.kunwind_rows,
				 o->unwind_mode == KUNWIND_MODE_COPY ? 1 :
				 kunwind_rows_for_mb(o->max_table_mb));
	r->skel->rodata->filter_tgids = !o->all;
	/*
	 * -p of a few processes: their tgids in the program itself.  Not when
	 * another command drives us: it may add processes to traced_tgids.
	 */
	if (o->npids && !o->command && !r->hooks &&
	    o->npids <= STITCH_FIXED_TGIDS) {
		for (i = 0; i < o->npids; i++)
			r->skel->rodata->fixed_tgids[i] = o->pids[i];
		r->skel->rodata->nfixed_tgids = o->npids;
	}
	r->skel->rodata->follow_forks = o->command != NULL;
	r->skel->rodata->ustack_limit = o->stack_bytes;
	bpf_map__set_max_entries(r->skel->maps.samples, r->ringbuf_mb << 20);
	bpf_map__set_max_entries(r->skel->maps.scratch, libbpf_num_possible_cpus());
	load_used_programs_only(r);
	if (r->hooks && r->hooks->before_load && r->hooks->before_load(r->hooks->ctx, r->skel))
		return -1;
	err = capture_bpf__load(r->skel);
	if (err && quiet && err != -EPERM)
		return err;	/* the caller falls back to copying, and says so */
	if (err) {
		fprintf(stderr, "stitch record: cannot load the BPF programs: %s%s\n", strerror(-err),
			err == -EPERM ? " (needs root, or CAP_BPF + CAP_PERFMON)" :
			" (run with STITCH_DEBUG_BPF=1 for the verifier log)");
		return err;
	}
	if (o->unwind_mode != KUNWIND_MODE_COPY && !r->kw_ready) {
		err = kunwind_init(&r->kw, bpf_map__fd(r->skel->maps.kunwind_rows),
				   bpf_map__fd(r->skel->maps.kunwind_procs),
				   kunwind_rows_for_mb(o->max_table_mb), o->max_table_mb);
		if (err) {
			if (!quiet)
				fprintf(stderr, "stitch record: cannot map the unwind tables: %s\n",
					strerror(-err));
			return err;
		}
		r->kw_ready = true;
	}
	/* Loaded again after a fallback: start over with the new maps. */
	interp_free(&r->interp);
	err = interp_init(&r->interp, bpf_map__fd(r->skel->maps.interp_procs),
			  bpf_map__fd(r->skel->maps.interp_layouts), o->no_lines);
	r->interp.any_procs = &r->skel->bss->interp_any;
	r->interp.disabled = o->no_interp;
	if (err) {
		fprintf(stderr, "stitch record: cannot set up interpreter walking: %s\n",
			strerror(-err));
		return -1;
	}
	return 0;
}

static int trace_tgid(struct recorder *r, uint32_t tgid)
{
	uint8_t one = 1;

	return bpf_map__update_elem(r->skel->maps.traced_tgids, &tgid, sizeof(tgid), &one,
				    sizeof(one), BPF_ANY);
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

static int attach_all(struct recorder *r)
{
	struct record_opts *o = r->o;
	char err[1024];
	int i;

	for (i = 0; i < o->nevents; i++) {
		if (o->events[i].kind == EVENT_SYSCALL || o->events[i].kind == EVENT_TRACEPOINT) {
			if (ensure_tracefs(err, sizeof(err)) != 0) {
				fprintf(stderr, "stitch record: %s\n", err);
				return -1;
			}
			break;
		}
	}
	r->att.skel = r->skel;
	r->att.freq_hz = o->freq;
	r->att.pids = o->pids;
	r->att.npids = o->npids;
	for (i = 0; i < o->nevents; i++) {
		if (attach_event(&r->att, &o->events[i], i, err, sizeof(err)) != 0) {
			fprintf(stderr, "stitch record: %s\n", err);
			return -1;
		}
	}
	return 0;
}

static int attach_process_tracking(struct recorder *r)
{
	struct bpf_link *l;

	/* kunwind: forget a process's mapping list when it execs or exits. */
	if (r->kw_ready) {
		l = bpf_program__attach(r->skel->progs.kunwind_on_exec);
		if (!l)
			goto fail;
		r->skel->links.kunwind_on_exec = l;
		l = bpf_program__attach(r->skel->progs.kunwind_on_exit);
		if (!l)
			goto fail;
		r->skel->links.kunwind_on_exit = l;
	}
	if (r->o->all)
		return 0;
	l = bpf_program__attach(r->skel->progs.on_fork);
	if (!l)
		goto fail;
	r->skel->links.on_fork = l;
	l = bpf_program__attach(r->skel->progs.on_exit);
	if (!l)
		goto fail;
	r->skel->links.on_exit = l;
	return 0;
fail:
	fprintf(stderr, "stitch record: cannot follow new processes: %s\n", strerror(errno));
	return -1;
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

/* Events counted in the kernel, of one epoch (deleted from the map) or all (-1). */
/* Where off-CPU time read from the kernel goes. */
static void offcpu_sink_of(struct recorder *r, struct offcpu_sink *s)
{
	*s = (struct offcpu_sink){
		.kw = &r->kw,
		.kstacks_fd = bpf_map__fd(r->skel->maps.kagg_kstacks),
		.ustacks_fd = bpf_map__fd(r->skel->maps.kagg_ustacks),
		.stacks = &r->stacks,
		.stops = r->unwind_stops,
		.bytes = &r->bytes_received,
		.pending = &r->offcpu,
	};
}

static void kernel_counts_read(struct recorder *r, int64_t epoch)
{
	int64_t n;

	if (!r->kw_ready || !r->skel->rodata->kunwind_count_in_kernel)
		return;
	n = kunwind_read_counts(&r->kw, bpf_map__fd(r->skel->maps.kagg_counts),
				bpf_map__fd(r->skel->maps.kagg_kstacks),
				bpf_map__fd(r->skel->maps.kagg_ustacks), epoch, &r->stacks,
				r->unwind_stops, &r->bytes_received);
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

static uint64_t mono_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
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

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t unix_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void read_stats(struct recorder *r, uint64_t out[STAT_NR])
{
	int ncpu = libbpf_num_possible_cpus(), c;
	uint64_t *vals;
	uint32_t k;

	memset(out, 0, STAT_NR * sizeof(out[0]));
	if (ncpu <= 0)
		return;
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return;
	for (k = 0; k < STAT_NR; k++) {
		if (bpf_map__lookup_elem(r->skel->maps.stats, &k, sizeof(k), vals,
					 ncpu * sizeof(*vals), 0) != 0)
			continue;
		for (c = 0; c < ncpu; c++)
			out[k] += vals[c];
	}
	free(vals);
}

/*
 * Events the kernel skipped because a BPF program was already running on
 * that CPU (its recursion guard): lost too, and counted per program.
 */
static uint64_t prog_misses(struct recorder *r)
{
	struct bpf_program *progs[] = {
		r->skel->progs.on_perf_event, r->skel->progs.on_tracepoint,
		r->skel->progs.on_uprobe, r->skel->progs.on_kprobe,
	};
	uint64_t misses = 0;
	size_t i;

	for (i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);

		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(bpf_program__fd(progs[i]), &info, &len) == 0)
			misses += info.recursion_misses;
	}
	return misses;
}

static void report_losses(struct recorder *r, const uint64_t st[STAT_NR])
{
	uint64_t lost = st[STAT_RINGBUF_LOST];

	if (lost)
		fprintf(stderr, "stitch: LOST %" PRIu64 " of %" PRIu64 " events: ring buffer full "
			"(try --ringbuf-mb %zu or a lower rate)\n",
			lost, st[STAT_EVENTS],
			r->ringbuf_mb * 4 > 4096 ? (size_t)4096 : r->ringbuf_mb * 4);
	if (prog_misses(r))
		fprintf(stderr, "stitch: LOST %" PRIu64 " events the kernel did not let us see: "
			"another BPF program was running on that CPU\n", prog_misses(r));
	if (st[STAT_INTERP_LOST])
		fprintf(stderr, "stitch: %" PRIu64 " events lost their interpreter frames: ring "
			"buffer full (marked [interpreter frames lost])\n", st[STAT_INTERP_LOST]);
	if (st[STAT_USTACK_FAULT])
		fprintf(stderr, "stitch: %" PRIu64 " events had an unreadable user stack "
			"(shown without user frames)\n", st[STAT_USTACK_FAULT]);
	if (st[STAT_KSTACK_FAULT])
		fprintf(stderr, "stitch: %" PRIu64 " events had no kernel stack\n",
			st[STAT_KSTACK_FAULT]);
	if (r->ptrack.lost)
		fprintf(stderr, "stitch: the kernel dropped %" PRIu64 " process-tracking records "
			"(mappings may be missing: some frames may show as [unknown])\n",
			r->ptrack.lost);
	if (st[STAT_OFFCPU_UNTRACKED] + st[STAT_OFFCPU_LOST] + r->offcpu.lost)
		fprintf(stderr, "stitch: LOST %" PRIu64 " off-CPU intervals (%" PRIu64 " threads "
			"beyond %d tracked, %" PRIu64 " with full maps, %" PRIu64 " whose record "
			"was lost)\n", st[STAT_OFFCPU_UNTRACKED] + st[STAT_OFFCPU_LOST] +
			r->offcpu.lost, st[STAT_OFFCPU_UNTRACKED], OFFCPU_MAX_THREADS,
			st[STAT_OFFCPU_LOST], r->offcpu.lost);
	if (r->bad_records + r->ptrack.malformed)
		fprintf(stderr, "stitch: %" PRIu64 " malformed records ignored\n",
			r->bad_records + r->ptrack.malformed);
}

/* BPF run time of one of our programs (kernel.bpf_stats_enabled). */
static void prog_cost(struct bpf_program *p, uint64_t *ns, uint64_t *cnt)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	/* bpf_obj_get_info_by_fd: libbpf 1.1 has no bpf_prog_get_info_by_fd yet. */
	if (bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len) == 0) {
		*ns += info.run_time_ns;
		*cnt += info.run_cnt;
	}
}

static void report_stats(struct recorder *r, const uint64_t st[STAT_NR])
{
	struct capture_bpf *sk = r->skel;
	uint64_t ns = 0, cnt = 0, got = r->stacks.total, ends = 0;
	int i;

	prog_cost(sk->progs.on_perf_event, &ns, &cnt);
	prog_cost(sk->progs.on_tracepoint, &ns, &cnt);
	prog_cost(sk->progs.on_uprobe, &ns, &cnt);
	prog_cost(sk->progs.on_kprobe, &ns, &cnt);
	if (bpf_program__autoload(sk->progs.on_sched_switch)) {
		uint64_t sns = 0, scnt = 0;

		/* Every switch of the machine runs it; traced threads' ones take stacks. */
		prog_cost(sk->progs.on_sched_switch, &sns, &scnt);
		fprintf(stderr, "stitch stats: off-CPU: %" PRIu64 " switch-outs of traced threads "
			"took a stack; sched_switch ran %" PRIu64 " times, %.0f ns per run\n",
			st[STAT_OFFCPU_OUT], scnt, scnt ? (double)sns / scnt : 0.0);
		ns += sns;
		cnt += scnt;
		got = st[STAT_OFFCPU_OUT];
	}
	for (i = 0; i <= UNWIND_STOP_BAD; i++)
		ends += r->unwind_stops[i];
	fprintf(stderr, "stitch stats: events %" PRIu64 ", received %" PRIu64 ", bytes/event %.0f\n",
		st[STAT_EVENTS], got, got ? (double)r->bytes_received / got : 0.0);
	if (cnt)
		/* per event: every run's time over the events kept, an upper bound */
		fprintf(stderr, "stitch stats: bpf runs %" PRIu64 ", %.0f ns/run, %.0f ns per "
			"event\n", cnt, (double)ns / cnt,
			st[STAT_EVENTS] ? (double)ns / st[STAT_EVENTS] : 0.0);
	else
		fprintf(stderr, "stitch stats: bpf run time unknown "
			"(sysctl kernel.bpf_stats_enabled=1 to measure it)\n");
	fprintf(stderr, "stitch stats: user stacks: %" PRIu64 " complete, %" PRIu64
		" truncated, %" PRIu64 " left a module, %" PRIu64 " without a rule, %" PRIu64
		" inconsistent (of %" PRIu64 ")\n",
		r->unwind_stops[UNWIND_STOP_END], r->unwind_stops[UNWIND_STOP_TRUNCATED],
		r->unwind_stops[UNWIND_STOP_NO_MODULE], r->unwind_stops[UNWIND_STOP_NO_RULE],
		r->unwind_stops[UNWIND_STOP_BAD], ends);
	fprintf(stderr, "stitch stats: interpreter stacks not stitched %" PRIu64
		", interpreter walks that failed %" PRIu64 "\n",
		r->interp.unstitched, r->interp.walk_errors);
	fprintf(stderr, "stitch stats: binaries unreadable %" PRIu64 ", unwind rows loaded %zu\n",
		r->procs.unreadable_maps, r->bins.table_rows);
	if (r->kw_ready)
		fprintf(stderr, "stitch stats: counted in the kernel %" PRIu64 ", sent as records "
			"%" PRIu64 " (maps full %" PRIu64 ", hash collisions %" PRIu64 ")\n",
			st[STAT_KAGG_COUNTED], st[STAT_EVENTS] - st[STAT_KAGG_COUNTED],
			st[STAT_KAGG_FULL], st[STAT_KAGG_COLLISION]);
	if (st[STAT_KUNWIND_WALKS])
		fprintf(stderr, "stitch stats: kernel unwinding: %.0f ns per walk, %.1f frames "
			"per walk (%" PRIu64 " walks, %" PRIu64 " ended as this CPU's last)\n",
			(double)st[STAT_KUNWIND_NS] / st[STAT_KUNWIND_WALKS],
			(double)st[STAT_KUNWIND_FRAMES] / st[STAT_KUNWIND_WALKS],
			st[STAT_KUNWIND_WALKS], st[STAT_KUNWIND_MEMO]);
	if (r->kw_ready && r->o->npids)
		fprintf(stderr, "stitch stats: kernel unwinding: targets' tables loaded in %.0f ms\n",
			r->kw_setup_s * 1e3);
	if (r->kw_ready)
		fprintf(stderr, "stitch stats: kernel unwinding: %zu rows (%.1f MiB of %g, at most %.1f) "
			"for %" PRIu64 " binaries, %" PRIu64 " over budget, %" PRIu64 " dropped when "
			"unmapped, %" PRIu64 " process lists written, %" PRIu64 " events copied "
			"while tables were missing\n",
			r->kw.rows_live, r->kw.rows_live * r->kw.row_stride / 1048576.0,
			r->o->max_table_mb, r->kw.rows_used * r->kw.row_stride / 1048576.0,
			r->kw.tables_loaded, r->kw.tables_refused, r->kw.tables_dropped,
			r->kw.procs_written, st[STAT_KUNWIND_FALLBACK]);
	else
		fprintf(stderr, "stitch stats: stacks copied and unwound in user space\n");
}

/* After the output: naming the frames is what opens DWARF. */
static void report_debug_cache(void)
{
	const char *dir = debug_cache_dir();
	struct debug_cache_stats st;

	debug_cache_get_stats(&st);
	fprintf(stderr, "stitch stats: compressed DWARF: %lu files from the cache, %lu "
		"decompressed into it, %lu decompressed in memory (%s%s)\n",
		st.used, st.written, st.uncached, dir ? "cache " : "no cache used", dir ? dir : "");
}

static void title_of(struct record_opts *o, char *buf, size_t len)
{
	size_t n = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < o->nevents && n < len; i++) {
		int w;

		if (o->events[i].kind == EVENT_CPU)
			w = snprintf(buf + n, len - n, "%scpu at %d Hz", i ? ", " : "", o->freq);
		else
			w = snprintf(buf + n, len - n, "%s%s", i ? ", " : "", o->events[i].text);
		if (w < 0)
			break;
		n += w;
	}
}

/* What was traced, for the flame graph's subtitle. */
static void target_of(struct recorder *r, char *buf, size_t len)
{
	struct record_opts *o = r->o;
	size_t n = 0;
	int i;

	if (o->all) {
		snprintf(buf, len, "whole system");
	} else if (o->command) {
		n = snprintf(buf, len, "command:");
		for (i = 0; o->command[i] && n < len; i++)
			n += snprintf(buf + n, len - n, " %s", o->command[i]);
	} else {
		n = snprintf(buf, len, "pid");
		for (i = 0; i < o->npids && n < len; i++)
			n += snprintf(buf + n, len - n, "%s%u", i ? "," : " ", o->pids[i]);
	}
	if (len > 80 && strlen(buf) > 80)
		strcpy(buf + 77, "...");
}

static int write_output(struct recorder *r, double seconds, uint64_t start_unix_ns)
{
	struct record_opts *o = r->o;
	struct output_opts oo = { .top = o->top };
	struct resolver res;
	struct profile p;
	char title[512], sub[512], threads[8192], what[128], v[32];
	int rc;

	profile_init(&p);
	if (o->wall)
		oo.preamble = wall_weigh(&r->stacks, o->wall_cpu_idx, 1000000000ULL / o->freq,
					 threads, sizeof(threads));
	rc = resolver_init(&res, NULL);
	resolver_name_kernel_lazily(&res, "/proc/kallsyms");
	if (!rc)
		rc = profile_from_stacks(&p, &r->stacks, &res, o->event_names, o->nevents);
	if (!rc) {
		title_of(o, title, sizeof(title));
		p.title = profile_str(&p, title);
		p.duration_ns = seconds * 1e9;
		p.time_ns = start_unix_ns;
		/* Samples are time only when cpu sampling is all there is. */
		if (o->nevents == 1 && o->events[0].kind == EVENT_CPU)
			p.period_ns = 1000000000ULL / o->freq;
		/* Off-CPU stacks weigh nanoseconds (recorded alone, or as wall). */
		if (o->wall || o->events[0].kind == EVENT_OFFCPU) {
			p.value_type = profile_str(&p, o->wall ? "wall" : "off_cpu");
			p.value_unit = profile_str(&p, "nanoseconds");
			p.period_ns = 0;
		}
		target_of(r, sub, sizeof(sub));
		if (profile_unit_ns(&p))
			snprintf(sub + strlen(sub), sizeof(sub) - strlen(sub), ", %.1f s, %.3f s "
				 "%s", seconds, r->stacks.total / 1e9, o->wall ? "of threads' time" :
				 "off-CPU");
		else
			snprintf(sub + strlen(sub), sizeof(sub) - strlen(sub), ", %.1f s, %" PRIu64
				 " events", seconds, r->stacks.total);
		oo.subtitle = sub;
		profile_value_str(&p, r->stacks.total, v, sizeof(v));
		snprintf(what, sizeof(what), "%s%s, %zu distinct stacks", v,
			 !profile_unit_ns(&p) ? " events" : o->wall ? " of threads' time" :
			 " off-CPU", p.nsamples);
		oo.force = o->force;
		rc = output_write_all("record", o->outputs, o->formats, o->noutputs, &p, &oo, what);
	} else {
		fprintf(stderr, "stitch record: %s\n", strerror(-rc));
	}
	profile_free(&p);
	resolver_free(&res);
	return rc ? -1 : 0;
}

static int run(struct recorder *r)
{
	struct record_opts *o = r->o;
	struct sigaction sa = { .sa_sigaction = on_signal, .sa_flags = SA_SIGINFO };
	uint64_t st[STAT_NR];
	int go_fd = -1, err_fd = -1, i, rc = 0, exec_err = 0;
	double start, deadline;
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
	start = now_s();
	for (i = 0; i < o->npids; i++) {
		trace_tgid(r, o->pids[i]);
		interp_proc_update(&r->interp, procs_get(&r->procs, o->pids[i]));
		if (r->kw_ready)
			kunwind_mark_dirty(&r->kw, o->pids[i]);
	}
	kunwind_update(r);
	r->kw_setup_s = now_s() - start;
	if (attach_process_tracking(r) || attach_all(r)) {
		rc = 1;
		goto out;
	}
	r->rb = ring_buffer__new(bpf_map__fd(r->skel->maps.samples), handle_sample, r, NULL);
	if (!r->rb) {
		fprintf(stderr, "stitch record: cannot open the ring buffer: %s\n", strerror(errno));
		rc = 1;
		goto out;
	}
	if (r->hooks && r->hooks->attached && r->hooks->attached(r->hooks->ctx)) {
		rc = 1;
		goto out;
	}

	start = now_s();
	start_unix_ns = unix_now_ns();
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

	while (!stop_requested) {
		/*
		 * The BPF side wakes us only when the ring fills up; consume
		 * every 20 ms regardless, so processes are looked at while
		 * they still exist, and an interpreter that just started is
		 * recognized (and walked) after a few events, not thousands.
		 */
		int n = ring_buffer__poll(r->rb, 20);
		uint64_t read_ns = mono_now_ns();

		if (n >= 0)
			n = ring_buffer__consume(r->rb);
		watch_interpreters(r, read_ns);
		kunwind_update(r);
		kernel_counts_tick(r, now_s());

		if (n < 0 && n != -EINTR) {
			fprintf(stderr, "stitch record: reading events failed: %s\n", strerror(-n));
			rc = 1;
			break;
		}
		if (r->hooks && r->hooks->poll)
			r->hooks->poll(r->hooks->ctx);
		if (deadline && now_s() >= deadline)
			break;
		if (!targets_alive(r))
			break;
	}

	/* Detach first so the last events are all in the ring, then drain. */
	attach_destroy(&r->att);
	capture_bpf__detach(r->skel);
	ring_buffer__consume(r->rb);
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
		if (r->hooks->finish(r->hooks->ctx, now_s() - start))
			rc = 1;
	} else if (write_output(r, now_s() - start, start_unix_ns) != 0) {
		rc = 1;
	}
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
	libbpf_set_print(libbpf_quiet);

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
	rc = run(&r);
out:
	if (r.rb)
		ring_buffer__free(r.rb);
	attach_destroy(&r.att);
	if (r.skel)
		capture_bpf__destroy(r.skel);
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
