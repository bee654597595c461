// SPDX-License-Identifier: GPL-2.0
/* stitch: whole-stack tracer and profiler.  Subcommand dispatch. */
#include <stdio.h>
#include <string.h>

#include "agent/agent_cmd.h"
#include "kernel/features_cmd.h"
#include "latency/latency_cmd.h"
#include "probe/probe_cmd.h"
#include "record/record_cmd.h"
#include "report/report_cmd.h"
#include "snapshot/snapshot_cmd.h"
#include "stalls/stalls_cmd.h"
#include "stalls/symbolize_cmd.h"

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
"  report    convert and filter a recorded profile (pprof, folded) into a flame\n"
"            graph, pprof, speedscope, folded stacks or a summary\n"
"  diff      a differential flame graph of two profiles\n"
"  stalls    report event-loop stalls of an unmodified program: threads that\n"
"            run too long between two waits, with the stacks sampled meanwhile\n"
"  latency   time every call of a system call or function; for the slow\n"
"            ones, where their time went (on CPU, blocked), with stacks\n"
"  snapshot  every thread's kernel + native stack right now, grouped, without\n"
"            stopping anything (a wchan/pstack for the whole machine)\n"
"  agent     profile the whole host all the time, pushing every period's\n"
"            profiles to Pyroscope, an OpenTelemetry collector or Parca\n"
"  probe     where a probe on a source line goes: its addresses, the lines\n"
"            that have code (-L), the variables readable there (-V)\n"
"  symbolize name the addresses in libstitch-stall reports, or fold them into\n"
"            stacks weighted by stall time\n"
"  features  what this kernel offers stitch, and what each command does here\n"
"  help      this text; 'stitch COMMAND --help' for a command's options\n"
"  version   print the version\n"
"\n"
"Examples:\n"
"  sudo stitch record -F 499 -d 5 -o cpu.svg -- ./myprog args\n"
"  stitch report cpu.pb.gz --focus 'ngx_http_' -o nginx.svg\n"
"  sudo stitch stalls -p 1234 --threshold 50ms -d 30\n"
"  sudo stitch snapshot -p $(pidof server)\n"
"  sudo stitch latency -e syscall:pread64 -p 1234 --threshold 1ms -o slow.svg\n"
"  sudo stitch agent --push pyroscope=http://pyroscope:4040\n"
"  stitch symbolize < server-stderr.log\n");
}

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
} commands[] = {
	{ "record", cmd_record },
	{ "report", cmd_report },
	{ "diff", cmd_diff },
	{ "stalls", cmd_stalls },
	{ "snapshot", cmd_snapshot },
	{ "latency", cmd_latency },
	{ "agent", cmd_agent },
	{ "probe", cmd_probe },
	{ "symbolize", cmd_symbolize },
	{ "features", cmd_features },
};

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	/* A command sees its own name as argv[0]: getopt's messages say it. */
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].run(argc - 1, argv + 1);
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
