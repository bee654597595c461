/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stitch stalls, user side: samples wait per thread until the stall they
 * were taken in ends; then the stall is printed with its stacks (counted,
 * symbolized) and added to the profile written with -o, weighted by its
 * on-CPU milliseconds.
 */
#ifndef STITCH_STALLS_REPORT_H
#define STITCH_STALLS_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "util/hashmap.h"
#include "profile/resolve.h"
#include "profile/stacks.h"
#include "stalls/stalls.h"

/* Samples kept per thread while its stall goes on; more are counted, not kept. */
#define STALLS_MAX_PENDING_SAMPLES 20000

struct stalls_report {
	FILE *out;			/* the per-stall listing */
	int top;			/* stacks shown per stall */
	struct resolver *res;
	struct hmap threads;		/* tid -> samples waiting for their stall */
	struct stack_table weighted;	/* every stall's stacks, weighted by its ms */
	uint64_t nstalls, oncpu_ms, dropped_samples, unsampled_stalls;
	uint64_t orphan_samples;	/* taken before the start of the stall that ended */
	struct named_frame *nf;
};

int stalls_report_init(struct stalls_report *sr, FILE *out, int top, struct resolver *res);
void stalls_report_free(struct stalls_report *sr);

/* A sample of a stalled thread, taken at time_ns. */
int stalls_report_sample(struct stalls_report *sr, uint64_t time_ns, const struct stack_key *key,
			 uint32_t key_bytes);

/*
 * A stall that ended (ongoing = false), or that was still going when tracing
 * stopped.  Every sample of it must have been given already.
 */
void stalls_report_stall(struct stalls_report *sr, const struct stall_event *ev, bool ongoing);

/* Threads (tid, pid) with samples not yet claimed by a stall, for the end of tracing. */
int stalls_report_pending(struct stalls_report *sr, uint32_t *tids, uint32_t *pids, int max);

/* Samples no stall claimed (none if the gate works and every stall was reported). */
uint64_t stalls_report_unclaimed(struct stalls_report *sr);

/* Name of a loop syscall number ("epoll_wait"), or NULL. */
const char *stalls_syscall_name(uint32_t nr);
/* Number of a syscall name, or -1. */
long stalls_syscall_nr(const char *name);

#endif /* STITCH_STALLS_REPORT_H */
