// SPDX-License-Identifier: GPL-2.0
/*
 * stitch latency: "X is slow, where did each slow call's time go?".  Every
 * call of the root is timed in the kernel (latency.bpf.c) into a
 * histogram; the recording engine, driven through its hooks, takes stacks of
 * threads inside a call (cpu samples from the call's start, and
 * every switch-out with its time off CPU: -e wall, gated by latency.bpf.c);
 * when a call ends at or over the threshold, the stacks taken in it are its
 * breakdown (lat_calls.c), printed and written (lat_report.c, -o).
 */
#include <errno.h>
#include <limits.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kernel/features.h"
#include "latency/latency_cmd.h"
#include "capture/capture.h"
#include "formats/output.h"
#include "latency/lat_calls.h"
#include "latency/lat_children.h"
#include "latency/lat_fetch.h"
#include "latency/lat_report.h"
#include "latency/lat_root.h"
#include "profile/resolve.h"
#include "record/engine.h"
#include "record/run_opts.h"
#include "util/array.h"
#include "util/cli.h"
#include "util/bpf_keys.h"
#include "util/clock.h"
#include "util/core_btf.h"
#include "util/libbpf_log.h"
#include "util/outfile.h"
#include "capture.skel.h"
#include "interp/interp.h"	/* the skeleton's root_L */
#include "latency.skel.h"

#define DEFAULT_FREQ 999
#define DEFAULT_TOP 5

struct lat_opts {
	struct record_opts run;		/* the engine's: the targets, -F, -d, --wakers */
	struct run_outputs out;		/* -o, --force */
	struct lat_root root;
	struct lat_fetch fetch;		/* --fetch at the root's entry */
	const char *root_spec, *keys, *children;
	uint64_t threshold_ns;
	int top;
};

/* A slow call read from the ring, with its child events (--children) and values (--fetch). */
struct pending_call {
	struct lat_call call;
	uint64_t *ev;
	char *values;
};

/* A thread's --fetch values, read just before its slow call's record. */
struct pending_values {
	uint32_t tid;
	uint64_t start_ns;	/* its call's start */
	char text[LAT_VALUES_MAX];
};

