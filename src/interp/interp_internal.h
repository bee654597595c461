/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Interpreter frames, user side: what the common code (common.c, state.c,
 * detect.c, splice.c, languages.c) and the language modules (python/, ruby/,
 * perl/) share.  A language module includes this header and calls common.c;
 * the rest reaches a language only through its struct interp_ops, listed in
 * languages.c.  Nothing here names a language.
 */
#ifndef STITCH_INTERP_INTERNAL_H
#define STITCH_INTERP_INTERNAL_H

#include <gelf.h>

#include "interp/interp_api.h"

/* Events waiting for their sample, by tid: a sample follows its walk closely. */
#define INTERP_PENDING_SLOTS 256

struct interp_ops;

/* A process running a supported interpreter, as found in its mappings. */
struct interp_proc {
	struct hmap_node node;
	uint32_t pid;
	uint64_t gen;			/* proc->gen when last looked at */
	const struct interp_version *ver;	/* NULL: no interpreter */
	const struct interp_ops *ops;	/* ver's language (valid while ver is set) */
	struct binary *eval_bin;	/* holds eval_func */
	uint64_t eval_start, eval_end;	/* its ELF vaddr range */
	/* a second part of it in bin the symbol does not cover (gcc's split), or 0, 0 */
	uint64_t eval_part_start, eval_part_end;
	bool retry;			/* found, but not ready yet (ld.so still loading) */
	/*
	 * Its cfg is in interp_procs: only then is there an entry to delete
	 * (a look that finds no interpreter, an exit).  Most of a machine's
	 * processes never get one, and were each a failing delete per look.
	 */
	bool published;
	/*
	 * The BPF config being built: the language fills in where its
	 * runtime keeps things, detect.c the layout, language and glibc.
	 */
	struct interp_proc_cfg cfg;
	/*
	 * The language's own per-process data (interp_proc_priv), kept across
	 * looks at the same process while the language stays the same.
	 */
	void *priv;
	const void *priv_owner;
	/*
	 * A layout of the process's own, read from it by the language's
	 * from_module or attach (python 3.13: its _Py_DebugOffsets), instead of
	 * its version's: written to a slot of interp_layouts shared by every
	 * process with the same one (interp_layout_slot).  Cleared at each look.
	 */
	bool own_layout;
	struct interp_layout layout;
};

/* A code object read from the target, with the fields that identify it. */
struct interp_code {
	struct hmap_node node;
	uint32_t pid;
	uint64_t addr;
	uint64_t id1, id2;
	uint32_t id3;
	bool valid;			/* false: could not be read or did not match */
	int firsttraceable;
	int firstlineno;
	char *name, *file;
	uint8_t *linetable;
	size_t linetable_len;
	uint8_t *body;			/* a copy of its header (ruby: the iseq body) */
	uint8_t name_kind;		/* the language's (ruby: enum rb_label_kind) */
};

/* The walked frames as names, innermost first, and where each group starts. */
struct groups {
	const struct interp_name *names[INTERP_MAX_FRAMES];
	/* native functions run as frames (ruby C methods): placed at their own frame */
	struct binary *func_bin[INTERP_MAX_FRAMES];
	uint64_t func_addr[INTERP_MAX_FRAMES];	/* 0: not one */
	/* shown only at its function's native frame: left out when that is not seen */
	bool func_required[INTERP_MAX_FRAMES];
	int start[INTERP_MAX_FRAMES + 2];	/* group g: names[start[g] .. start[g+1]) */
	int n, ng;
	bool last_partial;		/* the outermost group was cut short */
};

/* ---- splice.c: splicing named frames into native stacks ---- */

/* Bytes of a walk record's header and frames (its strings follow), or 0 if size cannot hold them. */
size_t interp_event_frames_bytes(const void *data, size_t size);


/* The interpreter loop whose native frames a process's interpreter frames replace. */
struct interp_loop {
	struct binary *bin;
	uint64_t start, end;		/* ELF vaddr range of the loop function in bin */
	uint64_t part_start, part_end;	/* and of its second part, if split (else empty) */
	const char *lang_name;		/* for markers */
	bool entry_outside_loop;	/* interp_ops.entry_outside_loop */
};

void interp_loop_of(const struct interp_proc *ip, struct interp_loop *loop);

/* Walk ev (strs: its strings, perl) of process ip named as groups (ip->ver set). */
void interp_groups_of(struct interp_state *st, struct interp_proc *ip, const struct proc *proc,
		      const struct interp_event *ev, const uint8_t *strs, size_t str_len,
		      struct groups *g);

/*
 * Splice g over the loop's native frames in uf[0..nu) (innermost first, room
 * for cap); see splice.c.  Returns the new count.
 */
int interp_splice(struct interp_state *st, const struct interp_loop *loop, const struct groups *g,
		  struct uframe *uf, int nu, int cap, bool native_complete);

/* "[interpreter frames lost]" above the innermost loop frame; returns the new count. */
int interp_mark_lost(struct interp_state *st, const struct interp_loop *loop, struct uframe *uf,
		     int nu, int cap);

/*
 * One interpreter.  Each language module defines one of these; languages.c
 * lists them.  Only the language's own files know what is behind them.
 */
