/* SPDX-License-Identifier: GPL-2.0 */
/* System call numbers by name, as the target's <asm/unistd.h> has them. */
#ifndef STITCH_RECORD_SYSCALL_NR_H
#define STITCH_RECORD_SYSCALL_NR_H

/* The number of system call name ("getppid"), or -1 if there is none. */
int syscall_nr_of(const char *name);

#endif /* STITCH_RECORD_SYSCALL_NR_H */
