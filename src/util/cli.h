/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every stitch command's option parsing shares: the walk over the
 * options with --help and refused options, the usage error, integer and
 * time arguments checked in full, -p's list of processes, and the rule of
 * exactly one target.
 */
#ifndef STITCH_CLI_H
#define STITCH_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* A command: its name (stitch NAME), its --help text and its options. */
struct cli_cmd {
	const char *name;
	void (*usage)(FILE *f);
	const char *shortopts;		/* getopt_long's, with h for --help */
	const struct option *longopts;
};

/* One option, as getopt_long returned it: 0, or the exit status to stop with. */
typedef int (*cli_opt_fn)(void *ctx, int opt, const char *arg);

/*
 * Each option of argv, from argv[1], to take(ctx, opt, optarg); the
 * operands start at optind after it.  -h/--help prints cmd's usage on
 * stdout and exits 0; an option getopt_long refuses (it said why) is
 * followed by the pointer to --help, and 2.  0, or take's first non-zero.
 */
int cli_parse(const struct cli_cmd *cmd, int argc, char **argv, cli_opt_fn take, void *ctx);

/*
 * "stitch CMD: <fmt with arg>" and a pointer to CMD's --help on stderr;
 * returns 2, the exit status of a usage error.
 */
int cli_usage_error(const char *cmd, const char *fmt, const char *arg);

/*
 * Exactly one target given (given counts -p, -a, -- COMMAND, ...): 0, or
 * the usage error "say WHAT with exactly one of: CHOICES".
 */
int cli_one_target(const char *cmd, int given, const char *what, const char *choices);

/* A whole decimal integer in [min, max]: no trailing text, no overflow. */
bool cli_parse_long(const char *s, long min, long max, long *out);

/* A decimal number in [min, max], decimals allowed, no trailing text: -d SECONDS. */
bool cli_parse_double(const char *s, double min, double max, double *out);

/*
 * A duration in seconds, in (0, max_s]: "30" (seconds), "500ms", "30s",
 * "2m", "1.5h": -d, which an agent may run for days.  false if not.
 */
bool cli_parse_duration(const char *s, double max_s, double *out);

/* A time from 1us to 1h: "50ms", "500us", "0.2s", "5m", "1h", "50" (ms) -> ns; 0 if not. */
uint64_t cli_parse_time(const char *s);

/*
 * A time of at least min_ns and at most 1h: "50ms", "500us", "0.2s", "5m",
 * "1h", or a number alone in unit_ns -> ns; 0 if not.
 */
uint64_t cli_parse_time_in(const char *s, uint64_t unit_ns, uint64_t min_ns);

/* Takes one pid of a -p list, its process seen: 0, or non-zero to refuse it. */
typedef int (*cli_pid_fn)(void *ctx, long pid);

/*
 * Each pid of CMD's -p PID[,PID...] list, in order, to take(ctx, pid) (NULL:
 * only checked) once /proc shows its process.  0; 2 at a token that is no
 * pid (a usage error); 1 at the first pid with no process, or that take
 * refuses: "stitch CMD: no process with pid N", then hint if not NULL.
 */
int cli_parse_pids(const char *cmd, const char *list, const char *hint, cli_pid_fn take,
		   void *ctx);

/*
 * The same checks of a -p list kept whole for another command (stalls
 * hands it to record), after the options: a token that is no pid is said
 * plainly, not as a usage error.  0 or 1.
 */
int cli_check_pids(const char *cmd, const char *list);

#endif /* STITCH_CLI_H */
