/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Debug files by build-id from debuginfod servers (DEBUGINFOD_URLS), through
 * elfutils' libdebuginfod, for binaries with no local debug file.
 *
 * Bounded: a server is asked one file at a time, each server on its own;
 * the first failure of a server other than "not found" (timeout, refused
 * connection, HTTP error) ends its use for the run.  A server that sends no
 * byte for DEBUGINFOD_TIMEOUT seconds (default here 2, not libdebuginfod's
 * 90) has timed out; and once queries have taken DEBUGINFOD_BUDGET_S
 * seconds in a run, no new query starts and a transfer that stalls for a
 * second is dropped: a dead or black-holed server costs a recording at most
 * ~3 s in all (measured: a silent server 2.2 s, a refused connection ~0),
 * and no download goes on past DEBUGINFOD_HARD_LIMIT_S of queries.
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

struct debuginfod_stats {
	unsigned long fetched;		/* downloaded in this run */
	unsigned long cached;		/* found in the cache, no request */
	unsigned long missing;		/* no server has it */
	unsigned long failed;		/* asked, but no answer in time / an error */
	unsigned int servers;		/* servers in DEBUGINFOD_URLS */
	unsigned int servers_dead;	/* given up after a failure */
	bool budget_spent;		/* queries stopped by the run's budget */
	double seconds;			/* spent in queries */
};

/* Turn debuginfod off for this run (--no-debuginfod). */
void debuginfod_disable(void);

/*
 * The debug file of a build-id: its path in the cache in path (size bytes).
 * 0, or -ENOENT (not found / debuginfod off or unusable / budget spent).
 */
int debuginfod_fetch_debuginfo(const uint8_t *build_id, size_t len, char *path, size_t size);

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
