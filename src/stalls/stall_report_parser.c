// SPDX-License-Identifier: GPL-2.0
/*
 * Parsing libstitch-stall's report lines.  Hand-rolled on a (pointer,
 * length) span rather than sscanf: the line is not NUL-terminated, may hold
 * any byte, and a path may hold spaces (user lines are parsed from the end).
 */
#include <stdbool.h>
#include <string.h>

#include "stalls/stall_report_parser.h"

struct span {
	const char *p;
	size_t n;
};

static bool eat(struct span *s, const char *prefix)
{
	size_t k = strlen(prefix);

	if (s->n < k || memcmp(s->p, prefix, k) != 0)
		return false;
	s->p += k;
	s->n -= k;
	return true;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The whole span is 1..max digits in base (10 or 16): no sign, no prefix. */
static bool whole_number(struct span s, int base, size_t max, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (s.n == 0 || s.n > max)
		return false;
	for (i = 0; i < s.n; i++) {
		int d = hexval(s.p[i]);

		if (d < 0 || d >= base)
			return false;
		v = v * base + d;
	}
	*out = v;
	return true;
}

/* The whole span is 1..16 hex digits. */
static bool whole_hex(struct span s, uint64_t *out)
{
	return whole_number(s, 16, 16, out);
}

/* The whole span is a decimal number below 2^32. */
static bool whole_u32(struct span s, uint32_t *out)
{
	uint64_t v;

	if (!whole_number(s, 10, 10, &v) || v > UINT32_MAX)
		return false;
	*out = v;
	return true;
}

/* Next space-separated token of s. */
static bool token(struct span *s, struct span *tok)
{
	while (s->n && *s->p == ' ') {
		s->p++;
		s->n--;
	}
	if (!s->n)
		return false;
	tok->p = s->p;
	while (s->n && *s->p != ' ') {
		s->p++;
		s->n--;
	}
	tok->n = s->p - tok->p;
	return true;
}

static bool eat_suffix(struct span *s, const char *suffix)
{
	size_t k = strlen(suffix);

	if (s->n < k || memcmp(s->p + s->n - k, suffix, k) != 0)
		return false;
	s->n -= k;
	return true;
}

/* stitch-stall: tid=N comm=C stall=Nms clock=X threshold=Nms suppressed=N [lost=N] */
static enum stall_line_kind header(struct span s, struct stall_line *out)
{
	bool have_tid = false, have_stall = false, first = true, note = false;
	struct span t;

	while (token(&s, &t)) {
		struct span v = t;

		if (eat(&v, "tid=")) {
			if (!whole_u32(v, &out->tid))
				return STALL_LINE_OTHER;
			have_tid = true;
		} else if (eat(&v, "comm=")) {
			size_t n = v.n < STALL_LOG_COMM_MAX - 1 ? v.n : STALL_LOG_COMM_MAX - 1;

			memcpy(out->comm, v.p, n);
			out->comm[n] = '\0';
		} else if (eat(&v, "stall=")) {
			if (!eat_suffix(&v, "ms") || !whole_u32(v, &out->stall_ms))
				return STALL_LINE_OTHER;
			have_stall = true;
		} else if (eat(&v, "threshold=")) {
			if (!eat_suffix(&v, "ms") || !whole_u32(v, &out->threshold_ms))
				return STALL_LINE_OTHER;
		} else if (eat(&v, "suppressed=")) {
			/* "tid=N suppressed=N (reports over ...)": a note with no stack. */
			note = !have_stall;
		} else if (!eat(&v, "clock=") && !eat(&v, "lost=")) {
			if (note)
				break;
			return STALL_LINE_OTHER;
		}
		if (first && !have_tid)
			return STALL_LINE_OTHER;	/* tid= comes first */
		first = false;
	}
	if (have_tid && have_stall)
		return STALL_LINE_HEADER;
	if (have_tid && note)
		return STALL_LINE_SUPPRESSED;
	return STALL_LINE_OTHER;
}

/* "  user " rest: "0xADDR", or "PATH+0xOFF" with an optional " build-id=HEX". */
static enum stall_line_kind user(struct span s, struct stall_line *out)
{
	const char *plus = NULL;
	struct span off, raw = s;
	size_t i, bid = 0;

	if (eat(&raw, "0x") && whole_hex(raw, &out->addr))
		return STALL_LINE_USER_RAW;
	for (i = s.n; i > 0; i--)
		if (s.p[i - 1] == ' ')
			break;
	if (i > 0 && s.n - i > 9 && memcmp(s.p + i, "build-id=", 9) == 0) {
		bid = s.n - i - 9;
		if (bid == 0 || bid > STALL_LOG_BUILD_ID_MAX)
			return STALL_LINE_OTHER;
		for (size_t k = 0; k < bid; k++) {
			int d = hexval(s.p[i + 9 + k]);

			if (d < 0)
				return STALL_LINE_OTHER;
			out->build_id[k] = "0123456789abcdef"[d];
		}
		out->build_id[bid] = '\0';
		s.n = i - 1;
	}
	for (i = s.n; i >= 3; i--) {
		if (s.p[i - 3] == '+' && s.p[i - 2] == '0' && s.p[i - 1] == 'x') {
			plus = s.p + i - 3;
			break;
		}
	}
	if (!plus || plus == s.p || (size_t)(plus - s.p) >= STALL_LOG_PATH_MAX)
		return STALL_LINE_OTHER;
	off.p = plus + 3;
	off.n = s.p + s.n - off.p;
	if (!whole_hex(off, &out->addr))
		return STALL_LINE_OTHER;
	memcpy(out->path, s.p, plus - s.p);
	out->path[plus - s.p] = '\0';
	if (memchr(out->path, '\0', plus - s.p))
		return STALL_LINE_OTHER;	/* a NUL inside: not a path we can open */
	return STALL_LINE_USER;
}

static enum stall_line_kind parse(struct span s, struct stall_line *out)
{
	struct span k;

	if (eat(&s, "stitch-stall: "))
		return header(s, out);
	if (eat(&s, "  user-stop ") || (eat(&s, "  [cut]") && s.n == 0))
		return STALL_LINE_STOP;
	if (eat(&s, "  kernel 0x")) {
		k = s;
		return whole_hex(k, &out->addr) ? STALL_LINE_KERNEL : STALL_LINE_OTHER;
	}
	if (eat(&s, "  user "))
		return user(s, out);
	return STALL_LINE_OTHER;
}

enum stall_line_kind stall_log_parse(const char *line, size_t len, struct stall_line *out)
{
	struct span s = { line, len };

	memset(out, 0, sizeof(*out));
	if (s.n && s.p[s.n - 1] == '\n')
		s.n--;
	if (s.n && s.p[s.n - 1] == '\r')
		s.n--;
	out->kind = parse(s, out);
	if (out->kind == STALL_LINE_OTHER)
		memset(out, 0, sizeof(*out));
	return out->kind;
}
