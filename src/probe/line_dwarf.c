// SPDX-License-Identifier: GPL-2.0
/*
 * A binary's DWARF for line probes, and the two questions every part asks
 * of it: where are the copies of a function's code, and which line table
 * rows are each copy's own.  The DIE walk is iterative with a depth and a
 * step budget, as the symbolizer's, because the file is the user's and may
 * be anything.
 */
#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe/line_internal.h"
#include "util/array.h"
#include "util/elf_util.h"

/* Whether elf has DWARF whose CUs carry code (not only .eh_frame). */
static Dwarf *dwarf_with_code(Elf *elf)
{
	Dwarf *dbg = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	Dwarf_Off off = 0, next;
	size_t hsize;

	if (!dbg)
		return NULL;
	if (dwarf_nextcu(dbg, off, &next, &hsize, NULL, NULL, NULL) == 0)
		return dbg;
	dwarf_end(dbg);
	return NULL;
}

int line_dwarf_open(struct line_dwarf *ld, const char *path, char *err, size_t errlen)
{
	memset(ld, 0, sizeof(*ld));
	ld->fd = -1;
	ld->df.fd = -1;
	snprintf(ld->path, sizeof(ld->path), "%s", path);
	ld->elf = elf_open_file(path, &ld->fd);
	if (!ld->elf) {
		int e = errno ? errno : ENOEXEC;

		snprintf(err, errlen, "cannot read %s as ELF: %s", path, strerror(e));
		return -e;
	}
	ld->dbg = dwarf_with_code(ld->elf);
	if (!ld->dbg && debug_file_find(ld->elf, path, "", &ld->df) == 0)
		ld->dbg = dwarf_with_code(ld->df.elf);
	if (!ld->dbg) {
		snprintf(err, errlen, "%s has no DWARF (.debug_info) and no debug file was found: "
			 "build it with -g, or install its -dbgsym package (or set DEBUGINFOD_URLS)",
			 path);
		line_dwarf_close(ld);
		return -ENOENT;
	}
	return 0;
}

void line_dwarf_close(struct line_dwarf *ld)
{
	if (ld->eh_cfi)
		dwarf_cfi_end(ld->eh_cfi);
	ld->eh_cfi = NULL;
	if (ld->dbg)
		dwarf_end(ld->dbg);
	if (ld->df.elf)
		debug_file_close(&ld->df);
	if (ld->elf)
		elf_end(ld->elf);
	if (ld->fd >= 0)
		close(ld->fd);
	ld->dbg = NULL;
	ld->elf = NULL;
	ld->fd = -1;
}

const char *line_die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *s = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));

	return s && s[0] ? s : NULL;
}

bool line_file_matches(const char *path, const char *file)
{
	size_t lp = strlen(path), lf = strlen(file);

	if (lf > lp)
		return false;
	if (strcmp(path + lp - lf, file) != 0)
		return false;
	return lf == lp || path[lp - lf - 1] == '/' || file[0] == '/';
}

static bool has_code(Dwarf_Die *die)
{
	return dwarf_hasattr(die, DW_AT_low_pc) || dwarf_hasattr(die, DW_AT_ranges);
}

static void copy_name(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src ? src : "");
}

/* The function around a DIE of the walk: its declaration. */
struct encl {
	const char *outer;	/* the out-of-line function's name */
	Dwarf_Off outer_die;
	const char *file;	/* the innermost function's declaration */
	int line;
};

static int add_inst(struct line_inst **v, size_t *n, size_t *cap, Dwarf_Die *die, Dwarf_Off cu,
		    const char *name, const char *caller, const struct encl *parent)
{
	Dwarf_Attribute attr;
	Dwarf_Word call = 0;
	struct line_inst *in;

	if (*n >= LINE_PROBE_MAX_INSTANCES)
		return 0;
	if (array_reserve((void **)v, cap, *n + 1, sizeof(**v), 16))
		return -ENOMEM;
	in = &(*v)[(*n)++];
	memset(in, 0, sizeof(*in));
	in->die = dwarf_dieoffset(die);
	in->outer = caller ? parent->outer_die : in->die;
	in->cu = cu;
	copy_name(in->name, sizeof(in->name), name);
	copy_name(in->caller, sizeof(in->caller), caller);
	in->decl_file = dwarf_decl_file(die);
	if (dwarf_decl_line(die, &in->decl_line) != 0)
		in->decl_line = 0;
	if (caller && dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &attr), &call) == 0 &&
	    call <= 0x7fffffff) {
		in->call_line = (int)call;
		in->parent_file = parent->file;
		in->parent_line = parent->line;
	}
	return 0;
}

