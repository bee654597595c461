/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stitch stalls -p: threads already running when tracing starts.  A loop
 * stuck in a handler at attach never returns from its loop syscall, so the
 * kernel side would never start counting it: each such thread is given a
 * stall candidate that starts at the attach (its length a lower bound).
 */
#ifndef STITCH_STALLS_SEED_H
#define STITCH_STALLS_SEED_H

#include <stdint.h>

/* The scheduler's account of a thread's CPU time (se.sum_exec_runtime), or 0. */
uint64_t stalls_thread_runtime(uint32_t pid, uint32_t tid);

/*
 * Every thread of the npids processes pids not waiting in a loop syscall
 * (loop_nr, or any of candidates[] when loop_nr < 0) gets a candidate in the
 * stall_threads map (fd), and its capture gate (gate_fd) opens once it has
 * run threshold_ns more.  Call it before stalls.bpf.c's programs are
 * attached: a thread's state they create is never replaced.  Returns the
 * number of threads seeded.
 */
int stalls_seed_threads(int map_fd, int gate_fd, uint64_t threshold_ns, const uint32_t *pids,
			int npids, long loop_nr, const uint32_t *candidates, int ncandidates);

#endif /* STITCH_STALLS_SEED_H */
