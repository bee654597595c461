// SPDX-License-Identifier: GPL-2.0
/* A copied user stack into counted frames: see copy_unwind.h. */
#include <string.h>

#include "profile/copy_unwind.h"

struct lookup_ctx {
	struct binary_cache *bins;
	struct proc *proc;
};

static const struct unwind_table *lookup_table(void *ctx, uint64_t pc, uint64_t *bias)
{
	struct lookup_ctx *l = ctx;
	const struct map *m = proc_find_map(l->proc, pc);

	if (!m)
		return NULL;
	if (!m->bin)
		return m->anon ? &unwind_table_jit : NULL;
	*bias = m->bias;
	return binary_table(l->bins, m->bin);
}

int copy_unwind(struct binary_cache *bins, struct proc *proc, const struct unwind_regs *regs,
		const struct unwind_stack *stack, struct unwind_frame *scratch, int max,
		struct uframe *uf, enum unwind_stop *why)
{
	struct lookup_ctx lc = { bins, proc };
	int n, i, nu = 0;

	*why = UNWIND_STOP_END;
	n = unwind_user(regs, stack, lookup_table, &lc, scratch, max, why);
	for (i = 0; i < n; i++) {
		const struct map *m = proc_find_map(proc, scratch[i].pc);

		/*
		 * A return address in [uprobes] is a uretprobe's trampoline
		 * the capture brought no real address for (a stack copied
		 * without them): no caller, so the stack is cut here.
		 */
		if (m && m->uprobes && !scratch[i].exact) {
			if (*why == UNWIND_STOP_END)
				*why = UNWIND_STOP_NO_MODULE;
			break;
		}

		memset(&uf[nu], 0, sizeof(uf[nu]));
		uf[nu].exact = scratch[i].exact;
		uf[nu].by_fp = scratch[i].by_fp;
		if (m && m->bin) {
			uf[nu].kind = UFRAME_ELF;
			uf[nu].bin = m->bin;
			uf[nu].addr = scratch[i].pc - m->bias;
		} else {
			uf[nu].kind = UFRAME_UNKNOWN;
			uf[nu].addr = scratch[i].pc;
		}
		nu++;
	}
	/* Say how it ended, unless it visibly ends in an unknown frame already. */
	if (*why != UNWIND_STOP_END && !(nu && uf[nu - 1].kind == UFRAME_UNKNOWN)) {
		memset(&uf[nu], 0, sizeof(uf[nu]));
		uf[nu].kind = *why == UNWIND_STOP_TRUNCATED ? UFRAME_TRUNCATED : UFRAME_CUT;
		nu++;
	}
	return nu;
}
