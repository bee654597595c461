/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stitch latency: what latency.bpf.c and latency.c share.  Includable from
 * BPF C and from user space.
 */
#ifndef STITCH_LATENCY_H
#define STITCH_LATENCY_H

#ifndef __bpf__
#include <linux/types.h>
#endif

#include "probe/fetch.h"

#define LAT_MAX_THREADS 65536
/*
 * Durations counted in log-linear buckets: 16 per power of two, so a
 * bucket is at most 1/16 of its value wide (a percentile read at its
 * middle is within 3.2%).  Values under 16 ns have a bucket each.
 */
#define LAT_SUB_BITS 4
#define LAT_SUB (1 << LAT_SUB_BITS)
#define LAT_BUCKETS (64 * LAT_SUB)
#define LAT_NARGS 3
/* Tracepoint pairs matched by a field instead of by thread: up to two fields. */
#define LAT_NKEYS 2
/*
 * --children: nested functions timed inside a call, at most this many
 * entries and exits per call (more are counted as lost), each one word:
 * ns since the call began << 8 | child index << 1 | 1 for an exit.
 */
#define LAT_MAX_CHILDREN 64
#define LAT_MAX_CHILD_EVENTS 1024
#define LAT_CHILD_EXIT 1ULL
#define LAT_CHILD_IDX_SHIFT 1
#define LAT_CHILD_TIME_SHIFT 8

/* Per CPU, summed by user space. */
enum lat_stat {
	LAT_STAT_CALLS,		/* calls timed (entry and exit seen) */
	LAT_STAT_SLOW,		/* at or over the threshold */
	LAT_STAT_SLOW_LOST,	/* slow calls whose record found the ring full */
	LAT_STAT_UNTRACKED,	/* entries not timed: more threads in calls than the map holds */
	LAT_STAT_NESTED,	/* entries inside a call of the same root (recursion): not timed */
	LAT_STAT_CHILD_LOST,	/* --children entries and exits past LAT_MAX_CHILD_EVENTS */
	LAT_STAT_NR,
};

/* How calls are matched: by thread, or by the key fields of a tracepoint pair. */
struct lat_key {
	__u64 k[LAT_NKEYS];
};

/* A thread inside a call (open_calls, by tid). */
struct lat_open {
	__u64 start_ns;		/* bpf_ktime_get_ns at entry */
	__u64 off_ns;		/* time switched out inside the call so far */
	__u64 out_ns;		/* when it was last switched out; 0: running */
	__u64 out_run_ns;	/* its CPU time then (se.sum_exec_runtime) */
	__u64 args[LAT_NARGS];
	__u32 depth;		/* entries of the same root inside it (recursion, nested pairs) */
	__u32 pid;		/* keyed pairs: the thread that began the call */
	__u32 tid;
	__s32 interp_ix;	/* interpreter roots: the call's context, in stack interp_si */
	__u64 interp_si;
	__u64 raise_ns;		/* interpreter roots: the last exception seen in the call */
};

/*
 * A call at or over the threshold, at its end (ring slow_calls); with
 * --children, its nchild child events follow it.  A keyed call's pid and
 * tid are the thread that began it; its on_cpu_ns is not known (0).
 */
struct lat_call {
	__u64 start_ns, dur_ns, on_cpu_ns;
	__u64 args[LAT_NARGS];
	__s64 ret;
	__u32 pid, tid;
	__u32 nchild;		/* child events that follow */
	__u32 child_lost;	/* child events past LAT_MAX_CHILD_EVENTS */
	struct lat_key key;	/* keyed pairs: the key */
};

/*
 * --fetch: the values read at a call's entry (probe/fetch.h), sent on the
 * ring just before the call's record when the call is slow.  A lat_call
 * starts with its start time, never LAT_FETCHED_TAG.
 */
#define LAT_FETCHED_TAG (~0ULL)
struct lat_fetched {
	__u64 tag;
	struct fetch_values v;
};

/* Per thread with --children: the record of the call it is in, and its child events. */
struct lat_child_buf {
	struct lat_call call;
	__u64 ev[LAT_MAX_CHILD_EVENTS];
};

/* The bucket of a duration in ns (the same arithmetic on both sides). */
static inline __u32 lat_bucket(__u64 ns)
{
	__u64 v = ns;
	__u32 e = 0;

	if (ns < LAT_SUB)
		return (__u32)ns;
	/* e = floor(log2(ns)) without a loop */
	if (v >> 32) {
		e += 32;
		v >>= 32;
	}
	if (v >> 16) {
		e += 16;
		v >>= 16;
	}
	if (v >> 8) {
		e += 8;
		v >>= 8;
	}
	if (v >> 4) {
		e += 4;
		v >>= 4;
	}
	if (v >> 2) {
		e += 2;
		v >>= 2;
	}
	if (v >> 1)
		e += 1;
	/* ns is in [2^e, 2^(e+1)): the LAT_SUB_BITS bits below its leading one */
	return (e - LAT_SUB_BITS + 1) * LAT_SUB + ((ns >> (e - LAT_SUB_BITS)) & (LAT_SUB - 1));
}

/* The smallest duration of bucket i, and its width. */
static inline __u64 lat_bucket_low(__u32 i)
{
	__u32 e = i / LAT_SUB + LAT_SUB_BITS - 1;

	if (i < LAT_SUB)
		return i;
	return (__u64)(LAT_SUB + i % LAT_SUB) << (e - LAT_SUB_BITS);
}

static inline __u64 lat_bucket_width(__u32 i)
{
	return i < LAT_SUB ? 1 : 1ULL << (i / LAT_SUB - 1);
}

#endif /* STITCH_LATENCY_H */
