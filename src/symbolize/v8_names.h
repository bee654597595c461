/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names of V8's JavaScript frames (node, with no flag), from the process's
 * own heap: the in-kernel walk sends, after a frame of V8 code, the
 * JSFunction its frame kept and that function's SharedFunctionInfo
 * (KFRAME_V8, KFRAME_V8_SFI: capture/unwind_in_kernel.h); this
 * reads the SharedFunctionInfo's name and its script's name
 * and line from the process's memory, with the layout its binary's
 * metadata gives (v8_meta.h), checking the type of every object read.
 *
 * The process's memory is untrusted: every read is bounded, every object's
 * map checked, and a failure leaves the frame as it was (native or [unknown]),
 * never a guessed name.  One registry for the program: stitch names stacks
 * on one thread.
 */
#ifndef STITCH_SYMBOLIZE_V8_NAMES_H
#define STITCH_SYMBOLIZE_V8_NAMES_H

#include <stdint.h>

#include "symbolize/v8_meta.h"

/*
 * A JavaScript function's name, its file and a line: where the frame is
 * (v8_names_sfi_at) or where the function is defined (file NULL: no
 * script name; line 0: unknown).
 */
struct v8_name {
	const char *name;
	const char *file;
	uint32_t line;
};

/* Processes running V8 that stitch names at once, at most. */
#define V8_NAMES_MAX_PROCS 4096

/*
 * pid runs the V8 of layout m (copied): its frames can be named from now
 * on, and after it exits (from what was read while it lived).  A pid
 * reused by another process (its start time differs) starts over.
 */
void v8_names_watch(uint32_t pid, const struct v8_meta *m);

/*
 * The name of the JavaScript function fn (a tagged JSFunction pointer, as
 * the frame kept it) in pid, kept for the program's life, or NULL if pid
 * is not watched or fn does not read as a function.  sfi: fn's
 * SharedFunctionInfo as the event read it (KFRAME_V8_SFI), which names it
 * instead (fn may have moved since), or 0.
 */
const struct v8_name *v8_names_frame(uint32_t pid, uint64_t fn, uint64_t sfi);
/*
 * The name of the function whose SharedFunctionInfo is sfi (tagged) in
 * pid, kept for the program's life; NULL as v8_names_frame().
 */
const struct v8_name *v8_names_sfi(uint32_t pid, uint64_t sfi);
/*
 * The same function named at the line of pos, a character offset in its
 * script (where the frame is, from a source position table), kept for the
 * program's life; the line where it is defined if pos is < 0 or its line
 * cannot be read.
 */
const struct v8_name *v8_names_sfi_at(uint32_t pid, uint64_t sfi, int64_t pos);
/* The layout of the V8 pid runs, if watched. */
const struct v8_meta *v8_names_meta(uint32_t pid);

#endif /* STITCH_SYMBOLIZE_V8_NAMES_H */
