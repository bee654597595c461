// SPDX-License-Identifier: GPL-2.0
/* The tracked blocks' stacks, and what is still in use at the end: see alloc_live.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "capture/alloc_inuse.h"
#include "capture/alloc_live.h"

struct live_block {
	struct hmap_node node;
	uint64_t block;
	const struct stack *stack;	/* in alloc_live.keys */
};

static bool block_eq(const struct hmap_node *n, const void *block)
{
	return ((const struct live_block *)n)->block == *(const uint64_t *)block;
}

static struct live_block *block_of(struct alloc_live *t, uint64_t block)
{
	return (struct live_block *)hmap_find(&t->blocks, hash_u64(block), block_eq, &block);
}

int alloc_live_init(struct alloc_live *t)
{
	memset(t, 0, sizeof(*t));
	if (hmap_init(&t->blocks, 1024))
		return -ENOMEM;
	if (stacks_init(&t->keys)) {
		hmap_free(&t->blocks);
		return -ENOMEM;
	}
	return 0;
}

void alloc_live_free(struct alloc_live *t)
{
	hmap_free_all(&t->blocks);
	stacks_free(&t->keys);
}

int alloc_live_hold(struct alloc_live *t, uint64_t block, const struct stack_key *key,
		    uint32_t key_bytes)
{
	struct live_block *b = block_of(t, block);
	const struct stack *s = stacks_find_add(&t->keys, key, key_bytes, 0);

	if (!s)
		return -ENOMEM;
	/* Numbers are unique per run: one seen twice is a replayed record, its last stack wins. */
	if (b) {
		b->stack = s;
		return 0;
	}
	b = malloc(sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->block = block;
	b->stack = s;
	hmap_insert(&t->blocks, &b->node, hash_u64(block));
	return 0;
}

void alloc_live_freed(struct alloc_live *t, uint64_t block)
{
	struct live_block *b = block_of(t, block);

	if (b) {
		hmap_remove(&t->blocks, &b->node);
		free(b);
	}
}

int alloc_live_report(struct alloc_live *t, int live_fd, uint64_t now_ns, uint64_t min_age_ns,
		      struct stack_table *out, struct alloc_inuse_totals *tot)
{
	struct alloc_live_key k, next;
	struct alloc_live_block v;
	struct live_block *b;
	void *prev = NULL;

	memset(tot, 0, sizeof(*tot));
	while (!bpf_map_get_next_key(live_fd, prev, &next)) {
		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(live_fd, &k, &v))
			continue;	/* gone between the two calls: the map is ours alone by now */
		/* Filed after now (as the programs were detached): young, not negative. */
		if (v.time_ns > now_ns || now_ns - v.time_ns < min_age_ns) {
			tot->young_blocks++;
			tot->young_bytes += v.bytes;
			continue;
		}
		b = block_of(t, v.block);
		if (!b) {
			tot->unnamed_blocks++;
			tot->unnamed_bytes += v.bytes;
			continue;
		}
		if (stacks_add_n(out, &b->stack->key, b->stack->key_bytes, v.bytes))
			return -ENOMEM;
		tot->blocks++;
		tot->bytes += v.bytes;
	}
	return 0;
}
