// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "util/hashmap.h"

int hmap_init(struct hmap *m, size_t expected)
{
	size_t n = 16;

	while (n < expected)
		n <<= 1;
	m->buckets = calloc(n, sizeof(*m->buckets));
	if (!m->buckets)
		return -1;
	m->nbuckets = n;
	m->count = 0;
	return 0;
}

void hmap_free(struct hmap *m)
{
	free(m->buckets);
	m->buckets = NULL;
	m->nbuckets = m->count = 0;
}

void hmap_free_all(struct hmap *m)
{
	struct hmap_node *n, *next;
	size_t i;

	for (i = 0; i < m->nbuckets; i++) {
		for (n = m->buckets[i]; n; n = next) {
			next = n->next;
			free(n);
		}
	}
	hmap_free(m);
}

struct hmap_node *hmap_find(const struct hmap *m, uint64_t hash, hmap_eq_fn eq, const void *key)
{
	struct hmap_node *n;

	if (!m->nbuckets)
		return NULL;
	for (n = m->buckets[hash & (m->nbuckets - 1)]; n; n = n->next)
		if (n->hash == hash && eq(n, key))
			return n;
	return NULL;
}

struct hmap_node *hmap_find_or_add(struct hmap *m, uint64_t hash, hmap_eq_fn eq, const void *key,
				   size_t size, bool *added)
{
	struct hmap_node *n = hmap_find(m, hash, eq, key);

	*added = !n;
	if (n)
		return n;
	n = calloc(1, size);
	if (n)
		hmap_insert(m, n, hash);
	return n;
}

static void hmap_grow(struct hmap *m)
{
	size_t n = m->nbuckets * 2, i;
	struct hmap_node **b = calloc(n, sizeof(*b));

	if (!b)
		return;	/* keep working with longer chains */
	for (i = 0; i < m->nbuckets; i++) {
		struct hmap_node *node = m->buckets[i], *next;

		for (; node; node = next) {
			next = node->next;
			node->next = b[node->hash & (n - 1)];
			b[node->hash & (n - 1)] = node;
		}
	}
	free(m->buckets);
	m->buckets = b;
	m->nbuckets = n;
}

void hmap_insert(struct hmap *m, struct hmap_node *node, uint64_t hash)
{
	struct hmap_node **head;

	if (m->count >= m->nbuckets)
		hmap_grow(m);
	node->hash = hash;
	head = &m->buckets[hash & (m->nbuckets - 1)];
	node->next = *head;
	*head = node;
	m->count++;
}

void hmap_remove(struct hmap *m, struct hmap_node *node)
{
	struct hmap_node **p = &m->buckets[node->hash & (m->nbuckets - 1)];

	for (; *p; p = &(*p)->next) {
		if (*p == node) {
			*p = node->next;
			m->count--;
			return;
		}
	}
}

size_t hmap_remove_pid(struct hmap *m, size_t pid_off, uint32_t pid,
		       void (*release)(struct hmap_node *node))
{
	struct hmap_node **p, *n;
	size_t i, removed = 0;
	uint32_t v;

	for (i = 0; i < m->nbuckets; i++) {
		for (p = &m->buckets[i]; (n = *p) != NULL;) {
			memcpy(&v, (const char *)n + pid_off, sizeof(v));
			if (v != pid) {
				p = &n->next;
				continue;
			}
			*p = n->next;
			m->count--;
			removed++;
			if (release)
				release(n);
			else
				free(n);
		}
	}
	return removed;
}

/* 64-bit multiply-mix over 8-byte words; quality is plenty for table keys. */
uint64_t hash_bytes(const void *data, size_t len, uint64_t seed)
{
	const unsigned char *p = data;
	uint64_t h = seed ^ (len * 0x9e3779b97f4a7c15ULL), w;

	while (len >= 8) {
		memcpy(&w, p, 8);
		h = hash_u64(h ^ w);
		p += 8;
		len -= 8;
	}
	w = 0;
	memcpy(&w, p, len);
	return hash_u64(h ^ w ^ 0x5bd1e995);
}
