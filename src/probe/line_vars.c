// SPDX-License-Identifier: GPL-2.0
/*
 * stitch probe -V FUNC:RELLINE: at each address the line probe goes to,
 * the arguments and locals in scope there (the copy's own and its lexical
 * blocks' around the address), their C types, and where DWARF says each
 * is at that address: a register, a stack slot, a constant, or nowhere
 * (optimized out: such a variable cannot be read there, and is said so
 * rather than read from where it was before).
 */
#include <dwarf.h>
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "probe/line_internal.h"

#define TYPE_MAX_DEPTH 12

static const char *const x86_regs[] = {
	"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip",
};

/* A DWARF register number's name on the binary's machine. */
static void reg_name(int machine, unsigned int reg, char *buf, size_t size)
{
	if (machine == EM_X86_64 && reg < sizeof(x86_regs) / sizeof(x86_regs[0]))
		snprintf(buf, size, "%%%s", x86_regs[reg]);
	else if (machine == EM_AARCH64 && reg <= 30)
		snprintf(buf, size, "x%u", reg);
	else if (machine == EM_AARCH64 && reg == 31)
		snprintf(buf, size, "sp");
	else
		snprintf(buf, size, "reg%u", reg);
}

static void type_name(Dwarf_Die *die, char *buf, size_t size, int depth);

/* prefix, inner and suffix in buf; a type too long for it ends in "...". */
static void compose(char *buf, size_t size, const char *prefix, const char *inner,
		    const char *suffix)
{
	if (snprintf(buf, size, "%s%s%s", prefix, inner, suffix) >= (int)size && size > 4)
		memcpy(buf + size - 4, "...", 4);
}

static void type_of(Dwarf_Die *die, char *buf, size_t size, int depth)
{
	Dwarf_Attribute attr;
	Dwarf_Die t;

	if (depth > TYPE_MAX_DEPTH) {
		snprintf(buf, size, "...");
		return;
	}
	if (!dwarf_attr_integrate(die, DW_AT_type, &attr) || !dwarf_formref_die(&attr, &t)) {
		snprintf(buf, size, "void");
		return;
	}
	type_name(&t, buf, size, depth + 1);
}

static long array_count(Dwarf_Die *arr)
{
	Dwarf_Attribute attr;
	Dwarf_Word v;
	Dwarf_Die sub;

	if (dwarf_child(arr, &sub) != 0 || dwarf_tag(&sub) != DW_TAG_subrange_type)
		return -1;
	if (dwarf_formudata(dwarf_attr(&sub, DW_AT_count, &attr), &v) == 0)
		return (long)v;
	if (dwarf_formudata(dwarf_attr(&sub, DW_AT_upper_bound, &attr), &v) == 0)
		return (long)v + 1;
	return -1;
}

static void type_name(Dwarf_Die *t, char *buf, size_t size, int depth)
{
	const char *name = dwarf_diename(t);
	char inner[256], dim[24];
	long count;

	switch (dwarf_tag(t)) {
	case DW_TAG_base_type:
	case DW_TAG_typedef:
		snprintf(buf, size, "%s", name ? name : "?");
		return;
	case DW_TAG_structure_type:
		snprintf(buf, size, "struct %s", name ? name : "{...}");
		return;
	case DW_TAG_union_type:
		snprintf(buf, size, "union %s", name ? name : "{...}");
		return;
	case DW_TAG_enumeration_type:
		snprintf(buf, size, "enum %s", name ? name : "{...}");
		return;
	case DW_TAG_class_type:
		snprintf(buf, size, "class %s", name ? name : "{...}");
		return;
	case DW_TAG_pointer_type:
		type_of(t, inner, sizeof(inner), depth);
		compose(buf, size, "", inner, "*");
		return;
	case DW_TAG_const_type:
		type_of(t, inner, sizeof(inner), depth);
		/* A const array's elements are const (C's rule): GCC says both */
		if (strncmp(inner, "const ", 6) == 0)
			snprintf(buf, size, "%s", inner);
		else
			compose(buf, size, "const ", inner, "");
		return;
	case DW_TAG_volatile_type:
		type_of(t, inner, sizeof(inner), depth);
		compose(buf, size, "volatile ", inner, "");
		return;
	case DW_TAG_array_type:
		type_of(t, inner, sizeof(inner), depth);
		count = array_count(t);
		if (count >= 0)
			snprintf(dim, sizeof(dim), "[%ld]", count);
		else
			snprintf(dim, sizeof(dim), "[]");
		compose(buf, size, "", inner, dim);
		return;
	case DW_TAG_subroutine_type:
		snprintf(buf, size, "function");
		return;
	default:
		type_of(t, buf, size, depth);
	}
}

