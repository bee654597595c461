// SPDX-License-Identifier: GPL-2.0
/* Return addresses a uretprobe hid, put back: see uret.h. */
#include "unwind/uret.h"

bool unwind_uret_restore(const struct unwind_urets *u, uint64_t slot, uint64_t *ra)
{
	int i;

	if (!u->tramp || *ra != u->tramp)
		return true;
	/*
	 * A tail call from a probed function to another one probed keeps the
	 * slot: its instance comes first and already holds the real address
	 * (the kernel's prepare_uretprobe "chained").
	 */
	for (i = 0; i < u->n; i++) {
		if (u->v[i].slot != slot)
			continue;
		if (!u->v[i].orig || u->v[i].orig == u->tramp)
			return false;
		*ra = u->v[i].orig;
		return true;
	}
	return false;
}
