/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A --fetch expression as written, before any debug information is asked
 * about it: NAME, then ->member, .member and [index], then :string or a
 * cast, as perf probe takes them.  Shared by the DWARF (fetch_compile.c)
 * and BTF (fetch_btf.c) compilers.
 */
#ifndef STITCH_PROBE_FETCH_PATH_H
#define STITCH_PROBE_FETCH_PATH_H

#include <stdbool.h>
#include <stddef.h>

#include "probe/fetch_compile.h"

#define FETCH_PATH_MAX_STEPS 8

struct fetch_access {
	enum { ACC_ARROW, ACC_DOT, ACC_INDEX } kind;
	char name[64];
	long index;
};

struct fetch_path {
	char base[64];
	struct fetch_access step[FETCH_PATH_MAX_STEPS];
	int nsteps;
	char cast[16];		/* "" or string, u8, s32, x64, ... */
};

/* NAME(->M|.M|[N])*[:CAST] into p, and label: the text before the cast.  0 or -EINVAL. */
int fetch_path_parse(const char *text, struct fetch_path *p, char *label, size_t lsize);

/* A cast (u8..u64, s8..s64, x8..x64) into f's size and print: false if cast is none. */
bool fetch_cast_parse(const char *cast, struct fetch_format *f);

#endif /* STITCH_PROBE_FETCH_PATH_H */
