// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the CFI parser: the input as an .eh_frame and as a
 * .debug_frame section, and, when libelf accepts it, as a whole ELF file.
 * Every table produced must be sorted and lookups must stay in bounds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "unwind/cfi.h"
#include "util/elf_util.h"

/* Sorted; and indexed by address, every lookup gives the row the whole search gives. */
static void check_table(struct unwind_table *t)
{
	struct unwind_table whole = *t;
	size_t i;

	for (i = 1; i < t->nr; i++)
		if (t->rows[i - 1].pc >= t->rows[i].pc)
			abort();
	if (t->nr && unwind_table_lookup(t, t->rows[t->nr - 1].pc) != &t->rows[t->nr - 1])
		abort();
	if (unwind_table_index(t) != 0)
		return;
	for (i = 0; i < t->nr; i++)
		if (unwind_table_lookup(t, t->rows[i].pc) != unwind_table_lookup(&whole, t->rows[i].pc) ||
		    unwind_table_lookup(t, t->rows[i].pc + 1) !=
		    unwind_table_lookup(&whole, t->rows[i].pc + 1) ||
		    unwind_table_lookup(t, (uint64_t)t->rows[i].pc - 1) !=
		    unwind_table_lookup(&whole, (uint64_t)t->rows[i].pc - 1))
			abort();
}

static void parse_as(const uint8_t *data, size_t size, bool eh)
{
	struct unwind_table t;

	if (cfi_parse_section(data, size, 0x400000, eh, &t) == 0)
		check_table(&t);
	unwind_table_free(&t);
}

static void parse_as_elf(const uint8_t *data, size_t size)
{
	struct unwind_table t;
	char *copy;
	Elf *elf;

	if (size < 4 || memcmp(data, "\177ELF", 4) != 0)
		return;
	/* elf_memory() wants a writable image and may look at it later. */
	copy = malloc(size);
	if (!copy)
		return;
	memcpy(copy, data, size);
	elf = elf_memory(copy, size);
	if (elf) {
		if (cfi_build_table(elf, elf, &t) == 0)
			check_table(&t);
		unwind_table_free(&t);
		elf_end(elf);
	}
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	elf_util_init();
	parse_as(data, size, true);
	parse_as(data, size, false);
	parse_as_elf(data, size);
	return 0;
}
