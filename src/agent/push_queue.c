// SPDX-License-Identifier: GPL-2.0
/* A --push target's queue and sending thread (push_queue.h). */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/push_queue.h"
#include "util/clock.h"

#define BACKOFF_MIN_S 0.5
#define BACKOFF_MAX_S 10.0

struct push_item {
	struct push_item *next;
	char name[SPOOL_NAME_LEN];	/* its spool file's name, whether written or not */
	uint8_t *body;			/* NULL: in the spool as name */
	size_t len;
	bool busy;			/* being sent: neither dropped nor spooled meanwhile */
};

static void item_free(struct push_item *it)
{
	free(it->body);
	free(it);
}

/* Unlink it from q (locked); its memory or spool bytes given back. */
static void unlink_item(struct push_queue *q, struct push_item *it)
{
	struct push_item **p;

	for (p = &q->head; *p && *p != it; p = &(*p)->next)
		;
	if (!*p)
		return;
	*p = it->next;
	if (q->tail == it) {
		struct push_item *t;

		for (t = q->head; t && t->next; t = t->next)
			;
		q->tail = t;
	}
	if (it->body)
		q->mem_bytes -= it->len;
	else
		q->spool_bytes -= it->len;
}

static void append(struct push_queue *q, struct push_item *it)
{
	it->next = NULL;
	if (q->tail)
		q->tail->next = it;
	else
		q->head = it;
	q->tail = it;
}

/* The oldest item held in memory (spooled: false), or on disk (true), not being sent. */
static struct push_item *oldest(struct push_queue *q, bool spooled)
{
	struct push_item *it;

	for (it = q->head; it; it = it->next)
		if (!it->busy && !it->body == spooled)
			return it;
	return NULL;
}

/*
 * Whether to say a warning of this kind now, n more of its events counted
 * (locked): once a period at most, with how many came since it was last
 * said (a server down with a small --spool-max was 1,221 lines in 25 s).
 */
static bool warn_now(struct push_queue *q, enum queue_warn kind, uint64_t n)
{
	double now = mono_s();

	q->warn[kind].unsaid += n;
	if (q->warn[kind].at > 0 && now - q->warn[kind].at < q->warn_every_s)
		return false;
	q->warn[kind].at = now;
	return true;
}

/* The count warn_now() said yes to, taken. */
static uint64_t warn_take(struct push_queue *q, enum queue_warn kind)
{
	uint64_t n = q->warn[kind].unsaid;

	q->warn[kind].unsaid = 0;
	return n;
}

/* Room for len more bytes in the spool, the oldest spooled pushes dropped (locked). */
static bool spool_room(struct push_queue *q, size_t len)
{
	uint64_t dropped = 0;
	struct push_item *it;

	while (q->spool_bytes + len > q->spool_max && (it = oldest(q, true))) {
		unlink_item(q, it);
		spool_remove(&q->spool, it->name);
		item_free(it);
		dropped++;
	}
	if (dropped) {
		q->dropped_spool += dropped;
		if (warn_now(q, WARN_SPOOL_FULL, dropped)) {
			dropped = warn_take(q, WARN_SPOOL_FULL);
			fprintf(stderr, "stitch agent: %s: spool over --spool-max: dropped the oldest "
				"%" PRIu64 " push%s (%" PRIu64 " so far; said once a period)\n",
				q->what, dropped, dropped > 1 ? "es" : "", q->dropped_spool);
		}
	}
	return q->spool_bytes + len <= q->spool_max;
}

