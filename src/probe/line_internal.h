/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the line probe's parts share: the copies of a function's code
 * (instances) found in the DIE tree, and the line table rows that are that
 * copy's own.
 */
#ifndef STITCH_PROBE_LINE_INTERNAL_H
#define STITCH_PROBE_LINE_INTERNAL_H

#include "probe/line_probe.h"

/* The DIE walk's bounds, as the symbolizer's (dwarf_src.h). */
#define LINE_MAX_DEPTH 128
#define LINE_MAX_STEPS 4000000

/* One copy of a function's code: out of line, or inlined into caller. */
struct line_inst {
	Dwarf_Off die;		/* DW_TAG_subprogram or DW_TAG_inlined_subroutine */
	Dwarf_Off cu;		/* its CU's DIE */
	char name[128];
	char caller[128];	/* "" out of line */
	Dwarf_Off outer;	/* the out-of-line function's DIE: inst's own, or its caller's */
	const char *decl_file;	/* libdw's string, valid while the Dwarf is open */
	int decl_line;
	/* Inlined: the line of its call, and the function it is inlined in */
	int call_line;
	const char *parent_file;
	int parent_line;
};

/* The rows of one copy: address and line, in address order. */
struct line_row {
	uint64_t addr;
	int line;
	bool stmt;
};

/*
 * Every copy of spec's function (by name), or of every function declared
 * in spec's file: *out (malloc'd), *n.  0 or -ENOMEM.
 */
int line_instances(struct line_dwarf *ld, const struct line_spec *spec, struct line_inst **out,
		   size_t *n);

/*
 * The line table rows that are inst's own: in its address ranges, in its
 * declaration's file, not in the code of a function inlined into it.  An
 * inlined copy's first address is shared: its caller's rows up to the
 * call come first there (the line table's views), then the copy's.  So at
 * the first address of a function inlined into inst, inst keeps the rows
 * from its declaration to that call's line; at inst's own first address,
 * it leaves its caller's.  *out (malloc'd), *n.  0, or -ENOMEM/-ENOENT.
 */
int line_inst_rows(struct line_dwarf *ld, const struct line_inst *inst, struct line_row **out,
		   size_t *n);

/* The DIE's name through abstract_origin/specification, or NULL. */
const char *line_die_name(Dwarf_Die *die);

/* Whether path names file: equal, or file is a tail of it after a '/'. */
bool line_file_matches(const char *path, const char *file);

#endif /* STITCH_PROBE_LINE_INTERNAL_H */
