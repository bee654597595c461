// SPDX-License-Identifier: GPL-2.0
/*
 * One round of debuginfod queries at once (debuginfod_batch.h).  The
 * threads only read the environment (libdebuginfod reads DEBUGINFOD_URLS
 * and the rest at each query); the caller changes it between rounds only.
 */
#include <errno.h>
#include <pthread.h>

#include "symbolize/debuginfod_batch.h"

static void *run_job(void *arg)
{
	struct di_job *job = arg;
	struct di_client *dc = di_client_open();

	if (!dc) {
		job->result = -ENOMEM;
		return NULL;
	}
	job->result = di_query_run(dc, job->kind, job->id, job->len, &job->q, &job->found);
	di_client_close(dc);
	return NULL;
}

void di_batch_run(struct di_job *jobs, size_t n, const struct di_query *tmpl)
{
	pthread_t tid[DI_BATCH_THREADS];
	bool started[DI_BATCH_THREADS];
	size_t i;

	if (n > DI_BATCH_THREADS)
		n = DI_BATCH_THREADS;
	for (i = 0; i < n; i++) {
		jobs[i].q = *tmpl;
		jobs[i].found = NULL;
		started[i] = pthread_create(&tid[i], NULL, run_job, &jobs[i]) == 0;
		if (!started[i])
			jobs[i].result = -ENOMEM;
	}
	for (i = 0; i < n; i++)
		if (started[i])
			pthread_join(tid[i], NULL);
}
