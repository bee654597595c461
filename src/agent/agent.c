// SPDX-License-Identifier: GPL-2.0
/*
 * stitch agent: always on, the whole host (or some processes), every period
 * one profile per (service, profile type) pushed to each --push target:
 * Pyroscope, an OpenTelemetry collector, Parca.  The recording engine
 * (record/engine.h) hands over each period's stacks; series.c makes them
 * labelled pprof series; push_wires[kind] encodes them; a push_queue per
 * target sends them from its own thread, spooling what cannot be sent, so
 * the recording never waits for a server.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#include "agent/push_queue.h"
#include "agent/series.h"
#include "agent/agent_cmd.h"
#include "capture/alloc_sampling.h"
#include "profile/stacks.h"
#include "record/run_opts.h"
#include "symbolize/debuginfod_fetch.h"
#include "symbolize/ksym_namer.h"
#include "util/clock.h"
#include "util/utf8.h"

#define MAX_TARGETS 8
#define MAX_LABELS 16
#define DEFAULT_FREQ 19
#define DEFAULT_PERIOD_S 15
#define DEFAULT_SPOOL_MAX (256ULL << 20)
/*
 * Unsent pushes held in memory, all targets together, before they go to the
 * spool: a period of a busy host is a few hundred KiB a target, so this is
 * minutes of a server being away, and the agent's memory stays bounded.
 */
#define MEM_QUEUE_MAX (32u << 20)
/* At exit, what a server answering has to take the last pushes; the rest is spooled. */
#define FLUSH_S 4.0

struct push_target {
	enum push_kind kind;
	const char *url;
	char what[2200];		/* "pyroscope=URL", for the log */
	struct push_queue q;
};

