// SPDX-License-Identifier: GPL-2.0
/*
 * PLT stub names.
 *
 * Every call from a binary to a shared library's function goes through a
 * stub in .plt (.plt.sec when built with IBT, .plt.got when the function's
 * address is also taken), and a stub has no symbol: a sample there was
 * "chain+0x1060".  Each stub is an indirect jump through one GOT slot, and
 * the dynamic relocation of that slot (R_X86_64_JUMP_SLOT in .rela.plt,
 * R_X86_64_GLOB_DAT in .rela.dyn) names the function.  So we decode the
 * jump of every entry and name the entry after its slot's symbol, whatever
 * the layout (lazy, IBT, BND prefix): no guess from an entry's position.
 * The lazy path's first entry (PLT0, push + jump to the resolver) and IBT's
 * .plt entries (push + direct jump) have no such jump and stay unnamed.
 *
 * A slot bound to an IFUNC the binary defines itself has no symbol in its
 * relocation (R_X86_64_IRELATIVE): its addend is the resolver's address,
 * which is the IFUNC symbol's value.  glibc's own calls to its string
 * functions go that way: 39 of libc.so.6's 40 IRELATIVE slots (Debian 12)
 * are named so (strnlen@plt where objdump says *ABS*+0x9f550@plt).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/plt.h"

/* More dynamic relocations than this is not a binary we should believe. */
#define PLT_MAX_SLOTS (1u << 20)

/* A GOT slot and the symbol it is bound to; or an IFUNC symbol and its value. */
struct got_slot {
	uint64_t addr;
	const char *name;	/* in elf's string table */
	int rank;		/* among names of one address: the lowest is taken */
};

struct got_slots {
	struct got_slot *v;
	size_t nr, cap;
};

static int slot_cmp(const void *pa, const void *pb)
{
	const struct got_slot *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return (a->rank > b->rank) - (a->rank < b->rank);
}

static int push_slot(struct got_slots *s, uint64_t addr, const char *name, int rank)
{
	if (s->nr >= PLT_MAX_SLOTS)
		return -E2BIG;
	if (s->nr == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		void *p = reallocarray(s->v, cap, sizeof(*s->v));

		if (!p)
			return -ENOMEM;
		s->v = p;
		s->cap = cap;
	}
	s->v[s->nr].addr = addr;
	s->v[s->nr].name = name;
	s->v[s->nr].rank = rank;
	s->nr++;
	return 0;
}

static const char *slot_name(const struct got_slots *s, uint64_t addr)
{
	size_t lo = 0, hi = s->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->v[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->nr && s->v[lo].addr == addr ? s->v[lo].name : NULL;
}

/*
 * The IFUNC symbols of .dynsym and .symtab by value, a global name before a
 * weak or local one at the same address (__rawmemchr before rawmemchr).
 */
static int read_ifuncs(Elf *elf, struct got_slots *out)
{
	Elf_Scn *scn = NULL;
	int err;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr shdr;
		Elf_Data *data;
		size_t i, count;

		if (!gelf_getshdr(scn, &shdr) ||
		    (shdr.sh_type != SHT_DYNSYM && shdr.sh_type != SHT_SYMTAB) ||
		    !shdr.sh_entsize || !(data = elf_getdata(scn, NULL)) || !data->d_buf)
			continue;
		count = data->d_size / shdr.sh_entsize;
		for (i = 0; i < count; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(data, (int)i, &sym) ||
			    GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC || sym.st_shndx == SHN_UNDEF)
				continue;
			name = elf_strptr(elf, shdr.sh_link, sym.st_name);
			if (!name || !name[0])
				continue;
			err = push_slot(out, sym.st_value, name,
					GELF_ST_BIND(sym.st_info) == STB_GLOBAL ? 0 :
					GELF_ST_BIND(sym.st_info) == STB_WEAK ? 1 : 2);
			if (err)
				return err;
		}
	}
	if (out->nr > 1)
		qsort(out->v, out->nr, sizeof(*out->v), slot_cmp);
	return 0;
}

/*
 * The named JUMP_SLOT and GLOB_DAT slots of one SHT_RELA section against
 * .dynsym, and its IRELATIVE slots named after their IFUNC.
 */
static int read_rela(Elf *elf, Elf_Scn *scn, const GElf_Shdr *shdr,
		     const struct got_slots *ifuncs, struct got_slots *out)
{
	Elf_Scn *symscn = shdr->sh_link ? elf_getscn(elf, shdr->sh_link) : NULL;
	GElf_Shdr symhdr;
	Elf_Data *data = elf_getdata(scn, NULL), *syms = NULL;
	size_t entsize = gelf_fsize(elf, ELF_T_RELA, 1, EV_CURRENT);
	size_t i, count;

	/* A static executable's .rela.iplt has no symbol table, only IRELATIVE slots. */
	if (symscn && gelf_getshdr(symscn, &symhdr) && symhdr.sh_type == SHT_DYNSYM)
		syms = elf_getdata(symscn, NULL);
	if (!data || !data->d_buf || entsize == 0)
		return 0;
	count = data->d_size / entsize;
	for (i = 0; i < count; i++) {
		GElf_Rela rela;
		GElf_Sym sym;
		const char *name;
		uint32_t type;
		int err;

		if (!gelf_getrela(data, (int)i, &rela))
			continue;
		type = GELF_R_TYPE(rela.r_info);
		if (type == R_X86_64_IRELATIVE && GELF_R_SYM(rela.r_info) == 0) {
			name = slot_name(ifuncs, (uint64_t)rela.r_addend);
			err = name ? push_slot(out, rela.r_offset, name, 0) : 0;
			if (err)
				return err;
			continue;
		}
		if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT)
			continue;
		if (!syms || !syms->d_buf || GELF_R_SYM(rela.r_info) == 0 ||
		    !gelf_getsym(syms, (int)GELF_R_SYM(rela.r_info), &sym))
			continue;
		/* elf_strptr checks the index and the terminating NUL. */
		name = elf_strptr(elf, symhdr.sh_link, sym.st_name);
		if (!name || !name[0])
			continue;
		err = push_slot(out, rela.r_offset, name, 0);
		if (err)
			return err;
	}
	return 0;
}

