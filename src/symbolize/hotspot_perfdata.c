// SPDX-License-Identifier: GPL-2.0
/* A JVM's perf data counters: see hotspot_perfdata.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/hotspot_meta.h"
#include "symbolize/hotspot_perfdata.h"

/*
 * PerfDataPrologue: magic 0xcafec0c0 (stored big-endian), byte order (1:
 * little), major and minor version, accessible, used bytes (int32 at 8),
 * overflow, a time stamp, the first entry's offset (int32 at 24), the
 * number of entries (int32 at 28).  PerfDataEntry: its length, its name's
 * offset, a vector length (0: scalar), the type ('J': a long), flags,
 * units, variability, its value's offset; offsets from the entry.
 */
#define PD_PROLOGUE	32
#define PD_ENTRY	20
#define PD_MAX_ENTRIES	4096		/* 193 in OpenJDK 17 */
#define PD_MAX_BYTES	(1 << 20)	/* 32 KiB by default (-XX:PerfDataMemorySize) */

static int32_t s32(const uint8_t *p)
{
	int32_t v;

	memcpy(&v, p, 4);
	return v;
}

int hotspot_perfdata_find(const uint8_t *buf, size_t len, const char *name, uint64_t *off)
{
	static const uint8_t magic[4] = { 0xca, 0xfe, 0xc0, 0xc0 };
	size_t name_len = strlen(name), at;
	int32_t used, first, n, i;

	if (len < PD_PROLOGUE || memcmp(buf, magic, 4) || buf[4] != 1 || buf[5] != 2)
		return -ENOENT;
	used = s32(buf + 8);
	first = s32(buf + 24);
	n = s32(buf + 28);
	if (used < PD_PROLOGUE || (size_t)used > len || first < PD_PROLOGUE || first > used ||
	    n < 0 || n > PD_MAX_ENTRIES)
		return -ENOENT;
	len = (size_t)used;
	for (i = 0, at = (size_t)first; i < n && at + PD_ENTRY <= len; i++) {
		const uint8_t *e = buf + at;
		int32_t elen = s32(e), noff = s32(e + 4), vlen = s32(e + 8), doff = s32(e + 16);

		if (elen < PD_ENTRY || (size_t)elen > len - at)
			return -ENOENT;
		if (noff >= PD_ENTRY && noff < elen && (size_t)(elen - noff) > name_len &&
		    !memcmp(e + noff, name, name_len + 1)) {
			if (vlen || e[12] != 'J' || doff < PD_ENTRY || doff > elen - 8)
				return -ENOENT;
			*off = at + (size_t)doff;
			return 0;
		}
		at += (size_t)elen;
	}
	return -ENOENT;
}

/* Where pid maps its perf data file: its start and size, or 0. */
static uint64_t perfdata_map(uint32_t pid, uint64_t *size)
{
	char path[64], line[512];
	uint64_t start = 0, lo, hi;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char perms[8];

		if (!strstr(line, "/hsperfdata_") ||
		    sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s", &lo, &hi, perms) != 3 ||
		    hi <= lo || perms[0] != 'r' || perms[3] != 's')
			continue;
		start = lo;
		*size = hi - lo;
		break;
	}
	fclose(f);
	return start;
}

uint64_t hotspot_perfdata_counter(uint32_t pid, const char *name)
{
	uint64_t start, size = 0, off;
	uint8_t head[PD_PROLOGUE], *buf;
	int32_t used;

	start = perfdata_map(pid, &size);
	if (!start || hotspot_mem(pid, start, head, sizeof(head)))
		return 0;
	used = s32(head + 8);
	if (used < PD_PROLOGUE || (uint64_t)used > size || used > PD_MAX_BYTES)
		return 0;
	buf = malloc((size_t)used);
	if (!buf)
		return 0;
	if (hotspot_mem(pid, start, buf, (size_t)used) ||
	    hotspot_perfdata_find(buf, (size_t)used, name, &off))
		off = 0;
	free(buf);
	return off ? start + off : 0;
}
