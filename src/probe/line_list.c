// SPDX-License-Identifier: GPL-2.0
/*
 * stitch probe -L FUNC: the function's source, its lines numbered from
 * its declaration where some copy of its code has a row (a probe can go
 * there) and blank where none has, as perf probe -L shows them; and where
 * its copies are.  The source is read from DWARF's path (the compile
 * directory's, for a relative one); without it, the numbers alone.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "probe/line_internal.h"

/* A function longer than this is shown up to it. */
#define LINE_LIST_MAX 20000

static FILE *open_source(struct line_dwarf *ld, const struct line_inst *inst, char *path,
			 size_t size)
{
	Dwarf_Attribute attr;
	const char *dir;
	Dwarf_Die cu;
	FILE *f;

	snprintf(path, size, "%s", inst->decl_file);
	f = fopen(path, "r");
	if (f || inst->decl_file[0] == '/')
		return f;
	if (!dwarf_offdie(ld->dbg, inst->cu, &cu))
		return NULL;
	dir = dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &attr));
	if (!dir)
		return NULL;
	snprintf(path, size, "%s/%s", dir, inst->decl_file);
	return fopen(path, "r");
}

static void print_copies(FILE *f, const struct line_inst *inst, size_t n)
{
	size_t i, inl = 0;

	for (i = 0; i < n; i++)
		inl += inst[i].caller[0] != '\0';
	fprintf(f, "  (%zu cop%s: %s", n, n == 1 ? "y" : "ies",
		inl < n ? "out of line" : "");
	for (i = 0; i < n && i < 8; i++)
		if (inst[i].caller[0])
			fprintf(f, "%sinlined into %s", i || inl < n ? ", " : "", inst[i].caller);
	fprintf(f, "%s)\n", n > 8 ? ", ..." : "");
}

int line_list_lines(FILE *f, struct line_dwarf *ld, const struct line_spec *spec, char *err,
		    size_t errlen)
{
	struct line_inst *inst;
	size_t ninst, i, j;
	unsigned char *code;
	char path[4096], *text = NULL;
	size_t textcap = 0;
	int decl, last, lineno;
	FILE *src;

	if (!spec->func || spec->line >= 0) {
		snprintf(err, errlen, "-L takes a function: BINARY:FUNC");
		return -EINVAL;
	}
	if (line_instances(ld, spec, &inst, &ninst) != 0)
		return -ENOMEM;
	if (ninst == 0 || !inst[0].decl_file) {
		snprintf(err, errlen, "no function '%s' with code in the DWARF of %s", spec->func,
			 ld->path);
		free(inst);
		return -ENOENT;
	}
	decl = inst[0].decl_line;
	last = decl;
	code = calloc(LINE_LIST_MAX, 1);
	if (!code) {
		free(inst);
		return -ENOMEM;
	}
	for (i = 0; i < ninst; i++) {
		struct line_row *rows;
		size_t n;

		if (inst[i].decl_line != decl || !inst[i].decl_file ||
		    strcmp(inst[i].decl_file, inst[0].decl_file) != 0 ||
		    line_inst_rows(ld, &inst[i], &rows, &n) != 0)
			continue;
		for (j = 0; j < n; j++) {
			int rel = rows[j].line - decl;

			if (rel < 0 || rel >= LINE_LIST_MAX)
				continue;
			code[rel] = 1;
			if (rows[j].line > last)
				last = rows[j].line;
		}
		free(rows);
	}
	fprintf(f, "<%s@%s:%d>", spec->func, inst[0].decl_file, decl);
	print_copies(f, inst, ninst);
	src = open_source(ld, &inst[0], path, sizeof(path));
	lineno = 0;
	while (src && getline(&text, &textcap, src) > 0 && ++lineno <= last) {
		if (lineno < decl)
			continue;
		text[strcspn(text, "\n")] = '\0';
		if (code[lineno - decl])
			fprintf(f, "%7d  %s\n", lineno - decl, text);
		else
			fprintf(f, "         %s\n", text);
	}
	if (!src) {
		fprintf(f, "  (source %s not found: the lines with code only)\n", inst[0].decl_file);
		for (lineno = decl; lineno <= last; lineno++)
			if (code[lineno - decl])
				fprintf(f, "%7d\n", lineno - decl);
	} else {
		fclose(src);
	}
	free(text);
	free(code);
	free(inst);
	return 0;
}
