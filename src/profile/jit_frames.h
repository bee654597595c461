/* SPDX-License-Identifier: GPL-2.0 */
/*
 * JIT frames named from their runtime's own data (V8's heap: symbolize/v8_names.h), placed
 * in a stack of user frames: by the in-kernel walk's decoder
 * (KFRAME_V8 words, capture/unwind_in_kernel.c) and by the user-space walk
 * of a copied stack (copy_unwind.c), alike.
 */
#ifndef STITCH_PROFILE_JIT_FRAMES_H
#define STITCH_PROFILE_JIT_FRAMES_H

#include <stdbool.h>
#include <stdint.h>

#include "profile/stacks.h"

/*
 * The JavaScript function fn (a tagged JSFunction pointer) that the frame
 * pointer of uf[at - 1] held, named in pid by sfi, its SharedFunctionInfo
 * as the event read it (0: read from fn now), in that frame's place, or, when
 * that frame is the leaf and lies in a binary (a builtin or bytecode handler
 * running on the function's frame), after it, as its caller (with an
 * [unknown] frame between when the function's code is optimized: a
 * builtin that built no frame, its caller's pc not found).  A return
 * address lies in the function of its own frame (V8 builds the frame before
 * any call), and so does a leaf in JIT code (the walk checked it is past the
 * prologue).  A frame of optimized code is named at the line its pc is
 * at, and gets, before it, the functions inlined at its pc, innermost
 * first, each at its line (symbolize/v8_inlined.h), if uf has room for
 * them below max frames; an interpreted frame that made a call, at the
 * line of the call, from bco, the word its bytecode offset slot held at
 * the event (0: not read; symbolize/v8_bytecode.h); other frames (baseline,
 * an interpreted leaf, whose slot is stale) at the line where their
 * function is defined.  Returns how many frames uf holds now.
 */
int jit_frames_v8(uint32_t pid, uint64_t fn, uint64_t sfi, uint64_t bco, struct uframe *uf, int at,
		  int max);

/*
 * A JIT frame's name as stacks hold it (an interpreter-like frame of kind
 * FRAME_JIT: name, file, line), kept for the program's life; NULL on no
 * memory.  The strings are copied.
 */
const struct interp_name *jit_frame_name(const char *name, const char *file, uint32_t line);

/* JIT frames named from now on without their lines (on: record's --no-lines). */
void jit_frames_no_lines(bool on);

#endif /* STITCH_PROFILE_JIT_FRAMES_H */
