/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One --push target's queue and the thread that empties it, so that a slow
 * or absent server never holds up the recording's loop.  Pushes go out in
 * order, each until the server takes it (2xx) or refuses it for good (a 4xx
 * other than 429: logged once per status, dropped): nothing lost, nothing
 * twice while the server answers.  A failure (refused connection, timeout,
 * 5xx, 429) is retried after a backoff (0.5 s doubling to 10 s, or the
 * server's Retry-After).  Unsent pushes wait in memory up to mem_max bytes,
 * then in the target's spool directory up to spool_max, the oldest dropped
 * first with a counted warning; at start, the spool's pushes go first, and
 * at the end what could not be sent in the time given is spooled.
 */
#ifndef STITCH_AGENT_PUSH_QUEUE_H
#define STITCH_AGENT_PUSH_QUEUE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/push_http.h"
#include "agent/spool.h"

struct push_item;

struct push_queue {
	struct push_conn conn;
	struct spool_dir spool;		/* fd -1: no spool, memory only */
	const char *what;		/* "pyroscope=http://..." for the log */
	size_t mem_max;
	uint64_t spool_max;

	pthread_t thread;
	bool started;
	pthread_mutex_t lock;
	pthread_cond_t cond;		/* new work, or stop */
	struct push_item *head, *tail;
	size_t mem_bytes;		/* bodies held in memory */
	uint64_t spool_bytes;		/* files in the spool directory */
	bool stopping;
	double deadline;		/* stopping: mono_s() to give up at */
	volatile int abort;		/* past the deadline: the transfer under way gives up */

	/* what happened, for the log and the tests */
	uint64_t sent, refused, dropped_mem, dropped_spool, spooled, failures;
	long refused_statuses[8];	/* each logged once */
	bool down;			/* the last try failed: said once until it passes */
	bool partial_said;		/* a partly refused push was said */
};

/*
 * Start q's thread for conn (taken over) and spool (taken over; fd -1 for
 * none): the pushes left in the spool first.  0, or -1 (said).
 */
int push_queue_start(struct push_queue *q, const char *what, struct push_conn *conn,
		     struct spool_dir *spool, size_t mem_max, uint64_t spool_max);

/* Queue one push (body copied): series number `series` of the period starting at start_ns. */
void push_queue_add(struct push_queue *q, uint64_t start_ns, uint32_t series, const uint8_t *body,
		    size_t len);

/*
 * Send what is queued for up to flush_s seconds (none if the server fails
 * meanwhile), spool the rest, stop the thread and free q.
 */
void push_queue_stop(struct push_queue *q, double flush_s);

#endif /* STITCH_AGENT_PUSH_QUEUE_H */
