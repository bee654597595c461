/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CFI tables kept on disk, by build ID, across runs: an agent restarting
 * on a busy host, or the next `record` of the same program, reads cc1's
 * 478,579 rows back instead of parsing its .eh_frame again: 159 ms of CPU
 * against 3 with the check below, libLLVM's 948,856 rows 292 against 14,
 * libc's 28,274 12 against 0.3 (medians of 3, this machine beside two TCG
 * guests, 2026-12-06).
 *
 * An entry stands for cfi_build_table()'s result: what the marks of
 * entry code, signal trampolines and arm64 leaves add (read from symbols
 * by hash lookups and from a few code bytes) is added again after a read,
 * as after a build.  It is a file named BUILDID.DIGEST.tbl: a header, then
 * the rows.  DIGEST is the SHA-256 of everything the rows are made of:
 * this stitch binary's own build ID (another build may parse otherwise),
 * and the bytes of the binary the parse reads (its ELF and section
 * headers, section names, .eh_frame and .debug_frame).  A binary that
 * claims another's build ID, a file changed in place, or a table of
 * another stitch is a miss, never a wrong row; a torn, changed or planted
 * entry is built again (and goes).  The digest costs a read of those
 * bytes (cc1's 2.3 MB of .eh_frame), a build the parse of every FDE.
 *
 * Where: $STITCH_CACHE_DIR/tables (util/cache_dir.h: ours, writable by
 * nobody else; STITCH_CACHE_DIR set and empty: no cache).  Only tables of
 * TABLE_CACHE_MIN_ROWS rows or more are kept (a small one is parsed about
 * as fast as its file is found).  Once the directory would hold more than
 * TABLE_CACHE_MAX_BYTES, the entries read least recently go (a read
 * touches its entry), down to three quarters of it.
 */
#ifndef STITCH_UNWIND_TABLE_CACHE_H
#define STITCH_UNWIND_TABLE_CACHE_H

#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>

#include "unwind/cfi.h"

#define TABLE_CACHE_MIN_ROWS	2048
#define TABLE_CACHE_MAX_BYTES	(256ull << 20)
#define TABLE_CACHE_DIGEST	32

/* A binary's entry: its name in the directory and what it must hold. */
struct table_cache_key {
	char name[128];
	uint8_t digest[TABLE_CACHE_DIGEST];
};

struct table_cache_stats {
	unsigned long read;		/* tables read from the cache */
	unsigned long written;		/* tables built and written to it */
	unsigned long refused;		/* entries torn, foreign or not ours: built again */
	unsigned long pruned;		/* entries removed to keep it under its size */
};

/*
 * The key of the binary elf, whose build ID is id: false if it has none
 * (no build ID, not a whole file image) or there is no cache.
 */
bool table_cache_key(Elf *elf, const uint8_t *id, size_t id_len, struct table_cache_key *key);
/* The rows of key's entry, read and checked: false if there is none that holds. */
bool table_cache_read(const struct table_cache_key *key, struct unwind_table *out);
/* Keep t as key's entry (written whole, then renamed into place), if it is large enough. */
void table_cache_write(const struct table_cache_key *key, const struct unwind_table *t);

/* The directory used so far, or NULL (off, unusable, or not needed yet). */
const char *table_cache_dir(void);
void table_cache_get_stats(struct table_cache_stats *st);

/*
 * For tests: the digest of elf's table inputs under another stitch
 * identity (self, self_len), as table_cache_key() computes it with ours.
 */
bool table_cache_digest(Elf *elf, const uint8_t *self, size_t self_len,
			uint8_t out[TABLE_CACHE_DIGEST]);
/*
 * For tests: the smallest table kept and what the directory may hold
 * (TABLE_CACHE_MIN_ROWS and TABLE_CACHE_MAX_BYTES unless set).
 */
void table_cache_set_limits(size_t min_rows, uint64_t bytes);

#endif /* STITCH_UNWIND_TABLE_CACHE_H */
