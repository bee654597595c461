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
 * named well within it.  Its binaries are mapped (procs_mark_binaries)
 * as long as it is kept; then a sweep or two more, for a binary opened
 * but never mapped (a file that was not the one the kernel reported).
 */
#define RECLAIM_GRACE_NS (5 * 1000000000ull)
#define RECLAIM_BINARY_GRACE_NS (2 * 1000000000ull)
/* Sweeps a second; a look at whether each known pid still exists every 10th. */
#define RECLAIM_EVERY_NS 1000000000ull
#define RECLAIM_ALIVE_EVERY 10
/*
 * Unwind tables of binaries no process maps, kept in case one maps them
 * again, at most this many bytes, the least recently mapped dropped first.
 * A build starts its compilers again and again: rebuilding cc1's table
 * (478k rows, 5.7 MB) takes 0.1 s of CPU, clang's libLLVM and
 * libclang-cpp (1.95M rows, 23 MB) 0.45 s, at every clang when they did
 * not fit in 8 MB.
 */
#define RECLAIM_TABLE_BUDGET (32u << 20)
/*
 * And at most this many such binaries, whatever their tables' size (their
 * files are closed: binary_cache_sweep), and the tables of
 * short-lived scripts' and tests' binaries are a few KB, so the budget
 * alone kept thousands of them (an agent over 2,700 distinct binaries
 * kept all).  What a build runs again and again is a few dozen.
 */
#define RECLAIM_TABLES_KEPT_MAX 256

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

void reclaim_exited(struct recorder *r, uint64_t read_ns)
{
	const uint64_t margin_ns = 10000000;
	uint64_t t = mono_ns();

	if (t - r->reclaim_last_ns < RECLAIM_EVERY_NS)
		return;
	r->reclaim_last_ns = t;
	/*
	 * The model moves on with the records that need it; counted in the
	 * kernel, a machine's stacks may send none for minutes, and the
	 * kernel's process records (exits included) queued up unapplied:
	 * apply them up to the moment before the ring was last read, less a
	 * margin for samples timed before it but written after, as
	 * watch_interpreters does.
	 */
	if (read_ns > margin_ns) {
		perf_tracker_drain(&r->ptrack);
		perf_tracker_apply(&r->ptrack, &r->procs, read_ns - margin_ns);
	}
	procs_open_alive(&r->procs);
	r->reclaim_turns++;
	r->procs_reaped += procs_reap(&r->procs, t, RECLAIM_GRACE_NS,
				      r->reclaim_turns % RECLAIM_ALIVE_EVERY == 0, proc_gone, r);
	procs_mark_binaries(&r->procs, t);
	binary_cache_sweep(&r->bins, t, RECLAIM_BINARY_GRACE_NS, RECLAIM_TABLE_BUDGET,
			   RECLAIM_TABLES_KEPT_MAX, binary_release, r);
	/*
	 * What was freed in the heap's middle goes back to the kernel too
	 * (a few ms when the heap is large): every 10th sweep.
	 */
	if (r->reclaim_turns % RECLAIM_ALIVE_EVERY == 0)
		malloc_trim(0);
}
