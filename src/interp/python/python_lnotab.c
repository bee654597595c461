// SPDX-License-Identifier: GPL-2.0
/*
 * CPython 3.8 - 3.10 line tables, decoded as each version's own
 * PyCode_Addr2Line() decodes them (tests/unit/test_interp_pyold.c checks
 * them against tables and answers dumped from those interpreters).
 * Untrusted input: any bytes give a line or -1, never a read outside.  A
 * table that could not be read (NULL) gives -1: the code's first line in
 * its place would be a wrong line (a module's frame read as the process
 * ended, its table freed, was named at its first statement).
 */
#include <limits.h>

#include "interp/python/python_layout.h"
#include "interp/python/python_lnotab.h"

/*
 * 3.8, 3.9 (Objects/lnotab_notes.txt): pairs of (byte offset increment,
 * line increment as a signed byte); a line holds from the offset its pair
 * reaches up to the next.  An odd last byte is no pair.
 */
int py38_lnotab_line(const uint8_t *t, size_t len, int firstlineno, int addr)
{
	long line = firstlineno, at = 0;
	size_t i;

	if (!t)
		return -1;
	for (i = 0; i + 1 < len; i += 2) {
		at += t[i];
		if (at > addr)
			break;
		line += (int8_t)t[i + 1];
	}
	return line <= 0 || line > INT_MAX ? -1 : (int)line;
}

/*
 * 3.10 (PEP 626, Objects/lnotab_notes.txt of 3.10): pairs of (length of the
 * range in bytes, line increment as a signed byte, -128: no line, which
 * leaves the running line as it was).  Ranges of length 0 only move the
 * line.
 */
int py310_linetable_line(const uint8_t *t, size_t len, int firstlineno, int addr)
{
	long line = firstlineno, start, end = 0;
	size_t i;

	if (!t)
		return -1;
	if (addr < 0)
		return firstlineno > 0 ? firstlineno : -1;
	for (i = 0; i + 1 < len; i += 2) {
		int8_t delta = (int8_t)t[i + 1];

		start = end;
		end += t[i];
		if (delta != -128)
			line += delta;
		if (addr >= start && addr < end)
			return delta == -128 || line <= 0 || line > INT_MAX ? -1 : (int)line;
	}
	return -1;
}

int py_old_line(unsigned int kind, unsigned int unit, const uint8_t *table, size_t len,
		int firstlineno, int64_t lasti)
{
	int64_t addr;

	if (lasti < -1 || lasti > INT_MAX / 2 || (unit != 1 && unit != 2))
		return -1;
	addr = lasti < 0 ? -1 : lasti * unit;
	if (kind == PYTHON_LNOTAB_38)
		return py38_lnotab_line(table, len, firstlineno, (int)addr);
	if (kind == PYTHON_LINETABLE_310)
		return py310_linetable_line(table, len, firstlineno, (int)addr);
	return -1;
}
