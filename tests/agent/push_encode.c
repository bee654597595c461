// SPDX-License-Identifier: GPL-2.0
/*
 * The encoders of src/agent/push_*.c, from a shell: encode_check.sh reads
 * a profile `stitch record -o x.pb.gz` wrote, encodes it as each kind of
 * server wants it, and posts the bytes to backend.py, which decodes them
 * with the published schemas.  A test program, not part of stitch.
 *
 *   push_encode KIND PPROF OUT [-l NAME=VALUE]... [-p PID] [-x EXE]
 *               [-s START_NS] [-e END_NS] [-n SERIES] [-r REPEAT]
 *
 * Writes the request body to OUT and "PATH CONTENT_TYPE" to stdout.  -n
 * repeats the series (its labels get series=<i>) to test many in one request;
 * -r encodes REPEAT times and says on stderr how long one encoding took.
 *
 *   push_encode grpc-status BODY [GRPC_STATUS_HEADER]
 *   push_encode otlp-answer BODY ok|error
 *
 * Read a gRPC-Web answer (Parca's) with push_grpc_web_status, or an
 * OTLP/HTTP answer with push_otlp_answer, and print "RESULT MESSAGE".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent/push.h"
#include "formats/pprof.h"
#include "profile/profile.h"

#define MAX_LABELS 32
#define MAX_SERIES 16

static int usage(void)
{
	fprintf(stderr, "usage: push_encode pyroscope|otlp|parca PPROF OUT [-l NAME=VALUE]... "
		"[-p PID] [-x EXE] [-s START_NS] [-e END_NS] [-n SERIES] [-r REPEAT]\n");
	return 2;
}

static uint8_t *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, n;

	*len = 0;
	if (!f)
		return NULL;
	for (;;) {
		if (*len == cap) {
			uint8_t *b = realloc(buf, cap = cap ? cap * 2 : 65536);

			if (!b)
				break;
			buf = b;
		}
		n = fread(buf + *len, 1, cap - *len, f);
		*len += n;
		if (!n)
			break;
	}
	fclose(f);
	return buf;
}

static int read_answer(const char *what, const char *path, const char *arg)
{
	char msg[256];
	uint8_t *body;
	size_t len;
	int status;

	body = read_file(path, &len);
	if (!body) {
		fprintf(stderr, "push_encode: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (strcmp(what, "otlp-answer") == 0)
		status = push_otlp_answer(body, len, arg && strcmp(arg, "ok") == 0, msg,
					  sizeof(msg));
	else
		status = push_grpc_web_status(body, len, arg, msg, sizeof(msg));
	printf("%d %s\n", status, msg);
	free(body);
	return 0;
}

int main(int argc, char **argv)
{
	struct push_label labels[MAX_SERIES][MAX_LABELS + 1];
	char series_no[MAX_SERIES][16];
	struct push_series s[MAX_SERIES] = { { 0 } };
	struct pb_buf out = { 0 };
	struct profile prof;
	int kind, nlabels = 0, nseries = 1, repeat = 1, i, c;
	struct timespec t0, t1;
	char err[256];
	uint8_t *pprof;
	size_t len;
	FILE *f;

	if (argc >= 3 && (strcmp(argv[1], "grpc-status") == 0 ||
			  strcmp(argv[1], "otlp-answer") == 0))
		return read_answer(argv[1], argv[2], argc > 3 ? argv[3] : NULL);
	if (argc < 4)
		return usage();
	kind = push_kind_by_name(argv[1], strlen(argv[1]));
	if (kind < 0)
		return usage();
	pprof = read_file(argv[2], &len);
	if (!pprof) {
		fprintf(stderr, "push_encode: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	profile_init(&prof);
	if (pprof_read(pprof, len, &prof, err, sizeof(err))) {
		fprintf(stderr, "push_encode: %s: %s\n", argv[2], err);
		return 1;
	}
	s[0].prof = &prof;
	s[0].pprof = pprof;
	s[0].pprof_len = len;
	s[0].start_ns = prof.time_ns;
	s[0].end_ns = prof.time_ns + prof.duration_ns;
	optind = 4;
	while ((c = getopt(argc, argv, "l:p:x:s:e:n:r:")) != -1) {
		char *eq;

		switch (c) {
		case 'l':
			eq = strchr(optarg, '=');
			if (!eq || nlabels == MAX_LABELS)
				return usage();
			*eq = '\0';
			labels[0][nlabels].name = optarg;
			labels[0][nlabels++].value = eq + 1;
			break;
		case 'p':
			s[0].pid = strtoul(optarg, NULL, 10);
			break;
		case 'x':
			s[0].exe_name = optarg;
			break;
		case 's':
			s[0].start_ns = strtoull(optarg, NULL, 10);
			break;
		case 'e':
			s[0].end_ns = strtoull(optarg, NULL, 10);
			break;
		case 'n':
			nseries = atoi(optarg);
			if (nseries < 1 || nseries > MAX_SERIES)
				return usage();
			break;
		case 'r':
			repeat = atoi(optarg);
			if (repeat < 1)
				return usage();
			break;
		default:
			return usage();
		}
	}
	for (i = 0; i < nseries; i++) {
		s[i] = s[0];
		memcpy(labels[i], labels[0], nlabels * sizeof(labels[0][0]));
		s[i].labels = labels[i];
		s[i].nlabels = nlabels;
		if (nseries > 1) {
			snprintf(series_no[i], sizeof(series_no[i]), "%d", i);
			labels[i][nlabels].name = "series";
			labels[i][nlabels].value = series_no[i];
			s[i].nlabels++;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < repeat; i++) {
		if (push_wires[kind].encode(s, nseries, &out)) {
			fprintf(stderr, "push_encode: %s: encoding failed\n", argv[1]);
			return 1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (repeat > 1)
		fprintf(stderr, "push_encode: %s: %.3f ms per encoding, %zu bytes\n", argv[1],
			((t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6) / repeat,
			out.len);
	f = fopen(argv[3], "wb");
	if (!f || fwrite(out.data, 1, out.len, f) != out.len || fclose(f)) {
		fprintf(stderr, "push_encode: %s: %s\n", argv[3], strerror(errno));
		return 1;
	}
	printf("%s %s\n", push_wires[kind].path, push_wires[kind].content_type);
	pb_buf_free(&out);
	profile_free(&prof);
	free(pprof);
	return 0;
}
