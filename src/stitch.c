// SPDX-License-Identifier: GPL-2.0
/* stitch: whole-stack tracer and profiler.  Subcommand dispatch. */
#include <stdio.h>
#include <string.h>

#include "commands.h"

#define STITCH_VERSION "0.1.0"

static void usage(FILE *f)
{
	fprintf(f,
"Usage: stitch COMMAND [OPTIONS]\n"
"\n"
"One complete, true stack per kernel event: kernel frames + native frames\n"
"(unwound without frame pointers), attributed to the thread that caused it.\n"
"\n"
"Commands:\n"
"  record    trace events (cpu samples, syscalls, tracepoints, uprobes, USDT)\n"
"            and count their stacks\n"
"  help      this text; 'stitch COMMAND --help' for a command's options\n"
"  version   print the version\n"
"\n"
"Example: sudo stitch record -F 499 -d 5 -o cpu.folded -- ./myprog args\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "record") == 0)
		return cmd_record(argc - 1, argv + 1);
	if (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "version") == 0 || strcmp(argv[1], "--version") == 0) {
		printf("stitch %s\n", STITCH_VERSION);
		return 0;
	}
	fprintf(stderr, "stitch: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
