/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One debuginfod query on one libdebuginfod client, for debuginfod_fetch.c
 * (one at a time) and debuginfod_batch.c (one client per thread: a
 * libdebuginfod client is not to be shared between threads).
 *
 * A query asks every server of DEBUGINFOD_URLS at once (libdebuginfod's
 * own parallel query, which takes the first server to answer).  It is not
 * given one server at a time: a "not found" from one server leaves an empty
 * file in the cache that answers "not found" for ten minutes without asking
 * the next server (measured: a server without the files before one with
 * them named 0 of 962 samples when asked in turn).
 */
#ifndef STITCH_DEBUGINFOD_QUERY_H
#define STITCH_DEBUGINFOD_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbolize/debuginfod_fetch.h"

enum di_kind { DI_DEBUGINFO, DI_EXECUTABLE };

struct di_client;

struct di_query {
	/* set by the caller */
	double deadline;	/* past it only a transfer still moving goes on */
	double hard_deadline;	/* past it nothing goes on */
	long timeout_s;		/* a server silent this long has timed out */
	/* the servers asked (DEBUGINFOD_URLS as set): for di_blame() */
	const char (*urls)[DEBUGINFOD_URL_MAX];
	unsigned int asked;	/* bit i: urls[i] is in DEBUGINFOD_URLS */
	/* state of the query, then its outcome */
	double last_progress;
	long bytes;
	bool cut;		/* stopped by us (libdebuginfod then says ENOENT) */
	bool budget_cut;	/* by the deadlines */
	unsigned int failed;	/* bit i: urls[i] timed out or could not be reached */
};

struct di_client *di_client_open(void);
void di_client_close(struct di_client *dc);

/*
 * Ask for the file of kind for build-id id: 0 with *found (malloc'd path in
 * the cache), -ENOENT (no server has it), or another -errno (-ETIME: cut or
 * timed out; a server failed).  q's outcome fields are filled in.
 */
int di_query_run(struct di_client *dc, enum di_kind kind, const uint8_t *id, size_t len,
		 struct di_query *q, char **found);

/*
 * Which servers failed a query, from libdebuginfod's verbose lines (text,
 * len bytes): a server whose handle ended in a transport error (timeout,
 * refused, unreachable), or, when the query was cut while no byte had come
 * (stalled), one that had not answered at all.  Bit i for urls[i], among
 * asked.  Lines that are not as elfutils 0.188 writes them blame nobody.
 */
unsigned int di_blame(const char *text, size_t len, const char (*urls)[DEBUGINFOD_URL_MAX],
		      unsigned int asked, bool stalled);

#endif /* STITCH_DEBUGINFOD_QUERY_H */
