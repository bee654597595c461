/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stitch snapshot's -o files.  Text and JSON grow round by round, each in
 * its own temporary (util/outfile.h), and appear under their names only
 * once the last round is in, together with the profiles (SVG, folded,
 * pprof, speedscope), which are written at the end: a failed or killed
 * snapshot leaves every output complete or absent, never torn.
 */
#ifndef STITCH_SNAP_OUTPUTS_H
#define STITCH_SNAP_OUTPUTS_H

#include <stdbool.h>
#include <stdio.h>

#include "util/outfile.h"

#define SNAP_MAX_OUTPUTS 8

struct snap_outputs {
	const char *const *paths;	/* -o, in order, and their output_add_json formats */
	const int *formats;
	int n;
	bool force;			/* --force: a symlink at a destination is replaced */
	struct outfile files[SNAP_MAX_OUTPUTS];	/* the text and JSON being written */
	FILE *texts[SNAP_MAX_OUTPUTS];	/* where each round's text goes */
	int ntexts;
	FILE *jsons[SNAP_MAX_OUTPUTS];	/* where each round's threads go, as JSON */
	int njsons;
	bool json_started;		/* the JSON arrays' "[" is written */
	bool profiles;			/* some -o is a profile, written at the end */
};

/*
 * Start the text and JSON outputs (stdout for -, and with no -o).  0, or
 * -1 with one line said on stderr and nothing left on disk.
 */
int snap_outputs_open(struct snap_outputs *so, const char *const *paths, const int *formats,
		      int n, bool force);

/* The next element of every JSON output: "[" first, "," after. */
const char *snap_outputs_json_sep(struct snap_outputs *so);

/*
 * End the text and JSON outputs: with ok, close the JSON arrays and rename
 * each file into place (one line on stderr for each that fails); without,
 * remove them.  0, or -1 if any failed.
 */
int snap_outputs_close(struct snap_outputs *so, bool ok);

#endif /* STITCH_SNAP_OUTPUTS_H */
