// SPDX-License-Identifier: GPL-2.0
/*
 * A line to addresses: in each copy of the code the line belongs to, the
 * lowest address where the line table says a statement of that line
 * begins (is_stmt), as a debugger puts a breakpoint; a copy with rows of
 * the line but none a statement's start takes its lowest row.  One address
 * a copy: a line that is a loop's condition has several blocks, and a
 * probe on each would count one pass several times.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "probe/line_internal.h"
#include "util/array.h"

static bool parse_line(const char *s, int *out)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v > INT_MAX / 2)
		return false;
	*out = (int)v;
	return true;
}

int line_spec_parse(char *s, struct line_spec *spec)
{
	char *colon;

	memset(spec, 0, sizeof(*spec));
	spec->line = -1;
	if (s[0] == '@') {
		spec->file = s + 1;
		colon = strrchr(s, ':');
		if (!colon || colon == s + 1 || !parse_line(colon + 1, &spec->line))
			return -EINVAL;
		*colon = '\0';
		return 0;
	}
	spec->func = s;
	colon = strchr(s, ':');
	if (colon) {
		if (colon == s || !parse_line(colon + 1, &spec->line))
			return -EINVAL;
		*colon = '\0';
	}
	return *s ? 0 : -EINVAL;
}

static int cmp_site(const void *pa, const void *pb)
{
	const struct line_site *a = pa, *b = pb;

	return (a->vaddr > b->vaddr) - (a->vaddr < b->vaddr);
}

/* The row of line a probe goes to in one copy, or NULL. */
static const struct line_row *probe_row(const struct line_row *rows, size_t n, int line)
{
	const struct line_row *best = NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		if (rows[i].line != line)
			continue;
		if (!best || (rows[i].stmt && !best->stmt))
			best = &rows[i];
	}
	return best;
}

static int cmp_int(const void *pa, const void *pb)
{
	int a = *(const int *)pa, b = *(const int *)pb;

	return (a > b) - (a < b);
}

/* "2 4 5": the lines of spec's first copy with code, relative as spec's are. */
static void lines_with_code(struct line_dwarf *ld, const struct line_inst *inst,
			    const struct line_spec *spec, char *buf, size_t size)
{
	struct line_row *rows;
	size_t len = 0, n, i, k = 0;
	int *v;

	buf[0] = '\0';
	if (line_inst_rows(ld, inst, &rows, &n) != 0)
		return;
	v = calloc(n ? n : 1, sizeof(*v));
	for (i = 0; v && i < n; i++)
		v[k++] = spec->func ? rows[i].line - inst->decl_line : rows[i].line;
	if (v)
		qsort(v, k, sizeof(*v), cmp_int);
	for (i = 0; v && i < k && len < size; i++)
		if (i == 0 || v[i] != v[i - 1])
			len += snprintf(buf + len, size - len, "%s%d", len ? " " : "", v[i]);
	free(v);
	free(rows);
}

/* One site a copy of the function: its name, declaration, DIEs; vaddr left to the caller. */
static struct line_site *add_site(struct line_site **out, size_t *n, size_t *cap,
				  const struct line_inst *inst, int line)
{
	struct line_site *s;

	if (*n >= LINE_PROBE_MAX_SITES || array_reserve((void **)out, cap, *n + 1, sizeof(**out), 4))
		return NULL;
	s = &(*out)[(*n)++];
	memset(s, 0, sizeof(*s));
	snprintf(s->func, sizeof(s->func), "%s", inst->name);
	snprintf(s->caller, sizeof(s->caller), "%s", inst->caller);
	snprintf(s->file, sizeof(s->file), "%s", inst->decl_file);
	s->line = line;
	s->rel = line - inst->decl_line;
	s->scope = inst->die;
	s->outer = inst->outer;
	return s;
}

/*
 * A function without a line: its entry in each copy (DW_AT_entry_pc, or
 * where its code starts), before its first line's code, where the
 * arguments are as the caller passed them; perf probe's FUNC.
 */
static int entry_sites(struct line_dwarf *ld, const struct line_inst *inst, size_t ninst,
		       struct line_site **out, size_t *n)
{
	size_t i, cap = 0;

