// SPDX-License-Identifier: GPL-2.0
/*
 * Render time and size of SVG flame graphs for synthetic profiles.
 *
 *   flamegraph_bench NSTACKS [OUT.svg]
 *
 * The profile looks like a real one: 5000 functions with C++-like names of
 * 20-70 characters, each calling 8 others with skewed odds (the first callee
 * half the time), stacks 20-40 deep ending in a few kernel frames a third of
 * the time, four processes.  Stacks share prefixes as real ones do but are
 * distinct (checked: duplicates are redrawn).  Only flamegraph_write is
 * timed; building the profile is not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "formats/flamegraph.h"
#include "util/hashmap.h"
#include "profile/profile.h"

#define NFUNCS 5000
#define NCALLEES 8

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 11) % n;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static const char *ns[] = { "std", "app", "net", "db", "util", "io", "proto", "core" };
	static const char *cls[] = { "Server", "Connection", "RequestHandler", "Parser", "Buffer",
				     "ThreadPool", "Cache", "Serializer", "Scheduler", "Index" };
	static const char *verbs[] = { "handle", "process", "read", "write", "parse", "flush",
				       "lookup", "insert", "dispatch", "encode", "run", "poll" };
	static const char *kern[] = { "entry_SYSCALL_64", "do_syscall_64", "__x64_sys_read",
				      "ksys_read", "vfs_read", "schedule", "__schedule" };
	static const char *comms[] = { "server", "worker", "db-writer", "logger" };
	size_t nstacks = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000, s, made = 0;
	const char *out = argc > 2 ? argv[2] : "/dev/null";
	uint32_t funcs[NFUNCS], callees[NFUNCS][NCALLEES], kframes[7], st[48], i;
	uint64_t *seen;
	size_t seen_n;
	struct flamegraph_opts o = { .subtitle = "synthetic" };
	struct profile p;
	struct rusage ru;
	double t0, t1;
	long size;
	FILE *f;
	int err;

	profile_init(&p);
	for (i = 0; i < NFUNCS; i++) {
		char name[128];
		struct prof_frame fr = { .kind = FRAME_USER, .addr = 0x400000 + i * 64 };

		snprintf(name, sizeof(name), "%s::%s::%s_%u(%s)", ns[rnd(8)], cls[rnd(10)],
			 verbs[rnd(12)], i, rnd(3) ? "int, char const*" : "");
		fr.name = profile_str(&p, name);
		funcs[i] = profile_frame(&p, &fr);
		for (int c = 0; c < NCALLEES; c++)
			callees[i][c] = rnd(NFUNCS);
	}
	for (i = 0; i < 7; i++) {
		struct prof_frame fr = { .kind = FRAME_KERNEL, .addr = 0xffffffff81000000ull + i };

		fr.name = profile_str(&p, kern[i]);
		kframes[i] = profile_frame(&p, &fr);
	}
	/* an open-addressed set of stack hashes keeps the stacks distinct */
	seen_n = 4;
	while (seen_n < nstacks * 2)
		seen_n *= 2;
	seen = calloc(seen_n, sizeof(*seen));
	for (s = 0; made < nstacks && s < nstacks * 4; s++) {
		uint32_t depth = 20 + rnd(21), fn = rnd(4), n = 0;
		struct prof_sample smp = { .count = 1 + (rnd(4) ? 0 : rnd(50)) };
		uint64_t h;
		size_t j;

		smp.comm = profile_str(&p, comms[fn]);
		while (n < depth) {
			uint32_t c = 0;

			st[n++] = funcs[fn];
			while (c < NCALLEES - 1 && rnd(2))
				c++;
			fn = callees[fn][c];
		}
		if (rnd(3) == 0)
			for (i = 0; i < 5; i++)
				st[n++] = kframes[i + (i == 4 ? rnd(3) : 0)];
		h = hash_bytes(st, n * sizeof(*st), smp.comm) | 1;
		for (j = h & (seen_n - 1); seen[j] && seen[j] != h; j = (j + 1) & (seen_n - 1))
			;
		if (seen[j])
			continue;
		seen[j] = h;
		profile_add_sample(&p, st, n, &smp);
		made++;
	}
	free(seen);

	f = fopen(out, "w");
	if (!f) {
		perror(out);
		return 1;
	}
	t0 = now();
	err = flamegraph_write(f, &p, &o);
	t1 = now();
	size = ftell(f);
	fclose(f);
	if (err) {
		fprintf(stderr, "flamegraph_write: %d\n", err);
		return 1;
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("%zu stacks (%llu samples): %.3f s, %.2f MB, peak RSS %ld MB\n", made,
	       (unsigned long long)p.total, t1 - t0, size / 1e6, ru.ru_maxrss / 1024);
	profile_free(&p);
	return 0;
}
