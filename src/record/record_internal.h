/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stitch record's parts, as the files of src/record/ share them: the options
 * (options.c), the recorder's state, sample decoding (decode.c), BPF setup
 * and attaching (setup.c), statistics and losses (stats.c), writing the
 * profile (write.c), and the run loop (record.c), which calls the others;
 * none of them calls back into it.  Not for other commands: they drive
 * record through record_hooks.h.
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

#include "capture/attach.h"
#include "capture/capture.h"
#include "capture/events.h"
#include "interp/interp_user.h"
#include "kunwind/kunwind.h"
#include "offcpu/offcpu_pending.h"
#include "proc/binary.h"
#include "proc/perf_tracker.h"
#include "proc/procs.h"
#include "profile/stacks.h"
#include "record/record_hooks.h"
#include "unwind/unwind.h"

#define MAX_EVENTS 64
#define MAX_PIDS 1024
#define MAX_UFRAMES 1024
#define DEFAULT_FREQ 99
#define DEFAULT_TOP 10
#define MAX_OUTPUTS 8
/*
 * Unwind tables' memory: allocated whole when the programs load (~0.2 ms a
 * MiB of kernel time here: 64 MiB was ~13 of a 1 s profile's ~70 ms).  A
 * few processes' binaries take well under 16 (a C program and libc:
 * 0.5 MiB; python3.11: ~3); the whole machine's, more.  Beyond it, the
 * tables that do not fit are copied and unwound in user space.
 */
#define DEFAULT_TABLE_MB 16
#define DEFAULT_TABLE_MB_ALL 64

struct record_opts {
	struct event_spec events[MAX_EVENTS];
	const char *event_names[MAX_EVENTS];
	int nevents;
	uint32_t pids[MAX_PIDS];
	int npids;
	bool all;
	int freq;
	double duration;
	const char *outputs[MAX_OUTPUTS];	/* -o, repeatable */
	int formats[MAX_OUTPUTS];
	int noutputs;
	uint32_t stack_bytes;
	size_t ringbuf_mb;
	int top;
	bool stats;
	bool time_walks;		/* --stats=walks */
	bool no_lines;
	bool no_interp;
	char **command;
	int unwind_mode;		/* enum kunwind_mode */
	bool unwind_asked;		/* --unwind given: no silent fallback */
	bool per_event;			/* --per-event: no counting in the kernel */
	uint64_t min_block_ns;		/* offcpu: --min-block */
	bool wall;			/* cpu + offcpu, both weighed in nanoseconds */
	uint32_t wall_cpu_idx;		/* wall: the cpu event's index */
	bool no_runnable;		/* offcpu: --no-runnable */
	bool wakers;			/* offcpu: --wakers */
	bool force;			/* -o may replace a symlink */
	double max_table_mb;		/* 0: the default for the targets */
};

struct recorder {
	struct record_opts *o;
	const struct record_hooks *hooks;	/* another command driving us, or NULL */
	struct capture_bpf *skel;
	struct capture_bpf *walkers;	/* the interpreter walkers' copy, once loaded (walkers.c) */
	/*
	 * How both open capture.bpf.o: relocated against the subset of the
	 * kernel's BTF its relocations need (util/core_btf.h), if there is one.
	 */
	struct bpf_object_open_opts open_opts;
	double walkers_load_s;		/* how long loading it took */
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
	uint64_t unwind_stops[UNWIND_STOP_BAD + 1];
	/* kunwind */
	struct kunwind kw;
	bool kw_ready;
	uint64_t check_compared, check_mismatched, check_prefix;
	double kw_setup_s;		/* -p: targets' tables loaded and lists written */
	int64_t kagg_pending;		/* epoch to read at the next poll, or -1 */
	double kagg_next_flip;
	/* scratch for building one stack key */
	uint8_t *key_buf;
	struct unwind_frame *uframes;
	struct uframe *check_uf;	/* --unwind=check: the copy's frames */
	struct interp_state interp;	/* interpreter frames (interp_*.c) */
	struct offcpu_pending offcpu;	/* off-CPU samples awaiting their weight */
};

/* options.c: 0, or the exit status of a usage error (said on stderr). */
int parse_opts(int argc, char **argv, struct record_opts *o);

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
int handle_sample_in_turn(void *ctx, void *data, size_t size);

/* setup.c */
/* Where the kernel stores counted stacks, for user space to read. */
struct kagg_fds kagg_fds_of(struct recorder *r);
/* Open and load the capture program (falling back to copying stacks); 0 or -1. */
int open_bpf(struct recorder *r);
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

/* stats.c */
void read_stats(struct recorder *r, uint64_t out[STAT_NR]);
void report_losses(struct recorder *r, const uint64_t st[STAT_NR]);
void report_stats(struct recorder *r, const uint64_t st[STAT_NR]);
/* CPU time the targets have used so far (-a: the machine's busy time), in ns. */
uint64_t targets_cpu_ns(struct recorder *r);
void report_debug_cache(void);

/* write.c: the profile to every -o; 0 or -1. */
int write_output(struct recorder *r, double seconds, uint64_t start_unix_ns);

#endif /* STITCH_RECORD_INTERNAL_H */
