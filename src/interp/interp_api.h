/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Interpreter frames, user side: the table of supported versions, per-process
 * detection, naming frames from the target's memory, and splicing them into
 * the native stack.  See interp.h for the whole flow.  What code outside
 * src/interp uses; the modules' shared internals are in interp_internal.h, each
 * language's in its folder.
 */
#ifndef STITCH_INTERP_API_H
#define STITCH_INTERP_API_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/hashmap.h"
#include "interp/interp.h"
#include "proc/procs.h"
#include "profile/stacks.h"

/* ---- languages.c: what we know about each supported version ---- */

struct interp_version {
	const char *lang_name;		/* "python" */
	const char *version;		/* "3.11" */
	enum interp_lang lang;
	const char *exe_name;		/* executable with the interpreter linked in */
	const char *exe_prefix;		/* the same, by prefix ("perl5.36.0"), or NULL */
	const char *lib_prefix;		/* or the shared library carrying it */
	const char *eval_func;		/* native loop whose frames the interpreter frames replace */
	uint32_t tss_key_off;		/* python: _PyRuntime.gilstate.autoTSSkey._key */
	const char *tls_sym;		/* ruby: the TLS variable holding the ec */
	struct interp_layout layout;
};

/*
 * All supported versions, over all languages (each lists its own in its
 * folder), in the order of the BPF interp_layouts map.
 */
size_t interp_version_count(void);
const struct interp_version *interp_version_at(size_t i);

/* What the walkers need of glibc, per version. */
struct interp_glibc {
	int major, minor;		/* the version these offsets are of */
	/* From the thread pointer (interp_proc_cfg): struct pthread.specific_1stblock, */
	int32_t pthread_specific;
	int32_t pthread_self;		/* and struct pthread itself */
	uint32_t r_map;			/* struct r_debug.r_map */
	uint32_t lm_name, lm_next, lm_tls_modid;	/* struct link_map */
};

/* NULL if we do not know this glibc (detect.c). */
const struct interp_glibc *interp_glibc_layout(int major, int minor);

/*
 * Which interpreter a module's basename is, if any: the supported version,
 * or lang_out and ver_out naming an unsupported one (e.g. "python", "3.12").
 */
const struct interp_version *interp_version_for_module(const char *base, char *lang_out,
							size_t lang_len, char *ver_out,
							size_t ver_len);

/*
 * Whether a word of a command line names an interpreter: a version's
 * executable or library, another version of one ("python3.14"), or a
 * language's plain name ("python3", "ruby", "perl5.40.1").
 */
bool interp_command_word_names_interpreter(const char *word);

/*
 * A root of stitch latency (-e <name>:FUNCTION; interp.h "Roots"): where
 * its probes go and what its kernel side reads, as its language's
 * root_find found them.
 */
struct interp_root {
	char binary[PATH_MAX];		/* the interpreter's executable or library */
	struct interp_layout layout;	/* its language (layout.lang) and version's offsets */
	struct interp_root_probe_at {
		enum interp_root_probe kind;
		uint64_t off;		/* file offset in binary, for a uprobe */
		const char *what;	/* the function there, for messages */
	} probes[INTERP_ROOT_PROBES];
	int nprobes;
};

struct interp_ops;

/* The language a root's spec names ("perl" of "perl:handle"), or NULL; *name: what follows. */
const struct interp_ops *interp_root_lang(const char *spec, const char **name);

/* interp_root_find's failures; why says more. */
enum interp_root_err {
	INTERP_ROOT_BAD_NAME = -1,	/* no function name of the language (why: what one is) */
	INTERP_ROOT_NOT_FOUND = -2,	/* no interpreter we follow (why: which, and which we do) */
	INTERP_ROOT_NONE = -3,		/* the language has no root_find: its calls cannot be roots */
};

/*
 * The root of function name (a spec's part after "<name>:") of language
 * ops in the target: pid > 0, that process's interpreter; command, the
 * interpreter of -- COMMAND; else the system's.  0, or an enum
 * interp_root_err and why.
 */
int interp_root_find(const struct interp_ops *ops, struct interp_root *r, const char *name,
		     pid_t pid, char *const *command, char *why, size_t why_len);

/* The languages whose calls can be roots, as "perl:NAME" (joined by ", " and " or "). */
void interp_root_forms(char *buf, size_t len);

/* ---- state.c, detect.c, splice.c: the recorder's interpreter state ---- */

/* struct interp_name, a named interpreter frame: profile/stacks.h. */

struct interp_proc;
struct interp_ops;
struct groups;

/* A language's own caches for one recording (its ops->state_new). */
struct interp_lang_state {
	const struct interp_ops *ops;
	void *state;
};

