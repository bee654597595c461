/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The options every command that drives the engine shares, in one table:
 * the target (-p, -a, -- COMMAND), -F, -d, -o with --force, --wakers,
 * --no-debuginfod.  A
 * command names the ones it takes and adds its own; run_opts_parse() fills
 * the engine's typed options (record/engine.h) and the command's outputs.
 */
#ifndef STITCH_RUN_OPTS_H
#define STITCH_RUN_OPTS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "record/engine.h"
#include "util/cli.h"

#define MAX_OUTPUTS 8

/* -o FILE..., --force: where a command writes, each checked before it runs. */
struct run_outputs {
	const char *paths[MAX_OUTPUTS];
	int formats[MAX_OUTPUTS];	/* enum output_format */
	int n;
	bool force;			/* -o may replace a symlink */
};

/* The shared options a command takes (run_cmd.shared). */
enum {
	RUN_OPT_PID = 1 << 0,		/* -p, --pid PID[,PID...] */
	RUN_OPT_ALL = 1 << 1,		/* -a, --all */
	RUN_OPT_FREQ = 1 << 2,		/* -F, --freq HZ */
	RUN_OPT_DURATION = 1 << 3,	/* -d, --duration SECONDS */
	RUN_OPT_OUTPUT = 1 << 4,	/* -o, --output FILE; --force */
	RUN_OPT_WAKERS = 1 << 5,	/* --wakers */
	RUN_OPT_DEBUGINFOD = 1 << 6,	/* --no-debuginfod */
};

/* A command: its shared options, its own, and how it says its target. */
struct run_cmd {
	const char *name;		/* stitch NAME */
	void (*usage)(FILE *f);		/* --help */
	unsigned shared;		/* RUN_OPT_* */
	int default_freq;		/* -F's default, in Hz */
	const char *shortopts;		/* its own options' letters, getopt's way */
	const struct option *longopts;	/* its own long options, up to a NULL name */
	cli_opt_fn take;		/* one of its own options */
	bool json_outputs;		/* -o FILE.json: its own numbers (output_add_json) */
	/*
	 * -p's processes looked at once -o's files are checked (run_opts_ready),
	 * a token that is no pid said plainly (exit 1), not as a usage error.
	 */
	bool pids_after_outputs;
	const char *target_what;	/* "say WHAT with exactly one of: CHOICES" */
	const char *target_choices;
};

/* What the shared options fill. */
struct run_args {
	struct record_opts *o;
	struct run_outputs *out;
	const char *pid_list;		/* pids_after_outputs: -p's list until then */
};

/*
 * argv's options: the shared ones into a (a->o starting from
 * record_opts_init() and cmd's -F), the command's own to cmd->take(ctx)
 * (cli_parse's rules: --help exits), then -- COMMAND.  0, or the exit status.
 */
int run_opts_parse(const struct run_cmd *cmd, int argc, char **argv, struct run_args *a,
		   void *ctx);

/* Exactly one target (cli_one_target, in the command's words): 0, or 2. */
int run_target_check(const struct run_cmd *cmd, const struct run_args *a);

/*
 * Before any work: every output can be written, -p's processes exist
 * (pids_after_outputs), we may trace.  0, or the exit status (1).
 */
int run_opts_ready(const struct run_cmd *cmd, struct run_args *a);

#endif /* STITCH_RUN_OPTS_H */
