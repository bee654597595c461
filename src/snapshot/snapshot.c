// SPDX-License-Identifier: GPL-2.0
/*
 * stitch snapshot: what every thread of the targets is doing right now,
 * without stopping any of them.  snapshot.bpf.c's task iterator reads each
 * thread's state, kernel stack, saved user registers and a copy of its user
 * stack; here the copy is unwound with record's --unwind=copy machinery
 * (process model, CFI tables, resolver), threads with the same frames are
 * grouped, and the result printed or written in record's formats.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/syscall.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "snapshot/snapshot_cmd.h"
#include "formats/output.h"
#include "interp/interp_api.h"
#include "kernel/features.h"
#include "profile/copy_unwind.h"
#include "profile/debug_prefetch.h"
#include "proc/procs.h"
#include "profile/resolve.h"
#include "profile/stacks.h"
#include "symbolize/debuginfod_fetch.h"
#include "unwind/unwind.h"
#include "util/arch.h"
#include "util/cli.h"
#include "util/clock.h"
#include "util/libbpf_log.h"
#include "util/privileges.h"
#include "snapshot/snap_outputs.h"
#include "snapshot/snap_proc.h"
#include "snapshot/snap_report.h"
#include "snapshot/stack_rest.h"
#include "snapshot/snapshot.h"
#include "snapshot.skel.h"

#define MAX_TARGETS 4096
#define MAX_UFRAMES 1024
/* Room for the user frames: native, a marker, and interpreter frames stitched in. */
#define MAX_USER_FRAMES (MAX_UFRAMES + 1 + INTERP_MAX_FRAMES)
#define MAX_FRAMES (SNAP_MAX_KSTACK + MAX_USER_FRAMES + 1)
/* After "no process with pid N": how to find the process meant. */
#define NO_PID_HINT " (is it still running? 'pidof NAME' or --comm NAME finds it by name)"

/* Records follow each other in the iterator's stream, each 8-byte aligned. */
_Static_assert(sizeof(struct snap_record) % 8 == 0, "snap_record keeps records aligned");

struct snap_opts {
	uint32_t *pids;
	size_t npids;
	const char *comm;
	bool all, no_kthreads, no_group, no_interp;
	long count;
	uint64_t interval_ns;
	const char *outputs[SNAP_MAX_OUTPUTS];
	int formats[SNAP_MAX_OUTPUTS];	/* output_add_json's */
	int noutputs;
	bool force;		/* -o may replace a symlink */
};

struct snapper {
	struct snap_opts *o;
	struct snapshot_bpf *skel;
	/* No task iterator on this kernel: records read from /proc (snap_proc.h). */
	bool from_proc;
	struct bpf_link *link;
	struct binary_cache bins;	/* kept across rounds: tables and symbols warm */
	struct procs procs;		/* rebuilt each round: mappings change */
	struct resolver res;
	struct interp_state interp;	/* interpreters found, and their frames named */
	uint32_t *walked;		/* processes whose interpreter frames the iterator walks */
	size_t nwalked;
	struct stack_table stacks;	/* every thread of every round, for -o profiles */
	uint8_t *buf;
	size_t len, cap;
	struct unwind_frame uframes[MAX_UFRAMES];
	struct named_frame nf[RESOLVE_MAX_FRAMES];
	uint8_t *key_buf;
	struct snap_outputs out;
	uint64_t threads_seen, bad_records;
	uint64_t taken_ns;		/* CLOCK_MONOTONIC before this round's stacks were taken */
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: stitch snapshot (-p PID[,PID...] | -a [--no-kthreads] | --comm NAME)\n"
"                       [--count N [--interval TIME]] [--no-group] [-o FILE]... [--force]\n"
"\n"
"Show what every thread of the targets is doing right now, without stopping\n"
"any of them (no ptrace, no signals): its state, how long since it last ran,\n"
"its CPU time, the system call it waits in (with the file or socket of its fd),\n"
"and its whole stack: kernel frames, native user frames (unwound from the\n"
"registers it saved on entering the kernel, no frame pointers needed) and\n"
"Python, Ruby and Perl frames with their lines, read from the thread's own\n"
"interpreter state, in place of the interpreter loop's native frames.\n"
"Threads with the same state and frames are shown once, as a group, largest\n"
"group first.  A thread running on a CPU at that instant is marked: its\n"
"kernel stack cannot be read and its user stack is as of its last kernel entry.\n"
"\n"
"Options:\n"
"  -p, --pid PID[,PID...]   every thread of these processes\n"
"  -a, --all                every thread of the machine, kernel threads too\n"
"      --no-kthreads        with -a: leave kernel threads out\n"
"      --comm NAME          every process whose name (comm) is NAME\n"
"  -n, --count N            take N snapshots (default 1) ...\n"
"  -i, --interval TIME      ... this long apart: 100ms (default 1s), 2s, 500us\n"
"      --no-group           list each thread on its own\n"
"      --no-interp          no script frames: the interpreters' native frames\n"
"      --no-debuginfod      ask no debuginfod server (DEBUGINFOD_URLS) for\n"
"                           debug files\n"
"  -o, --output FILE        write here, repeatable; the name sets the format:\n"
"                           - or FILE.txt (text, the default), FILE.json (one\n"
"                           object per thread and round), FILE.folded,\n"
"                           FILE.svg, FILE.pb.gz, FILE.speedscope.json (one\n"
"                           sample per thread and round).  Each is checked\n"
"                           before the first snapshot, and written whole or\n"
"                           not at all (a new file renamed over it), also\n"
"                           when stopped by Ctrl-C or SIGTERM: then with the\n"
"                           rounds taken so far\n"
"      --force              let -o replace a symlink (the link itself; what it\n"
"                           points to is never written)\n"
"  -h, --help               this help\n"
"\n"
"Examples:\n"
"  sudo stitch snapshot -p $(pidof server)\n"
"  sudo stitch snapshot --comm uwsgi -o threads.json\n"
"  sudo stitch snapshot -p 1234 --count 20 --interval 100ms -o stuck.svg\n"
"Needs root (or CAP_BPF + CAP_PERFMON).\n");
}

