/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where an interpreted (Ignition) JavaScript frame is: the bytecode offset
 * its frame keeps (v8_meta.fp_bytecode_offset, a Smi counted from the
 * BytecodeArray's tagged address) looked up in its function's bytecode's
 * source position table, as V8's own stack traces do.  The interpreter
 * writes that slot before every call it makes, so a frame that called
 * another holds the offset of its call; a frame where the thread is (a
 * bytecode handler running on it) holds a stale one, and is not asked.
 *
 * The bytecode is the function's now (its SharedFunctionInfo's, or its
 * baseline Code's): V8 makes the same bytecode each time it compiles a
 * function again (flushed, or its positions collected), so an offset read
 * at the event means the same there.  Every object's type and every
 * length is checked; what does not read gives no position.
 */
#ifndef STITCH_SYMBOLIZE_V8_BYTECODE_H
#define STITCH_SYMBOLIZE_V8_BYTECODE_H

#include <stdint.h>

#include "symbolize/v8_meta.h"

/*
 * The character offset in its script of the bytecode that slot (the word
 * of an interpreted frame's bytecode offset slot) stands at, in the
 * function whose SharedFunctionInfo is sfi (tagged) in pid; -1 if slot is
 * no such offset, or what it reads does not say.
 */
int64_t v8_bytecode_position(uint32_t pid, const struct v8_meta *m, uint64_t sfi, uint64_t slot);

#endif /* STITCH_SYMBOLIZE_V8_BYTECODE_H */