struct interp_ops {
	/*
	 * Supported versions (at least one), ended by an entry without a
	 * version string.  They carry the language's name and enum interp_lang.
	 */
	const struct interp_version *versions;
	/*
	 * Module name prefixes of any version ("libpython"), NULL-ended: a
	 * version we cannot walk is named in a warning.
	 */
	const char *const *lookalikes;
	/*
	 * Module m is named like version v: find the runtime in it and fill
	 * ip (interp_proc_take or interp_proc_found, its cfg fields).  False:
	 * not here, keep looking (*unsupported, if still empty, may say why).
	 * NULL: taken as found.
	 */
	bool (*from_module)(struct interp_proc *ip, const struct interp_version *v,
			    const struct map *m, char *unsupported, size_t unsupported_len);
	/*
	 * After all mappings were seen, with ld.so's mapping and glibc's
	 * layout (either may be NULL): false drops it.  NULL: nothing to do.
	 */
	bool (*attach)(struct interp_proc *ip, const struct interp_version *v,
		       const struct map *m, const struct map *ld, const struct interp_glibc *g);
	/* Its walks carry a string area after the frames (kept with the event). */
	bool walk_strings;
	/*
	 * Its entry frames are pushed before the loop is called and popped
	 * before it returns, as Ruby's are: a sample in between is stitched
	 * without that frame (interp_splice), not marked unstitched.
	 */
	bool entry_outside_loop;
	/*
	 * Naming, one of the two.  name_frame: the walk is cut into groups at
	 * INTERP_FRAME_ENTRY frames (splice.c); frame f appends its name at
	 * g->names[g->n++] (with g->func_* of that slot), or nothing when it
	 * does not show.  groups: the language cuts the walk itself.
	 */
	void (*name_frame)(struct interp_state *st, struct interp_proc *ip,
			   const struct proc *proc, const struct interp_frame *f, struct groups *g);
	void (*groups)(struct interp_state *st, struct interp_proc *ip,
		       const struct interp_event *ev, const uint8_t *strs, size_t str_len,
		       struct groups *g);
	/* Its own caches for one recording (NULL: none); see interp_lang_state. */
	void *(*state_new)(void);
	void (*state_free)(void *state);
	/* Drop what those caches hold of an exited process (optional). */
	void (*proc_forget)(void *state, uint32_t pid);
	/*
	 * stitch latency's roots (interp.h "Roots"), optional: as
	 * interp_root_find for this language (interp_api.h).  NULL: its calls
	 * cannot be roots.
	 */
	int (*root_find)(struct interp_root *r, const char *name, pid_t pid, char *const *command,
			 char *why, size_t why_len);
};

/* ---- languages.c: the table of languages, and lookups over it ---- */

extern const struct interp_ops *const interp_languages[];
extern const size_t interp_nlanguages;

/* The language whose walks say lang, or NULL. */
const struct interp_ops *interp_ops_for_lang(uint32_t lang);

/* interp_version_for_module, also giving the version's language. */
const struct interp_version *interp_module_version(const char *base,
						   const struct interp_ops **ops,
						   char *lang_out, size_t lang_len,
						   char *ver_out, size_t ver_len);

/* Index of v among all versions: its slot in the BPF interp_layouts map. */
uint32_t interp_version_index(const struct interp_version *v);

/*
 * state.c: the slot of interp_layouts holding layout l (after every
 * version's), written there the first time it is seen; -errno if the map
 * is full.
 */
int interp_layout_slot(struct interp_state *st, const struct interp_layout *l);

/* ---- common.c ---- */

/* The process's entry, or NULL. */
struct interp_proc *interp_proc_find(struct interp_state *st, uint32_t pid);

/* Record what was found: version v's eval loop at [eval, eval + size) of bin. */
void interp_proc_found(struct interp_proc *ip, const struct interp_version *v,
		       struct binary *bin, uint64_t eval, uint64_t size);

/*
 * Module m holds version v's interpreter loop (v->eval_func, a dynamic
 * symbol with a size): record it (interp_proc_found) and return ip's data
 * of the language (interp_proc_priv(ip, owner, size)).  NULL, and ip->ver
 * not set, if the loop is not there or on allocation failure.
 */
void *interp_proc_take(struct interp_proc *ip, const struct interp_version *v,
		       const struct map *m, const struct interp_version *owner, size_t size);

/*
 * ip's data of the language whose versions table is owner (size bytes,
 * zeroed when new): the same block while the process stays with that
 * language, a fresh one when it changed.  Plain memory, freed with the
 * process.  NULL on allocation failure.
 */
void *interp_proc_priv(struct interp_proc *ip, const struct interp_version *owner, size_t size);

/* Language ops's caches (ops->state_new), NULL if it has none. */
void *interp_lang_state(struct interp_state *st, const struct interp_ops *ops);

/*
 * The code object of frame f at addr in pid, from the cache: *fresh is
 * true when it must be (re)read: new, or its identity fields differ from
 * what the walker just saw (freed and reused memory).  NULL on allocation
 * failure.
 */
struct interp_code *interp_code_slot(struct interp_state *st, uint32_t pid, uint64_t addr,
				     bool *fresh, const struct interp_frame *f);
void interp_code_clear(struct interp_code *c);

/* An interned frame name; line <= 0 or --no-lines: none.  NULL on allocation failure. */
const struct interp_name *interp_intern(struct interp_state *st, uint8_t kind, const char *name,
					const char *file, int line);

/*
 * The TLS module id ld.so gave the loaded object whose basename starts with
 * lib_prefix, from its list of loaded objects; 0 if not there (yet).
 */
uint64_t interp_tls_modid(pid_t pid, const struct map *ld, const struct interp_glibc *g,
			  const char *lib_prefix);

#endif /* STITCH_INTERP_INTERNAL_H */
