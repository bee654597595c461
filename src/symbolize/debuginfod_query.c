// SPDX-License-Identifier: GPL-2.0
/*
 * One query on one libdebuginfod client (see debuginfod_query.h), cut by
 * its progress callback: libdebuginfod calls it about once a second while
 * it waits, and after every chunk of a transfer.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <elfutils/debuginfod.h>

#include "symbolize/debuginfod_query.h"
#include "util/clock.h"

/* Verbose lines read back for di_blame(); a query writes ~1 KiB per server. */
#define VERBOSE_MAX (64 * 1024)

struct di_client {
	debuginfod_client *client;
	int verbose_fd;		/* a memfd, rewound before each query */
	char *verbose;		/* VERBOSE_MAX bytes */
};

static int on_progress(debuginfod_client *c, long a, long b)
{
	struct di_query *q = debuginfod_get_user_data(c);
	double now = mono_s();

	/*
	 * Until a server answers, libdebuginfod passes its loop count (one a
	 * second), not bytes, and b == 0; b is the file's size once it does.
	 */
	if (b > 0 && a > q->bytes) {
		q->bytes = a;
		q->last_progress = now;
	}
	/* Silent for the timeout: no server is answering. */
	if (now - q->last_progress >= (double)q->timeout_s)
		q->cut = true;
	/* Past the deadline only a transfer still moving may go on, for a while. */
	if ((now >= q->deadline && now - q->last_progress >= 1.0) || now >= q->hard_deadline)
		q->cut = q->budget_cut = true;
	return q->cut;
}

struct di_client *di_client_open(void)
{
	struct di_client *dc = calloc(1, sizeof(*dc));

	if (!dc)
		return NULL;
	dc->verbose_fd = memfd_create("stitch-debuginfod", MFD_CLOEXEC);
	dc->verbose = malloc(VERBOSE_MAX);
	dc->client = debuginfod_begin();
	if (!dc->client || !dc->verbose) {
		di_client_close(dc);
		return NULL;
	}
	debuginfod_set_progressfn(dc->client, on_progress);
	/* No fd: nothing to blame servers by, the budget still bounds them. */
	if (dc->verbose_fd >= 0)
		debuginfod_set_verbose_fd(dc->client, dc->verbose_fd);
	return dc;
}

void di_client_close(struct di_client *dc)
{
	if (!dc)
		return;
	if (dc->client)
		debuginfod_end(dc->client);
	if (dc->verbose_fd >= 0)
		close(dc->verbose_fd);
	free(dc->verbose);
	free(dc);
}

static void blame_servers(struct di_client *dc, struct di_query *q)
{
	ssize_t n;

	if (dc->verbose_fd < 0)
		return;
	n = pread(dc->verbose_fd, dc->verbose, VERBOSE_MAX, 0);
	if (n > 0)
		q->failed = di_blame(dc->verbose, (size_t)n, q->urls, q->asked,
				     q->cut && q->bytes == 0);
}

int di_query_run(struct di_client *dc, enum di_kind kind, const uint8_t *id, size_t len,
		 struct di_query *q, char **found)
{
	int fd;

	*found = NULL;
	q->bytes = 0;
	q->cut = q->budget_cut = false;
	q->failed = 0;
	q->last_progress = mono_s();
	if (dc->verbose_fd >= 0 &&
	    (ftruncate(dc->verbose_fd, 0) != 0 || lseek(dc->verbose_fd, 0, SEEK_SET) != 0))
		return -EIO;
	debuginfod_set_user_data(dc->client, q);
	if (kind == DI_EXECUTABLE)
		fd = debuginfod_find_executable(dc->client, id, (int)len, found);
	else
		fd = debuginfod_find_debuginfo(dc->client, id, (int)len, found);
	debuginfod_set_user_data(dc->client, NULL);
	if (fd < 0 && q->cut)
		fd = -ETIME;
	/* Even a file found or a "not found" may have had a server fail beside it. */
	blame_servers(dc, q);
	if (fd < 0) {
		free(*found);
		*found = NULL;
		return fd;
	}
	close(fd);
	return 0;
}
