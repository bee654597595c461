// SPDX-License-Identifier: GPL-2.0
/*
 * Where stitch latency's perl:NAME probes go in a perl (the executable or
 * libperl.so): the functions every sub call, return, unwind and die goes
 * through, as file offsets for uprobes.
 *
 * Perl 5.32 and 5.36 export them all.  5.40 and 5.42 (Debian) export no pp
 * function and no Perl_die_unwind: the pp functions are then found in the
 * op table PL_ppaddr[] (exported), whose entries are relocated pointers
 * (R_X86_64_RELATIVE or R_AARCH64_RELATIVE, or in place with RELR); an
 * exception starts in one of the exported functions that call die_unwind:
 * in trixie's perl 5.40.1
 * and sid's 5.42.3 those are exactly Perl_croak_sv, Perl_vcroak and
 * Perl_vfatal_warner (objdump -d: the only three calls of it, and no
 * other reference to its address).
 */
#include <stdio.h>
#include <string.h>

#include "interp/perl/perl.h"
#include "util/elf_util.h"

/*
 * File offset of the function at vaddr, which must lie in an executable
 * segment; past its endbr64 if it starts with one (CET builds: trixie's,
 * sid's).  A uprobe on endbr64 is single-stepped out of line (a debug trap
 * per hit: a 5 ms call of pl_slow_calls.pl spent 1-2 ms more on CPU in
 * exc_debug_user); in trixie's perl the next instruction is a push, which
 * the kernel emulates (in sid's a sub from %rsp: still single-stepped).
 * Nothing jumps to that second instruction (objdump -d of both: no branch
 * to any probed function's +4), so every call still passes the probe, with
 * its argument registers untouched.  arm64 has no endbr64: its landing
 * pad, BTI's "bti c", is a hint the kernel steps like any other, and a
 * function is probed at its first instruction.
 */
static bool text_offset(Elf *elf, uint64_t vaddr, __u64 *off)
{
#if defined(__x86_64__)
	static const unsigned char endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
#endif
	size_t i, n, size;
	const char *raw = elf_rawfile(elf, &size);

	if (!raw || elf_getphdrnum(elf, &n))
		return false;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		if (vaddr >= ph.p_vaddr && vaddr - ph.p_vaddr + 8 <= ph.p_filesz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
#if defined(__x86_64__)
			if (*off + 8 <= size && !memcmp(raw + *off, endbr64, sizeof(endbr64)))
				*off += sizeof(endbr64);
#endif
			return true;
		}
	}
	return false;
}

/* The 8 bytes the file holds at vaddr (a pointer relocated in place by RELR). */
static bool file_u64(Elf *elf, uint64_t vaddr, uint64_t *out)
{
	size_t i, n, size;
	const char *raw = elf_rawfile(elf, &size);

	if (!raw || elf_getphdrnum(elf, &n))
		return false;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr >= ph.p_vaddr && vaddr - ph.p_vaddr + 8 <= ph.p_filesz &&
		    ph.p_offset + (vaddr - ph.p_vaddr) + 8 <= size) {
			memcpy(out, raw + ph.p_offset + (vaddr - ph.p_vaddr), 8);
			return true;
		}
	}
	return false;
}

/* A pointer the dynamic linker relocates by the load bias alone. */
#if defined(__aarch64__)
#define RELATIVE_RELOC R_AARCH64_RELATIVE
#else
#define RELATIVE_RELOC R_X86_64_RELATIVE
#endif

/* The value the dynamic linker stores at vaddr (an op table entry). */
static bool pointer_at(Elf *elf, uint64_t vaddr, uint64_t *fn)
{
	GElf_Rela r;
	uint64_t sym;

	if (elf_rela_at(elf, vaddr, &r, &sym)) {
		if (GELF_R_TYPE(r.r_info) != RELATIVE_RELOC)
			return false;	/* a symbol's: not a local pp function */
		*fn = (uint64_t)r.r_addend;
		return true;
	}
	return file_u64(elf, vaddr, fn) && *fn;
}

/* pp function name ("Perl_pp_entersub"), else PL_ppaddr[op]: its file offset. */
static bool pp_offset(Elf *elf, const char *name, unsigned int op, __u64 *off)
{
	uint64_t addr, size;

	if (elf_dynsym_find(elf, name, &addr, NULL))
		return text_offset(elf, addr, off);
	if (!elf_dynsym_find(elf, "PL_ppaddr", &addr, &size) || (uint64_t)op * 8 + 8 > size ||
	    !pointer_at(elf, addr + (uint64_t)op * 8, &addr))
		return false;
	return text_offset(elf, addr, off);
}

static bool func_offset(Elf *elf, const char *name, __u64 *off)
{
	uint64_t addr;

	return elf_dynsym_find(elf, name, &addr, NULL) && text_offset(elf, addr, off);
}

bool perl_sub_probes_of(Elf *elf, const struct interp_perl_layout *L,
			struct perl_sub_probes *p, char *why, size_t why_len)
{
	static const char *const die_funcs[] = { "Perl_croak_sv", "Perl_vcroak",
						 "Perl_vfatal_warner" };
	size_t i;

	memset(p, 0, sizeof(*p));
	if (!pp_offset(elf, "Perl_pp_entersub", L->op_entersub, &p->enter) ||
	    !pp_offset(elf, "Perl_pp_leavesub", L->op_leavesub, &p->leave) ||
	    !pp_offset(elf, "Perl_pp_leavesublv", L->op_leavesublv, &p->leavelv) ||
	    !func_offset(elf, "Perl_dounwind", &p->unwind)) {
		snprintf(why, why_len, "its pp_entersub, pp_leavesub(lv) or Perl_dounwind not "
			 "found (dynamic symbols, PL_ppaddr)");
		return false;
	}
	if (func_offset(elf, "Perl_die_unwind", &p->die[0])) {
		p->ndie = 1;
		return true;
	}
	for (i = 0; i < PERL_DIE_PROBES; i++) {
		if (!func_offset(elf, die_funcs[i], &p->die[i])) {
			snprintf(why, why_len, "neither Perl_die_unwind nor %s in its dynamic "
				 "symbols", die_funcs[i]);
			return false;
		}
	}
	p->ndie = PERL_DIE_PROBES;
	return true;
}
