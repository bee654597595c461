// SPDX-License-Identifier: GPL-2.0
/* Shared pieces of the commands' option parsing (cli.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/cli.h"

int cli_usage_error(const char *cmd, const char *fmt, const char *arg)
{
	fprintf(stderr, "stitch %s: ", cmd);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'stitch %s --help'.\n", cmd);
	return 2;
}

bool cli_parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}
