/* SPDX-License-Identifier: GPL-2.0 */
/* Perl: the language module (perl.c, perl_versions.c; walker perl.bpf.h). */
#ifndef STITCH_INTERP_PERL_H
#define STITCH_INTERP_PERL_H

#include "interp/common.h"

extern const struct interp_ops perl_ops;
extern const struct interp_version perl_versions[];

/*
 * Cut the walk (ev + its strings, str_len bytes) into groups, one per
 * Perl_runops_standard call, innermost first.  Exposed for tests.
 */
void perl_groups(struct interp_state *st, const struct interp_event *ev, const uint8_t *strs,
		 size_t str_len, struct groups *g);

#endif /* STITCH_INTERP_PERL_H */
