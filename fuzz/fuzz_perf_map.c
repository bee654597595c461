// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the perf map parser: the input fed whole and in two
 * pieces split at its first byte's value.  Every name found must be a
 * string of printable bytes, found again when asked for twice.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/perf_map.h"

static void check(struct perf_map *pm, const uint8_t *data, size_t size)
{
	size_t i;

	for (i = 0; i + 8 <= size; i += 8) {
		uint64_t addr;
		const char *a, *b;

		memcpy(&addr, data + i, 8);
		a = perf_map_find(pm, addr);
		b = perf_map_find(pm, addr);
		if (a != b || (a && strlen(a) > PERF_MAP_MAX_NAME))
			abort();
		for (; a && *a; a++)
			if ((unsigned char)*a < 0x20 || *a == 0x7f)
				abort();
	}
	for (i = 0; i < pm->nidx; i++)
		if (pm->idx[i].start >= pm->idx[i].end ||
		    (i && pm->idx[i - 1].end > pm->idx[i].start))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perf_map pm;
	size_t cut = size ? data[0] % (size + 1) : 0;

	perf_map_init(&pm);
	perf_map_feed(&pm, (const char *)data, size);
	check(&pm, data, size);
	perf_map_free(&pm);

	perf_map_init(&pm);
	perf_map_feed(&pm, (const char *)data, cut);
	perf_map_feed(&pm, (const char *)data + cut, size - cut);
	check(&pm, data, size);
	perf_map_free(&pm);
	return 0;
}
