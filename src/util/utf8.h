/* SPDX-License-Identifier: GPL-2.0 */
/*
 * UTF-8 from untrusted bytes: names of processes, files and functions come
 * from traced programs and the kernel (a 15-byte comm cut mid-character),
 * and protobuf's strings, JSON and XML must be valid UTF-8 (Pyroscope,
 * Parca and OTLP collectors refuse a push whose strings are not, with 400).
 */
#ifndef STITCH_UTIL_UTF8_H
#define STITCH_UTIL_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The length (1-4) of the valid UTF-8 sequence at s (at most n bytes, n >
 * 0), 0 if it is not one: a stray continuation byte, a cut sequence, an
 * overlong form, a surrogate or a code point past U+10FFFF.
 */
size_t utf8_char_len(const unsigned char *s, size_t n);

/* s[0..n) is valid UTF-8 throughout. */
bool utf8_valid(const char *s, size_t n);

/*
 * s[0..n) with each byte that starts no valid sequence replaced by U+FFFD
 * (EF BF BD), NUL-terminated, malloc'd; its length in *len.  NULL: no memory.
 */
char *utf8_clean(const char *s, size_t n, size_t *len);

#endif /* STITCH_UTIL_UTF8_H */
