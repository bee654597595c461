// SPDX-License-Identifier: GPL-2.0
/*
 * Parca's parca.profilestore.v1alpha1.WriteRawRequest as a gRPC-Web call
 * over HTTP/1.1, and the reading of its answer.  Field numbers from
 * parca-dev/parca at commit 3b5647cd9e2a6527d9c31d7d68ccf6409a57ae00
 * (proto/parca/profilestore/v1alpha1/profilestore.proto; vendored in
 * tests/agent/proto/):
 *
 *   WriteRawRequest  { string tenant = 1 [deprecated];
 *                      repeated RawProfileSeries series = 2; bool normalized = 3; }
 *   RawProfileSeries { LabelSet labels = 1; repeated RawSample samples = 2; }
 *   LabelSet         { repeated Label labels = 1; }
 *   Label            { string name = 1; string value = 2; }
 *   RawSample        { bytes raw_profile = 1; repeated ExecutableInfo executable_info = 2; }
 *
 * raw_profile is the gzipped pprof (the server gunzips it).  normalized
 * stays false: the pprof's addresses are ELF virtual addresses, but every
 * frame is named already, so nothing on the server needs them.
 *
 * gRPC-Web (grpc/grpc doc/PROTOCOL-WEB.md): each message is a frame, one
 * flag byte (0: data, bit 7 set: trailers) and a 4-byte big-endian length;
 * the trailers frame holds HTTP/1-style "name: value\r\n" lines, among
 * them grpc-status and grpc-message.  A Trailers-Only answer has no body
 * and carries grpc-status among the HTTP headers instead.
 */
#include <ctype.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "agent/push.h"
#include "agent/push_pb.h"

enum { WRITE_RAW_SERIES = 2 };
enum { RAW_SERIES_LABELS = 1, RAW_SERIES_SAMPLES = 2 };
enum { LABEL_SET_LABELS = 1 };
enum { LABEL_NAME = 1, LABEL_VALUE = 2 };
enum { RAW_SAMPLE_RAW_PROFILE = 1 };

#define GRPC_WEB_HEADER 5
#define GRPC_WEB_TRAILERS 0x80

/* s's labels as one LabelSet message (its body) into set. */
static void put_label_set(struct pb_buf *set, struct pb_buf *label, const struct push_series *s)
{
	int i;

	for (i = 0; i < s->nlabels; i++) {
		if (!push_label_set(&s->labels[i]))
			continue;
		pb_buf_reset(label);
		pb_put_str(label, LABEL_NAME, s->labels[i].name);
		pb_put_str(label, LABEL_VALUE, s->labels[i].value);
		if (label->oom)
			set->oom = true;
		else
			pb_put_bytes(set, LABEL_SET_LABELS, label->data, label->len);
	}
}

int push_encode_parca(const struct push_series *s, int n, struct pb_buf *out)
{
	static const uint8_t frame[GRPC_WEB_HEADER];	/* data frame; length set at the end */
	struct pb_buf set = { 0 }, label = { 0 };
	size_t sample_len, series_len, msg_len;
	int i;

	pb_buf_reset(out);
	out->oom = false;
	pb_put_raw(out, frame, sizeof(frame));
	for (i = 0; i < n && !out->oom; i++) {
		pb_buf_reset(&set);
		put_label_set(&set, &label, &s[i]);
		if (set.oom) {
			out->oom = true;
			break;
		}
		sample_len = pb_len_field_size(RAW_SAMPLE_RAW_PROFILE, s[i].pprof_len);
		series_len = pb_len_field_size(RAW_SERIES_LABELS, set.len) +
			     pb_len_field_size(RAW_SERIES_SAMPLES, sample_len);
		pb_put_len_header(out, WRITE_RAW_SERIES, series_len);
		pb_put_bytes(out, RAW_SERIES_LABELS, set.data, set.len);
		pb_put_len_header(out, RAW_SERIES_SAMPLES, sample_len);
		pb_put_bytes(out, RAW_SAMPLE_RAW_PROFILE, s[i].pprof, s[i].pprof_len);
	}
	pb_buf_free(&set);
	pb_buf_free(&label);
	if (out->oom)
		return -1;
	/* A frame's length is 32 bits: a bigger request cannot be sent at all. */
	msg_len = out->len - GRPC_WEB_HEADER;
	if (msg_len > UINT32_MAX)
		return -1;
	out->data[1] = msg_len >> 24;
	out->data[2] = msg_len >> 16;
	out->data[3] = msg_len >> 8;
	out->data[4] = msg_len;
	return 0;
}

