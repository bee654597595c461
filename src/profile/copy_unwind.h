/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A copied user stack unwound in user space, against the process model, into
 * the stack frames the profile counts (binary + ELF vaddr): record's
 * --unwind=copy and fallback path, and snapshot's every thread.
 */
#ifndef STITCH_PROFILE_COPY_UNWIND_H
#define STITCH_PROFILE_COPY_UNWIND_H

#include "proc/binary.h"
#include "proc/procs.h"
#include "profile/stacks.h"
#include "unwind/unwind.h"

/*
 * Unwind stack from regs with the tables of proc's binaries (bins), using
 * scratch[max] for the raw frames; write them to uf (room: max + 1), ending
 * in a [truncated] or [unknown] marker where the walk stopped early (unless
 * it visibly ends in an unknown frame).  jit_taken_ns, the stack's time
 * (CLOCK_MONOTONIC; 0: left as walked): V8's JavaScript frames named from
 * the process's heap (profile/jit_frames.h) and HotSpot's Java frames from
 * the JVM's tables (profile/hotspot_frames.h), unless the JVM unloaded
 * classes since then (a JVM's compiled frames are stepped by their size
 * either way).  Returns the frames written; *why says how the walk ended.
 */
int copy_unwind(struct binary_cache *bins, struct proc *proc, const struct unwind_regs *regs,
		const struct unwind_stack *stack, struct unwind_frame *scratch, int max,
		struct uframe *uf, enum unwind_stop *why, uint64_t jit_taken_ns);

/*
 * What proc's first copied stack needs, read now: its binaries' unwind
 * tables and its JIT runtime's metadata (V8's offsets; HotSpot's symbols,
 * looked for in every binary).  A target's, before its events are
 * attached: read at its first event, they held every event behind it
 * (node 20 in a 5.10 guest under emulation: 5.7 s, 1.7 s of it tables),
 * and a copied stack's JavaScript frames are checked against the live
 * process when named, by then seconds on.
 */
void copy_unwind_prepare(struct binary_cache *bins, struct proc *proc);

#endif /* STITCH_PROFILE_COPY_UNWIND_H */
