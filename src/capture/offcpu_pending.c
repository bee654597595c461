// SPDX-License-Identifier: GPL-2.0
/* Off-CPU stacks waiting for their weight: see offcpu_pending.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture/offcpu_pending.h"
#include "capture/offcpu_waker_frames.h"

struct held {
	struct hmap_node node;
	uint32_t tid;
	uint32_t key_bytes;
	uint64_t time_ns;
	bool woken;
	struct offcpu_waker waker;
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
	memset(t, 0, sizeof(*t));
	return hmap_init(&t->by_tid, 64);
}

void offcpu_pending_free(struct offcpu_pending *t)
{
	hmap_free_all(&t->by_tid);
	free(t->wake_key);
	free(t->wake_u);
	t->wake_key = NULL;
	t->wake_u = NULL;
}

int offcpu_hold(struct offcpu_pending *t, uint32_t tid, uint64_t time_ns,
		const struct stack_key *key, uint32_t key_bytes)
{
	struct held *h = held_of(t, tid);

	/* Its earlier interval's weight was lost: that stack goes uncounted. */
	if (h) {
		hmap_remove(&t->by_tid, &h->node);
		free(h);
		t->lost_weight++;
	}
	h = malloc(sizeof(*h) - sizeof(h->key) + key_bytes);
	if (!h)
		return -ENOMEM;
	h->tid = tid;
	h->key_bytes = key_bytes;
	h->time_ns = time_ns;
	h->woken = false;
	memcpy(&h->key, key, key_bytes);
	hmap_insert(&t->by_tid, &h->node, hash_u64(tid));
	return 0;
}

void offcpu_woken(struct offcpu_pending *t, uint32_t tid, const struct offcpu_waker *w)
{
	struct held *h = held_of(t, tid);

	if (h) {
		h->waker = *w;
		h->woken = true;
	}
}

/* h's key with its waker's section, in t's scratch: its size, or 0 if it cannot be built. */
static size_t key_with_waker(struct offcpu_pending *t, const struct held *h)
{
	/* No kernel unwinder (copying stacks): the waker's kernel frames, and who. */
	if (h->key.nwaker)
		return 0;
	if (!t->wake_key)
		t->wake_key = malloc(KUNWIND_KEY_BYTES + OFFCPU_WAKER_BYTES);
	if (!t->wake_u)
		t->wake_u = malloc(sizeof(*t->wake_u));
	if (!t->wake_key || !t->wake_u || h->key_bytes > KUNWIND_KEY_BYTES)
		return 0;
	memcpy(t->wake_key, &h->key, h->key_bytes);
	return offcpu_waker_frames(t->kw, &t->fds, &h->waker, t->wake_key, h->key_bytes, t->wake_u);
}

int offcpu_weigh(struct offcpu_pending *t, uint32_t tid, uint64_t ns, struct stack_table *stacks)
{
	struct held *h = held_of(t, tid);
	const struct stack_key *key;
	size_t kb = 0;
	int rc = 0;

	if (!h) {
		t->lost_stack++;
		return 0;
	}
	if (ns && h->woken)
		kb = key_with_waker(t, h);
	key = kb ? t->wake_key : &h->key;
	if (!kb)
		kb = h->key_bytes;
	if (ns && t->sink)
		t->sink(t->sink_ctx, tid, h->time_ns, key, kb, ns);
	else if (ns)
		rc = stacks_add_n(stacks, key, kb, ns);
	hmap_remove(&t->by_tid, &h->node);
	free(h);
	return rc;
}

const struct stack_key *offcpu_held(struct offcpu_pending *t, uint32_t tid, uint32_t *key_bytes)
{
	struct held *h = held_of(t, tid);

	if (!h) {
		t->lost_stack++;
		return NULL;
	}
	*key_bytes = h->key_bytes;
	return &h->key;
}

void offcpu_drop(struct offcpu_pending *t, uint32_t tid)
{
	struct held *h = held_of(t, tid);

	if (h) {
		hmap_remove(&t->by_tid, &h->node);
		free(h);
	}
}

void offcpu_pending_mark_sampled(struct offcpu_pending *t)
{
	struct hmap_node *n;
	size_t i;
	int j;

	hmap_for_each(&t->by_tid, i, n) {
		const struct held *h = (const struct held *)n;
		const struct uframe *uf = stack_user(&h->key);

		for (j = 0; j < h->key.nuser; j++)
			if (uf[j].bin)
				uf[j].bin->sampled = true;
	}
}
