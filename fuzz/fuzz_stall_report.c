// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the libstitch-stall report parser: the input is a
 * log, cut into lines as stitch symbolize cuts them, each parsed from an
 * exact-size copy (ASan sees any read past a line).  What a line parses to
 * must be self-consistent: strings terminated, within their bounds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stalls/stall_report_parser.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t start = 0, i;

	for (i = 0; i <= size; i++) {
		if (i < size && data[i] != '\n')
			continue;
		{
			size_t len = i - start + (i < size);	/* with its newline */
			char *line = malloc(len ? len : 1);
			struct stall_line l;

			if (!line)
				return 0;
			memcpy(line, data + start, len);
			switch (stall_log_parse(line, len, &l)) {
			case STALL_LINE_HEADER:
				if (strlen(l.comm) >= STALL_LOG_COMM_MAX)
					abort();
				break;
			case STALL_LINE_USER:
				if (!l.path[0] || strlen(l.path) >= STALL_LOG_PATH_MAX ||
				    strlen(l.build_id) > STALL_LOG_BUILD_ID_MAX)
					abort();
				break;
			default:
				break;
			}
			free(line);
		}
		start = i + 1;
	}
	return 0;
}
