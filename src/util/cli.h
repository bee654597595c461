/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every stitch command's option parsing shares: the usage error and
 * integer arguments checked in full.
 */
#ifndef STITCH_CLI_H
#define STITCH_CLI_H

#include <stdbool.h>

/*
 * "stitch CMD: <fmt with arg>" and a pointer to CMD's --help on stderr;
 * returns 2, the exit status of a usage error.
 */
int cli_usage_error(const char *cmd, const char *fmt, const char *arg);

/* A whole decimal integer in [min, max]: no trailing text, no overflow. */
bool cli_parse_long(const char *s, long min, long max, long *out);

#endif /* STITCH_CLI_H */
