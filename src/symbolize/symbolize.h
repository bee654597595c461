/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Naming addresses of one user-space binary: ELF symbol tables, separate
 * debug files (build-id, .gnu_debuglink), MiniDebugInfo and DWARF (names,
 * inline chains, source lines).  Not thread-safe: one source, one thread.
 */
#ifndef STITCH_SYMBOLIZE_H
#define STITCH_SYMBOLIZE_H

#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>

struct sym_source;		/* everything we know to name addresses of one binary */

struct sym_frame {
	const char *name;	/* function name, never NULL ("??" if DWARF has none);
				 * owned by the source, valid until free */
	const char *file;	/* source file or NULL; owned by the source */
	unsigned int line;	/* 0 if unknown */
	bool inlined;		/* this frame was inlined into the next one */
};

/*
 * Open symbol knowledge for a binary.  `elf` is the binary itself (borrowed;
 * must outlive the source).  `path` is the binary's path as the target
 * process sees it (e.g. /usr/bin/perl) and `root` the prefix that makes that
 * namespace visible to us (e.g. "/proc/1234/root", or "" for our own), both
 * used to find debug files: first <root>/usr/lib/debug/.build-id/xx/rest.debug
 * (then the same without root), then .gnu_debuglink next to the binary, in
 * its .debug/ subdir and under /usr/lib/debug/<dir>/ (CRC-checked), then,
 * for a binary without DWARF of its own, a debuginfod server
 * (debuginfod_fetch.h), then MiniDebugInfo (.gnu_debugdata, xz-compressed
 * ELF, its .symtab).  A debug
 * file must carry the binary's build-id (or lack one, like the binary).
 * Never NULL except on allocation failure; a binary with no symbols at all
 * (or elf == NULL, or not an ELF) yields an empty source.  DWARF is opened
 * on the first lookup only.
 */
struct sym_source *sym_source_open(Elf *elf, const char *path, const char *root);

/*
 * Whether sym_source_open() would ask debuginfod for this binary's debug
 * file (no DWARF of its own, no local debug file): so that the files of
 * many binaries can be fetched at once before (debuginfod_prefetch()).
 */
bool sym_source_wants_debuginfod(Elf *elf, const char *path, const char *root);

/*
 * Name `vaddr` (an ELF virtual address of the binary, no load bias).  Fills
 * out[0..n) innermost first: inlined frames (inlined=true) then the real
 * function; returns n (0: nothing covers vaddr exactly; print module+offset).
 * A chain longer than max is cut after max frames (the outer ones are lost).
 * With DWARF: names from the subprogram/inlined_subroutine DIEs, file:line of
 * vaddr for out[0] and the call site for the outer frames.  Without DWARF:
 * one frame from the merged ELF symbol tables, file NULL.
 */
int sym_source_lookup(struct sym_source *src, uint64_t vaddr, struct sym_frame *out, int max);

/*
 * What was found, for diagnostics: "+"-joined parts of symtab, dynsym,
 * minidebuginfo, dwarf, then "(build-id)", "(debuglink)" or "(debuginfod)" when a separate
 * debug file was used; "none" for an empty source.
 */
const char *sym_source_describe(const struct sym_source *src);

/*
 * The pages of its debug files that naming read leave our resident set
 * (elf_image_drop_pages): what it parsed stays, their pages come back as
 * read.  The binary's own image is its owner's to drop.
 */
void sym_source_drop_pages(struct sym_source *src);

void sym_source_free(struct sym_source *src);

/*
 * Exact ELF symbol lookup, used for uprobe:PATH:SYMBOL: vaddr and size of a
 * FUNC/IFUNC symbol by name (versions like @@GLIBC_2.2.5 stripped).  Several
 * symbols of one name (static functions of different files): the GLOBAL one,
 * else WEAK, else LOCAL; a sized one before a zero-sized one; then the lowest
 * address.  Returns 0 or -ENOENT.
 */
int sym_source_find_symbol(struct sym_source *src, const char *name, uint64_t *vaddr,
			   uint64_t *size);

/*
 * A program's or loader's entry code [lo, ...) has no CFI and its labels no
 * size (ld.so's _start and _dl_start_user, glibc's RTLD_START): name vaddr
 * after the last label at or below it, from lo on, of the .symtab of the
 * debug file, else of the binary.  Only for such a range, which the caller
 * knows to be one piece of code from lo (unwind/entry_end.h); NULL if no
 * label.  The name is owned by the source.
 */
const char *sym_source_entry_label(struct sym_source *src, uint64_t lo, uint64_t vaddr);

/* Path of the separate debug file in use, or NULL. */
const char *sym_source_debug_path(const struct sym_source *src);

#endif /* STITCH_SYMBOLIZE_H */