/* it (in memory) to the spool: 0, or -1 (it stays in memory). */
static int spool_item(struct push_queue *q, struct push_item *it)
{
	int err;

	if (q->spool.fd < 0 || !spool_room(q, it->len))
		return -1;
	err = spool_write(&q->spool, it->name, it->body, it->len);
	if (err) {
		q->spool_errors++;
		if (warn_now(q, WARN_SPOOL_WRITE, 1))
			fprintf(stderr, "stitch agent: %s: cannot write to the spool %s: %s (%" PRIu64
				" time%s; said once a period)\n", q->what, q->spool.path,
				strerror(-err), warn_take(q, WARN_SPOOL_WRITE),
				q->spool_errors > 1 ? "s" : "");
		return -1;
	}
	q->mem_bytes -= it->len;
	q->spool_bytes += it->len;
	q->spooled++;
	free(it->body);
	it->body = NULL;
	return 0;
}

void push_queue_add(struct push_queue *q, uint64_t start_ns, uint32_t series, const uint8_t *body,
		    size_t len)
{
	struct push_item *it = calloc(1, sizeof(*it));
	uint64_t dropped = 0;

	if (!it || !(it->body = malloc(len ? len : 1))) {
		free(it);
		fprintf(stderr, "stitch agent: %s: out of memory: a push lost\n", q->what);
		pthread_mutex_lock(&q->lock);
		q->oom_lost++;
		pthread_mutex_unlock(&q->lock);
		return;
	}
	memcpy(it->body, body, len);
	it->len = len;
	spool_name(it->name, start_ns, series);
	pthread_mutex_lock(&q->lock);
	append(q, it);
	q->mem_bytes += len;
	/* Over the memory bound: the oldest in memory go to the spool, or are dropped. */
	while (q->mem_bytes > q->mem_max) {
		struct push_item *old = oldest(q, false);

		if (!old)
			break;
		if (!spool_item(q, old))
			continue;
		unlink_item(q, old);
		item_free(old);
		dropped++;
	}
	if (dropped) {
		q->dropped_mem += dropped;
		if (warn_now(q, WARN_MEM_FULL, dropped))
			fprintf(stderr, "stitch agent: %s: unsent pushes over the memory bound and "
				"no spool: dropped the oldest %" PRIu64 " (%" PRIu64 " so far; said "
				"once a period)\n", q->what, warn_take(q, WARN_MEM_FULL),
				q->dropped_mem);
	}
	/*
	 * The server failing, a new push goes to the spool at once: a kill
	 * (SIGKILL, the OOM killer, a crash) loses none of what was made.
	 */
	if (q->down && it->body && !it->busy)
		spool_item(q, it);
	pthread_cond_signal(&q->cond);
	pthread_mutex_unlock(&q->lock);
}

/* The pushes a previous run left in the spool, queued first. */
static void load_spool(struct push_queue *q)
{
	char (*names)[SPOOL_NAME_LEN];
	uint64_t *sizes;
	int n, i;

	if (q->spool.fd < 0)
		return;
	n = spool_list(&q->spool, &names, &sizes);
	for (i = 0; i < n; i++) {
		struct push_item *it = calloc(1, sizeof(*it));

		if (!it)
			break;
		memcpy(it->name, names[i], SPOOL_NAME_LEN);
		it->len = sizes[i];
		append(q, it);
		q->spool_bytes += it->len;
	}
	if (n > 0)
		fprintf(stderr, "stitch agent: %s: %d push%s left in the spool (%s) go first\n",
			q->what, n, n > 1 ? "es" : "", q->spool.path);
	if (n >= 0) {
		free(names);
		free(sizes);
	}
}

/* Wait (locked) until mono_s() reaches until, or a stop. */
static void wait_until(struct push_queue *q, double until)
{
	while (!q->stopping) {
		double now = mono_s();
		struct timespec ts;

		if (now >= until)
			return;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += (time_t)(until - now);
		ts.tv_nsec += (long)((until - now - (time_t)(until - now)) * 1e9);
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&q->cond, &q->lock, &ts);
	}
}

