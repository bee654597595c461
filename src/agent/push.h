/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What stitch agent sends each period, and how each kind of server wants
 * it encoded.  The agent (agent.c) cuts a period's profile per (service,
 * profile type), labels it, and hands the series to one encoder per
 * --push target; the HTTP side (push_http.c) only moves the bytes, so an
 * encoder is a pure function that a unit test can decode back.
 *
 * The schemas, read from the upstream .proto files (field numbers in each
 * encoder's comments):
 *  - pyroscope: push.v1.PushRequest (grafana/pyroscope api/push/v1/push.proto),
 *    Connect unary over HTTP/1.1, body the bare message;
 *  - otlp: opentelemetry.proto.collector.profiles.v1development.
 *    ExportProfilesServiceRequest, with its shared dictionary;
 *  - parca: parca.profilestore.v1alpha1.WriteRawRequest, as gRPC-Web (a
 *    5-byte frame header before the message).
 */
#ifndef STITCH_AGENT_PUSH_H
#define STITCH_AGENT_PUSH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/protobuf.h"

struct profile;

struct push_label {
	const char *name;
	const char *value;
};

/*
 * One series of one period: one service's profile of one type.  labels
 * hold __name__ ("process_cpu", "off_cpu", "wall"), service_name,
 * host_name, container_id and pod_uid where known, and --label's; the
 * encoders copy what they need and keep no pointer.
 */
struct push_series {
	const struct profile *prof;	/* the period's profile (symbolized) */
	const uint8_t *pprof;		/* prof as pprof_write wrote it (gzipped) */
	size_t pprof_len;
	const struct push_label *labels;
	int nlabels;
	uint64_t start_ns, end_ns;	/* the period, ns since the Unix epoch */
	/* OTLP's resource attributes beyond the labels: 0 / NULL when unknown or many. */
	uint32_t pid;
	const char *exe_name;
};

enum push_kind {
	PUSH_PYROSCOPE,
	PUSH_OTLP,
	PUSH_PARCA,
	PUSH_KIND_NR,
};

/* How a kind's request goes: path appended to the target's URL, and its content type. */
struct push_wire {
	const char *name;		/* as --push spells it: "pyroscope" */
	const char *path;		/* "/push.v1.PusherService/Push" */
	const char *content_type;	/* "application/proto" */
	/* Encode n series into out (reset first): 0, or -1 (out of memory). */
	int (*encode)(const struct push_series *s, int n, struct pb_buf *out);
};

extern const struct push_wire push_wires[PUSH_KIND_NR];

/* The kind --push names (the text before '='), or -1. */
int push_kind_by_name(const char *name, size_t len);

int push_encode_pyroscope(const struct push_series *s, int n, struct pb_buf *out);
int push_encode_otlp(const struct push_series *s, int n, struct pb_buf *out);
int push_encode_parca(const struct push_series *s, int n, struct pb_buf *out);

/*
 * A gRPC-Web response's outcome (parca): the grpc-status from the
 * trailers frame (0x80) in body, or from the headers (grpc_status_hdr,
 * NULL if absent).  0 ok; the gRPC status code otherwise, message (if
 * any) copied into msg; -1 if the body is malformed.
 */
int push_grpc_web_status(const uint8_t *body, size_t len, const char *grpc_status_hdr,
			 char *msg, size_t msglen);

/*
 * An OTLP/HTTP answer's body (otlp): ok for a 2xx status.  For a 2xx, the
 * number of profiles the server rejected (partial_success: 0 when all were
 * taken; a rejected part must not be sent again), its error_message (a
 * warning when 0) into msg; else the google.rpc.Status message into msg,
 * and 0.  -1 if the body is malformed.
 */
int push_otlp_answer(const uint8_t *body, size_t len, bool ok, char *msg, size_t msglen);

#endif /* STITCH_AGENT_PUSH_H */
