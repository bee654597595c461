/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A round of debuginfod queries run at once, one thread and one
 * libdebuginfod client each, for debuginfod_fetch.c's prefetch.
 */
#ifndef STITCH_DEBUGINFOD_BATCH_H
#define STITCH_DEBUGINFOD_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include "symbolize/debuginfod_query.h"
#include "util/elf_util.h"

/*
 * Queries of one round.  Each thread has its own client and connections:
 * 16 at once keep a slow server's latency paid ~once per 16 binaries, at
 * ~100 KiB of memory each while they run.
 */
#define DI_BATCH_THREADS 16

struct di_job {
	enum di_kind kind;
	uint8_t id[STITCH_BUILD_ID_MAX];
	size_t len;
	/* outcome */
	int result;		/* di_query_run()'s */
	char *found;		/* malloc'd path, with result 0 */
	struct di_query q;
};

/*
 * Run jobs[0..n) (n <= DI_BATCH_THREADS) at once, each with a copy of *tmpl
 * as its query; returns when all have ended.  A job whose thread or client
 * could not be made has result -ENOMEM.
 */
void di_batch_run(struct di_job *jobs, size_t n, const struct di_query *tmpl);

#endif /* STITCH_DEBUGINFOD_BATCH_H */
