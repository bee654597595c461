/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --fetch FIELD on a tracepoint or a system call's entry: the field by its
 * name in the kernel's format of the event (fetch_tp.c).
 */
#ifndef STITCH_PROBE_FETCH_TP_H
#define STITCH_PROBE_FETCH_TP_H

#include "probe/fetch_compile.h"

/*
 * Compile exprs[0..n) (FIELD, FIELD:string, FIELD:u32...) for the event
 * CAT:NAME, whose format is under tracefs: 0, or -errno with err naming
 * the event's fields when one is not there.
 */
int fetch_tp_compile(const char *tracefs, const char *cat, const char *name,
		     const char *const *exprs, int n, struct fetch_steps *prog,
		     struct fetch_format *fmt, char *err, size_t errlen);

#endif /* STITCH_PROBE_FETCH_TP_H */
