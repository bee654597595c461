/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel symbols from /proc/kallsyms (or a file in its format).
 */
#ifndef STITCH_KALLSYMS_H
#define STITCH_KALLSYMS_H

#include <stdbool.h>
#include <stdint.h>

/* A module function is never taken to reach further than this past its start. */
#define KALLSYMS_MODULE_MAX_FUNC (64u * 1024)
/* Refuse a kallsyms file larger than this. */
#define KALLSYMS_MAX_FILE (256u << 20)

struct kallsyms;

/* Load "/proc/kallsyms" (or a file in its format); NULL + errno on failure. */
struct kallsyms *kallsyms_load(const char *path);

/*
 * Name a kernel address: the text symbol (t, T, w, W) with the greatest
 * address <= addr, where the next symbol of any kind ends its range (the only
 * size kallsyms gives).  *module is the module name with its brackets as
 * kallsyms prints it ("[ext4]", "[bpf]") or NULL for vmlinux; *offset is
 * addr - symbol address.  Returns NULL if addr is below the first symbol, in
 * a gap we know about (after a marker like _etext or __entry_text_end, or
 * in data), more than KALLSYMS_MODULE_MAX_FUNC past a module symbol or past
 * the last symbol of a region, or when all addresses are hidden.
 */
const char *kallsyms_lookup(const struct kallsyms *ks, uint64_t addr, const char **module,
			    uint64_t *offset);

/* Addresses hidden (kptr_restrict, not root): every symbol reads as 0. */
bool kallsyms_all_zero(const struct kallsyms *ks);

/* Number of distinct addresses kept (text and boundaries), for diagnostics. */
unsigned long kallsyms_count(const struct kallsyms *ks);

void kallsyms_free(struct kallsyms *ks);

#endif /* STITCH_KALLSYMS_H */
