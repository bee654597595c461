/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names for the PLT stubs of an x86-64 binary ("getppid@plt"), which no
 * symbol table lists: a sample or a probe in a stub is named as perf names it.
 */
#ifndef STITCH_PLT_H
#define STITCH_PLT_H

#include <gelf.h>

#include "symbolize/symtab.h"

/*
 * Add a stub symbol to st for every .plt, .plt.sec and .plt.got entry of elf
 * whose indirect jump goes through a GOT slot that a dynamic relocation
 * binds to a named symbol, or to an IFUNC of elf's own (IRELATIVE).  Returns the number added (0 for another machine,
 * a binary without a PLT, or a debug file, whose .plt holds no bytes), or a
 * negative errno.
 */
long plt_add_stubs(struct symtab *st, Elf *elf);

#endif /* STITCH_PLT_H */
