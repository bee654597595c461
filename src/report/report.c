// SPDX-License-Identifier: GPL-2.0
/*
 * stitch report: read a profile (pprof or folded), filter it, write it in
 * any format.  stitch diff: draw what changed between two profiles.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/cli.h"
#include "report/report_cmd.h"
#include "profile/filter.h"
#include "formats/input.h"
#include "formats/output.h"
#include "util/outfile.h"

struct report_opts {
	const char *cmd;	/* report or diff, for messages */
	const char *output;
	int format;
	int top;
	bool inverted;
	bool force;
	struct profile_filter filter;
};

enum { OPT_PID = 256, OPT_TID, OPT_COMM, OPT_FOCUS, OPT_HIDE, OPT_INVERTED, OPT_TOP, OPT_FORCE };

static const struct option report_longopts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "tid", required_argument, NULL, OPT_TID },
	{ "comm", required_argument, NULL, OPT_COMM },
	{ "focus", required_argument, NULL, OPT_FOCUS },
	{ "hide", required_argument, NULL, OPT_HIDE },
	{ "inverted", no_argument, NULL, OPT_INVERTED },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The options report and diff share, after each one's own lines. */
static void options_usage(FILE *f)
{
	fprintf(f,
"\n"
"Filters:\n"
"  --pid PID          only this process (pprof input: folded has no pids)\n"
"  --tid TID          only this thread (pprof input)\n"
"  --comm COMM        only this command name\n"
"  --focus REGEX      only stacks through a frame matching REGEX\n"
"  --hide REGEX       drop frames matching REGEX from every stack\n"
"  --inverted         innermost frames first (an icicle graph for .svg)\n"
"  --top N            stacks shown in the text summary (default 10)\n"
"  -o, --output OUT   where to write (see above): written whole or not at all,\n"
"                     through a new file renamed over OUT\n"
"  --force            replace OUT even if it is a symlink (the link itself is\n"
"                     replaced; what it points to is never written)\n"
"REGEX is a POSIX extended regular expression matched against frame names.\n");
}

static void report_usage(FILE *f)
{
	fprintf(f,
"Usage: stitch report FILE [-o OUT] [FILTERS]\n"
"\n"
"Convert and filter a profile: FILE is pprof (.pb.gz) or folded stacks.  The\n"
"name of OUT sets the format: FILE.svg, FILE.pb.gz, FILE.speedscope.json,\n"
"FILE.folded, FILE.txt or - (a summary on stdout; the default).\n");
	options_usage(f);
}

static void diff_usage(FILE *f)
{
	fprintf(f,
"Usage: stitch diff BEFORE AFTER -o OUT.svg [FILTERS]\n"
"\n"
"Draw AFTER as a flame graph coloured by how each frame changed since BEFORE\n"
"(shares of each profile's total: red grew, blue shrank).  BEFORE and AFTER are\n"
"pprof (.pb.gz) or folded files.\n");
	options_usage(f);
}

static const struct cli_cmd report_cmd = { "report", report_usage, "o:h", report_longopts };
static const struct cli_cmd diff_cmd = { "diff", diff_usage, "o:h", report_longopts };

static int parse_id(const char *s, int64_t *out)
{
	long v;

	if (!cli_parse_long(s, 0, 0x7fffffff, &v))
		return -EINVAL;
	*out = v;
	return 0;
}

/* One option of stitch report or diff: a cli_opt_fn. */
static int take_opt(void *ctx, int c, const char *arg)
{
	struct report_opts *o = ctx;
	char err[512];
	int64_t v;

	switch (c) {
	case 'o':
		/* One file a run: a second -o was silently the only one written */
		if (o->output)
			return cli_usage_error(o->cmd, "%s", "one -o a run (it writes one file: run "
					       "it again for another format)");
		o->output = arg;
		break;
	case OPT_PID:
	case OPT_TID:
		if (parse_id(arg, c == OPT_PID ? &o->filter.pid : &o->filter.tid)) {
			fprintf(stderr, "stitch %s: --%s: '%s' is not an id\n", o->cmd,
				c == OPT_PID ? "pid" : "tid", arg);
			return 2;
		}
		break;
	case OPT_COMM:
		o->filter.comm = arg;
		break;
	case OPT_FOCUS:
	case OPT_HIDE:
		if (filter_set_regex(&o->filter, c == OPT_FOCUS, arg, err, sizeof(err))) {
			fprintf(stderr, "stitch %s: %s\n", o->cmd, err);
			return 2;
		}
		break;
	case OPT_INVERTED:
		o->inverted = true;
		break;
	case OPT_FORCE:
		o->force = true;
		break;
	case OPT_TOP:
		if (parse_id(arg, &v) || v == 0) {
			fprintf(stderr, "stitch %s: --top: '%s' is not a positive count\n", o->cmd,
				arg);
			return 2;
		}
		o->top = (int)v;
		break;
	}
	return 0;
}

