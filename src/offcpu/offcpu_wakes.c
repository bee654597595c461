// SPDX-License-Identifier: GPL-2.0
/* Blocked stacks with their wakers: see offcpu_wakes.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "offcpu/offcpu.h"
#include "offcpu/offcpu_wakes.h"
#include "util/bpf_keys.h"

/* A blocked stack's key, then its waker's frames: innermost first, then who. */
#define WAKER_MAX_FRAMES (KAGG_KSTACK_DEPTH + KUNWIND_MAX_FRAMES + 2)
#define WAKE_KEY_BYTES (KUNWIND_KEY_BYTES + WAKER_MAX_FRAMES * sizeof(struct uframe))

/* The waker's section after the blocked stack in sk; the key's new size. */
static size_t add_waker(const struct offcpu_sink *s, const struct offcpu_waker *w,
			struct stack_key *sk, size_t kb, struct kagg_ustack *u)
{
	struct uframe *f = (struct uframe *)((char *)sk + kb);
	uint64_t kips[KAGG_KSTACK_DEPTH];
	char who[64];
	int n = 0, i, nu;

	if (w->kstack_id >= 0 && bpf_map_lookup_elem(s->fds.kstacks, &w->kstack_id, kips) == 0) {
		for (i = 0; i < KAGG_KSTACK_DEPTH && kips[i]; i++) {
			memset(&f[n], 0, sizeof(f[n]));
			f[n].kind = UFRAME_KERNEL;
			f[n++].addr = kips[i];
		}
	}
	if (w->uhash && kagg_ustack_get(&s->fds, w->uhash, u) == 0) {
		nu = kunwind_decode(s->kw, (const uint64_t *)u->words, u->n, u->stop, f + n);
		if (nu > 0)
			n += nu;
	}
	/* Who, outermost: an interrupt has no thread. */
	if (w->pid)
		snprintf(who, sizeof(who), "[woken by %.16s tid %u]", w->comm, w->tid);
	else
		snprintf(who, sizeof(who), "[woken by an interrupt]");
	memset(&f[n], 0, sizeof(f[n]));
	f[n].kind = UFRAME_NAME;
	f[n++].addr = (uintptr_t)stacks_name(who);
	sk->nwaker = n;
	return kb + n * sizeof(struct uframe);
}

int64_t offcpu_read_wakes(int wakes_fd, int64_t epoch, const struct offcpu_sink *s)
{
	struct stack_key *sk = malloc(WAKE_KEY_BYTES);
	struct kagg_ustack *u = malloc(sizeof(*u));
	struct offcpu_wake_key *keys = NULL;
	size_t nkeys = 0, i;
	int64_t total = 0;
	uint64_t ns;
	int err = 0, kb;

	if (sk && u)
		keys = bpf_map_keys(wakes_fd, sizeof(*keys), &nkeys);
	if (!keys) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nkeys; i++) {
		/* The blocked stack's key comes first, with its epoch. */
		if (!kagg_take(wakes_fd, &keys[i], epoch, &ns))
			continue;
		kb = kunwind_key_build(s->kw, &s->fds, &keys[i].blocked, sk, u, s->bytes);
		if (kb < 0) {
			err = kb;
			continue;
		}
		s->stops[u->stop]++;
		stacks_add_n(s->stacks, sk, add_waker(s, &keys[i].waker, sk, kb, u), ns);
		total += ns;
	}
out:
	free(keys);
	free(sk);
	free(u);
	return err && !total ? err : total;
}
