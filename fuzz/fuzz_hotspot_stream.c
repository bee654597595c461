// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for HotSpot's compressed streams as a JVM's memory may
 * hold them (any bytes: a process can write its own): values read until
 * the buffer ends, and the line of every bci a table may hold, in both
 * encodings.  A value read must have moved inside the buffer.
 */
#include <stdint.h>
#include <stdlib.h>

#include "symbolize/hotspot_stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t x;

	for (x = 0; x <= 1; x++) {
		size_t pos = 0, before;
		uint32_t u;
		int64_t bci;

		for (;;) {
			before = pos;
			if (!hotspot_u5_read(data, size, &pos, x, &u))
				break;
			if (pos <= before || pos > size || pos - before > 5)
				abort();
		}
		for (bci = -1; bci < 70000; bci += 997)
			(void)hotspot_line_of(data, size, x, bci);
	}
	return 0;
}
