/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rows put into a built table where the code's own CFI says nothing: a
 * program's entry code (entry_end.h), arm64's vDSO signal trampoline
 * (sigreturn.h).
 */
#ifndef STITCH_UNWIND_TABLE_EDIT_H
#define STITCH_UNWIND_TABLE_EDIT_H

#include <stdint.h>

#include "unwind/cfi.h"

/*
 * Give [lo, hi) of t the cfa_rule `rule`, and [hi, the next row) the rule
 * `after` (a row starting at hi stays).  The range must hold UNKNOWN or
 * NO_FDE rows only, or none.  0 or -ENOMEM (t unchanged).
 */
int unwind_table_mark(struct unwind_table *t, uint64_t lo, uint64_t hi, uint8_t rule,
		      uint8_t after);

#endif /* STITCH_UNWIND_TABLE_EDIT_H */
