// SPDX-License-Identifier: GPL-2.0
/* libbpf's messages, only when asked for, and its failures: see libbpf_log.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "util/libbpf_log.h"

/* The program the kernel last refused, from libbpf's warning, for libbpf_load_failed(). */
static char refused[64];

static void note_refused(const char *fmt, va_list ap)
{
	char line[256], name[64];
	va_list copy;

	va_copy(copy, ap);
	vsnprintf(line, sizeof(line), fmt, copy);
	va_end(copy);
	if (sscanf(line, "libbpf: prog '%63[^']': failed to load", name) == 1 ||
	    sscanf(line, "libbpf: prog '%63[^']': BPF program load failed", name) == 1)
		snprintf(refused, sizeof(refused), "%s", name);
}

static int print_if_asked(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_WARN)
		note_refused(fmt, ap);
	/* STITCH_DEBUG_BPF: everything, the verifier's log too (a warning). */
	if (getenv("STITCH_DEBUG_BPF") || (level == LIBBPF_WARN && getenv("STITCH_DEBUG")))
		return vfprintf(stderr, fmt, ap);
	return 0;
}

void libbpf_quiet(void)
{
	libbpf_set_print(print_if_asked);
}

void libbpf_load_failed(const char *who, int err)
{
	struct utsname u;

	if (err == -EPERM && geteuid() != 0) {
		fprintf(stderr, "%s: cannot load the BPF programs: %s (needs root, or CAP_BPF + "
			"CAP_PERFMON)\n", who, strerror(-err));
		return;
	}
	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "?");
	/* As root, EPERM and EACCES are the verifier's: it says why in its log. */
	fprintf(stderr, "%s: the kernel (%s) refused %s%s: %s (STITCH_DEBUG_BPF=1 prints the "
		"verifier's log; `stitch features` what this kernel offers)\n", who, u.release,
		refused[0] ? "the BPF program " : "the BPF programs", refused, strerror(-err));
}