/* Whether die is a copy spec asks for. */
static bool wanted(Dwarf_Die *die, const struct line_spec *spec, const char *name)
{
	const char *file;

	if (spec->func)
		return name && strcmp(name, spec->func) == 0;
	file = dwarf_decl_file(die);
	return file && spec->file && line_file_matches(file, spec->file);
}

static int walk_cu(Dwarf_Die *cu, const struct line_spec *spec, struct line_inst **v, size_t *n,
		   size_t *cap, long *steps)
{
	Dwarf_Die stack[LINE_MAX_DEPTH];
	struct encl encl[LINE_MAX_DEPTH];	/* the functions around each depth */
	Dwarf_Off cuoff = dwarf_dieoffset(cu);
	int depth = 0, err;

	if (dwarf_child(cu, &stack[0]) != 0)
		return 0;
	encl[0] = (struct encl){ NULL, 0, NULL, 0 };
	for (;;) {
		Dwarf_Die *die = &stack[depth];
		int tag = dwarf_tag(die);
		struct encl here = encl[depth];

		if (++*steps > LINE_MAX_STEPS)
			return 0;
		if ((tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) && has_code(die)) {
			const char *name = line_die_name(die);

			if (wanted(die, spec, name)) {
				err = add_inst(v, n, cap, die, cuoff, name,
					       tag == DW_TAG_inlined_subroutine ? here.outer : NULL,
					       &here);
				if (err)
					return err;
			}
			if (tag == DW_TAG_subprogram && !here.outer) {
				here.outer = name ? name : "?";
				here.outer_die = dwarf_dieoffset(die);
			}
			here.file = dwarf_decl_file(die);
			if (dwarf_decl_line(die, &here.line) != 0)
				here.line = 0;
		}
		if (depth + 1 < LINE_MAX_DEPTH && dwarf_haschildren(die) > 0 &&
		    dwarf_child(die, &stack[depth + 1]) == 0) {
			encl[++depth] = here;
			continue;
		}
		while (dwarf_siblingof(&stack[depth], &stack[depth]) != 0) {
			if (depth == 0)
				return 0;
			depth--;
		}
	}
}

/*
 * The DWARF name of the function an ELF symbol of that name starts, where
 * they differ: glibc's malloc is __libc_malloc's code (an alias), as a
 * uprobe:libc.so.6:malloc names it.  buf, or NULL.
 */
struct alias_find {
	Dwarf_Addr addr;
	const char *name;
};

static int alias_func(Dwarf_Die *func, void *arg)
{
	struct alias_find *a = arg;
	Dwarf_Addr entry;

	if (dwarf_entrypc(func, &entry) != 0 || entry != a->addr)
		return DWARF_CB_OK;
	a->name = line_die_name(func);
	return a->name ? DWARF_CB_ABORT : DWARF_CB_OK;
}

/*
 * By dwarf_getfuncs(), not dwarf_getscopes(): on a malformed unit the
 * latter fails after allocating its result, which it then neither frees
 * nor returns (elfutils 0.188; fuzz_line_probe, 96 bytes a call).
 */
static const char *alias_of(struct line_dwarf *ld, const char *sym, char *buf, size_t size)
{
	struct alias_find a = { 0, NULL };
	Dwarf_Die cu;
	uint64_t addr = 0, len;

	if (!elf_sym_find(ld->elf, SHT_SYMTAB, sym, &addr, &len) &&
	    !elf_dynsym_find(ld->elf, sym, &addr, &len))
		return NULL;
	if (!addr || !dwarf_addrdie(ld->dbg, addr, &cu))
		return NULL;
	a.addr = addr;
	dwarf_getfuncs(&cu, alias_func, &a, 0);
	if (!a.name || strcmp(a.name, sym) == 0)
		return NULL;
	snprintf(buf, size, "%s", a.name);
	return buf[0] ? buf : NULL;
}

