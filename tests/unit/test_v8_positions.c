// SPDX-License-Identifier: GPL-2.0
/*
 * V8's source position tables as a node process holds them, decoded from
 * untrusted bytes (symbolize/v8_inlined.h): the entry at a code offset,
 * and the inlining id and script offset of a position.  The tables here are written as V8
 * writes them (src/codegen/source-position-table.cc: zigzag varints, 7
 * bits a byte, the low first; a non-statement code delta d written -d - 1).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "symbolize/v8_inlined.h"

struct table {
	uint8_t b[256];
	size_t len;
	int64_t code;
	uint64_t pos;
};

static void put_varint(struct table *t, int64_t v)
{
	uint64_t u = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);

	do {
		t->b[t->len++] = (uint8_t)((u & 0x7f) | (u > 0x7f ? 0x80 : 0));
		u >>= 7;
	} while (u);
}

static void put(struct table *t, int64_t code, uint64_t pos, bool statement)
{
	int64_t d = code - t->code;

	put_varint(t, statement ? d : -d - 1);
	put_varint(t, (int64_t)(pos - t->pos));
	t->code = code;
	t->pos = pos;
}

/* A SourcePosition: script offset and inlining id, each stored + 1. */
static uint64_t position(int64_t script_offset, int inlining)
{
	return ((uint64_t)(script_offset + 1) << 1) | ((uint64_t)(inlining + 1) << 31);
}

static void test_entry_at_offset(void **state)
{
	struct table t = { .code = -1 };
	uint64_t p = 0;

	(void)state;
	put(&t, 0, position(120, -1), true);
	put(&t, 10, position(300, 2), false);
	put(&t, 25, position(40, 0), false);
	put(&t, 4000, position(7, 5), true);
	assert_true(v8_position_find(t.b, t.len, 0, &p));
	assert_int_equal(p, position(120, -1));
	assert_int_equal(v8_position_inlining(p), -1);
	assert_true(v8_position_find(t.b, t.len, 9, &p));
	assert_int_equal(p, position(120, -1));
	assert_true(v8_position_find(t.b, t.len, 10, &p));
	assert_int_equal(p, position(300, 2));
	assert_int_equal(v8_position_inlining(p), 2);
	assert_true(v8_position_find(t.b, t.len, 24, &p));
	assert_int_equal(v8_position_inlining(p), 2);
	/* A position lower than the one before: a negative delta. */
	assert_true(v8_position_find(t.b, t.len, 25, &p));
	assert_int_equal(p, position(40, 0));
	assert_int_equal(v8_position_inlining(p), 0);
	/* A code delta of two bytes; past the last entry, the last. */
	assert_true(v8_position_find(t.b, t.len, 1u << 20, &p));
	assert_int_equal(p, position(7, 5));
	assert_int_equal(v8_position_inlining(p), 5);
}

static void test_none_before_first(void **state)
{
	struct table t = { .code = -1 };
	uint64_t p = 0;

	(void)state;
	put(&t, 16, position(1, -1), true);
	assert_false(v8_position_find(t.b, t.len, 15, &p));
	assert_true(v8_position_find(t.b, t.len, 16, &p));
	assert_false(v8_position_find(t.b, 0, 100, &p));
}

/*
 * A BytecodeArray's table may start with its function's entry, at code
 * offset -1 (a first delta of 0): before every offset, the position of
 * offset 0 until an entry of its own.
 */
static void test_function_entry(void **state)
{
	struct table t = { .code = -1 };
	uint64_t p = 0;

	(void)state;
	put(&t, -1, position(50, -1), true);
	put(&t, 3, position(80, -1), false);
	put(&t, 9, position(95, -1), true);
	assert_true(v8_position_find(t.b, t.len, 0, &p));
	assert_int_equal(p, position(50, -1));
	assert_true(v8_position_find(t.b, t.len, 3, &p));
	assert_int_equal(p, position(80, -1));
	assert_true(v8_position_find(t.b, t.len, 8, &p));
	assert_int_equal(p, position(80, -1));
	assert_true(v8_position_find(t.b, t.len, 200, &p));
	assert_int_equal(p, position(95, -1));
}

/* Bytes that end mid-entry, or a varint that never ends: what came before stands. */
static void test_cut_and_hostile(void **state)
{
	struct table t = { .code = -1 };
	uint8_t forever[32];
	uint64_t p = 0;
	size_t whole;

	(void)state;
	put(&t, 0, position(5, -1), true);
	whole = t.len;
	put(&t, 8, position(9, 1), true);
	assert_true(v8_position_find(t.b, t.len - 1, 100, &p));
	assert_int_equal(p, position(5, -1));
	assert_true(v8_position_find(t.b, whole + 1, 100, &p));
	assert_int_equal(p, position(5, -1));
	memset(forever, 0xff, sizeof(forever));
	assert_false(v8_position_find(forever, sizeof(forever), 100, &p));
	/* A code delta no code has (2^40): not V8's, nothing past it read. */
	t.len = whole;
	put_varint(&t, (int64_t)1 << 40);
	put_varint(&t, 2);
	assert_true(v8_position_find(t.b, t.len, UINT64_MAX, &p));
	assert_int_equal(p, position(5, -1));
}

/*
 * A position's script offset, for the line a frame is at: stored + 1 in
 * bits 1-30 beside the inlining id; none (stored 0) and an external
 * position (bit 0: a line of a file that is not a script) give -1.
 */
static void test_script_offset(void **state)
{
	(void)state;
	assert_int_equal(v8_position_offset(position(0, -1)), 0);
	assert_int_equal(v8_position_offset(position(120, 3)), 120);
	assert_int_equal(v8_position_inlining(position(120, 3)), 3);
	/* The largest offset, beside the largest inlining id: neither spills into the other. */
	assert_int_equal(v8_position_offset(position(0x3ffffffe, 0xfffe)), 0x3ffffffe);
	assert_int_equal(v8_position_inlining(position(0x3ffffffe, 0xfffe)), 0xfffe);
	assert_int_equal(v8_position_offset(position(-1, 2)), -1);
	assert_int_equal(v8_position_offset(position(55, -1) | 1), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_entry_at_offset),
		cmocka_unit_test(test_none_before_first),
		cmocka_unit_test(test_function_entry),
		cmocka_unit_test(test_cut_and_hostile),
		cmocka_unit_test(test_script_offset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
