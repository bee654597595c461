// SPDX-License-Identifier: GPL-2.0
/*
 * The end of a record -e alloc --inuse: the blocks the kernel still holds
 * (capture/alloc_live.c), weighed onto the stacks that allocated them, and
 * what the figures leave out.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

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

/*
 * An agent's period (hooks->period): the blocks in use now onto the
 * period's stacks, the map read as the programs go on.  Every process
 * that exits takes its blocks (the agent outlives them), and forgets them.
 */
void inuse_period(struct recorder *r)
{
	struct alloc_inuse_totals t;
	struct alloc_live_end e = {
		.live_fd = bpf_map__fd(r->skel->maps.alloc_live),
		.gone_fd = bpf_map__fd(r->skel->maps.alloc_gone),
		.now_ns = mono_ns(),
		.min_age_ns = r->o->min_age_ns,
		.live = !r->inuse_stopped,
	};

	if (!r->alloc_live)
		return;
	if (alloc_live_report(r->alloc_live, &e, &r->stacks, &t)) {
		if (!r->inuse_oom_said)
			fprintf(stderr, "stitch: --inuse: out of memory naming the blocks held\n");
		r->inuse_oom_said = true;
	}
}

void inuse_read(struct recorder *r)
{
	struct alloc_inuse_totals *t = &r->inuse_totals;
	const struct target *tg = &r->o->target;
	uint32_t ending[MAX_PIDS];
	struct alloc_live_end e = {
		.live_fd = bpf_map__fd(r->skel->maps.alloc_live),
		.gone_fd = bpf_map__fd(r->skel->maps.alloc_gone),
		.now_ns = r->end_ns,
		.min_age_ns = r->o->min_age_ns,
		.ending = ending,
	};

	/* A run with periods reads them in its last one (inuse_period). */
	if (!r->alloc_live || (r->hooks && r->hooks->period))
		return;
	/* -a ends by time or a signal: every process's exit took its blocks. */
	if (tg->command && r->child > 0)
		ending[e.nending++] = (uint32_t)r->child;
	else if (!tg->all)
		while (e.nending < tg->npids) {
			ending[e.nending] = tg->pids[e.nending];
			e.nending++;
		}
	if (alloc_live_report(r->alloc_live, &e, &r->stacks, t))
		fprintf(stderr, "stitch record: --inuse: out of memory naming the blocks held\n");
	fprintf(stderr, "stitch record: --inuse: %" PRIu64 " sampled blocks still allocated, "
		"%.1f MiB\n", t->blocks, mib(t->bytes));
	if (t->gone_blocks)
		fprintf(stderr, "stitch record: --inuse: %" PRIu64 " more (%.1f MiB) left out: "
			"their processes exited or exec'd since\n", t->gone_blocks,
			mib(t->gone_bytes));
	if (t->young_blocks)
		fprintf(stderr, "stitch record: --inuse: %" PRIu64 " more (%.1f MiB) younger than "
			"--min-age left out\n", t->young_blocks, mib(t->young_bytes));
}

void inuse_report_losses(struct recorder *r, const uint64_t st[STAT_NR])
{
	const struct alloc_inuse_totals *t = &r->inuse_totals;

	if (!r->alloc_live)
		return;
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
