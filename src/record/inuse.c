// SPDX-License-Identifier: GPL-2.0
/*
 * The end of a record -e alloc --inuse: the blocks the kernel still holds
 * (capture/alloc_live.c), weighed onto the stacks that allocated them, and
 * what the figures leave out.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "capture.skel.h"
#include "capture/alloc.h"
#include "capture/alloc_inuse.h"
#include "record/record_internal.h"
#include "util/clock.h"

int inuse_open(struct recorder *r)
{
	if (!r->o->inuse)
		return 0;
	r->alloc_live = malloc(sizeof(*r->alloc_live));
	if (!r->alloc_live || alloc_live_init(r->alloc_live)) {
		free(r->alloc_live);
		r->alloc_live = NULL;
		return -1;
	}
	return 0;
}

void inuse_close(struct recorder *r)
{
	if (!r->alloc_live)
		return;
	alloc_live_free(r->alloc_live);
	free(r->alloc_live);
	r->alloc_live = NULL;
}

void inuse_stop(struct recorder *r)
{
	r->end_ns = mono_ns();
	if (r->alloc_live) {
		__atomic_store_n(&r->skel->bss->alloc_stopped, true, __ATOMIC_SEQ_CST);
		r->inuse_stopped = true;
	}
}

static double mib(uint64_t bytes)
{
	return bytes / (1024.0 * 1024);
}

/* What a read of the kernel's blocks at now_ns needs, no process's exit kept. */
static void inuse_end_of(struct recorder *r, uint64_t now_ns, struct alloc_live_end *e)
{
	memset(e, 0, sizeof(*e));
	e->live_fd = bpf_map__fd(r->skel->maps.alloc_live);
	e->gone_fd = bpf_map__fd(r->skel->maps.alloc_gone);
	e->now_ns = now_ns;
	e->min_age_ns = r->o->min_age_ns;
	e->leaves = &r->att.alloc_leaves;
}

/*
 * An agent's period (hooks->period): the blocks in use now onto the
 * period's stacks, the map read as the programs go on.  Every process
 * that exits takes its blocks (the agent outlives them), and forgets them.
 */
void inuse_period(struct recorder *r)
{
	struct alloc_inuse_totals t;
	struct alloc_live_end e;
	int err;

	if (!r->alloc_live)
		return;
	inuse_end_of(r, r->inuse_stopped ? r->end_ns : mono_ns(), &e);
	e.live = !r->inuse_stopped;
	err = alloc_live_report(r->alloc_live, &e, &r->stacks, &t);
	if (err && !r->inuse_error_said) {
		fprintf(stderr, "stitch: --inuse: cannot read the blocks held: %s (said once)\n",
			strerror(-err));
		r->inuse_error_said = true;
	}
}

void inuse_read(struct recorder *r)
{
	struct alloc_inuse_totals *t = &r->inuse_totals;
	const struct target *tg = &r->o->target;
	uint32_t child = (uint32_t)r->child;
	struct alloc_live_end e;
	int err;

	/* A run with periods reads them in its last one (inuse_period). */
	if (!r->alloc_live || (r->hooks && r->hooks->period))
		return;
	inuse_end_of(r, r->end_ns, &e);
	/* -a ends by time or a signal: every process's exit took its blocks. */
	if (tg->command && r->child > 0) {
		e.ending = &child;
		e.nending = 1;
	} else if (!tg->all) {
		e.ending = tg->pids;
		e.nending = tg->npids;
	}
	err = alloc_live_report(r->alloc_live, &e, &r->stacks, t);
	if (err)
		fprintf(stderr, "stitch record: --inuse: cannot read the blocks held: %s\n",
			strerror(-err));
	fprintf(stderr, "stitch record: --inuse: %" PRIu64 " sampled blocks still allocated, "
		"%.1f MiB\n", t->blocks, mib(t->bytes));
	if (t->gone_blocks)
		fprintf(stderr, "stitch record: --inuse: %" PRIu64 " more (%.1f MiB) left out: "
			"their processes exited or exec'd since\n", t->gone_blocks,
			mib(t->gone_bytes));
	if (t->cut_blocks)
		fprintf(stderr, "stitch record: --inuse: %" PRIu64 " mappings cut by munmap since "
			"they were made: %.1f MiB of them left out\n", t->cut_blocks,
			mib(t->cut_bytes));
	if (t->young_blocks)
		fprintf(stderr, "stitch record: --inuse: %" PRIu64 " more (%.1f MiB) younger than "
			"--min-age left out\n", t->young_blocks, mib(t->young_bytes));
}

void inuse_report_losses(struct recorder *r, const uint64_t st[STAT_NR])
{
	const struct alloc_inuse_totals *t = &r->inuse_totals;

	if (!r->alloc_live)
		return;
	if (st[STAT_UNMAPS_LOST] + r->alloc_live->unmaps.dropped)
		fprintf(stderr, "stitch: --inuse: %" PRIu64 " munmaps of parts of mappings were not "
			"followed (a full ring, or more than %d at once): mappings they cut may be "
			"counted whole\n", st[STAT_UNMAPS_LOST] + r->alloc_live->unmaps.dropped,
			ALLOC_UNMAPS_MAX);
	if (!t->unnamed_blocks && !st[STAT_INUSE_LOST] && !st[STAT_ALLOC_LOST] &&
	    !st[STAT_RINGBUF_LOST])
		return;
	fprintf(stderr, "stitch: --inuse: the bytes in use are a lower bound: ");
	if (st[STAT_INUSE_LOST])
		fprintf(stderr, "%" PRIu64 " sampled blocks were not tracked (more than %u held "
			"at once, or %u threads allocating); ", st[STAT_INUSE_LOST],
			ALLOC_LIVE_MAX, ALLOC_MAX_THREADS);
	if (t->unnamed_blocks)
		fprintf(stderr, "%" PRIu64 " blocks held (%.1f MiB) lost their stack; ",
			t->unnamed_blocks, mib(t->unnamed_bytes));
	fprintf(stderr, "a higher --alloc-sample keeps fewer\n");
}
