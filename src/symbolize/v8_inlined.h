/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The JavaScript functions TurboFan or Maglev inlined into an optimized
 * frame, at the frame's pc, and the line each of them and the frame's own
 * function is at there, read from the process's heap as V8's own
 * profiler reads them: the Code holding the pc, its source position table
 * (pc offset -> a source position whose inlining id says which inlined
 * function's code it is), and its deoptimization data (each inlining's
 * function and the position of its call in its caller, up to the
 * optimized function itself).  Node asks V8 for a position at every
 * instruction (DETAILED_SOURCE_POSITIONS_FOR_PROFILING, its default), so
 * a leaf's pc is placed as exactly as a return address.
 *
 * What does not read as expected (a Code of another kind, a table or
 * array out of bounds, an object of the wrong type, an outermost function
 * that is not the frame's) gives no inlined function and no line: the
 * frame stays its optimized function's alone, at the line where it is
 * defined, never a guessed chain.
 */
#ifndef STITCH_SYMBOLIZE_V8_INLINED_H
#define STITCH_SYMBOLIZE_V8_INLINED_H

#include <stdbool.h>
#include <stdint.h>

#include "symbolize/v8_names.h"

/* Inlined functions of one frame, at most (deeper: none shown). */
#define V8_INLINED_MAX 16

/*
 * The functions inlined at pc into the frame of JSFunction fn in pid,
 * innermost first, then the frame's own function (fn's), into out, each
 * named at its line there: where pc is for the innermost, where each
 * caller's call to the next is; sfi: fn's SharedFunctionInfo as the event
 * read it (KFRAME_V8_SFI), or 0 to read it from fn now; leaf: pc is where
 * the thread was, else a return address (the call before it is looked up).
 * Returns how many (the frame's own function included, so at least 1), or
 * 0 if pc is in no optimized code of fn's function or its tables do not
 * read as expected.
 */
int v8_inlined_at(uint32_t pid, uint64_t fn, uint64_t sfi, uint64_t pc, bool leaf,
		  const struct v8_name *out[V8_INLINED_MAX + 1]);

/*
 * The SharedFunctionInfo (tagged) of the optimized code (TurboFan's or
 * Maglev's) holding pc in pid, from the code's deoptimization data: whose
 * code it is, whatever function a frame's slot holds now; 0 if pc is in
 * no such code or it cannot be read.  fn: the frame's JSFunction, whose
 * code is looked at first (0: none); leaf as v8_inlined_at().
 */
uint64_t v8_code_sfi(uint32_t pid, uint64_t fn, uint64_t pc, bool leaf);

/*
 * Whether the code of JSFunction fn in pid is optimized now (TurboFan's
 * or Maglev's), read through the function's code field; false if not, or
 * if it cannot be told (V8 13 keeps a dispatch handle there).
 */
bool v8_fn_optimized(uint32_t pid, uint64_t fn);

/*
 * In a source position table's bytes (V8's encoding: per entry, the code
 * offset's delta and the source position's, each a zigzag varint, 7 bits
 * a byte, the low first; a code delta d < 0 stands for -d - 1 and a
 * non-statement position; running values from -1 and 0), the position of
 * the last entry at or before code offset off (an entry at -1, a bytecode
 * table's function entry, is before every offset).  false if none (or the
 * bytes end mid-entry before one).
 */
bool v8_position_find(const uint8_t *table, size_t len, uint64_t off, uint64_t *pos);

/*
 * The source position at code offset off in pid's position table table (a
 * tagged ByteArray or TrustedByteArray, its type and length checked), as
 * v8_position_find(); false if none or it does not read as one.
 */
bool v8_position_at(uint32_t pid, const struct v8_meta *m, uint64_t table, uint64_t off,
		    uint64_t *pos);

/*
 * A SourcePosition's character offset in its function's script (bits
 * 1-30, stored + 1), or -1 if it has none or is not JavaScript's (bit 0:
 * an external position, a line of a file that is not a script).
 */
static inline int64_t v8_position_offset(uint64_t pos)
{
	if (pos & 1)
		return -1;
	return (int64_t)((pos >> 1) & 0x3fffffff) - 1;
}

/*
 * A SourcePosition's inlining id (bits 31-46, stored + 1): -1 for the
 * optimized function's own code, else its index among the inlinings.
 */
static inline int v8_position_inlining(uint64_t pos)
{
	return (int)((pos >> 31) & 0xffff) - 1;
}

#endif /* STITCH_SYMBOLIZE_V8_INLINED_H */
