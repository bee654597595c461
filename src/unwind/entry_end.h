/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The entry code of a program or of glibc's dynamic loader is where a
 * process's stack begins, but it often has no CFI to say so: ld.so's _start
 * and _dl_start_user (RTLD_START in glibc's sysdeps/x86_64/dl-machine.h) have
 * no FDE in glibc 2.36 (bookworm), 2.41 (trixie) or 2.42/2.44 (sid,
 * experimental) (readelf -wf: no FDE covers e_entry).  A starting process's
 * samples then end in [unknown] above _dl_start or _dl_init: 51 of 1,353
 * samples (3.8%) of 60 `python3 -c pass` under `record -a -F 999`.
 *
 * This marks that code as the outermost frame (STITCH_CFA_END): from e_entry
 * up to the next address some FDE covers, within e_entry's section.  Only
 * where e_entry is reached from nowhere but the kernel or the loader: a
 * program (ET_EXEC, or PT_INTERP) or glibc's loader itself (its .dynsym
 * defines _rtld_global_ro).  Never for other shared libraries: GNU ld points their
 * e_entry at the start of .text, which is crtstuff's deregister_tm_clones,
 * an ordinary CFI-less function (libXau.so.6: e_entry 0x1200).  An entry
 * with CFI of its own keeps it.
 */
#ifndef STITCH_ENTRY_END_H
#define STITCH_ENTRY_END_H

#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>

#include "unwind/cfi.h"

/*
 * The range [*lo, *hi) of `elf`'s CFI-less entry code per the rules above,
 * given its table; false if there is none to mark.
 */
bool entry_code_range(Elf *elf, const struct unwind_table *t, uint64_t *lo, uint64_t *hi);

/*
 * Mark [lo, hi) of t as STITCH_CFA_END (the range must hold UNKNOWN rows
 * only, as entry_code_range() gives it).  0 or -ENOMEM (t unchanged).
 */
int unwind_table_mark_end(struct unwind_table *t, uint64_t lo, uint64_t hi);

/* Both: 0 when there is nothing to mark too. */
int entry_mark_end(Elf *elf, struct unwind_table *t);

#endif /* STITCH_ENTRY_END_H */
