// SPDX-License-Identifier: GPL-2.0
/*
 * Pyroscope's push.v1.PushRequest, the body of a Connect unary call to
 * /push.v1.PusherService/Push.  Field numbers from grafana/pyroscope at
 * commit 3fe6a457a32004efc46da819cbc114472d07415e (api/push/v1/push.proto,
 * api/types/v1/types.proto; vendored in tests/agent/proto/):
 *
 *   PushRequest      { repeated RawProfileSeries series = 1; }
 *   RawProfileSeries { repeated types.v1.LabelPair labels = 1;
 *                      repeated RawSample samples = 2; }
 *   LabelPair        { string name = 1; string value = 2; }
 *   RawSample        { bytes raw_profile = 1; string ID = 2; }
 *
 * raw_profile is the gzipped pprof; the distributor gunzips it.  No ID:
 * the distributor makes one when it is empty.
 */
#include "agent/push.h"
#include "agent/push_pb.h"

enum { PUSH_REQUEST_SERIES = 1 };
enum { RAW_SERIES_LABELS = 1, RAW_SERIES_SAMPLES = 2 };
enum { LABEL_PAIR_NAME = 1, LABEL_PAIR_VALUE = 2 };
enum { RAW_SAMPLE_RAW_PROFILE = 1 };

/* LabelPair fields of s, as RawProfileSeries.labels, into b. */
static void put_labels(struct pb_buf *b, struct pb_buf *pair, const struct push_series *s)
{
	int i;

	for (i = 0; i < s->nlabels; i++) {
		if (!push_label_set(&s->labels[i]))
			continue;
		pb_buf_reset(pair);
		pb_put_str(pair, LABEL_PAIR_NAME, s->labels[i].name);
		pb_put_str(pair, LABEL_PAIR_VALUE, s->labels[i].value);
		if (pair->oom)
			b->oom = true;
		else
			pb_put_bytes(b, RAW_SERIES_LABELS, pair->data, pair->len);
	}
}

int push_encode_pyroscope(const struct push_series *s, int n, struct pb_buf *out)
{
	struct pb_buf labels = { 0 }, pair = { 0 };
	size_t sample_len, series_len;
	int i;

	pb_buf_reset(out);
	out->oom = false;
	for (i = 0; i < n && !out->oom; i++) {
		pb_buf_reset(&labels);
		put_labels(&labels, &pair, &s[i]);
		if (labels.oom) {
			out->oom = true;
			break;
		}
		sample_len = pb_len_field_size(RAW_SAMPLE_RAW_PROFILE, s[i].pprof_len);
		series_len = labels.len + pb_len_field_size(RAW_SERIES_SAMPLES, sample_len);
		pb_put_len_header(out, PUSH_REQUEST_SERIES, series_len);
		pb_put_raw(out, labels.data, labels.len);
		pb_put_len_header(out, RAW_SERIES_SAMPLES, sample_len);
		pb_put_bytes(out, RAW_SAMPLE_RAW_PROFILE, s[i].pprof, s[i].pprof_len);
	}
	pb_buf_free(&labels);
	pb_buf_free(&pair);
	return out->oom ? -1 : 0;
}
