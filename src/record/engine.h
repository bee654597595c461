/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recording engine that stitch record, stalls and latency drive (as
 * perf's record, top and trace share struct record_opts and struct target):
 * typed options in, the targets traced with the BPF capture program, each
 * stack unwound, symbolized and counted or handed to the driving command,
 * until the end; then the command's finish hook writes what it wants.
 * A command parses its own options (record/run_opts.h has the ones all of
 * them share) and calls record_run(); none builds an argv for another.
 */
#ifndef STITCH_RECORD_ENGINE_H
#define STITCH_RECORD_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/events.h"

#define MAX_EVENTS 64
#define MAX_PIDS 1024
/*
 * Unwind tables' memory: allocated whole when the programs load (~0.2 ms a
 * MiB of kernel time here: 64 MiB was ~13 of a 1 s profile's ~70 ms).  A
 * few processes' binaries take well under 16 (a C program and libc:
 * 0.5 MiB; python3.11: ~3); the whole machine's, more.  Beyond it, the
 * tables that do not fit are copied and unwound in user space.
 */
#define DEFAULT_TABLE_MB 16
#define DEFAULT_TABLE_MB_ALL 64

struct binary_cache;
struct capture_bpf;
struct sample_event;
struct stack_key;
struct stack_table;

/* What is traced: exactly one of pids, all and command. */
struct target {
	uint32_t pids[MAX_PIDS];	/* -p: thread group ids */
	int npids;
	bool all;			/* -a: the whole system */
	char **command;			/* -- COMMAND, NULL-terminated: run and follow it */
};

/* How to record: record_opts_init()'s defaults, then what the command says. */
struct record_opts {
	struct target target;
	struct event_spec events[MAX_EVENTS];
	const char *event_names[MAX_EVENTS];
	int nevents;
	int freq;			/* cpu samples per second */
	double duration;		/* seconds; 0: until Ctrl-C or the targets end */
	uint32_t stack_bytes;		/* user stack copied per event */
	size_t ringbuf_mb;		/* 0: sized by what goes through it */
	bool has_ringbuf_flag;		/* the command takes --ringbuf-mb (a loss's advice names it) */
	bool stats;			/* --stats: what recording cost, on stderr */
	bool time_walks;		/* --stats=walks */
	bool no_lines;
	bool no_interp;
	int unwind_mode;		/* enum kunwind_mode; the engine may fall back to copy */
	bool unwind_asked;		/* --unwind given: no silent fallback */
	bool per_event;			/* every event to user space: none counted in the kernel */
	uint64_t min_block_ns;		/* offcpu: shorter intervals dropped */
	bool no_runnable;		/* offcpu: no [runnable] time */
	bool wakers;			/* offcpu: each blocked stack joined to its waker's */
	uint64_t alloc_period;		/* alloc: bytes between samples on average; 1: every */
	bool inuse;			/* alloc: what is still allocated at the end, not what was */
	uint64_t min_age_ns;		/* --inuse: younger blocks left out */
	double max_table_mb;		/* 0: the default for the targets */
	const char *fetch[8];		/* --fetch: read at every line probe (probe/fetch.h) */
	int nfetch;
	bool print_values;		/* --print: a line per event with its values */
	bool print_stacks;		/* --print-stacks: and its stack under it */
};

/* What a recording gives the finish hook. */
struct record_result {
	double seconds;			/* from the start of the targets' tracing */
	uint64_t start_unix_ns;		/* its wall-clock time */
	uint64_t end_unix_ns;		/* a period's end (hooks->period): the next one's start */
	struct stack_table *stacks;	/* the stacks counted (none a sample hook took) */
	/* The binaries they name: those of exited processes may let go once named */
	struct binary_cache *bins;
};

/*
 * What a command does with the engine.  Every hook is optional; a command
 * with its own BPF programs (stalls, latency) shares maps in before_load,
 * and its gate then decides which threads are sampled.
 */
struct record_hooks {
	void *ctx;
	/* capture.bpf.c is opened, not loaded: share maps, set read-only data. */
	int (*before_load)(void *ctx, struct capture_bpf *skel);
	/* Everything is attached; the target (-- COMMAND) has not started yet. */
	int (*attached)(void *ctx);
	/* One unwound sample, instead of counting it in the engine's stack table. */
	void (*sample)(void *ctx, const struct sample_event *e, const struct stack_key *key,
		       uint32_t key_bytes);
	/*
	 * An off-CPU stack taken at time_ns and the ns its interval weighs,
	 * instead of counting it (needs per_event: the kernel counts none).
	 */
	void (*weighed)(void *ctx, uint32_t tid, uint64_t time_ns, const struct stack_key *key,
			uint32_t key_bytes, uint64_t ns);
	/* Once per turn of the event loop, after the samples of the turn. */
	void (*poll)(void *ctx);
	/*
	 * Every period_s seconds (0: never), the stacks counted since the last
	 * period (res: the period's start and length), emptied after the hook
	 * returns; the last, shorter period comes when recording ends, before
	 * finish, whose stacks are then empty.  Counted in the kernel, a period
	 * ends at a flip of the kernel's count epoch, read a turn later.
	 */
	double period_s;
	int (*period)(void *ctx, const struct record_result *res);
	/* Recording ended, every sample delivered: write the output; 0 or -1. */
	int (*finish)(void *ctx, const struct record_result *res);
};

/* The defaults: no events, no target, unwinding in the kernel, counting there. */
void record_opts_init(struct record_opts *o);

/*
 * Event name (record/events.h; wall is cpu and offcpu) added to o: 0, or
 * -1 with why in err.
 */
int record_opts_add_event(struct record_opts *o, const char *name, char *err, size_t errlen);

/* What record_opts_add_event allocated. */
void record_opts_free(struct record_opts *o);

/*
 * Record o's events of o's target until the end (o->duration, Ctrl-C, the
 * targets gone), with hooks (NULL: none).  The caller has checked its
 * outputs and privileges.  0, or the exit status (1; 127 when COMMAND
 * cannot run).
 */
int record_run(struct record_opts *o, const struct record_hooks *hooks);

/*
 * record_run for a command that takes each sample itself (stalls, latency):
 * event (cpu, wall) of o's target, every one sent to user space for the
 * hooks (per_event), none counted in the kernel.
 */
int record_run_each(struct record_opts *o, const char *event, const struct record_hooks *hooks);

/*
 * For a before_load hook: the engine's samples gated by the driving command's
 * own programs, through their maps of gated threads and traced processes.
 * 0, or -1 (said, as who).
 */
int record_gate_share(struct capture_bpf *skel, const char *who, int gate_threads_fd,
		      int traced_tgids_fd);

#endif /* STITCH_RECORD_ENGINE_H */