struct interp_state {
	int procs_fd;			/* BPF interp_procs map */
	/*
	 * The BPF side's interp_any, or NULL: set before the first process
	 * goes into interp_procs, so that until then events skip the lookup.
	 */
	volatile uint32_t *any_procs;
	/*
	 * Where the walkers are loaded on demand (record: the capture program
	 * without them, walkers.c), called once before the first process goes
	 * into interp_procs; 0 or -errno.  NULL: they are loaded.
	 */
	int (*load_walkers)(void *ctx);
	void *walkers_ctx;
	int walkers_err;		/* load_walkers' result, once called */
	bool no_lines;
	bool disabled;			/* --no-interp */
	struct hmap procs;		/* pid -> struct interp_proc */
	struct hmap names;		/* interned struct interp_name */
	struct hmap codes;		/* (pid, code object) -> decoded code */
	struct interp_lang_state *langs;	/* languages with caches of their own */
	size_t nlangs;
	struct interp_event *pending;	/* slots by tid: the event waiting for its sample */
	uint8_t *pending_strs;		/* each slot's walk strings (perl), INTERP_STR_BYTES */
	uint32_t *pending_str_len;
	struct hmap defs;		/* (pid, ihash) -> walk counted in the kernel, named (counted.c) */
	struct groups *def_g;		/* scratch: a definition's groups */
	struct groups *named_g;		/* a sample's walk, named ahead (interp_name_walk) */
	uint32_t named_tid;
	uint64_t named_time_ns;
	bool named;			/* named_g holds (named_tid, named_time_ns)'s walk */
	uint64_t defined;		/* definitions named */
	uint64_t unowned_defs;		/* ever defined for a pid with no interp_proc (none expected) */
	uint32_t cfg_gen;		/* the last interp_proc_cfg.gen written */
	int layouts_fd;			/* BPF interp_layouts map */
	/* Processes' own layouts (interp_proc.own_layout), in slots after the versions' */
	struct interp_layout own_layouts[INTERP_MAX_LAYOUTS];
	uint32_t nown_layouts;
	uint64_t unstitched;		/* stacks whose frame groups did not match */
	uint64_t in_transition;		/* stacks stitched without an entry frame in transition */
	uint64_t walk_errors;		/* walks that ended on a failed read or check */
};

int interp_init(struct interp_state *st, int procs_fd, int layouts_fd, bool no_lines);
void interp_free(struct interp_state *st);

/*
 * Look at a process's mappings again if they changed; set or clear its BPF
 * config.  True when the BPF side walks its threads' interpreter frames.
 */
bool interp_proc_update(struct interp_state *st, struct proc *proc);
/*
 * The process is gone (procs_reap): its entry, its BPF config and its
 * walks' definitions go (they name binaries that may go too).
 */
void interp_proc_forget(struct interp_state *st, uint32_t pid);
void interp_defs_forget(struct interp_state *st, uint32_t pid);

/* Keep an interp_event until its sample arrives. */
void interp_stash(struct interp_state *st, const void *data, size_t size);

/*
 * Name the walk kept for the sample (tid, time_ns) now, before its native
 * unwind: the walk points at the process's live code objects, and a
 * binary's first unwind (reading its CFI) took 50 ms under ASan, 90 on a
 * busy machine, long enough for a process to exit meanwhile and leave the
 * whole walk unnamed.  interp_stitch splices what this named.
 */
void interp_name_walk(struct interp_state *st, struct proc *proc, uint32_t tid, uint64_t time_ns,
		      bool lost);

/*
 * Replace the interpreter loop's native frames in uf[0..nu) (innermost
 * first) by the interpreter frames walked for this sample, if any.
 * native_complete: the native unwind reached the end of the stack.
 * lost: the walk's record was dropped (ring full): the innermost
 * interpreter loop frame gets a marker instead.
 * Returns the new count (<= cap).
 */
int interp_stitch(struct interp_state *st, struct proc *proc, uint32_t tid, uint64_t time_ns,
		  struct uframe *uf, int nu, int cap, bool native_complete, bool lost);

/*
 * A walk sent once as a definition (interp_event.ihash set, see capture_walk.bpf.h):
 * name it now, for the keys counted in the kernel under its hash.  proc: its
 * process, as it was at the walk.
 */
void interp_define(struct interp_state *st, struct proc *proc, const void *data, size_t size);

/*
 * The interpreter frames of a key counted in the kernel with ihash, spliced
 * into uf[0..nu) as interp_stitch does (INTERP_IHASH_LOST: the marker).
 * Returns the new count, or -EAGAIN when its definition has not been read
 * yet (it is still in the ring).
 */
int interp_counted_frames(struct interp_state *st, uint32_t pid, uint64_t ihash,
			  struct uframe *uf, int nu, int cap, bool native_complete);

/* Read target memory; 0 or -errno.  Exposed for tests. */
int interp_read(pid_t pid, uint64_t addr, void *buf, size_t len);

#endif /* STITCH_INTERP_API_H */
