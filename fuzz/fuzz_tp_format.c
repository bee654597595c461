// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the tracepoint format reader (kernel/tp_format.c:
 * stitch latency's tracepoint roots and --key, record's --fetch): any text,
 * every field it finds named, typed and bounded.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kernel/tp_format.h"
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
	{
		struct tp_field tf[8];

		f = fmemopen((void *)data, size, "r");
		if (!f)
			return 0;
		n = tp_format_read(f, tf, 8);
		fclose(f);
		if (n < 0 || n > 8)
			__builtin_trap();
		for (i = 0; i < n; i++)
			if (strnlen(tf[i].name, sizeof(tf[i].name)) == sizeof(tf[i].name) ||
			    !tf[i].name[0] ||
			    strnlen(tf[i].type, sizeof(tf[i].type)) == sizeof(tf[i].type) ||
			    tf[i].off >= 0x10000 || tf[i].size > 0x10000)
				__builtin_trap();
	}
	return 0;
}