struct agent {
	struct record_opts o;
	const char *events;		/* -e's list */
	const char *comm;
	double period_s;
	bool min_age_set;		/* --min-age given */
	struct push_target targets[MAX_TARGETS];
	int ntargets;
	struct push_label labels[MAX_LABELS];
	int nlabels;
	const char *service_name;
	const char *host_name;		/* --label host_name=X: instead of gethostname()'s */
	const char *spool_dir;
	uint64_t spool_max;
	const char *header_file;
	char host[HOST_NAME_MAX + 1];
	struct proc_labels_cache procs;
	struct series_config cfg;
	struct pb_buf enc;
	uint64_t periods, series;
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: stitch agent --push KIND=URL [--push KIND=URL...] [-a | -p PID[,PID...] | --comm NAME]\n"
"                    [-e cpu|offcpu|wall|alloc[,...]] [-F HZ] [--period DURATION]\n"
"                    [--label NAME=VALUE...] [--push-header-file FILE]\n"
"                    [--spool DIR] [--spool-max SIZE] [-d DURATION]\n"
"\n"
"Profile continuously and push, every period, one profile per service and\n"
"profile type to each server: symbolized on this host, with kernel, native\n"
"and interpreter frames.  A series is labelled __name__ (process_cpu,\n"
"off_cpu, wall, memory), service_name (the process's name unless --label sets it),\n"
"host_name, and container_id and pod_uid when the process's cgroup names\n"
"them (docker, containerd, CRI-O, podman; Kubernetes pods).  A server that is\n"
"down is retried with backoff; pushes wait in memory, then in the spool, and\n"
"reach it once it is back.  Runs until SIGINT or SIGTERM, which sends the\n"
"period in progress (or spools it), every target within 4 s.  Exits 1 if\n"
"pushes were lost (refused by a server, dropped over a bound, no spool).\n"
"\n"
"Targets (KIND=URL, http:// or https:// with the system's CAs):\n"
"  pyroscope=URL    Grafana Pyroscope: URL/push.v1.PusherService/Push\n"
"  otlp=URL         an OpenTelemetry collector: URL/v1development/profiles\n"
"  parca=URL        Parca: URL/parca.profilestore.v1alpha1.ProfileStoreService/WriteRaw\n"
"\n"
"Options:\n"
"      --push KIND=URL      where to push (required; repeatable, up to %d)\n"
"  -a, --all                every process (the default)\n"
"  -p, --pid PID[,PID...]   these processes only\n"
"      --comm NAME          the processes named NAME (the whole host is sampled)\n"
"  -e, --event LIST         cpu (default), offcpu (blocked time), wall (both, in\n"
"                           one wall-clock profile, alone); cpu,offcpu for two;\n"
"                           alloc (bytes allocated through glibc's, jemalloc's or\n"
"                           tcmalloc's malloc, by stack: memory, alloc_space/bytes\n"
"                           and alloc_objects/count, as Go's profiles; alone)\n"
"      --alloc-sample SIZE  alloc: one sample per SIZE bytes allocated, on\n"
"                           average (default 512K; each weighs what it stands for)\n"
"      --inuse              alloc: each period, the sampled blocks still allocated\n"
"                           (memory, inuse_space/bytes, inuse_objects/count), by\n"
"                           the stack that allocated them, instead of the bytes\n"
"                           allocated in it;\n"
"                           free and the allocators' returns are traced too\n"
"      --min-age TIME       --inuse: leave out blocks younger than TIME (like 30s)\n"
"  -F, --freq HZ            cpu samples per second (default %d)\n"
"      --period DURATION    one push per period: 15s (default), 1s..3600s\n"
"      --label NAME=VALUE   a label on every series, repeatable; service_name=X names\n"
"                           the service instead of the process, host_name=X the host\n"
"                           instead of its hostname; a value is UTF-8, a NAME given\n"
"                           once, never __name__, __* or container_id, pod_uid\n"
"      --push-header-file FILE\n"
"                           headers sent with every push, one 'Name: value' a line\n"
"                           (Authorization: Bearer ..., X-Scope-OrgID: ...); a file\n"
"                           of ours that only we can read: never a secret on the\n"
"                           command line, where ps shows it\n"
"      --spool DIR          where unsent pushes wait (default: the cache directory's\n"
"                           agent-spool, ~/.cache/stitch or $STITCH_CACHE_DIR); made\n"
"                           0700 if missing, used as it is if ours and writable by\n"
"                           nobody else, never a symbolic link; sent first at the\n"
"                           next start\n"
"      --spool-max SIZE     the spool's bound, shared by the targets: 256M (default),\n"
"                           in bytes or with K, M, G; the oldest pushes go first\n"
"  -d, --duration DURATION  stop after this long: 30s, 2m, 1h, or seconds\n"
"                           (default: SIGINT or SIGTERM)\n"
"      --no-debuginfod      ask no debuginfod server (DEBUGINFOD_URLS) for debug files\n"
"  -h, --help               this help\n"
"\n"
"Examples:\n"
"  sudo stitch agent --push pyroscope=http://pyroscope:4040\n"
"  sudo stitch agent --push otlp=http://otel-collector:4318 -e cpu,offcpu\n"
"  sudo stitch agent --push parca=https://parca.example.com --push-header-file /etc/stitch/parca.headers\n"
"  sudo stitch agent --comm nginx --label env=prod --push pyroscope=http://pyroscope:4040\n"
"contrib/stitch-agent.service runs it under systemd.  Needs root (or CAP_BPF,\n"
"CAP_PERFMON, CAP_SYS_PTRACE and CAP_SYS_RESOURCE).\n",
		MAX_TARGETS, DEFAULT_FREQ);
}

static int fail_usage(const char *fmt, const char *arg)
{
	return cli_usage_error("agent", fmt, arg);
}

/* "256M": bytes, with K, M or G (powers of 1024); 0 if not a size. */
static uint64_t parse_size(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	double scale = 1;

	if (end == s || !(v > 0))
		return 0;
	if (*end == 'K' || *end == 'k')
		scale = 1024.0, end++;
	else if (*end == 'M' || *end == 'm')
		scale = 1024.0 * 1024, end++;
	else if (*end == 'G' || *end == 'g')
		scale = 1024.0 * 1024 * 1024, end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || v * scale < 1 || v * scale > 1e15)
		return 0;
	return (uint64_t)(v * scale);
}

