// SPDX-License-Identifier: GPL-2.0
/*
 * A small request handler built -O2 -g, for line probes (stitch probe, and
 * -e uprobe:BIN:FUNC:RELLINE / BIN@FILE:LINE): it logs every call's values
 * as the tests expect a probe to read them, so a test compares the two.
 *
 *   line_server CALLS [PAUSE_MS [bench]]
 *
 * bench (bench/probe_cost.sh): wait for a line on stdin, log nothing per
 * call, and print "elapsed_ns N" for the calls at the end.
 *
 * handle_request() also logs r->in's bit fields and double, as a probe
 * reads them.  handle_request() is out of line (noinline); pick_weight() is inlined
 * into its two callers, so its lines have two copies; audit() keeps a char
 * array and a struct on its stack (every 10th call).  Lines marked
 * "LINE:" are found by the tests with grep; keep the marks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct inner {
	int id;
	int kind;
	unsigned int prio : 3;	/* bit fields and a double: --fetch reads them */
	int delta : 5;
	double cost;
};

struct request {
	int len;
	char path[32];
	struct inner *in;
};

static volatile unsigned long sink;

static inline __attribute__((always_inline)) int pick_weight(const struct request *r, int round)
{
	int w = r->len * 7 + round % 3;		/* LINE: pick_weight_body */

	return w;
}

static int quiet;

static __attribute__((noinline)) int handle_request(struct request *r, int round)
{
	int weight = pick_weight(r, round);

	sink += weight;				/* LINE: handle_sink */
	if (!quiet) {
		printf("len=%d path=\"%s\" id=%d weight=%d\n", r->len, r->path, r->in->id,
		       weight);
		printf("prio=%u delta=%d cost=%g\n", r->in->prio, r->in->delta, r->in->cost);
	}
	return weight;
}

/* Keeps what it is given in memory: the caller's locals live on its stack. */
static __attribute__((noinline)) void touch(void *p)
{
	__asm__ volatile("" : : "r"(p) : "memory");
}

/* Locals on the stack (a char array, a struct whose address escapes): DW_OP_fbreg. */
static __attribute__((noinline)) int audit(struct request *r, int round)
{
	struct inner copy = *r->in;
	char tag[24];

	snprintf(tag, sizeof(tag), "t%d-%d", round, r->len);
	touch(&copy);
	sink += strlen(tag);			/* LINE: audit_tag */
	if (!quiet)
		printf("tag=\"%s\" copy.id=%d copy.kind=%d\n", tag, copy.id, copy.kind);
	return pick_weight(r, round + 1) - 1;
}

int main(int argc, char **argv)
{
	int calls = argc > 1 ? atoi(argv[1]) : 200;
	long pause_ms = argc > 2 ? atol(argv[2]) : 0;
	struct timespec ts = { pause_ms / 1000, (pause_ms % 1000) * 1000000 };
	struct timespec t0, t1;
	struct inner in;
	struct request r;
	char go[8];
	int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 3 && strcmp(argv[3], "bench") == 0) {
		quiet = 1;
		if (!fgets(go, sizeof(go), stdin))
			return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < calls; i++) {
		in.id = 1000 + i;
		in.kind = i % 4;
		in.prio = i % 8;
		in.delta = i % 32 - 16;
		in.cost = i * 0.25;
		r.len = 10 + i % 5;
		r.in = &in;
		snprintf(r.path, sizeof(r.path), "/srv/item/%d", i % 3);
		handle_request(&r, i);
		if (i % 10 == 0)
			sink += audit(&r, i);
		if (pause_ms)
			nanosleep(&ts, NULL);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (quiet)
		printf("elapsed_ns %lld\n", (t1.tv_sec - t0.tv_sec) * 1000000000LL +
		       (t1.tv_nsec - t0.tv_nsec));
	return 0;
}
