// SPDX-License-Identifier: GPL-2.0
/*
 * What exited processes leave behind, freed as the recording goes on, so
 * that a whole-machine recording stays the same size however many
 * processes come and go: their models (procs_reap), their interpreter
 * state, the binaries nothing maps or names any more and the unwind
 * tables of those kept (binary_cache_sweep).  Measured over a make -j2
 * build with -a at 99 Hz, none of it was ever freed before: ~1,000
 * processes and ~300 binaries a minute.
 */
#include <malloc.h>

#include "record/record_internal.h"
#include "util/clock.h"

/*
 * How long what an exited process held is kept: its samples and walks in
 * the ring (read every 20 to 100 ms), and the kernel's counts naming its
 * binaries (an epoch is read a second or two after it ends), are all
 * named well within it.
 */
#define RECLAIM_GRACE_NS (10 * 1000000000ull)
/* Sweeps a second; a look at whether each known pid still exists every 10th. */
#define RECLAIM_EVERY_NS 1000000000ull
#define RECLAIM_ALIVE_EVERY 10
/*
 * Unwind tables of binaries no process maps, kept in case one maps them
 * again (a build's cc1, as, sh: rebuilding cc1's 478k rows takes ~0.1 s
 * of CPU each time): at most this many bytes, the least recently mapped
 * dropped first.
 */
#define RECLAIM_TABLE_BUDGET (8u << 20)

static void proc_gone(void *ctx, uint32_t pid)
{
	struct recorder *r = ctx;

	interp_proc_forget(&r->interp, pid);
}

static bool binary_release(void *ctx, struct binary *b)
{
	struct recorder *r = ctx;

	return !r->kw_ready || kunwind_release_binary(&r->kw, b);
}

void reclaim_exited(struct recorder *r, bool now)
{
	uint64_t t = mono_ns();

	if (!now && t - r->reclaim_last_ns < RECLAIM_EVERY_NS)
		return;
	r->reclaim_last_ns = t;
	r->reclaim_turns++;
	r->procs_reaped += procs_reap(&r->procs, t, RECLAIM_GRACE_NS,
				      r->reclaim_turns % RECLAIM_ALIVE_EVERY == 0, proc_gone, r);
	procs_mark_binaries(&r->procs, t);
	binary_cache_sweep(&r->bins, t, RECLAIM_GRACE_NS, RECLAIM_TABLE_BUDGET, binary_release, r);
	/*
	 * What was freed in the heap's middle goes back to the kernel too
	 * (a few ms when the heap is large): every 10th sweep.
	 */
	if (r->reclaim_turns % RECLAIM_ALIVE_EVERY == 0)
		malloc_trim(0);
}
