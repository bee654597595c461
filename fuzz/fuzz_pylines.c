// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the CPython 3.8 - 3.10 line tables: the input is a
 * first line, an f_lasti and a table (read from a code object in the
 * target, so untrusted).  Each decoder must answer -1 or a line > 0 and
 * read nothing outside the table (an exact-size copy, so ASan sees it).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "interp/python/python_layout.h"
#include "interp/python/python_lnotab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int16_t first, lasti;
	uint8_t *t;
	size_t len;
	int a, b, c, d;

	if (size < 4)
		return 0;
	memcpy(&first, data, 2);
	memcpy(&lasti, data + 2, 2);
	len = size - 4;
	t = malloc(len ? len : 1);
	if (!t)
		return 0;
	memcpy(t, data + 4, len);
	a = py38_lnotab_line(t, len, first, lasti);
	b = py310_linetable_line(t, len, first, lasti);
	c = py_old_line(PYTHON_LINETABLE_310, 2, t, len, first, lasti);
	d = py_old_line(PYTHON_LNOTAB_38, 1, t, len, first, lasti);
	free(t);
	if ((a != -1 && a <= 0) || (b != -1 && b <= 0) || (c != -1 && c <= 0) ||
	    (d != -1 && d <= 0))
		abort();
	return 0;
}
