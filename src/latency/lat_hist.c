// SPDX-License-Identifier: GPL-2.0
/* Percentiles and the power-of-two histogram of the calls' durations. */
#include <inttypes.h>
#include <string.h>

#include "latency/lat_hist.h"

uint64_t lat_hist_quantile(const struct lat_hist *h, double q)
{
	uint64_t rank, seen = 0, mid;
	uint32_t i;

	if (!h->total)
		return 0;
	/* The rank-th call in order of duration, 1-based: at least the first. */
	rank = (uint64_t)(q * (double)h->total + 0.999999);
	if (rank < 1)
		rank = 1;
	if (rank > h->total)
		rank = h->total;
	for (i = 0; i < LAT_BUCKETS; i++) {
		seen += h->counts[i];
		if (seen < rank)
			continue;
		/* The middle of its bucket: within half a bucket (1/32) of the truth. */
		mid = lat_bucket_low(i) + lat_bucket_width(i) / 2;
		return h->max_ns && mid > h->max_ns ? h->max_ns : mid;
	}
	return h->max_ns;
}

void lat_hist_log2(const struct lat_hist *h, uint64_t counts[64])
{
	uint32_t i;

	memset(counts, 0, 64 * sizeof(counts[0]));
	/* A fine bucket lies inside one power of two: its low bound's. */
	for (i = 0; i < LAT_BUCKETS; i++) {
		uint64_t low = lat_bucket_low(i);
		int k = low ? 63 - __builtin_clzll(low) : 0;

		counts[k] += h->counts[i];
	}
}

struct time_unit {
	double ns;		/* nanoseconds in one */
	const char *name;
	int decimals;		/* lat_format_ns's */
};

/* The largest unit a time has one of: s, ms, us or ns. */
static const struct time_unit *unit_of(uint64_t ns)
{
	static const struct time_unit units[] = {
		{ 1e9, "s", 2 }, { 1e6, "ms", 2 }, { 1e3, "us", 1 }, { 1, "ns", 0 },
	};
	size_t i;

	for (i = 0; i + 1 < sizeof(units) / sizeof(units[0]) && ns < units[i].ns; i++)
		;
	return &units[i];
}

void lat_format_ns(char *buf, size_t len, uint64_t ns)
{
	const struct time_unit *u = unit_of(ns);

	/* Ten seconds and more: whole seconds. */
	snprintf(buf, len, "%.*f %s", ns >= 10000000000ull ? 0 : u->decimals, ns / u->ns,
		 u->name);
}

/* Bounds printed short: 512 ns, 1 us, 2 us, ... 1 ms, 2 ms (powers of two, rounded). */
static void bound(char *buf, size_t len, uint64_t ns)
{
	const struct time_unit *u = unit_of(ns);

	snprintf(buf, len, "%.3g %s", ns / u->ns, u->name);
}

void lat_hist_print(const struct lat_hist *h, FILE *f)
{
	uint64_t counts[64], most = 0;
	int k, first = -1, last = -1, j;
	char lo[24], hi[24];

	lat_hist_log2(h, counts);
	for (k = 0; k < 64; k++) {
		if (!counts[k])
			continue;
		if (first < 0)
			first = k;
		last = k;
		if (counts[k] > most)
			most = counts[k];
	}
	if (first < 0)
		return;
	fprintf(f, "%22s : %-10s distribution\n", "duration", "count");
	for (k = first; k <= last; k++) {
		int bar = most ? (int)((counts[k] * 40 + most - 1) / most) : 0;

		bound(lo, sizeof(lo), k ? 1ull << k : 0);
		bound(hi, sizeof(hi), k < 63 ? 1ull << (k + 1) : UINT64_MAX);
		fprintf(f, "%9s -> %-9s: %-10" PRIu64 " |", lo, hi, counts[k]);
		for (j = 0; j < 40; j++)
			fputc(j < bar ? '*' : ' ', f);
		fputs("|\n", f);
	}
}
