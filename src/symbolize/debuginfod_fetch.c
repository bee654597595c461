// SPDX-License-Identifier: GPL-2.0
/*
 * The debuginfod client (see debuginfod_fetch.h for the rules).  stitch has
 * no other thread while it names frames, so the per-server DEBUGINFOD_URLS
 * and our cache path are handed to libdebuginfod through the environment,
 * which it reads at every query.
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

#include "symbolize/debuginfod_fetch.h"
#include "util/cache_dir.h"
#include "util/clock.h"
#include "util/elf_util.h"

enum { DI_UNTRIED, DI_READY, DI_OFF };

static struct {
	int state;
	debuginfod_client *client;
	char urls[DEBUGINFOD_MAX_SERVERS][DEBUGINFOD_URL_MAX];
	bool dead[DEBUGINFOD_MAX_SERVERS];
	int nr_urls;
	long timeout_s;
	char cache[PATH_MAX];
	/* the transfer in flight */
	double query_start;
	bool cut;		/* we stopped it (libdebuginfod then says ENOENT) */
	long bytes;
	double last_progress;
	bool asked;		/* any query this run */
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
		fd = cache_dir_open_path(env);
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

static int on_progress(debuginfod_client *c, long a, long b)
{
	double now = mono_s(), spent;

	(void)c;
	/*
	 * Until a server answers, libdebuginfod passes its loop count (one a
	 * second), not bytes, and b == 0; b is the file's size once it does.
	 */
	if (b > 0 && a > di.bytes) {
		di.bytes = a;
		di.last_progress = now;
	}
	/* Silent for the timeout: this server is not answering. */
	if (now - di.last_progress >= (double)di.timeout_s)
		di.cut = true;
	/* Past the run's budget only a transfer still moving may go on, for a while. */
	spent = di.st.seconds + (now - di.query_start);
	if ((spent >= DEBUGINFOD_BUDGET_S && now - di.last_progress >= 1.0) ||
	    spent >= DEBUGINFOD_HARD_LIMIT_S)
		di.cut = di.st.budget_spent = true;
	return di.cut;
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
	di.client = debuginfod_begin();
	if (!di.client)
		return false;
	debuginfod_set_progressfn(di.client, on_progress);
	di.state = DI_READY;
	return true;
}

/* <cache>/<hex>/debuginfo, if a run before fetched it: no server is asked. */
static bool from_cache(const char *hex, char *path, size_t size)
{
	struct stat st;

	if (snprintf(path, size, "%s/%s/debuginfo", di.cache, hex) >= (int)size)
		return false;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	       cache_ours(&st);
}

/* One server: 0 with *found set, or the failure (-ENOENT: it has none). */
static int ask(int server, const uint8_t *id, size_t len, char **found)
{
	double start = mono_s();
	int fd;

	if (setenv(DEBUGINFOD_URLS_ENV_VAR, di.urls[server], 1) != 0)
		return -ENOMEM;
	di.bytes = 0;
	di.cut = false;
	di.query_start = di.last_progress = start;
	fd = debuginfod_find_debuginfo(di.client, id, (int)len, found);
	di.st.seconds += mono_s() - start;
	if (fd < 0 && di.cut)
		fd = -ETIME;
	if (getenv("STITCH_DEBUG"))
		fprintf(stderr, "stitch: debuginfod: %s: %s in %.2f s\n", di.urls[server],
			fd < 0 ? strerror(-fd) : "found", mono_s() - start);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

int debuginfod_fetch_debuginfo(const uint8_t *build_id, size_t len, char *path, size_t size)
{
	char hex[2 * STITCH_BUILD_ID_MAX + 1];
	bool any_asked = false, any_failed = false;
	char *found = NULL;
	int i, err = -ENOENT;

	if (len < 2 || len > STITCH_BUILD_ID_MAX || !setup())
		return -ENOENT;
	build_id_hex(build_id, len, hex);
	if (from_cache(hex, path, size)) {
		di.st.cached++;
		return 0;
	}
	if (di.st.seconds >= DEBUGINFOD_BUDGET_S) {
		di.st.budget_spent = true;
		di.st.failed++;
		return -ENOENT;
	}
	for (i = 0; i < di.nr_urls && err != 0; i++) {
		if (di.dead[i])
			continue;
		if (di.st.seconds >= DEBUGINFOD_BUDGET_S) {
			di.st.budget_spent = true;
			break;
		}
		di.asked = any_asked = true;
		free(found);
		found = NULL;
		err = ask(i, build_id, len, &found);
		if (err != 0 && err != -ENOENT) {
			/* Timed out, refused, cut short or an HTTP error: not again. */
			di.dead[i] = true;
			di.st.servers_dead++;
			any_failed = true;
		}
	}
	if (err == 0 && found && snprintf(path, size, "%s", found) < (int)size) {
		di.st.fetched++;
		free(found);
		return 0;
	}
	free(found);
	/* Every server dead already counts as a failure too. */
	if (any_failed || !any_asked)
		di.st.failed++;
	else
		di.st.missing++;
	return -ENOENT;
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
	if (st.servers_dead)
		fprintf(stderr, " (%u of %u servers given up after a timeout or error)",
			st.servers_dead, st.servers);
	if (st.budget_spent)
		fprintf(stderr, " (stopped at the %.0f s budget)", DEBUGINFOD_BUDGET_S);
	fprintf(stderr, ", %.1f s\n", st.seconds);
}
