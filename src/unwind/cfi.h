/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DWARF call frame information (.eh_frame, .debug_frame) -> stitch's compact
 * unwind table (see unwind_table.h for what a row means).
 *
 * Input is untrusted: every read is bounded, work and memory are capped per
 * section, and whatever cannot be expressed exactly becomes a
 * STITCH_CFA_UNKNOWN row, never a guess.
 *
 * Limits worth knowing:
 *  - rows are keyed by 32-bit ELF vaddrs: rows at or above 4 GiB are dropped
 *    and unwind_table_lookup() returns NULL for such addresses;
 *  - x86-64 only (return address column 16, rsp 7, rbp 6);
 *  - DW_EH_PE_datarel needs a data base, which only cfi_parse_section_ex()
 *    can be given; textrel/funcrel/aligned/indirect FDE pointers are refused
 *    (the FDE is skipped, so its range stays UNKNOWN).
 */
#ifndef STITCH_CFI_H
#define STITCH_CFI_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "unwind/unwind_table.h"

struct unwind_table {
	struct stitch_unwind_row *rows;	/* sorted by pc, no two adjacent rows equal but for pc */
	size_t nr;
	/*
	 * Optional (unwind_table_index): first[k] is the row covering the
	 * start of bucket k, rows[0].pc + (k << shift), for k up to nbuckets
	 * (first[nbuckets] is the last row).  NULL: lookups search it all.
	 */
	uint32_t *first;
	uint32_t nbuckets;
	uint8_t shift;
};

/* Hard caps against hostile input. */
#define CFI_MAX_ROWS		(4u << 20)	/* per table */
#define CFI_MAX_STATE_DEPTH	32		/* DW_CFA_remember_state nesting */
#define CFI_MAX_CIE_OPS		64		/* initial instructions of one CIE */

/*
 * Build from an ELF's .eh_frame and, if present, .debug_frame (eh_frame wins
 * where both cover a pc).  `debug` is an optional separate debug file (may be
 * NULL) whose .debug_frame is also used (after the main file's).
 * 0 on success (a binary with no CFI yields an empty table), negative errno
 * on failure (-EINVAL: malformed section framing, -E2BIG: too many rows,
 * -ENOMEM).
 */
int cfi_build_table(Elf *elf, Elf *debug, struct unwind_table *out);

/*
 * Lower level, for the fuzzer and tests: parse one section's bytes.
 * section_vaddr is the section's sh_addr (needed for pcrel pointer
 * encodings).  is_eh_frame selects .eh_frame vs .debug_frame conventions.
 */
int cfi_parse_section(const uint8_t *data, size_t size, uint64_t section_vaddr,
		      bool is_eh_frame, struct unwind_table *out);

/* What one parse saw; for tests and diagnostics. */
struct cfi_stats {
	size_t cies;
	size_t fdes;		/* FDEs that produced rows */
	size_t fdes_skipped;	/* bad CIE pointer/encoding/range: no rows */
	size_t fdes_cut;	/* FDEs ending in UNKNOWN from some pc on */
};

struct cfi_section {
	const uint8_t *data;
	size_t size;
	uint64_t vaddr;		/* sh_addr */
	uint64_t data_base;	/* base for DW_EH_PE_datarel, 0 = unknown */
	bool is_eh_frame;
};

/* cfi_parse_section() with a data base and statistics (stats may be NULL). */
int cfi_parse_section_ex(const struct cfi_section *sec, struct unwind_table *out,
			 struct cfi_stats *stats);

/*
 * Merge several sections, earlier ones winning where they overlap (what
 * cfi_build_table() does with eh_frame, debug_frame, debug file's
 * debug_frame).  stats (may be NULL) sums all sections.
 */
int cfi_build_from_sections(const struct cfi_section *secs, size_t n,
			    struct unwind_table *out, struct cfi_stats *stats);

/* Row covering vaddr (last row with pc <= vaddr), or NULL if vaddr is before the first row. */
const struct stitch_unwind_row *unwind_table_lookup(const struct unwind_table *t, uint64_t vaddr);

void unwind_table_free(struct unwind_table *t);

/*
 * Index t's rows by address (t->first), for lookups that touch a few cache
 * lines rather than one per step of a binary search over the whole table.
 * Built once the table is final: any change to its rows drops it
 * (unwind_table_unindex).  0, or -ENOMEM (t searched whole, as before).
 */
int unwind_table_index(struct unwind_table *t);
void unwind_table_unindex(struct unwind_table *t);

/* Rows a and b say the same (their pc aside): the table keeps only the first. */
bool unwind_row_same_rule(const struct stitch_unwind_row *a, const struct stitch_unwind_row *b);

/*
 * The .eh_frame_hdr binary search table: the start of every function that
 * has an FDE, sorted.  The rows above say how to unwind at a pc, not where
 * its function starts; this table does, without parsing any FDE.  It points
 * into the ELF image (valid while the Elf is).
 */
struct cfi_hdr_index {
	const int32_t *table;	/* (start, fde) pairs, relative to base */
	size_t count;
	uint64_t base;		/* vaddr of .eh_frame_hdr */
};

/*
 * Read it; 0 on success, -ENOENT if absent or not in the usual encoding
 * (datarel | sdata4 pairs, what every linker writes): out is then empty.
 */
int cfi_hdr_index_read(Elf *elf, struct cfi_hdr_index *out);

/* Start of the function holding vaddr (its FDE's initial location), 0 if unknown. */
uint64_t cfi_hdr_func_start(const struct cfi_hdr_index *ix, uint64_t vaddr);

/* The start of the function after the one starting at start (its end, padding included), or 0. */
uint64_t cfi_hdr_next_start(const struct cfi_hdr_index *ix, uint64_t start);

#endif /* STITCH_CFI_H */
