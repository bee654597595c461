/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stitch snapshot without a BPF task iterator: the records snapshot.bpf.c
 * writes (snapshot.h), read from /proc instead, on kernels that cannot run
 * the iterator (no sleepable iterators before 5.18: Debian 11's 5.10).
 */
#ifndef STITCH_SNAPSHOT_SNAP_PROC_H
#define STITCH_SNAPSHOT_SNAP_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct snap_proc_targets {
	const uint32_t *pids;	/* processes, when not all */
	size_t npids;
	bool all;		/* every thread of the machine */
	bool no_kthreads;	/* but kernel threads */
	uint32_t self;		/* our own pid: its threads are busy reading this */
};

/*
 * Every thread of the targets as a record, appended to *buf (len bytes used
 * of cap, grown with realloc).  For each: its state and CPU time (stat,
 * schedstat), the registers a blocked thread saved entering the kernel
 * (syscall: its pc, sp and system call; a running thread has none to give),
 * its kernel stack (stack: names, which kallsyms turns back into the
 * addresses the records hold) and its user stack from sp up, read with
 * process_vm_readv.  Nothing is stopped: no ptrace, no signal.  A thread
 * that ran meanwhile (its CPU time moved) is marked as running.  No
 * interpreter frames (their walkers run in BPF), nor how long a thread has
 * been off the CPU (SNAP_NO_SINCE).  0, or -1 when out of memory.
 */
int snap_proc_read(const struct snap_proc_targets *t, uint8_t **buf, size_t *len, size_t *cap);

#endif /* STITCH_SNAPSHOT_SNAP_PROC_H */