static int fail_usage(const char *fmt, const char *arg)
{
	return cli_usage_error("snapshot", fmt, arg);
}

/* Keeps a pid of the targets: a cli_pid_fn. */
static int add_pid(void *ctx, long pid)
{
	struct snap_opts *o = ctx;
	uint32_t *p = realloc(o->pids, (o->npids + 1) * sizeof(*p));

	if (!p)
		return -ENOMEM;
	o->pids = p;
	o->pids[o->npids++] = pid;
	return 0;
}

enum { OPT_NO_KTHREADS = 256, OPT_COMM, OPT_NO_GROUP, OPT_NO_INTERP, OPT_FORCE,
       OPT_NO_DEBUGINFOD };

static const struct option longopts[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "all", no_argument, NULL, 'a' },
	{ "no-kthreads", no_argument, NULL, OPT_NO_KTHREADS },
	{ "comm", required_argument, NULL, OPT_COMM },
	{ "count", required_argument, NULL, 'n' },
	{ "interval", required_argument, NULL, 'i' },
	{ "no-group", no_argument, NULL, OPT_NO_GROUP },
	{ "no-interp", no_argument, NULL, OPT_NO_INTERP },
	{ "output", required_argument, NULL, 'o' },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "no-debuginfod", no_argument, NULL, OPT_NO_DEBUGINFOD },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

static const struct cli_cmd snapshot_cmd = { "snapshot", usage, "+p:an:i:o:h", longopts };

