/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ELF symbol tables of one binary, merged from every place that has some
 * (.symtab, .dynsym, a debug file's .symtab, MiniDebugInfo's .symtab) into
 * one address-sorted table with exact [start, start + size) ranges.
 */
#ifndef STITCH_SYMTAB_H
#define STITCH_SYMTAB_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Refuse more than this many function symbols from one binary. */
#define SYMTAB_MAX_SYMS (8u << 20)
/* Longer names are cut here: we print them, we do not link against them. */
#define SYMTAB_MAX_NAME 4096
/* Farthest a zero-sized .symtab label names the code after it (see symtab.c). */
#define SYMTAB_ZERO_REACH 0xffffu

struct symtab_sym {
	uint64_t addr;
	uint64_t size;		/* 0: only names its exact address */
	const char *name;	/* version suffix stripped, never NULL */
	uint32_t order;		/* insertion order, the last tie-breaker */
	uint16_t reach;		/* size 0: bytes to its section's end, capped; 0 exact only */
	uint8_t rank;		/* 0 GLOBAL, 1 WEAK, 2 LOCAL, 3 other binding */
};

struct symtab {
	/* Built by symtab_add_elf(), turned into the index by symtab_finish(). */
	struct symtab_sym *all;	/* every accepted symbol; sorted by name once asked for one */
	size_t nr_all, cap_all;
	/* After finish: sized symbols, one per start address, sorted by address. */
	struct symtab_sym *by_addr;
	uint64_t *cover_end;	/* max end of by_addr[0..i], to find enclosing ranges */
	size_t nr_addr;
	/* After finish: zero-sized symbols sorted by address (exact matches only). */
	struct symtab_sym *zero;
	size_t nr_zero;
	struct name_chunk *names;
	bool finished;
	bool by_name;		/* all is sorted by name (symtab_find_name) */
};

void symtab_init(struct symtab *st);
void symtab_free(struct symtab *st);

/*
 * Add the function symbols of the sections of type `sh_type` (SHT_SYMTAB or
 * SHT_DYNSYM) of `elf`.  Returns the number added, or a negative errno
 * (-ENOMEM, -E2BIG when the cap is reached: what was added so far stays).
 */
long symtab_add_elf(struct symtab *st, Elf *elf, uint32_t sh_type);

/*
 * Add a named code range no symbol table lists (a PLT stub: "getppid@plt"),
 * its name kept whole.  1 if added, or a negative errno.
 */
int symtab_add_stub(struct symtab *st, uint64_t addr, uint64_t size, const char *name);

/* Sort, merge aliases and build the lookup index; -ENOMEM on failure. */
int symtab_finish(struct symtab *st);

/*
 * The symbol whose range covers addr, else the zero-sized label that is the
 * last symbol at or below addr in the same section (within its reach), or NULL.
 */
const struct symtab_sym *symtab_lookup(const struct symtab *st, uint64_t addr);

/*
 * A function symbol by exact (version-stripped) name, or NULL.  The first
 * call sorts the symbols by name: only uprobes and interpreter detection
 * look names up, and libc's 9,640 took ~1.5 ms of every run to sort.
 */
const struct symtab_sym *symtab_find_name(struct symtab *st, const char *name);

#endif /* STITCH_SYMTAB_H */
