// SPDX-License-Identifier: GPL-2.0
/* Pushing one request with libcurl (push_http.h). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <curl/curl.h>

#include "agent/push_http.h"
#include "util/clock.h"

/* A server that takes longer than this to accept a connection is down for us. */
#define CONNECT_TIMEOUT_MS 5000L
/* What we keep of an answer's body: enough for a reason or a gRPC-Web trailer. */
#define ANSWER_MAX 4096

/* The answer being read: its body (cut at ANSWER_MAX) and the headers we use. */
struct reading {
	char body[ANSWER_MAX];
	size_t len;
	char grpc_status[16];
	char grpc_message[160];
	bool has_grpc_status;
	double retry_after_s;
};

static size_t on_body(char *data, size_t size, size_t nmemb, void *ctx)
{
	struct reading *rd = ctx;
	size_t n = size * nmemb, room = sizeof(rd->body) - rd->len;

	memcpy(rd->body + rd->len, data, n < room ? n : room);
	rd->len += n < room ? n : room;
	return n;
}

/* A header line's value if its name is name (case-insensitive), copied; else false. */
static bool header_value(const char *line, size_t len, const char *name, char *out,
			 size_t outlen)
{
	size_t nl = strlen(name), v;

	if (len <= nl || strncasecmp(line, name, nl) || line[nl] != ':')
		return false;
	for (v = nl + 1; v < len && (line[v] == ' ' || line[v] == '\t'); v++)
		;
	while (len > v && isspace((unsigned char)line[len - 1]))
		len--;
	snprintf(out, outlen, "%.*s", (int)(len - v), line + v);
	return true;
}

static size_t on_header(char *data, size_t size, size_t nmemb, void *ctx)
{
	struct reading *rd = ctx;
	size_t n = size * nmemb;
	char v[64];

	if (header_value(data, n, "retry-after", v, sizeof(v))) {
		char *end;
		double s = strtod(v, &end);

		/* Seconds only: an HTTP date is rare and not worth a parser here. */
		if (end != v && s > 0)
			rd->retry_after_s = s > 300 ? 300 : s;
	} else if (header_value(data, n, "grpc-status", rd->grpc_status,
				sizeof(rd->grpc_status))) {
		rd->has_grpc_status = true;
	} else {
		header_value(data, n, "grpc-message", rd->grpc_message, sizeof(rd->grpc_message));
	}
	return n;
}

/*
 * Abort the transfer under way at the agent's exit's deadline, every
 * target's at once.  Even with its body sent whole: waiting for each silent
 * server's answer (up to the 30 s transfer timeout, one target after
 * another) made SIGTERM take 53 s with three, past systemd's stop timeout,
 * which then killed it with its pushes.  Given up, the push is spooled; a
 * server that had stored it gets it again at the next start (the one push
 * in flight, at most).  curl calls this about once a second while waiting.
 */
static int on_progress(void *ctx, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	const struct push_conn *c = ctx;

	return c->abort_at && *c->abort_at > 0 && mono_s() >= *c->abort_at;
}

