// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>

#include "util/elf_util.h"
#include "proc/usdt.h"

#define NT_STAPSDT 3

struct usdt_note {
	uint64_t pc, base, sema;
	const char *provider, *name;
};

typedef int (*note_fn)(void *ctx, const struct usdt_note *n);

/* Parse one stapsdt note descriptor; every string must end inside it. */
static int parse_desc(const uint8_t *desc, size_t len, struct usdt_note *n)
{
	const char *p, *end = (const char *)desc + len;
	const char *nul;

	if (len < 3 * 8 + 3)
		return -EINVAL;
	memcpy(&n->pc, desc, 8);
	memcpy(&n->base, desc + 8, 8);
	memcpy(&n->sema, desc + 16, 8);
	p = (const char *)desc + 24;
	nul = memchr(p, '\0', end - p);
	if (!nul)
		return -EINVAL;
	n->provider = p;
	p = nul + 1;
	nul = memchr(p, '\0', end - p);
	if (!nul)
		return -EINVAL;
	n->name = p;
	return 0;
}

static int walk_notes(Elf *elf, note_fn fn, void *ctx)
{
	struct elf_section notes, base;
	uint64_t base_addr = 0;
	bool have_base;
	Elf_Data data;
	size_t off = 0;

	if (elf_find_section(elf, ".note.stapsdt", &notes) != 0 || !notes.data)
		return -ENOENT;
	have_base = elf_find_section(elf, ".stapsdt.base", &base) == 0;
	if (have_base)
		base_addr = base.addr;
	memset(&data, 0, sizeof(data));
	data.d_buf = (void *)notes.data;
	data.d_size = notes.size;
	data.d_type = ELF_T_NHDR;
	while (off < notes.size) {
		size_t name_off, desc_off, next;
		struct usdt_note n;
		GElf_Nhdr nh;
		int err;

		next = gelf_getnote(&data, off, &nh, &name_off, &desc_off);
		if (next == 0 || next <= off)
			break;
		off = next;
		if (nh.n_type != NT_STAPSDT || nh.n_namesz != 8 ||
		    memcmp(notes.data + name_off, "stapsdt", 8) != 0)
			continue;
		if (parse_desc(notes.data + desc_off, nh.n_descsz, &n) != 0)
			continue;
		/* Prelinked files moved: shift by how far .stapsdt.base moved. */
		if (have_base && n.base) {
			n.pc += base_addr - n.base;
			if (n.sema)
				n.sema += base_addr - n.base;
		}
		err = fn(ctx, &n);
		if (err)
			return err;
	}
	return 0;
}

struct find_ctx {
	Elf *elf;
	const char *provider, *name;
	struct usdt_site *sites;
	int max, nr;
};

static int find_one(void *ctx, const struct usdt_note *n)
{
	struct find_ctx *c = ctx;
	struct usdt_site s = { .vaddr = n->pc };

	if (strcmp(n->provider, c->provider) != 0 || strcmp(n->name, c->name) != 0)
		return 0;
	if (elf_vaddr_to_offset(c->elf, n->pc, &s.offset) != 0)
		return 0;
	if (n->sema && elf_vaddr_to_offset(c->elf, n->sema, &s.sema_offset) != 0)
		return 0;	/* cannot arm it: the probe would never fire */
	if (c->nr < c->max)
		c->sites[c->nr++] = s;
	return 0;
}

int usdt_find(Elf *elf, const char *provider, const char *name, struct usdt_site *sites, int max)
{
	struct find_ctx c = { elf, provider, name, sites, max, 0 };
	int err = walk_notes(elf, find_one, &c);

	if (err == -ENOENT)
		return 0;
	return err ? err : c.nr;
}

struct each_ctx {
	void (*fn)(void *ctx, const char *provider, const char *name);
	void *ctx;
};

static int each_one(void *ctx, const struct usdt_note *n)
{
	struct each_ctx *c = ctx;

	c->fn(c->ctx, n->provider, n->name);
	return 0;
}

int usdt_for_each(Elf *elf, void (*fn)(void *ctx, const char *provider, const char *name), void *ctx)
{
	struct each_ctx c = { fn, ctx };

	return walk_notes(elf, each_one, &c);
}
