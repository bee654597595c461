/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --wakers: blocked stacks joined to the stack of who woke them, counted in
 * the kernel (map offcpu_wakes) and read here into stacks whose waker
 * section (stack_waker) stands above the blocked frames.
 */
#ifndef STITCH_CAPTURE_OFFCPU_WAKE_COUNTS_H
#define STITCH_CAPTURE_OFFCPU_WAKE_COUNTS_H

#include <stdint.h>

#include "capture/offcpu_blocked.h"

/*
 * Read the counts of one epoch (deleting them) or all of them (-1) into
 * s->stacks; returns nanoseconds read, or -errno.
 */
int64_t offcpu_read_wakes(int wakes_fd, int64_t epoch, const struct offcpu_sink *s);

#endif /* STITCH_CAPTURE_OFFCPU_WAKE_COUNTS_H */