/* One option of stitch snapshot: a cli_opt_fn. */
static int take_opt(void *ctx, int c, const char *arg)
{
	struct snap_opts *o = ctx;

	switch (c) {
	case 'p':
		return cli_parse_pids("snapshot", arg, NO_PID_HINT, add_pid, o);
	case 'a':
		o->all = true;
		break;
	case OPT_NO_KTHREADS:
		o->no_kthreads = true;
		break;
	case OPT_COMM:
		if (!*arg || strlen(arg) > 15)
			return fail_usage("--comm: '%s' is not a process name (1 to 15 characters, "
					  "as /proc/PID/comm shows)", arg);
		o->comm = arg;
		break;
	case 'n':
		if (!cli_parse_long(arg, 1, 100000, &o->count))
			return fail_usage("--count: '%s' is not a number from 1 to 100000", arg);
		break;
	case 'i':
		/* Intervals are seconds long: a number alone is seconds, and no floor. */
		o->interval_ns = cli_parse_time_in(arg, 1000000000, 0);
		if (!o->interval_ns)
			return fail_usage("--interval: '%s' is not a time like 100ms, 2s or 500us",
					  arg);
		break;
	case OPT_NO_GROUP:
		o->no_group = true;
		break;
	case OPT_NO_INTERP:
		o->no_interp = true;
		break;
	case 'o':
		if (output_add_json("snapshot", o->outputs, o->formats, &o->noutputs,
				    SNAP_MAX_OUTPUTS, arg))
			return 2;
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

static int parse_opts(int argc, char **argv, struct snap_opts *o)
{
	int rc;

	o->count = 1;
	o->interval_ns = 1000000000ull;
	rc = cli_parse(&snapshot_cmd, argc, argv, take_opt, o);
	if (rc)
		return rc;
	if (optind < argc)
		return fail_usage("unexpected argument '%s'", argv[optind]);
	rc = cli_one_target("snapshot", (o->npids > 0) + o->all + (o->comm != NULL),
			    "what to show", "-p PID, -a, --comm NAME");
	if (rc)
		return rc;
	if (o->no_kthreads && !o->all)
		return fail_usage("%s", "--no-kthreads goes with -a (-p and --comm never "
				  "show kernel threads unless named)");
	return 0;
}

/* --comm: every process of that name now. */
static int pids_of_comm(struct snap_opts *o)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	char path[300], comm[64];

	if (!d) {
		fprintf(stderr, "stitch snapshot: cannot read /proc: %s\n", strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		long pid;
		FILE *f;

		if (!cli_parse_long(de->d_name, 1, 0x7fffffff, &pid) || pid == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f)) {
			comm[strcspn(comm, "\n")] = '\0';
			if (!strcmp(comm, o->comm) && o->npids < MAX_TARGETS)
				add_pid(o, pid);
		}
		fclose(f);
	}
	closedir(d);
	if (!o->npids) {
		fprintf(stderr, "stitch snapshot: no process named '%s' (names are at most 15 "
			"characters: see 'ps -e -o comm')\n", o->comm);
		return -1;
	}
	return 0;
}

/*
 * Where the kernel cannot run the iterator: /proc, which gives every thread's
 * stacks but no interpreter frames and not how long a thread has slept.
 */
static int read_from_proc(struct snapper *s, const char *why)
{
	s->from_proc = true;
	fprintf(stderr, "stitch snapshot: %s: reading the threads from /proc instead (no "
		"interpreter frames, nor how long each has been off the CPU)\n", why);
	return 0;
}

static int load_bpf(struct snapper *s)
{
	struct snap_opts *o = s->o;
	char why[160];
	size_t i;
	uint8_t one = 1;
	int err;

	libbpf_quiet();
	if (!kfeat_has(KFEAT_COPY_FROM_USER_TASK)) {
		snprintf(why, sizeof(why), "this kernel (%s) has no %s (Linux %s)", kfeat_kernel(),
			 kfeat_name(KFEAT_COPY_FROM_USER_TASK), kfeat_since(KFEAT_COPY_FROM_USER_TASK));
		return read_from_proc(s, why);
	}
	s->skel = snapshot_bpf__open();
	if (!s->skel) {
		fprintf(stderr, "stitch snapshot: cannot open the BPF object: %s\n",
			strerror(errno));
		return -1;
	}
	s->skel->rodata->all_tasks = o->all;
	s->skel->rodata->interp_have_copy_str = kfeat_has(KFEAT_COPY_STR_KFUNC);
	s->skel->rodata->skip_kthreads = o->no_kthreads;
	err = libbpf_num_possible_cpus();
	if (err <= 0 || bpf_map__set_max_entries(s->skel->maps.scratch, err)) {
		fprintf(stderr, "stitch snapshot: cannot size the per-CPU buffer\n");
		return -1;
	}
	err = snapshot_bpf__load(s->skel);
	if (err == -EPERM) {
		libbpf_load_failed("stitch snapshot", err);
		return -1;
	}
	if (err) {
		snprintf(why, sizeof(why), "the kernel (%s) refused the task iterator (%s; "
			 "STITCH_DEBUG_BPF=1 shows why)", kfeat_kernel(), strerror(-err));
		snapshot_bpf__destroy(s->skel);
		s->skel = NULL;
		return read_from_proc(s, why);
	}
	for (i = 0; i < o->npids; i++) {
		if (bpf_map__update_elem(s->skel->maps.targets, &o->pids[i], sizeof(uint32_t),
					 &one, 1, BPF_ANY)) {
			fprintf(stderr, "stitch snapshot: cannot add pid %u: %s\n", o->pids[i],
				strerror(errno));
			return -1;
		}
	}
	err = interp_init(&s->interp, bpf_map__fd(s->skel->maps.interp_procs),
			  bpf_map__fd(s->skel->maps.interp_layouts), false);
	if (err) {
		fprintf(stderr, "stitch snapshot: cannot set up interpreter walking: %s\n",
			strerror(-err));
		return -1;
	}
	s->interp.any_procs = &s->skel->bss->interp_any;
	s->interp.disabled = o->no_interp;
	s->link = bpf_program__attach_iter(s->skel->progs.snapshot_tasks, NULL);
	if (!s->link) {
		fprintf(stderr, "stitch snapshot: cannot create the task iterator: %s\n",
			strerror(errno));
		return -1;
	}
	return 0;
}

/* One pass of the iterator: every record into s->buf. */
static int read_iter(struct snapper *s)
{
	int fd = bpf_iter_create(bpf_link__fd(s->link));
	ssize_t n;

	if (fd < 0) {
		fprintf(stderr, "stitch snapshot: cannot start the task iterator: %s\n",
			strerror(-fd));
		return -1;
	}
	s->len = 0;
	for (;;) {
		if (s->cap - s->len < 65536) {
			size_t cap = s->cap ? s->cap * 2 : 1 << 20;
			uint8_t *b = realloc(s->buf, cap);

			if (!b) {
				close(fd);
				return -1;
			}
			s->buf = b;
			s->cap = cap;
		}
		n = read(fd, s->buf + s->len, s->cap - s->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "stitch snapshot: reading the task iterator failed: %s\n",
				strerror(errno));
			close(fd);
			return -1;
		}
		if (n == 0)
			break;
		s->len += n;
	}
	close(fd);
	return 0;
}

