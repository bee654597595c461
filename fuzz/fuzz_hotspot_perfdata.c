// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for a JVM's perf data as its memory may hold it (any
 * bytes: a process can write its own): a counter found must lie inside the
 * bytes given, 8 bytes of it.
 */
#include <stdint.h>
#include <stdlib.h>

#include "symbolize/hotspot_perfdata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "java.cls.unloadedClasses", "a", "" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		uint64_t off;

		if (!hotspot_perfdata_find(data, size, names[i], &off) && (off < 20 || off + 8 > size))
			abort();
	}
	return 0;
}
