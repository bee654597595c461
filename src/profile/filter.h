/* SPDX-License-Identifier: GPL-2.0 */
/* Selecting and reshaping the stacks of a profile (stitch report / diff). */
#ifndef STITCH_FILTER_H
#define STITCH_FILTER_H

#include <regex.h>
#include <stdbool.h>
#include <stdint.h>

#include "profile/profile.h"

struct profile_filter {
	int64_t pid, tid;	/* -1: any */
	const char *comm;	/* NULL: any */
	bool has_focus, has_hide;
	regex_t focus;		/* keep stacks through a frame matching this */
	regex_t hide;		/* drop frames matching this */
	bool reverse;		/* innermost frame first (inverted, for non-graph formats) */
};

void filter_init(struct profile_filter *f);
/* Compile a POSIX extended regex for --focus/--hide; message in err on failure. */
int filter_set_regex(struct profile_filter *f, bool focus, const char *re, char *err, size_t errlen);
void filter_free(struct profile_filter *f);
bool filter_is_empty(const struct profile_filter *f);

/* out (initialised here) = the samples of in that pass f, reshaped by f. */
int profile_filter(const struct profile *in, struct profile *out, const struct profile_filter *f);

#endif /* STITCH_FILTER_H */
