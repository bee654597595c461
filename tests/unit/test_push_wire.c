// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for the agent's wire table and its Pyroscope and Parca encoders
 * (src/agent/push_wire.c, push_pyroscope.c, push_parca.c): the bytes are
 * decoded back with protobuf.h's reader and every field number checked
 * against the upstream schemas (the numbers below are read from
 * tests/agent/proto); and push_grpc_web_status on good, error and
 * malformed gRPC-Web answers, which come from the network.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "agent/push.h"
#include "pb_decode.h"

static const uint8_t fake_pprof[] = { 0x1f, 0x8b, 0x08, 0x00, 'p', 'p', 'r', 'o', 'f', 0 };

static const struct push_label labels_a[] = {
	{ "__name__", "process_cpu" },
	{ "service_name", "api" },
	{ "host_name", "h1" },
	{ "container_id", "" },		/* unknown: not sent */
	{ NULL, "x" },			/* malformed: not sent */
	{ "env", "prod" },
};
static const struct push_label labels_b[] = {
	{ "__name__", "off_cpu" },
	{ "service_name", "db" },
};

static void two_series(struct push_series s[2])
{
	memset(s, 0, 2 * sizeof(*s));
	s[0].pprof = fake_pprof;
	s[0].pprof_len = sizeof(fake_pprof);
	s[0].labels = labels_a;
	s[0].nlabels = sizeof(labels_a) / sizeof(labels_a[0]);
	s[1].pprof = fake_pprof + 1;
	s[1].pprof_len = sizeof(fake_pprof) - 1;
	s[1].labels = labels_b;
	s[1].nlabels = 2;
}

static void test_kinds(void **state)
{
	const char *push = "parca=http://127.0.0.1:7070";

	assert_int_equal(push_kind_by_name("pyroscope", 9), PUSH_PYROSCOPE);
	assert_int_equal(push_kind_by_name("otlp", 4), PUSH_OTLP);
	assert_int_equal(push_kind_by_name(push, strchr(push, '=') - push), PUSH_PARCA);
	assert_int_equal(push_kind_by_name("pyro", 4), -1);
	assert_int_equal(push_kind_by_name("pyroscopes", 10), -1);
	assert_int_equal(push_kind_by_name("OTLP", 4), -1);
	assert_int_equal(push_kind_by_name("", 0), -1);
	assert_string_equal(push_wires[PUSH_PYROSCOPE].path, "/push.v1.PusherService/Push");
	assert_string_equal(push_wires[PUSH_PYROSCOPE].content_type, "application/proto");
	assert_string_equal(push_wires[PUSH_OTLP].path, "/v1development/profiles");
	assert_string_equal(push_wires[PUSH_OTLP].content_type, "application/x-protobuf");
	assert_string_equal(push_wires[PUSH_PARCA].path,
			    "/parca.profilestore.v1alpha1.ProfileStoreService/WriteRaw");
	assert_string_equal(push_wires[PUSH_PARCA].content_type, "application/grpc-web+proto");
	assert_ptr_equal(push_wires[PUSH_PYROSCOPE].encode, push_encode_pyroscope);
	assert_ptr_equal(push_wires[PUSH_OTLP].encode, push_encode_otlp);
	assert_ptr_equal(push_wires[PUSH_PARCA].encode, push_encode_parca);
}

/* A LabelPair / parca Label: name = 1, value = 2. */
static void assert_label(struct msg l, const char *name, const char *value)
{
	static const uint32_t known[] = { 1, 2 };

	pb_only(l, known, 2);
	assert_true(pb_str_is(l, 1, name));
	assert_true(pb_str_is(l, 2, value));
}

/* The RawSample: raw_profile = 1, the pprof's exact bytes; nothing else (no ID: the server's). */
static void assert_raw_sample(struct msg smp, const struct push_series *s)
{
	static const uint32_t known[] = { 1 };
	struct msg raw;

	pb_only(smp, known, 1);
	raw = pb_msg(smp, 1, 0);
	assert_int_equal(raw.len, s->pprof_len);
	assert_memory_equal(raw.p, s->pprof, raw.len);
}

