/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Before a table of stacks is named: the debug files of all its binaries
 * that have none here fetched from debuginfod at once, not one by one as
 * each binary's first frame is named (debuginfod_fetch.h).  Measured on 11
 * stripped binaries behind a server answering in 0.6 s: 5 of 11 fetched
 * (40% of samples named) within the 3 s budget one by one, all at once.
 */
#ifndef STITCH_DEBUG_PREFETCH_H
#define STITCH_DEBUG_PREFETCH_H

#include "profile/stacks.h"

void debug_prefetch_stacks(const struct stack_table *t);
/* The same for keys[0..n) (NULL ones skipped), not in a table (snapshot's threads). */
void debug_prefetch_keys(const struct stack_key *const *keys, size_t n);

#endif /* STITCH_DEBUG_PREFETCH_H */
