// SPDX-License-Identifier: GPL-2.0
/* Perl walks built by hand for the unit tests: see perl_walks.h. */
#include <string.h>

#include "perl_walks.h"

uint64_t perl_walk_str(struct perl_walk *w, const char *s)
{
	size_t len = strlen(s), off = w->used;

	memcpy(w->strs + off, s, len);
	w->used += len;
	return PERL_STR(off, len);
}

void perl_walk_frame(struct perl_walk *w, const char *pkg, const char *sub, uint32_t flags,
		     int line)
{
	struct interp_frame *f = &w->ev.frames[w->ev.nframes++];

	memset(f, 0, sizeof(*f));
	f->flags = flags;
	if (flags & PERL_FRAME_SI_END)
		return;
	f->id1 = (sub ? perl_walk_str(w, sub) : 0) | (pkg ? perl_walk_str(w, pkg) : 0) << 32;
	f->id2 = perl_walk_str(w, "t.pl");
	f->id3 = line;
}
