/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stitch snapshot, the report: threads already unwound and named become
 * groups (same state, same frames), printed as text or written as JSON.
 * Nothing here touches BPF or /proc, so the unit tests drive it directly.
 */
#ifndef STITCH_SNAP_REPORT_H
#define STITCH_SNAP_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* since_ns where the kernel does not say (snapshot from /proc). */
#define SNAP_SINCE_UNKNOWN UINT64_MAX

struct snap_thread {
	uint32_t pid, tid, round;
	char comm[64];		/* printable: escaped by snap_clean */
	char state;		/* R S D T t X Z P I, as /proc/PID/stat shows */
	bool on_cpu;		/* running when read: its stacks may be stale */
	bool in_syscall;
	long syscall_nr;
	uint64_t cpu_ns;	/* CPU time so far */
	uint64_t since_ns;	/* since it last ran (0 if running; SNAP_SINCE_UNKNOWN) */
	char *wait;		/* what it waits on, printable, or NULL */
	const char *note;	/* why its stack is short or missing, or NULL */
	char *stack;		/* frame strings, innermost first, each ending in '\n' */
	int nframes;
	int group;		/* index in its round's sorted groups */
};

struct snap_group {
	size_t *members;	/* indices into the thread array */
	size_t count;
	uint64_t min_since, max_since;
};

/* The /proc state letter of a task's __state and exit_state. */
char snap_state_letter(uint32_t state, uint32_t exit_state);

/* "read", "futex", ... for an x86-64 syscall number; NULL if not one we name. */
const char *snap_syscall_name(long nr);
/* Does this syscall's first argument name a file descriptor? */
bool snap_syscall_takes_fd(long nr);

/*
 * Copy untrusted text (a link target, a comm) into dst, at most len - 1
 * bytes: printable ASCII kept, anything else as \xNN, cut with "..." if long.
 */
void snap_clean(char *dst, size_t len, const char *src, size_t srclen);

/* "2.1 s", "340 ms", "12 us" */
void snap_fmt_duration(char *buf, size_t len, uint64_t ns);

/*
 * Group threads t[0..n) (one round) by state and frames, set each one's
 * group, and return the groups sorted by count, then longest time since
 * last ran (descending), then first tid; -1 on allocation failure.
 */
int snap_group_threads(struct snap_thread *t, size_t n, struct snap_group **groups);
void snap_groups_free(struct snap_group *g, int ng);

/* Text: one block per group (or per thread with no_group). */
void snap_print_text(FILE *f, const struct snap_thread *t, size_t n,
		     const struct snap_group *g, int ng, bool no_group);

/* JSON: one object per thread; the caller writes the surrounding array. */
void snap_print_json(FILE *f, const struct snap_thread *t);

#endif /* STITCH_SNAP_REPORT_H */
