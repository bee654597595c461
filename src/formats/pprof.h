/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pprof (profile.proto, gzipped) writer and reader.  The reader takes
 * untrusted input: every length is checked, every index validated, and
 * allocations are capped.
 *
 * How stitch's frame kinds travel in pprof:
 *  - native frames: Location with a Mapping (filename = binary path,
 *    build_id = hex) and address = ELF vaddr; inlined frames are extra
 *    Line entries of the same Location (innermost first, caller last);
 *  - kernel frames: Mapping filename "[kernel.kallsyms]";
 *  - interpreter frames: Mapping filename "[perl]", "[ruby]", "[python]";
 *  - markers ([truncated], [unknown]): a Location with no Mapping whose
 *    Function name is the marker.
 * Samples carry labels pid, tid (numeric) and comm, event (string).
 */
#ifndef STITCH_PPROF_H
#define STITCH_PPROF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile/profile.h"

/* Write p gzipped to f; 0 or -errno. */
int pprof_write(FILE *f, const struct profile *p);
/* The same at zlib's level (1 fastest .. 9 smallest; pprof_write's is zlib's default, 6). */
int pprof_write_level(FILE *f, const struct profile *p, int level);

/*
 * Read a pprof profile (gzipped or not) into p (initialised by the caller).
 * On error returns -EINVAL (or -ENOMEM, -E2BIG) and says why in err.
 */
int pprof_read(const uint8_t *data, size_t len, struct profile *p, char *err, size_t errlen);

#endif /* STITCH_PPROF_H */
