/* SPDX-License-Identifier: GPL-2.0 */
/* Attaching capture.bpf.c's programs to the events the user asked for. */
#ifndef STITCH_ATTACH_H
#define STITCH_ATTACH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "capture/alloc_leaves.h"
#include "record/events.h"

struct capture_bpf;
struct bpf_link;
struct fetch_site;

/* The allocator files -e alloc attaches at most (each holds up to 20 uprobes). */
#define ALLOC_MAX_LIBS 16

struct attacher {
	struct capture_bpf *skel;
	int freq_hz;		/* cpu sampling frequency */
	const uint32_t *pids;	/* targets (-p), to find libraries by name */
	int npids;
	bool all;		/* -a: -e alloc attaches every process's libc */
	const char *command;	/* -- COMMAND's first word: -e alloc finds what it links */
	/*
	 * Syscall entry events by the raw tracepoint sys_enter (on_raw_sys_enter),
	 * where the syscall tracepoints give no kernel stack (KFEAT_SYSCALL_TP_KSTACK).
	 */
	bool raw_syscalls;
	bool raw_attached;
	/*
	 * Kernels without bpf_loop, cookies and typed tasks (5.10): the legacy
	 * workers, attached directly, told events apart without cookies
	 * (capture.bpf.c's legacy_idx, legacy_tp_events).
	 */
	bool legacy;
	/* --fetch: the expressions, and each line probe address's (fetch_sites[site]) */
	const char *const *fetch;
	int nfetch;
	bool dry;		/* attach_fetch_check(): compile, attach nothing */
	struct fetch_site *fetch_sites;
	uint32_t nfetch_sites;
	struct bpf_link **links;
	int nlinks, cap;
	/* -e alloc: the allocators' files, and their mmap and sbrk, to tell their own calls */
	struct alloc_leaves alloc_leaves;
	/* -e alloc: the allocator files attached (each once), and the event's number */
	const struct event_spec *alloc_ev;
	uint32_t alloc_idx;
	struct { dev_t dev; ino_t ino; } alloc_seen[ALLOC_MAX_LIBS];
	int alloc_nseen;
	bool alloc_full_said;
};

/*
 * Attach event number idx (its BPF cookie).  On failure, err holds one line
 * saying what went wrong and what to do; returns -errno.
 */
int attach_event(struct attacher *a, const struct event_spec *ev, uint32_t idx,
		 char *err, size_t errlen);
void attach_destroy(struct attacher *a);

/* -e alloc: is the file at path (a mapping's) named as an allocator's library? */
bool attach_alloc_is_lib(const char *path);

/*
 * -e alloc, once attached: traced process pid mapped an allocator's file,
 * path as it sees it (a new process in a container, a command run in
 * another root, a dlopen).  Attached unless that file was: 1 if attached
 * now, 0 if there was nothing to do, -errno (said in err).
 */
int attach_alloc_late(struct attacher *a, uint32_t pid, const char *path, char *err,
		      size_t errlen);

/*
 * --fetch at event ev compiled and thrown away, before the programs load:
 * what it cannot read is said now, not after seconds of loading.  0, or
 * -errno with err as attach_event's.
 */
int attach_fetch_check(struct attacher *a, const struct event_spec *ev, char *err,
		       size_t errlen);

/* Mount tracefs if the kernel has it but nobody mounted it (libbpf needs it). */
int ensure_tracefs(char *err, size_t errlen);

#endif /* STITCH_ATTACH_H */
