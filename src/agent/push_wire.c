// SPDX-License-Identifier: GPL-2.0
/*
 * The three kinds of --push target: where each one's request goes and how
 * its body is typed (the paths are the RPC's full method name, as Connect
 * and gRPC-Web route them, or OTLP/HTTP's fixed path for profiles).
 */
#include <string.h>

#include "agent/push.h"

const struct push_wire push_wires[PUSH_KIND_NR] = {
	[PUSH_PYROSCOPE] = {
		.name = "pyroscope",
		.path = "/push.v1.PusherService/Push",
		.content_type = "application/proto",
		.encode = push_encode_pyroscope,
	},
	[PUSH_OTLP] = {
		.name = "otlp",
		/* profiles_service_http.yaml: post: /v1development/profiles */
		.path = "/v1development/profiles",
		.content_type = "application/x-protobuf",
		.encode = push_encode_otlp,
	},
	[PUSH_PARCA] = {
		.name = "parca",
		.path = "/parca.profilestore.v1alpha1.ProfileStoreService/WriteRaw",
		.content_type = "application/grpc-web+proto",
		.encode = push_encode_parca,
	},
};

int push_kind_by_name(const char *name, size_t len)
{
	int k;

	for (k = 0; k < PUSH_KIND_NR; k++)
		if (strlen(push_wires[k].name) == len && memcmp(push_wires[k].name, name, len) == 0)
			return k;
	return -1;
}
