/* SPDX-License-Identifier: GPL-2.0 */
/*
 * HotSpot's code and methods, read from a running JVM with its vmStructs
 * layout (hotspot_meta.h): the code cache blob holding a pc (its segment
 * map walked back to the block), a compiled frame's size, and the names of
 * the Java methods a frame runs, `pkg.Class.method (File.java:line)`, the
 * methods a compiler inlined there included (its scope descriptors).
 */
#ifndef STITCH_SYMBOLIZE_HOTSPOT_NAMES_H
#define STITCH_SYMBOLIZE_HOTSPOT_NAMES_H

#include <stdbool.h>
#include <stdint.h>

#include "symbolize/hotspot_meta.h"

enum hotspot_blob_kind {
	HOTSPOT_BLOB_OTHER,		/* stubs, adapters: no Java method */
	HOTSPOT_BLOB_NMETHOD,		/* compiled Java method (C1, C2) or native wrapper */
	HOTSPOT_BLOB_INTERPRETER,	/* the template interpreter: frames keep rbp */
};

struct hotspot_blob {
	uint64_t addr;			/* the CodeBlob */
	uint64_t code_begin, code_end;
	uint32_t frame_words;		/* the frame's size in words, return address and rbp included */
	int32_t frame_complete;		/* from code_begin: the frame is built from there on */
	enum hotspot_blob_kind kind;
	uint64_t method;		/* an nmethod's Method* */
	int32_t compile_id;		/* an nmethod's: unique in the JVM's life */
	char name[40];			/* CodeBlob::_name: "nmethod", "StubRoutines (1)", ... */
};

/* The blob of pid's code cache holding pc, as it is now: 0, or -ENOENT. */
int hotspot_blob_find(uint32_t pid, const struct hotspot_meta *m, uint64_t pc,
		      struct hotspot_blob *b);

/* One Java frame's name; strings kept for the program's life. */
struct hotspot_frame {
	const char *name;		/* "java.lang.Thread.run" */
	const char *file;		/* "Thread.java", or NULL */
	uint32_t line;			/* 0: unknown */
};

/*
 * The Java frames of a compiled frame at pc (a return address: exact
 * false), innermost first: the methods inlined at that call and the
 * nmethod's own.  A leaf (exact) gets its nmethod's method alone, without a
 * line: between two safepoints the code is not tied to one inlined method.
 * Returns how many (0: none readable).
 */
int hotspot_compiled_frames(uint32_t pid, const struct hotspot_meta *m,
			    const struct hotspot_blob *b, uint64_t pc, bool exact,
			    struct hotspot_frame *out, int max);

/*
 * An interpreted frame's method, from its slots: Method* at fp - 24, the
 * bytecode pointer at fp - 64 (frame_x86.hpp; not exported), and the
 * constant pool cache at fp - 48, which must be the method's own (else the
 * frame is not built: a leaf in the interpreter's entry or exit code).
 * with_line: the bytecode pointer is current (a caller: it was saved at
 * the call).  0 and *out, or -ENOENT.
 */
int hotspot_interpreted_frame(uint32_t pid, const struct hotspot_meta *m, uint64_t method,
			      uint64_t cache, uint64_t bcp, bool with_line,
			      struct hotspot_frame *out);

/*
 * Before naming a stack of pid's taken at taken_ns (CLOCK_MONOTONIC): the
 * methods named before are read again if the JVM unloaded classes since
 * (its count of them, read from it).  False: it did after the stack was
 * taken, and the stack's Java frames are not to be named
 * (hotspot_names.c).
 */
bool hotspot_names_begin(uint32_t pid, const struct hotspot_meta *m, uint64_t taken_ns);

/* After naming it: whether the names still hold (false: named again without them). */
bool hotspot_names_end(uint32_t pid, const struct hotspot_meta *m);

/* Drop what is cached of pid (it exited). */
void hotspot_names_forget(uint32_t pid);

#endif /* STITCH_SYMBOLIZE_HOTSPOT_NAMES_H */