/*
 * push.v1.PushRequest { repeated RawProfileSeries series = 1; }
 * RawProfileSeries { repeated LabelPair labels = 1; repeated RawSample samples = 2; }
 */
static void test_pyroscope(void **state)
{
	static const uint32_t req_fields[] = { 1 }, series_fields[] = { 1, 2 };
	struct pb_buf out = { 0 };
	struct push_series s[2];
	struct msg req, series;

	two_series(s);
	assert_int_equal(push_encode_pyroscope(s, 2, &out), 0);
	req = msg_of(out.data, out.len);
	pb_only(req, req_fields, 1);
	assert_int_equal(pb_count(req, 1), 2);

	series = pb_msg(req, 1, 0);
	pb_only(series, series_fields, 2);
	assert_int_equal(pb_count(series, 1), 4);
	assert_label(pb_msg(series, 1, 0), "__name__", "process_cpu");
	assert_label(pb_msg(series, 1, 1), "service_name", "api");
	assert_label(pb_msg(series, 1, 2), "host_name", "h1");
	assert_label(pb_msg(series, 1, 3), "env", "prod");
	assert_int_equal(pb_count(series, 2), 1);
	assert_raw_sample(pb_msg(series, 2, 0), &s[0]);

	series = pb_msg(req, 1, 1);
	assert_int_equal(pb_count(series, 1), 2);
	assert_label(pb_msg(series, 1, 0), "__name__", "off_cpu");
	assert_label(pb_msg(series, 1, 1), "service_name", "db");
	assert_raw_sample(pb_msg(series, 2, 0), &s[1]);

	/* out is reset first: a second encoding is the same bytes, not appended. */
	{
		size_t len = out.len;
		uint8_t *copy = malloc(len);

		assert_non_null(copy);
		memcpy(copy, out.data, len);
		assert_int_equal(push_encode_pyroscope(s, 2, &out), 0);
		assert_int_equal(out.len, len);
		assert_memory_equal(out.data, copy, len);
		free(copy);
	}
	assert_int_equal(push_encode_pyroscope(s, 0, &out), 0);
	assert_int_equal(out.len, 0);
	pb_buf_free(&out);
}

/* The 5-byte gRPC-Web data frame header; the message after it. */
static struct msg grpc_web_message(const struct pb_buf *out)
{
	uint32_t len;

	assert_true(out->len >= 5);
	assert_int_equal(out->data[0], 0);	/* data, uncompressed */
	len = (uint32_t)out->data[1] << 24 | out->data[2] << 16 | out->data[3] << 8 | out->data[4];
	assert_int_equal(len, out->len - 5);
	return msg_of(out->data + 5, len);
}

/*
 * WriteRawRequest { repeated RawProfileSeries series = 2; }
 * RawProfileSeries { LabelSet labels = 1; repeated RawSample samples = 2; }
 * LabelSet { repeated Label labels = 1; }
 */
static void test_parca(void **state)
{
	static const uint32_t req_fields[] = { 2 }, series_fields[] = { 1, 2 }, set_fields[] = { 1 };
	struct pb_buf out = { 0 };
	struct push_series s[2];
	struct msg req, series, set;

	two_series(s);
	assert_int_equal(push_encode_parca(s, 2, &out), 0);
	req = grpc_web_message(&out);
	pb_only(req, req_fields, 1);
	assert_int_equal(pb_count(req, 2), 2);

	series = pb_msg(req, 2, 0);
	pb_only(series, series_fields, 2);
	assert_int_equal(pb_count(series, 1), 1);
	set = pb_msg(series, 1, 0);
	pb_only(set, set_fields, 1);
	assert_int_equal(pb_count(set, 1), 4);
	assert_label(pb_msg(set, 1, 0), "__name__", "process_cpu");
	assert_label(pb_msg(set, 1, 1), "service_name", "api");
	assert_label(pb_msg(set, 1, 2), "host_name", "h1");
	assert_label(pb_msg(set, 1, 3), "env", "prod");
	assert_int_equal(pb_count(series, 2), 1);
	assert_raw_sample(pb_msg(series, 2, 0), &s[0]);

	series = pb_msg(req, 2, 1);
	set = pb_msg(series, 1, 0);
	assert_int_equal(pb_count(set, 1), 2);
	assert_label(pb_msg(set, 1, 1), "service_name", "db");
	assert_raw_sample(pb_msg(series, 2, 0), &s[1]);

	/* No series: an empty message, still framed. */
	assert_int_equal(push_encode_parca(s, 0, &out), 0);
	assert_int_equal(out.len, 5);
	grpc_web_message(&out);
	pb_buf_free(&out);
}

