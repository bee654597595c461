// SPDX-License-Identifier: GPL-2.0
/* Shared pieces of the commands' option parsing (cli.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/cli.h"

int cli_usage_error(const char *cmd, const char *fmt, const char *arg)
{
	fprintf(stderr, "stitch %s: ", cmd);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'stitch %s --help'.\n", cmd);
	return 2;
}

uint64_t cli_parse_time(const char *s)
{
	char *end;
	double v = strtod(s, &end), scale;

	if (end == s || !(v > 0))
		return 0;
	if (!*end || !strcmp(end, "ms"))
		scale = 1e6;
	else if (!strcmp(end, "us"))
		scale = 1e3;
	else if (!strcmp(end, "s"))
		scale = 1e9;
	else
		return 0;
	if (v * scale < 1e3 || v * scale > 3600e9)
		return 0;
	return (uint64_t)(v * scale);
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
