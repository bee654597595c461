// SPDX-License-Identifier: GPL-2.0
/* Shared pieces of the commands' option parsing (cli.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/cli.h"

int cli_parse(const struct cli_cmd *cmd, int argc, char **argv, cli_opt_fn take, void *ctx)
{
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, cmd->shortopts, cmd->longopts, NULL)) != -1) {
		if (c == 'h') {
			cmd->usage(stdout);
			exit(0);
		}
		if (c == '?') {
			fprintf(stderr, "Try 'stitch %s --help'.\n", cmd->name);
			return 2;
		}
		rc = take(ctx, c, optarg);
		if (rc)
			return rc;
	}
	return 0;
}

int cli_usage_error(const char *cmd, const char *fmt, const char *arg)
{
	fprintf(stderr, "stitch %s: ", cmd);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'stitch %s --help'.\n", cmd);
	return 2;
}

int cli_one_target(const char *cmd, int given, const char *what, const char *choices)
{
	char msg[256];

	if (given == 1)
		return 0;
	snprintf(msg, sizeof(msg), "say %s with exactly one of: %s", what, choices);
	return cli_usage_error(cmd, "%s", msg);
}

uint64_t cli_parse_time(const char *s)
{
	return cli_parse_time_in(s, 1000000, 1000);
}

uint64_t cli_parse_time_in(const char *s, uint64_t unit_ns, uint64_t min_ns)
{
	char *end;
	double v = strtod(s, &end), scale;

	if (end == s || !(v > 0))
		return 0;
	if (!*end)
		scale = unit_ns;
	else if (!strcmp(end, "ms"))
		scale = 1e6;
	else if (!strcmp(end, "us"))
		scale = 1e3;
	else if (!strcmp(end, "s"))
		scale = 1e9;
	else if (!strcmp(end, "m"))
		scale = 60e9;
	else if (!strcmp(end, "h"))
		scale = 3600e9;
	else
		return 0;
	if (v * scale < min_ns || v * scale > 3600e9)
		return 0;
	return (uint64_t)(v * scale);
}

bool cli_parse_duration(const char *s, double max_s, double *out)
{
	static const struct { const char *suffix; double s; } units[] = {
		{ "", 1 }, { "ms", 1e-3 }, { "s", 1 }, { "m", 60 }, { "h", 3600 },
	};
	char *end;
	double v = strtod(s, &end);
	size_t i;

	if (end == s || !(v > 0) || (*end && !(end[-1] >= '0' && end[-1] <= '9') &&
				     end[-1] != '.'))
		return false;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].suffix))
			continue;
		if (!(v * units[i].s > 0) || v * units[i].s > max_s)
			return false;
		*out = v * units[i].s;
		return true;
	}
	return false;
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

bool cli_parse_double(const char *s, double min, double max, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !(v >= min) || v > max)
		return false;
	*out = v;
	return true;
}

/* Whether /proc shows a process (or a thread) of that id. */
static bool pid_seen(long pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%ld", pid);
	return access(path, F_OK) == 0;
}

/* tok of a -p list is no pid: a usage error, or with plain one line and 1. */
static int not_a_pid(const char *cmd, const char *tok, bool plain)
{
	if (!plain)
		return cli_usage_error(cmd, "-p: '%s' is not a process id", tok);
	fprintf(stderr, "stitch %s: -p: '%s' is not a process id\n", cmd, tok);
	return 1;
}

/* cli_parse_pids and cli_check_pids: they differ only in how a bad token is said. */
static int each_pid(const char *cmd, const char *list, const char *hint, cli_pid_fn take,
		    void *ctx, bool plain)
{
	char *copy = strdup(list), *tok, *save = NULL;
	int rc = 0;

	if (!copy)
		return 1;
	for (tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		long pid;

		if (!cli_parse_long(tok, 1, 0x7fffffff, &pid)) {
			rc = not_a_pid(cmd, tok, plain);
		} else if (!pid_seen(pid) || (take && take(ctx, pid))) {
			fprintf(stderr, "stitch %s: no process with pid %ld%s\n", cmd, pid,
				hint ? hint : "");
			rc = 1;
		}
	}
	free(copy);
	return rc;
}

int cli_parse_pids(const char *cmd, const char *list, const char *hint, cli_pid_fn take,
		   void *ctx)
{
	return each_pid(cmd, list, hint, take, ctx, false);
}

int cli_check_pids(const char *cmd, const char *list)
{
	return each_pid(cmd, list, NULL, NULL, NULL, true);
}
