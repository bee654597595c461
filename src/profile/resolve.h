/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Turning an aggregated stack into named frames, outermost first: user
 * frames (with their inlined frames) then kernel frames.  A frame we cannot
 * name keeps its module and offset (module+0xOFF) or becomes [unknown];
 * it never borrows a neighbouring symbol's name.
 */
#ifndef STITCH_RESOLVE_H
#define STITCH_RESOLVE_H

#include <stdint.h>
#include <stdio.h>

#include "util/hashmap.h"
#include "profile/profile.h"
#include <stdbool.h>

#include "profile/stacks.h"

struct kallsyms;
struct ksym_namer;

struct named_frame {
	const char *name;
	const char *file;	/* NULL if unknown; kernel frames: "[module]" or NULL */
	unsigned int line;
	uint8_t kind;		/* enum frame_kind */
	const char *module;	/* binary path, "[kernel]" or "[ext4]"; NULL for markers */
	uint64_t addr;		/* ELF vaddr / kernel address; 0 for markers */
};

struct resolver {
	struct kallsyms *ks;	/* may be NULL: kernel frames stay addresses */
	/*
	 * Set by resolver_name_kernel_lazily(): at the first kernel frame,
	 * ask the kernel to name addresses (ksym_namer.h), or, if it cannot,
	 * read this kallsyms file.  Either costs nothing for a profile
	 * without kernel frames.
	 */
	const char *ks_path;
	bool ks_tried;
	struct ksym_namer *kn;
	/* resolver_name_kernel_shared(): the caller's namer, kept across resolvers */
	struct ksym_namer **shared_kn;
	bool *shared_kn_tried;
	struct hmap knames;	/* kernel address -> struct kname, with kn */
	struct hmap cache;	/* user frame -> names */
	/* resolver_release_gone(): binaries whose symbols go once their frames are named */
	struct binary_cache *release_gone;
	bool verbose;		/* STITCH_DEBUG: say each binary whose symbols naming read */
	char **strings;		/* names we formatted ourselves */
	size_t nstrings, capstrings;
};

int resolver_init(struct resolver *r, struct kallsyms *ks);
/*
 * profile_from_stacks() names the frames of binaries no live process of bins
 * maps binary by binary, each one's symbols let go before the next's are
 * read, rather than all of them held at once.
 */
void resolver_release_gone(struct resolver *r, struct binary_cache *bins);
/*
 * Kernel frames named by the running kernel when first needed, else from
 * the kallsyms file at path; freed by resolver_free().
 */
void resolver_name_kernel_lazily(struct resolver *r, const char *path);
/*
 * The same with the caller's kernel namer, kept across resolvers: *kn is
 * opened at the first kernel frame unless *tried (then set), and closed by
 * the caller (ksym_namer_close).  Only the program is kept: every resolver
 * asks the kernel again, so a BPF program or module loaded since is named
 * as it is now.
 */
void resolver_name_kernel_shared(struct resolver *r, const char *path, struct ksym_namer **kn,
				 bool *tried);
void resolver_free(struct resolver *r);
/*
 * A stack about to lose its pid (merged across threads and processes):
 * name its JIT frames now, as UFRAME_JIT, from pid's perf map; a walk that
 * stopped at one gets its UFRAME_CUT (room: cap).  Returns the new count.
 */
int resolve_jit_frames(uint32_t pid, struct uframe *uf, int n, int cap);
/* Frames of k, outermost first; returns how many were written (<= max). */
int resolve_stack(struct resolver *r, const struct stack_key *k, struct named_frame *out, int max);

/*
 * One frame as a line of a printed stack (stalls, snapshot), without the
 * newline: name, its mark (frame_line_mark), then after sep the kernel
 * module, or (file:line) / (file) for user and interpreter frames.
 */
void resolve_frame_line(FILE *f, const struct named_frame *nf, const char *name,
			const char *sep);

#define RESOLVE_MAX_FRAMES 4096

/*
 * Name the user frames of every stack of t now (with resolver_release_gone,
 * binary by binary), so that profiles of parts of t made after with r open
 * no binary again: an agent's period split into groups (one per service)
 * named each group binary by binary, and a library of exited processes
 * that two groups share was read, let go, and read again.
 */
void resolver_name_all(struct resolver *r, struct stack_table *t);

/*
 * Resolve every stack of t into p (one sample per stack, with its pid, tid,
 * comm and event name), recording the build-ids of the binaries involved.
 */
int profile_from_stacks(struct profile *p, struct stack_table *t, struct resolver *r,
			const char *const *event_names, int nevents);

#endif /* STITCH_RESOLVE_H */
