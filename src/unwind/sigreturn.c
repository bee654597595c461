// SPDX-License-Identifier: GPL-2.0
/*
 * A signal handler returns to __kernel_rt_sigreturn in arm64's vDSO
 * (glibc sets no SA_RESTORER there), whose code is `mov x8, #139
 * (__NR_rt_sigreturn); svc #0`.  Linux's arm64 vDSO keeps no .eh_frame
 * (6.1's: readelf -S shows none), so no CFI says that this is a signal
 * frame: stepped by frame pointer instead, the walk reached the
 * interrupted pc through the sigframe's frame record, but with the sp of
 * the sigframe, and stopped at the next frame (truthfully, as the unwinder
 * does not trust an sp a frame-pointer step leaves).  Marked SIGNAL, the
 * interrupted registers come from the rt_sigframe at sp (unwind_table.h).
 * The range starts at the nop before the symbol, where a return address
 * minus one lands, as the kernel's own CFI for it did (arch/arm64/kernel/
 * vdso/sigreturn.S).  x86-64 needs none of this: libc's __restore_rt has
 * CFI of its own (augmentation "S").
 */
#include <string.h>

#include "unwind/sigreturn.h"
#include "unwind/table_edit.h"
#include "util/elf_util.h"

#ifdef STITCH_ARCH_ARM64
static const uint32_t rt_sigreturn_code[] = {
	0xd2801168,	/* mov x8, #0x8b */
	0xd4000001,	/* svc #0 */
};

/* The instruction words at vaddr of elf's file, if they are that code. */
static bool code_is_sigreturn(Elf *elf, uint64_t vaddr)
{
	uint64_t off;
	size_t size;
	char *raw = elf_rawfile(elf, &size);

	if (!raw || elf_vaddr_to_offset(elf, vaddr, &off) ||
	    off > size || size - off < sizeof(rt_sigreturn_code))
		return false;
	return memcmp(raw + off, rt_sigreturn_code, sizeof(rt_sigreturn_code)) == 0;
}

int sigreturn_mark(Elf *elf, struct unwind_table *t)
{
	const struct stitch_unwind_row *row;
	uint64_t sym;

	if (!elf || !elf_dynsym_find(elf, "__kernel_rt_sigreturn", &sym, NULL) || sym < 4 ||
	    sym > UINT32_MAX - 8 || !code_is_sigreturn(elf, sym))
		return 0;
	row = unwind_table_lookup(t, sym - 4);
	if (row && row->cfa_rule != STITCH_CFA_UNKNOWN && row->cfa_rule != STITCH_CFA_NO_FDE)
		return 0;	/* its own CFI says what it is */
	/* The code after it has no CFI either: stepped by frame pointer, as before. */
	return unwind_table_mark(t, sym - 4, sym + sizeof(rt_sigreturn_code), STITCH_CFA_SIGNAL,
				 STITCH_CFA_NO_FDE);
}
#else
int sigreturn_mark(Elf *elf, struct unwind_table *t)
{
	return 0;
}
#endif