struct latency {
	struct lat_opts *o;
	struct latency_bpf *skel;
	struct ring_buffer *rb;
	struct bpf_link *links[LAT_ROOT_LINKS];
	struct lat_children children;
	struct pending_call *pending;	/* read last turn, claimed next turn */
	size_t npending, cap;
	struct pending_values *values;	/* --fetch: waiting for their call's record */
	size_t nvalues, values_cap;
	uint64_t unqueued;
	struct lat_calls calls;
	struct resolver res;
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: stitch latency -e ROOT (-p PID[,PID...] | -a | -- COMMAND [ARGS...])\n"
"                      [--threshold TIME] [-F HZ] [-d SECONDS] [--top N] [-o FILE]...\n"
"\n"
"Time every call of ROOT per thread: a histogram with p50/p90/p99/max.  For\n"
"the calls at or over the threshold, where their wall time went: blocked (the\n"
"stack at each switch-out, weighed by the time off CPU) or on CPU (stacks\n"
"sampled at -F from the call's start, kept if it ends slow), with kernel,\n"
"native and script frames.  A call that ends under the threshold without\n"
"blocking or being sampled costs only its begin and end probes.\n"
"\n"
"Roots (a call begins and ends on one thread, nested begins count as inside it):\n"
"  syscall:NAME                       a system call: syscall:pread64, syscall:fsync\n"
"  uprobe:BINARY:FUNCTION             a function of a binary or library\n"
"  kprobe:FUNCTION                    a kernel function (needs kprobes, which some\n"
"                                     kernels lack: then time the system call)\n"
"  usdt:BINARY:PROVIDER:BEGIN,END     two USDT probes of a binary\n"
"  perl:NAME                          a Perl sub of that name (any package), on\n"
"                                     perl's own sub-call path (uprobes on\n"
"                                     Perl_pp_entersub and the returns: each sub\n"
"                                     call of the process then traps, ~2 us)\n"
"  tracepoint:CATEGORY:BEGIN,END      two tracepoints; with --key, matched by\n"
"                                     fields instead of by thread (an I/O that\n"
"                                     completes in an interrupt): timed, not\n"
"                                     broken down (no thread waits in it)\n"
"\n"
"Options:\n"
"  -e, --event ROOT         what to time (required)\n"
"  -p, --pid PID[,PID...]   calls of these processes' threads\n"
"  -a, --all                calls of every process\n"
"  -- COMMAND [ARGS...]     run COMMAND and time its calls (and its children's)\n"
"  -t, --threshold TIME     a slow call: 1ms (default), 500us, 0.2s\n"
"  -F, --freq HZ            cpu samples per second in slow calls (default %d)\n"
"  -d, --duration SECONDS   stop after this long (default: Ctrl-C, or when\n"
"                           COMMAND exits)\n"
"      --top N              the N slowest calls, each with its breakdown (default %d)\n"
"      --children F[,F...]  time these functions exactly inside slow calls, as a\n"
"                           nested tree per call: FUNCTION (in the root's binary;\n"
"                           a kernel function for syscall and tracepoint roots)\n"
"                           or BINARY:FUNCTION; at most 64, 1024 entries and\n"
"                           returns per call\n"
"      --wakers             join each blocked stack of a slow call to the stack of\n"
"                           who woke the thread, drawn above it past '--'\n"
"      --key F[,F]          tracepoint pairs: match begin and end by these fields\n"
"                           (FIELD, or BEGINFIELD=ENDFIELD when the names differ)\n"
"      --fetch EXPR         read EXPR at each call's entry, shown with the slow\n"
"                           calls (repeatable, 8 at most): a function's argument\n"
"                           by name from DWARF, then ->member, .member, [N],\n"
"                           :string or :u8..:x64 (as record --fetch); a system\n"
"                           call's (syscall:openat --fetch filename:string) or a\n"
"                           kernel function's argument (from its BTF)\n"
"  -o, --output FILE        write here, repeatable; the name sets the format:\n"
"                           FILE.json (the numbers, for scripts), - or FILE.txt\n"
"                           (the summary), FILE.svg, FILE.pb.gz, FILE.folded,\n"
"                           FILE.speedscope.json (the slow calls' breakdown, in\n"
"                           ns: root = the call, then [on-cpu] or [off-cpu])\n"
"      --force              let -o replace a symlink (the link itself)\n"
"      --no-debuginfod      ask no debuginfod server (DEBUGINFOD_URLS) for\n"
"                           debug files\n"
"  -h, --help               this help\n"
"\n"
"Examples:\n"
"  sudo stitch latency -e syscall:pread64 -p $(pidof db) -t 1ms -d 30 -o slow.svg\n"
"  sudo stitch latency -e uprobe:/usr/sbin/nginx:ngx_http_process_request -t 5ms -a\n"
"  sudo stitch latency -e uprobe:./server:handle --children parse,lookup -p $(pidof server)\n"
"  sudo stitch latency -e uprobe:./server:handle --fetch 'r->path:string' -p $(pidof server)\n"
"  sudo stitch latency -e tracepoint:block:block_rq_issue,block_rq_complete \\\n"
"       --key dev,sector -a -d 10\n"
"Needs root (or CAP_BPF + CAP_PERFMON).\n",
		DEFAULT_FREQ, DEFAULT_TOP);
}

static int fail_usage(const char *fmt, const char *arg)
{
	return cli_usage_error("latency", fmt, arg);
}

enum { OPT_TOP = 256, OPT_CHILDREN, OPT_KEY, OPT_FETCH };

/* latency's own options; the ones it shares with record are in run_opts.h. */
static const struct option longopts[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "threshold", required_argument, NULL, 't' },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "children", required_argument, NULL, OPT_CHILDREN },
	{ "key", required_argument, NULL, OPT_KEY },
	{ "fetch", required_argument, NULL, OPT_FETCH },
	{ NULL, 0, NULL, 0 },
};

