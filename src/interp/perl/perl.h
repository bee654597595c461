/* SPDX-License-Identifier: GPL-2.0 */
/* Perl: the language module (perl.c, perl_versions.c; walker perl.bpf.h). */
#ifndef STITCH_INTERP_PERL_H
#define STITCH_INTERP_PERL_H

#include "interp/interp_internal.h"

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
 * The perl version of elf (PL_revision, PL_version), read from the file;
 * false if it has none.  perl_versions.c.
 */
bool perl_file_version(Elf *elf, unsigned int *rev, unsigned int *ver);

/* The entry of perl_versions[] of the perl in elf; NULL if none (rev, ver: its version). */
const struct interp_version *perl_version_of(Elf *elf, unsigned int *rev, unsigned int *ver);

/* perl:NAME roots (perl_root.c): interp_ops.root_find. */
int perl_root_find(struct interp_root *r, const char *name, pid_t pid, char *const *command,
		   char *why, size_t why_len);

#endif /* STITCH_INTERP_PERL_H */