/* One pass over the targets' threads: the iterator's, or /proc's. */
static int read_records(struct snapper *s)
{
	struct snap_proc_targets t = { s->o->pids, s->o->npids, s->o->all, s->o->no_kthreads,
				       (uint32_t)getpid() };

	if (!s->from_proc)
		return read_iter(s);
	if (snap_proc_read(&t, &s->buf, &s->len, &s->cap)) {
		fprintf(stderr, "stitch snapshot: out of memory reading /proc\n");
		return -1;
	}
	return 0;
}

/* ---- one thread -------------------------------------------------------- */

/*
 * User frames unwound from the copy, as record's --unwind=copy keeps them,
 * with the interpreter frames the iterator walked stitched in.
 */
static int user_frames(struct snapper *s, const struct snap_record *r, const uint8_t *ustack,
		       struct uframe *uf, const char **note)
{
	struct unwind_regs regs = { r->ip, r->sp, r->bp, r->lr };
	struct unwind_stack stack = { r->sp, ustack, r->ustack_bytes };
	struct proc *proc = procs_get(&s->procs, r->pid);
	struct unwind_uret uret[STITCH_URET_MAX];
	enum unwind_stop why;
	uint32_t i;
	int nu;

	if (!proc || !proc->nr) {
		*note = "its process's mappings could not be read (it exited?)";
		return 0;
	}
	/* Its interpreter frames named first, from the live process (interp_name_walk). */
	if (r->interp_bytes) {
		interp_stash(&s->interp, ustack + r->ustack_bytes, r->interp_bytes);
		interp_name_walk(&s->interp, proc, r->tid, 0, false);
	}
	/* Return addresses uretprobes hid (nuret checked with the record). */
	for (i = 0; i < r->nuret; i++)
		uret[i] = (struct unwind_uret){ r->uret[i].slot, r->uret[i].orig };
	stack.uret = (struct unwind_urets){ r->uret_tramp, uret, r->nuret };
	nu = copy_unwind(&s->bins, proc, &regs, &stack, s->uframes, MAX_UFRAMES, uf, &why,
			 s->taken_ns);
	/* Ran off the copy: a thread that has not run since has the rest unchanged. */
	if (why == UNWIND_STOP_TRUNCATED && (r->flags & SNAP_USTACK_CUT) &&
	    !(r->flags & SNAP_ON_CPU)) {
		size_t len;
		uint8_t *whole = stack_rest_read(r->pid, r->tid, r->cpu_ns, r->sp, ustack,
						 r->ustack_bytes, &len);

		if (whole) {
			stack.data = whole;
			stack.len = len;
			nu = copy_unwind(&s->bins, proc, &regs, &stack, s->uframes, MAX_UFRAMES, uf,
					 &why, s->taken_ns);
			free(whole);
		}
	}
	if (!r->interp_bytes)
		return nu;
	return interp_stitch(&s->interp, proc, r->tid, 0, uf, nu, MAX_USER_FRAMES,
			     why == UNWIND_STOP_END, false);
}

