// SPDX-License-Identifier: GPL-2.0
/*
 * The debuginfod client (see debuginfod_fetch.h for the rules): settings,
 * the servers still in use, what each build-id came to, and the summary.
 * Queries are debuginfod_query.c's, rounds at once debuginfod_batch.c's.
 * libdebuginfod reads DEBUGINFOD_URLS and our cache path from the
 * environment at every query, so they are set here, between queries and
 * rounds, never while a query runs.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/debuginfod.h>

#include "symbolize/debuginfod_batch.h"
#include "symbolize/debuginfod_fetch.h"
#include "symbolize/debuginfod_query.h"
#include "util/cache_dir.h"
#include "util/clock.h"

enum { DI_UNTRIED, DI_READY, DI_OFF };

/*
 * What a build-id came to: not asked again within a budget, whatever the
 * answer; at a new budget (debuginfod_new_budget), a failure may be asked
 * again once past retry_at.
 */
struct outcome {
	enum di_kind kind;
	uint8_t id[STITCH_BUILD_ID_MAX];
	size_t len;
	int result;
	bool failed;		/* no answer in time, a server failed, or not asked */
	bool stale;		/* a failure past its retry_at: ask again */
	unsigned int tries;	/* queries that failed in a row */
	double at, retry_at;	/* mono_s() of the outcome; of the next try */
};

static struct {
	int state;
	struct di_client *client;	/* for one-by-one queries */
	char urls[DEBUGINFOD_MAX_SERVERS][DEBUGINFOD_URL_MAX];
	unsigned int dead;		/* bit i: urls[i] given up, until dead_until[i] */
	unsigned int ever_dead;		/* bit i: urls[i] given up at least once */
	double dead_until[DEBUGINFOD_MAX_SERVERS];
	unsigned int give_ups[DEBUGINFOD_MAX_SERVERS];	/* in a row, for the backoff */
	int nr_urls;
	long timeout_s;
	char cache[PATH_MAX];
	struct outcome *outcomes;
	size_t nr_outcomes, cap_outcomes;
	bool asked;			/* any query this run */
	double spent;			/* seconds of queries of the budget under way */
	bool spent_noted;		/* ... which stopped a query */
	struct debuginfod_stats st;
} di;

void debuginfod_disable(void)
{
	di.state = DI_OFF;
}

int debuginfod_split_urls(const char *env, char urls[][DEBUGINFOD_URL_MAX], int max)
{
	const char *p = env;
	int n = 0;

	while (p && *p && n < max) {
		size_t len;

		while (*p && isspace((unsigned char)*p))
			p++;
		len = 0;
		while (p[len] && !isspace((unsigned char)p[len]))
			len++;
		if (len && len < DEBUGINFOD_URL_MAX) {
			memcpy(urls[n], p, len);
			urls[n][len] = '\0';
			n++;
		}
		p += len;
	}
	return n;
}

long debuginfod_parse_timeout(const char *env)
{
	char *end;
	long v;

	if (!env || !*env)
		return DEBUGINFOD_DEFAULT_TIMEOUT_S;
	errno = 0;
	v = strtol(env, &end, 10);
	if (errno || *end || v <= 0 || v > 3600)
		return DEBUGINFOD_DEFAULT_TIMEOUT_S;
	return v;
}