/* HOST[:PORT] or [IPv6][:PORT] of n bytes: a host, and a port 1-65535 if any. */
static bool url_authority_ok(const char *h, size_t n)
{
	const char *end = h + n, *port;
	unsigned long v = 0;

	if (n && h[0] == '[') {
		const char *close = memchr(h, ']', n);

		if (!close || close == h + 1)
			return false;
		port = close + 1 < end ? close + 1 : NULL;
		if (port && *port != ':')
			return false;
	} else {
		port = memchr(h, ':', n);
		if ((port ? port : end) == h)
			return false;
	}
	if (!port)
		return true;
	if (++port == end)
		return false;
	for (; port < end; port++) {
		if (*port < '0' || *port > '9')
			return false;
		v = v * 10 + (unsigned long)(*port - '0');
		if (v > 65535)
			return false;
	}
	return v > 0;
}

static int take_push(struct agent *a, const char *arg)
{
	const char *eq = strchr(arg, '='), *host;
	struct push_target *t;
	int kind, i;

	if (!eq)
		return fail_usage("--push: '%s' is not KIND=URL (pyroscope=, otlp= or parca=)",
				  arg);
	kind = push_kind_by_name(arg, eq - arg);
	if (kind < 0)
		return fail_usage("--push: '%s': the kinds are pyroscope, otlp and parca", arg);
	if (strncmp(eq + 1, "http://", 7) && strncmp(eq + 1, "https://", 8))
		return fail_usage("--push: '%s': the URL starts with http:// or https://", arg);
	/* user:password@ in the URL is a secret where ps shows it. */
	host = strstr(eq + 1, "//") + 2;
	if (memchr(host, '@', strcspn(host, "/?#")))
		return fail_usage("--push %s=URL: no credentials in the URL, where ps shows "
				  "them (nor here): put an Authorization header in "
				  "--push-header-file", push_wires[kind].name);
	/* A URL that can never reach a server is said now, not retried forever. */
	if (!url_authority_ok(host, strcspn(host, "/?#")))
		return fail_usage("--push: '%s': the URL needs a host, and a port from 1 to "
				  "65535 if it gives one (http://HOST[:PORT][/PATH])", arg);
	if (a->ntargets == MAX_TARGETS)
		return fail_usage("--push: at most 8 targets (%s is one too many)", arg);
	/* One queue and spool directory a server: twice would send each period twice. */
	for (i = 0; i < a->ntargets; i++)
		if (!strcmp(a->targets[i].what, arg))
			return fail_usage("--push %s given twice", arg);
	t = &a->targets[a->ntargets++];
	t->kind = kind;
	t->url = eq + 1;
	snprintf(t->what, sizeof(t->what), "%s", arg);
	return 0;
}

