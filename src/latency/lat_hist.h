/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stitch latency: the calls' durations, counted in latency.h's log-linear
 * buckets: percentiles, and the power-of-two histogram funclatency prints.
 */
#ifndef STITCH_LATENCY_HIST_H
#define STITCH_LATENCY_HIST_H

#include <stdint.h>
#include <stdio.h>

#include "latency/latency.h"

struct lat_hist {
	uint64_t counts[LAT_BUCKETS];
	uint64_t total;
	uint64_t max_ns;	/* the longest call, exact */
};

/* The duration under which a share q (0..1] of the calls ended: 0 without calls. */
uint64_t lat_hist_quantile(const struct lat_hist *h, double q);

/* Counts per power of two of nanoseconds, [2^k, 2^(k+1)): counts[k]. */
void lat_hist_log2(const struct lat_hist *h, uint64_t counts[64]);

/* The power-of-two histogram, one line per bucket from the first to the last used. */
void lat_hist_print(const struct lat_hist *h, FILE *f);

/* "1.25 ms", "980 us", "12 ns" */
void lat_format_ns(char *buf, size_t len, uint64_t ns);

#endif /* STITCH_LATENCY_HIST_H */
