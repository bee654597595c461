/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stitch latency --fetch: values read at the root's entry (a function's
 * arguments by name from DWARF, a system call's from its format, a kernel
 * function's from BTF), kept per thread while it is in the call, and shown
 * with each slow call (probe/fetch.h's steps, run by latency.bpf.c).
 */
#ifndef STITCH_LATENCY_FETCH_H
#define STITCH_LATENCY_FETCH_H

#include "latency/lat_root.h"
#include "probe/fetch_compile.h"

struct latency_bpf;

struct lat_fetch {
	const char *exprs[FETCH_MAX_VARS];
	int n;
	struct fetch_site site;		/* how each value prints */
	struct fetch_steps steps;
};

/* One --fetch EXPR: 0, or 2 (usage) with one line said. */
int lat_fetch_add(struct lat_fetch *f, const char *expr);

/*
 * Compile the expressions at r's entry, before anything is traced: 0, or 1
 * with one line saying what is not there (or that r's kind, or this
 * kernel, reads none).
 */
int lat_fetch_compile(struct lat_fetch *f, const struct lat_root *r);

/* Before load: whether latency.bpf.c reads values, and its maps' sizes. */
void lat_fetch_configure(const struct lat_fetch *f, struct latency_bpf *skel);

/* After load: the steps into latency.bpf.c's map.  0 or -errno. */
int lat_fetch_write(const struct lat_fetch *f, struct latency_bpf *skel);

/* A call's values as "r->len=10 weight=70", into buf (size). */
void lat_fetch_format(const struct lat_fetch *f, const struct fetch_values *v, char *buf,
		      size_t size);

#endif /* STITCH_LATENCY_FETCH_H */
