/* SPDX-License-Identifier: GPL-2.0 */
/*
 * HotSpot's compressed streams, as a JVM's memory holds them: its
 * UNSIGNED5 integers (scope descriptors, line number tables) and the line
 * number table itself.  Pure functions over bytes read from the process:
 * whatever the bytes, they read inside the buffer and stop.
 */
#ifndef STITCH_SYMBOLIZE_HOTSPOT_STREAM_H
#define STITCH_SYMBOLIZE_HOTSPOT_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * One UNSIGNED5 value at p[*pos] (utilities/unsigned5.hpp; 17's
 * compressedStream.hpp): bytes below 192 - x end it, each byte after the
 * first carrying 6 more bits, 5 bytes at most; every byte is stored plus x,
 * 1 in JDK 25 (no zero byte), 0 before.  False past len or on a byte below x.
 */
bool hotspot_u5_read(const uint8_t *p, size_t len, size_t *pos, uint8_t x, uint32_t *out);

/* A signed one: zigzag over UNSIGNED5. */
bool hotspot_s5_read(const uint8_t *p, size_t len, size_t *pos, uint8_t x, int32_t *out);

/*
 * The source line of bytecode index bci from a method's compressed line
 * number table (method.cpp's rule: the entry at bci, else the last one
 * before it): a byte (bci delta << 3 | line delta) for small steps, 0xff
 * then two signed values for others, 0 at the end.  0: unknown.
 */
uint32_t hotspot_line_of(const uint8_t *table, size_t len, uint8_t x, int64_t bci);

#endif /* STITCH_SYMBOLIZE_HOTSPOT_STREAM_H */