/* The named frames, innermost first, one line each, as the text output shows them. */
static char *frame_text(struct snapper *s, int n)
{
	char *text = NULL, name[512];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int i;

	if (!f)
		return NULL;
	for (i = n - 1; i >= 0; i--) {
		const struct named_frame *nf = &s->nf[i];

		snap_clean(name, sizeof(name), nf->name, SIZE_MAX);
		resolve_frame_line(f, nf, name, " ");
		fputc('\n', f);
	}
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

/* Kernel frames that only say "it sleeps": wchan skips the same ones. */
static bool sched_frame(const char *name)
{
	static const char *const prefixes[] = {
		"__schedule", "schedule", "io_schedule", "__switch_to", "preempt_schedule",
		"__cond_resched", "_cond_resched", STITCH_KSYSCALL_WRAPPER,
	};

	return stitch_name_starts_any(name, prefixes, sizeof(prefixes) / sizeof(prefixes[0])) ||
	       stitch_kframe_syscall_entry(name);
}

/*
 * What it waits on: the system call and its arguments (an fd as the file
 * or socket it names), or the innermost kernel frame that is not the
 * scheduler's.  n frames in s->nf, outermost first.
 */
static char *wait_text(struct snapper *s, struct snap_thread *t, const struct snap_record *r,
		       int n)
{
	const char *name = NULL;
	char *out = NULL, target[PATH_MAX], clean[160], path[64];
	int i;

	for (i = 0; i < n && !t->in_syscall; i++)
		if (s->nf[i].kind == FRAME_KERNEL && s->nf[i].name &&
		    stitch_kframe_syscall_entry(s->nf[i].name))
			t->in_syscall = true;
	if (t->in_syscall) {
		t->syscall_nr = (long)r->syscall_nr;
		name = snap_syscall_name(t->syscall_nr);
		if (name && snap_syscall_takes_fd(t->syscall_nr)) {
			ssize_t len;

			snprintf(path, sizeof(path), "/proc/%u/fd/%d", r->pid, (int)r->args[0]);
			len = readlink(path, target, sizeof(target));
			if (len > 0)
				snap_clean(clean, sizeof(clean), target, len);
			else
				snprintf(clean, sizeof(clean), "closed or unreadable");
			if (asprintf(&out, "%s(fd %d: %s)", name, (int)r->args[0], clean) < 0)
				out = NULL;
		} else if (name && t->syscall_nr == SYS_futex) {
			if (asprintf(&out, "futex(0x%" PRIx64 ")", (uint64_t)r->args[0]) < 0)
				out = NULL;
		} else if (name) {
			/* Other arguments are mostly pointers into its stack: noise. */
			if (asprintf(&out, "%s()", name) < 0)
				out = NULL;
		} else {
			if (asprintf(&out, "syscall %ld", t->syscall_nr) < 0)
				out = NULL;
		}
		return out;
	}
	/* Runnable: preempted, not waiting on anything but a CPU. */
	if (t->state == 'R')
		return NULL;
	/* Outermost first: the innermost kernel frame is the last one. */
	for (i = n - 1; i >= 0; i--) {
		if (s->nf[i].kind != FRAME_KERNEL)
			break;
		if (s->nf[i].name && !sched_frame(s->nf[i].name)) {
			snap_clean(clean, sizeof(clean), s->nf[i].name, SIZE_MAX);
			return strdup(clean);
		}
	}
	return NULL;
}

/*
 * A thread's state, and its stack's key in s->key_buf, unwound but not
 * named: a round names its threads once all are unwound (name_threads).
 * The key's size.
 */
static size_t thread_unwind(struct snapper *s, const struct snap_record *r, uint32_t round,
			    struct snap_thread *t)
{
	const uint64_t *kips = (const uint64_t *)(r + 1);
	const uint8_t *ustack = (const uint8_t *)(kips + r->nkernel);
	struct stack_key *key = (struct stack_key *)s->key_buf;
	uint64_t *kk = (uint64_t *)(key + 1);
	struct uframe *uf;
	int nk = 0, nu = 0;

	memset(t, 0, sizeof(*t));
	t->pid = r->pid;
	t->tid = r->tid;
	t->round = round;
	snap_clean(t->comm, sizeof(t->comm), r->comm, SNAP_COMM_LEN);
	t->state = snap_state_letter(r->state, r->exit_state);
	t->on_cpu = r->flags & SNAP_ON_CPU;
	t->cpu_ns = r->cpu_ns;
	if (r->flags & SNAP_NO_SINCE) {
		t->since_ns = t->on_cpu ? 0 : SNAP_SINCE_UNKNOWN;
	} else if (!t->on_cpu && r->task_clock_task > r->exec_start) {
		t->since_ns = r->task_clock_task - r->exec_start;
		if (r->clock_now > r->task_clock)	/* its CPU's clock is that old */
			t->since_ns += r->clock_now - r->task_clock;
	}

	memset(key, 0, sizeof(*key));
	key->pid = r->pid;
	key->tid = r->tid;
	memcpy(key->comm, r->comm, sizeof(key->comm));
	while (nk < (int)r->nkernel && kips[nk]) {
		kk[nk] = kips[nk];
		nk++;
	}
	key->nkernel = nk;
	uf = (struct uframe *)(kk + nk);
	if (r->flags & SNAP_KTHREAD)
		t->note = "kernel thread: no user stack";
	else if (r->exit_state)
		t->note = t->state == 'Z' ? "zombie: exited, waiting for its parent to reap it" :
			  "exited: no stack left";
	else if (r->flags & SNAP_NO_MM)
		t->note = "exiting: its memory is gone, no user stack";
	else if (!(r->flags & SNAP_USER_REGS))
		t->note = "its user registers could not be read";
	else if (!r->ustack_bytes)
		t->note = "its user stack could not be read (exiting, or sp unmapped)";
	else
		nu = user_frames(s, r, ustack, uf, &t->note);
	if (t->on_cpu && !t->note && !(r->flags & SNAP_KTHREAD))
		t->note = "running on a CPU when read: no kernel stack, user stack as of its "
			  "last kernel entry (may be stale)";
	key->nuser = nu;
	return sizeof(*key) + nk * sizeof(uint64_t) + nu * sizeof(struct uframe);
}

/* A thread of the round, unwound, its stack to be named. */
struct unwound {
	const struct snap_record *r;
	struct stack_key *key;		/* malloc'd, bytes long */
	size_t bytes;
};

/* t's frames named, as text, and into the profiles' stacks. */
static int thread_name(struct snapper *s, struct snap_thread *t, const struct unwound *u)
{
	int n = resolve_stack(&s->res, u->key, s->nf, RESOLVE_MAX_FRAMES);

	t->nframes = n;
	t->stack = frame_text(s, n);
	t->wait = wait_text(s, t, u->r, n);
	if (!t->stack)
		return -1;
	if (s->o->noutputs)
		stacks_add(&s->stacks, u->key, u->bytes);
	return 0;
}

/*
 * The round's threads named, after the debug files of all their binaries
 * that have none here were fetched at once (debug_prefetch.h), as record
 * does.  Named one thread at a time, each binary's first frame asked the
 * servers alone, paying a slow server's latency per binary within the 3 s
 * budget: 11 stripped binaries behind a server answering in 0.6 s, 5
 * fetched in 3.0 s, the rest's frames unnamed; at once, 11 in 0.6 s.
 */
static int name_threads(struct snapper *s, struct snap_thread *t, const struct unwound *u,
			size_t n)
{
	const struct stack_key **keys = malloc((n ? n : 1) * sizeof(*keys));
	size_t k;

	if (!keys)
		return -1;
	for (k = 0; k < n; k++)
		keys[k] = u[k].key;
	debug_prefetch_keys(keys, n);
	free(keys);
	for (k = 0; k < n; k++)
		if (thread_name(s, &t[k], &u[k]))
			return -1;
	return 0;
}

static void free_threads(struct snap_thread *t, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(t[i].stack);
		free(t[i].wait);
	}
	free(t);
}

