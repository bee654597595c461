// SPDX-License-Identifier: GPL-2.0
/* A waker's section of an off-CPU stack key: see offcpu_waker_frames.h. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>

#include "capture/offcpu_waker_frames.h"

size_t offcpu_waker_frames(const struct kunwind *kw, const struct counted_fds *fds,
			   const struct offcpu_waker *w, struct stack_key *sk, size_t kb,
			   struct counted_ustack *u)
{
	struct uframe *f = (struct uframe *)((char *)sk + kb);
	uint64_t kips[COUNTED_KSTACK_DEPTH];
	char who[64];
	int n = 0, i, nu, nk;

	if (counted_kstack_get(fds, w->kstack_id, w->kgen, kips) == 0) {
		for (i = 0; i < COUNTED_KSTACK_DEPTH && kips[i]; i++) {
			memset(&f[n], 0, sizeof(f[n]));
			f[n].kind = UFRAME_KERNEL;
			f[n++].addr = kips[i];
		}
	}
	nk = n;
	if (kw && w->uhash && counted_ustack_get(fds, w->uhash, u) == 0) {
		nu = kunwind_decode(kw, w->pid, (const uint64_t *)u->words, u->n, u->stop, f + n,
				    KUNWIND_MAX_FRAMES);
		if (nu > 0)
			n += nu;
	}
	/*
	 * Who, outermost: an interrupt has no thread.  One that stopped a
	 * thread looks like it, and only its kernel stack (the entry frame
	 * resolve.c cuts at) tells them apart.  Without that stack either
	 * may have been the waker: a CI run under ASan showed a nap's timer
	 * as "woken by kworker/1" with no kernel frame.
	 */
	if (w->pid && !nk)
		snprintf(who, sizeof(who), "[woken by %.16s tid %u or an interrupt]", w->comm,
			 w->tid);
	else if (w->pid)
		snprintf(who, sizeof(who), "[woken by %.16s tid %u]", w->comm, w->tid);
	else
		snprintf(who, sizeof(who), "[woken by an interrupt]");
	memset(&f[n], 0, sizeof(f[n]));
	f[n].kind = UFRAME_NAME;
	f[n++].addr = (uintptr_t)stacks_name(who);
	sk->nwaker = n;
	return kb + n * sizeof(struct uframe);
}
