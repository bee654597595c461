// SPDX-License-Identifier: GPL-2.0
/* stitch record's command line: usage and options. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/output.h"
#include "symbolize/debuginfod_fetch.h"
#include "util/cli.h"

#include "record/record_internal.h"

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
"      --max-table-mb N     memory for in-kernel unwind tables (default %d; %d\n"
"                           with -a)\n"
"      --per-event          send every event to user space; by default events\n"
"                           the kernel unwinds are counted in the kernel, an\n"
"                           interpreter's walks sent once each to be named\n"
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
"      --no-debuginfod      ask no debuginfod server (DEBUGINFOD_URLS) for\n"
"                           debug files\n"
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
"Interpreter frames (CPython 3.8-3.15, Ruby 2.7, 3.1, 3.3, Perl 5.32-5.44;\n"
"README's \"Interpreter versions\") replace the interpreter loop's native\n"
"frames and show as 'function (file:line)'; other versions say so once and\n"
"show native frames only.\n"
"Compressed debug files (libc6-dbg, -dbgsym) are decompressed once into\n"
"$STITCH_CACHE_DIR/debug (default ~/.cache/stitch/debug); STITCH_CACHE_DIR=\n"
"turns that off.\n"
"Binaries with no local debug file (/usr/lib/debug, in a container's root\n"
"first) are looked up by build-id on the DEBUGINFOD_URLS servers (timeout\n"
"DEBUGINFOD_TIMEOUT, default here 2 s; ~3 s for all queries of a run), cached\n"
"in DEBUGINFOD_CACHE_PATH if it is yours alone, else $STITCH_CACHE_DIR/debuginfod.\n"
"Needs root (or CAP_BPF + CAP_PERFMON).\n",
		DEFAULT_FREQ, DEFAULT_TOP, STITCH_DEFAULT_USTACK, STITCH_MAX_USTACK, DEFAULT_TABLE_MB,
		DEFAULT_TABLE_MB_ALL);
}

static int fail_usage(const char *fmt, const char *arg)
{
	return cli_usage_error("record", fmt, arg);
}

/* A pid or tid of -p, traced as its whole thread group: a cli_pid_fn. */
static int add_pid(void *ctx, long v)
{
	struct record_opts *o = ctx;
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

/* -e NAME; wall is two events: on-CPU samples and off-CPU time, in one unit. */
static int add_event(struct record_opts *o, const char *name)
{
	static const char *const wall_events[] = { "cpu", "offcpu" };
	bool wall = strcmp(name, "wall") == 0;
	char err[512];
	int k;

	if (o->nevents + (wall ? 2 : 1) > MAX_EVENTS)
		return fail_usage("too many events (at most %s)", "64");
	for (k = 0; k < (wall ? 2 : 1); k++) {
		struct event_spec *ev = &o->events[o->nevents];

		if (event_parse(wall ? wall_events[k] : name, ev, err, sizeof(err)) != 0) {
			event_free(ev);
			return fail_usage("%s", err);
		}
		o->event_names[o->nevents++] = ev->text;
	}
	return 0;
}

/* --unwind MODE: kernel, copy or check. */
static int set_unwind(struct record_opts *o, const char *mode)
{
	if (strcmp(mode, "kernel") == 0)
		o->unwind_mode = KUNWIND_MODE_KERNEL;
	else if (strcmp(mode, "copy") == 0)
		o->unwind_mode = KUNWIND_MODE_COPY;
	else if (strcmp(mode, "check") == 0)
		o->unwind_mode = KUNWIND_MODE_CHECK;
	else
		return fail_usage("--unwind: '%s' is not kernel, copy or check", mode);
	o->unwind_asked = true;
	return 0;
}

/* A number in [min, max], decimals allowed, nothing after it: -d, --max-table-mb. */
static bool parse_number(const char *s, double min, double max, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !(v >= min) || v > max)
		return false;
	*out = v;
	return true;
}

enum { OPT_TOP = 256, OPT_STACK_BYTES, OPT_RINGBUF_MB, OPT_STATS, OPT_UNWIND, OPT_MAX_TABLE_MB,
       OPT_PER_EVENT, OPT_NO_LINES, OPT_NO_INTERP, OPT_MIN_BLOCK, OPT_NO_RUNNABLE, OPT_WAKERS,
       OPT_FORCE, OPT_NO_DEBUGINFOD };

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
	{ "no-debuginfod", no_argument, NULL, OPT_NO_DEBUGINFOD },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const struct cli_cmd record_cmd = { "record", usage, "+e:p:aF:d:o:h", longopts };