int push_conn_open(struct push_conn *c, enum push_kind kind, const char *base_url,
		   const char *const *extra, int nextra, char *err, size_t errlen)
{
	const struct push_wire *w = &push_wires[kind];
	size_t len = strlen(base_url);
	struct curl_slist *h = NULL, *t;
	char ct[128];
	CURL *curl;
	int i;

	memset(c, 0, sizeof(*c));
	c->kind = kind;
	while (len && base_url[len - 1] == '/')
		len--;
	if (strncmp(base_url, "http://", 7) && strncmp(base_url, "https://", 8)) {
		snprintf(err, errlen, "'%s' is not an http:// or https:// URL", base_url);
		return -1;
	}
	if (len + strlen(w->path) >= sizeof(c->url)) {
		snprintf(err, errlen, "the URL is too long");
		return -1;
	}
	memcpy(c->url, base_url, len);
	strcpy(c->url + len, w->path);
	snprintf(ct, sizeof(ct), "Content-Type: %s", w->content_type);
	/* No "Expect: 100-continue": a round trip per push for nothing. */
	h = curl_slist_append(h, ct);
	if (h && kind == PUSH_PARCA)
		h = (t = curl_slist_append(h, "X-Grpc-Web: 1")) ? t : NULL;
	if (h && kind == PUSH_PYROSCOPE)
		h = (t = curl_slist_append(h, "Connect-Protocol-Version: 1")) ? t : NULL;
	if (h)
		h = (t = curl_slist_append(h, "Expect:")) ? t : NULL;
	for (i = 0; h && i < nextra; i++)
		h = (t = curl_slist_append(h, extra[i])) ? t : NULL;
	curl = curl_easy_init();
	if (!h || !curl) {
		curl_slist_free_all(h);
		if (curl)
			curl_easy_cleanup(curl);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	c->headers = h;
	c->curl = curl;
	curl_easy_setopt(curl, CURLOPT_URL, c->url);
	curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, CONNECT_TIMEOUT_MS);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, PUSH_TRANSFER_TIMEOUT_MS);
	curl_easy_setopt(curl, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(curl, CURLOPT_USERAGENT, "stitch-agent");
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(curl, CURLOPT_POST, 1L);
	return 0;
}

void push_conn_close(struct push_conn *c)
{
	if (c->curl)
		curl_easy_cleanup(c->curl);
	curl_slist_free_all(c->headers);
	c->curl = NULL;
	c->headers = NULL;
}

/* A reason for the log from an answer's body: printable, on one line, cut short. */
static void reason_from_body(const struct reading *rd, long status, char *out, size_t len)
{
	size_t n = 0, i;

	n = snprintf(out, len, "HTTP %ld", status);
	if (rd->len && n + 3 < len) {
		strcpy(out + n, ": ");
		n += 2;
	}
	for (i = 0; i < rd->len && n + 1 < len && n < 200; i++)
		out[n++] = isprint((unsigned char)rd->body[i]) ? rd->body[i] : ' ';
	out[n] = '\0';
}

/*
 * gRPC codes a retry may get past (grpc's statuscodes.md): DEADLINE_EXCEEDED,
 * RESOURCE_EXHAUSTED, ABORTED, UNAVAILABLE.
 */
static bool grpc_retryable(int code)
{
	return code == 4 || code == 8 || code == 10 || code == 14;
}

/* A 200 answer of a gRPC-Web call: its grpc-status decides. */
static void grpc_outcome(struct reading *rd, struct push_answer *a)
{
	char msg[160] = "";
	int code;

	code = push_grpc_web_status((const uint8_t *)rd->body, rd->len,
				    rd->has_grpc_status ? rd->grpc_status : NULL, msg, sizeof(msg));
	if (code == 0)
		return;
	if (code < 0) {
		a->outcome = PUSH_RETRY;
		snprintf(a->reason, sizeof(a->reason), "a gRPC-Web answer with no status");
		return;
	}
	a->outcome = grpc_retryable(code) ? PUSH_RETRY : PUSH_REFUSED;
	snprintf(a->reason, sizeof(a->reason), "gRPC status %d: %s", code,
		 msg[0] ? msg : rd->grpc_message);
}

/*
 * An OTLP/HTTP 2xx may still refuse part of the push (partial_success):
 * taken, not to be sent again, but said.
 */
static void otlp_partial(const struct reading *rd, struct push_answer *a)
{
	char msg[160] = "";
	int n = push_otlp_answer((const uint8_t *)rd->body, rd->len, true, msg, sizeof(msg));

	if (n > 0) {
		a->rejected = n;
		snprintf(a->reason, sizeof(a->reason), "%d profile%s refused: %s", n,
			 n > 1 ? "s" : "", msg[0] ? msg : "(no message)");
	}
}

