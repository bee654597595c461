// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for push_grpc_web_status (src/agent/push_parca.c), which
 * reads a gRPC-Web answer from the network.  The first input byte, if odd,
 * takes the next bytes up to a NUL as a grpc-status header; the rest is the
 * body.  Whatever comes in: a status of -1 or a decimal the header or
 * trailers spelled, and a message NUL-terminated inside its buffer with no
 * control bytes (it goes to a log).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent/push.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char hdr[16], msg[24];
	const char *h = NULL;
	size_t i, n;
	int st;

	if (size && (data[0] & 1)) {
		n = 0;
		for (i = 1; i < size && data[i] && n < sizeof(hdr) - 1; i++)
			hdr[n++] = data[i];
		hdr[n] = '\0';
		h = hdr;
		data += i;
		size -= i;
	} else if (size) {
		data++;
		size--;
	}
	memset(msg, 'X', sizeof(msg));
	st = push_grpc_web_status(data, size, h, msg, sizeof(msg));
	if (st < -1 || st > 999999999)
		abort();
	if (!memchr(msg, '\0', sizeof(msg)))
		abort();
	for (i = 0; msg[i]; i++)
		if ((unsigned char)msg[i] < 0x20 || msg[i] == 0x7f)
			abort();
	return 0;
}
