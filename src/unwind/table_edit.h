/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rows put into a built table where the code's own CFI says nothing: a
 * program's entry code (entry_end.h), arm64's vDSO signal trampoline
 * (sigreturn.h) and its frameless leaves (arm64_leaf.h).
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
/*
 * The same for n ranges at once (sorted, not overlapping, each holding
 * UNKNOWN or NO_FDE rows only), with a whole row for each (its pc is the
 * range's start): one pass over t, however many ranges.
 */
struct table_range {
	uint64_t lo, hi;
};
int unwind_table_mark_ranges(struct unwind_table *t, const struct table_range *r, size_t n,
			     const struct stitch_unwind_row *row, uint8_t after);

#endif /* STITCH_UNWIND_TABLE_EDIT_H */
