// SPDX-License-Identifier: GPL-2.0
/*
 * --fetch expressions into the capture program's steps (probe/fetch.h),
 * from the DWARF of the probe's address: where the variable is there (its
 * location list entry for that pc: a register, a value computed from one,
 * a stack slot off the frame base, whose CFA comes from the CFI, a static
 * address, a constant), then each ->, . and [] through its C type, loading
 * the thread's memory where a pointer is followed.  Anything this cannot
 * follow exactly is refused with a reason, and a variable without a
 * location at the address reads <optimized out>: a wrong value is worse
 * than none.
 */
#include <ctype.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <gelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "probe/fetch_compile.h"
#include "probe/fetch_path.h"
#include "probe/line_internal.h"

#define TYPE_MAX_HOPS 16

/* Where the value being followed is: in hand (x), or in memory at x. */
enum place { PLACE_VALUE, PLACE_MEMORY };

struct compiler {
	struct fetch_step *steps;
	int n;
	const char *expr;
	char *err;
	size_t errlen;
	/* The last member followed is a bit field: its width and first bit after its offset */
	int bit_size, bit_shift;
	/* The running kernel's DWARF: emit()'s kernel steps, and KASLR's move */
	bool kernel;
	int64_t bias;
};

static int fail(struct compiler *c, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(c->err, c->errlen, "--fetch '%s': %s", c->expr, why);
	return -EINVAL;
}

static int emit(struct compiler *c, int kind, unsigned int arg, int64_t imm)
{
	if (c->n >= FETCH_MAX_STEPS - 1)
		return fail(c, "too many steps (at most %d)", FETCH_MAX_STEPS - 1);
	/*
	 * The kernel's DWARF (a kprobe on a line): its registers are the
	 * probe's own, its memory the kernel's (a __user pointer's the
	 * thread's, by its address), its statics where KASLR put them.
	 */
	if (c->kernel) {
		if (kind == FETCH_STEP_REG)
			kind = FETCH_STEP_KREG;
		else if (kind == FETCH_STEP_LOAD)
			kind = FETCH_STEP_LOAD_ANY;
		else if (kind == FETCH_STEP_STR)
			kind = FETCH_STEP_STR_ANY;
		else if (kind == FETCH_STEP_BIAS) {
			kind = FETCH_STEP_ADD;
			imm = c->bias;
		}
	}
	c->steps[c->n].kind = kind;
	c->steps[c->n].arg = arg;
	c->steps[c->n].imm = imm;
	c->n++;
	return 0;
}

