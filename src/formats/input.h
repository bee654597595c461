/* SPDX-License-Identifier: GPL-2.0 */
/* Reading profiles back: pprof (.pb.gz, gzipped or raw) and folded stacks. */
#ifndef STITCH_INPUT_H
#define STITCH_INPUT_H

#include <stddef.h>

#include "profile/profile.h"

/* Read path (pprof by content or name, else folded) into p (initialised here). */
int profile_read_file(const char *path, struct profile *p, char *err, size_t errlen);

/*
 * Folded stacks: "comm;outer;...;inner COUNT" per line; kernel frames end in
 * _[k], inlined ones in _[i]; [truncated]/[unknown] are markers.  Blank
 * lines and lines starting with '#' are skipped; any other malformed line is
 * an error naming it.
 */
int profile_read_folded(const char *data, size_t len, struct profile *p, const char *name,
			char *err, size_t errlen);

#endif /* STITCH_INPUT_H */
