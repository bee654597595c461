/* SPDX-License-Identifier: GPL-2.0 */
#ifndef STITCH_PRIVILEGES_H
#define STITCH_PRIVILEGES_H

/*
 * Tracing needs root, or CAP_BPF + CAP_PERFMON (and CAP_SYS_ADMIN or
 * CAP_SYS_PTRACE to read other processes' mappings).  Prints one line naming
 * what is missing and returns -1 if the caller cannot trace.
 */
int check_tracing_privileges(const char *who);

#endif /* STITCH_PRIVILEGES_H */