/* Parse options; the positional arguments are left at argv[optind..]. */
static int parse_report_opts(int argc, char **argv, const struct cli_cmd *cmd,
			     struct report_opts *o)
{
	char err[512];
	int rc;

	o->cmd = cmd->name;
	o->top = 10;
	filter_init(&o->filter);
	rc = cli_parse(cmd, argc, argv, take_opt, o);
	if (rc)
		return rc;
	if (!o->output)
		o->output = "-";
	o->format = output_format_for(o->output);
	if (o->format < 0) {
		fprintf(stderr, "stitch %s: -o: cannot tell the format of '%s': use %s\n", o->cmd,
			o->output, OUTPUT_EXTENSIONS);
		return 2;
	}
	/* Found now, not after reading the inputs. */
	if (strcmp(o->output, "-") && outfile_check(o->output, o->force, err, sizeof(err))) {
		fprintf(stderr, "stitch %s: cannot write %s\n", o->cmd, err);
		return 1;
	}
	/* An icicle for graphs; reversed stacks for every other format. */
	o->filter.reverse = o->inverted && o->format != OUTPUT_SVG;
	return 0;
}

/* Read and filter one input; 0 or an exit status. */
static int load(const char *cmd, const char *path, const struct report_opts *o,
		struct profile *out)
{
	struct profile raw;
	char err[512] = "";
	int rc;

	rc = profile_read_file(path, &raw, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "stitch %s: %s\n", cmd, err[0] ? err : strerror(-rc));
		profile_free(&raw);
		return 1;
	}
	if (raw.names_cut)
		fprintf(stderr, "stitch %s: %s: %" PRIu64 " frame names cut short (a NUL byte, or "
			"over 4 KiB), marked with '...'\n", cmd, path, raw.names_cut);
	if (raw.saturated)
		fprintf(stderr, "stitch %s: %s: counts add up past 2^53 and the totals saturated "
			"there: shares are not exact\n", cmd, path);
	if (filter_is_empty(&o->filter)) {
		*out = raw;
		return 0;
	}
	rc = profile_filter(&raw, out, &o->filter);
	profile_free(&raw);
	if (rc) {
		fprintf(stderr, "stitch %s: %s\n", cmd, strerror(-rc));
		profile_free(out);
		return 1;
	}
	return 0;
}

static int write_out(const char *cmd, const struct report_opts *o, const struct profile *p,
		     const struct profile *base)
{
	char err[PATH_MAX + 128] = "";
	struct output_opts oo = {
		.top = o->top,
		.inverted = o->inverted,
		.diff_base = base,
		.force = o->force,
		.err = err,
		.errlen = sizeof(err),
	};
	int rc = output_write(o->output, o->format, p, &oo);

	if (rc) {
		fprintf(stderr, "stitch %s: cannot write %s\n", cmd,
			err[0] ? err : strerror(-rc));
		return 1;
	}
	return 0;
}

/* n input files after the options: 0, or the usage error what says. */
static int want_inputs(const struct report_opts *o, int argc, int n, const char *what)
{
	return argc - optind == n ? 0 : cli_usage_error(o->cmd, "%s", what);
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o = { 0 };
	struct profile p;
	int rc;

	rc = parse_report_opts(argc, argv, &report_cmd, &o);
	if (!rc)
		rc = want_inputs(&o, argc, 1, "give one input file");
	if (!rc)
		rc = load("report", argv[optind], &o, &p);
	if (!rc) {
		rc = write_out("report", &o, &p, NULL);
		profile_free(&p);
	}
	filter_free(&o.filter);
	return rc;
}

int cmd_diff(int argc, char **argv)
{
	struct report_opts o = { 0 };
	struct profile before, after;
	int rc;

	rc = parse_report_opts(argc, argv, &diff_cmd, &o);
	if (!rc)
		rc = want_inputs(&o, argc, 2, "give two input files, BEFORE and AFTER");
	if (!rc && o.format != OUTPUT_SVG) {
		fprintf(stderr, "stitch diff: writes a differential flame graph: use -o FILE.svg\n");
		rc = 2;
	}
	if (!rc)
		rc = load("diff", argv[optind], &o, &before);
	if (!rc) {
		rc = load("diff", argv[optind + 1], &o, &after);
		if (!rc) {
			rc = write_out("diff", &o, &after, &before);
			profile_free(&after);
		}
		profile_free(&before);
	}
	filter_free(&o.filter);
	return rc;
}
