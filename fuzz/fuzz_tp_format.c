// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the tracepoint format reader (stitch latency's
 * tracepoint roots and --key): any text, every field it finds named and
 * bounded.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "latency/lat_root.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lat_field fl[8];
	FILE *f;
	int n, i;

	if (!size)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	n = lat_tp_fields_read(f, fl, 8);
	fclose(f);
	if (n < 0 || n > 8)
		__builtin_trap();
	for (i = 0; i < n; i++)
		if (strnlen(fl[i].name, sizeof(fl[i].name)) == sizeof(fl[i].name))
			__builtin_trap();
	return 0;
}
