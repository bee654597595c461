/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What libbpf prints: nothing, unless asked for with STITCH_DEBUG (its
 * warnings) or STITCH_DEBUG_BPF (its debug lines: the verifier's log); and
 * what stitch says when the kernel refuses a program.
 */
#ifndef STITCH_UTIL_LIBBPF_LOG_H
#define STITCH_UTIL_LIBBPF_LOG_H

/* Sets libbpf's printer to the one above: before a command opens its BPF objects. */
void libbpf_quiet(void);

/*
 * "WHO: the kernel (6.1.0) refused the BPF program capture_uprobe: why", and
 * what to do about it (the verifier's log, stitch features); err from the load.
 */
void libbpf_load_failed(const char *who, int err);

#endif /* STITCH_UTIL_LIBBPF_LOG_H */