/* A refusal for good: its reason said the first time its status comes (locked). */
static void note_refused(struct push_queue *q, const struct push_answer *a)
{
	size_t i, n = sizeof(q->refused_statuses) / sizeof(q->refused_statuses[0]);

	q->refused++;
	for (i = 0; i < n && q->refused_statuses[i] && q->refused_statuses[i] != a->status; i++)
		;
	if (i < n && q->refused_statuses[i] == a->status)
		return;
	if (i < n)
		q->refused_statuses[i] = a->status;
	fprintf(stderr, "stitch agent: %s refused a push, dropped (this reason is said once): "
		"%s\n", q->what, a->reason);
}

/* One try at the head push; what to wait before the next (locked on entry and return). */
static double send_head(struct push_queue *q, double *backoff)
{
	struct push_item *it = q->head;
	struct push_answer a;
	uint8_t *body = it->body;
	size_t len = it->len;
	int rc = 0;

	it->busy = true;
	pthread_mutex_unlock(&q->lock);
	if (!body)
		rc = spool_read(&q->spool, it->name, &body, &len);
	if (rc) {
		/* A spooled push we cannot read back is none of ours to send. */
		a.outcome = PUSH_REFUSED;
		a.status = -1;
		snprintf(a.reason, sizeof(a.reason), "spooled push %.*s unreadable: %s",
			 SPOOL_NAME_LEN, it->name, strerror(-rc));
	} else {
		push_conn_send(&q->conn, body, len, &a);
	}
	if (body != it->body)
		free(body);
	pthread_mutex_lock(&q->lock);
	it->busy = false;
	if (a.outcome == PUSH_RETRY && q->stopping && mono_s() >= q->abort_at)
		q->gave_up = true;
	if (a.outcome == PUSH_RETRY) {
		double wait = a.retry_after_s > 0 ? a.retry_after_s : *backoff;
		struct push_item *m;

		q->failures++;
		if (!q->down)
			fprintf(stderr, "stitch agent: %s: %s; retrying (pushes wait in the spool)\n",
				q->what, a.reason);
		q->down = true;
		/* Failed once: what waits in memory goes to the spool now, the push tried first. */
		for (m = q->head; m; m = m->next)
			if (m->body && !m->busy)
				spool_item(q, m);
		*backoff = *backoff * 2 > BACKOFF_MAX_S ? BACKOFF_MAX_S : *backoff * 2;
		return wait;
	}
	if (q->down)
		fprintf(stderr, "stitch agent: %s: sending again\n", q->what);
	q->down = false;
	*backoff = BACKOFF_MIN_S;
	if (a.outcome == PUSH_SENT)
		q->sent++;
	else
		note_refused(q, &a);
	/* Taken, but part refused (OTLP's partial success): never sent again, said once. */
	if (a.outcome == PUSH_SENT && a.rejected && !q->partial_said) {
		q->partial_said = true;
		fprintf(stderr, "stitch agent: %s took a push but %s (said once)\n", q->what,
			a.reason);
	}
	unlink_item(q, it);
	if (!it->body)
		spool_remove(&q->spool, it->name);
	item_free(it);
	return 0;
}

