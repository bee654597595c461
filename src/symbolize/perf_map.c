// SPDX-License-Identifier: GPL-2.0
/* perf map files: see perf_map.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/perf_map.h"
#include "util/array.h"

void perf_map_init(struct perf_map *pm)
{
	memset(pm, 0, sizeof(*pm));
}

void perf_map_free(struct perf_map *pm)
{
	free(pm->raw);
	free(pm->idx);
	free(pm->names);
	memset(pm, 0, sizeof(*pm));
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A hex number (0x optional, at most 16 digits) then one space; advances *p. */
static bool parse_hex(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	int digits = 0, d;

	*v = 0;
	if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	while (s < end && (d = hex_digit(*s)) >= 0) {
		if (++digits > 16)
			return false;
		*v = *v << 4 | (uint64_t)d;
		s++;
	}
	if (!digits || s >= end || *s != ' ')
		return false;
	*p = s + 1;
	return true;
}

/* One complete line, without its newline. */
static int add_line(struct perf_map *pm, const char *s, size_t len)
{
	const char *p = s, *end = s + len;
	struct perf_map_sym *sym;
	uint64_t start, size;
	size_t nlen, i;

	pm->lines++;
	if (len && end[-1] == '\r')
		end--;
	if (!parse_hex(&p, end, &start) || !parse_hex(&p, end, &size) || p >= end ||
	    size == 0 || start + size < start) {
		pm->bad_lines++;
		return 0;
	}
	nlen = end - p < PERF_MAP_MAX_NAME ? (size_t)(end - p) : PERF_MAP_MAX_NAME;
	if (pm->nraw >= PERF_MAP_MAX_ENTRIES || pm->nnames + nlen + 1 > PERF_MAP_MAX_NAMES)
		return 0;
	if (array_reserve((void **)&pm->raw, &pm->capraw, pm->nraw + 1, sizeof(*pm->raw), 1024) ||
	    array_reserve((void **)&pm->names, &pm->capnames, pm->nnames + nlen + 1, 1, 65536))
		return -ENOMEM;
	sym = &pm->raw[pm->nraw];
	sym->start = start;
	sym->end = start + size;
	sym->seq = pm->nraw++;
	sym->name = pm->nnames;
	for (i = 0; i < nlen; i++) {
		unsigned char c = p[i];

		pm->names[pm->nnames++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	pm->names[pm->nnames++] = '\0';
	pm->dirty = true;
	return 0;
}

int perf_map_feed(struct perf_map *pm, const char *buf, size_t len)
{
	const char *end = buf + len;
	int err;

	while (buf < end) {
		const char *nl = memchr(buf, '\n', end - buf);
		size_t chunk = nl ? (size_t)(nl - buf) : (size_t)(end - buf);

		if (!pm->skipping && pm->nline + chunk < sizeof(pm->line)) {
			memcpy(pm->line + pm->nline, buf, chunk);
			pm->nline += chunk;
		} else {
			pm->skipping = true;
		}
		if (!nl)
			return 0;
		if (!pm->skipping) {
			err = add_line(pm, pm->line, pm->nline);
			if (err)
				return err;
		} else {
			pm->lines++;
			pm->bad_lines++;
		}
		pm->nline = 0;
		pm->skipping = false;
		buf = nl + 1;
	}
	return 0;
}

/* ---- the index: disjoint ranges, each named by the latest entry there --- */

static int cmp_start(const void *a, const void *b)
{
	const struct perf_map_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* A max-heap of entries by seq: the entries covering the sweep's point. */
static void heap_push(const struct perf_map_sym **h, size_t *n, const struct perf_map_sym *s)
{
	size_t i = (*n)++;

	while (i && h[(i - 1) / 2]->seq < s->seq) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = s;
}

static void heap_pop(const struct perf_map_sym **h, size_t *n)
{
	const struct perf_map_sym *last = h[--(*n)];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= *n)
			break;
		if (c + 1 < *n && h[c + 1]->seq > h[c]->seq)
			c++;
		if (h[c]->seq <= last->seq)
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n)
		h[i] = last;
}

/*
 * Sweep the sorted boundaries: between two of them, the latest entry
 * covering the range names it.  O(n log n), for a map of any shape.
 */
static int build_index(struct perf_map *pm)
{
	struct perf_map_sym *by_start = NULL, *idx = NULL;
	const struct perf_map_sym **heap = NULL;
	size_t n = pm->nraw, np = 0, nh = 0, ni = 0, j = 0, k;
	uint64_t *pts = NULL;
	int err = -ENOMEM;

	by_start = malloc((n ? n : 1) * sizeof(*by_start));
	pts = malloc((2 * n + 1) * sizeof(*pts));
	heap = malloc((n ? n : 1) * sizeof(*heap));
	idx = malloc((2 * n + 1) * sizeof(*idx));
	if (!by_start || !pts || !heap || !idx)
		goto out;
	memcpy(by_start, pm->raw, n * sizeof(*by_start));
	qsort(by_start, n, sizeof(*by_start), cmp_start);
	for (k = 0; k < n; k++) {
		pts[np++] = by_start[k].start;
		pts[np++] = by_start[k].end;
	}
	qsort(pts, np, sizeof(*pts), cmp_u64);
	for (k = 0; k + 1 < np; k++) {
		uint64_t x = pts[k];

		if (pts[k + 1] == x)
			continue;
		while (j < n && by_start[j].start <= x)
			heap_push(heap, &nh, &by_start[j++]);
		while (nh && heap[0]->end <= x)
			heap_pop(heap, &nh);
		if (!nh)
			continue;
		if (ni && idx[ni - 1].end == x && idx[ni - 1].seq == heap[0]->seq) {
			idx[ni - 1].end = pts[k + 1];
			continue;
		}
		idx[ni] = *heap[0];
		idx[ni].start = x;
		idx[ni++].end = pts[k + 1];
	}
	free(pm->idx);
	pm->idx = idx;
	pm->nidx = ni;
	pm->dirty = false;
	idx = NULL;
	err = 0;
out:
	free(by_start);
	free(pts);
	free(heap);
	free(idx);
	return err;
}

const char *perf_map_find(struct perf_map *pm, uint64_t addr)
{
	size_t lo = 0, hi;

	if (pm->dirty && build_index(pm))
		return NULL;
	hi = pm->nidx;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pm->idx[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= pm->idx[lo - 1].end)
		return NULL;
	return pm->names + pm->idx[lo - 1].name;
}
