/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What each traced process has mapped executable, as of the event being
 * processed.  Built from /proc/PID/maps when a process is first seen, then
 * kept current from the kernel's mmap/fork/exec records (perf_tracker.c), so
 * a process that exits or execs during recording is still symbolized.  An
 * mmap record waits in its process until the process is looked at
 * (procs_get, procs_find) or a reclaim sweep finds it alive: only then are
 * its files opened.
 */
#ifndef STITCH_PROCS_H
#define STITCH_PROCS_H

#include <stdbool.h>
#include <stdint.h>

#include "proc/binary.h"
#include "util/hashmap.h"
#include "util/short_path.h"

/* Identity the kernel reported for a mapped file, to check what we open. */
struct map_file_id {
	uint8_t build_id[STITCH_BUILD_ID_MAX];
	uint8_t build_id_len;
	bool has_devino;
	uint32_t maj, min;
	uint64_t ino;
};

struct map {
	uint64_t start, end;	/* [start, end) */
	uint64_t pgoff;
	struct binary *bin;	/* NULL: anonymous or unreadable file */
	uint64_t bias;		/* ELF vaddr = addr - bias (valid if bin) */
	const char *name;	/* module name for unresolved frames */
	bool uprobes;		/* the kernel's [uprobes] page (uretprobe trampolines) */
	bool anon;		/* anonymous executable memory: JIT code (V8, HotSpot) */
};

/* An mmap record not applied yet: its file is opened when the process is looked at. */
struct pending_mmap {
	uint64_t start, len, pgoff;
	struct short_path path;
	bool has_id;
	struct map_file_id id;
};

struct proc {
	struct hmap_node node;
	uint32_t pid;
	struct map *maps;	/* sorted by start, non-overlapping */
	size_t nr, cap;
	/*
	 * The kernel's mmap records for it since, in order, applied (their
	 * files opened) by procs_get and procs_find: most processes of a
	 * busy host are never sampled, and opening every mapping of every
	 * one was a fifth of the agent's CPU under churn.
	 */
	struct pending_mmap *pending;
	size_t npending, pending_cap;
	uint64_t gen;		/* bumped when the mappings change (interpreter detection) */
	/* its root directory's identity, for binary_find_held: 1 known, -1 unknown, 0 not asked */
	int root_known;
	dev_t root_dev;
	ino_t root_ino;
	/*
	 * CLOCK_MONOTONIC ns of its exit (or of finding it gone), 0 while it
	 * lives: kept for procs_reap()'s grace, so its samples and walks
	 * still in the rings are named, then freed.
	 */
	uint64_t exited_ns;
	/*
	 * The kernel dropped process-tracking records since it was loaded
	 * (procs_lost_records): its mappings are read again from /proc when
	 * it is next looked at, if it still lives.
	 */
	bool stale;
	/* procs_v8's answer, as of gen v8_gen + 1 (0: not asked since a change) */
	uint64_t v8_gen;
	const struct v8_meta *v8;
	/* procs_hotspot's: the JVM's layout, read from it once it could be */
	struct hotspot_meta *hotspot;
	uint64_t hotspot_tried_ns;	/* the last read that failed (a JVM still starting) */
	uint64_t hotspot_gen;		/* no libjvm as of gen hotspot_gen - 1 */
	bool hotspot_final;		/* read, or never to be: not asked again */
};

struct procs {
	struct hmap by_pid;
	struct binary_cache *bins;
	uint64_t unreadable_maps;	/* mappings whose file we could not open */
	uint64_t never_opened;		/* images whose mmap records were never applied */
	uint64_t reread;		/* processes read again from /proc after records were lost */
	/*
	 * Follow every process (-a).  Otherwise only processes already known
	 * (targets, their children, anything sampled) are followed, so tracing
	 * one pid does not parse the whole machine's mappings.
	 */
	bool track_all;
};

int procs_init(struct procs *ps, struct binary_cache *bins);
void procs_free(struct procs *ps);

/* The process if known, else NULL; its mappings applied up to the last record. */
struct proc *procs_find(struct procs *ps, uint32_t pid);
/*
 * The live process, its mappings applied, if every file its records
 * mapped is a binary already held (binary_find_held: known by build ID,
 * path and root), so looking at it opens no file; else NULL, and nothing
 * applied.  A build's cc1, as and python3, started again and again.
 */
struct proc *procs_find_held(struct procs *ps, uint32_t pid);
/* Is this process worth following (see track_all)? */
bool procs_tracking(struct procs *ps, uint32_t pid);
/* The process, created (and loaded from /proc if alive) on first sight. */
struct proc *procs_get(struct procs *ps, uint32_t pid);
/*
 * Record an executable mapping; replaces whatever it overlaps.  Its file is
 * opened when the process is next looked at (procs_get, procs_find).
 */
void procs_mmap(struct procs *ps, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		const char *path, const struct map_file_id *id);
void procs_exec(struct procs *ps, uint32_t pid);
void procs_fork(struct procs *ps, uint32_t ppid, uint32_t pid);

/*
 * The kernel dropped process-tracking records (its ring was full): any
 * process may have missed an exec or an mmap, and a missed exec left at
 * the old image's addresses names the new image's code after the old one's
 * (non-PIE binaries all load at 0x400000).  Every live process is read
 * again from /proc when next looked at; one that exited keeps its model.
 */
void procs_lost_records(struct procs *ps);
/* The same for one process (changed by a record from before a loss), if it lives. */
void procs_mark_stale(struct procs *ps, uint32_t pid);

/* The process exited at time_ns (CLOCK_MONOTONIC); its state stays until procs_reap. */
void procs_exit(struct procs *ps, uint32_t pid, uint64_t time_ns);

/*
 * Free the processes that exited grace_ns or more before now_ns, calling
 * gone(ctx, pid) for each first (may be NULL).  check_alive: also mark as
 * exited now the processes whose pid no longer exists (their exit record
 * was lost).  Returns how many were freed.
 */
size_t procs_reap(struct procs *ps, uint64_t now_ns, uint64_t grace_ns, bool check_alive,
		  void (*gone)(void *ctx, uint32_t pid), void *ctx);

/*
 * Apply the waiting mmap records of every process not known to have exited:
 * its files are opened while it lives (/proc/PID/map_files, its root), even
 * if its first sample is read late.  Most short-lived processes have exited
 * by the time this runs (reclaim.c, once a second) and cost nothing.
 */
void procs_open_alive(struct procs *ps);

/* Every binary mapped by a known process (live, or in its grace): binary_mark_mapped. */
void procs_mark_binaries(struct procs *ps, uint64_t now_ns);

const struct map *proc_find_map(const struct proc *p, uint64_t addr);

/*
 * The V8 the process runs (a mapped binary with V8's metadata that stitch
 * reads, binary_v8), or NULL; looked for again when its mappings change.
 */
const struct v8_meta *procs_v8(struct proc *p);

/*
 * The layout of the JVM the process runs (a libjvm mapped, its vmStructs
 * read from the process: symbolize/hotspot_meta.h), or NULL: none, or not
 * readable yet (asked again 100 ms later: tables fill as the JVM starts).
 */
const struct hotspot_meta *procs_hotspot(struct proc *p);

/* Whether the process maps a libjvm (its code cache is then the JVM's). */
bool procs_maps_jvm(const struct proc *p);

#endif /* STITCH_PROCS_H */
