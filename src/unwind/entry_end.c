// SPDX-License-Identifier: GPL-2.0
/*
 * Marking a program's or the dynamic loader's CFI-less entry code as the
 * outermost frame (see entry_end.h for why and where).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "unwind/entry_end.h"
#include "unwind/table_edit.h"
#include "util/elf_util.h"

static bool has_interp(Elf *elf)
{
	size_t i, n;

	if (elf_getphdrnum(elf, &n) != 0)
		return false;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_INTERP)
			return true;
	}
	return false;
}

/* glibc's ld.so, and nothing else, defines _rtld_global_ro. */
static bool is_glibc_loader(Elf *elf)
{
	uint64_t v;

	return elf_dynsym_find(elf, "_rtld_global_ro", &v, NULL);
}

/*
 * The longest CFI-less entry code marked: glibc's loader's _start and
 * _dl_start_user take 64 bytes (2.36, 2.41) and 112 (2.44).  A binary with
 * no CFI at all after its entry (Go's, with .debug_frame only) would
 * otherwise have the rest of its text end every stack there as complete.
 */
#define ENTRY_CODE_MAX 256

/* End of the executable section holding vaddr, 0 if none does. */
static uint64_t code_section_end(Elf *elf, uint64_t vaddr)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) ||
		    sh.sh_type == SHT_NOBITS)
			continue;
		if (vaddr >= sh.sh_addr && vaddr - sh.sh_addr < sh.sh_size)
			return sh.sh_addr + sh.sh_size;
	}
	return 0;
}

bool entry_code_range(Elf *elf, const struct unwind_table *t, uint64_t *lo, uint64_t *hi)
{
	const struct stitch_unwind_row *row;
	uint64_t end;
	GElf_Ehdr eh;
	size_t next;

	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) || eh.e_entry == 0 ||
	    eh.e_entry > UINT32_MAX)
		return false;
	if (eh.e_type != ET_EXEC && !has_interp(elf) && !is_glibc_loader(elf))
		return false;
	end = code_section_end(elf, eh.e_entry);
	if (!end)
		return false;
	row = unwind_table_lookup(t, eh.e_entry);
	if (row && row->cfa_rule != STITCH_CFA_UNKNOWN && row->cfa_rule != STITCH_CFA_NO_FDE)
		return false;	/* its own CFI says what it is */
	/* Rows never repeat a rule, so the next row starts some FDE's code. */
	next = row ? (size_t)(row - t->rows) + 1 : 0;
	if (next < t->nr && t->rows[next].pc < end)
		end = t->rows[next].pc;
	if (end > UINT32_MAX || end <= eh.e_entry || end - eh.e_entry > ENTRY_CODE_MAX)
		return false;
	*lo = eh.e_entry;
	*hi = end;
	return true;
}

int unwind_table_mark_end(struct unwind_table *t, uint64_t lo, uint64_t hi)
{
	/* What followed lo goes on at hi: UNKNOWN, unless a row starts there. */
	return unwind_table_mark(t, lo, hi, STITCH_CFA_END, STITCH_CFA_UNKNOWN);
}

int entry_mark_end(Elf *elf, struct unwind_table *t)
{
	uint64_t lo, hi;

	if (!entry_code_range(elf, t, &lo, &hi))
		return 0;
	return unwind_table_mark_end(t, lo, hi);
}