/* ---- rounds ------------------------------------------------------------ */

static void text_out(struct snapper *s, FILE *f, struct snap_thread *t, size_t n,
		     struct snap_group *g, int ng, uint32_t round, double read_ms, double total_ms)
{
	if (s->o->count > 1)
		fprintf(f, "%sround %u of %ld:\n", round ? "\n" : "", round + 1, s->o->count);
	fprintf(f, "stitch snapshot: %zu thread%s in %d group%s (read in %.1f ms, unwound and "
		"named in %.1f ms; no thread was stopped)\n", n, n == 1 ? "" : "s", ng,
		ng == 1 ? "" : "s", read_ms, total_ms - read_ms);
	snap_print_text(f, t, n, g, ng, s->o->no_group);
}

static bool walked(const struct snapper *s, uint32_t pid)
{
	size_t i;

	for (i = 0; i < s->nwalked; i++)
		if (s->walked[i] == pid)
			return true;
	return false;
}

/*
 * Look at every process of the records just read for an interpreter (once
 * each: record's detection, which also tells the iterator where its threads
 * keep their interpreter state).  The count of processes newly walked, or
 * -1 when out of memory.
 */
static int find_interpreters(struct snapper *s)
{
	uint32_t last = 0;
	size_t off = 0;
	int found = 0;

	while (off + sizeof(struct snap_record) <= s->len) {
		const struct snap_record *r = (const struct snap_record *)(s->buf + off);
		uint32_t *w;

		if (r->magic != SNAP_MAGIC || r->bytes < sizeof(*r) || r->bytes > s->len - off ||
		    r->bytes % 8)
			break;
		off += r->bytes;
		if (r->pid == last || (r->flags & SNAP_KTHREAD) || walked(s, r->pid))
			continue;
		last = r->pid;
		if (!interp_proc_update(&s->interp, procs_get(&s->procs, r->pid)))
			continue;
		w = realloc(s->walked, (s->nwalked + 1) * sizeof(*w));
		if (!w)
			return -1;
		s->walked = w;
		s->walked[s->nwalked++] = r->pid;
		found++;
	}
	return found;
}

