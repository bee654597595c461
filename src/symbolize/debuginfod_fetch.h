/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Debug files by build-id from debuginfod servers (DEBUGINFOD_URLS), through
 * elfutils' libdebuginfod, for binaries with no local debug file.
 *
 * Bounded: the binaries a profile needs are asked for at once
 * (debuginfod_prefetch(), DI_BATCH_THREADS queries at a time), each query
 * asking every server still in use at once.  A server that sends no byte
 * for DEBUGINFOD_TIMEOUT seconds (default here 2, not libdebuginfod's 90)
 * has timed out, and a server that timed out or could not be reached is
 * given up: not asked again for DEBUGINFOD_SERVER_RETRY_S, twice that after
 * its next failure, up to DEBUGINFOD_SERVER_RETRY_MAX_S (a recording's run
 * never sees it again; an agent's later periods do).  Once queries have
 * taken DEBUGINFOD_BUDGET_S seconds of a budget's wall time, no new query
 * starts and a transfer that stalls for a second is dropped: a dead or
 * black-holed server costs a recording at most ~3 s in all, however many
 * binaries and servers (measured with 11 stripped binaries: a silent
 * server 2.2 s, two silent servers 2.2 s (3.4 s when asked one binary and
 * one server at a time), a refused connection ~0), and no download goes
 * on past DEBUGINFOD_HARD_LIMIT_S of a budget's queries.  A budget is a
 * run's, or each period's in an agent (debuginfod_new_budget()), where a
 * build-id whose query failed is asked again at the next period's, then
 * after 1 min, 2, 4, ... up to an hour.
 *
 * Files: libdebuginfod's cache (DEBUGINFOD_CACHE_PATH if it is ours and
 * writable by nobody else, else stitch's cache directory "debuginfod", see
 * cache_dir.h), never a traced process's environment or home.  A fetched
 * file is believed only after the same checks as a local one (debuginfo.c).
 */
#ifndef STITCH_DEBUGINFOD_FETCH_H
#define STITCH_DEBUGINFOD_FETCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/elf_util.h"

#define DEBUGINFOD_MAX_SERVERS 8
#define DEBUGINFOD_URL_MAX 512
#define DEBUGINFOD_DEFAULT_TIMEOUT_S 2
#define DEBUGINFOD_BUDGET_S 3.0
/*
 * Even a transfer still moving is cut here: a large debug file on a slow
 * link is better fetched ahead (debuginfod-find debuginfo BUILDID, same
 * cache) than holding up a recording.
 */
#define DEBUGINFOD_HARD_LIMIT_S 10.0
/*
 * A server given up is asked again after 5 min, 10, 20, 40, then every
 * hour while it keeps failing: a dead server costs an agent a timeout
 * (2 s) of one period's naming that often, and a server back up is used
 * again within minutes.
 */
#define DEBUGINFOD_SERVER_RETRY_S 300.0
#define DEBUGINFOD_SERVER_RETRY_MAX_S 3600.0
/* A build-id whose query failed: again at the next budget, then after 1 min, 2, 4, ..., 1 h. */
#define DEBUGINFOD_ID_RETRY_S 60.0
#define DEBUGINFOD_ID_RETRY_MAX_S 3600.0
/*
 * A build-id no server had is asked again after this long (an agent's
 * later periods): libdebuginfod's own cache says "not found" for 10 min
 * (its cache_miss_s) without asking, so sooner would only count it twice.
 */
#define DEBUGINFOD_MISSING_KEEP_S 600.0

struct debuginfod_stats {
	unsigned long fetched;		/* debug files downloaded in this run */
	unsigned long executables;	/* executables downloaded (deleted binaries) */
	unsigned long cached;		/* found in the cache, no request */
	unsigned long missing;		/* no server has it */
	unsigned long failed;		/* asked, but no answer in time / an error */
	unsigned int servers;		/* servers in DEBUGINFOD_URLS */
	unsigned int servers_dead;	/* given up after a failure, at least once */
	unsigned int budgets_spent;	/* budgets (a run's, or periods') that stopped queries */
	double seconds;			/* spent in queries, in all */
};

/* Turn debuginfod off for this run (--no-debuginfod). */
void debuginfod_disable(void);

/* Whether debuginfod is on and has servers (nothing is set up yet). */
bool debuginfod_enabled(void);

/*
 * A new budget of DEBUGINFOD_BUDGET_S seconds of queries from now on (an
 * agent's period), instead of going on with the run's: build-ids whose
 * query failed may be asked again (see above), and the files found and
 * not found long ago are forgotten (the cache holds the first).
 */
void debuginfod_new_budget(void);

/*
 * Seconds before a thing that failed `failures` times (>= 1) is tried
 * again: first_s, doubled at each failure after the first, at most max_s.
 */
double debuginfod_retry_after(unsigned int failures, double first_s, double max_s);

/*
 * Whether the debug file of a build-id was asked for and failed (no
 * answer in time, a server down; not "not found") and asking again is due
 * (past its retry time, a server in use): a binary whose symbols were
 * opened without it may open them again to ask (an agent's long-running
 * processes).  debuginfod_retries_due(): whether any is.
 */
bool debuginfod_retry_due(const uint8_t *build_id, size_t len);
bool debuginfod_retries_due(void);

/*
 * Fetch the debug files of ids[0..n) (lens[i] bytes each) at once, ahead
 * of the one-by-one calls below, which then find the files (or the
 * failure) without asking again.
 */
void debuginfod_prefetch(const uint8_t (*ids)[STITCH_BUILD_ID_MAX], const size_t *lens,
			 size_t n);

/*
 * The debug file of a build-id: its path in the cache in path (size bytes).
 * 0, or -ENOENT (not found / debuginfod off or unusable / budget spent).
 */
int debuginfod_fetch_debuginfo(const uint8_t *build_id, size_t len, char *path, size_t size);

/* The same for the executable itself (a binary deleted from disk). */
int debuginfod_fetch_executable(const uint8_t *build_id, size_t len, char *path, size_t size);

/* Whether any query was attempted, and what came of them. */
bool debuginfod_get_stats(struct debuginfod_stats *st);

/*
 * One line on stderr of what debuginfod gave, if anything was asked: after
 * a command's output, since naming it is what asks.
 */
void debuginfod_report(void);

/*
 * Split DEBUGINFOD_URLS (URLs separated by blanks) into at most max URLs,
 * each shorter than DEBUGINFOD_URL_MAX (longer ones are skipped).  Returns
 * the count.
 */
int debuginfod_split_urls(const char *env, char urls[][DEBUGINFOD_URL_MAX], int max);

/* DEBUGINFOD_TIMEOUT: seconds, a positive integer; NULL or invalid: the default. */
long debuginfod_parse_timeout(const char *env);

#endif /* STITCH_DEBUGINFOD_FETCH_H */