/* One of stitch latency's own options: a cli_opt_fn. */
static int take_opt(void *ctx, int c, const char *arg)
{
	struct lat_opts *o = ctx;
	long v;

	switch (c) {
	case 'e':
		if (o->root_spec)
			return fail_usage("%s", "one root at a time (-e once)");
		o->root_spec = arg;
		break;
	case 't':
		o->threshold_ns = cli_parse_time(arg);
		if (!o->threshold_ns)
			return fail_usage("--threshold: '%s' is not a time between 1us and 1h "
					  "(like 1ms, 500us, 0.2s)", arg);
		break;
	case OPT_TOP:
		if (!cli_parse_long(arg, 0, 1000, &v))
			return fail_usage("--top: '%s' is not a count from 0 to 1000", arg);
		o->top = v;
		break;
	case OPT_CHILDREN:
		o->children = arg;
		break;
	case OPT_KEY:
		o->keys = arg;
		break;
	case OPT_FETCH:
		return lat_fetch_add(&o->fetch, arg);
	}
	return 0;
}

static const struct run_cmd latency_run_cmd = {
	.name = "latency",
	.usage = usage,
	.shared = RUN_OPT_PID | RUN_OPT_ALL | RUN_OPT_FREQ | RUN_OPT_DURATION | RUN_OPT_OUTPUT |
		  RUN_OPT_WAKERS | RUN_OPT_DEBUGINFOD,
	.default_freq = DEFAULT_FREQ,
	.shortopts = "e:t:",
	.longopts = longopts,
	.take = take_opt,
	.json_outputs = true,
	.target_what = "whose calls",
	.target_choices = "-p PID, -a, or -- COMMAND",
};

static int parse_opts(int argc, char **argv, struct lat_opts *o, struct run_args *a)
{
	struct target *t = &o->run.target;
	int rc;

	o->threshold_ns = 1000000;
	o->top = DEFAULT_TOP;
	rc = run_opts_parse(&latency_run_cmd, argc, argv, a, o);
	if (rc)
		return rc;
	if (!o->root_spec)
		return fail_usage("%s", "say what to time with -e: syscall:NAME, "
				  "uprobe:BINARY:FUNCTION, ... (--help lists them)");
	rc = run_target_check(&latency_run_cmd, a);
	if (rc)
		return rc;
	return lat_root_parse(&o->root, o->root_spec, o->keys, t->npids ? (pid_t)t->pids[0] : 0,
			      t->command);
}

/* ---- hooks into the recording engine (record/engine.h) ------------------ */

