// SPDX-License-Identifier: GPL-2.0
/* libbpf's messages, only when asked for: see libbpf_log.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

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
