// SPDX-License-Identifier: GPL-2.0
/*
 * stitch features: the kernel features stitch probes for (kernel/features.h),
 * each present or not, and what each command does on this kernel because of
 * them.  Needs root for the probes that load a program.
 */
#include <stdio.h>
#include <string.h>

#include "kernel/features.h"
#include "kernel/features_cmd.h"
#include "util/libbpf_log.h"

static void usage(FILE *f)
{
	fprintf(f,
"Usage: stitch features\n"
"\n"
"Probe the running kernel for the BPF features stitch uses and say, for each\n"
"command, what it does here: which features it found, and what it does without\n"
"the missing ones.  Run as root (a probe loads a small program per feature).\n");
}

int cmd_features(int argc, char **argv)
{
	if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
		usage(stdout);
		return 0;
	}
	if (argc > 1) {
		usage(stderr);
		return 2;
	}
	libbpf_quiet();
	kfeat_print(stdout);
	return 0;
}