/* An OTLP/HTTP error's google.rpc.Status message, when its body holds one. */
static void otlp_reason(const struct reading *rd, long status, struct push_answer *a)
{
	char msg[160] = "";

	if (push_otlp_answer((const uint8_t *)rd->body, rd->len, false, msg, sizeof(msg)) == 0 &&
	    msg[0])
		snprintf(a->reason, sizeof(a->reason), "HTTP %ld: %s", status, msg);
}

void push_conn_send(struct push_conn *c, const uint8_t *body, size_t len, struct push_answer *a)
{
	struct reading *rd = calloc(1, sizeof(*rd));
	CURLcode rc;
	long status = 0;

	memset(a, 0, sizeof(*a));
	a->outcome = PUSH_RETRY;
	if (!rd) {
		snprintf(a->reason, sizeof(a->reason), "out of memory");
		return;
	}
	curl_easy_setopt(c->curl, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, rd);
	curl_easy_setopt(c->curl, CURLOPT_HEADERDATA, rd);
	/* c may have moved since it was opened (push_queue takes it over). */
	curl_easy_setopt(c->curl, CURLOPT_XFERINFODATA, c);
	rc = curl_easy_perform(c->curl);
	if (rc != CURLE_OK) {
		snprintf(a->reason, sizeof(a->reason), "%s", curl_easy_strerror(rc));
		free(rd);
		return;
	}
	curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &status);
	a->status = status;
	a->retry_after_s = rd->retry_after_s;
	if (status >= 200 && status < 300) {
		a->outcome = PUSH_SENT;
		if (c->kind == PUSH_PARCA)
			grpc_outcome(rd, a);
		else if (c->kind == PUSH_OTLP)
			otlp_partial(rd, a);
	} else {
		/* 5xx and 429: the server may take it later; any other 4xx, never. */
		a->outcome = status >= 500 || status == 429 || status < 400 ? PUSH_RETRY :
			     PUSH_REFUSED;
		reason_from_body(rd, status, a->reason, sizeof(a->reason));
		if (c->kind == PUSH_OTLP)
			otlp_reason(rd, status, a);
	}
	free(rd);
}

int push_headers_read(const char *path, char ***lines, int *n, char *err, size_t errlen)
{
	char buf[8192], *line, *save = NULL;
	struct stat st;
	ssize_t len;
	int fd, ln = 0;

	*lines = NULL;
	*n = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077)) {
		snprintf(err, errlen, "%s holds secrets: it must be a file of ours that no other "
			 "user can read or write (chown %u %s; chmod 600 %s)", path,
			 (unsigned)geteuid(), path, path);
		close(fd);
		return -1;
	}
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len < 0 || len == sizeof(buf) - 1) {
		snprintf(err, errlen, "%s: %s", path, len < 0 ? strerror(errno) :
			 "longer than 8 KiB");
		return -1;
	}
	buf[len] = '\0';
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char **more, *colon, *blank;

		ln++;
		line[strcspn(line, "\r")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		colon = strchr(line, ':');
		/* Never the line itself in the message: it is likely a token. */
		blank = strpbrk(line, " \t");
		if (!colon || colon == line || (blank && blank < colon)) {
			snprintf(err, errlen, "%s: line %d is not 'Name: value'", path, ln);
			goto fail;
		}
		more = realloc(*lines, (*n + 1) * sizeof(**lines));
		if (!more || !(more[*n] = strdup(line))) {
			if (more)
				*lines = more;
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		*lines = more;
		(*n)++;
	}
	explicit_bzero(buf, sizeof(buf));
	return 0;
fail:
	explicit_bzero(buf, sizeof(buf));
	push_headers_free(*lines, *n);
	*lines = NULL;
	*n = 0;
	return -1;
}

void push_headers_free(char **lines, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		explicit_bzero(lines[i], strlen(lines[i]));
		free(lines[i]);
	}
	free(lines);
}
