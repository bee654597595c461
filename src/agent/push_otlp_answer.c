// SPDX-License-Identifier: GPL-2.0
/*
 * What an OTLP/HTTP server answered (opentelemetry-proto
 * docs/specification.md, "OTLP/HTTP Response"; commit ac2c4b5d): a 2xx
 * body is an ExportProfilesServiceResponse whose partial_success, when set,
 * counts the profiles it rejected (the client must not resend them); a 4xx
 * or 5xx body is a google.rpc.Status (googleapis google/rpc/status.proto:
 * int32 code = 1; string message = 2).  The bytes come from the network:
 * read with the bounds-checked reader, the message cut to the caller's
 * buffer and made safe to log.
 *
 *   ExportProfilesServiceResponse { ExportProfilesPartialSuccess partial_success = 1; }
 *   ExportProfilesPartialSuccess  { int64 rejected_profiles = 1; string error_message = 2; }
 */
#include <stdint.h>

#include "agent/push.h"
#include "formats/protobuf.h"

enum { RESPONSE_PARTIAL_SUCCESS = 1 };
enum { PARTIAL_REJECTED = 1, PARTIAL_ERROR_MESSAGE = 2 };
enum { STATUS_MESSAGE = 2 };

/* A string field into msg, cut to msglen; bytes that could steer a terminal become '?'. */
static void copy_text(const struct pb_field *f, char *msg, size_t msglen)
{
	size_t i;

	if (!msg || !msglen)
		return;
	for (i = 0; i < f->len && i + 1 < msglen; i++)
		msg[i] = f->data[i] < 0x20 || f->data[i] == 0x7f ? '?' : f->data[i];
	msg[i] = '\0';
}

int push_otlp_answer(const uint8_t *body, size_t len, bool ok, char *msg, size_t msglen)
{
	struct pb_reader r, sub;
	struct pb_field f, g;
	int64_t rejected = 0;
	int rc;

	if (msg && msglen)
		msg[0] = '\0';
	pb_reader_init(&r, body, len);
	while ((rc = pb_next(&r, &f)) == 1) {
		if (!ok) {
			if (f.num == STATUS_MESSAGE && f.wire == PB_LEN)
				copy_text(&f, msg, msglen);
			continue;
		}
		if (f.num != RESPONSE_PARTIAL_SUCCESS || f.wire != PB_LEN)
			continue;
		pb_reader_init(&sub, f.data, f.len);
		while ((rc = pb_next(&sub, &g)) == 1) {
			if (g.num == PARTIAL_REJECTED && g.wire == PB_VARINT)
				rejected = (int64_t)g.v;
			else if (g.num == PARTIAL_ERROR_MESSAGE && g.wire == PB_LEN)
				copy_text(&g, msg, msglen);
		}
		if (rc < 0)
			return -1;
	}
	if (rc < 0)
		return -1;
	/* A negative count is nonsense: say it is malformed rather than "none rejected". */
	if (rejected < 0 || rejected > INT32_MAX)
		return -1;
	return (int)rejected;
}
