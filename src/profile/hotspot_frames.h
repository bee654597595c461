/* SPDX-License-Identifier: GPL-2.0 */
/*
 * HotSpot's frames in a copied user stack: the step out of a compiled frame
 * (its size is its nmethod's: no frame pointer, no CFI) for the user-space
 * unwinder, and the Java methods each frame in the code cache runs, named
 * (symbolize/hotspot_names.h).  The kernel's walk hands a JVM's stacks over
 * (unwind_in_kernel.c leaves its code cache out of the process's list).
 */
#ifndef STITCH_PROFILE_HOTSPOT_FRAMES_H
#define STITCH_PROFILE_HOTSPOT_FRAMES_H

#include <stdint.h>

#include "profile/stacks.h"
#include "symbolize/hotspot_meta.h"
#include "unwind/unwind.h"

struct hotspot_walk {
	uint32_t pid;
	const struct hotspot_meta *meta;
};

/* unwind_jit_step_fn for a struct hotspot_walk (ctx). */
int hotspot_step(void *ctx, struct unwind_regs *r, bool exact, const struct unwind_stack *stack);

/*
 * The frame f the walk found (uf[at - 1], its raw frame) in HotSpot's code,
 * named: replaced by its Java frames, innermost first (a compiled frame's
 * inlined methods, then its own), or by the blob's name (a stub); left as
 * it is where nothing can be read.  Returns how many frames uf holds now,
 * at most max.
 */
int hotspot_frames(const struct hotspot_walk *w, const struct unwind_stack *stack,
		   const struct unwind_frame *f, struct uframe *uf, int at, int max);

#endif /* STITCH_PROFILE_HOTSPOT_FRAMES_H */
