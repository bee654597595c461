/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This CPU is inside capture(): its per-CPU walk state and slots are in use.
 * A program that can run in an interrupt which stopped one of ours (the
 * sched_waking hook of --wakers: a hard IRQ that wakes a thread while a
 * syscall tracepoint program runs) must then not walk.  Set and cleared by
 * capture() (capture.bpf.c).
 */
#ifndef STITCH_CAPTURE_BUSY_BPF_H
#define STITCH_CAPTURE_BUSY_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#define CAPTURE_MAX_CPUS 4096

__u8 capture_busy[CAPTURE_MAX_CPUS];

static __always_inline __u8 *capture_busy_here(void)
{
	return &capture_busy[bpf_get_smp_processor_id() & (CAPTURE_MAX_CPUS - 1)];
}

#endif /* STITCH_CAPTURE_BUSY_BPF_H */
