// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the USDT note reader: the input is opened as an ELF
 * image and every probe is looked up by the names the file itself lists, plus
 * a few fixed names, so matching sites go through the vaddr -> offset paths.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/elf_util.h"
#include "proc/usdt.h"

struct ctx {
	Elf *elf;
	int calls;
};

static void each(void *p, const char *provider, const char *name)
{
	struct ctx *c = p;
	struct usdt_site sites[4];

	/* Bound the work per input: a note section can list thousands. */
	if (c->calls++ < 16)
		usdt_find(c->elf, provider, name, sites, 4);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct usdt_site sites[4];
	struct ctx c = { NULL, 0 };
	char *copy;

	elf_util_init();
	/* libelf wants a writable buffer; give it a private copy. */
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	c.elf = elf_memory(copy, size);
	if (c.elf) {
		usdt_find(c.elf, "prov", "plain", sites, 4);
		usdt_find(c.elf, "prov", "guarded", sites, 0);
		usdt_for_each(c.elf, each, &c);
		elf_end(c.elf);
	}
	free(copy);
	return 0;
}