static int before_load(void *ctx, struct capture_bpf *rskel)
{
	struct latency *l = ctx;
	struct bpf_object_open_opts opts = { .sz = sizeof(opts) };
	const void *obj;
	size_t size;
	int err;

	/* Relocated against the kernel BTF's subset its relocations need (libbpf copies the path). */
	obj = latency_bpf__elf_bytes(&size);
	opts.btf_custom_path = core_btf_path(obj, size);
	l->skel = latency_bpf__open_opts(&opts);
	if (!l->skel) {
		fprintf(stderr, "stitch latency: cannot open the BPF object: %s\n",
			strerror(errno));
		return -1;
	}
	l->skel->rodata->threshold_ns = l->o->threshold_ns;
	l->skel->rodata->filter_tgids = !l->o->run.target.all;
	/* The capture program's perf_event workers look them up (kernel/features.h). */
	kfeat_prealloc_for_nmi(l->skel->maps.gate_threads);
	kfeat_prealloc_for_nmi(l->skel->maps.traced_tgids);
	/* A child's probe says which function it is by its cookie: none, no children. */
	if (l->children.n && !kfeat_has(KFEAT_ATTACH_COOKIE)) {
		kfeat_say_missing(KFEAT_ATTACH_COOKIE, "--children is left out, the calls are "
				  "timed without their children");
		lat_children_free(&l->children);
	}
	l->skel->rodata->children_on = l->children.n > 0;
	lat_root_configure(&l->o->root, l->skel);
	lat_fetch_configure(&l->o->fetch, l->skel);
	bpf_program__set_autoload(l->skel->progs.lat_child_enter, l->children.n > 0);
	bpf_program__set_autoload(l->skel->progs.lat_child_exit, l->children.n > 0);
	/* The child buffers are made only with --children: 1 entry, not 65,536. */
	if (!l->children.n)
		bpf_map__set_max_entries(l->skel->maps.child_bufs, 1);
	err = latency_bpf__load(l->skel);
	if (err) {
		libbpf_load_failed("stitch latency", err);
		return -1;
	}
	err = lat_fetch_write(&l->o->fetch, l->skel);
	if (err) {
		fprintf(stderr, "stitch latency: cannot write --fetch's steps: %s\n", strerror(-err));
		return -1;
	}
	/* The gate is ours: threads in a call, from the call's start. */
	rskel->rodata->gate_wall = true;
	return record_gate_share(rskel, "stitch latency", bpf_map__fd(l->skel->maps.gate_threads),
				 bpf_map__fd(l->skel->maps.traced_tgids));
}

/* --fetch: a thread's values, kept until its call's record comes (the next of that thread). */
static void on_values(struct latency *l, const struct lat_fetched *f)
{
	struct pending_values *v = NULL;
	size_t i;

	for (i = 0; i < l->nvalues && !v; i++)
		if (l->values[i].tid == f->v.tid)
			v = &l->values[i];
	if (!v) {
		if (array_reserve((void **)&l->values, &l->values_cap, l->nvalues + 1,
				  sizeof(*l->values), 16))
			return;
		v = &l->values[l->nvalues++];
		v->tid = f->v.tid;
	}
	v->start_ns = f->v.time_ns;
	lat_fetch_format(&l->o->fetch, &f->v, v->text, sizeof(v->text));
}

/*
 * The values read for the call of tid that started at start_ns, taken
 * (malloc'd), or NULL: an earlier call's, whose record the ring lost, are
 * never another call's.
 */
static char *take_values(struct latency *l, uint32_t tid, uint64_t start_ns)
{
	char *text = NULL;
	size_t i;

	for (i = 0; i < l->nvalues; i++) {
		if (l->values[i].tid != tid)
			continue;
		if (l->values[i].start_ns == start_ns)
			text = strdup(l->values[i].text);
		l->values[i] = l->values[--l->nvalues];
		return text;
	}
	return NULL;
}

static int on_slow_call(void *ctx, void *data, size_t size)
{
	const struct lat_call *c = data;
	struct latency *l = ctx;
	struct pending_call *p;
	size_t nev;

	/* A call's start time is never the tag: these are the next call's values */
	if (size >= sizeof(struct lat_fetched) && *(const uint64_t *)data == LAT_FETCHED_TAG) {
		on_values(l, data);
		return 0;
	}
	if (size < sizeof(struct lat_call))
		return 0;
	nev = (size - sizeof(*c)) / sizeof(uint64_t);
	if (nev > c->nchild)
		nev = c->nchild;
	if (array_reserve((void **)&l->pending, &l->cap, l->npending + 1, sizeof(*l->pending),
			  64)) {
		l->unqueued++;
		return 0;
	}
	p = &l->pending[l->npending];
	p->call = *c;
	p->call.nchild = nev;
	p->ev = NULL;
	if (nev) {
		p->ev = malloc(nev * sizeof(uint64_t));
		if (!p->ev) {
			l->unqueued++;
			return 0;
		}
		memcpy(p->ev, c + 1, nev * sizeof(uint64_t));
	}
	p->values = l->o->fetch.n ? take_values(l, c->tid, c->start_ns) : NULL;
	l->npending++;
	return 0;
}

