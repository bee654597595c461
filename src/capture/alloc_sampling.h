/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Allocations by stack, user side of the sampling (capture/alloc.h): the
 * tables the BPF side draws gaps and weights from, and --alloc-sample's
 * sizes.
 */
#ifndef STITCH_CAPTURE_ALLOC_SAMPLING_H
#define STITCH_CAPTURE_ALLOC_SAMPLING_H

#include <stdbool.h>
#include <stdint.h>

#include "capture/alloc.h"

/* gap[ALLOC_GAP_SLOTS + 1] and weight[ALLOC_WEIGHT_SLOTS + 1], in 16.16 fixed point. */
void alloc_tables_fill(uint32_t *gap, uint32_t *weight);

/*
 * "512K", "16k", "1M", "4096", "1" (every allocation): bytes in
 * [1, ALLOC_MAX_PERIOD].  False if s is none of those.
 */
bool alloc_parse_period(const char *s, uint64_t *bytes);

#endif /* STITCH_CAPTURE_ALLOC_SAMPLING_H */
