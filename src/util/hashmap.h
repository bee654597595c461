/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small intrusive chained hash table: callers embed struct hmap_node in
 * their own records and supply the hash and the equality test, so one table
 * serves processes, binaries and aggregated stacks without extra allocation.
 */
#ifndef STITCH_HASHMAP_H
#define STITCH_HASHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hmap_node {
	struct hmap_node *next;
	uint64_t hash;
};

struct hmap {
	struct hmap_node **buckets;
	size_t nbuckets;	/* power of two */
	size_t count;
};

typedef bool (*hmap_eq_fn)(const struct hmap_node *node, const void *key);

int hmap_init(struct hmap *m, size_t expected);
void hmap_free(struct hmap *m);	/* frees the table, not the records */
/* Frees the table and every record, for records allocated alone with malloc. */
void hmap_free_all(struct hmap *m);
struct hmap_node *hmap_find(const struct hmap *m, uint64_t hash, hmap_eq_fn eq, const void *key);
/* Insert without checking for duplicates; grows the table as needed. */
void hmap_insert(struct hmap *m, struct hmap_node *node, uint64_t hash);
/*
 * The record eq finds for key under hash, or else a new one of size bytes
 * (the node first, the rest zeroed: the caller fills in its key), inserted,
 * with *added set.  NULL if out of memory.  hmap_free_all frees it.
 */
struct hmap_node *hmap_find_or_add(struct hmap *m, uint64_t hash, hmap_eq_fn eq, const void *key,
				   size_t size, bool *added);
void hmap_remove(struct hmap *m, struct hmap_node *node);
/*
 * Unlink every record of pid (the uint32_t at pid_off in each record), then
 * free it, or hand it to release when not NULL.  Visits every bucket: for
 * the caches of an exited process, once per such process.  Returns how many.
 */
size_t hmap_remove_pid(struct hmap *m, size_t pid_off, uint32_t pid,
		       void (*release)(struct hmap_node *node));

/* Visit every node; the callback must not insert or remove. */
#define hmap_for_each(m, i, n) \
	for ((i) = 0; (i) < (m)->nbuckets; (i)++) \
		for ((n) = (m)->buckets[i]; (n); (n) = (n)->next)

uint64_t hash_bytes(const void *data, size_t len, uint64_t seed);
static inline uint64_t hash_u64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

#endif /* STITCH_HASHMAP_H */