static int attached(void *ctx)
{
	struct latency *l = ctx;
	char t[32];

	if (lat_root_attach(&l->o->root, l->skel, l->links,
			    l->o->run.target.npids == 1 ? (int)l->o->run.target.pids[0] : 0) ||
	    lat_children_attach(&l->children, l->skel))
		return -1;
	/* Threads that die in a call; record's samplers are running already. */
	if (latency_bpf__attach(l->skel)) {
		fprintf(stderr, "stitch latency: cannot watch thread exits: %s\n", strerror(errno));
		return -1;
	}
	l->rb = ring_buffer__new(bpf_map__fd(l->skel->maps.slow_calls), on_slow_call, l, NULL);
	if (!l->rb) {
		fprintf(stderr, "stitch latency: cannot open the ring buffer: %s\n",
			strerror(errno));
		return -1;
	}
	lat_format_ns(t, sizeof(t), l->o->threshold_ns);
	fprintf(stderr, "stitch latency: timing %s; slow: %s or more\n", l->o->root_spec, t);
	return 0;
}

static void on_sample(void *ctx, const struct sample_event *e, const struct stack_key *key,
		      uint32_t key_bytes)
{
	struct latency *l = ctx;

	lat_calls_stack(&l->calls, e->tid, e->time_ns, key, key_bytes, l->calls.period_ns, true);
}

static void on_weighed(void *ctx, uint32_t tid, uint64_t time_ns, const struct stack_key *key,
		       uint32_t key_bytes, uint64_t ns)
{
	struct latency *l = ctx;

	lat_calls_stack(&l->calls, tid, time_ns, key, key_bytes, ns, false);
}

/* The start of tid's call in flight (open_calls), or 0. */
static uint64_t open_start(void *ctx, uint32_t tid)
{
	struct latency *l = ctx;
	struct lat_open o;

	if (bpf_map__lookup_elem(l->skel->maps.open_calls, &tid, sizeof(tid), &o, sizeof(o), 0))
		return 0;
	return o.start_ns;
}

/*
 * Slow calls read in the previous turn are claimed now: every stack taken
 * in them was in record's ring before the call's record was written, and
 * record's ring has been read again since.  Then the stacks of calls that
 * had ended when the previous turn looked (lat_calls_bound) and were not
 * claimed are those of fast calls: dropped.  Then look again, and read
 * the slow calls ended so far.
 */
static void on_poll(void *ctx)
{
	struct latency *l = ctx;
	size_t i;

	for (i = 0; i < l->npending; i++) {
		lat_calls_slow(&l->calls, &l->pending[i].call, l->pending[i].ev,
			       l->pending[i].values);
		free(l->pending[i].ev);
		free(l->pending[i].values);
	}
	l->npending = 0;
	lat_calls_prune(&l->calls);
	if (!l->calls.keyed && lat_calls_bound(&l->calls, mono_ns(), open_start, l))
		l->calls.nbounds = 0;
	ring_buffer__consume(l->rb);
}

static void read_histogram(struct latency *l, struct lat_hist *h, uint64_t *stats)
{
	int ncpu = libbpf_num_possible_cpus(), c;
	uint64_t *v = calloc(ncpu > 0 ? ncpu : 1, sizeof(*v));
	uint32_t i;

	memset(h, 0, sizeof(*h));
	if (!v || ncpu <= 0) {
		free(v);
		return;
	}
	for (i = 0; i < LAT_BUCKETS; i++) {
		if (bpf_map__lookup_elem(l->skel->maps.histogram, &i, sizeof(i), v,
					 ncpu * sizeof(*v), 0))
			continue;
		for (c = 0; c < ncpu; c++)
			h->counts[i] += v[c];
		h->total += h->counts[i];
	}
	for (i = 0; i <= LAT_STAT_NR; i++) {
		uint64_t sum = 0, max = 0;

		if (bpf_map__lookup_elem(l->skel->maps.lat_stats, &i, sizeof(i), v,
					 ncpu * sizeof(*v), 0))
			continue;
		for (c = 0; c < ncpu; c++) {
			sum += v[c];
			max = v[c] > max ? v[c] : max;
		}
		if (i == LAT_STAT_NR)
			h->max_ns = max;
		else
			stats[i] = sum;
	}
	free(v);
}

