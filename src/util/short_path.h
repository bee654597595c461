/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A path kept in place when shorter than 64 bytes, else copied to the
 * heap: the process model's mmap records (the tracker's queue, a
 * process's waiting records) hold one each.  A strdup of each record's
 * path, twice, was 8.8% of an agent's CPU over a build's churn (83 of 940
 * samples of a self-profile: each malloc a cache miss, the agent waking
 * with its heap out of the cache); a library's path is rarely longer
 * (libc's is 35 bytes, cc1's 36).  It may move with its record (a sort,
 * a realloc): nothing points into it.
 */
#ifndef STITCH_UTIL_SHORT_PATH_H
#define STITCH_UTIL_SHORT_PATH_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct short_path {
	char *heap;		/* NULL: the path is in[] */
	char in[64];
};

/* Keep path in s (whose heap copy, if any, is its caller's to free first): 0 or -ENOMEM. */
static inline int short_path_set(struct short_path *s, const char *path)
{
	size_t n = strlen(path);

	if (n < sizeof(s->in)) {
		memcpy(s->in, path, n + 1);
		s->heap = NULL;
		return 0;
	}
	s->heap = strdup(path);
	return s->heap ? 0 : -ENOMEM;
}

static inline char *short_path_str(struct short_path *s)
{
	return s->heap ? s->heap : s->in;
}

static inline void short_path_free(struct short_path *s)
{
	free(s->heap);
	s->heap = NULL;
}

#endif /* STITCH_UTIL_SHORT_PATH_H */
