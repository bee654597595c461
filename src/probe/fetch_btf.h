/* SPDX-License-Identifier: GPL-2.0 */
/* --fetch on a kprobe: the function's arguments from the kernel's BTF (fetch_btf.c). */
#ifndef STITCH_PROBE_FETCH_BTF_H
#define STITCH_PROBE_FETCH_BTF_H

#include "probe/fetch_compile.h"

/*
 * Compile exprs[0..n) (ARG, ARG->member..., :string, casts) at the entry of
 * the kernel function func: 0, or -errno with err naming its arguments
 * when one is not there.
 */
int fetch_btf_compile(const char *func, const char *const *exprs, int n,
		      struct fetch_steps *prog, struct fetch_format *fmt, char *err, size_t errlen);

#endif /* STITCH_PROBE_FETCH_BTF_H */