/* A frame length over 2^24 lands in all four header bytes, big-endian. */
static void test_parca_big_frame(void **state)
{
	size_t big = (1u << 24) + 0x10203;
	uint8_t *pprof = calloc(1, big);
	struct pb_buf out = { 0 };
	struct push_series s = { .pprof = pprof, .pprof_len = big, .labels = labels_b,
				 .nlabels = 2 };
	struct msg req;

	assert_non_null(pprof);
	pprof[0] = 0x1f;
	pprof[big - 1] = 0x77;
	assert_int_equal(push_encode_parca(&s, 1, &out), 0);
	assert_true(out.data[1] == 0x01);
	req = grpc_web_message(&out);
	assert_raw_sample(pb_msg(pb_msg(req, 2, 0), 2, 0), &s);
	pb_buf_free(&out);
	free(pprof);
}

/* A gRPC-Web body: frames given as (flag, bytes, len) triples until flag -1. */
static size_t frames(uint8_t *buf, ...)
{
	va_list ap;
	size_t n = 0;
	int flag;

	va_start(ap, buf);
	while ((flag = va_arg(ap, int)) >= 0) {
		const char *data = va_arg(ap, const char *);
		size_t len = va_arg(ap, size_t);

		buf[n++] = flag;
		buf[n++] = len >> 24;
		buf[n++] = len >> 16;
		buf[n++] = len >> 8;
		buf[n++] = len;
		memcpy(buf + n, data, len);
		n += len;
	}
	va_end(ap);
	return n;
}

#define T(s) (s), (size_t)(sizeof(s) - 1)

static void test_grpc_web_status(void **state)
{
	uint8_t b[512] = { 0 };
	char msg[64];
	size_t n;

	/* Parca's success: an empty WriteRawResponse, then the trailers. */
	n = frames(b, 0, T(""), 0x80, T("grpc-status:0\r\ngrpc-message:\r\n"), -1);
	strcpy(msg, "stale");
	assert_int_equal(push_grpc_web_status(b, n, NULL, msg, sizeof(msg)), 0);
	assert_string_equal(msg, "");

	/* An error, its message percent-decoded, a newline in it made harmless. */
	n = frames(b, 0x80, T("grpc-status: 3\r\ngrpc-message: invalid label%3A a-b%0Aend\r\n"),
		   -1);
	assert_int_equal(push_grpc_web_status(b, n, NULL, msg, sizeof(msg)), 3);
	assert_string_equal(msg, "invalid label: a-b?end");

	/* Header names in any case, \n alone, other trailers around. */
	n = frames(b, 0x80, T("x-other: 1\nGrpc-Status: 14\nGRPC-MESSAGE: unavailable\n"), -1);
	assert_int_equal(push_grpc_web_status(b, n, NULL, msg, sizeof(msg)), 14);
	assert_string_equal(msg, "unavailable");

	/* Cut to the buffer; no buffer at all. */
	n = frames(b, 0x80, T("grpc-status: 8\r\ngrpc-message: resource exhausted\r\n"), -1);
	assert_int_equal(push_grpc_web_status(b, n, NULL, msg, 9), 8);
	assert_string_equal(msg, "resource");
	assert_int_equal(push_grpc_web_status(b, n, NULL, NULL, 0), 8);

	/* A '%' not followed by two hex digits is kept as it is. */
	n = frames(b, 0x80, T("grpc-status: 2\r\ngrpc-message: 100%zz %4"), -1);
	assert_int_equal(push_grpc_web_status(b, n, NULL, msg, sizeof(msg)), 2);
	assert_string_equal(msg, "100%zz %4");

	/* Trailers-Only: no body, the status among the HTTP headers. */
	assert_int_equal(push_grpc_web_status(b, 0, "16", msg, sizeof(msg)), 16);
	assert_int_equal(push_grpc_web_status(b, 0, "0", msg, sizeof(msg)), 0);
	/* The trailers frame wins over a header. */
	n = frames(b, 0x80, T("grpc-status: 5\r\n"), -1);
	assert_int_equal(push_grpc_web_status(b, n, "0", msg, sizeof(msg)), 5);
}

