// SPDX-License-Identifier: GPL-2.0
/*
 * DWARF side of the symbolizer.  We keep our own index of CU address ranges
 * (built once, from the CU DIEs) instead of relying on .debug_aranges, which
 * clang does not emit and which may be partial.  Finding the scopes around a
 * pc is an iterative walk with a depth and step budget rather than libdw's
 * recursive dwarf_getscopes(), because a crafted DIE tree could nest deep
 * enough to overflow our stack.
 */
#include <dwarf.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/dwarf_src.h"
#include "util/array.h"
#include "symbolize/symbolize.h"

static int cmp_range(const void *pa, const void *pb)
{
	const struct die_range *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->end < b->end ? -1 : a->end > b->end;
}

static int push_range(struct die_range **v, size_t *nr, size_t *cap, size_t max,
		      const struct die_range *r)
{
	if (*nr >= max)
		return -E2BIG;
	if (array_reserve((void **)v, cap, *nr + 1, sizeof(**v), 16))
		return -ENOMEM;
	(*v)[(*nr)++] = *r;
	return 0;
}

/* Append every non-empty range of die to v. */
static int add_die_ranges(struct die_range **v, size_t *nr, size_t *cap, size_t max,
			  Dwarf_Die *die, uint32_t cu)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;
	int err;

	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0) {
		struct die_range r = { start, end, dwarf_dieoffset(die), cu };

		if (start >= end)
			continue;
		err = push_range(v, nr, cap, max, &r);
		if (err)
			return err;
	}
	return 0;
}

static void build_cu_index(struct dwarf_src *ds)
{
	Dwarf_Off off = 0, next;
	size_t hsize, cap = 0, cus_cap = 0;

	while (dwarf_nextcu(ds->dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(ds->dbg, off + hsize, &cu)) {
			size_t before = ds->nr_ranges;
			int err = add_die_ranges(&ds->ranges, &ds->nr_ranges, &cap,
						 DWARF_MAX_CU_RANGES, &cu, (uint32_t)ds->nr_cus);

			if (err == -E2BIG || err == -ENOMEM)
				break;
			if (ds->nr_ranges > before) {
				if (ds->nr_cus == cus_cap) {
					size_t ncap = cus_cap ? cus_cap * 2 : 16;
					void *p = reallocarray(ds->cus, ncap, sizeof(*ds->cus));

					if (!p) {
						ds->nr_ranges = before;
						break;
					}
					ds->cus = p;
					cus_cap = ncap;
				}
				memset(&ds->cus[ds->nr_cus++], 0, sizeof(*ds->cus));
			}
		}
		if (next <= off)
			break;
		off = next;
	}
	if (ds->nr_ranges)
		qsort(ds->ranges, ds->nr_ranges, sizeof(*ds->ranges), cmp_range);
}

int dwarf_src_open(struct dwarf_src *ds, Elf *elf)
{
	memset(ds, 0, sizeof(*ds));
	ds->dbg = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (!ds->dbg)
		return -ENOENT;
	build_cu_index(ds);
	if (ds->nr_ranges == 0) {
		dwarf_src_close(ds);
		return -ENOENT;
	}
	return 0;
}

void dwarf_src_close(struct dwarf_src *ds)
{
	size_t i;

	if (ds->dbg)
		dwarf_end(ds->dbg);
	for (i = 0; i < ds->nr_cus; i++)
		free(ds->cus[i].funcs);
	free(ds->cus);
	free(ds->ranges);
	memset(ds, 0, sizeof(*ds));
}

/* The range in v (sorted by start) containing pc, or NULL. */
static const struct die_range *find_range(const struct die_range *v, size_t n, uint64_t pc)
{
	size_t lo = array_first_above(v, n, sizeof(*v), offsetof(struct die_range, start), pc);
	long i;
	int steps;

	/* Ranges should not overlap; look back a little in case they do. */
	for (i = (long)lo - 1, steps = 0; i >= 0 && steps < 32; i--, steps++) {
		if (pc < v[i].end)
			return &v[i];
	}
	return NULL;
}

