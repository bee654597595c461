/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stitch latency's reports: the text summary (histogram, percentiles, where
 * the slow calls' time went, the slowest calls) and the JSON for scripts.
 */
#ifndef STITCH_LATENCY_REPORT_H
#define STITCH_LATENCY_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "latency/lat_calls.h"
#include "latency/lat_children.h"
#include "latency/lat_hist.h"
#include "latency/lat_root.h"
#include "profile/resolve.h"

struct lat_summary {
	const char *root;		/* -e as given */
	const struct lat_root *r;
	const struct lat_children *children;	/* --children, or none */
	uint64_t threshold_ns;
	double seconds;
	const struct lat_hist *hist;
	uint64_t stats[LAT_STAT_NR];
	uint64_t open_at_end;		/* calls not ended when tracing stopped */
	uint64_t longest_open_ns;	/* the oldest of them, so far */
	struct lat_calls *calls;
	struct resolver *res;
	int top_stacks;			/* stacks shown in the breakdown */
};

void lat_report_text(FILE *f, const struct lat_summary *s);
void lat_report_json(FILE *f, const struct lat_summary *s);

#endif /* STITCH_LATENCY_REPORT_H */
