/* SPDX-License-Identifier: GPL-2.0 */
/* CPython 3.8 - 3.10 line tables (python_lnotab.c). */
#ifndef STITCH_INTERP_PYTHON_LNOTAB_H
#define STITCH_INTERP_PYTHON_LNOTAB_H

#include <stddef.h>
#include <stdint.h>

/*
 * Line of the instruction at byte offset addr of a 3.8 / 3.9 co_lnotab, as
 * that version's PyCode_Addr2Line() gives it; -1 if none.
 */
int py38_lnotab_line(const uint8_t *table, size_t len, int firstlineno, int addr);

/* The same for a 3.10 co_linetable (PEP 626): -1 where the table says no line. */
int py310_linetable_line(const uint8_t *table, size_t len, int firstlineno, int addr);

/*
 * Line of a frame whose f_lasti is lasti, for a table of format kind
 * (PYTHON_LNOTAB_38 or PYTHON_LINETABLE_310), f_lasti counting units of
 * unit bytes.  A frame before its first instruction (-1) is on its first
 * line, as its traceback says.  -1 if none.
 */
int py_old_line(unsigned int kind, unsigned int unit, const uint8_t *table, size_t len,
		int firstlineno, int64_t lasti);

#endif /* STITCH_INTERP_PYTHON_LNOTAB_H */
