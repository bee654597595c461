// SPDX-License-Identifier: GPL-2.0
/* The allocators' own mmap and sbrk calls, told apart: see alloc_leaves.h. */
#include <stdbool.h>
#include <stdlib.h>

#include "capture/alloc_leaves.h"

bool alloc_leaves_file(struct alloc_leaves *l, dev_t dev, ino_t ino)
{
	if (l->nfiles == ALLOC_LEAVES_MAX)
		return false;
	l->files[l->nfiles].dev = dev;
	l->files[l->nfiles++].ino = ino;
	return true;
}

bool alloc_leaves_site(struct alloc_leaves *l, dev_t dev, ino_t ino, uint64_t vaddr)
{
	if (l->nsites == ALLOC_LEAVES_MAX)
		return false;
	l->sites[l->nsites].dev = dev;
	l->sites[l->nsites].ino = ino;
	l->sites[l->nsites++].vaddr = vaddr;
	return true;
}

/* An ELF frame of the file dev, ino. */
static bool of_file(const struct uframe *f, dev_t dev, ino_t ino)
{
	return f->kind == UFRAME_ELF && f->bin && f->bin->dev == dev && f->bin->ino == ino;
}

static bool is_site(const struct alloc_leaves *l, const struct uframe *f)
{
	int i;

	for (i = 0; i < l->nsites; i++)
		if (l->sites[i].vaddr == f->addr && of_file(f, l->sites[i].dev, l->sites[i].ino))
			return true;
	return false;
}

static bool in_allocator(const struct alloc_leaves *l, const struct uframe *f)
{
	int i;

	for (i = 0; i < l->nfiles; i++)
		if (of_file(f, l->files[i].dev, l->files[i].ino))
			return true;
	return false;
}

bool alloc_leaves_inner(const struct alloc_leaves *l, const struct stack_key *k)
{
	const struct uframe *u = stack_user(k);

	/* Innermost first: the leaf's entry, then its caller's return address. */
	return l->nsites && k->nuser >= 2 && is_site(l, &u[0]) && in_allocator(l, &u[1]);
}

size_t alloc_leaves_drop_inner(const struct alloc_leaves *l, struct stack_table *t)
{
	struct stack **inner = NULL, **more;
	size_t i, n = 0, cap = 0;
	struct hmap_node *hn;

	if (!l->nsites)
		return 0;
	hmap_for_each(&t->map, i, hn) {
		struct stack *s = (struct stack *)hn;

		if (!alloc_leaves_inner(l, &s->key))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			more = realloc(inner, cap * sizeof(*inner));
			if (!more)
				break;		/* kept: counted twice, not lost */
			inner = more;
		}
		inner[n++] = s;
	}
	for (i = 0; i < n; i++)
		stacks_remove(t, inner[i]);
	free(inner);
	return n;
}
