/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Finding the separate debug information of a binary: a debug file by
 * build-id or by .gnu_debuglink, and MiniDebugInfo (.gnu_debugdata).
 */
#ifndef STITCH_DEBUGINFO_H
#define STITCH_DEBUGINFO_H

#include <gelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Refuse to decompress a .gnu_debugdata section beyond this. */
#define MINIDEBUG_MAX_SIZE (256u << 20)
/* Refuse to CRC a debuglink candidate larger than this. */
#define DEBUGLINK_MAX_FILE_SIZE (8ull << 30)

enum debug_origin {
	DEBUG_NONE,
	DEBUG_BUILD_ID,		/* .build-id/xx/rest.debug, build-id checked */
	DEBUG_DEBUGLINK,	/* .gnu_debuglink, CRC and build-id checked */
	DEBUG_DEBUGINFOD,	/* fetched by build-id (debuginfod_fetch.h), checked */
};

struct debug_file {
	Elf *elf;
	int fd;
	enum debug_origin origin;
	char path[PATH_MAX];
};

/*
 * Find and open the debug file of `bin` (see sym_source_open() for the
 * search order).  0 on success, -ENOENT if none passed the checks.
 */
int debug_file_find(Elf *bin, const char *path, const char *root, struct debug_file *out);
void debug_file_close(struct debug_file *df);

/*
 * Whether debug_file_find() would find one, without reading a debuglink
 * candidate whole for its CRC: to know which binaries to ask debuginfod
 * for ahead (a candidate with the build-id but the wrong CRC is then asked
 * for one by one).
 */
bool debug_file_exists(Elf *bin, const char *path, const char *root);

/*
 * The debug file of `bin` from a debuginfod server (or a run before's
 * download), checked as a local one.  0, or -ENOENT.
 */
int debug_file_fetch(Elf *bin, struct debug_file *out);

/* Parse .gnu_debuglink: name (no '/'), CRC; 0 or -ENOENT if absent/malformed. */
int debuglink_read(Elf *bin, char *name, size_t name_size, uint32_t *crc);

/* CRC-32 of a whole file as .gnu_debuglink defines it; 0 or -errno. */
int debuglink_file_crc(int fd, uint32_t *crc);

struct minidebug {
	void *buf;		/* the decompressed ELF image */
	size_t size;
	Elf *elf;
};

/* Decompress an xz image (MiniDebugInfo) and open it as ELF; 0 or -errno. */
int minidebug_open_image(const void *xz, size_t len, struct minidebug *out);
/* The same for the .gnu_debugdata section of `bin`; -ENOENT if it has none. */
int minidebug_open(Elf *bin, struct minidebug *out);
void minidebug_close(struct minidebug *md);

#endif /* STITCH_DEBUGINFO_H */