static int take_label(struct agent *a, const char *arg)
{
	const char *eq = strchr(arg, '=');
	size_t nl = eq ? (size_t)(eq - arg) : 0;
	char *name;
	int i;

	if (!eq || !nl || !eq[1] || strspn(arg, "abcdefghijklmnopqrstuvwxyz"
					  "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != nl ||
	    (arg[0] >= '0' && arg[0] <= '9'))
		return fail_usage("--label: '%s' is not NAME=VALUE (NAME: letters, digits, _)",
				  arg);
	/* Protobuf's strings are UTF-8: a backend refuses the whole push otherwise. */
	if (!utf8_valid(eq + 1, strlen(eq + 1)))
		return fail_usage("--label: '%s': the value is not UTF-8 (every backend would "
				  "refuse each push with it)", arg);
	if (nl == 8 && !strncmp(arg, "__name__", 8))
		return fail_usage("--label: '%s': __name__ is the profile type's, set by -e", arg);
	if (nl >= 2 && !strncmp(arg, "__", 2))
		return fail_usage("--label: '%s': names starting with __ are the backends' own",
				  arg);
	if (nl == 12 && !strncmp(arg, "service_name", 12)) {
		if (a->service_name)
			return fail_usage("--label: '%s': service_name given twice", arg);
		a->service_name = eq + 1;
		return 0;
	}
	if (nl == 9 && !strncmp(arg, "host_name", 9)) {
		if (a->host_name)
			return fail_usage("--label: '%s': host_name given twice", arg);
		a->host_name = eq + 1;
		return 0;
	}
	if ((nl == 12 && !strncmp(arg, "container_id", 12)) || (nl == 7 && !strncmp(arg, "pod_uid", 7)))
		return fail_usage("--label: '%s': the agent sets it per process, from its cgroup",
				  arg);
	for (i = 0; i < a->nlabels; i++)
		if (strlen(a->labels[i].name) == nl && !strncmp(a->labels[i].name, arg, nl))
			return fail_usage("--label: '%s': that name is given twice", arg);
	if (a->nlabels == MAX_LABELS)
		return fail_usage("--label: at most 16 labels (%s is one too many)", arg);
	name = strndup(arg, nl);
	if (!name)
		return fail_usage("--label: out of memory at '%s'", arg);
	a->labels[a->nlabels++] = (struct push_label){ name, eq + 1 };
	return 0;
}

enum { OPT_PUSH = 256, OPT_COMM, OPT_PERIOD, OPT_LABEL, OPT_SPOOL, OPT_SPOOL_MAX,
       OPT_HEADER_FILE, OPT_ALLOC_SAMPLE, OPT_INUSE, OPT_MIN_AGE };

/* agent's own options; the ones it shares with record are in run_opts.h. */
static const struct option longopts[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "push", required_argument, NULL, OPT_PUSH },
	{ "comm", required_argument, NULL, OPT_COMM },
	{ "period", required_argument, NULL, OPT_PERIOD },
	{ "label", required_argument, NULL, OPT_LABEL },
	{ "spool", required_argument, NULL, OPT_SPOOL },
	{ "spool-max", required_argument, NULL, OPT_SPOOL_MAX },
	{ "push-header-file", required_argument, NULL, OPT_HEADER_FILE },
	{ "alloc-sample", required_argument, NULL, OPT_ALLOC_SAMPLE },
	{ "inuse", no_argument, NULL, OPT_INUSE },
	{ "min-age", required_argument, NULL, OPT_MIN_AGE },
	{ NULL, 0, NULL, 0 },
};

/* One of stitch agent's own options: a cli_opt_fn. */
static int take_opt(void *ctx, int c, const char *arg)
{
	struct agent *a = ctx;
	uint64_t v;

	switch (c) {
	case 'e':
		a->events = arg;
		return 0;
	case OPT_PUSH:
		return take_push(a, arg);
	case OPT_COMM:
		a->comm = arg;
		return 0;
	case OPT_PERIOD:
		v = cli_parse_time_in(arg, 1000000000ULL, 1000000000ULL);
		if (!v)
			return fail_usage("--period: '%s' is not a time from 1s to 3600s (like 15s)",
					  arg);
		a->period_s = v / 1e9;
		return 0;
	case OPT_LABEL:
		return take_label(a, arg);
	case OPT_SPOOL:
		a->spool_dir = arg;
		return 0;
	case OPT_SPOOL_MAX:
		a->spool_max = parse_size(arg);
		if (!a->spool_max)
			return fail_usage("--spool-max: '%s' is not a size (like 256M, 1G)", arg);
		return 0;
	case OPT_HEADER_FILE:
		a->header_file = arg;
		return 0;
	case OPT_ALLOC_SAMPLE:
		if (!alloc_parse_period(arg, &a->o.alloc_period))
			return fail_usage("--alloc-sample: '%s' is not a size of 1 byte to 1G (like "
					  "512K, 16K, 1M; 1 records every allocation)", arg);
		return 0;
	case OPT_INUSE:
		a->o.inuse = true;
		return 0;
	case OPT_MIN_AGE:
		a->o.min_age_ns = strcmp(arg, "0") ? cli_parse_time(arg) : 0;
		if (!a->o.min_age_ns && strcmp(arg, "0"))
			return fail_usage("--min-age: '%s' is not a time up to 1h "
					  "(like 30s, 5m, 500ms; 0 keeps every block)", arg);
		a->min_age_set = true;
		return 0;
	}
	return 0;
}

