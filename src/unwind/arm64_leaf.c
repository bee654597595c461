// SPDX-License-Identifier: GPL-2.0
/*
 * Linux's arm64 vDSO has no .eh_frame (6.1's: readelf -S shows none), and
 * its functions are leaves that keep no frame: __kernel_clock_gettime is
 * `paciasp`, the clock read, `autiasp; ret`, with no store to the stack.
 * Stepped by frame pointer, as code without CFI is, the walk skipped their
 * caller (x29 still holds the caller's caller's frame record) or, as the
 * unwinders do not trust the sp a frame-pointer step leaves, stopped at
 * it: Perl's time() loop on a 6.1 guest gave `[unknown];time;
 * __kernel_clock_gettime` in 194 of 1,941 samples.  GNU ld's arm64 PLT
 * entries have no CFI either (x86-64's have), and are such leaves too
 * (adrp x16; ldr x17; add x16; br x17): the same test then gave 202 of
 * 1,984 samples `[unknown]` in perl's PLT.  Checked instruction by
 * instruction, such code gets the row its CFI would have had: CFA = sp,
 * return address in x30, x29 unchanged.  x30 is read only in the
 * interrupted frame, where it is exact (unwind_table.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "unwind/table_edit.h"
#include "unwind/arm64_leaf.h"
#include "util/elf_util.h"

/* Does this instruction move sp, write x30 or call? */
static bool breaks_leaf(uint32_t w)
{
	unsigned int rd = w & 31, rn = (w >> 5) & 31;

	/* BL; BLR and its authenticating forms (opc 0001 of branch-register) */
	if ((w & 0xfc000000) == 0x94000000 ||
	    ((w & 0xfe000000) == 0xd6000000 && ((w >> 21) & 0xf) == 1))
		return true;
	/* x30 as a destination (or stored: a frame being built); hints have 31 */
	if (rd == 30)
		return true;
	/* ADD/SUB (immediate), not setting flags: Rd 31 is sp */
	if ((w & 0x1f800000) == 0x11000000 && !(w & (1u << 29)) && rd == 31)
		return true;
	/* ADD/SUB (extended register), not setting flags: Rd 31 is sp */
	if ((w & 0x1f200000) == 0x0b200000 && !(w & (1u << 29)) && rd == 31)
		return true;
	/* AND/ORR/EOR (immediate): Rd 31 is sp (ANDS's is xzr) */
	if ((w & 0x1f800000) == 0x12000000 && ((w >> 29) & 3) != 3 && rd == 31)
		return true;
	/* Load/store pair, pre- or post-indexed on sp */
	if ((w & 0x3a000000) == 0x28000000 && (((w >> 23) & 3) == 1 || ((w >> 23) & 3) == 3) &&
	    rn == 31)
		return true;
	/* Load/store register (immediate), pre- or post-indexed on sp */
	if ((w & 0x3b200000) == 0x38000000 && (w & (1u << 10)) && rn == 31)
		return true;
	return false;
}

bool arm64_code_is_frameless_leaf(const uint32_t *code, size_t n)
{
	size_t i;

	if (!n)
		return false;
	for (i = 0; i < n; i++)
		if (breaks_leaf(code[i]))
			return false;
	return true;
}

#ifdef STITCH_ARCH_ARM64
/* Does [lo, hi) of t hold no rule of its own CFI? */
static bool no_cfi(const struct unwind_table *t, uint64_t lo, uint64_t hi)
{
	size_t a = 0, b = t->nr, m;

	/* a: the row covering lo (the last at or before it), or the first */
	while (b - a > 1) {
		m = a + (b - a) / 2;
		if (t->rows[m].pc <= lo)
			a = m;
		else
			b = m;
	}
	for (; a < t->nr && t->rows[a].pc < hi; a++)
		if (t->rows[a].cfa_rule != STITCH_CFA_UNKNOWN &&
		    t->rows[a].cfa_rule != STITCH_CFA_NO_FDE)
			return false;
	return true;
}