static int read_slots(Elf *elf, struct got_slots *out)
{
	struct got_slots ifuncs = { 0 };
	Elf_Scn *scn = NULL;
	int err = read_ifuncs(elf, &ifuncs);

	while (!err && (scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr shdr;

		if (gelf_getshdr(scn, &shdr) && shdr.sh_type == SHT_RELA)
			err = read_rela(elf, scn, &shdr, &ifuncs, out);
	}
	free(ifuncs.v);
	if (err)
		return err;
	if (out->nr > 1)
		qsort(out->v, out->nr, sizeof(*out->v), slot_cmp);
	return 0;
}

/*
 * The GOT slot an entry jumps through: [endbr64] [bnd] jmp *disp32(%rip),
 * i.e. f3 0f 1e fa, f2, ff 25 disp32.  False for anything else.
 */
static bool entry_slot(const uint8_t *p, size_t len, uint64_t addr, uint64_t *slot)
{
	static const uint8_t endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	size_t i = 0;
	int32_t disp;

	if (len >= sizeof(endbr64) && memcmp(p, endbr64, sizeof(endbr64)) == 0)
		i = sizeof(endbr64);
	if (i < len && p[i] == 0xf2)
		i++;
	if (i + 6 > len || p[i] != 0xff || p[i + 1] != 0x25)
		return false;
	memcpy(&disp, p + i + 2, sizeof(disp));	/* little-endian, as x86-64 is */
	*slot = addr + i + 6 + (int64_t)disp;
	return true;
}

static long add_section_stubs(struct symtab *st, Elf_Scn *scn, const GElf_Shdr *shdr,
			      size_t entsize, const struct got_slots *slots)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	char name[SYMTAB_MAX_NAME + sizeof("@plt")];
	long added = 0;
	uint64_t slot;
	size_t off;

	if (shdr->sh_type != SHT_PROGBITS || !data || !data->d_buf)
		return 0;
	if (shdr->sh_entsize == 8 || shdr->sh_entsize == 16) {
		entsize = shdr->sh_entsize;
	} else if (data->d_size >= 16 && entry_slot(data->d_buf, 8, shdr->sh_addr, &slot) &&
		   entry_slot((const uint8_t *)data->d_buf + 8, 8, shdr->sh_addr + 8, &slot)) {
		/* A static binary's .plt (IRELATIVE slots only): jmp + xchg, 8 bytes each. */
		entsize = 8;
	}
	for (off = 0; off + entsize <= data->d_size; off += entsize) {
		uint64_t addr = shdr->sh_addr + off;
		const char *target;
		int err;

		if (!entry_slot((const uint8_t *)data->d_buf + off, entsize, addr, &slot))
			continue;
		target = slot_name(slots, slot);
		if (!target)
			continue;
		snprintf(name, sizeof(name), "%.*s@plt", SYMTAB_MAX_NAME, target);
		err = symtab_add_stub(st, addr, entsize, name);
		if (err < 0)
			return added ? added : err;
		added += err;
	}
	return added;
}

long plt_add_stubs(struct symtab *st, Elf *elf)
{
	static const struct {
		const char *name;
		size_t entsize;		/* when sh_entsize does not say */
	} kinds[] = { { ".plt", 16 }, { ".plt.sec", 16 }, { ".plt.got", 8 } };
	struct got_slots slots = { 0 };
	Elf_Scn *scn = NULL;
	GElf_Ehdr ehdr;
	size_t shstrndx;
	long total = 0, n;
	int err;

	if (!elf || !gelf_getehdr(elf, &ehdr) || ehdr.e_machine != EM_X86_64 ||
	    elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	err = read_slots(elf, &slots);
	if (err || slots.nr == 0) {
		free(slots.v);
		return err;
	}
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr shdr;
		const char *sname;
		size_t k;

		if (!gelf_getshdr(scn, &shdr) || !(shdr.sh_flags & SHF_EXECINSTR))
			continue;
		sname = elf_strptr(elf, shstrndx, shdr.sh_name);
		for (k = 0; sname && k < sizeof(kinds) / sizeof(kinds[0]); k++) {
			if (strcmp(sname, kinds[k].name) != 0)
				continue;
			n = add_section_stubs(st, scn, &shdr, kinds[k].entsize, &slots);
			if (n < 0) {
				free(slots.v);
				return total ? total : n;
			}
			total += n;
		}
	}
	free(slots.v);
	return total;
}
