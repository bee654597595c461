// SPDX-License-Identifier: GPL-2.0
/* Blocked stacks with their wakers: see offcpu_wakes.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "offcpu/offcpu.h"
#include "offcpu/offcpu_waker.h"
#include "offcpu/offcpu_wakes.h"
#include "util/bpf_keys.h"

/* A blocked stack's key, then its waker's frames. */
#define WAKE_KEY_BYTES (KUNWIND_KEY_BYTES + OFFCPU_WAKER_BYTES)

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
		stacks_add_n(s->stacks, sk,
			     offcpu_waker_frames(s->kw, &s->fds, &keys[i].waker, sk, kb, u), ns);
		total += ns;
	}
out:
	free(keys);
	free(sk);
	free(u);
	return err && !total ? err : total;
}