static const struct run_cmd agent_run_cmd = {
	.name = "agent",
	.usage = usage,
	.shared = RUN_OPT_PID | RUN_OPT_ALL | RUN_OPT_FREQ | RUN_OPT_DURATION |
		  RUN_OPT_DEBUGINFOD,
	.default_freq = DEFAULT_FREQ,
	.shortopts = "e:",
	.longopts = longopts,
	.take = take_opt,
	.target_what = "what to profile",
	.target_choices = "-a (the default), -p PID or --comm NAME",
};

/* -e's list into the engine's events: cpu, offcpu, or wall or alloc alone.  0, or 2. */
static int take_events(struct agent *a)
{
	char list[256], *tok, *save = NULL, err[256];
	bool seen[4] = { false };
	static const char *const names[] = { "cpu", "offcpu", "wall", "alloc" };
	int i;

	snprintf(list, sizeof(list), "%s", a->events ? a->events : "cpu");
	a->cfg.cpu_idx = -1;
	a->cfg.alloc_idx = -1;
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < 4 && strcmp(tok, names[i]); i++)
			;
		if (i == 4)
			return fail_usage("-e: '%s' is not cpu, offcpu, wall or alloc", tok);
		if (seen[i])
			return fail_usage("-e: %s given twice", tok);
		seen[i] = true;
		if (i == 0)
			a->cfg.cpu_idx = a->o.nevents;
		if (i == 2)
			a->cfg.cpu_idx = a->o.nevents;	/* wall adds cpu, then offcpu */
		if (i == 3)
			a->cfg.alloc_idx = a->o.nevents;
		if (record_opts_add_event(&a->o, tok, err, sizeof(err))) {
			fprintf(stderr, "stitch agent: -e %s: %s\n", tok, err);
			return 1;
		}
	}
	if (seen[2] && (seen[0] || seen[1]))
		return fail_usage("-e: %s: wall is cpu and offcpu weighed together: give it alone",
				  a->events);
	if (seen[3] && (seen[0] || seen[1] || seen[2]))
		return fail_usage("-e: %s: alloc weighs stacks in bytes, the others in counts or "
				  "time: give it alone", a->events);
	if (a->o.alloc_period && !seen[3])
		return fail_usage("%s", "--alloc-sample goes with -e alloc");
	if (a->o.inuse && !seen[3])
		return fail_usage("%s", "--inuse goes with -e alloc (the allocations not freed)");
	if (a->min_age_set && !a->o.inuse)
		return fail_usage("%s", "--min-age goes with -e alloc --inuse");
	a->cfg.inuse = a->o.inuse;
	a->cfg.wall = seen[2];
	return 0;
}

static int parse_opts(struct agent *a, int argc, char **argv)
{
	struct run_outputs out = { 0 };
	struct run_args ra = { .o = &a->o, .out = &out };
	struct target *t = &a->o.target;
	int rc;

	a->period_s = DEFAULT_PERIOD_S;
	a->spool_max = DEFAULT_SPOOL_MAX;
	rc = run_opts_parse(&agent_run_cmd, argc, argv, &ra, a);
	if (rc)
		return rc;
	if (t->command)
		return fail_usage("%s", "no -- COMMAND: the agent profiles what runs (-a, -p PID "
				  "or --comm NAME); stitch record runs a command");
	if (a->comm && (t->npids || t->all))
		return fail_usage("--comm %s: give one of -a, -p PID and --comm NAME", a->comm);
	if (!t->npids)
		t->all = true;		/* -a by default, --comm filters it */
	rc = run_target_check(&agent_run_cmd, &ra);
	if (rc)
		return rc;
	if (!a->ntargets)
		return fail_usage("%s", "say where to push with --push KIND=URL (pyroscope=, "
				  "otlp= or parca=)");
	if (a->o.duration && a->o.duration < 1)
		return fail_usage("-d: at least 1 second (%s)", "a period needs time");
	rc = take_events(a);
	if (rc)
		return rc;
	return run_opts_ready(&agent_run_cmd, &ra);
}

