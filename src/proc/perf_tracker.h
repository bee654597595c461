/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Process tracking from the kernel's own records: a system-wide dummy
 * software event per CPU delivers MMAP2 (executable mappings, with build-id
 * or device/inode), COMM (with the exec flag), FORK and EXIT, stamped with
 * CLOCK_MONOTONIC like the BPF samples.  Records are queued and applied in
 * time order up to each sample's time, so a sample sees the mappings the
 * process had when the event fired.
 */
#ifndef STITCH_PERF_TRACKER_H
#define STITCH_PERF_TRACKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proc/procs.h"

struct ptrack_event;

struct perf_tracker {
	int nr;			/* open rings */
	int *fds;
	void **rings;
	size_t data_bytes;	/* per ring, power of two */
	struct ptrack_event *q;	/* pending records, sorted from head */
	size_t qhead, qlen, qcap;
	uint64_t lost;		/* records the kernel dropped (ring full) */
	uint64_t lost_seen;	/* ... of which the process models were told (procs_lost_records) */
	uint64_t lost_until;	/* the latest loss's time: records older than it may miss others */
	uint64_t malformed;	/* records we refused to parse */
	/*
	 * Told of each executable mapping applied to a tracked process (its
	 * path as the process sees it), after its model has it; may be NULL.
	 */
	void (*on_mmap)(void *ctx, uint32_t pid, const char *path);
	void *on_mmap_ctx;
};

int perf_tracker_open(struct perf_tracker *t);
/* Read every ring into the pending queue. */
void perf_tracker_drain(struct perf_tracker *t);
/* Apply pending records with time <= until_ns (UINT64_MAX: all). */
void perf_tracker_apply(struct perf_tracker *t, struct procs *ps, uint64_t until_ns);
void perf_tracker_close(struct perf_tracker *t);
/* Are records about pid still waiting to be applied (its model may be behind)? */
bool perf_tracker_pending(const struct perf_tracker *t, uint32_t pid);

/*
 * Parse one record (header included, linear in memory) into the queue.
 * Exposed for tests: perf_tracker_drain is the real caller.
 */
void perf_tracker_parse_record(struct perf_tracker *t, const uint8_t *rec, size_t size);

#endif /* STITCH_PERF_TRACKER_H */
