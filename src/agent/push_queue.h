/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One --push target's queue and the thread that empties it, so that a slow
 * or absent server never holds up the recording's loop.  Pushes go out in
 * order, each until the server takes it (2xx) or refuses it for good (a 4xx
 * other than 429: logged once per status, dropped): nothing lost, nothing
 * twice while the server answers.  A failure (refused connection, timeout,
 * 5xx, 429) is retried after a backoff (0.5 s doubling to 10 s, or the
 * server's Retry-After).  A push waits in memory until its first try; once
 * a try fails, the pushes in memory and every new one go to the target's
 * spool directory at once (a kill loses none of them), up to spool_max,
 * the oldest dropped first (memory, up to mem_max, where there is no
 * spool).  Warnings are counted and said once a period at most.  At start
 * the spool's pushes go first; at the end what could not be sent by the
 * exit's deadline, shared by every target, is spooled.
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

enum queue_warn { WARN_SPOOL_FULL, WARN_MEM_FULL, WARN_SPOOL_WRITE, WARN_NR };

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
	volatile double abort_at;	/* stopping: the transfer under way gives up then */

	/* what happened, for the log and the tests */
	uint64_t sent, refused, dropped_mem, dropped_spool, spooled, failures;
	uint64_t spool_errors, lost_at_stop, oom_lost;
	double warn_every_s;		/* a warning's kind said once in this long */
	struct {
		double at;		/* mono_s() it was last said, 0: never */
		uint64_t unsaid;	/* its events since */
	} warn[WARN_NR];
	long refused_statuses[8];	/* each logged once */
	bool down;			/* the last try failed: said once until it passes */
	bool partial_said;		/* a partly refused push was said */
	bool gave_up;			/* a transfer under way was given up at the exit's deadline */
};

/*
 * Start q's thread for conn (taken over) and spool (taken over; fd -1 for
 * none): the pushes left in the spool first.  Warnings said once in
 * warn_every_s (the agent's period) at most.  0, or -1 (said).
 */
int push_queue_start(struct push_queue *q, const char *what, struct push_conn *conn,
		     struct spool_dir *spool, size_t mem_max, uint64_t spool_max,
		     double warn_every_s);

/* Queue one push (body copied): series number `series` of the period starting at start_ns. */
void push_queue_add(struct push_queue *q, uint64_t start_ns, uint32_t series, const uint8_t *body,
		    size_t len);

/*
 * Stop taking pushes: send what is queued until deadline (mono_s()), none
 * more once the server fails.  Every target's first, then each one's
 * push_queue_stop(): their deadlines run together.
 */
void push_queue_stop_begin(struct push_queue *q, double deadline);

/*
 * push_queue_stop_begin(), then wait for the thread until deadline (its
 * transfer under way given up there), spool the rest, free q.
 */
void push_queue_stop(struct push_queue *q, double deadline);

/* The pushes q lost: refused by the server, dropped over a bound, unsent with no spool. */
uint64_t push_queue_lost(const struct push_queue *q);

#endif /* STITCH_AGENT_PUSH_QUEUE_H */
