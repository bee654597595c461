/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Interpreter frames: what the BPF walkers (src/interp/<name>/<name>.bpf.h,
 * dispatched by walk_thread.bpf.h) and user space share.  Includable from
 * BPF C and from user space.
 *
 * The flow: user space recognizes an interpreter in a process's mappings
 * (detect.c, asking each language's ops), looks the version up in its
 * language's table of layouts (<name>_versions.c) and puts a per-process
 * config in interp_procs.  On an event in that process the walker reads the
 * *triggering* thread's interpreter state from its own TLS/TSD
 * (task->thread.fsbase), walks the frames with bounded reads, and sends
 * one interp_event just before the sample.  User space names the frames
 * (reading code objects from the target, cached and validated against
 * identity fields the walker sent) and splices them over the interpreter
 * loop's native frames.
 *
 * Adding a version is a new layout in <name>_versions.c, as long as the
 * walk itself has the same shape; a new shape is a new walker; a new
 * language is a folder and a line in languages.def.
 */
#ifndef STITCH_INTERP_H
#define STITCH_INTERP_H

#ifndef __bpf__
#include <linux/types.h>
#endif

#include "capture/ring_record.h"

/* Interpreter frames walked per event; a deeper stack ends in a marker. */
#define INTERP_MAX_FRAMES 128
/* Bytes of a frame / code object the walker reads at once (offsets must fit). */
#define INTERP_CHUNK 256
/*
 * Layouts the BPF side can hold (interp_layouts map): every version's, then
 * those read from processes (python 3.13's debug offsets), one per distinct set.
 */
#define INTERP_MAX_LAYOUTS 32

/*
 * A walker may copy strings its frames need (perl's names and files: an
 * anonymous closure's CV or a string eval's COP may be freed before user
 * space could read them).  They go into a string area after the frames of
 * its event, which the frames' fields point into (the language says how).
 */
#define INTERP_STR_BYTES 4096		/* string area of one event */
#define INTERP_STR_MAX 256		/* longest string: a longer one ends the walk */

/* The language of a walk: INTERP_<ID>, one per line of languages.def, in its order. */
enum interp_lang {
	INTERP_NONE,
#define INTERP_LANG(ID, ...) INTERP_##ID,
#include "interp/languages.def"
#undef INTERP_LANG
};

/*
 * interp_frame.flags: bit 0 is every language's; the others mean what the
 * frame's language says (its <name>_layout.h), for its own events only.
 */
#define INTERP_FRAME_ENTRY	(1u << 0)	/* first frame of an interpreter loop call */

/*
 * Each language's src/interp/<name>/<name>_layout.h, one per line of
 * languages.def: its version layout (struct interp_<name>_layout), what its
 * walker needs of a process (struct interp_<name>_cfg), and what its
 * frames' fields and flags hold.  The Makefile writes this list from
 * languages.def (the preprocessor cannot #include from a macro).
 */
#include "interp_layouts.h"

/* One entry of interp_layouts: which walker, and its offsets. */
struct interp_layout {
	__u32 lang;			/* enum interp_lang */
	__u32 pad;
	union {
#define INTERP_LANG(ID, name, member, ...) struct interp_##name##_layout member;
#include "interp/languages.def"
#undef INTERP_LANG
	};
};

/* Per process (interp_procs, keyed by tgid): where this process keeps things. */
struct interp_proc_cfg {
	__u32 layout;			/* index into interp_layouts */
	__u32 lang;
	/*
	 * glibc, as offsets from the thread pointer (fs_base: fsbase on
	 * x86-64, tpidr_el0 on arm64), signed: struct pthread lies at the
	 * thread pointer on x86-64 (TLS variant II) but below it on arm64
	 * (variant I).  pthread_getspecific(key) = *(fs_base +
	 * pthread_specific + key*16 + 8); pthread_self() = fs_base +
	 * pthread_self.
	 */
	__s32 pthread_specific;
	__s32 pthread_self;
	__u32 pad;
	/*
	 * Set anew each time user space writes a process's config: mixed into
	 * the hash of its walks (interp_count_key), so a walk known for an
	 * exited process is never taken as known for a new one with its pid.
	 */
	__u32 gen;
	/* Where the language's runtime keeps its state in this process. */
	union {
#define INTERP_LANG(ID, name, member, ...) struct interp_##name##_cfg member;
#include "interp/languages.def"
#undef INTERP_LANG
	};
};

/*
 * One frame as walked.  What each field holds is the language's (its
 * <name>_layout.h): where the frame's code is and where in it, and what
 * user space checks before it names the frame from memory that may have
 * been freed and reused since the walk.
 */
struct interp_frame {
	__u64 addr;		/* the frame's code object */
	__u64 pc;		/* the instruction in it */
	__u64 id1;		/* identity checks, or the frame's name and file (strings) */
	__u64 id2;
	__u32 id3;
	__u32 flags;
};

/* interp_event.flags */
#define INTERP_EV_TRUNCATED	(1u << 0)	/* more frames than INTERP_MAX_FRAMES */
#define INTERP_EV_CORRUPT	(1u << 1)	/* a type check failed: walk stopped */
#define INTERP_EV_FAULT		(1u << 2)	/* a read failed: walk stopped */
#define INTERP_EV_BAD_KEY	(1u << 3)	/* TSD key we cannot read (>= 32) */

/*
 * Sent (RING_INTERP_WALK) just before the sample_event it belongs to (same
 * tid and time_ns), or once as a definition (ihash set).
 */
struct interp_event {
	struct ring_record_header hdr;
	__u64 time_ns;
	__u32 pid, tid;
	__u16 lang;
	__u16 nframes;
	__u32 flags;
	/*
	 * Not 0: the walk is a definition, sent once (capture_walk.bpf.h): events
	 * counted in the kernel with this ihash in their key have these frames.
	 */
	__u64 ihash;
	struct interp_frame frames[INTERP_MAX_FRAMES];	/* innermost first */
};

/* counted_key.ihash of an interpreter process's event that is not a definition's */
#define INTERP_IHASH_NONE	0	/* no interpreter frames (a thread that runs none) */
#define INTERP_IHASH_LOST	1	/* the definition did not fit in the ring: marked lost */

#define INTERP_EVENT_HDR_BYTES ((unsigned long)&((struct interp_event *)0)->frames)

/*
 * Roots (stitch latency -e <name>:FUNCTION): every call of an interpreted
 * function, timed on the language's own call path.  A language whose calls
 * can be roots has an optional hook in its ops (interp_ops.root_find: where
 * the probes go, user side) and interp/<name>/<name>_root.bpf.h, which
 * latency.bpf.c includes through build/interp_roots.bpf.h (made by the
 * Makefile from languages.def, for the languages that have one).  Calls are
 * contexts on a stack: a call is where its context is (stack si, index ix),
 * not a count of entries and returns, so a call left by an exception ends
 * where its context is popped.  With L its layout (struct
 * interp_<name>_layout), the kernel side gives:
 *   int <name>_root_where(ctx, L, &si, &ix)	the thread's stack and its
 *		innermost context's index; 0, or -1 if unreadable
 *   bool <name>_root_is_callee(ctx, L, fn, len)	at an ENTER probe: the
 *		function about to be called is the root (named fn, len bytes);
 *		its context will be at ix + 1
 *   __s32 <name>_root_unwound_to(ctx)	at an UNWIND probe: every context
 *		above this index is popped now
 */
#define INTERP_ROOT_NAME_MAX 64		/* the longest function name, with its NUL */

/* What happens where a root's probe is (struct interp_root, interp_api.h). */
enum interp_root_probe {
	INTERP_ROOT_ENTER,	/* a call is about to be made */
	INTERP_ROOT_LEAVE,	/* the innermost context returns */
	INTERP_ROOT_UNWIND,	/* contexts above an index are popped at once */
	INTERP_ROOT_RAISE,	/* an exception starts: a call it ends, ends at this time */
	INTERP_ROOT_PROBE_KINDS,
};

/* A root's probes, at most: perl's four, and three places an exception starts. */
#define INTERP_ROOT_PROBES 7

#endif /* STITCH_INTERP_H */
