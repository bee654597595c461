/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64's signal trampoline has no CFI: mark it as the signal frame it is.
 */
#ifndef STITCH_UNWIND_SIGRETURN_H
#define STITCH_UNWIND_SIGRETURN_H

#include <gelf.h>

#include "unwind/cfi.h"

/*
 * If elf is arm64's vDSO, mark its __kernel_rt_sigreturn (and the nop
 * before it) STITCH_CFA_SIGNAL in t.  0 (also when there is nothing to
 * mark: x86-64, any other binary), or -ENOMEM (t unchanged).
 */
int sigreturn_mark(Elf *elf, struct unwind_table *t);

#endif /* STITCH_UNWIND_SIGRETURN_H */
