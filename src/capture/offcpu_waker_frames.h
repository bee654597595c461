/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A waker's section of an off-CPU stack key (--wakers): the frames of who
 * woke the thread, innermost first, then "[woken by COMM tid N]" or
 * "[woken by an interrupt]", after the blocked stack's frames (stack_key's
 * nwaker).  Shared by stacks counted in the kernel (offcpu_wake_counts.c) and
 * stacks sent as samples (offcpu_pending.c).
 */
#ifndef STITCH_CAPTURE_OFFCPU_WAKER_FRAMES_H
#define STITCH_CAPTURE_OFFCPU_WAKER_FRAMES_H

#include <stddef.h>

#include "capture/unwind_in_kernel.h"
#include "capture/offcpu.h"
#include "profile/stacks.h"

/* Room a waker section takes at most. */
#define OFFCPU_WAKER_MAX_FRAMES (COUNTED_KSTACK_DEPTH + KUNWIND_MAX_FRAMES + 2)
#define OFFCPU_WAKER_BYTES (OFFCPU_WAKER_MAX_FRAMES * sizeof(struct uframe))

/*
 * Append w's section to sk (kb bytes long, with room for OFFCPU_WAKER_BYTES
 * more; u is scratch for the waker's user stack); returns sk's new size.
 */
size_t offcpu_waker_frames(const struct kunwind *kw, const struct counted_fds *fds,
			   const struct offcpu_waker *w, struct stack_key *sk, size_t kb,
			   struct counted_ustack *u);

#endif /* STITCH_CAPTURE_OFFCPU_WAKER_FRAMES_H */
