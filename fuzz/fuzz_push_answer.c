// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the readers of servers' answers, which come from the
 * network: push_grpc_web_status (Parca's gRPC-Web) and push_otlp_answer.
 * The first input byte, if odd, takes the next bytes up to a NUL as a
 * grpc-status header; the rest is the body, read by both.  Whatever comes
 * in: a status of -1 or a decimal the header or trailers spelled, a count
 * of -1 or more, and messages NUL-terminated inside their buffers with no
 * control bytes (they go to a log).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent/push.h"

static void check_msg(const char *msg, size_t len)
{
	size_t i;

	if (!memchr(msg, '\0', len))
		abort();
	for (i = 0; msg[i]; i++)
		if ((unsigned char)msg[i] < 0x20 || msg[i] == 0x7f)
			abort();
}

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
	check_msg(msg, sizeof(msg));
	memset(msg, 'X', sizeof(msg));
	if (push_otlp_answer(data, size, h != NULL, msg, sizeof(msg)) < -1)
		abort();
	check_msg(msg, sizeof(msg));
	return 0;
}