	for (i = 0; i < ninst; i++) {
		struct line_site *s;
		Dwarf_Addr pc;
		Dwarf_Die die;

		if (!dwarf_offdie(ld->dbg, inst[i].die, &die) || dwarf_entrypc(&die, &pc) != 0)
			continue;
		s = add_site(out, n, &cap, &inst[i], inst[i].decl_line);
		if (!s)
			return *n >= LINE_PROBE_MAX_SITES ? 0 : -ENOMEM;
		s->vaddr = pc;
	}
	return 0;
}

int line_sites(struct line_dwarf *ld, const struct line_spec *spec, struct line_site **out,
	       size_t *n, char *err, size_t errlen)
{
	struct line_inst *inst;
	size_t ninst, cap = 0, i, k;
	int rc;

	*out = NULL;
	*n = 0;
	rc = line_instances(ld, spec, &inst, &ninst);
	if (rc)
		return rc;
	if (ninst == 0) {
		if (spec->func)
			snprintf(err, errlen, "no function '%s' with code in the DWARF of %s",
				 spec->func, ld->path);
		else
			snprintf(err, errlen, "no function with code in a source file '%s' in the "
				 "DWARF of %s", spec->file, ld->path);
		return -ENOENT;
	}
	if (spec->func && spec->line < 0)
		rc = entry_sites(ld, inst, ninst, out, n);
	for (i = 0; i < ninst && !rc && !(spec->func && spec->line < 0); i++) {
		int target = spec->func ? inst[i].decl_line + spec->line : spec->line;
		const struct line_row *row;
		struct line_row *rows;
		size_t nrows;

		if (!spec->func && target < inst[i].decl_line)
			continue;
		if (line_inst_rows(ld, &inst[i], &rows, &nrows) != 0)
			continue;
		row = probe_row(rows, nrows, target);
		if (row && *n < LINE_PROBE_MAX_SITES) {
			struct line_site *s = add_site(out, n, &cap, &inst[i], target);

			if (s)
				s->vaddr = row->addr;
			else
				rc = -ENOMEM;
		}
		free(rows);
	}
	if (!rc && *n == 0) {
		char lines[256];

		lines_with_code(ld, &inst[0], spec, lines, sizeof(lines));
		if (spec->func && spec->line < 0)
			snprintf(err, errlen, "no copy of %s in %s says where its code starts",
				 spec->func, ld->path);
		else if (spec->func)
			snprintf(err, errlen, "line %d of %s (%s:%d) has no code; its lines with "
				 "code: %s (stitch probe -L %s:%s)", spec->line, spec->func,
				 inst[0].decl_file ? inst[0].decl_file : "?",
				 inst[0].decl_line + spec->line, lines[0] ? lines : "none",
				 ld->path, spec->func);
		else
			snprintf(err, errlen, "line %d of %s has no code in %s", spec->line,
				 spec->file, ld->path);
		rc = -ENOENT;
	}
	free(inst);
	if (rc) {
		free(*out);
		*out = NULL;
		*n = 0;
		return rc;
	}
	if (*n)
		qsort(*out, *n, sizeof(**out), cmp_site);
	for (i = k = 0; i < *n; i++)
		if (k == 0 || (*out)[k - 1].vaddr != (*out)[i].vaddr)
			(*out)[k++] = (*out)[i];
	*n = k;
	return 0;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

int line_probe_split(const char *text, char **binary, char **rest, bool *has_line)
{
	const char *at = strrchr(text, '@'), *colon = strrchr(text, ':'), *cut;

	*binary = *rest = NULL;
	*has_line = false;
	if (at) {
		/* BINARY@FILE:LINE: the last '@' (FILE may have '/'s) */
		if (at == text || !colon || colon < at || !all_digits(colon + 1))
			return -EINVAL;
		cut = at;
		*has_line = true;
	} else {
		if (!colon || colon == text || !colon[1])
			return -EINVAL;
		cut = colon;
		if (all_digits(colon + 1)) {
			/* BINARY:FUNC:RELLINE: the binary ends at the colon before */
			*has_line = true;
			for (cut = colon - 1; cut > text && *cut != ':'; cut--)
				;
			if (cut <= text || cut + 1 == colon)
				return -EINVAL;
		}
	}
	*binary = strndup(text, cut - text);
	*rest = strdup(*cut == '@' ? cut : cut + 1);
	if (!*binary || !*rest) {
		free(*binary);
		free(*rest);
		*binary = *rest = NULL;
		return -ENOMEM;
	}
	return 0;
}
