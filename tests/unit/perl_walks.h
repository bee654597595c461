/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Perl walks built by hand for the unit tests (perl_walks.c): frames as the
 * BPF walker writes them, their names and files in a string area.
 */
#ifndef STITCH_UNIT_PERL_WALKS_H
#define STITCH_UNIT_PERL_WALKS_H

#include <stddef.h>
#include <stdint.h>

#include "interp/interp.h"

struct perl_walk {
	union {
		struct interp_event ev;
		/* room to move the strings after the frames, as they are sent */
		uint8_t bytes[sizeof(struct interp_event) + INTERP_STR_BYTES];
	};
	uint8_t strs[INTERP_STR_BYTES];
	size_t used;
};

/* s in w's string area, as a frame refers to it. */
uint64_t perl_walk_str(struct perl_walk *w, const char *s);

/* One more frame: package::sub at t.pl:line (a stackinfo end has no names). */
void perl_walk_frame(struct perl_walk *w, const char *pkg, const char *sub, uint32_t flags,
		     int line);

#endif /* STITCH_UNIT_PERL_WALKS_H */
