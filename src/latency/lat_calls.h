/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stitch latency, user side: the stacks taken while a thread was in a call
 * (cpu samples from the call's start, every switch-out with the time it
 * stayed off) wait per thread until the call ends.  A slow call claims
 * those inside it; those of calls that ended under the threshold are
 * dropped once the kernel's open calls show the call over (lat_calls_bound,
 * lat_calls_prune).  Each slow call's time is split among its stacks:
 * on-CPU (samples, weighed by the sampling period) and off-CPU
 * (switch-outs, weighed by the time off), and what the stacks do not cover
 * (on-CPU time between samples; off-CPU intervals whose stack was lost)
 * under a marker.
 */
#ifndef STITCH_LATENCY_CALLS_H
#define STITCH_LATENCY_CALLS_H

#include <stdbool.h>
#include <stdint.h>

#include "latency/lat_children.h"
#include "latency/latency.h"
#include "profile/stacks.h"
#include "util/hashmap.h"

/* Stacks kept per thread waiting for their call to end; older ones are dropped first. */
#define LAT_MAX_PENDING 4096

/* A slow call's --fetch values as text, at most (lat_fetch.h). */
#define LAT_VALUES_MAX 512

/* One slow call with its own stacks (kept for the slowest --top N). */
struct lat_slow {
	struct lat_call call;
	char values[LAT_VALUES_MAX];	/* --fetch's at its entry, or "" */
	uint64_t off_cpu_ns;		/* dur - on_cpu */
	struct stack_table stacks;	/* its breakdown, weighed in ns */
	struct lat_child_tree tree;	/* --children: its nested calls */
};

/* A thread's stacks taken before before_ns are of calls that ended (lat_calls_bound). */
struct lat_bound {
	uint32_t tid;
	uint64_t before_ns;
};

struct lat_calls {
	const char *root;		/* the flame graph's root frame: the call */
	uint64_t period_ns;		/* weight of one cpu sample */
	struct hmap threads;		/* tid -> stacks waiting */
	struct stack_table breakdown;	/* every slow call's stacks, weighed in ns */
	struct lat_slow *slowest;	/* the top slowest calls, slowest first */
	int top, nslowest;
	uint64_t slow, slow_ns, on_cpu_ns, off_cpu_ns;
	uint64_t dropped;		/* stacks dropped: a thread had too many waiting */
	uint64_t taken, claimed;	/* stacks given, and those a slow call claimed */
	uint64_t pruned;		/* stacks of calls that ended fast, dropped */
	struct lat_bound *bounds;	/* per thread waiting: older stacks are of ended calls */
	size_t nbounds, bounds_cap;
	struct lat_child_tree tree;	/* --children: every slow call's nested calls */
	bool children;			/* --children given: build the trees */
	bool keyed;			/* calls matched by key: no thread, no breakdown */
};

int lat_calls_init(struct lat_calls *lc, const char *root, uint64_t period_ns, int top);
void lat_calls_free(struct lat_calls *lc);

/* A stack of thread tid taken at time_ns, weighing ns, on CPU or off. */
int lat_calls_stack(struct lat_calls *lc, uint32_t tid, uint64_t time_ns,
		    const struct stack_key *key, uint32_t key_bytes, uint64_t ns, bool on_cpu);

/*
 * A slow call ended: every stack taken in it must have been given already.
 * ev: its c->nchild child events (--children), or NULL; values: its
 * --fetch values as text, or NULL.
 */
int lat_calls_slow(struct lat_calls *lc, const struct lat_call *c, const uint64_t *ev,
		   const char *values);

/*
 * Where each thread with stacks waiting stands now (now_ns, CLOCK_MONOTONIC,
 * the BPF clock): open_start(ctx, tid) gives the start of its call in
 * flight, or 0 if it is in none.  Stacks taken before that start (before
 * now_ns when in no call) belong to calls that have ended: a slow one's
 * record is in the latency ring before this returns, so once that ring has
 * been read and its calls claimed, lat_calls_prune() drops the rest.
 */
int lat_calls_bound(struct lat_calls *lc, uint64_t now_ns,
		    uint64_t (*open_start)(void *ctx, uint32_t tid), void *ctx);
void lat_calls_prune(struct lat_calls *lc);

#endif /* STITCH_LATENCY_CALLS_H */
