// SPDX-License-Identifier: GPL-2.0
/*
 * The agent's kernel stack maps, flipped at each period (counted_kstacks_flip):
 * the map emptied keeps the stacks that keys still name.  An off-CPU thread
 * blocked across periods has its key, and its stack's id, in offcpu_threads
 * until it runs again: emptied with the rest, its interval lost its kernel
 * frames (a 3.5 s sleep under 1 s periods).
 */
#include <stdint.h>
#include <stdlib.h>

#include <bpf/bpf.h>

#include "capture.skel.h"

#include "capture/offcpu.h"
#include "record/record_internal.h"
#include "util/bpf_keys.h"

struct kept {
	uint64_t *pairs;	/* kgen << 32 | id */
	size_t n, cap;
	const struct counted_fds *fds;
	uint32_t parity, next;
};

/* (kgen, id), if its map is the one emptied and it holds that stack now. */
static void keep(struct kept *k, int32_t id, uint32_t kgen)
{
	if ((kgen & 1) != k->parity || kgen == k->next || !counted_kstack_valid(k->fds, id, kgen))
		return;
	if (k->n == k->cap) {
		size_t cap = k->cap ? k->cap * 2 : 64;
		uint64_t *p = realloc(k->pairs, cap * sizeof(*p));

		if (!p)
			return;	/* its key gets no kernel frames: never another's */
		k->pairs = p;
		k->cap = cap;
	}
	k->pairs[k->n++] = (uint64_t)kgen << 32 | (uint32_t)id;
}

static int pair_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int id_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Every key that may name a stack: blocked threads' first, then the counts
 * and wakeups.  A thread that runs again has its key added to one of those
 * before it leaves offcpu_threads (offcpu_in): read in this order, no key
 * is missed while it moves.  No program stores a stack in the map emptied:
 * it took its last a period ago.
 */
static void keys_naming_stacks(struct recorder *r, struct kept *k)
{
	void *keys, *vals;
	size_t n, i;

	if (!bpf_map_entries(bpf_map__fd(r->skel->maps.offcpu_threads), sizeof(uint32_t),
			     sizeof(struct offcpu_thread), &keys, &vals, &n)) {
		const struct offcpu_thread *t = vals;

		for (i = 0; i < n; i++) {
			if (t[i].counted)
				keep(k, t[i].key.kstack_id, t[i].key.kgen);
			if (t[i].woken)
				keep(k, t[i].waker.kstack_id, t[i].waker.kgen);
		}
		free(keys);
		free(vals);
	}
	if (!bpf_map_entries(bpf_map__fd(r->skel->maps.kernel_counts), sizeof(struct counted_key),
			     sizeof(uint64_t), &keys, &vals, &n)) {
		const struct counted_key *c = keys;

		for (i = 0; i < n; i++)
			keep(k, c[i].kstack_id, c[i].kgen);
		free(keys);
		free(vals);
	}
	if (!bpf_map_entries(bpf_map__fd(r->skel->maps.offcpu_wakes),
			     sizeof(struct offcpu_wake_key), sizeof(uint64_t), &keys, &vals, &n)) {
		const struct offcpu_wake_key *w = keys;

		for (i = 0; i < n; i++) {
			keep(k, w[i].blocked.kstack_id, w[i].blocked.kgen);
			keep(k, w[i].waker.kstack_id, w[i].waker.kgen);
		}
		free(keys);
		free(vals);
	}
}

void kstacks_flip(struct recorder *r)
{
	struct counted_fds fds = counted_fds_of(r);
	struct kept k = { .fds = &fds };
	uint32_t *ids = NULL;
	size_t i, n = 0;

	k.next = r->skel->bss->counted_kgen + 1;
	k.parity = k.next & 1;
	keys_naming_stacks(r, &k);
	if (k.n) {
		qsort(k.pairs, k.n, sizeof(*k.pairs), pair_cmp);
		for (i = 0; i < k.n; i++)
			if (!n || k.pairs[i] != k.pairs[n - 1])
				k.pairs[n++] = k.pairs[i];
		k.n = n;
		ids = malloc(k.n * sizeof(*ids));
		for (i = 0; ids && i < k.n; i++)
			ids[i] = (uint32_t)k.pairs[i];
		if (ids)
			qsort(ids, k.n, sizeof(*ids), id_cmp);
		else
			k.n = 0;	/* none kept: their keys get no kernel frames */
	}
	counted_kstacks_flip(fds.kstacks, r->kstacks_gen, &r->skel->bss->counted_kgen, ids, k.n);
	free(ids);
	free(r->kstacks_kept[k.parity]);
	r->kstacks_kept[k.parity] = k.pairs;
	r->nkstacks_kept[k.parity] = k.n;
}