/* DEBUGINFOD_CACHE_PATH if it is ours alone, else our own cache directory. */
static bool pick_cache(void)
{
	const char *env = getenv(DEBUGINFOD_CACHE_PATH_ENV_VAR);
	int fd;

	if (env && env[0] == '/') {
		fd = cache_dir_open_path(env, true, NULL);
		if (fd >= 0) {
			close(fd);
			snprintf(di.cache, sizeof(di.cache), "%s", env);
			return true;
		}
		fprintf(stderr, "stitch: debuginfod: not using DEBUGINFOD_CACHE_PATH %s: it must "
			"belong to uid %u and be writable by nobody else\n", env,
			(unsigned int)geteuid());
	}
	fd = cache_dir_open("debuginfod", di.cache, sizeof(di.cache));
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static bool setup(void)
{
	char buf[32];

	if (di.state != DI_UNTRIED)
		return di.state == DI_READY;
	di.state = DI_OFF;
	di.nr_urls = debuginfod_split_urls(getenv(DEBUGINFOD_URLS_ENV_VAR), di.urls,
					   DEBUGINFOD_MAX_SERVERS);
	di.st.servers = (unsigned int)di.nr_urls;
	if (!di.nr_urls || !pick_cache())
		return false;
	di.timeout_s = debuginfod_parse_timeout(getenv(DEBUGINFOD_TIMEOUT_ENV_VAR));
	snprintf(buf, sizeof(buf), "%ld", di.timeout_s);
	if (setenv(DEBUGINFOD_CACHE_PATH_ENV_VAR, di.cache, 1) != 0 ||
	    setenv(DEBUGINFOD_TIMEOUT_ENV_VAR, buf, 1) != 0)
		return false;
	/* Nothing on stderr from the library: we say what happened in one line. */
	unsetenv(DEBUGINFOD_PROGRESS_ENV_VAR);
	/* A server that timed out once is not asked again (libdebuginfod: 2 retries). */
	if (!getenv(DEBUGINFOD_RETRY_LIMIT_ENV_VAR) &&
	    setenv(DEBUGINFOD_RETRY_LIMIT_ENV_VAR, "0", 1) != 0)
		return false;
	unsetenv(DEBUGINFOD_VERBOSE_ENV_VAR);
	di.client = di_client_open();
	if (!di.client)
		return false;
	di.state = DI_READY;
	return true;
}

bool debuginfod_enabled(void)
{
	char url[1][DEBUGINFOD_URL_MAX];

	/* Nothing set up (cache directory, client) before a file is wanted. */
	if (di.state == DI_UNTRIED)
		return debuginfod_split_urls(getenv(DEBUGINFOD_URLS_ENV_VAR), url, 1) > 0;
	return di.state == DI_READY;
}

double debuginfod_retry_after(unsigned int failures, double first_s, double max_s)
{
	double wait = first_s;

	while (failures-- > 1 && wait < max_s)
		wait *= 2;
	return wait < max_s ? wait : max_s;
}

/* The servers not given up, or whose wait is over (asked again). */
static unsigned int alive_servers(void)
{
	double now = mono_s();
	int i;

	for (i = 0; i < di.nr_urls; i++)
		if ((di.dead & (1u << i)) && now >= di.dead_until[i])
			di.dead &= ~(1u << i);
	return ((1u << di.nr_urls) - 1) & ~di.dead;
}

/* DEBUGINFOD_URLS: the servers still in use; false if there are none. */
static bool set_urls(unsigned int *asked)
{
	char list[DEBUGINFOD_MAX_SERVERS * DEBUGINFOD_URL_MAX];
	size_t len = 0;
	int i;

	*asked = alive_servers();
	if (!*asked)
		return false;
	list[0] = '\0';
	for (i = 0; i < di.nr_urls; i++)
		if (*asked & (1u << i))
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
						len ? " " : "", di.urls[i]);
	return setenv(DEBUGINFOD_URLS_ENV_VAR, list, 1) == 0;
}

static const char *kind_file(enum di_kind kind)
{
	return kind == DI_EXECUTABLE ? "executable" : "debuginfo";
}

/* <cache>/<hex>/<kind>, if a run before fetched it: no server is asked. */
static bool from_cache(enum di_kind kind, const uint8_t *id, size_t len, char *path,
		       size_t size)
{
	char hex[2 * STITCH_BUILD_ID_MAX + 1];
	struct stat st;

	build_id_hex(id, len, hex);
	if (snprintf(path, size, "%s/%s/%s", di.cache, hex, kind_file(kind)) >= (int)size)
		return false;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	       cache_ours(&st);
}

/*
 * libdebuginfod marks any failed query as "not found" (elfutils 0.188,
 * measured): an empty file where the file would be, which answers "not
 * found" for 10 minutes (its cache_miss_s) without asking.  After a query
 * we cut (the budget) or that a server failed, asking again in the next
 * period answered so in 0.02 s: a failure is no "not found", its mark goes.
 */