static int instances_named(struct line_dwarf *ld, const struct line_spec *spec,
			   struct line_inst **out, size_t *n);

int line_instances(struct line_dwarf *ld, const struct line_spec *spec, struct line_inst **out,
		   size_t *n)
{
	struct line_spec alias = *spec;
	char buf[128] = "";
	int rc = instances_named(ld, spec, out, n);

	if (rc || *n || !spec->func || !alias_of(ld, spec->func, buf, sizeof(buf)))
		return rc;
	free(*out);
	alias.func = buf;
	return instances_named(ld, &alias, out, n);
}

/*
 * The kernel's CUs worth walking for spec: its function's, found by the
 * address of its symbol (.debug_aranges), or those named like its file.
 */
static bool kernel_cu_wanted(struct line_dwarf *ld, const struct line_spec *spec, Dwarf_Die *cu,
			     Dwarf_Off func_cu)
{
	const char *name;

	if (spec->func)
		return dwarf_dieoffset(cu) == func_cu;
	name = dwarf_diename(cu);
	(void)ld;
	return name && spec->file && line_file_matches(name, spec->file);
}

static int instances_named(struct line_dwarf *ld, const struct line_spec *spec,
			   struct line_inst **out, size_t *n)
{
	Dwarf_Off off = 0, next, func_cu = 0;
	size_t hsize, cap = 0;
	long steps = 0;
	int err = 0;

	*out = NULL;
	*n = 0;
	if (ld->kernel && spec->func) {
		uint64_t addr = 0, size;
		Dwarf_Die cu;

		if (!elf_sym_find(ld->elf, SHT_SYMTAB, spec->func, &addr, &size) ||
		    !dwarf_addrdie(ld->dbg, addr, &cu))
			return 0;
		func_cu = dwarf_dieoffset(&cu);
	}
	while (!err && dwarf_nextcu(ld->dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(ld->dbg, off + hsize, &cu) &&
		    (!ld->kernel || kernel_cu_wanted(ld, spec, &cu, func_cu)))
			err = walk_cu(&cu, spec, out, n, &cap, &steps);
		if (next <= off)
			break;
		off = next;
	}
	if (err) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return err;
}

/* An address range of a copy, or of a function inlined into it (its call's line). */
struct span {
	uint64_t start, end;
	int call_line;
};

#define LINE_MAX_SPANS 4096

static int add_ranges(Dwarf_Die *die, struct span **v, size_t *n, size_t *cap, int call_line)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0) {
		if (start >= end)
			continue;
		if (*n >= LINE_MAX_SPANS)
			return 0;
		if (array_reserve((void **)v, cap, *n + 1, sizeof(**v), 8))
			return -ENOMEM;
		(*v)[(*n)++] = (struct span){ start, end, call_line };
	}
	return 0;
}

/* The functions inlined into die (not those inlined into them: theirs is inside). */
static int nested_spans(Dwarf_Die *die, struct span **v, size_t *n, size_t *cap)
{
	Dwarf_Die stack[LINE_MAX_DEPTH];
	int depth = 0, err;
	long steps = 0;

	if (dwarf_child(die, &stack[0]) != 0)
		return 0;
	for (;;) {
		Dwarf_Die *d = &stack[depth];
		bool inlined = dwarf_tag(d) == DW_TAG_inlined_subroutine;

		if (++steps > LINE_MAX_STEPS)
			return 0;
		if (inlined) {
			Dwarf_Attribute attr;
			Dwarf_Word call = 0;

			dwarf_formudata(dwarf_attr(d, DW_AT_call_line, &attr), &call);
			err = add_ranges(d, v, n, cap, call > 0x7fffffff ? 0 : (int)call);
			if (err)
				return err;
		}
		if (!inlined && depth + 1 < LINE_MAX_DEPTH && dwarf_haschildren(d) > 0 &&
		    dwarf_child(d, &stack[depth + 1]) == 0) {
			depth++;
			continue;
		}
		while (dwarf_siblingof(&stack[depth], &stack[depth]) != 0) {
			if (depth == 0)
				return 0;
			depth--;
		}
	}
}

