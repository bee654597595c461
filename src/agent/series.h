/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A period's stacks as the series the agent pushes: one profile per
 * (profile type, service, container, pod), each symbolized (the same path
 * as record -o x.pb.gz: interpreter frames, thread names as sample labels),
 * written as pprof into memory and labelled: __name__ (process_cpu,
 * off_cpu, wall), service_name (--label's, else the process's name),
 * host_name, container_id and pod_uid where the cgroup says, and --label's
 * others.
 */
#ifndef STITCH_AGENT_SERIES_H
#define STITCH_AGENT_SERIES_H

#include <stdbool.h>
#include <stdint.h>

#include "agent/proc_labels.h"
#include "agent/push.h"

struct binary_cache;
struct stack_table;

#define SERIES_MAX_LABELS 32

/* What every period's series are made with. */
struct ksym_namer;

struct series_config {
	const char *const *event_names;	/* the recording's events, by stack_key.event_idx */
	int nevents;
	int cpu_idx;			/* the cpu event's index, -1 if none */
	int alloc_idx;			/* the alloc event's index, -1 if none */
	bool wall;			/* -e wall: every stack in one wall series */
	bool inuse;			/* --inuse: alloc's stacks weigh the bytes held */
	int freq;			/* cpu samples per second */
	const char *comm;		/* --comm: only processes of this name; NULL: all */
	const char *service_name;	/* --label service_name=...; NULL: the process's name */
	const struct push_label *extra;	/* --label's others */
	int nextra;
	const char *host_name;
	struct proc_labels_cache *procs;
	/* The kernel namer, loaded at the first kernel frame and kept (resolve.h) */
	struct ksym_namer *kn;
	bool kn_tried;
};

/* One built series, to push; valid during the call only. */
typedef void (*series_fn)(void *ctx, const struct push_series *s, uint32_t index);

/*
 * The series of one period's stacks (start_ns to end_ns, Unix ns), each to
 * fn.  The stacks' counts may be changed (wall weighs).  bins: the binaries
 * they name, those of exited processes let go as they are named (or NULL).
 * 0, or -ENOMEM.
 */
int series_of_period(struct series_config *c, struct stack_table *stacks,
		     struct binary_cache *bins, uint64_t start_ns, uint64_t end_ns,
		     series_fn fn, void *ctx);

#endif /* STITCH_AGENT_SERIES_H */
