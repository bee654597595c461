/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Another command driving record's pipeline (stitch stalls, latency): the same
 * targets, BPF capture, process model, unwinding and symbolization, with its
 * own BPF programs beside record's and its own use of each unwound stack.
 * Every hook is optional.
 */
#ifndef STITCH_RECORD_HOOKS_H
#define STITCH_RECORD_HOOKS_H

#include <stdbool.h>
#include <stdint.h>

struct capture_bpf;
struct sample_event;
struct stack_key;

struct record_hooks {
	void *ctx;
	/* capture.bpf.c is opened, not loaded: share maps, set read-only data. */
	int (*before_load)(void *ctx, struct capture_bpf *skel);
	/* Everything is attached; the target (-- COMMAND) has not started yet. */
	int (*attached)(void *ctx);
	/* One unwound sample, instead of counting it in record's stack table. */
	void (*sample)(void *ctx, const struct sample_event *e, const struct stack_key *key,
		       uint32_t key_bytes);
	/*
	 * An off-CPU stack taken at time_ns and the ns its interval weighs,
	 * instead of counting it (needs --per-event: the kernel counts none).
	 */
	void (*weighed)(void *ctx, uint32_t tid, uint64_t time_ns, const struct stack_key *key,
			uint32_t key_bytes, uint64_t ns);
	/* Once per turn of the event loop, after the samples of the turn. */
	void (*poll)(void *ctx);
	/* Recording ended, every sample delivered: write output instead of record. */
	int (*finish)(void *ctx, double seconds);
};

/* stitch record's main, with hooks (NULL: plain record).  argv[0] names the command. */
int record_main(int argc, char **argv, const struct record_hooks *hooks);

/*
 * What another command asks record to trace, said as record's options:
 * every event is sent (--per-event), as the command matches each stack to a
 * thread and a time of its own (a stall, a call).
 */
struct record_request {
	const char *name;		/* argv[0]: "stitch stalls" */
	const char *event;		/* -e: "cpu", "wall" */
	const char *freq;		/* -F; NULL: 999 */
	const char *duration, *pids;	/* -d, -p; NULL: none */
	bool all;			/* -a */
	bool wakers;			/* --wakers */
	char **command;			/* -- COMMAND, NULL-terminated; NULL: none */
};

/* record_main for another command, with r said as record's options: 0, or an exit status. */
int record_run(const struct record_request *r, const struct record_hooks *hooks);

/*
 * For a before_load hook: record's samples gated by the driving command's
 * own programs, through their maps of gated threads and traced processes.
 * 0, or -1 (said, as who).
 */
int record_gate_share(struct capture_bpf *skel, const char *who, int gate_threads_fd,
		      int traced_tgids_fd);

#endif /* STITCH_RECORD_HOOKS_H */
