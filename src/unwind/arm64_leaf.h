/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64 code that no CFI covers but that keeps no frame (the vDSO's
 * functions, PLT entries) gets the one row that says so.
 */
#ifndef STITCH_UNWIND_ARM64_LEAF_H
#define STITCH_UNWIND_ARM64_LEAF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gelf.h>

#include "unwind/cfi.h"

/*
 * True if the n arm64 instruction words of a function never move sp, never
 * write x30 and call nothing: the whole function runs with its caller's
 * sp and its return address in x30.  Decoded on any host (unit tests).
 */
bool arm64_code_is_frameless_leaf(const uint32_t *code, size_t n);

/*
 * Give the row CFA = sp, return address in x30 to each stretch of elf that
 * no CFI covers and whose code is a frameless leaf: the functions of
 * arm64's vDSO, the entries of a .plt.  0 (also when there is nothing to
 * mark: x86-64, whose PLTs have CFI), or -ENOMEM (t keeps what was marked
 * before).
 */
int arm64_leaf_mark(Elf *elf, struct unwind_table *t);

#endif /* STITCH_UNWIND_ARM64_LEAF_H */
