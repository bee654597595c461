/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A cache of decompressed DWARF.  Debian's debug files (libc6-dbg, the
 * -dbgsym packages) carry compressed .debug_* sections, and libdw inflates
 * every one of them when it opens the file: ~45 ms of CPU for libc alone, in
 * every run that names a libc frame.  The first run writes a copy of the file
 * with its sections decompressed, named by build-id; later runs map that copy
 * and read only the pages they need.
 *
 * Where: $STITCH_CACHE_DIR/debug, else $XDG_CACHE_HOME/stitch/debug, else
 * $HOME/.cache/stitch/debug.  STITCH_CACHE_DIR set and empty: no cache.  The
 * directory must be ours and writable by nobody else, and an entry is used
 * only if it is ours too and matches the file it stands for (build-id, every
 * section's decompressed size); anything else is rebuilt or ignored.
 */
#ifndef STITCH_DEBUG_CACHE_H
#define STITCH_DEBUG_CACHE_H

#include <gelf.h>

#include "symbolize/debuginfo.h"

/* Files larger than this once decompressed are not cached. */
#define DEBUG_CACHE_MAX_FILE (1ull << 30)
/* No new entry once the directory holds this much. */
#define DEBUG_CACHE_MAX_TOTAL (4ull << 30)

struct debug_cache_stats {
	unsigned long used;		/* entries read from the cache */
	unsigned long written;		/* entries decompressed and written */
	unsigned long uncached;		/* compressed files read without it */
};

/*
 * For an ELF whose .debug_* sections are compressed: open its decompressed
 * copy, writing it first if needed.  0 with *out open (debug_file_close()
 * it after the Dwarf handle made from it), or -errno: use elf itself
 * (-ENODATA: nothing compressed, nothing to do).
 */
int debug_cache_open(Elf *elf, struct debug_file *out);

/* The directory used so far, or NULL (off, unusable, or not needed yet). */
const char *debug_cache_dir(void);
void debug_cache_get_stats(struct debug_cache_stats *st);

#endif /* STITCH_DEBUG_CACHE_H */
