/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The engine's parts, as the files of src/record/ share them: the
 * recorder's state, sample decoding (decode.c), BPF setup and attaching
 * (setup.c), the interpreter walkers (walkers.c), statistics and losses
 * (stats.c), and the run's phases (engine.c), which calls the others; none
 * of them calls back into it.  Not for commands: they drive the engine
 * through engine.h.
 */
#ifndef STITCH_RECORD_INTERNAL_H
#define STITCH_RECORD_INTERNAL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <bpf/libbpf.h>

#include "record/attach.h"
#include "capture/capture.h"
#include "record/events.h"
#include "interp/interp_api.h"
#include "capture/unwind_in_kernel.h"
#include "capture/alloc_live.h"
#include "capture/offcpu_pending.h"
#include "proc/binary.h"
#include "proc/perf_tracker.h"
#include "probe/fetch.h"
#include "proc/procs.h"
#include "profile/stacks.h"
#include "record/engine.h"
#include "unwind/unwind.h"

struct resolver;

#define MAX_UFRAMES 1024

struct recorder {
	struct record_opts *o;
	const struct record_hooks *hooks;	/* the driving command's, or NULL */
	struct capture_bpf *skel;
	struct capture_bpf *walkers;	/* the interpreter walkers' copy, once loaded (walkers.c) */
	struct legacy_walk_bpf *legacy_walkers;	/* the legacy workers' (kernels without bpf_loop) */
	/*
	 * How both open capture.bpf.o: relocated against the subset of the
	 * kernel's BTF its relocations need (util/core_btf.h), if there is one.
	 */
	struct bpf_object_open_opts open_opts;
	double walkers_load_s;		/* how long loading it took */
	bool walkers_at_start;		/* loaded before the capture started */
	struct attacher att;
	struct ring_buffer *rb;
	struct perf_tracker ptrack;
	struct binary_cache bins;
	struct procs procs;
	struct stack_table stacks;
	size_t ringbuf_mb;		/* the ring buffer's size: ringbuf_mb_of() */
	uint64_t target_cpu_start, target_cpu_end;	/* targets_cpu_ns() at start and end */
	/*
	 * Reading stops for a turn of the run loop once it has read for
	 * RECORD_TURN_NS (turn_start: its first record, 0 before), so that a
	 * flood of records cannot starve the loop's other work: under 360k
	 * copied deep stacks a second, tables of a new process never got
	 * loaded and every event was copied until the end.
	 */
	uint64_t turn_start;
	uint64_t turn_last_ns;		/* the last sample's time read in the turn */
	uint32_t turn_records;
	pid_t child;
	int child_status;
	bool child_done;
	uint64_t bad_records;
	uint64_t bytes_received;	/* ring buffer bytes, for --stats */
	uint64_t unwind_stops[UNWIND_STOP_UNREADABLE + 1];
	/* kunwind */
	struct kunwind kw;
	bool kw_ready;
	uint64_t kw_lost_seen;		/* ptrack.lost when the kernel's lists were last dropped */
	uint64_t check_compared, check_mismatched, check_prefix;
	double kw_setup_s;		/* -p: targets' tables loaded and lists written */
	int64_t counted_pending;	/* epoch to read at the next poll, or -1 */
	uint32_t kstacks_gen[2];	/* the generation each kernel stack map holds */
	uint64_t *kstacks_kept[2];	/* counted_fds.kstacks_kept (kstacks_flip.c) */
	size_t nkstacks_kept[2];
	double counted_next_flip;
	/* scratch for building one stack key */
	uint8_t *key_buf;
	struct unwind_frame *uframes;
	struct uframe *check_uf;	/* --unwind=check: the copy's frames */
	struct uframe *check_kuf;	/* and the kernel's, as walked (V8's unnamed) */
	struct interp_state interp;	/* interpreter frames (interp_*.c) */
	struct offcpu_pending offcpu;	/* off-CPU samples awaiting their weight */
	struct alloc_live *alloc_live;	/* --inuse: the tracked blocks' stacks; else NULL */
	struct alloc_inuse_totals inuse_totals;	/* --inuse: what the end found */
	bool inuse_stopped;		/* --inuse: the kernel files no more blocks */
	bool inuse_error_said;		/* an agent's period could not read them: said once */
	uint64_t end_ns;		/* CLOCK_MONOTONIC when the recording stopped */
	/* fetched.c: --fetch's values, until their sample */
	struct fetch_values fetched;
	bool fetched_pending;
	bool fetched_printed;		/* this sample's line is out: its stack goes under it */
	struct resolver *print_names;	/* --print-stacks' names, made at the first */
	/* reclaim.c */
	uint64_t reclaim_last_ns, reclaim_turns, procs_reaped;
};