static void *sender(void *arg)
{
	struct push_queue *q = arg;
	double backoff = BACKOFF_MIN_S;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		double wait;

		while (!q->head && !q->stopping)
			pthread_cond_wait(&q->cond, &q->lock);
		if (!q->head || (q->stopping && mono_s() >= q->deadline))
			break;
		wait = send_head(q, &backoff);
		/* Stopping, a failing server gets no more tries: the rest is spooled. */
		if (wait > 0 && q->stopping)
			break;
		if (wait > 0)
			wait_until(q, mono_s() + wait);
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

uint64_t push_queue_lost(const struct push_queue *q)
{
	return q->refused + q->dropped_mem + q->dropped_spool + q->lost_at_stop + q->oom_lost;
}

int push_queue_start(struct push_queue *q, const char *what, struct push_conn *conn,
		     struct spool_dir *spool, size_t mem_max, uint64_t spool_max, double warn_every_s)
{
	pthread_condattr_t ca;
	sigset_t all, old;
	int err;

	memset(q, 0, sizeof(*q));
	q->what = what;
	q->conn = *conn;
	q->conn.abort_at = &q->abort_at;
	q->spool = *spool;
	q->mem_max = mem_max;
	q->spool_max = spool_max;
	q->warn_every_s = warn_every_s;
	pthread_mutex_init(&q->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&q->cond, &ca);
	pthread_condattr_destroy(&ca);
	load_spool(q);
	/* Signals are the recording loop's to take (SIGTERM ends it), never the sender's. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&q->thread, NULL, sender, q);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		fprintf(stderr, "stitch agent: %s: cannot start its thread: %s\n", what,
			strerror(err));
		return -1;
	}
	q->started = true;
	return 0;
}

void push_queue_stop_begin(struct push_queue *q, double deadline)
{
	pthread_mutex_lock(&q->lock);
	if (!q->stopping) {
		q->stopping = true;
		q->deadline = deadline;
		q->abort_at = deadline;
	}
	pthread_cond_signal(&q->cond);
	pthread_mutex_unlock(&q->lock);
}

void push_queue_stop(struct push_queue *q, double deadline)
{
	struct push_item *it, *next;
	uint64_t lost = 0, kept = 0;

	push_queue_stop_begin(q, deadline);
	if (q->started) {
		/* A transfer gives up within a second of the deadline (curl's progress calls). */
		double left = deadline + 2 - mono_s();
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		if (left > 0) {
			ts.tv_sec += (time_t)left;
			ts.tv_nsec += (long)((left - (time_t)left) * 1e9);
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
		}
		if (pthread_timedjoin_np(q->thread, NULL, &ts)) {
			fprintf(stderr, "stitch agent: %s: its sending thread is late: waited for\n",
				q->what);
			pthread_join(q->thread, NULL);
		}
		/*
		 * At the deadline the transfer under way gave up, even with its
		 * body sent whole: the exit is bounded (~5 s, whatever the number
		 * of targets), and that push is spooled; if the server had stored
		 * it, the next start sends it a second time.
		 */
		if (q->gave_up)
			fprintf(stderr, "stitch agent: %s: a push still under way at the exit's "
				"deadline: given up and spooled (sent again at the next start, "
				"if the server had it)\n", q->what);
	}
	/*
	 * What is left in memory survives in the spool, for the next run,
	 * oldest first: making room drops older spooled pushes (never it,
	 * which is in memory), so the next one is read after.
	 */
	for (it = q->head; it; it = it->next)
		if (it->body && spool_item(q, it))
			lost++;
	for (it = q->head; it; it = next) {
		next = it->next;
		if (!it->body)
			kept++;
		item_free(it);
	}
	q->lost_at_stop = lost;
	if (lost)
		fprintf(stderr, "stitch agent: %s: %" PRIu64 " unsent push%s lost (no spool)\n",
			q->what, lost, lost > 1 ? "es" : "");
	if (q->dropped_spool + q->dropped_mem)
		fprintf(stderr, "stitch agent: %s: %" PRIu64 " push%s dropped, the oldest, over "
			"--spool-max or the memory bound\n", q->what, q->dropped_spool + q->dropped_mem,
			q->dropped_spool + q->dropped_mem > 1 ? "es" : "");
	if (kept)
		fprintf(stderr, "stitch agent: %s: %" PRIu64 " unsent push%s left in the spool %s "
			"for the next start\n", q->what, kept, kept > 1 ? "es" : "", q->spool.path);
	if (q->refused)
		fprintf(stderr, "stitch agent: %s: %" PRIu64 " push%s refused by the server and "
			"dropped\n", q->what, q->refused, q->refused > 1 ? "es" : "");
	q->head = q->tail = NULL;
	push_conn_close(&q->conn);
	spool_dir_close(&q->spool);
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->cond);
}
