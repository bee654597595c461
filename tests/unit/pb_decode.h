/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading an encoded message back in the unit tests of the agent's encoders
 * (test_push_*.c), with protobuf.h's reader: a field by number and
 * occurrence, failing the test when it is absent or of the wrong wire type.
 * Include after <cmocka.h>.
 */
#ifndef STITCH_UNIT_PB_DECODE_H
#define STITCH_UNIT_PB_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "formats/protobuf.h"

struct msg {
	const uint8_t *p;
	size_t len;
};

static inline struct msg msg_of(const void *p, size_t len)
{
	return (struct msg){ p, len };
}

/* Occurrences of field num; the whole message must decode. */
static inline int pb_count(struct msg m, uint32_t num)
{
	struct pb_reader r;
	struct pb_field f;
	int n = 0, rc;

	pb_reader_init(&r, m.p, m.len);
	while ((rc = pb_next(&r, &f)) == 1)
		n += f.num == num;
	assert_int_equal(rc, 0);
	return n;
}

/* Occurrence idx of field num, which must exist with wire type wire. */
static inline struct pb_field pb_get(struct msg m, uint32_t num, int idx, int wire)
{
	struct pb_reader r;
	struct pb_field f;
	int rc;

	pb_reader_init(&r, m.p, m.len);
	while ((rc = pb_next(&r, &f)) == 1) {
		if (f.num == num && idx-- == 0) {
			assert_int_equal(f.wire, wire);
			return f;
		}
	}
	fail_msg("no field %u (occurrence %d)", num, idx);
	return f;
}

/* A nested message (or bytes). */
static inline struct msg pb_msg(struct msg m, uint32_t num, int idx)
{
	struct pb_field f = pb_get(m, num, idx, PB_LEN);

	return msg_of(f.data, f.len);
}

/* A varint field's value, 0 when absent (proto3's default). */
static inline uint64_t pb_uint(struct msg m, uint32_t num)
{
	return pb_count(m, num) ? pb_get(m, num, 0, PB_VARINT).v : 0;
}

/* A string field compared with want ("" when absent). */
static inline bool pb_str_is(struct msg m, uint32_t num, const char *want)
{
	struct msg s = pb_count(m, num) ? pb_msg(m, num, 0) : msg_of("", 0);

	return s.len == strlen(want) && memcmp(s.p, want, s.len) == 0;
}

/* Every field of m is one of the n numbers in known: no field the schema lacks. */
static inline void pb_only(struct msg m, const uint32_t *known, int n)
{
	struct pb_reader r;
	struct pb_field f;
	int rc, i;

	pb_reader_init(&r, m.p, m.len);
	while ((rc = pb_next(&r, &f)) == 1) {
		for (i = 0; i < n && known[i] != f.num; i++)
			;
		if (i == n)
			fail_msg("unexpected field %u", f.num);
	}
	assert_int_equal(rc, 0);
}

/* The values of a packed (or not) repeated varint field, up to max; their count. */
static inline int pb_packed(struct msg m, uint32_t num, uint64_t *out, int max)
{
	struct pb_scalars s;
	struct pb_reader r;
	struct pb_field f;
	int n = 0, rc, k;
	uint64_t v;

	pb_reader_init(&r, m.p, m.len);
	while ((rc = pb_next(&r, &f)) == 1) {
		if (f.num != num)
			continue;
		assert_int_equal(pb_scalars_init(&s, &f), 0);
		while ((k = pb_scalars_next(&s, &v)) == 1) {
			assert_true(n < max);
			out[n++] = v;
		}
		assert_int_equal(k, 0);
	}
	assert_int_equal(rc, 0);
	return n;
}

#endif /* STITCH_UNIT_PB_DECODE_H */