/* The variable named name in scope at pc: the innermost block's first. */
static bool find_in_scope(Dwarf_Die *scope, uint64_t pc, const char *name, Dwarf_Die *out,
			  int depth)
{
	Dwarf_Die child;
	bool found = false;

	if (depth > LINE_MAX_DEPTH || dwarf_child(scope, &child) != 0)
		return false;
	do {
		int tag = dwarf_tag(&child);
		const char *n;

		if (tag == DW_TAG_formal_parameter || tag == DW_TAG_variable) {
			n = line_die_name(&child);
			if (n && strcmp(n, name) == 0) {
				*out = child;
				found = true;
			}
		} else if (tag == DW_TAG_lexical_block) {
			Dwarf_Addr base, start, end;
			ptrdiff_t off = 0;

			while ((off = dwarf_ranges(&child, off, &base, &start, &end)) > 0)
				if (pc >= start && pc < end) {
					Dwarf_Die inner;

					if (find_in_scope(&child, pc, name, &inner, depth + 1)) {
						*out = inner;
						return true;
					}
					break;
				}
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return found;
}

/* A variable of the CU (a static or global), by name. */
static bool find_global(Dwarf_Die *cu, const char *name, Dwarf_Die *out)
{
	Dwarf_Die child;

	if (dwarf_child(cu, &child) != 0)
		return false;
	do {
		const char *n;

		if (dwarf_tag(&child) != DW_TAG_variable)
			continue;
		n = line_die_name(&child);
		if (n && strcmp(n, name) == 0 && dwarf_hasattr(&child, DW_AT_location)) {
			*out = child;
			return true;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

static bool reg_ok(int machine, unsigned int reg)
{
	return machine == EM_X86_64 ? reg <= 16 : machine == EM_AARCH64 ? reg <= 31 : false;
}

/*
 * A value in a register the probe does not save (a float in %xmm0, arm64's
 * v0): there, but not readable; said before tracing, never a wrong value.
 */
static int unsaved_reg(struct compiler *c, unsigned int reg)
{
	return fail(c, "it is in a register a probe does not save (DWARF's %u: a vector or "
		    "floating-point one) there: probe a line where it is in memory", reg);
}

/* DW_OP_bregN off or DW_OP_bregx N off (libdw's CFA rules are the latter): true if op is one. */
static bool breg_of(const Dwarf_Op *op, unsigned int *reg, int64_t *off)
{
	if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
		*reg = op->atom - DW_OP_breg0;
		*off = (int64_t)op->number;
		return true;
	}
	if (op->atom == DW_OP_bregx && op->number <= 0xffff) {
		*reg = (unsigned int)op->number;
		*off = (int64_t)op->number2;
		return true;
	}
	return false;
}

/* The CFA at pc, from the binary's .eh_frame or the debug file's .debug_frame. */
static int cfa_at(struct compiler *c, struct line_dwarf *ld, int machine, uint64_t pc)
{
	Dwarf_CFI *cfis[2];
	int i;

	if (!ld->eh_cfi)
		ld->eh_cfi = dwarf_getcfi_elf(ld->elf);
	cfis[0] = ld->eh_cfi;
	cfis[1] = dwarf_getcfi(ld->dbg);	/* the Dwarf's own, freed with it */

	for (i = 0; i < 2; i++) {
		Dwarf_Frame *frame = NULL;
		Dwarf_Op *ops;
		size_t nops;
		int rc = -ENOENT;

		if (!cfis[i] || dwarf_cfi_addrframe(cfis[i], pc, &frame) != 0)
			continue;
		unsigned int reg;
		int64_t off;

		if (dwarf_frame_cfa(frame, &ops, &nops) == 0 && nops >= 1 &&
		    breg_of(&ops[0], &reg, &off) &&
		    (nops == 1 || (nops == 2 && ops[1].atom == DW_OP_stack_value)) &&
		    reg_ok(machine, reg)) {
			rc = emit(c, FETCH_STEP_REG, reg, 0);
			if (!rc)
				rc = emit(c, FETCH_STEP_ADD, 0, off);
		}
		free(frame);
		if (rc != -ENOENT)
			return rc;
	}
	return fail(c, "no call frame information at 0x%llx for the frame base",
		    (unsigned long long)pc);
}

/* The frame base of the function the address is in (DW_OP_fbreg's). */
static int frame_base(struct compiler *c, struct line_dwarf *ld, int machine,
		      const struct line_site *site)
{
	Dwarf_Attribute attr;
	Dwarf_Op *ops[1];
	unsigned int reg;
	size_t lens[1];
	Dwarf_Die fn;
	int64_t off;

	if (!dwarf_offdie(ld->dbg, site->outer, &fn) ||
	    !dwarf_attr_integrate(&fn, DW_AT_frame_base, &attr) ||
	    dwarf_getlocation_addr(&attr, site->vaddr, ops, lens, 1) != 1 || lens[0] != 1)
		return fail(c, "its function has no frame base at that address");
	if (ops[0][0].atom == DW_OP_call_frame_cfa)
		return cfa_at(c, ld, machine, site->vaddr);
	if (breg_of(&ops[0][0], &reg, &off) && reg_ok(machine, reg)) {
		int rc = emit(c, FETCH_STEP_REG, reg, 0);

		return rc ? rc : emit(c, FETCH_STEP_ADD, 0, off);
	}
	return fail(c, "its function's frame base is an expression stitch does not follow");
}

/*
 * The variable's place at the address: steps that leave its value (VALUE)
 * or its address (MEMORY) in x; 1 when it is not there (optimized out).
 */
static int locate(struct compiler *c, struct line_dwarf *ld, int machine,
		  const struct line_site *site, Dwarf_Die *var, enum place *place)
{
	Dwarf_Attribute attr;
	Dwarf_Op *ops[1];
	size_t lens[1];
	Dwarf_Word u;
	Dwarf_Sword sv;
	const Dwarf_Op *op;
	unsigned int reg;
	int64_t off;
	size_t n;
	int rc;

	if (dwarf_attr_integrate(var, DW_AT_const_value, &attr)) {
		*place = PLACE_VALUE;
		if (dwarf_formsdata(&attr, &sv) == 0)
			return emit(c, FETCH_STEP_CONST, 0, sv);
		if (dwarf_formudata(&attr, &u) == 0)
			return emit(c, FETCH_STEP_CONST, 0, (int64_t)u);
		return fail(c, "a constant of a form stitch does not read");
	}
	if (!dwarf_attr(var, DW_AT_location, &attr) ||
	    dwarf_getlocation_addr(&attr, site->vaddr, ops, lens, 1) <= 0 || lens[0] == 0)
		return 1;
	op = ops[0];
	n = lens[0];
	if (n == 1 && op[0].atom >= DW_OP_reg0 && op[0].atom <= DW_OP_reg31) {
		*place = PLACE_VALUE;
		if (!reg_ok(machine, op[0].atom - DW_OP_reg0))
			return unsaved_reg(c, op[0].atom - DW_OP_reg0);
		return emit(c, FETCH_STEP_REG, op[0].atom - DW_OP_reg0, 0);
	}
	if (n == 1 && op[0].atom == DW_OP_regx) {
		*place = PLACE_VALUE;
		if (!reg_ok(machine, (unsigned int)op[0].number))
			return unsaved_reg(c, (unsigned int)op[0].number);
		return emit(c, FETCH_STEP_REG, (unsigned int)op[0].number, 0);
	}
	if ((n == 1 || (n == 2 && op[1].atom == DW_OP_stack_value)) &&
	    breg_of(&op[0], &reg, &off)) {
		*place = n == 1 ? PLACE_MEMORY : PLACE_VALUE;
		if (!reg_ok(machine, reg))
			return 1;
		rc = emit(c, FETCH_STEP_REG, reg, 0);
		return rc ? rc : emit(c, FETCH_STEP_ADD, 0, off);
	}
	if (n == 1 && op[0].atom == DW_OP_fbreg) {
		*place = PLACE_MEMORY;
		rc = frame_base(c, ld, machine, site);
		return rc ? rc : emit(c, FETCH_STEP_ADD, 0, (int64_t)op[0].number);
	}
	if (n == 1 && op[0].atom == DW_OP_addr) {
		*place = PLACE_MEMORY;
		rc = emit(c, FETCH_STEP_CONST, 0, (int64_t)op[0].number);
		return rc ? rc : emit(c, FETCH_STEP_BIAS, 0, 0);
	}
	if (n == 2 && op[1].atom == DW_OP_stack_value &&
	    (op[0].atom == DW_OP_constu || op[0].atom == DW_OP_consts ||
	     (op[0].atom >= DW_OP_lit0 && op[0].atom <= DW_OP_lit31))) {
		*place = PLACE_VALUE;
		return emit(c, FETCH_STEP_CONST, 0,
			    op[0].atom >= DW_OP_lit0 && op[0].atom <= DW_OP_lit31 ?
			    op[0].atom - DW_OP_lit0 : (int64_t)op[0].number);
	}
	/* Entry values, pieces, computations: not what the registers hold here. */
	return 1;
}

/* The type under typedefs and qualifiers; false for void. */
static bool strip(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute attr;
	int hops;

	if (!dwarf_attr_integrate(die, DW_AT_type, &attr) || !dwarf_formref_die(&attr, type))
		return false;
	for (hops = 0; hops < TYPE_MAX_HOPS; hops++) {
		int tag = dwarf_tag(type);

		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type &&
		    tag != DW_TAG_volatile_type && tag != DW_TAG_restrict_type &&
		    tag != DW_TAG_atomic_type)
			return true;
		if (!dwarf_attr_integrate(type, DW_AT_type, &attr) ||
		    !dwarf_formref_die(&attr, type))
			return false;
	}
	return false;
}

static long type_size(Dwarf_Die *type)
{
	int tag = dwarf_tag(type);
	Dwarf_Word n;

	if (tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type)
		return 8;
	n = dwarf_bytesize(type) >= 0 ? (Dwarf_Word)dwarf_bytesize(type) : 0;
	return (long)n;
}

/* The member name of struct/union type (C11 anonymous members looked into). */
static bool find_member(Dwarf_Die *type, const char *name, Dwarf_Die *member, int64_t *offset,
			int depth)
{
	Dwarf_Die child;

	if (depth > 8 || dwarf_child(type, &child) != 0)
		return false;
	do {
		Dwarf_Attribute attr;
		Dwarf_Word off = 0;
		const char *n;

		if (dwarf_tag(&child) != DW_TAG_member)
			continue;
		if (dwarf_attr(&child, DW_AT_data_member_location, &attr) &&
		    dwarf_formudata(&attr, &off) != 0)
			continue;	/* an expression: not a fixed offset */
		n = dwarf_diename(&child);
		if (n && strcmp(n, name) == 0) {
			*member = child;
			*offset = (int64_t)off;
			return true;
		}
		if (!n) {
			Dwarf_Die inner;
			int64_t inner_off;

			if (strip(&child, &inner) &&
			    (dwarf_tag(&inner) == DW_TAG_structure_type ||
			     dwarf_tag(&inner) == DW_TAG_union_type) &&
			    find_member(&inner, name, member, &inner_off, depth + 1)) {
				*offset = (int64_t)off + inner_off;
				return true;
			}
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/*
 * A bit field: its width, and where its first bit is from *off's byte on
 * (little-endian, as both our machines are), *off moved to its first byte.
 * DWARF 4+ says DW_AT_data_bit_offset from the struct's start; DWARF 2/3
 * DW_AT_bit_offset from the top of a DW_AT_byte_size unit at the member's
 * location.
 */
static int bit_field(struct compiler *c, Dwarf_Die *member, Dwarf_Die *type, int64_t *off)
{
	Dwarf_Attribute attr;
	Dwarf_Word size = 0, at = 0, unit;
	int64_t first;

	if (dwarf_formudata(dwarf_attr(member, DW_AT_bit_size, &attr), &size) != 0 ||
	    size == 0 || size > 64)
		return fail(c, "a bit field of a width stitch does not read");
	if (dwarf_attr(member, DW_AT_data_bit_offset, &attr)) {
		if (dwarf_formudata(&attr, &at) != 0)
			return fail(c, "a bit field without its place");
		first = *off * 8 + (int64_t)at;
	} else if (dwarf_attr(member, DW_AT_bit_offset, &attr)) {
		unit = dwarf_bytesize(member) > 0 ? (Dwarf_Word)dwarf_bytesize(member) :
						   (Dwarf_Word)dwarf_bytesize(type);
		if (dwarf_formudata(&attr, &at) != 0 || unit == 0 || unit > 8 ||
		    at + size > unit * 8)
			return fail(c, "a bit field without its place");
		first = *off * 8 + (int64_t)(unit * 8 - at - size);
	} else {
		first = *off * 8;
	}
	if (first < 0 || (first % 8) + (int64_t)size > 64)
		return fail(c, "a bit field across more than 8 bytes");
	*off = first / 8;
	c->bit_size = (int)size;
	c->bit_shift = (int)(first % 8);
	return 0;
}

static bool is_struct(Dwarf_Die *t)
{
	int tag = dwarf_tag(t);

	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_class_type;
}

/* One ->, . or [] from type at place; type and place become the member's. */
static int follow(struct compiler *c, const struct fetch_access *a, Dwarf_Die *type, enum place *place)
{
	Dwarf_Die next, member;
	int64_t off;
	long size;
	int rc;

	switch (a->kind) {
	case ACC_ARROW:
		if (dwarf_tag(type) != DW_TAG_pointer_type)
			return fail(c, "'->%s' on something that is not a pointer", a->name);
		if (*place == PLACE_MEMORY && (rc = emit(c, FETCH_STEP_LOAD, 8, 0)))
			return rc;
		if (!strip(type, &next) || !is_struct(&next))
			return fail(c, "'->%s' on a pointer to no struct", a->name);
		*type = next;
		*place = PLACE_MEMORY;
		/* the struct's member, now in memory */
		/* fall through */
	case ACC_DOT:
		if (!is_struct(type))
			return fail(c, "'.%s' on something that is not a struct", a->name);
		if (dwarf_hasattr(type, DW_AT_declaration))
			return fail(c, "'%s': its struct is not defined in this compile unit",
				    a->name);
		if (*place != PLACE_MEMORY)
			return fail(c, "'.%s': the struct is in registers there", a->name);
		if (!find_member(type, a->name, &member, &off, 0))
			return fail(c, "no member '%s' in struct %s", a->name,
				    dwarf_diename(type) ?: "(anonymous)");
		if (!strip(&member, &next))
			return fail(c, "'%s' has no type", a->name);
		*type = next;
		if (dwarf_hasattr(&member, DW_AT_bit_size)) {
			rc = bit_field(c, &member, &next, &off);
			if (rc)
				return rc;
		}
		return off ? emit(c, FETCH_STEP_ADD, 0, off) : 0;
	case ACC_INDEX:
		if (dwarf_tag(type) == DW_TAG_array_type) {
			if (*place != PLACE_MEMORY)
				return fail(c, "[%ld]: the array is in registers there", a->index);
		} else if (dwarf_tag(type) == DW_TAG_pointer_type) {
			if (*place == PLACE_MEMORY && (rc = emit(c, FETCH_STEP_LOAD, 8, 0)))
				return rc;
		} else {
			return fail(c, "[%ld] on something that is neither an array nor a pointer",
				    a->index);
		}
		if (!strip(type, &next))
			return fail(c, "[%ld] of void", a->index);
		size = type_size(&next);
		if (size <= 0)
			return fail(c, "[%ld]: its elements have no size", a->index);
		*type = next;
		*place = PLACE_MEMORY;
		return a->index ? emit(c, FETCH_STEP_ADD, 0, a->index * size) : 0;
	}
	return -EINVAL;
}

static bool char_type(Dwarf_Die *t)
{
	Dwarf_Attribute attr;
	Dwarf_Word enc;

	if (dwarf_tag(t) != DW_TAG_base_type || dwarf_bytesize(t) != 1 ||
	    dwarf_formudata(dwarf_attr(t, DW_AT_encoding, &attr), &enc) != 0)
		return false;
	return enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char ||
	       enc == DW_ATE_signed || enc == DW_ATE_unsigned || enc == DW_ATE_UTF;
}

/* :string: a char array in memory, or a char pointer. */
static int finish_string(struct compiler *c, Dwarf_Die *type, enum place place,
			 struct fetch_format *f)
{
	Dwarf_Die elem;
	int rc;

	if (!strip(type, &elem) || !char_type(&elem))
		return fail(c, ":string on something that is not a char array or pointer");
	if (dwarf_tag(type) == DW_TAG_array_type) {
		if (place != PLACE_MEMORY)
			return fail(c, "the array is in registers there");
	} else if (dwarf_tag(type) == DW_TAG_pointer_type) {
		if (place == PLACE_MEMORY && (rc = emit(c, FETCH_STEP_LOAD, 8, 0)))
			return rc;
	} else {
		return fail(c, ":string on something that is not a char array or pointer");
	}
	f->print = FETCH_PRINT_STRING;
	f->size = 0;
	return emit(c, FETCH_STEP_STR, 0, 0);
}

/* How a scalar of type prints; 0 or -EINVAL for what is not a scalar. */
static int scalar_format(struct compiler *c, Dwarf_Die *type, struct fetch_format *f)
{
	Dwarf_Attribute attr;
	Dwarf_Word enc = 0;
	int tag = dwarf_tag(type);
	long size = type_size(type);

	if (tag == DW_TAG_pointer_type) {
		f->print = FETCH_PRINT_HEX;
	} else if (tag == DW_TAG_enumeration_type) {
		f->print = FETCH_PRINT_SIGNED;
	} else if (tag == DW_TAG_base_type) {
		dwarf_formudata(dwarf_attr(type, DW_AT_encoding, &attr), &enc);
		if (enc == DW_ATE_complex_float ||
		    (enc == DW_ATE_float && size != 4 && size != 8))
			return fail(c, "a floating-point value of %ld bytes (add :x64 for the first "
				    "8 bytes' bits)", size);
		f->print = enc == DW_ATE_float ? FETCH_PRINT_FLOAT :
			   enc == DW_ATE_boolean ? FETCH_PRINT_BOOL :
			   enc == DW_ATE_signed || enc == DW_ATE_signed_char ? FETCH_PRINT_SIGNED :
			   FETCH_PRINT_UNSIGNED;
	} else if (is_struct(type)) {
		return fail(c, "a struct: name a member (->name, .name)");
	} else if (tag == DW_TAG_array_type) {
		return fail(c, "an array: add :string for text, or an index");
	} else {
		return fail(c, "a value of a kind stitch does not print");
	}
	if (size <= 0 || size > 8)
		return fail(c, "a value of %ld bytes (at most 8 are read)", size);
	f->size = size;
	return 0;
}

/*
 * A bit field, in memory at x: the bytes that hold it loaded; its bits are
 * taken out where the value is printed (fetch_format.c), by shift and width.
 */
static int finish_bits(struct compiler *c, struct fetch_format *f)
{
	int need = (c->bit_shift + c->bit_size + 7) / 8, load = 1;

	if (f->print == FETCH_PRINT_FLOAT)
		return fail(c, "a floating-point bit field");
	while (load < need)
		load *= 2;
	/* A cast reads the field's bits as that many bytes; the field's sign is its top bit */
	f->bits = f->size * 8 > c->bit_size ? c->bit_size : 0;
	f->shift = c->bit_shift;
	return emit(c, FETCH_STEP_LOAD, load, 0);
}

static int compile_one(struct compiler *c, struct line_dwarf *ld, int machine,
		       const struct line_site *site, struct fetch_format *f)
{
	struct fetch_path p;
	enum place place = PLACE_VALUE;
	Dwarf_Die scope, cu, var, type;
	int rc, i;

	if (fetch_path_parse(c->expr, &p, f->label, sizeof(f->label)))
		return fail(c, "not NAME, NAME->member, NAME.member or NAME[N], with :string "
			    "or :u8..:u64, :s8..:s64, :x8..:x64 after it");
	if (!dwarf_offdie(ld->dbg, site->scope, &scope))
		return fail(c, "the probe's scope is not in the DWARF");
	if (!find_in_scope(&scope, site->vaddr, p.base, &var, 0) &&
	    !(dwarf_diecu(&scope, &cu, NULL, NULL) && find_global(&cu, p.base, &var)))
		return fail(c, "no variable '%s' at %s:%d (stitch probe -V lists them)", p.base,
			    site->func, site->rel);
	rc = locate(c, ld, machine, site, &var, &place);
	if (rc < 0)
		return rc;
	if (rc == 1) {
		c->n = 0;
		emit(c, FETCH_STEP_OPTOUT, 0, 0);
		f->print = FETCH_PRINT_SIGNED;
		f->size = 8;
		return 0;
	}
	if (!strip(&var, &type))
		return fail(c, "'%s' has no type", p.base);
	for (i = 0; i < p.nsteps; i++) {
		rc = follow(c, &p.step[i], &type, &place);
		if (rc)
			return rc;
	}
	if (strcmp(p.cast, "string") == 0)
		return finish_string(c, &type, place, f);
	if (p.cast[0]) {
		if (!fetch_cast_parse(p.cast, f))
			return fail(c, "':%s' is not string, u8..u64, s8..s64 or x8..x64", p.cast);
		if (is_struct(&type) || dwarf_tag(&type) == DW_TAG_array_type) {
			if (place != PLACE_MEMORY)
				return fail(c, "the struct is in registers there");
		}
	} else {
		rc = scalar_format(c, &type, f);
		if (rc)
			return rc;
	}
	if (c->bit_size)
		return finish_bits(c, f);
	if (place == PLACE_MEMORY)
		return emit(c, FETCH_STEP_LOAD, f->size, 0);
	return 0;
}

int fetch_compile(struct line_dwarf *ld, const struct line_site *site, const char *const *exprs,
		  int n, struct fetch_steps *prog, struct fetch_format *fmt, char *err,
		  size_t errlen)
{
	GElf_Ehdr eh;
	int machine, i, rc;

	memset(prog, 0, sizeof(*prog));
	if (n > FETCH_MAX_VARS) {
		snprintf(err, errlen, "at most %d --fetch", FETCH_MAX_VARS);
		return -EINVAL;
	}
	machine = gelf_getehdr(ld->elf, &eh) ? eh.e_machine : EM_NONE;
	prog->vaddr = site->vaddr;
	prog->nvars = n;
	for (i = 0; i < n; i++) {
		struct compiler c = { prog->steps[i], 0, exprs[i], err, errlen, 0, 0, ld->kernel,
				      ld->kernel_bias };

		memset(&fmt[i], 0, sizeof(fmt[i]));
		rc = compile_one(&c, ld, machine, site, &fmt[i]);
		if (rc)
			return rc;
	}
	return 0;
}
