/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Function names, inline chains and source lines from DWARF (libdw).
 */
#ifndef STITCH_DWARF_SRC_H
#define STITCH_DWARF_SRC_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sym_frame;

/* Caps that keep a hostile .debug_info from costing us more than a moment. */
#define DWARF_MAX_SCOPE_DEPTH 128
#define DWARF_MAX_DIE_STEPS 200000
#define DWARF_MAX_CU_RANGES (4u << 20)

/* An address range and the DIE (a CU or a function) that owns it. */
struct die_range {
	uint64_t start, end;	/* [start, end) */
	Dwarf_Off off;		/* DIE offset */
	uint32_t cu;		/* index into dwarf_src.cus */
};

/* Functions of one CU, indexed on the first lookup that lands in it. */
struct cu_funcs {
	struct die_range *funcs;	/* sorted by start */
	size_t nr;
	bool built;
};

struct dwarf_src {
	Dwarf *dbg;
	struct die_range *ranges;	/* CU ranges, sorted by start */
	size_t nr_ranges;
	struct cu_funcs *cus;
	size_t nr_cus;
};

/* Open the DWARF of elf (borrowed); -ENOENT if it has none usable. */
int dwarf_src_open(struct dwarf_src *ds, Elf *elf);
void dwarf_src_close(struct dwarf_src *ds);

/*
 * Fill out[0..max) innermost first for pc: inlined frames, then the function
 * (the chain is cut at max).  Names DWARF lacks are left NULL for the caller
 * to fill.  Returns the number of frames, 0 if no function DIE covers pc.
 * When a CU but no function covers pc (assembly, stripped DIEs), 0 is
 * returned with *cu_only set and out[0].file/line from the line table.
 */
int dwarf_src_lookup(struct dwarf_src *ds, uint64_t pc, struct sym_frame *out, int max,
		     bool *cu_only);

#endif /* STITCH_DWARF_SRC_H */
