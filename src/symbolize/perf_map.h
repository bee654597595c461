/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf map files: the names JIT runtimes give their generated code, one
 * symbol a line, "START SIZE name", START and SIZE in hex (V8's
 * --perf-basic-prof, HotSpot's -XX:+DumpPerfMapAtExit and
 * `jcmd PID Compiler.perfmap`, CPython's -X perf).  The file is appended
 * to while the program runs, and code is moved and its memory reused: where
 * entries overlap, the later one names the address.
 *
 * The file comes from a traced process: lines, names, entries and bytes are
 * bounded, malformed lines skipped, control characters in names replaced.
 */
#ifndef STITCH_SYMBOLIZE_PERF_MAP_H
#define STITCH_SYMBOLIZE_PERF_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PERF_MAP_MAX_LINE	4096		/* longer lines are skipped whole */
#define PERF_MAP_MAX_NAME	512		/* longer names are cut */
#define PERF_MAP_MAX_ENTRIES	(1u << 20)	/* entries kept; later lines ignored */
#define PERF_MAP_MAX_NAMES	(32u << 20)	/* bytes of names kept, likewise */

struct perf_map_sym {
	uint64_t start, end;	/* [start, end) */
	uint32_t seq;		/* line order: the later entry wins an overlap */
	uint32_t name;		/* offset in names */
};

struct perf_map {
	struct perf_map_sym *raw;	/* every entry, in file order */
	size_t nraw, capraw;
	struct perf_map_sym *idx;	/* disjoint ranges sorted by start, each its winner's */
	size_t nidx;
	char *names;
	size_t nnames, capnames;
	bool dirty;			/* idx lags raw */
	char line[PERF_MAP_MAX_LINE];	/* a line not complete yet */
	size_t nline;
	bool skipping;			/* in a line too long to keep */
	uint64_t lines, bad_lines;
};

void perf_map_init(struct perf_map *pm);
void perf_map_free(struct perf_map *pm);
/*
 * Feed bytes as read from the file; lines may be split anywhere between
 * calls (a line is used once its newline comes).  0, or -ENOMEM.
 */
int perf_map_feed(struct perf_map *pm, const char *buf, size_t len);
/* The name covering addr, or NULL. */
const char *perf_map_find(struct perf_map *pm, uint64_t addr);

#endif /* STITCH_SYMBOLIZE_PERF_MAP_H */
