// SPDX-License-Identifier: GPL-2.0
/* Blocked stacks with their wakers: see offcpu_wake_counts.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "capture/offcpu.h"
#include "capture/offcpu_waker_frames.h"
#include "capture/offcpu_wake_counts.h"

/* A blocked stack's key, then its waker's frames. */
#define WAKE_KEY_BYTES (KUNWIND_KEY_BYTES + OFFCPU_WAKER_BYTES)

int64_t offcpu_read_wakes(int wakes_fd, int64_t epoch, const struct offcpu_sink *s)
{
	struct offcpu_wake_key *keys;
	struct counted_reading rd;
	int64_t total = 0;
	int err = 0, kb;
	uint64_t ns;
	size_t i;

	if (counted_reading_start(&rd, wakes_fd, sizeof(*keys), WAKE_KEY_BYTES, epoch))
		return -ENOMEM;
	keys = rd.keys;
	for (i = 0; i < rd.n; i++) {
		/* The blocked stack's key comes first, with its epoch. */
		if (!counted_take(&rd, i))
			continue;
		counted_done(&rd, i);
		ns = rd.counts[i];
		kb = kunwind_key_build(s->kw, &s->fds, &keys[i].blocked, rd.sk, rd.u, s->bytes);
		if (kb < 0) {
			err = kb;
			continue;
		}
		s->stops[rd.u->stop]++;
		stacks_add_n(s->stacks, rd.sk,
			     offcpu_waker_frames(s->kw, &s->fds, &keys[i].waker, rd.sk, kb, rd.u),
			     ns);
		total += ns;
	}
	counted_reading_end(&rd);
	return err && !total ? err : total;
}