struct leaves {
	struct table_range *r;
	size_t n, cap;
};

/* Add [lo, lo + len) of elf's code if no CFI covers it and its code is a leaf. */
static int add_if_leaf(Elf *elf, const struct unwind_table *t, struct leaves *l, uint64_t lo,
		       uint64_t len)
{
	uint32_t code[512];
	size_t size;
	char *raw = elf_rawfile(elf, &size);
	uint64_t off;

	if (!raw || !len || len % 4 || len > sizeof(code) || lo > UINT32_MAX - len ||
	    elf_vaddr_to_offset(elf, lo, &off) || off > size || size - off < len ||
	    !no_cfi(t, lo, lo + len))
		return 0;
	memcpy(code, raw + off, len);
	if (!arm64_code_is_frameless_leaf(code, len / 4))
		return 0;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		struct table_range *r = realloc(l->r, cap * sizeof(*r));

		if (!r)
			return -ENOMEM;
		l->r = r;
		l->cap = cap;
	}
	l->r[l->n].lo = lo;
	l->r[l->n++].hi = lo + len;
	return 0;
}

/*
 * A .plt's entries: PLT0 (32 bytes: it pushes x16 and x30 for the
 * resolver, not a leaf) then one entry per .rela.plt relocation, of the
 * size that divides the rest (16 bytes; more with BTI or PAC PLTs).
 */
static int add_plt(Elf *elf, const struct unwind_table *t, struct leaves *l)
{
	struct elf_section plt, rela;
	uint64_t step, a;
	size_t n;
	int err;

	if (elf_find_section(elf, ".plt", &plt) || elf_find_section(elf, ".rela.plt", &rela) ||
	    plt.type != SHT_PROGBITS || plt.size <= 32 || !(n = rela.size / 24) ||
	    (plt.size - 32) % n)
		return 0;
	step = (plt.size - 32) / n;
	if (step < 16 || step > 32)
		return 0;
	for (a = plt.addr + 32; a + step <= plt.addr + plt.size; a += step) {
		err = add_if_leaf(elf, t, l, a, step);
		if (err)
			return err;
	}
	return 0;
}

/* The vDSO's functions (it alone has __kernel_rt_sigreturn). */
static int add_vdso(Elf *elf, const struct unwind_table *t, struct leaves *l)
{
	Elf_Scn *scn = NULL;
	uint64_t off;
	int err;

	if (!elf_dynsym_find(elf, "__kernel_rt_sigreturn", &off, NULL))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		n = d ? d->d_size / sh.sh_entsize : 0;
		for (i = 0; i < n; i++) {
			GElf_Sym s;

			if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC)
				continue;
			err = add_if_leaf(elf, t, l, s.st_value, s.st_size);
			if (err)
				return err;
		}
	}
	return 0;
}

static int by_start(const void *a, const void *b)
{
	const struct table_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

int arm64_leaf_mark(Elf *elf, struct unwind_table *t)
{
	static const struct stitch_unwind_row leaf = {
		.cfa_rule = STITCH_CFA_RSP, .cfa_offset = 0, .rbp_rule = STITCH_RBP_SAME,
		.ra_offset = 0,
	};
	struct leaves l = { 0 };
	size_t i, n = 0;
	int err;

	err = add_vdso(elf, t, &l);
	if (!err)
		err = add_plt(elf, t, &l);
	if (!err && l.n) {
		/* Sorted, and a symbol overlapping the one before it dropped. */
		qsort(l.r, l.n, sizeof(*l.r), by_start);
		for (i = 0; i < l.n; i++)
			if (!n || l.r[i].lo >= l.r[n - 1].hi)
				l.r[n++] = l.r[i];
		err = unwind_table_mark_ranges(t, l.r, n, &leaf, STITCH_CFA_NO_FDE);
	}
	free(l.r);
	return err;
}
#else
int arm64_leaf_mark(Elf *elf, struct unwind_table *t)
{
	return 0;
}
#endif