static void forget_failure(enum di_kind kind, const uint8_t *id, size_t len)
{
	char hex[2 * STITCH_BUILD_ID_MAX + 1], path[PATH_MAX];
	struct stat st;

	build_id_hex(id, len, hex);
	if (snprintf(path, sizeof(path), "%s/%s/%s", di.cache, hex, kind_file(kind)) >=
	    (int)sizeof(path))
		return;
	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0 && cache_ours(&st))
		unlink(path);
}

/* Any outcome of the build-id, stale or not. */
static struct outcome *outcome_of(enum di_kind kind, const uint8_t *id, size_t len)
{
	size_t i;

	for (i = 0; i < di.nr_outcomes; i++) {
		struct outcome *o = &di.outcomes[i];

		if (o->kind == kind && o->len == len && memcmp(o->id, id, len) == 0)
			return o;
	}
	return NULL;
}

/* What the build-id came to, unless it is to be asked again. */
static struct outcome *outcome_find(enum di_kind kind, const uint8_t *id, size_t len)
{
	struct outcome *o = outcome_of(kind, id, len);

	return o && !o->stale ? o : NULL;
}

static struct outcome *outcome_new(void)
{
	struct outcome *o;

	if (di.nr_outcomes == di.cap_outcomes) {
		size_t cap = di.cap_outcomes ? di.cap_outcomes * 2 : 64;

		o = realloc(di.outcomes, cap * sizeof(*o));
		if (!o)
			return NULL;
		di.outcomes = o;
		di.cap_outcomes = cap;
	}
	o = &di.outcomes[di.nr_outcomes++];
	memset(o, 0, sizeof(*o));
	return o;
}

/*
 * Remember what a build-id came to, and count it once.  asked: a query
 * was made (a failure without one, no server left or no budget, is tried
 * again at the next budget, not counted as a try).
 */
static void outcome_add(enum di_kind kind, const uint8_t *id, size_t len, int result,
			bool any_failed, bool asked)
{
	struct outcome *o = outcome_of(kind, id, len);
	double now = mono_s();

	if (result == 0)
		kind == DI_EXECUTABLE ? di.st.executables++ : di.st.fetched++;
	else if (result == -ENOENT && !any_failed)
		di.st.missing++;
	else
		di.st.failed++;
	if (!o) {
		o = outcome_new();
		if (!o)
			return;
		o->kind = kind;
		memcpy(o->id, id, len);
		o->len = len;
	}
	o->result = result;
	o->failed = result != 0 && (result != -ENOENT || any_failed);
	o->stale = false;
	o->at = now;
	o->retry_at = now;
	if (!o->failed) {
		o->tries = 0;
	} else if (asked) {
		/* The first failure is asked again at the next budget, the next ones later. */
		o->tries++;
		if (o->tries > 1)
			o->retry_at = now + debuginfod_retry_after(o->tries - 1,
								   DEBUGINFOD_ID_RETRY_S,
								   DEBUGINFOD_ID_RETRY_MAX_S);
	}
}

static void give_up(unsigned int failed)
{
	unsigned int newly = failed & ~di.dead;
	double now = mono_s();
	int i;

	for (i = 0; i < di.nr_urls; i++) {
		if (!(newly & (1u << i)))
			continue;
		di.give_ups[i]++;
		di.dead_until[i] = now + debuginfod_retry_after(di.give_ups[i],
								DEBUGINFOD_SERVER_RETRY_S,
								DEBUGINFOD_SERVER_RETRY_MAX_S);
	}
	di.dead |= newly;
	di.ever_dead |= newly;
	di.st.servers_dead = (unsigned int)__builtin_popcount(di.ever_dead);
}

/* The budget under way stopped a query: counted once a budget. */
static void note_budget_spent(void)
{
	if (!di.spent_noted)
		di.st.budgets_spent++;
	di.spent_noted = true;
}

/* A query's settings for the time left of the budget. */
static void query_template(struct di_query *q, unsigned int asked, double now)
{
	memset(q, 0, sizeof(*q));
	q->deadline = now + (DEBUGINFOD_BUDGET_S - di.spent);
	q->hard_deadline = now + (DEBUGINFOD_HARD_LIMIT_S - di.spent);
	q->timeout_s = di.timeout_s;
	q->urls = (const char (*)[DEBUGINFOD_URL_MAX])di.urls;
	q->asked = asked;
}