static void test_grpc_web_malformed(void **state)
{
	uint8_t b[512] = { 0 };
	char msg[64];
	size_t n;

	/* Nothing says how it went. */
	assert_int_equal(push_grpc_web_status(b, 0, NULL, msg, sizeof(msg)), -1);
	n = frames(b, 0, T(""), -1);
	assert_int_equal(push_grpc_web_status(b, n, NULL, msg, sizeof(msg)), -1);
	n = frames(b, 0x80, T("grpc-message: no status\r\n"), -1);
	assert_int_equal(push_grpc_web_status(b, n, NULL, msg, sizeof(msg)), -1);
	n = frames(b, 0x80, T(""), -1);
	assert_int_equal(push_grpc_web_status(b, n, NULL, msg, sizeof(msg)), -1);
	/* Statuses that are not numbers, or absurd ones. */
	n = frames(b, 0x80, T("grpc-status: ok\r\n"), -1);
	assert_int_equal(push_grpc_web_status(b, n, NULL, msg, sizeof(msg)), -1);
	n = frames(b, 0x80, T("grpc-status: -1\r\n"), -1);
	assert_int_equal(push_grpc_web_status(b, n, NULL, msg, sizeof(msg)), -1);
	n = frames(b, 0x80, T("grpc-status: 1234567890\r\n"), -1);
	assert_int_equal(push_grpc_web_status(b, n, NULL, msg, sizeof(msg)), -1);
	n = frames(b, 0x80, T("grpc-status:\r\n"), -1);
	assert_int_equal(push_grpc_web_status(b, n, NULL, msg, sizeof(msg)), -1);
	assert_int_equal(push_grpc_web_status(b, 0, "", msg, sizeof(msg)), -1);
	assert_int_equal(push_grpc_web_status(b, 0, "0x1", msg, sizeof(msg)), -1);
	/* A name that only starts like grpc-status. */
	n = frames(b, 0x80, T("grpc-statusx: 0\r\n"), -1);
	assert_int_equal(push_grpc_web_status(b, n, NULL, msg, sizeof(msg)), -1);
	/* Frames cut short: a header, a length past the end, 4 GiB claimed. */
	n = frames(b, 0x80, T("grpc-status: 0\r\n"), -1);
	assert_int_equal(push_grpc_web_status(b, n - 1, NULL, msg, sizeof(msg)), -1);
	assert_int_equal(push_grpc_web_status(b, 3, NULL, msg, sizeof(msg)), -1);
	memcpy(b, "\x80\xff\xff\xff\xff", 5);
	assert_int_equal(push_grpc_web_status(b, 5, NULL, msg, sizeof(msg)), -1);
	/* Bytes after the trailers. */
	n = frames(b, 0x80, T("grpc-status: 0\r\n"), 0, T("x"), -1);
	assert_int_equal(push_grpc_web_status(b, n, NULL, msg, sizeof(msg)), -1);
	/* A truncated body is not saved by a header saying 0. */
	n = frames(b, 0, T("abc"), -1);
	assert_int_equal(push_grpc_web_status(b, n - 1, "0", msg, sizeof(msg)), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_pyroscope),
		cmocka_unit_test(test_parca),
		cmocka_unit_test(test_parca_big_frame),
		cmocka_unit_test(test_grpc_web_status),
		cmocka_unit_test(test_grpc_web_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
