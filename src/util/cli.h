/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every stitch command's option parsing shares: the usage error and
 * integer arguments checked in full.
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

#endif /* STITCH_CLI_H */