/* DIEs that own code addresses and may nest further scopes. */
static bool is_code_scope(int tag)
{
	switch (tag) {
	case DW_TAG_subprogram:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_lexical_block:
	case DW_TAG_try_block:
	case DW_TAG_catch_block:
	case DW_TAG_with_stmt:
	case DW_TAG_entry_point:
		return true;
	default:
		return false;
	}
}

/* DIEs without addresses whose children may hold functions (C++, Fortran). */
static bool is_container(int tag)
{
	switch (tag) {
	case DW_TAG_namespace:
	case DW_TAG_module:
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_interface_type:
		return true;
	default:
		return false;
	}
}

/*
 * Index the functions (subprogram DIEs with code) of one CU: its top level
 * and containers (namespaces, classes), iteratively and within a budget.
 */
static void build_cu_funcs(struct dwarf_src *ds, uint32_t cu_idx, Dwarf_Die *cu)
{
	struct cu_funcs *cf = &ds->cus[cu_idx];
	Dwarf_Die stack[DWARF_MAX_SCOPE_DEPTH];
	int depth = 0, steps = 0;
	size_t cap = 0;

	cf->built = true;
	if (dwarf_child(cu, &stack[0]) != 0)
		return;
	while (steps++ < DWARF_MAX_DIE_STEPS) {
		int tag = dwarf_tag(&stack[depth]);

		if (tag == DW_TAG_subprogram &&
		    add_die_ranges(&cf->funcs, &cf->nr, &cap, DWARF_MAX_CU_RANGES,
				   &stack[depth], cu_idx) != 0)
			break;
		if (is_container(tag) && depth + 1 < DWARF_MAX_SCOPE_DEPTH &&
		    dwarf_child(&stack[depth], &stack[depth + 1]) == 0) {
			depth++;
			continue;
		}
		while (dwarf_siblingof(&stack[depth], &stack[depth]) != 0) {
			if (depth == 0)
				goto done;
			depth--;
		}
	}
done:
	if (cf->nr)
		qsort(cf->funcs, cf->nr, sizeof(*cf->funcs), cmp_range);
}

/* The CU DIE and the function DIE around pc; false if either is missing. */
static bool find_function(struct dwarf_src *ds, uint64_t pc, Dwarf_Die *cu, Dwarf_Die *func,
			  bool *in_cu)
{
	const struct die_range *r = find_range(ds->ranges, ds->nr_ranges, pc);
	struct cu_funcs *cf;

	*in_cu = false;
	if (!r || r->cu >= ds->nr_cus || !dwarf_offdie(ds->dbg, r->off, cu))
		return false;
	*in_cu = true;
	cf = &ds->cus[r->cu];
	if (!cf->built)
		build_cu_funcs(ds, r->cu, cu);
	r = find_range(cf->funcs, cf->nr, pc);
	return r && dwarf_offdie(ds->dbg, r->off, func) != NULL;
}

/*
 * Depth-first walk down from the function DIE for the chain of code scopes
 * containing pc.  stack[d] is the DIE being looked at on level d; in_scope[d]
 * says it is a matched code scope (then its siblings need no look: scopes do
 * not overlap).  Returns the depth of the innermost matched scope + 1.
 */
static int walk_scopes(Dwarf_Die *func, uint64_t pc, Dwarf_Die *stack, bool *in_scope)
{
	int depth = 1, innermost = 1, steps = 0;

	stack[0] = *func;
	in_scope[0] = true;
	if (dwarf_child(func, &stack[1]) != 0)
		return 1;
	in_scope[1] = false;
	while (steps++ < DWARF_MAX_DIE_STEPS) {
		int tag = dwarf_tag(&stack[depth]);
		bool descend = false;

		if (is_code_scope(tag) && dwarf_haspc(&stack[depth], pc) == 1) {
			in_scope[depth] = true;
			innermost = depth + 1;
			descend = true;
		}
		if (descend && depth + 1 < DWARF_MAX_SCOPE_DEPTH &&
		    dwarf_child(&stack[depth], &stack[depth + 1]) == 0) {
			depth++;
			in_scope[depth] = false;
			continue;
		}
		if (in_scope[depth])
			return innermost;
		while (dwarf_siblingof(&stack[depth], &stack[depth]) != 0) {
			if (depth == 0 || in_scope[depth - 1])
				return innermost;
			depth--;
		}
		in_scope[depth] = false;
	}
	return innermost;
}

