/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Probe points by source line, as perf probe names them: FUNC:RELLINE (a
 * line counted from FUNC's declaration, 0 being the line that names it)
 * or @FILE:LINE, resolved from the DWARF line table to one address in
 * every copy of the code that line has: the out-of-line function and each
 * place it was inlined into.  And what a user needs to choose one: the
 * lines of a function that have code (stitch probe -L), the variables
 * readable at a line (-V).
 */
#ifndef STITCH_PROBE_LINE_PROBE_H
#define STITCH_PROBE_LINE_PROBE_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "symbolize/debuginfo.h"

/* Copies of one function beyond these are not looked at (a hostile or huge .debug_info). */
#define LINE_PROBE_MAX_INSTANCES 4096
#define LINE_PROBE_MAX_SITES 512

/* What -e uprobe:BIN:FUNC:RELLINE or uprobe:BIN@FILE:LINE asks for. */
struct line_spec {
	const char *func;	/* FUNC, or NULL with file */
	const char *file;	/* FILE (its name or a tail of its path), or NULL */
	int line;		/* RELLINE from func's declaration, or LINE in file; -1: none
				 * (line_sites: func's entry in each copy) */
};

/* Parse "FUNC", "FUNC:RELLINE" or "@FILE:LINE" (s is kept, and cut). 0 or -EINVAL. */
int line_spec_parse(char *s, struct line_spec *spec);

/*
 * Split "BINARY:FUNC[:RELLINE]" or "BINARY@FILE:LINE" (after uprobe:) into
 * the binary and the rest, "FUNC[:RELLINE]" or "@FILE:LINE" (both malloc'd).
 * A line probe's text ends in a line number: *has_line says whether this
 * one does (set with -EINVAL too: a line probe, badly written).  0,
 * -EINVAL or -ENOMEM.
 */
int line_probe_split(const char *text, char **binary, char **rest, bool *has_line);

/* One address a line probe goes to. */
struct line_site {
	uint64_t vaddr;		/* in the binary's ELF address space */
	char func[128];		/* the function the line is in */
	char caller[128];	/* the function it was inlined into, or "" when out of line */
	char file[256];		/* the line's source file, as DWARF names it */
	int line;		/* absolute */
	int rel;		/* from func's declaration */
	Dwarf_Off scope;	/* the DIE of that copy (subprogram or inlined_subroutine) */
	Dwarf_Off outer;	/* the out-of-line function's DIE the address is in */
};

/* A binary's DWARF, from itself or its debug file. */
struct line_dwarf {
	Elf *elf;
	int fd;
	struct debug_file df;
	Dwarf *dbg;
	Dwarf_CFI *eh_cfi;	/* the binary's .eh_frame, once a fetch needs a CFA */
	char path[4096];
	/* The running kernel's vmlinux (line_kernel.c): where KASLR moved its text */
	bool kernel;
	int64_t kernel_bias;
};

/* 0, or -errno with err saying why for the user (no DWARF: how to get it). */
int line_dwarf_open(struct line_dwarf *ld, const char *path, char *err, size_t errlen);
void line_dwarf_close(struct line_dwarf *ld);

/*
 * The running kernel's DWARF: $STITCH_VMLINUX or Debian's -dbg vmlinux,
 * only if its build-id is the running kernel's.  0, or -errno with err
 * saying what to install.  Its functions are found through the CU of
 * their symbol's address, its files through CU names (a vmlinux has
 * millions of DIEs: the whole walk is too long a wait).
 */
int line_dwarf_open_kernel(struct line_dwarf *ld, char *err, size_t errlen);

/*
 * The sites of spec (with a line), sorted by address, no address twice.
 * 0 with *n >= 1, or -ENOENT with err saying what is missing (no such
 * function, no code on that line: the lines that have some are near).
 */
int line_sites(struct line_dwarf *ld, const struct line_spec *spec, struct line_site **out,
	       size_t *n, char *err, size_t errlen);

/* stitch probe -L: spec's function, its lines, numbered where they have code. */
int line_list_lines(FILE *f, struct line_dwarf *ld, const struct line_spec *spec, char *err,
		    size_t errlen);

/* stitch probe -V: at each site of spec, its variables, their types and where they are. */
int line_list_vars(FILE *f, struct line_dwarf *ld, const struct line_spec *spec, char *err,
		   size_t errlen);

#endif /* STITCH_PROBE_LINE_PROBE_H */