/*
 * Driven by a command with its own programs (stalls, latency): its gate,
 * shared in before_load, decides which threads are sampled and its map
 * which processes are traced.
 */
static inline bool record_gated(const struct recorder *r)
{
	return r->hooks && r->hooks->before_load;
}

/*
 * decode.c: one record from the ring (a sample, interpreter frames, an
 * off-CPU waker or weight) to its type's handler.
 */
int handle_record(void *ctx, void *data, size_t size);

/*
 * handle_record(), then RECORD_TURN_OVER once the turn has read long enough:
 * libbpf stops reading the ring there (the record is consumed) and returns it.
 */
#define RECORD_TURN_NS 20000000ull
#define RECORD_TURN_OVER (-ECANCELED)
int handle_record_in_turn(void *ctx, void *data, size_t size);

/* fetched.c: a line probe's values (--fetch), kept for the sample they precede */
void fetched_keep(struct recorder *r, const void *rec, size_t size);
/* The sample's values, if any: printed (--print), and frame uf[0]; the new nu (<= max). */
int fetched_frame(struct recorder *r, const struct sample_event *e, struct uframe *uf, int nu,
		  int max);
/* --print-stacks: the stack of the sample whose line fetched_frame printed, under it. */
void fetched_print_stack(struct recorder *r, const struct stack_key *key);
void fetched_free(struct recorder *r);

/* inuse.c: record -e alloc --inuse; each does nothing without it */
int inuse_open(struct recorder *r);	/* 0, or -1: out of memory */
void inuse_close(struct recorder *r);
/* The recording stops (end_ns): blocks are neither filed nor freed any more. */
void inuse_stop(struct recorder *r);
/* At the drain, the programs detached: the blocks held, onto their stacks. */
void inuse_read(struct recorder *r);
/* An agent's period: the blocks in use now, onto its stacks. */
void inuse_period(struct recorder *r);
/* What the figures miss (stats.c's report_losses). */
void inuse_report_losses(struct recorder *r, const uint64_t st[STAT_NR]);

/* setup.c */
/* Where the kernel stores counted stacks, for user space to read. */
struct counted_fds counted_fds_of(struct recorder *r);
/* Agent periods: flip the kernel stack maps, keeping the stacks keys still name. */
void kstacks_flip(struct recorder *r);
/* Open and load the capture program (falling back to copying stacks); 0 or -1. */
int open_bpf(struct recorder *r);
/* --fetch compiled at every event before anything loads: what it cannot read said; 0 or -1. */
int fetch_check_all(struct recorder *r);
int trace_tgid(struct recorder *r, uint32_t tgid);
int attach_all(struct recorder *r);
int attach_process_tracking(struct recorder *r);

/*
 * walkers.c: whether the interpreter walkers go in with the capture program
 * (an interpreter is traced from the start), else loaded by walkers_load()
 * (0 or -errno, said on stderr) when the first one is recognized.
 */
bool walkers_wanted_at_start(const struct record_opts *o);
/* Hand c's entry points' events to w's workers in slot (CAPTURE_WORKER_*); 0 or -errno. */
int workers_set(struct capture_bpf *c, struct capture_bpf *w, uint32_t slot);
int walkers_load(void *recorder);
void walkers_free(struct recorder *r);
/* --stats: where the walkers came from. */
void walkers_report(struct recorder *r);

/* The binaries of n frames are named by a stack: binary_cache_sweep keeps them. */
static inline void uframes_mark_sampled(const struct uframe *uf, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (uf[i].bin)
			uf[i].bin->sampled = true;
}

/*
 * reclaim.c: free what processes that exited a while ago held, at most once
 * a second; read_ns: when the ring was last read to its end (run_loop).
 */
void reclaim_exited(struct recorder *r, uint64_t read_ns);

/* stats.c */
void read_stats(struct recorder *r, uint64_t out[STAT_NR]);
void report_losses(struct recorder *r, const uint64_t st[STAT_NR]);
void report_stats(struct recorder *r, const uint64_t st[STAT_NR]);
/* CPU time the targets have used so far (-a: the machine's busy time), in ns. */
uint64_t targets_cpu_ns(struct recorder *r);
void report_debug_cache(void);

#endif /* STITCH_RECORD_INTERNAL_H */
