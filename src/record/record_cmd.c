// SPDX-License-Identifier: GPL-2.0
/*
 * stitch record: its options (the shared ones are record/run_opts.c's),
 * the engine run with them, and the profile written (write.c).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/alloc_sampling.h"
#include "capture/capture.h"
#include "formats/output.h"
#include "capture/unwind_in_kernel.h"
#include "record/record_cmd.h"
#include "util/cli.h"

#define DEFAULT_FREQ 99

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
"  uprobe:PATH:FUNC:RELLINE a source line: RELLINE counts from FUNC's\n"
"                           declaration (0), as perf probe's; every inlined\n"
"                           copy too (stitch probe -L/-V shows lines, variables)\n"
"  uprobe:PATH@FILE:LINE    the same by file (a name or a tail of its path)\n"
"  usdt:PATH:PROVIDER:NAME  a USDT probe (semaphores are handled)\n"
"  kprobe:FUNC              a kernel function, where the kernel has kprobes\n"
"  kprobe:FUNC:RELLINE      a kernel source line (kprobe:@FILE:LINE by file), from\n"
"                           the running kernel's DWARF: Debian's\n"
"                           linux-image-RELEASE-dbg, or STITCH_VMLINUX=vmlinux\n"
"  offcpu                   time off the CPU: each thread's stack when it\n"
"                           blocks (sleep, I/O, lock, futex), weighed by the\n"
"                           nanoseconds until it runs again; time it waits\n"
"                           for a CPU after preemption is a [runnable] leaf.\n"
"                           Recorded alone, or with cpu as wall\n"
"  wall                     cpu + offcpu, both in nanoseconds (a cpu sample\n"
"                           weighs 1/F s): the widths add up to the threads'\n"
"                           wall time; the text summary splits each thread's\n"
"                           time into on CPU, blocked and runnable\n"
"  alloc                    memory allocated, by the stack that asked for it:\n"
"                           glibc's malloc, calloc, realloc, memalign,\n"
"                           aligned_alloc, posix_memalign, valloc, pvalloc,\n"
"                           and anonymous mmap, mremap and sbrk (the program's\n"
"                           own: the allocators' are their malloc's),\n"
"                           sampled by bytes (--alloc-sample) and weighed in\n"
"                           bytes (pprof: alloc_space/bytes, and the\n"
"                           allocations counted, alloc_objects).  Recorded alone.\n"
"                           With --inuse: the bytes still allocated when the\n"
"                           recording ends (or the program exits), by the\n"
"                           stack that allocated them, as memleak shows\n"
"                           (pprof: inuse_space/bytes, inuse_objects).\n"
"                           jemalloc and tcmalloc too; an allocator file a\n"
"                           target maps later (a container started since,\n"
"                           a command in another root) is traced from then\n"
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
"      --max-table-mb N     most memory for in-kernel unwind tables, held as\n"
"                           they load (default %d; %d with -a)\n"
"      --per-event          send every event to user space; by default events\n"
"                           the kernel unwinds are counted in the kernel, an\n"
"                           interpreter's walks sent once each to be named\n"
"      --no-lines           interpreter and JIT frames without line numbers,\n"
"                           so one function is one frame: 'name (file)'\n"
"      --no-interp          native frames only: do not walk interpreters\n"
"      --min-block TIME     offcpu: drop intervals shorter than TIME (1ms,\n"
"                           500us; default 0, keep all)\n"
"      --wakers             offcpu: join each blocked stack to the stack of\n"
"                           who woke the thread, drawn above it past a '--'\n"
"                           frame (a traced waker's user frames too; an\n"
"                           interrupt's kernel frames); native stacks only\n"
"      --fetch EXPR         read EXPR at every event (repeatable, 8 at most).\n"
"                           A line probe: a variable or argument in scope there,\n"
"                           then ->member, .member, [N], and :string for text\n"
"                           or :u8..:u64, :s8..:s64, :x8..:x64; its location from\n"
"                           DWARF at that address (stitch probe -V lists them).\n"
"                           A uprobe on a function: its arguments at its entry\n"
"                           (uprobe:libc.so.6:malloc --fetch bytes).\n"
"                           A tracepoint or syscall: a field of its format by\n"
"                           name (syscall:openat --fetch filename:string).\n"
"                           A kprobe: the function's arguments from the\n"
"                           kernel's BTF (kprobe:do_sys_openat2 --fetch\n"
"                           filename:string --fetch how->flags).\n"
"                           The values end each stack as a frame\n"
"                           '[r->len=10 weight=70]', so stacks split by value\n"
"      --print              a line per event with its values, as perf script\n"
"                           prints them: comm, pid/tid, time, event, values\n"
"      --print-stacks       --print, each line followed by the event's stack\n"
"                           (innermost first, one frame a line)\n"
"      --alloc-sample SIZE  alloc: one sample per SIZE bytes allocated, on\n"
"                           average (default 512K; K, M, G; 1 records every\n"
"                           allocation); each sampled allocation weighs what\n"
"                           it stands for, so totals and shares stay unbiased\n"
"      --inuse              alloc: the sampled allocations not freed when the\n"
"                           recording ends, instead of all: free and the\n"
"                           allocators' returns are traced too (each call\n"
"                           costs one more trap); a realloc moves its block;\n"
"                           frees of blocks allocated before the recording,\n"
"                           or never allocated, are ignored; a process that\n"
"                           exits (not one whose exit ends the recording) or\n"
"                           execs frees its blocks\n"
"      --min-age TIME       --inuse: leave out blocks younger than TIME at the\n"
"                           end (like 5s, 5m, 500ms; default 0, keep all)\n"
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
"Interpreter frames (CPython 3.8-3.15, Ruby 2.7, 3.1, 3.3, 3.4, Perl 5.32-5.44;\n"
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

/* -e NAME; wall is two events: on-CPU samples and off-CPU time, in one unit. */
static int add_event(struct record_opts *o, const char *name)
{
	char err[512];

	if (record_opts_add_event(o, name, err, sizeof(err)))
		return fail_usage("%s", err);
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

enum { OPT_TOP = 256, OPT_STACK_BYTES, OPT_RINGBUF_MB, OPT_STATS, OPT_UNWIND, OPT_MAX_TABLE_MB,
       OPT_PER_EVENT, OPT_NO_LINES, OPT_NO_INTERP, OPT_MIN_BLOCK, OPT_NO_RUNNABLE,
       OPT_ALLOC_SAMPLE, OPT_INUSE, OPT_MIN_AGE, OPT_FETCH, OPT_PRINT, OPT_PRINT_STACKS };

/* record's own options; the shared ones (-p, -a, -F, -d, -o...) are in run_opts.h. */
static const struct option longopts[] = {
	{ "event", required_argument, NULL, 'e' },
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
	{ "alloc-sample", required_argument, NULL, OPT_ALLOC_SAMPLE },
	{ "inuse", no_argument, NULL, OPT_INUSE },
	{ "min-age", required_argument, NULL, OPT_MIN_AGE },
	{ "fetch", required_argument, NULL, OPT_FETCH },
	{ "print", no_argument, NULL, OPT_PRINT },
	{ "print-stacks", no_argument, NULL, OPT_PRINT_STACKS },
	{ NULL, 0, NULL, 0 },
};

/* Options that set one flag of the engine's options. */
static bool take_flag(struct record_opts *o, int c)
{
	switch (c) {
	case OPT_PER_EVENT:
		o->per_event = true;
		return true;
	case OPT_INUSE:
		o->inuse = true;
		return true;
	case OPT_NO_LINES:
		o->no_lines = true;
		return true;
	case OPT_NO_INTERP:
		o->no_interp = true;
		return true;
	case OPT_NO_RUNNABLE:
		o->no_runnable = true;
		return true;
	case OPT_PRINT:
		o->print_values = true;
		return true;
	case OPT_PRINT_STACKS:
		o->print_values = o->print_stacks = true;
		return true;
	}
	return false;
}

/* One of stitch record's own options: a cli_opt_fn. */
static int take_opt(void *ctx, int c, const char *arg)
{
	struct record_cmd *rc = ctx;
	struct record_opts *o = &rc->o;
	long v;

	if (take_flag(o, c))
		return 0;
	switch (c) {
	case 'e':
		return add_event(o, arg);
	case OPT_TOP:
		if (!cli_parse_long(arg, 1, 1000000, &v))
			return fail_usage("--top: '%s' is not a positive count", arg);
		rc->top = v;
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
	case OPT_MAX_TABLE_MB:
		if (!cli_parse_double(arg, 0.01, 65536, &o->max_table_mb))
			return fail_usage("--max-table-mb: '%s' must be a number of MiB, "
					  "0.01..65536", arg);
		break;
	case OPT_MIN_BLOCK:
		o->min_block_ns = strcmp(arg, "0") ? cli_parse_time(arg) : 0;
		if (!o->min_block_ns && strcmp(arg, "0"))
			return fail_usage("--min-block: '%s' is not a time (like 1ms, 500us, 0.2s; "
					  "0 keeps every interval)", arg);
		break;
	case OPT_ALLOC_SAMPLE:
		if (!alloc_parse_period(arg, &o->alloc_period))
			return fail_usage("--alloc-sample: '%s' is not a size of 1 byte to 1G (like "
					  "512K, 16K, 1M; 1 records every allocation)", arg);
		break;
	case OPT_FETCH:
		if (o->nfetch >= (int)(sizeof(o->fetch) / sizeof(o->fetch[0])))
			return fail_usage("--fetch %s: at most 8 values an event", arg);
		o->fetch[o->nfetch++] = arg;
		break;
	case OPT_MIN_AGE:
		o->min_age_ns = strcmp(arg, "0") ? cli_parse_time(arg) : 0;
		if (!o->min_age_ns && strcmp(arg, "0"))
			return fail_usage("--min-age: '%s' is not a time up to 1h "
					  "(like 5s, 5m, 500ms; 0 keeps every block)", arg);
		rc->min_age_set = true;
		break;
	}
	return 0;
}

static const struct run_cmd record_run_cmd = {
	.name = "record",
	.usage = usage,
	.shared = RUN_OPT_PID | RUN_OPT_ALL | RUN_OPT_FREQ | RUN_OPT_DURATION | RUN_OPT_OUTPUT |
		  RUN_OPT_WAKERS | RUN_OPT_DEBUGINFOD,
	.default_freq = DEFAULT_FREQ,
	.shortopts = "e:",
	.longopts = longopts,
	.take = take_opt,
	.target_what = "what to trace",
	.target_choices = "-p PID, -a (whole system), or -- COMMAND",
};

/* An event --fetch reads at: a line probe, a tracepoint, a system call's entry, a kprobe. */
static bool fetch_event(const struct event_spec *ev)
{
	return ev->line || ev->kind == EVENT_SYSCALL || ev->kind == EVENT_TRACEPOINT ||
	       ev->kind == EVENT_KPROBE;
}

/* What the options say together: the events' units, --wakers' event, one target. */
static int check_opts(struct record_cmd *rc, const struct run_args *a)
{
	struct record_opts *o = &rc->o;
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
		rc->wall = o->nevents == 2 && o->events[!i].kind == EVENT_CPU;
		rc->wall_cpu_idx = !i;
		if (!rc->wall)
			return fail_usage("%s", "-e offcpu weighs stacks in time, other events in "
					  "counts: record it alone, or with cpu (-e wall)");
	}
	for (i = 0; i < o->nevents && o->events[i].kind != EVENT_ALLOC; i++)
		;
	if (o->alloc_period && i == o->nevents)
		return fail_usage("%s", "--alloc-sample goes with -e alloc");
	if (o->inuse && i == o->nevents)
		return fail_usage("%s", "--inuse goes with -e alloc (the allocations not freed)");
	if (rc->min_age_set && !o->inuse)
		return fail_usage("%s", "--min-age goes with -e alloc --inuse");
	/* A function's uprobe reads its arguments at its entry, as FUNC:0. */
	for (i = 0; i < o->nevents && (o->nfetch || o->print_values); i++)
		if (event_uprobe_entry_as_line(&o->events[i]) == -ENOMEM)
			return -ENOMEM;
	for (i = 0; i < o->nevents && !fetch_event(&o->events[i]); i++)
		;
	if ((o->nfetch || o->print_values) && i == o->nevents)
		return fail_usage("%s", "--fetch and --print go with a uprobe on a function or "
				  "a line (-e uprobe:BINARY:FUNC, uprobe:BINARY:FUNC:RELLINE or "
				  "uprobe:BINARY@FILE:LINE), a tracepoint, a system call or a kprobe");
	for (i = 0; i < o->nevents; i++)
		if (o->events[i].kind == EVENT_ALLOC && o->nevents > 1)
			return fail_usage("%s", "-e alloc weighs stacks in bytes, other events in "
					  "counts or time: record it alone");
	return run_target_check(&record_run_cmd, a);
}

