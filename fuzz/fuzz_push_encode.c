// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the agent's encoders (src/agent/push_*.c): whatever
 * profile the pprof reader accepts from the input is encoded for all three
 * kinds of server, and the OTLP request is read back: it must decode, its
 * dictionary's tables must each start with the zero value, its strings must
 * be UTF-8, and every index a sample, stack or location holds must be inside
 * its table.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent/push.h"
#include "formats/pprof.h"
#include "formats/protobuf.h"
#include "profile/profile.h"
#include "util/utf8.h"

enum { D_MAPPING = 1, D_LOCATION, D_FUNCTION, D_LINK, D_STRING, D_ATTRIBUTE, D_STACK, D_NR };

struct table {
	struct pb_field *e;
	size_t n;
};

/* Every occurrence of field num in data (PB_LEN), or abort. */
static struct table entries(const uint8_t *data, size_t len, uint32_t num)
{
	struct table t = { 0 };
	struct pb_reader r;
	struct pb_field f;
	int rc;

	pb_reader_init(&r, data, len);
	while ((rc = pb_next(&r, &f)) == 1) {
		if (f.num != num)
			continue;
		if (f.wire != PB_LEN)
			abort();
		t.e = realloc(t.e, (t.n + 1) * sizeof(*t.e));
		if (!t.e)
			abort();
		t.e[t.n++] = f;
	}
	if (rc)
		abort();
	return t;
}

/* Every value of the varint field num of m is below limit (and, if nonzero, above 0). */
static void indices_below(const struct pb_field *m, uint32_t num, size_t limit, int nonzero)
{
	struct pb_reader r;
	struct pb_field f;
	struct pb_scalars s;
	uint64_t v;
	int rc, k;

	pb_reader_init(&r, m->data, m->len);
	while ((rc = pb_next(&r, &f)) == 1) {
		if (f.num != num)
			continue;
		if (pb_scalars_init(&s, &f))
			abort();
		while ((k = pb_scalars_next(&s, &v)) == 1)
			if (v >= limit || (nonzero && !v))
				abort();
		if (k)
			abort();
	}
	if (rc)
		abort();
}

static void check_otlp(const uint8_t *data, size_t len)
{
	struct table dicts = entries(data, len, 2), t[D_NR], rps, sps, profs, samples;
	size_t i, j, k, l;
	int d;

	if (dicts.n != 1)
		abort();
	for (d = 1; d < D_NR; d++) {
		t[d] = entries(dicts.e[0].data, dicts.e[0].len, d);
		if (!t[d].n || (d != D_LINK && t[d].e[0].len))
			abort();
	}
	/* Protobuf's strings are UTF-8, whatever bytes the profile's names held. */
	for (i = 0; i < t[D_STRING].n; i++)
		if (!utf8_valid((const char *)t[D_STRING].e[i].data, t[D_STRING].e[i].len))
			abort();
	for (i = 1; i < t[D_STACK].n; i++)
		indices_below(&t[D_STACK].e[i], 1, t[D_LOCATION].n, 1);
	for (i = 0; i < t[D_LOCATION].n; i++) {
		struct table lines = entries(t[D_LOCATION].e[i].data, t[D_LOCATION].e[i].len, 3);

		indices_below(&t[D_LOCATION].e[i], 1, t[D_MAPPING].n, 0);
		indices_below(&t[D_LOCATION].e[i], 4, t[D_ATTRIBUTE].n, 1);
		for (j = 0; j < lines.n; j++)
			indices_below(&lines.e[j], 1, t[D_FUNCTION].n, 1);
		free(lines.e);
	}
	for (i = 0; i < t[D_FUNCTION].n; i++) {
		indices_below(&t[D_FUNCTION].e[i], 1, t[D_STRING].n, 0);
		indices_below(&t[D_FUNCTION].e[i], 3, t[D_STRING].n, 0);
	}
	rps = entries(data, len, 1);
	for (i = 0; i < rps.n; i++) {
		sps = entries(rps.e[i].data, rps.e[i].len, 2);
		for (j = 0; j < sps.n; j++) {
			profs = entries(sps.e[j].data, sps.e[j].len, 2);
			for (k = 0; k < profs.n; k++) {
				samples = entries(profs.e[k].data, profs.e[k].len, 2);
				for (l = 0; l < samples.n; l++) {
					indices_below(&samples.e[l], 1, t[D_STACK].n, 0);
					indices_below(&samples.e[l], 2, t[D_ATTRIBUTE].n, 1);
				}
				free(samples.e);
			}
			free(profs.e);
		}
		free(sps.e);
	}
	free(rps.e);
	for (d = 1; d < D_NR; d++)
		free(t[d].e);
	free(dicts.e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct push_label labels[] = {
		{ "__name__", "process_cpu" }, { "service_name", "fuzz" }, { "host_name", "h" },
	};
	struct push_series s = { .pprof = data, .pprof_len = size, .labels = labels,
				 .nlabels = 3, .pid = 7, .exe_name = "fuzz" };
	struct pb_buf out = { 0 };
	struct profile p;
	char err[256];

	profile_init(&p);
	if (pprof_read(data, size, &p, err, sizeof(err)) == 0) {
		s.prof = &p;
		if (push_encode_otlp(&s, 1, &out))
			abort();
		check_otlp(out.data, out.len);
		if (push_encode_pyroscope(&s, 1, &out) || push_encode_parca(&s, 1, &out))
			abort();
	}
	profile_free(&p);
	pb_buf_free(&out);
	return 0;
}
