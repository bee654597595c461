// SPDX-License-Identifier: GPL-2.0
/* libbpf's messages, only when asked for, and its failures: see libbpf_log.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "util/libbpf_log.h"

static int print_if_asked(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_WARN && getenv("STITCH_DEBUG"))
		return vfprintf(stderr, fmt, ap);
	if (level == LIBBPF_DEBUG && getenv("STITCH_DEBUG_BPF"))
		return vfprintf(stderr, fmt, ap);
	return 0;
}

void libbpf_quiet(void)
{
	libbpf_set_print(print_if_asked);
}

void libbpf_load_failed(const char *who, int err)
{
	fprintf(stderr, "%s: cannot load the BPF programs: %s%s\n", who, strerror(-err),
		err == -EPERM ? " (needs root, or CAP_BPF + CAP_PERFMON)" :
		" (run with STITCH_DEBUG_BPF=1 for the verifier log)");
}