/* One series, encoded for each target and queued there. */
static void queue_series(void *ctx, const struct push_series *s, uint32_t index)
{
	struct agent *a = ctx;
	int i;

	a->series++;
	for (i = 0; i < a->ntargets; i++) {
		struct push_target *t = &a->targets[i];

		pb_buf_reset(&a->enc);
		if (push_wires[t->kind].encode(s, 1, &a->enc) || a->enc.oom) {
			fprintf(stderr, "stitch agent: %s: a push could not be encoded (out of "
				"memory)\n", t->what);
			a->enc.oom = false;
			continue;
		}
		push_queue_add(&t->q, s->start_ns, index, a->enc.data, a->enc.len);
	}
}

/* The engine's period hook: the period's stacks, as series, to every target. */
static int on_period(void *ctx, const struct record_result *res)
{
	struct agent *a = ctx;
	uint64_t series = a->series;
	double t0 = mono_s();
	int err;

	a->periods++;
	/*
	 * Each period's naming has debuginfod's budget of a recording (3 s):
	 * with the run's, a long agent spent it in its first periods and
	 * never fetched again, leaving binaries started later unnamed.
	 */
	debuginfod_new_budget();
	err = series_of_period(&a->cfg, res->stacks, res->bins, res->start_unix_ns,
			       res->end_unix_ns, queue_series, a);
	if (err)
		fprintf(stderr, "stitch agent: a period's profiles: %s\n", strerror(-err));
	/* What a period costs the recording loop, which waits meanwhile (the ring fills). */
	if (getenv("STITCH_DEBUG")) {
		/* The heap in use, all arenas: what is held, apart from fragments (mallinfo2). */
		struct mallinfo2 mi = mallinfo2();

		fprintf(stderr, "stitch agent: period %" PRIu64 ": %.2f s, %zu stacks, %" PRIu64
			" series, built and queued in %.1f ms; heap in use %zu KiB, free %zu KiB\n",
			a->periods, res->seconds, res->stacks->map.count, a->series - series,
			(mono_s() - t0) * 1e3, (mi.uordblks + mi.hblkhd) >> 10, mi.fordblks >> 10);
	}
	/* Exited processes' labels go, so churn does not grow the cache. */
	proc_labels_sweep(&a->procs);
	return 0;
}

/* Every target's connection, spool directory and sending thread.  0, or 1. */
static int start_targets(struct agent *a)
{
	char **headers = NULL, err[PATH_MAX + 256], root[PATH_MAX];
	int nheaders = 0, rootfd, i, rc = 0;

	if (a->header_file &&
	    push_headers_read(a->header_file, &headers, &nheaders, err, sizeof(err))) {
		fprintf(stderr, "stitch agent: --push-header-file %s\n", err);
		return 1;
	}
	rootfd = spool_root_open(a->spool_dir, root, sizeof(root));
	if (rootfd < 0 && a->spool_dir) {
		push_headers_free(headers, nheaders);
		return 1;
	}
	for (i = 0; i < a->ntargets && !rc; i++) {
		struct push_target *t = &a->targets[i];
		struct spool_dir sd = { .fd = -1 };
		struct push_conn conn;

		if (push_conn_open(&conn, t->kind, t->url, (const char *const *)headers, nheaders,
				   err, sizeof(err))) {
			fprintf(stderr, "stitch agent: --push %s: %s\n", t->what, err);
			rc = 1;
			break;
		}
		/* A spool we cannot hold is no reason to stop, unless --spool named it. */
		if (rootfd >= 0 && spool_dir_open(&sd, rootfd, root, t->kind, t->url) &&
		    a->spool_dir) {
			push_conn_close(&conn);
			rc = 1;
			break;
		}
		if (push_queue_start(&t->q, t->what, &conn, &sd, MEM_QUEUE_MAX / a->ntargets,
				     a->spool_max / a->ntargets, a->period_s)) {
			push_conn_close(&conn);
			spool_dir_close(&sd);
			rc = 1;
			break;
		}
	}
	/* Targets started before a failure stop (and spool) with the rest. */
	if (rc)
		a->ntargets = i;
	if (rootfd >= 0)
		close(rootfd);
	push_headers_free(headers, nheaders);
	return rc;
}

