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
	struct stack *stack;		/* in alloc_live.keys */
	uint64_t objects;		/* the allocations it stands for (alloc.h) */
	uint32_t seen;			/* the live map's read that last saw it (or its hold's) */
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
	alloc_unmaps_free(&t->unmaps);
}

/* A block lets go of its stack: gone with its last block (an agent's keys would grow for good). */
static void stack_unref(struct alloc_live *t, struct stack *s)
{
	if (--s->count == 0)
		stacks_remove(&t->keys, s);
}

int alloc_live_hold(struct alloc_live *t, uint64_t block, uint64_t objects,
		    const struct stack_key *key, uint32_t key_bytes)
{
	struct live_block *b = block_of(t, block);
	struct stack *s = stacks_find_add(&t->keys, key, key_bytes, 1);

	if (!s)
		return -ENOMEM;
	/* Numbers are unique per run: one seen twice is a replayed record, its last stack wins. */
	if (b) {
		stack_unref(t, b->stack);
		b->stack = s;
		b->objects = objects;
		return 0;
	}
	b = malloc(sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->block = block;
	b->stack = s;
	b->objects = objects;
	b->seen = t->reads;
	hmap_insert(&t->blocks, &b->node, hash_u64(block));
	return 0;
}

void alloc_live_freed(struct alloc_live *t, uint64_t block)
{
	struct live_block *b = block_of(t, block);

	if (b) {
		stack_unref(t, b->stack);
		hmap_remove(&t->blocks, &b->node);
		free(b);
	}
}

static bool is_ending(const struct alloc_live_end *e, uint32_t tgid)
{
	int i;

	for (i = 0; i < e->nending; i++)
		if (e->ending[i] == tgid)
			return true;
	return false;
}

/* The block (filed at time_ns) of process tgid went with the process's memory. */
static bool went_with_process(const struct alloc_live_end *e, uint32_t tgid, uint64_t time_ns)
{
	struct alloc_gone g;

	if (e->gone_fd < 0 || bpf_map_lookup_elem(e->gone_fd, &tgid, &g))
		return false;
	if (g.exec_ns > time_ns)
		return true;
	return g.exit_ns > time_ns && !is_ending(e, tgid);
}

/*
 * Block (k, v) is not in use any more (its process's memory went, or
 * munmap took all of it): counted in *blocks and *bytes unless an
 * allocator's own, and out of a live map for good.  0.
 */
static int block_went(struct alloc_live *t, const struct alloc_live_end *e,
		      const struct alloc_live_key *k, const struct alloc_live_block *v,
		      uint64_t *blocks, uint64_t *bytes, bool inner)
{
	if (!inner) {
		(*blocks)++;
		*bytes += v->bytes;
	}
	if (e->live) {
		bpf_map_delete_elem(e->live_fd, k);
		alloc_live_freed(t, v->block);
	}
	return 0;
}

/* One block of the kernel's (key k, value v) weighed, left out or forgotten.  0, or -ENOMEM. */
static int report_block(struct alloc_live *t, const struct alloc_live_end *e,
			const struct alloc_live_key *k, const struct alloc_live_block *v,
			struct stack_table *out, struct alloc_inuse_totals *tot)
{
	struct live_block *b = block_of(t, v->block);
	/* An allocator's own mmap or sbrk: its bytes are its malloc's, in no total. */
	bool inner = b && e->leaves && alloc_leaves_inner(e->leaves, &b->stack->key);
	uint64_t bytes = v->bytes, left;
	struct stack *s;

	if (went_with_process(e, k->tgid, v->time_ns))
		return block_went(t, e, k, v, &tot->gone_blocks, &tot->gone_bytes, inner);
	/*
	 * A mapping munmap took part of: what is left, its weight in
	 * proportion.  Its head cut, it is filed past it (v->head).
	 */
	if (v->mapped && t->unmaps.n && v->size &&
	    (left = alloc_unmaps_left(&t->unmaps, k->tgid, k->addr - v->head, v->size,
				      v->time_ns)) < v->size) {
		if (!left)
			return block_went(t, e, k, v, &tot->cut_blocks, &tot->cut_bytes, inner);
		bytes = (uint64_t)((double)v->bytes * left / v->size);
		if (!inner) {
			tot->cut_blocks++;
			tot->cut_bytes += v->bytes - bytes;
		}
	}
	if (v->mapped && v->time_ns < t->oldest_mapped_ns)
		t->oldest_mapped_ns = v->time_ns;
	if (inner) {
		b->seen = t->reads;
		return 0;
	}
	/* Filed after now (as the programs were detached): young, not negative. */
	if (v->time_ns > e->now_ns || e->now_ns - v->time_ns < e->min_age_ns) {
		tot->young_blocks++;
		tot->young_bytes += bytes;
		return 0;
	}
	if (!b) {
		/* Live, its stack may still be in the ring: named at the next period. */
		tot->unnamed_blocks++;
		tot->unnamed_bytes += bytes;
		return 0;
	}
	b->seen = t->reads;
	s = stacks_find_add(out, &b->stack->key, b->stack->key_bytes, bytes);
	if (!s)
		return -ENOMEM;
	stack_add_objects(s, b->objects);
	tot->blocks++;
	tot->bytes += bytes;
	return 0;
}

/* A map no program changes any more: key by key. */
static int report_still(struct alloc_live *t, const struct alloc_live_end *e,
			struct stack_table *out, struct alloc_inuse_totals *tot)
{
	struct alloc_live_key k, next;
	struct alloc_live_block v;
	void *prev = NULL;

	while (!bpf_map_get_next_key(e->live_fd, prev, &next)) {
		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(e->live_fd, &k, &v))
			continue;	/* gone between the two calls */
		if (report_block(t, e, &k, &v, out, tot))
			return -ENOMEM;
	}
	return 0;
}

