/* SPDX-License-Identifier: GPL-2.0 */
/* CPython: the language module (python.c, python_versions.c; walker python.bpf.h). */
#ifndef STITCH_INTERP_PYTHON_H
#define STITCH_INTERP_PYTHON_H

#include "interp/interp_internal.h"

extern const struct interp_ops python_ops;
extern const struct interp_version python_versions[];

/* Line of the instruction at code unit lasti, from a 3.11 co_linetable; -1 if none. */
int py311_line_for(const uint8_t *table, size_t len, int firstlineno, int lasti);

#endif /* STITCH_INTERP_PYTHON_H */