/*
 * Every target stops at once, against one deadline: a server that never
 * answers holds the exit up FLUSH_S at most, however many there are.  The
 * pushes lost (refused, dropped, unsent with no spool), all targets'.
 */
static uint64_t stop_targets(struct agent *a)
{
	double deadline = mono_s() + FLUSH_S;
	uint64_t lost = 0;
	int i;

	for (i = 0; i < a->ntargets; i++)
		if (a->targets[i].q.started)
			push_queue_stop_begin(&a->targets[i].q, deadline);
	for (i = 0; i < a->ntargets; i++)
		push_queue_stop(&a->targets[i].q, deadline);
	for (i = 0; i < a->ntargets; i++) {
		if (!a->targets[i].q.started)
			continue;
		fprintf(stderr, "stitch agent: %s: %" PRIu64 " push%s sent\n", a->targets[i].what,
			a->targets[i].q.sent, a->targets[i].q.sent == 1 ? "" : "es");
		lost += push_queue_lost(&a->targets[i].q);
	}
	return lost;
}

int cmd_agent(int argc, char **argv)
{
	struct agent *a = calloc(1, sizeof(*a));
	struct record_hooks hooks = { 0 };
	uint64_t lost;
	int rc, i;

	if (!a) {
		fprintf(stderr, "stitch agent: out of memory\n");
		return 1;
	}
	rc = parse_opts(a, argc, argv);
	if (rc)
		goto out;
	if (a->host_name)
		snprintf(a->host, sizeof(a->host), "%s", a->host_name);
	else if (gethostname(a->host, sizeof(a->host)))
		snprintf(a->host, sizeof(a->host), "unknown");
	a->host[sizeof(a->host) - 1] = '\0';
	if (proc_labels_init(&a->procs) || curl_global_init(CURL_GLOBAL_DEFAULT)) {
		fprintf(stderr, "stitch agent: out of memory\n");
		rc = 1;
		goto out;
	}
	a->cfg.event_names = a->o.event_names;
	a->cfg.nevents = a->o.nevents;
	a->cfg.freq = a->o.freq;
	a->cfg.comm = a->comm;
	a->cfg.service_name = a->service_name;
	a->cfg.extra = a->labels;
	a->cfg.nextra = a->nlabels;
	a->cfg.host_name = a->host;
	a->cfg.procs = &a->procs;
	rc = start_targets(a);
	if (!rc) {
		hooks.ctx = a;
		hooks.period_s = a->period_s;
		hooks.period = on_period;
		rc = record_run(&a->o, &hooks);
		fprintf(stderr, "stitch agent: %" PRIu64 " period%s, %" PRIu64 " series\n",
			a->periods, a->periods == 1 ? "" : "s", a->series);
	}
	lost = stop_targets(a);
	/* A run that lost data says so in its status too: a supervisor can see it. */
	if (lost) {
		fprintf(stderr, "stitch agent: %" PRIu64 " push%s lost in all (see above)\n", lost,
			lost > 1 ? "es" : "");
		if (!rc)
			rc = 1;
	}
	ksym_namer_close(a->cfg.kn);
	curl_global_cleanup();
	proc_labels_free(&a->procs);
out:
	pb_buf_free(&a->enc);
	for (i = 0; i < a->nlabels; i++)
		free((char *)a->labels[i].name);
	record_opts_free(&a->o);
	free(a);
	return rc;
}
