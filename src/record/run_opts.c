// SPDX-License-Identifier: GPL-2.0
/* The options record, stalls and latency share (run_opts.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/output.h"
#include "kernel/features.h"
#include "record/run_opts.h"
#include "symbolize/debuginfod_fetch.h"
#include "util/privileges.h"

/* The long-only shared options' codes, clear of a command's own (256 up). */
enum { RUN_WAKERS = 0x1000, RUN_FORCE, RUN_NO_DEBUGINFOD };

/* The one table of the shared options, in the order getopt_long sees them. */
static const struct {
	struct option opt;
	unsigned bit;
} shared_opts[] = {
	{ { "pid", required_argument, NULL, 'p' }, RUN_OPT_PID },
	{ { "all", no_argument, NULL, 'a' }, RUN_OPT_ALL },
	{ { "freq", required_argument, NULL, 'F' }, RUN_OPT_FREQ },
	{ { "duration", required_argument, NULL, 'd' }, RUN_OPT_DURATION },
	{ { "output", required_argument, NULL, 'o' }, RUN_OPT_OUTPUT },
	{ { "wakers", no_argument, NULL, RUN_WAKERS }, RUN_OPT_WAKERS },
	{ { "force", no_argument, NULL, RUN_FORCE }, RUN_OPT_OUTPUT },
	{ { "no-debuginfod", no_argument, NULL, RUN_NO_DEBUGINFOD }, RUN_OPT_DEBUGINFOD },
};

#define NSHARED (sizeof(shared_opts) / sizeof(shared_opts[0]))

/* A pid or tid of -p, traced as its whole thread group: a cli_pid_fn. */
static int add_pid(void *ctx, long v)
{
	struct target *t = ctx;
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
	if (t->npids == MAX_PIDS)
		return -E2BIG;
	t->pids[t->npids++] = (uint32_t)tgid;
	return 0;
}

/* What the parse hands on: the command, the shared options' home, its own context. */
struct parse_ctx {
	const struct run_cmd *cmd;
	struct run_args *a;
	void *ctx;
};

static int fail_usage(const struct run_cmd *cmd, const char *fmt, const char *arg)
{
	return cli_usage_error(cmd->name, fmt, arg);
}

/* One option: a shared one here, the command's own to its take (a cli_opt_fn). */
static int take_opt(void *ctx, int c, const char *arg)
{
	struct parse_ctx *pc = ctx;
	const struct run_cmd *cmd = pc->cmd;
	struct record_opts *o = pc->a->o;
	struct run_outputs *out = pc->a->out;
	long v;

	switch (c) {
	case 'p':
		if (cmd->pids_after_outputs) {
			pc->a->pid_list = arg;
			return 0;
		}
		return cli_parse_pids(cmd->name, arg, NULL, add_pid, &o->target);
	case 'a':
		o->target.all = true;
		return 0;
	case 'F':
		if (!cli_parse_long(arg, 1, 100000, &v))
			return fail_usage(cmd, "-F: '%s' is not a frequency in Hz (1..100000)",
					  arg);
		o->freq = v;
		return 0;
	case 'd':
		if (!cli_parse_duration(arg, 1e7, &o->duration))
			return fail_usage(cmd, "-d: '%s' is not a duration (seconds, or "
					  "like 500ms, 30s, 2m, 1h)", arg);
		return 0;
	case 'o':
		if ((cmd->json_outputs ? output_add_json : output_add)(cmd->name, out->paths,
								     out->formats, &out->n,
								     MAX_OUTPUTS, arg))
			return 2;
		return 0;
	case RUN_WAKERS:
		o->wakers = true;
		return 0;
	case RUN_FORCE:
		out->force = true;
		return 0;
	case RUN_NO_DEBUGINFOD:
		debuginfod_disable();
		return 0;
	}
	return cmd->take(pc->ctx, c, arg);
}

/*
 * getopt_long's tables for cmd: the shared options it takes, then its own,
 * then --help.  0, or -ENOMEM.
 */
static int build_tables(const struct run_cmd *cmd, struct option **longopts, char **shortopts)
{
	size_t nown = 0, n = 0, len, i;
	struct option *lo;
	char *so;

	while (cmd->longopts[nown].name)
		nown++;
	lo = calloc(NSHARED + nown + 2, sizeof(*lo));
	so = malloc(strlen(cmd->shortopts) + 2 * NSHARED + 3);
	if (!lo || !so) {
		free(lo);
		free(so);
		return -ENOMEM;
	}
	len = sprintf(so, "+%s", cmd->shortopts);
	for (i = 0; i < NSHARED; i++) {
		const struct option *s = &shared_opts[i].opt;

		if (!(cmd->shared & shared_opts[i].bit))
			continue;
		lo[n++] = *s;
		if (s->val < 256)
			len += sprintf(so + len, "%c%s", s->val,
				       s->has_arg == required_argument ? ":" : "");
	}
	memcpy(lo + n, cmd->longopts, nown * sizeof(*lo));
	lo[n + nown] = (struct option){ "help", no_argument, NULL, 'h' };
	strcpy(so + len, "h");
	*longopts = lo;
	*shortopts = so;
	return 0;
}

int run_opts_parse(const struct run_cmd *cmd, int argc, char **argv, struct run_args *a,
		   void *ctx)
{
	struct parse_ctx pc = { .cmd = cmd, .a = a, .ctx = ctx };
	struct cli_cmd cc = { .name = cmd->name, .usage = cmd->usage };
	struct option *longopts;
	char *shortopts;
	int rc;

	record_opts_init(a->o);
	a->o->freq = cmd->default_freq;
	if (build_tables(cmd, &longopts, &shortopts)) {
		fprintf(stderr, "stitch %s: out of memory\n", cmd->name);
		return 1;
	}
	cc.shortopts = shortopts;
	cc.longopts = longopts;
	rc = cli_parse(&cc, argc, argv, take_opt, &pc);
	free(longopts);
	free(shortopts);
	if (rc)
		return rc;
	if (optind < argc)
		a->o->target.command = &argv[optind];
	return 0;
}

int run_target_check(const struct run_cmd *cmd, const struct run_args *a)
{
	const struct target *t = &a->o->target;

	return cli_one_target(cmd->name, t->all + (t->npids > 0 || a->pid_list) +
				  (t->command != NULL), cmd->target_what, cmd->target_choices);
}

int run_opts_ready(const struct run_cmd *cmd, struct run_args *a)
{
	char who[64];

	/* A typo in -o is found now, not after a long recording. */
	if (output_check_all(cmd->name, a->out->paths, a->out->n, a->out->force))
		return 1;
	/* Each of -p's pids exists, said plainly; then taken as the others take them. */
	if (a->pid_list && (cli_check_pids(cmd->name, a->pid_list) ||
			    cli_parse_pids(cmd->name, a->pid_list, NULL, add_pid, &a->o->target)))
		return 1;
	snprintf(who, sizeof(who), "stitch %s", cmd->name);
	return check_tracing_privileges(who) || kfeat_require_basics(who) ? 1 : 0;
}
