// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profile/stacks.h"
#include "profile/profile.h"

struct probe {
	const struct stack_key *key;
	uint32_t bytes;
};

static bool stack_eq(const struct hmap_node *n, const void *p)
{
	const struct stack *s = (const struct stack *)n;
	const struct probe *pr = p;

	return s->key_bytes == pr->bytes && memcmp(&s->key, pr->key, pr->bytes) == 0;
}

/*
 * Names kept for the whole run (waker comms): a stack's UFRAME_NAME frame
 * points at one, so equal names must be the same pointer.  Few and small.
 */
struct name_node {
	struct hmap_node node;
	char name[];
};

static struct hmap names;

static bool name_eq(const struct hmap_node *n, const void *name)
{
	return strcmp(((const struct name_node *)n)->name, name) == 0;
}

const char *stacks_name(const char *name)
{
	uint64_t h = hash_bytes(name, strlen(name), 0);
	struct name_node *n;

	if (!names.buckets && hmap_init(&names, 64))
		return "?";
	n = (struct name_node *)hmap_find(&names, h, name_eq, name);
	if (n)
		return n->name;
	n = malloc(sizeof(*n) + strlen(name) + 1);
	if (!n)
		return "?";
	strcpy(n->name, name);
	hmap_insert(&names, &n->node, h);
	return n->name;
}

int stacks_init(struct stack_table *t)
{
	memset(t, 0, sizeof(*t));
	return hmap_init(&t->map, 1024);
}

void stacks_free(struct stack_table *t)
{
	hmap_free_all(&t->map);
	free(t->sorted);
	memset(t, 0, sizeof(*t));
}

int stacks_add(struct stack_table *t, const struct stack_key *key, uint32_t key_bytes)
{
	return stacks_add_n(t, key, key_bytes, 1);
}

struct stack *stacks_find_add(struct stack_table *t, const struct stack_key *key,
			      uint32_t key_bytes, uint64_t count)
{
	struct probe pr = { key, key_bytes };
	uint64_t h = hash_bytes(key, key_bytes, 0);
	struct hmap_node *n = hmap_find(&t->map, h, stack_eq, &pr);
	struct stack *s;

	if (n) {
		s = (struct stack *)n;
		s->count = count_add(s->count, count);
		t->total = count_add(t->total, count);
		return s;
	}
	s = malloc(sizeof(*s) - sizeof(s->key) + key_bytes);
	if (!s)
		return NULL;
	t->total = count_add(t->total, count);
	s->count = count;
	s->objects = 0;
	s->key_bytes = key_bytes;
	memcpy(&s->key, key, key_bytes);
	hmap_insert(&t->map, &s->node, h);
	return s;
}

int stacks_add_n(struct stack_table *t, const struct stack_key *key, uint32_t key_bytes,
		 uint64_t count)
{
	return stacks_find_add(t, key, key_bytes, count) ? 0 : -ENOMEM;
}

void stack_add_objects(struct stack *s, uint64_t objects)
{
	s->objects = count_add(s->objects, objects);
}

void stacks_remove(struct stack_table *t, struct stack *s)
{
	t->total -= s->count;
	hmap_remove(&t->map, &s->node);
	free(s);
}

static int cmp_count(const void *a, const void *b)
{
	const struct stack *x = *(const struct stack *const *)a;
	const struct stack *y = *(const struct stack *const *)b;
	uint32_t n;
	int c;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	n = x->key_bytes < y->key_bytes ? x->key_bytes : y->key_bytes;
	c = memcmp(&x->key, &y->key, n);
	if (c)
		return c;
	return x->key_bytes < y->key_bytes ? -1 : x->key_bytes > y->key_bytes;
}

int stacks_sort(struct stack_table *t)
{
	struct hmap_node *n;
	size_t i, k = 0;

	free(t->sorted);
	t->sorted = malloc((t->map.count + 1) * sizeof(*t->sorted));
	if (!t->sorted)
		return -ENOMEM;
	hmap_for_each(&t->map, i, n)
		t->sorted[k++] = (struct stack *)n;
	t->nsorted = k;
	qsort(t->sorted, k, sizeof(*t->sorted), cmp_count);
	return 0;
}
