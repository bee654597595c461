/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Interactive SVG flame graphs: one self-contained file (inline CSS and
 * JavaScript, no network) that any browser opens.  Every name in it comes
 * from a traced process and is escaped.
 */
#ifndef STITCH_FLAMEGRAPH_H
#define STITCH_FLAMEGRAPH_H

#include <stdbool.h>
#include <stdio.h>

#include "profile/profile.h"

struct flamegraph_opts {
	const char *title;	/* e.g. "cpu at 99 Hz"; NULL: from the profile */
	const char *subtitle;	/* e.g. "pid 1234, 10.0 s, 4711 samples"; NULL: none */
	bool inverted;		/* icicle: innermost frames at the top */
	unsigned int width;	/* px; 0: 1200 */
	double min_width;	/* px; narrower frames are merged; 0: 0.1 */
	/*
	 * Differential graph: colour each frame by its change from base to the
	 * profile drawn (counts normalised by each profile's total), red for
	 * growth, blue for shrinkage; NULL for a normal graph.
	 */
	const struct profile *base;
};

/* Write p as an SVG flame graph; 0 or -errno. */
int flamegraph_write(FILE *f, const struct profile *p, const struct flamegraph_opts *o);

#endif /* STITCH_FLAMEGRAPH_H */
