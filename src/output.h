/* SPDX-License-Identifier: GPL-2.0 */
/* Writers for aggregated stacks: FlameGraph folded and a human summary. */
#ifndef STITCH_OUTPUT_H
#define STITCH_OUTPUT_H

#include <stdio.h>

#include "resolve.h"
#include "stacks.h"

enum output_format {
	OUTPUT_TEXT,
	OUTPUT_FOLDED,
};

/* Format from a file name's extension; -1 if unknown.  "-" is text. */
int output_format_for(const char *path);

struct output_info {
	const char *title;	/* e.g. "cpu at 99 Hz" */
	double seconds;
	const char *const *event_names;	/* indexed by stack_key.event_idx */
	int nevents;
	int top;		/* text: how many stacks to show */
};

int write_folded(FILE *f, struct stack_table *t, struct resolver *r);
int write_text(FILE *f, struct stack_table *t, struct resolver *r, const struct output_info *info);

/* Copy name into buf as a folded frame: no ';', no control characters. */
void folded_clean(char *buf, size_t len, const char *name);

#endif /* STITCH_OUTPUT_H */
