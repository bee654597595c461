/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A frame that holds values read at the event (record --fetch): a marker
 * named "[r->len=10 r->path=\"/srv/item/0\" weight=<optimized out>]", in
 * module FRAME_VALUES_MODULE, so that stacks split by value in every
 * format; pprof writes its pairs as the sample's labels too.
 */
#ifndef STITCH_PROFILE_VALUES_FRAME_H
#define STITCH_PROFILE_VALUES_FRAME_H

#include <stdbool.h>
#include <stddef.h>

#define FRAME_VALUES_MODULE "[values]"
#define VALUE_PAIRS_MAX 8	/* record --fetch's, at most */

/* One label=value of a values frame: pointers into its name, not NUL-terminated. */
struct value_pair {
	const char *key, *val;
	size_t keylen, vallen;	/* a string's without its quotes, escapes kept */
	bool quoted;		/* a string's */
};

/*
 * The pairs of a values frame's name, in order, into out (at most max):
 * how many.  A quoted value ends at its closing quote (a \" inside is
 * kept), "<optimized out>" and "<fault>" at their '>', anything else at
 * the next space.  A name that is not "[...]" has none.
 */
int values_frame_pairs(const char *name, struct value_pair *out, int max);

/*
 * Whether name is a values frame's, whole ("[k=v k2=\"s\"]", at most
 * VALUE_PAIRS_MAX pairs): the readers of folded stacks and pprof give such
 * a frame its kind back, so that a report's pprof has its labels too.
 */
bool values_frame_is(const char *name);

#endif /* STITCH_PROFILE_VALUES_FRAME_H */
