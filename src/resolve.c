// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kallsyms.h"
#include "resolve.h"
#include "symbolize.h"

#define MAX_INLINE 16

struct frame_key {
	struct binary *bin;
	uint64_t addr;
	uint8_t exact;
};

struct cached_frame {
	struct hmap_node node;
	struct frame_key key;
	int n;				/* innermost first, like sym_source_lookup */
	struct named_frame f[];
};

static bool frame_eq(const struct hmap_node *n, const void *key)
{
	const struct frame_key *a = &((const struct cached_frame *)n)->key, *b = key;

	return a->bin == b->bin && a->addr == b->addr && a->exact == b->exact;
}

int resolver_init(struct resolver *r, struct kallsyms *ks)
{
	memset(r, 0, sizeof(*r));
	r->ks = ks;
	return hmap_init(&r->cache, 4096);
}

void resolver_free(struct resolver *r)
{
	struct hmap_node *n, *next;
	size_t i;

	for (i = 0; i < r->cache.nbuckets; i++) {
		for (n = r->cache.buckets[i]; n; n = next) {
			next = n->next;
			free(n);
		}
	}
	hmap_free(&r->cache);
	for (i = 0; i < r->nstrings; i++)
		free(r->strings[i]);
	free(r->strings);
}

static const char *keep_string(struct resolver *r, char *s)
{
	if (!s)
		return "[unknown]";
	if (r->nstrings == r->capstrings) {
		size_t cap = r->capstrings ? r->capstrings * 2 : 256;
		char **v = realloc(r->strings, cap * sizeof(*v));

		if (!v) {
			free(s);
			return "[unknown]";
		}
		r->strings = v;
		r->capstrings = cap;
	}
	r->strings[r->nstrings++] = s;
	return s;
}

static const char *format_string(struct resolver *r, const char *fmt, const char *a, uint64_t v)
{
	char *s = NULL;

	if (asprintf(&s, fmt, a, (unsigned long long)v) < 0)
		s = NULL;
	return keep_string(r, s);
}

static struct cached_frame *resolve_user(struct resolver *r, const struct uframe *u)
{
	struct frame_key key = { u->bin, u->addr, u->exact };
	uint64_t h = hash_u64((uintptr_t)u->bin ^ hash_u64(u->addr) ^ u->exact);
	struct sym_frame sf[MAX_INLINE];
	struct cached_frame *c;
	struct sym_source *syms;
	int n = 0, i;

	c = (struct cached_frame *)hmap_find(&r->cache, h, frame_eq, &key);
	if (c)
		return c;
	/* A return address points after the call: name the call itself. */
	syms = binary_syms(u->bin);
	if (syms)
		n = sym_source_lookup(syms, u->exact ? u->addr : u->addr - 1, sf, MAX_INLINE);
	c = malloc(sizeof(*c) + (n ? n : 1) * sizeof(c->f[0]));
	if (!c)
		return NULL;
	c->key = key;
	if (n <= 0) {
		c->n = 1;
		c->f[0].name = format_string(r, "%s+0x%llx", u->bin->name, u->addr);
		c->f[0].file = NULL;
		c->f[0].line = 0;
		c->f[0].kind = FRAME_USER;
	} else {
		c->n = n;
		for (i = 0; i < n; i++) {
			c->f[i].name = sf[i].name;
			c->f[i].file = sf[i].file;
			c->f[i].line = sf[i].line;
			c->f[i].kind = sf[i].inlined ? FRAME_INLINED : FRAME_USER;
		}
	}
	hmap_insert(&r->cache, &c->node, h);
	return c;
}

/* Kernel symbol of addr; *module is "[mod]" for module code, else NULL. */
static const char *kernel_name(struct resolver *r, uint64_t addr, const char **module)
{
	const char *name = NULL;
	uint64_t off;

	*module = NULL;
	if (r->ks)
		name = kallsyms_lookup(r->ks, addr, module, &off);
	if (name)
		return name;
	return format_string(r, "%s0x%llx", "", addr);
}

static int put(struct named_frame *out, int n, int max, const char *name, const char *file,
	       unsigned int line, uint8_t kind)
{
	if (n >= max)
		return n;
	out[n].name = name;
	out[n].file = file;
	out[n].line = line;
	out[n].kind = kind;
	return n + 1;
}

int resolve_stack(struct resolver *r, const struct stack_key *k, struct named_frame *out, int max)
{
	const struct uframe *user = stack_user(k);
	const uint64_t *kern = stack_kernel(k);
	int n = 0, i, j;

	/* User frames are stored innermost first: walk them backwards. */
	for (i = k->nuser - 1; i >= 0; i--) {
		const struct uframe *u = &user[i];
		struct cached_frame *c;

		switch (u->kind) {
		case UFRAME_TRUNCATED:
			n = put(out, n, max, "[truncated]", NULL, 0, FRAME_MARK);
			break;
		case UFRAME_CUT:
		case UFRAME_UNKNOWN:
			n = put(out, n, max, "[unknown]", NULL, 0, FRAME_MARK);
			break;
		case UFRAME_ELF:
			c = resolve_user(r, u);
			if (!c) {
				n = put(out, n, max, "[unknown]", NULL, 0, FRAME_MARK);
				break;
			}
			for (j = c->n - 1; j >= 0; j--)
				n = put(out, n, max, c->f[j].name, c->f[j].file, c->f[j].line,
					c->f[j].kind);
			break;
		}
	}
	for (i = k->nkernel - 1; i >= 0; i--) {
		const char *module, *name = kernel_name(r, kern[i], &module);

		/* For kernel frames, file holds the module ("[ext4]"), if any. */
		n = put(out, n, max, name, module, 0, FRAME_KERNEL);
	}
	return n;
}
