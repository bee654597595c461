// SPDX-License-Identifier: GPL-2.0
/* Off-CPU stacks waiting for their weight: see offcpu_pending.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "offcpu/offcpu_pending.h"

struct held {
	struct hmap_node node;
	uint32_t tid;
	uint32_t key_bytes;
	uint64_t time_ns;
	struct stack_key key;	/* variable length: must be last */
};

static bool held_eq(const struct hmap_node *n, const void *tid)
{
	return ((const struct held *)n)->tid == *(const uint32_t *)tid;
}

static struct held *held_of(struct offcpu_pending *t, uint32_t tid)
{
	return (struct held *)hmap_find(&t->by_tid, hash_u64(tid), held_eq, &tid);
}

int offcpu_pending_init(struct offcpu_pending *t)
{
	t->lost = 0;
	t->sink = NULL;
	t->sink_ctx = NULL;
	return hmap_init(&t->by_tid, 64);
}

void offcpu_pending_free(struct offcpu_pending *t)
{
	hmap_free_all(&t->by_tid);
}

int offcpu_hold(struct offcpu_pending *t, uint32_t tid, uint64_t time_ns,
		const struct stack_key *key, uint32_t key_bytes)
{
	struct held *h = held_of(t, tid);

	/* Its earlier interval's weight was lost: that stack goes uncounted. */
	if (h) {
		hmap_remove(&t->by_tid, &h->node);
		free(h);
		t->lost++;
	}
	h = malloc(sizeof(*h) - sizeof(h->key) + key_bytes);
	if (!h)
		return -ENOMEM;
	h->tid = tid;
	h->key_bytes = key_bytes;
	h->time_ns = time_ns;
	memcpy(&h->key, key, key_bytes);
	hmap_insert(&t->by_tid, &h->node, hash_u64(tid));
	return 0;
}

int offcpu_weigh(struct offcpu_pending *t, uint32_t tid, uint64_t ns, struct stack_table *stacks)
{
	struct held *h = held_of(t, tid);
	int rc = 0;

	if (!h) {
		t->lost++;
		return 0;
	}
	if (ns && t->sink)
		t->sink(t->sink_ctx, tid, h->time_ns, &h->key, h->key_bytes, ns);
	else if (ns)
		rc = stacks_add_n(stacks, &h->key, h->key_bytes, ns);
	hmap_remove(&t->by_tid, &h->node);
	free(h);
	return rc;
}