static int parse_opts(int argc, char **argv, struct record_cmd *rc, struct run_args *a)
{
	int err;

	rc->top = DEFAULT_TOP;
	err = run_opts_parse(&record_run_cmd, argc, argv, a, rc);
	if (err)
		return err;
	rc->o.has_ringbuf_flag = true;
	if (!rc->o.nevents)
		add_event(&rc->o, "cpu");
	if (!rc->out.n) {
		rc->out.paths[0] = "-";
		rc->out.formats[0] = OUTPUT_TEXT;
		rc->out.n = 1;
	}
	return check_opts(rc, a);
}

/* The engine's finish hook: the profile to every -o. */
static int finish(void *ctx, const struct record_result *res)
{
	return record_write(ctx, res);
}

int cmd_record(int argc, char **argv)
{
	struct record_cmd *rc = calloc(1, sizeof(*rc));
	struct record_hooks hooks = { .ctx = rc, .finish = finish };
	struct run_args a = { 0 };
	int err;

	if (!rc)
		return 1;
	a.o = &rc->o;
	a.out = &rc->out;
	err = parse_opts(argc, argv, rc, &a);
	if (!err)
		err = run_opts_ready(&record_run_cmd, &a);
	if (!err)
		err = record_run(&rc->o, &hooks);
	record_opts_free(&rc->o);
	free(rc);
	return err;
}