/*
 * A live map: bucket by bucket (BPF_MAP_LOOKUP_BATCH, 5.6), where a
 * deleted key would send bpf_map_get_next_key back to the first.  A block
 * filed or freed meanwhile is seen or not, as at any other moment.
 */
#define REPORT_BATCH 1024

static int report_live(struct alloc_live *t, const struct alloc_live_end *e,
		       struct stack_table *out, struct alloc_inuse_totals *tot)
{
	struct alloc_live_key *keys = malloc(REPORT_BATCH * sizeof(*keys));
	struct alloc_live_block *vals = malloc(REPORT_BATCH * sizeof(*vals));
	__u32 batch_in, batch_out, i, n;
	bool first = true, last = false;
	int err = 0;

	if (!keys || !vals) {
		err = -ENOMEM;
		goto out;
	}
	while (!last && !err) {
		n = REPORT_BATCH;
		if (bpf_map_lookup_batch(e->live_fd, first ? NULL : &batch_in, &batch_out,
					 keys, vals, &n, NULL)) {
			if (errno != ENOENT) {
				err = -errno;
				break;
			}
			last = true;	/* with the last n */
		}
		for (i = 0; i < n && !err; i++)
			err = report_block(t, e, &keys[i], &vals[i], out, tot);
		batch_in = batch_out;
		first = false;
	}
out:
	free(keys);
	free(vals);
	return err;
}

/*
 * A live map's blocks that two reads in a row did not see: their numbers
 * came with their samples, but the kernel never filed them (its map full,
 * a return probe missed) or let them go unsaid (a free record lost to a
 * full ring).  An agent would keep them for good.  Two reads: a block
 * held just before one may be filed just after it.
 */
static void sweep_unseen(struct alloc_live *t)
{
	struct live_block **gone = NULL, **more;
	struct hmap_node *n;
	size_t i, ngone = 0, cap = 0;

	hmap_for_each(&t->blocks, i, n) {
		struct live_block *b = (struct live_block *)n;

		if (t->reads - b->seen < 3)
			continue;
		if (ngone == cap) {
			cap = cap ? cap * 2 : 64;
			more = realloc(gone, cap * sizeof(*gone));
			if (!more)
				break;		/* the rest at the next read */
			gone = more;
		}
		gone[ngone++] = b;
	}
	for (i = 0; i < ngone; i++)
		alloc_live_freed(t, gone[i]->block);
	free(gone);
}

int alloc_live_report(struct alloc_live *t, const struct alloc_live_end *e,
		      struct stack_table *out, struct alloc_inuse_totals *tot)
{
	int err;

	memset(tot, 0, sizeof(*tot));
	if (!e->live)
		return report_still(t, e, out, tot);
	t->oldest_mapped_ns = e->now_ns;
	err = report_live(t, e, out, tot);
	t->reads++;
	if (!err) {
		sweep_unseen(t);
		/*
		 * An unmap cuts only mappings filed before it: those older than
		 * every mapping still held (and than this read) cut nothing more.
		 */
		alloc_unmaps_prune(&t->unmaps, t->oldest_mapped_ns);
	}
	return err;
}
