// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the symbolizer's ELF/DWARF/MiniDebugInfo parsing:
 * the input is opened as an ELF binary (with path and root pointing at an
 * empty directory, so no debug file is found) and queried, and read for
 * V8's metadata (symbolize/v8_meta.c: a traced process's node binary); the same
 * bytes are also tried as a .gnu_debugdata (xz) image.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbolize/v8_meta.h"
#include "symbolize/debuginfo.h"
#include "symbolize/debuginfod_fetch.h"
#include "util/elf_util.h"
#include "symbolize/symbolize.h"
#include "symbolize/symtab.h"

static char empty_root[64];

static void query(struct sym_source *src, const uint8_t *data, size_t size)
{
	struct sym_frame f[8];
	uint64_t v = 0, sz;
	size_t i;

	/* Addresses near the ones the input mentions, plus a few fixed ones. */
	for (i = 0; i + 8 <= size && i < 512; i += 40) {
		memcpy(&v, data + i, 8);
		sym_source_lookup(src, v, f, 8);
		sym_source_lookup(src, v & 0xffffff, f, 8);
	}
	for (v = 0; v < 0x3000; v += 0x101)
		sym_source_lookup(src, v, f, 2);
	sym_source_find_symbol(src, "main", &v, &sz);
	sym_source_describe(src);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sym_source *src;
	struct minidebug md;
	char *copy;
	Elf *elf;

	/* Inputs are not worth a server's time, and the fuzzer stays off the network. */
	debuginfod_disable();

	if (!empty_root[0]) {
		snprintf(empty_root, sizeof(empty_root), "/tmp/stitch_fuzz_XXXXXX");
		if (!mkdtemp(empty_root))
			abort();
		elf_util_init();
	}
	/* libelf wants a writable buffer; give it a private copy. */
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	elf = elf_memory(copy, size);
	src = sym_source_open(elf, "/usr/bin/prog", empty_root);
	if (src) {
		query(src, data, size);
		sym_source_free(src);
	}
	if (elf) {
		struct v8_meta m;
		char why[160];

		v8_meta_read(elf, &m, why, sizeof(why));
		elf_end(elf);
	}
	free(copy);
	if (size >= 6 && memcmp(data, "\xfd" "7zXZ", 6) == 0 &&
	    minidebug_open_image(data, size, &md) == 0) {
		struct symtab st;

		symtab_init(&st);
		symtab_add_elf(&st, md.elf, SHT_SYMTAB);
		symtab_finish(&st);
		symtab_lookup(&st, 0x1000);
		symtab_free(&st);
		minidebug_close(&md);
	}
	return 0;
}