static const char *attr_string(Dwarf_Die *die, int name)
{
	Dwarf_Attribute attr;
	const char *s;

	/* dwarf_attr_integrate follows abstract_origin/specification (bounded). */
	s = dwarf_formstring(dwarf_attr_integrate(die, name, &attr));
	return s && s[0] ? s : NULL;
}

/*
 * The linkage name only when it is a mangled one (C++ "_Z", Rust "_R"): that
 * is what a demangler needs.  In C a linkage name is an asm label such as
 * glibc's "__GI___libc_malloc", worse than the plain DW_AT_name.
 */
static const char *die_name(Dwarf_Die *die)
{
	const char *s = attr_string(die, DW_AT_linkage_name);

	if (!s)
		s = attr_string(die, DW_AT_MIPS_linkage_name);
	if (s && (strncmp(s, "_Z", 2) == 0 || strncmp(s, "_R", 2) == 0))
		return s;
	return attr_string(die, DW_AT_name) ?: s;
}

static void call_site(Dwarf_Die *inlined, Dwarf_Files *files, size_t nfiles,
		      struct sym_frame *f)
{
	Dwarf_Attribute attr;
	Dwarf_Word v;

	if (dwarf_formudata(dwarf_attr(inlined, DW_AT_call_line, &attr), &v) == 0 &&
	    v <= 0xffffffffu)
		f->line = (unsigned int)v;
	if (files && dwarf_formudata(dwarf_attr(inlined, DW_AT_call_file, &attr), &v) == 0 &&
	    v < nfiles)
		f->file = dwarf_filesrc(files, v, NULL, NULL);
}

static void line_of_pc(Dwarf_Die *cu, uint64_t pc, struct sym_frame *f)
{
	Dwarf_Line *line = dwarf_getsrc_die(cu, pc);
	int lineno;

	if (!line)
		return;
	f->file = dwarf_linesrc(line, NULL, NULL);
	if (dwarf_lineno(line, &lineno) == 0 && lineno > 0)
		f->line = (unsigned int)lineno;
}

int dwarf_src_lookup(struct dwarf_src *ds, uint64_t pc, struct sym_frame *out, int max,
		     bool *cu_only)
{
	Dwarf_Die cu, func, stack[DWARF_MAX_SCOPE_DEPTH];
	bool in_scope[DWARF_MAX_SCOPE_DEPTH];
	Dwarf_Files *files = NULL;
	size_t nfiles = 0;
	int depth, n = 0, d, prev = 0;
	bool in_cu;

	*cu_only = false;
	if (max <= 0 || !ds->dbg)
		return 0;
	if (!find_function(ds, pc, &cu, &func, &in_cu)) {
		if (in_cu) {
			memset(&out[0], 0, sizeof(out[0]));
			line_of_pc(&cu, pc, &out[0]);
			*cu_only = true;
		}
		return 0;
	}
	memset(&out[0], 0, sizeof(out[0]));
	line_of_pc(&cu, pc, &out[0]);
	depth = walk_scopes(&func, pc, stack, in_scope);
	if (dwarf_getsrcfiles(&cu, &files, &nfiles) != 0)
		files = NULL;
	for (d = depth - 1; d >= 0 && n < max; d--) {
		int tag = dwarf_tag(&stack[d]);

		if (!in_scope[d] ||
		    (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram))
			continue;
		if (n > 0) {
			memset(&out[n], 0, sizeof(out[n]));
			/* The inlined frame inside us says where it was called. */
			call_site(&stack[prev], files, nfiles, &out[n]);
		}
		out[n].name = die_name(&stack[d]);
		out[n].inlined = tag == DW_TAG_inlined_subroutine;
		n++;
		prev = d;
		if (tag == DW_TAG_subprogram)
			break;
	}
	if (n == 0)
		*cu_only = true;
	return n;
}
