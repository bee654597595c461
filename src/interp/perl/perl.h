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

/* struct perl_sub_probes (perl_layout.h): where latency's probes go. */
bool perl_sub_probes_of(Elf *elf, const struct interp_perl_layout *L,
			struct perl_sub_probes *p, char *why, size_t why_len);

/*
 * The layout of the perl in elf (an executable or libperl.so) if we can
 * follow its sub calls (stitch latency -e perl:NAME): its version is one
 * we know, and p is where the probes go.  NULL and why otherwise.
 */
const struct interp_perl_layout *perl_layout_of_file(Elf *elf, struct perl_sub_probes *p,
						     char *why, size_t why_len);

#endif /* STITCH_INTERP_PERL_H */
