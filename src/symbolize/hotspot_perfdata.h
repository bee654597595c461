/* SPDX-License-Identifier: GPL-2.0 */
/*
 * HotSpot's perf data: the counters a JVM keeps in a file it maps shared
 * (/tmp/hsperfdata_USER/PID, what jstat reads; runtime/perfMemory.hpp),
 * here for one of them, java.cls.unloadedClasses: when it moves, memory
 * that held a class's methods may hold another's.  The bytes are the
 * process's own: the parser reads inside them and stops.
 */
#ifndef STITCH_SYMBOLIZE_HOTSPOT_PERFDATA_H
#define STITCH_SYMBOLIZE_HOTSPOT_PERFDATA_H

#include <stddef.h>
#include <stdint.h>

/*
 * In a copy of perf data (buf, len; the prologue, then entries of a
 * length, a name's offset, a type, a value's offset): the offset from
 * buf of the scalar long counter named name.  0 and *off, or -ENOENT.
 */
int hotspot_perfdata_find(const uint8_t *buf, size_t len, const char *name, uint64_t *off);

/* The address of pid's counter named name, from the perf data it maps: 0 if none. */
uint64_t hotspot_perfdata_counter(uint32_t pid, const char *name);

#endif /* STITCH_SYMBOLIZE_HOTSPOT_PERFDATA_H */
