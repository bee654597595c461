// SPDX-License-Identifier: GPL-2.0
/*
 * Which server failed a debuginfod query.  libdebuginfod asks all servers
 * of a query at once and returns one error for the lot; what each server
 * did is only in its verbose lines (debuginfod_set_verbose_fd).  elfutils
 * 0.188 (debuginfod-client.c, read at tag elfutils-0.188) writes, per query:
 *
 *   url I SERVER/buildid/HEX/debuginfo     when it starts asking server I
 *   server response CURL_STRERROR          when a server's transfer ends,
 *   url I CURL_ERROR_BUFFER                then I, if curl said more
 *   committed to url I                     once server I sends the file
 *
 * A transfer it dropped because another server won, or that we cut, ends
 * with no line.  Anything else in the text is skipped: other versions'
 * lines blame nobody, and the run's budget still bounds what a bad server
 * costs (debuginfod_fetch.h).
 */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/debuginfod_query.h"

#define MAX_HANDLES 32

/* A transfer that ended this way says the server is not there or not answering. */
static bool transport_failure(const char *what, size_t len)
{
	static const CURLcode codes[] = {
		CURLE_OPERATION_TIMEDOUT, CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST,
		CURLE_COULDNT_RESOLVE_PROXY, CURLE_RECV_ERROR, CURLE_SEND_ERROR,
		CURLE_GOT_NOTHING, CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION,
	};
	size_t i;

	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		const char *s = curl_easy_strerror(codes[i]);

		if (strlen(s) == len && memcmp(s, what, len) == 0)
			return true;
	}
	return false;
}

/* The server of urls whose query URL `rest` is (SERVER/buildid/...), or -1. */
static int server_of(const char *rest, size_t len, const char (*urls)[DEBUGINFOD_URL_MAX],
		     unsigned int asked)
{
	int i;

	for (i = 0; i < DEBUGINFOD_MAX_SERVERS; i++) {
		size_t n = strlen(urls[i]);
		const char *tail;

		if (!(asked & (1u << i)) || n == 0 || n > len || memcmp(rest, urls[i], n) != 0)
			continue;
		/* libdebuginfod adds "/buildid", or "buildid" after a trailing '/'. */
		tail = rest + n;
		if ((len - n >= 9 && memcmp(tail, "/buildid/", 9) == 0) ||
		    (urls[i][n - 1] == '/' && len - n >= 8 && memcmp(tail, "buildid/", 8) == 0))
			return i;
	}
	return -1;
}

unsigned int di_blame(const char *text, size_t len, const char (*urls)[DEBUGINFOD_URL_MAX],
		      unsigned int asked, bool stalled)
{
	int server[MAX_HANDLES];
	bool ended[MAX_HANDLES] = { false }, failed[MAX_HANDLES] = { false };
	const char *p = text, *end = text + len, *response = NULL;
	size_t response_len = 0;
	unsigned int blame = 0;
	int i;

	for (i = 0; i < MAX_HANDLES; i++)
		server[i] = -1;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *line_end = nl ? nl : end;
		size_t n = (size_t)(line_end - p);
		const char *after_response = NULL;
		char *num_end;
		long idx;

		if (n > 16 && memcmp(p, "server response ", 16) == 0) {
			after_response = p + 16;
		} else if (n > 17 && memcmp(p, "committed to url ", 17) == 0) {
			idx = strtol(p + 17, &num_end, 10);
			if (num_end == line_end && idx >= 0 && idx < MAX_HANDLES)
				ended[idx] = true;
		} else if (n > 4 && memcmp(p, "url ", 4) == 0) {
			idx = strtol(p + 4, &num_end, 10);
			if (num_end > p + 4 && num_end < line_end && *num_end == ' ' &&
			    idx >= 0 && idx < MAX_HANDLES) {
				const char *rest = num_end + 1;
				int s = server_of(rest, (size_t)(line_end - rest), urls, asked);

				if (s >= 0) {
					server[idx] = s;
				} else if (response) {
					ended[idx] = true;
					failed[idx] = transport_failure(response, response_len);
				}
			}
		}
		response = after_response;
		response_len = after_response ? (size_t)(line_end - after_response) : 0;
		p = nl ? nl + 1 : end;
	}
	for (i = 0; i < MAX_HANDLES; i++) {
		if (server[i] < 0)
			continue;
		if (failed[i] || (stalled && !ended[i]))
			blame |= 1u << server[i];
	}
	return blame;
}