/* One option of stitch record: a cli_opt_fn. */
static int take_opt(void *ctx, int c, const char *arg)
{
	struct record_opts *o = ctx;
	long v;

	switch (c) {
	case 'e':
		return add_event(o, arg);
	case 'p':
		return cli_parse_pids("record", arg, NULL, add_pid, o);
	case 'a':
		o->all = true;
		break;
	case 'F':
		if (!cli_parse_long(arg, 1, 100000, &v))
			return fail_usage("-F: '%s' is not a frequency in Hz (1..100000)", arg);
		o->freq = v;
		break;
	case 'd':
		if (!parse_number(arg, 0, 1e7, &o->duration) || o->duration == 0)
			return fail_usage("-d: '%s' is not a positive number of seconds", arg);
		break;
	case 'o':
		if (output_add("record", o->outputs, o->formats, &o->noutputs, MAX_OUTPUTS, arg))
			return 2;
		break;
	case OPT_TOP:
		if (!cli_parse_long(arg, 1, 1000000, &v))
			return fail_usage("--top: '%s' is not a positive count", arg);
		o->top = v;
		break;
	case OPT_STACK_BYTES:
		if (!cli_parse_long(arg, 0, STITCH_MAX_USTACK, &v))
			return fail_usage("--stack-bytes: '%s' must be 0..65536", arg);
		o->stack_bytes = v;
		break;
	case OPT_RINGBUF_MB:
		if (!cli_parse_long(arg, 1, 4096, &v) || (v & (v - 1)))
			return fail_usage("--ringbuf-mb: '%s' must be a power of two, 1..4096",
					  arg);
		o->ringbuf_mb = v;
		break;
	case OPT_STATS:
		o->stats = true;
		if (arg && strcmp(arg, "walks") != 0)
			return fail_usage("--stats: '%s' is not 'walks'", arg);
		o->time_walks = arg != NULL;
		break;
	case OPT_UNWIND:
		return set_unwind(o, arg);
	case OPT_PER_EVENT:
		o->per_event = true;
		break;
	case OPT_MAX_TABLE_MB:
		if (!parse_number(arg, 0.01, 65536, &o->max_table_mb))
			return fail_usage("--max-table-mb: '%s' must be a number of MiB, "
					  "0.01..65536", arg);
		break;
	case OPT_NO_LINES:
		o->no_lines = true;
		break;
	case OPT_NO_INTERP:
		o->no_interp = true;
		break;
	case OPT_MIN_BLOCK:
		o->min_block_ns = strcmp(arg, "0") ? cli_parse_time(arg) : 0;
		if (!o->min_block_ns && strcmp(arg, "0"))
			return fail_usage("--min-block: '%s' is not a time (like 1ms, 500us, 0.2s; "
					  "0 keeps every interval)", arg);
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
	case OPT_NO_DEBUGINFOD:
		debuginfod_disable();
		break;
	}
	return 0;
}

/* What the options say together: the events' units, --wakers' event, one target. */
static int check_opts(struct record_opts *o)
{
	int i;

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
	return cli_one_target("record", o->all + (o->npids > 0) + (o->command != NULL),
			      "what to trace", "-p PID, -a (whole system), or -- COMMAND");
}

int parse_opts(int argc, char **argv, struct record_opts *o)
{
	int rc;

	o->freq = DEFAULT_FREQ;
	o->stack_bytes = STITCH_DEFAULT_USTACK;
	o->ringbuf_mb = 0;	/* ringbuf_mb_of(): sized by what goes through it */
	o->top = DEFAULT_TOP;
	o->unwind_mode = KUNWIND_MODE_KERNEL;
	rc = cli_parse(&record_cmd, argc, argv, take_opt, o);
	if (rc)
		return rc;
	if (optind < argc)
		o->command = &argv[optind];
	if (!o->max_table_mb)
		o->max_table_mb = o->all ? DEFAULT_TABLE_MB_ALL : DEFAULT_TABLE_MB;
	if (!o->nevents)
		add_event(o, "cpu");
	if (!o->noutputs) {
		o->outputs[0] = "-";
		o->formats[0] = OUTPUT_TEXT;
		o->noutputs = 1;
	}
	return check_opts(o);
}
