// SPDX-License-Identifier: GPL-2.0
/* HotSpot's compressed streams: see hotspot_stream.h. */
#include "symbolize/hotspot_stream.h"

bool hotspot_u5_read(const uint8_t *p, size_t len, size_t *pos, uint8_t x, uint32_t *out)
{
	uint32_t l = 192 - x, sum = 0;
	int i, shift = 0;

	for (i = 0; i < 5; i++) {
		uint32_t b;

		if (*pos >= len || p[*pos] < x)
			return false;
		b = p[(*pos)++] - x;
		sum += b << shift;
		if (b < l || i == 4) {
			*out = sum;
			return true;
		}
		shift += 6;
	}
	return false;
}

bool hotspot_s5_read(const uint8_t *p, size_t len, size_t *pos, uint8_t x, int32_t *out)
{
	uint32_t u;

	if (!hotspot_u5_read(p, len, pos, x, &u))
		return false;
	*out = (int32_t)((u >> 1) ^ -(u & 1));
	return true;
}

uint32_t hotspot_line_of(const uint8_t *table, size_t len, uint8_t x, int64_t bci)
{
	int64_t at = 0, line = 0, best_bci = -1, best = 0;
	size_t pos = 0;

	if (!table || bci < 0)
		return 0;
	while (pos < len) {
		uint8_t b = table[pos++];

		if (b == 0)
			break;
		if (b == 0xff) {
			int32_t db, dl;

			if (!hotspot_s5_read(table, len, &pos, x, &db) ||
			    !hotspot_s5_read(table, len, &pos, x, &dl))
				return 0;
			at += db;
			line += dl;
		} else {
			at += b >> 3;
			line += b & 7;
		}
		if (at == bci)
			return line > 0 ? (uint32_t)line : 0;
		if (at < bci && at >= best_bci) {
			best_bci = at;
			best = line;
		}
	}
	return best > 0 ? (uint32_t)best : 0;
}