static const struct span *span_of(const struct span *v, size_t n, uint64_t addr)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (addr >= v[i].start && addr < v[i].end)
			return &v[i];
	return NULL;
}

/* The first row at or after addr: the table is in address order. */
static size_t first_row(Dwarf_Lines *lines, size_t nlines, uint64_t addr)
{
	size_t lo = 0, hi = nlines;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		Dwarf_Addr a = 0;

		dwarf_lineaddr(dwarf_onesrcline(lines, mid), &a);
		if (a < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int cmp_row(const void *pa, const void *pb)
{
	const struct line_row *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return (a->line > b->line) - (a->line < b->line);
}

/* Whether the row at addr, of line, is the copy's own (line_inst_rows()). */
static bool own_row(const struct line_inst *inst, uint64_t entry, const struct span *nested,
		    size_t nnested, uint64_t addr, int line)
{
	const struct span *in = span_of(nested, nnested, addr);

	/* An inlined function's closing line, where its caller's code resumes */
	if (line < inst->decl_line)
		return false;
	if (addr == entry && inst->call_line && inst->parent_file &&
	    strcmp(inst->parent_file, inst->decl_file) == 0 &&
	    line >= inst->parent_line && line <= inst->call_line)
		return false;	/* the caller's, before the call */
	if (!in)
		return true;
	return addr == in->start && line >= inst->decl_line && line <= in->call_line;
}

int line_inst_rows(struct line_dwarf *ld, const struct line_inst *inst, struct line_row **out,
		   size_t *n)
{
	struct span *own = NULL, *nested = NULL;
	size_t nown = 0, ownc = 0, nnested = 0, nestc = 0, cap = 0, nlines, i, j;
	Dwarf_Die cu, die;
	Dwarf_Lines *lines;
	uint64_t entry;
	int err;

	*out = NULL;
	*n = 0;
	if (!inst->decl_file || !dwarf_offdie(ld->dbg, inst->cu, &cu) ||
	    !dwarf_offdie(ld->dbg, inst->die, &die) || dwarf_getsrclines(&cu, &lines, &nlines) != 0)
		return -ENOENT;
	err = add_ranges(&die, &own, &nown, &ownc, 0);
	if (!err)
		err = nested_spans(&die, &nested, &nnested, &nestc);
	entry = UINT64_MAX;
	for (i = 0; i < nown; i++)
		if (own[i].start < entry)
			entry = own[i].start;
	for (i = 0; !err && i < nown; i++) {
		for (j = first_row(lines, nlines, own[i].start); j < nlines; j++) {
			Dwarf_Line *l = dwarf_onesrcline(lines, j);
			Dwarf_Addr addr = 0;
			const char *file;
			bool end = false, stmt = false;
			int line = 0;

			dwarf_lineaddr(l, &addr);
			if (addr >= own[i].end)
				break;
			dwarf_lineendsequence(l, &end);
			dwarf_linebeginstatement(l, &stmt);
			file = dwarf_linesrc(l, NULL, NULL);
			if (end || dwarf_lineno(l, &line) != 0 || line <= 0 || !file ||
			    strcmp(file, inst->decl_file) != 0 ||
			    !own_row(inst, entry, nested, nnested, addr, line))
				continue;
			if (array_reserve((void **)out, &cap, *n + 1, sizeof(**out), 32)) {
				err = -ENOMEM;
				break;
			}
			(*out)[(*n)++] = (struct line_row){ addr, line, stmt };
		}
	}
	free(own);
	free(nested);
	if (err) {
		free(*out);
		*out = NULL;
		*n = 0;
		return err;
	}
	/* qsort() of NULL: undefined, even of none (UBSan; fuzz_line_probe). */
	if (*n)
		qsort(*out, *n, sizeof(**out), cmp_row);
	return 0;
}
