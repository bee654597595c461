/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every stitch command's option parsing shares: the usage error,
 * integer arguments checked in full, and -p's list of processes.
 */
#ifndef STITCH_CLI_H
#define STITCH_CLI_H

#include <stdbool.h>
#include <stdint.h>

/*
 * "stitch CMD: <fmt with arg>" and a pointer to CMD's --help on stderr;
 * returns 2, the exit status of a usage error.
 */
int cli_usage_error(const char *cmd, const char *fmt, const char *arg);

/* A whole decimal integer in [min, max]: no trailing text, no overflow. */
bool cli_parse_long(const char *s, long min, long max, long *out);

/* A time from 1us to 1h: "50ms", "500us", "0.2s", "50" (ms) -> ns; 0 if not. */
uint64_t cli_parse_time(const char *s);

/*
 * A time of at least min_ns and at most 1h: "50ms", "500us", "0.2s", or a
 * number alone in unit_ns -> ns; 0 if not.
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