/* A grpc-status value: decimal, at most 9 digits (the codes are 0 to 16); else -1. */
static int parse_status(const char *s, size_t len)
{
	int v = 0;
	size_t i;

	if (!len || len > 9)
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower((unsigned char)c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/*
 * grpc-message, percent-decoded as gRPC encodes it, into msg (cut to
 * msglen, NUL-terminated); bytes that could steer a terminal become '?'.
 */
static void copy_message(const char *s, size_t len, char *msg, size_t msglen)
{
	size_t i, o = 0;

	if (!msg || !msglen)
		return;
	for (i = 0; i < len && o + 1 < msglen; i++) {
		unsigned char c = s[i];

		if (c == '%' && i + 2 < len && hex_digit(s[i + 1]) >= 0 &&
		    hex_digit(s[i + 2]) >= 0) {
			c = hex_digit(s[i + 1]) << 4 | hex_digit(s[i + 2]);
			i += 2;
		}
		msg[o++] = c < 0x20 || c == 0x7f ? '?' : c;
	}
	msg[o] = '\0';
}

/* Does line (len bytes) start with header name (lower case) and a colon?  Sets the value. */
static bool header_is(const char *line, size_t len, const char *name, const char **val,
		      size_t *vlen)
{
	size_t n = strlen(name);

	if (len <= n || strncasecmp(line, name, n) != 0 || line[n] != ':')
		return false;
	*val = line + n + 1;
	*vlen = len - n - 1;
	while (*vlen && (**val == ' ' || **val == '\t')) {
		(*val)++;
		(*vlen)--;
	}
	while (*vlen && ((*val)[*vlen - 1] == ' ' || (*val)[*vlen - 1] == '\t'))
		(*vlen)--;
	return true;
}

/* The trailers frame: grpc-status (or -1 if absent or bad), grpc-message into msg. */
static int parse_trailers(const char *t, size_t len, char *msg, size_t msglen)
{
	int status = -1;
	size_t i = 0;

	while (i < len) {
		const char *line = t + i, *eol = memchr(line, '\n', len - i), *val;
		size_t llen = eol ? (size_t)(eol - line) : len - i, vlen;

		i += llen + (eol ? 1 : 0);
		if (llen && line[llen - 1] == '\r')
			llen--;
		if (header_is(line, llen, "grpc-status", &val, &vlen))
			status = parse_status(val, vlen);
		else if (header_is(line, llen, "grpc-message", &val, &vlen))
			copy_message(val, vlen, msg, msglen);
	}
	return status;
}

int push_grpc_web_status(const uint8_t *body, size_t len, const char *grpc_status_hdr,
			 char *msg, size_t msglen)
{
	size_t off = 0, flen;

	if (msg && msglen)
		msg[0] = '\0';
	while (off < len) {
		uint8_t flag;

		if (len - off < GRPC_WEB_HEADER)
			return -1;
		flag = body[off];
		flen = (size_t)body[off + 1] << 24 | (size_t)body[off + 2] << 16 |
		       (size_t)body[off + 3] << 8 | body[off + 4];
		off += GRPC_WEB_HEADER;
		if (flen > len - off)
			return -1;
		/* The trailers end the answer: nothing may follow them. */
		if (flag & GRPC_WEB_TRAILERS)
			return off + flen == len ?
			       parse_trailers((const char *)body + off, flen, msg, msglen) : -1;
		off += flen;
	}
	/* No trailers frame: a Trailers-Only answer, its status among the headers. */
	if (!grpc_status_hdr)
		return -1;
	return parse_status(grpc_status_hdr, strlen(grpc_status_hdr));
}