static bool budget_left(void)
{
	if (di.spent < DEBUGINFOD_BUDGET_S)
		return true;
	note_budget_spent();
	return false;
}

/* Seconds of queries: the budget's and the run's. */
static void note_spent(double took)
{
	di.spent += took;
	di.st.seconds += took;
}

static void note_query(const struct di_query *q, int result, const char *hex, double took)
{
	give_up(q->failed);
	if (q->budget_cut)
		note_budget_spent();
	if (getenv("STITCH_DEBUG"))
		fprintf(stderr, "stitch: debuginfod: %s: %s in %.2f s%s\n", hex,
			result < 0 ? strerror(-result) : "found", took,
			q->failed ? " (a server given up)" : "");
}

/* One round of at most DI_BATCH_THREADS queries at once. */
static void run_round(struct di_job *jobs, size_t n)
{
	char hex[2 * STITCH_BUILD_ID_MAX + 1];
	struct di_query tmpl;
	unsigned int asked;
	double start = mono_s(), took;
	size_t i;

	if (!budget_left() || !set_urls(&asked)) {
		for (i = 0; i < n; i++)
			outcome_add(jobs[i].kind, jobs[i].id, jobs[i].len, -ETIME, true, false);
		return;
	}
	di.asked = true;
	query_template(&tmpl, asked, start);
	di_batch_run(jobs, n, &tmpl);
	took = mono_s() - start;
	note_spent(took);
	for (i = 0; i < n; i++) {
		build_id_hex(jobs[i].id, jobs[i].len, hex);
		note_query(&jobs[i].q, jobs[i].result, hex, took);
		if (jobs[i].result != 0 && (jobs[i].q.failed || jobs[i].q.cut))
			forget_failure(jobs[i].kind, jobs[i].id, jobs[i].len);
		outcome_add(jobs[i].kind, jobs[i].id, jobs[i].len, jobs[i].result,
			    jobs[i].q.failed || jobs[i].q.cut, true);
		free(jobs[i].found);
	}
}

void debuginfod_prefetch(const uint8_t (*ids)[STITCH_BUILD_ID_MAX], const size_t *lens,
			 size_t n)
{
	struct di_job jobs[DI_BATCH_THREADS];
	char path[PATH_MAX];
	size_t i, nj = 0, j;

	if (!setup())
		return;
	for (i = 0; i < n; i++) {
		if (lens[i] < 2 || lens[i] > STITCH_BUILD_ID_MAX ||
		    outcome_find(DI_DEBUGINFO, ids[i], lens[i]) ||
		    from_cache(DI_DEBUGINFO, ids[i], lens[i], path, sizeof(path)))
			continue;
		/* The same build-id twice (one file through two paths): once. */
		for (j = 0; j < nj; j++)
			if (jobs[j].len == lens[i] && memcmp(jobs[j].id, ids[i], lens[i]) == 0)
				break;
		if (j < nj)
			continue;
		jobs[nj].kind = DI_DEBUGINFO;
		memcpy(jobs[nj].id, ids[i], lens[i]);
		jobs[nj].len = lens[i];
		if (++nj == DI_BATCH_THREADS) {
			run_round(jobs, nj);
			nj = 0;
		}
	}
	if (nj)
		run_round(jobs, nj);
}

static int fetch_one(enum di_kind kind, const uint8_t *id, size_t len, char *path, size_t size)
{
	char hex[2 * STITCH_BUILD_ID_MAX + 1];
	const struct outcome *o;
	struct di_query q;
	unsigned int asked;
	char *found = NULL;
	double start;
	int err;

	if (len < 2 || len > STITCH_BUILD_ID_MAX || !setup())
		return -ENOENT;
	o = outcome_find(kind, id, len);
	if (o)
		return o->result == 0 && from_cache(kind, id, len, path, size) ? 0 : -ENOENT;
	if (from_cache(kind, id, len, path, size)) {
		di.st.cached++;
		return 0;
	}
	if (!budget_left() || !set_urls(&asked)) {
		outcome_add(kind, id, len, -ETIME, true, false);
		return -ENOENT;
	}
	di.asked = true;
	start = mono_s();
	query_template(&q, asked, start);
	err = di_query_run(di.client, kind, id, len, &q, &found);
	note_spent(mono_s() - start);
	build_id_hex(id, len, hex);
	note_query(&q, err, hex, mono_s() - start);
	if (err == 0 && snprintf(path, size, "%s", found) >= (int)size)
		err = -ENAMETOOLONG;
	free(found);
	if (err != 0 && (q.failed || q.cut))
		forget_failure(kind, id, len);
	outcome_add(kind, id, len, err, q.failed || q.cut, true);
	return err == 0 ? 0 : -ENOENT;
}