static int one_round(struct snapper *s, uint32_t round)
{
	struct snap_thread *t = NULL;
	struct unwound *u = NULL;
	struct snap_group *g = NULL;
	size_t n = 0, cap = 0, off = 0, k;
	double t0 = mono_s(), t1;
	int ng = 0, i, rc = 0;

	s->taken_ns = mono_ns();
	if (read_records(s))
		return -1;
	procs_free(&s->procs);
	if (procs_init(&s->procs, &s->bins))
		return -1;
	/* New interpreters: read again, now with their threads' script frames. */
	if (!s->from_proc && find_interpreters(s) > 0 && read_iter(s))
		return -1;
	t1 = mono_s();
	while (off + sizeof(struct snap_record) <= s->len) {
		const struct snap_record *r = (const struct snap_record *)(s->buf + off);

		if (r->magic != SNAP_MAGIC || r->bytes < sizeof(*r) || r->bytes > s->len - off ||
		    r->bytes % 8 || r->nkernel > SNAP_MAX_KSTACK || r->ustack_bytes > SNAP_MAX_USTACK ||
		    r->nuret > STITCH_URET_MAX ||
		    r->interp_bytes > SNAP_OBJECT_BYTES ||
		    sizeof(*r) + r->nkernel * 8ull + r->ustack_bytes + r->interp_bytes != r->bytes) {
			s->bad_records++;
			break;
		}
		off += r->bytes;
		/* Our own threads are busy reading this: not worth showing. */
		if (r->pid == (uint32_t)getpid() && !s->o->npids)
			continue;
		if (n == cap) {
			struct snap_thread *nt;
			struct unwound *nu;

			cap = cap ? cap * 2 : 256;
			nt = realloc(t, cap * sizeof(*t));
			if (nt)
				t = nt;
			nu = realloc(u, cap * sizeof(*u));
			if (nu)
				u = nu;
			if (!nt || !nu) {
				rc = -1;
				goto out;
			}
		}
		u[n].r = r;
		u[n].bytes = thread_unwind(s, r, round, &t[n]);
		u[n].key = malloc(u[n].bytes);
		if (!u[n].key) {
			rc = -1;
			goto out;
		}
		memcpy(u[n].key, s->key_buf, u[n].bytes);
		n++;
	}
	if (name_threads(s, t, u, n)) {
		rc = -1;
		goto out;
	}
	s->threads_seen += n;
	ng = snap_group_threads(t, n, &g);
	if (ng < 0) {
		rc = -1;
		goto out;
	}
	for (i = 0; i < s->out.ntexts; i++)
		text_out(s, s->out.texts[i], t, n, g, ng, round, (t1 - t0) * 1e3,
			 (mono_s() - t0) * 1e3);
	for (k = 0; k < n; k++) {
		const char *sep = snap_outputs_json_sep(&s->out);

		for (i = 0; i < s->out.njsons; i++) {
			fprintf(s->out.jsons[i], "%s\n", sep);
			snap_print_json(s->out.jsons[i], &t[k]);
		}
	}
	if (!n && !round)
		fprintf(stderr, "stitch snapshot: no thread of the targets was found (they may "
			"have exited)\n");
out:
	snap_groups_free(g, ng > 0 ? ng : 0);
	free_threads(t, n);
	for (k = 0; k < n; k++)
		free(u[k].key);
	free(u);
	return rc;
}

