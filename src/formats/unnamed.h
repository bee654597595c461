/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Native frames no symbol names (shown as binary+0xOFFSET), counted per
 * binary for the text summary, with what would name them.
 */
#ifndef STITCH_FORMATS_UNNAMED_H
#define STITCH_FORMATS_UNNAMED_H

#include <stdbool.h>
#include <stdio.h>

#include "profile/profile.h"

#define UNNAMED_HINT "install its debug symbols or set DEBUGINFOD_URLS"
/* Binaries listed at most. */
#define UNNAMED_MAX_SHOWN 10

/* Is this the binary+0xOFFSET of a native frame nothing named? */
bool frame_is_unnamed(const struct profile *p, const struct prof_frame *fr);

/*
 * Per binary with such frames: how many distinct addresses, in how much of
 * the profile (samples holding at least one); nothing if none.  0 or -errno.
 */
int profile_write_unnamed(FILE *f, const struct profile *p);

#endif /* STITCH_FORMATS_UNNAMED_H */
