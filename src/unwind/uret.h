/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Return addresses a uretprobe hid: to probe a function's return, the
 * kernel replaces its return address on the user stack with the address of
 * its trampoline (the [uprobes] page) and keeps the real one.  The capture
 * brings the real ones with the stack copy (capture/uret.bpf.h); the
 * unwinder puts each back where it finds the trampoline in its slot, as the
 * in-kernel walk does, so the trampoline is never taken for a caller.
 */
#ifndef STITCH_UNWIND_URET_H
#define STITCH_UNWIND_URET_H

#include <stdbool.h>
#include <stdint.h>

struct unwind_uret {
	uint64_t slot;		/* stack address of the hijacked return address */
	uint64_t orig;		/* the return address that was there */
};

/* The hidden return addresses of one stack. */
struct unwind_urets {
	uint64_t tramp;			/* the trampoline's address; 0: none known */
	const struct unwind_uret *v;	/* innermost first; a slot's first one counts */
	int n;
};

/*
 * ra, read from stack address slot, as the caller really is: unchanged
 * unless it is the trampoline, else the return address hidden at that slot.
 * false if ra is the trampoline and no such address is known (the stack must
 * stop there: what lies above is not the trampoline's caller).
 */
bool unwind_uret_restore(const struct unwind_urets *u, uint64_t slot, uint64_t *ra);

#endif /* STITCH_UNWIND_URET_H */