/* Where one location expression says the value is, in words. */
static void describe_expr(int machine, const Dwarf_Op *ops, size_t n, char *buf, size_t size)
{
	char reg[16];
	uint8_t op;

	if (n == 0) {
		snprintf(buf, size, "<optimized out>");
		return;
	}
	op = ops[0].atom;
	if (op >= DW_OP_reg0 && op <= DW_OP_reg31 && n == 1) {
		reg_name(machine, op - DW_OP_reg0, reg, sizeof(reg));
		snprintf(buf, size, "in %s", reg);
	} else if (op == DW_OP_regx && n == 1) {
		reg_name(machine, (unsigned int)ops[0].number, reg, sizeof(reg));
		snprintf(buf, size, "in %s", reg);
	} else if (op >= DW_OP_breg0 && op <= DW_OP_breg31 && n == 1) {
		reg_name(machine, op - DW_OP_breg0, reg, sizeof(reg));
		snprintf(buf, size, "at %" PRId64 "(%s)", (int64_t)ops[0].number, reg);
	} else if (op == DW_OP_fbreg && n == 1) {
		snprintf(buf, size, "at frame base%+" PRId64, (int64_t)ops[0].number);
	} else if (op == DW_OP_addr && n == 1) {
		snprintf(buf, size, "at 0x%" PRIx64, (uint64_t)ops[0].number);
	} else if (n == 2 && ops[1].atom == DW_OP_stack_value &&
		   (op == DW_OP_constu || op == DW_OP_consts ||
		    (op >= DW_OP_lit0 && op <= DW_OP_lit31))) {
		int64_t v = op == DW_OP_constu ? (int64_t)ops[0].number :
			    op == DW_OP_consts ? (int64_t)ops[0].number : (int64_t)(op - DW_OP_lit0);

		snprintf(buf, size, "the constant %" PRId64, v);
	} else if (op == DW_OP_entry_value || op == DW_OP_GNU_entry_value) {
		snprintf(buf, size, "its value at the function's entry (not kept here)");
	} else if (op == DW_OP_implicit_value) {
		snprintf(buf, size, "a constant");
	} else if (n == 2 && ops[1].atom == DW_OP_stack_value && op >= DW_OP_breg0 &&
		   op <= DW_OP_breg31) {
		reg_name(machine, op - DW_OP_breg0, reg, sizeof(reg));
		snprintf(buf, size, "= %s%+" PRId64, reg, (int64_t)ops[0].number);
	} else if (ops[n - 1].atom == DW_OP_stack_value) {
		snprintf(buf, size, "computed from registers");
	} else if (op == DW_OP_piece || (n > 1 && ops[1].atom == DW_OP_piece)) {
		snprintf(buf, size, "in pieces");
	} else {
		snprintf(buf, size, "at an address computed from registers");
	}
}

static void print_var(FILE *f, int machine, Dwarf_Die *var, uint64_t pc)
{
	const char *name = line_die_name(var);
	Dwarf_Attribute attr;
	char type[256], where[128];
	Dwarf_Op *ops[4];
	size_t lens[4];
	int n;

	if (!name)
		return;
	type_of(var, type, sizeof(type), 0);
	if (dwarf_attr_integrate(var, DW_AT_const_value, &attr)) {
		snprintf(where, sizeof(where), "a constant");
	} else if (!dwarf_attr(var, DW_AT_location, &attr)) {
		snprintf(where, sizeof(where), "<optimized out>");
	} else {
		n = dwarf_getlocation_addr(&attr, pc, ops, lens, 4);
		if (n <= 0)
			snprintf(where, sizeof(where), "<optimized out>");
		else
			describe_expr(machine, ops[0], lens[0], where, sizeof(where));
	}
	fprintf(f, "\t\t%-24s %-16s %s\n", type, name, where);
}

static bool block_has(Dwarf_Die *die, uint64_t pc)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0)
		if (pc >= start && pc < end)
			return true;
	return false;
}

/* The variables of scope (and of its lexical blocks around pc), outermost first. */
static void print_scope(FILE *f, int machine, Dwarf_Die *scope, uint64_t pc, int depth,
			long *budget)
{
	Dwarf_Die child;

	if (depth > LINE_MAX_DEPTH || dwarf_child(scope, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);

		if (--*budget < 0)
			return;
		if (tag == DW_TAG_formal_parameter || tag == DW_TAG_variable)
			print_var(f, machine, &child, pc);
		else if (tag == DW_TAG_lexical_block && block_has(&child, pc))
			print_scope(f, machine, &child, pc, depth + 1, budget);
	} while (dwarf_siblingof(&child, &child) == 0);
}

int line_list_vars(FILE *f, struct line_dwarf *ld, const struct line_spec *spec, char *err,
		   size_t errlen)
{
	struct line_site *sites;
	GElf_Ehdr eh;
	size_t n, i;
	int rc, machine;

	if (spec->line < 0 && !spec->func) {
		snprintf(err, errlen, "-V takes a function or a line: BINARY:FUNC, "
			 "BINARY:FUNC:RELLINE or BINARY@FILE:LINE");
		return -EINVAL;
	}
	rc = line_sites(ld, spec, &sites, &n, err, errlen);
	if (rc)
		return rc;
	machine = gelf_getehdr(ld->elf, &eh) ? eh.e_machine : EM_NONE;
	for (i = 0; i < n; i++) {
		long budget = 100000;
		Dwarf_Die scope;

		fprintf(f, "Variables at %s:%d (%s:%d), 0x%" PRIx64 "%s%s\n", sites[i].func,
			sites[i].rel, sites[i].file, sites[i].line, sites[i].vaddr,
			sites[i].caller[0] ? ", inlined into " : "", sites[i].caller);
		if (dwarf_offdie(ld->dbg, sites[i].scope, &scope))
			print_scope(f, machine, &scope, sites[i].vaddr, 0, &budget);
	}
	free(sites);
	return 0;
}
