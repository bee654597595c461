// SPDX-License-Identifier: GPL-2.0
/*
 * Write the flame graph the browser test loads: a fixed profile whose names
 * include markup a traced process could choose, to prove it stays text.
 *
 *   mkgraph OUT.svg [plain|inverted|diff]
 *
 * Samples (total 100): app main;work;compute 59, app main;work;compute;leaf 1
 * (too narrow for text), app main;work;io;sys_read_[k] 20, app main;idle 10,
 * "<script>..." main;"<img ...>.pl" 10.
 */
#include <stdio.h>
#include <string.h>

#include "formats/flamegraph.h"
#include "profile/profile.h"

static uint32_t frame(struct profile *p, const char *name, enum frame_kind kind)
{
	struct prof_frame f = { .name = profile_str(p, name), .kind = kind };

	return profile_frame(p, &f);
}

static void sample(struct profile *p, const char *comm, const uint32_t *fr, uint32_t n,
		   uint64_t count)
{
	struct prof_sample s = { .comm = profile_str(p, comm), .pid = 1, .tid = 1, .count = count };

	profile_add_sample(p, fr, n, &s);
}

static void build(struct profile *p, uint64_t compute)
{
	profile_init(p);

	uint32_t m = frame(p, "main", FRAME_USER), w = frame(p, "work", FRAME_USER);
	uint32_t c = frame(p, "compute", FRAME_INLINED), io = frame(p, "io", FRAME_USER);
	uint32_t k = frame(p, "sys_read", FRAME_KERNEL), i = frame(p, "idle", FRAME_USER);
	uint32_t h = frame(p, "<img src=x onerror=alert(1)>.pl", FRAME_PERL);
	uint32_t l = frame(p, "leaf", FRAME_USER);
	uint32_t s1[] = { m, w, c }, s2[] = { m, w, io, k }, s3[] = { m, i }, s4[] = { m, h };
	uint32_t s5[] = { m, w, c, l };

	p->title = profile_str(p, "cpu <b>at</b> 99 Hz & \"more\" ]]>");
	sample(p, "app", s1, 3, compute - 1);
	sample(p, "app", s5, 4, 1);
	sample(p, "app", s2, 4, 20);
	sample(p, "app", s3, 2, 10);
	sample(p, "<script>alert(1)</script>", s4, 2, 10);
}

int main(int argc, char **argv)
{
	struct flamegraph_opts o = { .subtitle = "browser test <i>profile</i>" };
	struct profile p, base;
	const char *mode = argc > 2 ? argv[2] : "plain";
	FILE *f;
	int err;

	if (argc < 2) {
		fprintf(stderr, "usage: mkgraph OUT.svg [plain|inverted|diff]\n");
		return 2;
	}
	/* build() interns into a fresh profile each time, so indices match */
	memset(&base, 0, sizeof(base));
	build(&p, 60);
	if (!strcmp(mode, "inverted")) {
		o.inverted = true;
	} else if (!strcmp(mode, "diff")) {
		build(&base, 20);
		o.base = &base;
	}
	f = fopen(argv[1], "w");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	err = flamegraph_write(f, &p, &o);
	if (fclose(f) || err) {
		fprintf(stderr, "mkgraph: writing %s failed (%d)\n", argv[1], err);
		return 1;
	}
	if (o.base)
		profile_free(&base);
	profile_free(&p);
	return 0;
}
