/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Wall-clock profiles (-e wall): on-CPU samples and off-CPU intervals in one
 * unit, nanoseconds, so that a thread's stacks add up to its wall time.
 */
#ifndef STITCH_RECORD_WALL_H
#define STITCH_RECORD_WALL_H

#include <stddef.h>
#include <stdint.h>

#include "profile/stacks.h"

/*
 * Weigh every sample of event cpu_idx by its period (the rest are off-CPU
 * nanoseconds already), and write each thread's time split into on CPU,
 * blocked and runnable into buf, one line a thread, longest first.
 * Returns buf, or NULL if there was nothing.
 */
const char *wall_weigh(struct stack_table *t, uint32_t cpu_idx, uint64_t period_ns, char *buf,
		       size_t len);

#endif /* STITCH_RECORD_WALL_H */
