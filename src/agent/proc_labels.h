/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the agent's labels say about a process: its name (service_name
 * unless --label sets it), executable and container and pod ids, read from
 * /proc once per process and cached until it exits (pid reuse is told by
 * the start time in /proc/PID/stat), so a long run over thousands of
 * short-lived processes holds only the living ones' entries.
 */
#ifndef STITCH_AGENT_PROC_LABELS_H
#define STITCH_AGENT_PROC_LABELS_H

#include <stdbool.h>
#include <stdint.h>

#include "agent/cgroup_ids.h"
#include "util/hashmap.h"

struct proc_labels {
	struct hmap_node node;
	uint32_t pid;
	uint64_t start_ticks;		/* /proc/PID/stat's starttime; 0 if it was gone */
	char name[16];			/* /proc/PID/comm, or a thread's comm if gone */
	char exe[64];			/* basename of /proc/PID/exe; "" if unknown */
	struct cgroup_ids ids;
};

struct proc_labels_cache {
	struct hmap map;
	const char *proc;		/* "/proc"; tests point it elsewhere */
};

int proc_labels_init(struct proc_labels_cache *c);
void proc_labels_free(struct proc_labels_cache *c);

/*
 * pid's labels, read now if not cached (comm: the sampled thread's name,
 * the fallback when the process is already gone).  NULL: out of memory.
 */
const struct proc_labels *proc_labels_get(struct proc_labels_cache *c, uint32_t pid,
					  const char *comm);

/*
 * Forget the processes that exited, whose pid now names another, or that
 * changed their name (an exec): the ones still there are read again when
 * next sampled.
 */
void proc_labels_sweep(struct proc_labels_cache *c);

#endif /* STITCH_AGENT_PROC_LABELS_H */