/*
 * At a new budget: a found file is in the cache (no outcome needed), a
 * build-id no server had is asked again after DEBUGINFOD_MISSING_KEEP_S,
 * a failure after its retry time.  What is dropped keeps an agent's list
 * to the binaries of the last minutes, not of every one the host ran.
 */
static void outcomes_expire(double now)
{
	size_t i, kept = 0;

	for (i = 0; i < di.nr_outcomes; i++) {
		struct outcome *o = &di.outcomes[i];

		if (o->result == 0 || (!o->failed && now - o->at >= DEBUGINFOD_MISSING_KEEP_S))
			continue;
		/*
		 * One still wanted is asked again at least hourly (its outcome
		 * renewed): one untouched for two hours belongs to a binary gone.
		 */
		if (o->failed && now - o->at >= 2 * DEBUGINFOD_ID_RETRY_MAX_S)
			continue;
		if (o->failed && now >= o->retry_at)
			o->stale = true;
		di.outcomes[kept++] = *o;
	}
	di.nr_outcomes = kept;
}

static bool due(const struct outcome *o, double now)
{
	return o->kind == DI_DEBUGINFO && o->failed && now >= o->retry_at;
}

bool debuginfod_retry_due(const uint8_t *build_id, size_t len)
{
	const struct outcome *o;

	if (di.state != DI_READY || len < 2 || len > STITCH_BUILD_ID_MAX)
		return false;
	o = outcome_of(DI_DEBUGINFO, build_id, len);
	return o && due(o, mono_s()) && alive_servers();
}

bool debuginfod_retries_due(void)
{
	double now = mono_s();
	size_t i;

	if (di.state != DI_READY || !alive_servers())
		return false;
	for (i = 0; i < di.nr_outcomes; i++)
		if (due(&di.outcomes[i], now))
			return true;
	return false;
}

void debuginfod_new_budget(void)
{
	if (di.state != DI_READY)
		return;
	di.spent = 0;
	di.spent_noted = false;
	outcomes_expire(mono_s());
}

int debuginfod_fetch_debuginfo(const uint8_t *build_id, size_t len, char *path, size_t size)
{
	return fetch_one(DI_DEBUGINFO, build_id, len, path, size);
}

int debuginfod_fetch_executable(const uint8_t *build_id, size_t len, char *path, size_t size)
{
	return fetch_one(DI_EXECUTABLE, build_id, len, path, size);
}

bool debuginfod_get_stats(struct debuginfod_stats *st)
{
	*st = di.st;
	return di.asked || di.st.cached;
}

void debuginfod_report(void)
{
	struct debuginfod_stats st;

	if (!debuginfod_get_stats(&st))
		return;
	fprintf(stderr, "stitch: debuginfod: %lu debug files fetched, %lu from its cache, %lu not "
		"found, %lu failed", st.fetched, st.cached, st.missing, st.failed);
	if (st.executables)
		fprintf(stderr, ", %lu executables fetched", st.executables);
	if (st.servers_dead)
		fprintf(stderr, " (%u of %u servers given up after a timeout or error)",
			st.servers_dead, st.servers);
	if (st.budgets_spent == 1)
		fprintf(stderr, " (stopped at the %.0f s budget)", DEBUGINFOD_BUDGET_S);
	else if (st.budgets_spent)
		fprintf(stderr, " (stopped at the %.0f s budget of %u periods)",
			DEBUGINFOD_BUDGET_S, st.budgets_spent);
	fprintf(stderr, ", %.1f s\n", st.seconds);
}