/* Calls not ended when tracing stopped (in map m, keys of key_size): how many, the oldest's age. */
static void open_in(struct bpf_map *m, size_t key_size, struct lat_summary *s)
{
	uint64_t now = mono_ns();
	struct lat_open v;
	size_t n, i;
	char *keys = bpf_map_keys(bpf_map__fd(m), key_size, &n);

	for (i = 0; i < n; i++) {
		if (bpf_map__lookup_elem(m, keys + i * key_size, key_size, &v, sizeof(v), 0))
			continue;
		s->open_at_end++;
		if (now > v.start_ns && now - v.start_ns > s->longest_open_ns)
			s->longest_open_ns = now - v.start_ns;
	}
	free(keys);
}

static void open_calls(struct latency *l, struct lat_summary *s)
{
	open_in(l->skel->maps.open_calls, sizeof(uint32_t), s);
	open_in(l->skel->maps.open_keyed, sizeof(struct lat_key), s);
}

static int write_outputs(struct latency *l, struct lat_summary *s, double seconds)
{
	static const char *const events[] = { "latency" };
	struct run_outputs *o = &l->o->out;
	struct output_opts oo = { .top = 20, .force = o->force };
	const char *paths[MAX_OUTPUTS];
	int formats[MAX_OUTPUTS], n = 0, i, rc = 0;
	char what[64], sub[256];
	struct profile p;
	uint32_t root;
	size_t k;

	for (i = 0; i < o->n; i++) {
		struct outfile of;
		char err[PATH_MAX + 128];

		if (o->formats[i] != OUTPUT_JSON && o->formats[i] != OUTPUT_TEXT) {
			paths[n] = o->paths[i];
			formats[n++] = o->formats[i];
			continue;
		}
		if (!strcmp(o->paths[i], "-")) {
			lat_report_text(stdout, s);
			continue;
		}
		if (outfile_open(&of, o->paths[i], o->force, err, sizeof(err))) {
			fprintf(stderr, "stitch latency: cannot write %s\n", err);
			rc = -1;
			continue;
		}
		if (o->formats[i] == OUTPUT_JSON)
			lat_report_json(of.f, s);
		else
			lat_report_text(of.f, s);
		if (outfile_commit(&of, err, sizeof(err))) {
			fprintf(stderr, "stitch latency: writing %s\n", err);
			rc = -1;
		}
	}
	if (!n)
		return rc;
	profile_init(&p);
	if (profile_from_stacks(&p, &l->calls.breakdown, &l->res, events, 1)) {
		profile_free(&p);
		return -1;
	}
	/* The root frame came through comm's 16 bytes: the whole name now. */
	root = profile_str(&p, l->o->root.name);
	for (k = 0; k < p.nsamples; k++)
		p.samples[k].comm = root;
	snprintf(sub, sizeof(sub), "%s calls at or over the threshold: where their time went",
		 l->o->root.name);
	p.title = profile_str(&p, sub);
	p.value_type = profile_str(&p, "wall");
	p.value_unit = profile_str(&p, "nanoseconds");
	p.duration_ns = seconds * 1e9;
	oo.subtitle = "root: the call; then [on-cpu] or [off-cpu]";
	snprintf(what, sizeof(what), "%" PRIu64 " slow calls", l->calls.slow);
	if (output_write_all("latency", paths, formats, n, &p, &oo, what))
		rc = -1;
	profile_free(&p);
	return rc;
}

