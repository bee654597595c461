/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One push over HTTP(S) with libcurl: the body POSTed to a target's URL
 * and wire path, and what the answer means for it: sent, worth retrying
 * (the server is down, slow, overloaded, or asks us to wait), or refused
 * for good (a 4xx other than 429: resending the same bytes gets the same
 * answer).  https:// is verified against the system's CAs; redirects are
 * not followed (a profile POSTed elsewhere than asked is a leak).
 */
#ifndef STITCH_AGENT_PUSH_HTTP_H
#define STITCH_AGENT_PUSH_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/push.h"

struct curl_slist;

enum push_outcome {
	PUSH_SENT,
	PUSH_RETRY,		/* refused connection, timeout, 5xx, 429, a gRPC UNAVAILABLE */
	PUSH_REFUSED,		/* 4xx other than 429, a gRPC error that will not pass: drop it */
};

struct push_answer {
	enum push_outcome outcome;
	long status;			/* HTTP status, 0 if none came */
	double retry_after_s;		/* the server's Retry-After, 0 if none */
	int rejected;			/* sent, but this many profiles refused (OTLP partial) */
	char reason[256];		/* why it was not sent, for the log */
};

/* A whole push (a few hundred KiB at most) that takes longer is retried. */
#define PUSH_TRANSFER_TIMEOUT_MS 30000L

/* One --push target's connection: kind, where, and the headers it sends. */
struct push_conn {
	enum push_kind kind;
	char url[2048];			/* URL + the kind's wire path */
	void *curl;			/* CURL *, reused between pushes (keep-alive) */
	struct curl_slist *headers;
	/* > 0: the transfer under way gives up once mono_s() reaches it (the exit's deadline) */
	volatile double *abort_at;
};

/*
 * A connection to base_url (its trailing '/' dropped) for kind, with the
 * header lines of extra (NULL, or "Name: value" lines, kept secret).
 * 0, or -1 with why in err.
 */
int push_conn_open(struct push_conn *c, enum push_kind kind, const char *base_url,
		   const char *const *extra, int nextra, char *err, size_t errlen);
void push_conn_close(struct push_conn *c);

/* POST body; the outcome in a. */
void push_conn_send(struct push_conn *c, const uint8_t *body, size_t len, struct push_answer *a);

/*
 * --push-header-file's lines ("Name: value", blank lines and # comments
 * skipped), each a string in *lines.  The file must be ours and readable by
 * nobody else (it holds tokens); its content is never printed.  0, or -1
 * with why in err.
 */
int push_headers_read(const char *path, char ***lines, int *n, char *err, size_t errlen);
void push_headers_free(char **lines, int n);

#endif /* STITCH_AGENT_PUSH_HTTP_H */
