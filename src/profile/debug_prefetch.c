// SPDX-License-Identifier: GPL-2.0
/* The binaries of a table of stacks, their debug files fetched at once (debug_prefetch.h). */
#include <stdlib.h>
#include <string.h>

#include "profile/debug_prefetch.h"
#include "symbolize/debuginfod_fetch.h"
#include "util/hashmap.h"

struct seen_binary {
	struct hmap_node node;
	struct binary *bin;
};

struct wanted {
	struct hmap seen;
	uint8_t (*ids)[STITCH_BUILD_ID_MAX];
	size_t *lens;
	size_t n, cap;
};

static bool seen_eq(const struct hmap_node *n, const void *key)
{
	return ((const struct seen_binary *)n)->bin == *(struct binary *const *)key;
}

static void consider(struct wanted *w, struct binary *b)
{
	struct seen_binary *s;
	bool added;

	s = (struct seen_binary *)hmap_find_or_add(&w->seen, hash_u64((uintptr_t)b), seen_eq, &b,
						   sizeof(*s), &added);
	if (!s || !added)
		return;
	s->bin = b;
	if (!binary_wants_debuginfod(b))
		return;
	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 64;
		uint8_t (*ids)[STITCH_BUILD_ID_MAX] = realloc(w->ids, cap * sizeof(*ids));
		size_t *lens;

		if (!ids)
			return;
		w->ids = ids;
		lens = realloc(w->lens, cap * sizeof(*lens));
		if (!lens)
			return;
		w->lens = lens;
		w->cap = cap;
	}
	memcpy(w->ids[w->n], b->build_id, b->build_id_len);
	w->lens[w->n++] = b->build_id_len;
}

static void consider_frames(struct wanted *w, const struct uframe *u, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (u[i].kind == UFRAME_ELF && u[i].bin)
			consider(w, u[i].bin);
}

static void consider_key(struct wanted *w, const struct stack_key *k)
{
	consider_frames(w, stack_user(k), k->nuser);
	consider_frames(w, stack_waker(k), k->nwaker);
}

/* What was wanted, fetched at once; then w is freed. */
static void fetch_wanted(struct wanted *w)
{
	if (w->n)
		debuginfod_prefetch((const uint8_t (*)[STITCH_BUILD_ID_MAX])w->ids, w->lens, w->n);
	hmap_free_all(&w->seen);
	free(w->ids);
	free(w->lens);
}

void debug_prefetch_stacks(const struct stack_table *t)
{
	struct wanted w = { 0 };
	struct hmap_node *hn;
	size_t i;

	if (!debuginfod_enabled() || hmap_init(&w.seen, 64) != 0)
		return;
	hmap_for_each(&t->map, i, hn)
		consider_key(&w, &((const struct stack *)hn)->key);
	fetch_wanted(&w);
}

void debug_prefetch_keys(const struct stack_key *const *keys, size_t n)
{
	struct wanted w = { 0 };
	size_t i;

	if (!debuginfod_enabled() || hmap_init(&w.seen, 64) != 0)
		return;
	for (i = 0; i < n; i++)
		if (keys[i])
			consider_key(&w, keys[i]);
	fetch_wanted(&w);
}