/* The profile outputs (SVG, folded, pprof, speedscope) of every round. */
static int write_profiles(struct snapper *s)
{
	static const char *const events[] = { "snapshot" };
	struct output_opts oo = { .top = 20, .force = s->o->force,
				  .subtitle = "stitch snapshot: one sample per thread and round" };
	const char *paths[SNAP_MAX_OUTPUTS];
	int formats[SNAP_MAX_OUTPUTS], n = 0, i, rc;
	struct profile p;
	char what[64];

	for (i = 0; i < s->o->noutputs; i++) {
		if (s->o->formats[i] == OUTPUT_JSON || s->o->formats[i] == OUTPUT_TEXT)
			continue;
		paths[n] = s->o->outputs[i];
		formats[n++] = s->o->formats[i];
	}
	profile_init(&p);
	rc = profile_from_stacks(&p, &s->stacks, &s->res, events, 1);
	p.title = profile_str(&p, "threads (one sample per thread and round)");
	snprintf(what, sizeof(what), "%" PRIu64 " sample%s (one per thread and round)",
		 s->threads_seen, s->threads_seen == 1 ? "" : "s");
	if (rc)
		fprintf(stderr, "stitch snapshot: %s\n", strerror(-rc));
	else
		rc = output_write_all("snapshot", paths, formats, n, &p, &oo, what);
	profile_free(&p);
	return rc ? -1 : 0;
}

/*
 * SIGINT, SIGTERM, SIGHUP: no more rounds; the one being taken ends and
 * every output is written with the rounds taken, as record's are.
 */
static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void stop_on_signals(void)
{
	struct sigaction sa = { .sa_handler = on_stop, .sa_flags = SA_RESTART };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* Sleep ns, or less when a stop is asked for. */
static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { ns / 1000000000ull, ns % 1000000000ull };

	while (!stop_requested && nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int run(struct snapper *s)
{
	struct snap_opts *o = s->o;
	uint32_t round;
	int rc = 0, taken;

	if (snap_outputs_open(&s->out, o->outputs, o->formats, o->noutputs, o->force))
		return -1;
	/* The first round is taken even when stopped already: it takes milliseconds. */
	for (round = 0; round < o->count && !rc && (!round || !stop_requested); round++) {
		uint64_t start = mono_ns();

		rc = one_round(s, round);
		if (round + 1 < o->count && mono_ns() - start < o->interval_ns)
			sleep_ns(o->interval_ns - (mono_ns() - start));
	}
	/* A profile that cannot be written leaves the others, text and JSON, written. */
	taken = rc;
	if (!rc && s->out.profiles)
		rc = write_profiles(s);
	if (snap_outputs_close(&s->out, !taken))
		rc = -1;
	if (s->bad_records)
		fprintf(stderr, "stitch snapshot: %" PRIu64 " malformed records from the iterator "
			"were skipped\n", s->bad_records);
	if (s->skel && s->skel->bss->write_errors)
		fprintf(stderr, "stitch snapshot: %llu threads could not be written by the "
			"iterator and are missing\n",
			(unsigned long long)s->skel->bss->write_errors);
	return rc;
}

int cmd_snapshot(int argc, char **argv)
{
	struct snap_opts o = { 0 };
	struct snapper s = { .o = &o };
	int rc;

	rc = parse_opts(argc, argv, &o);
	if (rc)
		goto out_opts;
	/* Every -o is checked before anything is read. */
	if (output_check_all("snapshot", o.outputs, o.noutputs, o.force)) {
		rc = 1;
		goto out_opts;
	}
	if (o.comm && pids_of_comm(&o)) {
		rc = 1;
		goto out_opts;
	}
	if (check_tracing_privileges("stitch snapshot") != 0 ||
	    kfeat_require_basics("stitch snapshot") != 0) {
		rc = 1;
		goto out_opts;
	}
	s.key_buf = malloc(sizeof(struct stack_key) + MAX_FRAMES * sizeof(struct uframe));
	if (!s.key_buf || binary_cache_init(&s.bins) || procs_init(&s.procs, &s.bins) ||
	    resolver_init(&s.res, NULL) || stacks_init(&s.stacks)) {
		fprintf(stderr, "stitch snapshot: out of memory\n");
		rc = 1;
		goto out;
	}
	resolver_name_kernel_lazily(&s.res, "/proc/kallsyms");
	stop_on_signals();
	rc = load_bpf(&s) || run(&s) ? 1 : 0;
	debuginfod_report();
out:
	bpf_link__destroy(s.link);
	interp_free(&s.interp);
	snapshot_bpf__destroy(s.skel);
	free(s.walked);
	stacks_free(&s.stacks);
	resolver_free(&s.res);
	procs_free(&s.procs);
	binary_cache_free(&s.bins);
	free(s.key_buf);
	free(s.buf);
out_opts:
	free(o.pids);
	return rc;
}