static int finish(void *ctx, const struct record_result *res)
{
	struct latency *l = ctx;
	double seconds = res->seconds;
	struct lat_summary s = { 0 };
	struct lat_hist *h = calloc(1, sizeof(*h));
	bool text_to_stdout = true;
	int i, rc;

	if (!h)
		return -1;
	for (i = 0; i < LAT_ROOT_LINKS; i++) {
		bpf_link__destroy(l->links[i]);
		l->links[i] = NULL;
	}
	lat_children_detach(&l->children);
	on_poll(l);		/* every stack and call is in: claim what is left */
	on_poll(l);
	read_histogram(l, h, s.stats);
	s.root = l->o->root_spec;
	s.r = &l->o->root;
	s.children = &l->children;
	s.threshold_ns = l->o->threshold_ns;
	s.seconds = seconds;
	s.hist = h;
	s.calls = &l->calls;
	s.res = &l->res;
	s.top_stacks = 8;
	open_calls(l, &s);
	for (i = 0; i < l->o->out.n; i++)
		if (l->o->out.formats[i] == OUTPUT_TEXT)
			text_to_stdout = false;
	if (text_to_stdout)
		lat_report_text(stdout, &s);
	if (s.stats[LAT_STAT_SLOW_LOST] || l->unqueued)
		fprintf(stderr, "stitch latency: LOST %" PRIu64 " slow calls (ring full or out of "
			"memory): counted, not broken down\n",
			s.stats[LAT_STAT_SLOW_LOST] + l->unqueued);
	if (s.stats[LAT_STAT_UNTRACKED])
		fprintf(stderr, "stitch latency: %" PRIu64 " calls not timed (more than %d %s in "
			"calls at once)\n", s.stats[LAT_STAT_UNTRACKED], LAT_MAX_THREADS,
			l->o->root.nkeys ? "keys" : "threads");
	if (l->calls.dropped)
		fprintf(stderr, "stitch latency: %" PRIu64 " stacks dropped (a thread had more than "
			"%d waiting for its call to end)\n", l->calls.dropped, LAT_MAX_PENDING);
	rc = write_outputs(l, &s, seconds);
	free(h);
	return rc;
}

int cmd_latency(int argc, char **argv)
{
	struct lat_opts o = { 0 };
	struct run_args a = { .o = &o.run, .out = &o.out };
	struct latency l = { .o = &o };
	const struct record_hooks hooks = {
		.ctx = &l,
		.before_load = before_load,
		.attached = attached,
		.sample = on_sample,
		.weighed = on_weighed,
		.poll = on_poll,
		.finish = finish,
	};
	int rc, i;

	rc = parse_opts(argc, argv, &o, &a);
	if (!rc)
		rc = run_opts_ready(&latency_run_cmd, &a);
	if (rc)
		goto out;
	if (o.children) {
		rc = lat_children_parse(&l.children, o.children, &o.root);
		if (rc)
			goto out;
	}
	rc = lat_fetch_compile(&o.fetch, &o.root);
	if (rc)
		goto out;
	if (resolver_init(&l.res, NULL) ||
	    lat_calls_init(&l.calls, o.root.name, 1000000000ull / o.run.freq, o.top)) {
		fprintf(stderr, "stitch latency: out of memory\n");
		rc = 1;
		goto out;
	}
	l.calls.children = l.children.n > 0;
	l.calls.keyed = o.root.nkeys > 0;
	resolver_name_kernel_lazily(&l.res, "/proc/kallsyms");
	/* cpu samples and off-CPU time (-e wall) of the same targets: each matched to a call */
	rc = record_run_each(&o.run, "wall", &hooks);
out:
	record_opts_free(&o.run);
	lat_calls_free(&l.calls);
	resolver_free(&l.res);
	ring_buffer__free(l.rb);
	for (i = 0; i < LAT_ROOT_LINKS; i++)
		bpf_link__destroy(l.links[i]);
	lat_children_free(&l.children);
	latency_bpf__destroy(l.skel);
	for (i = 0; i < (int)l.npending; i++) {
		free(l.pending[i].ev);
		free(l.pending[i].values);
	}
	free(l.pending);
	free(l.values);
	return rc;
}
