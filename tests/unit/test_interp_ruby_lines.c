// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for the succinct index of Ruby's insns_info (ruby_lines.c): ranks
 * of every position in tables laid out as iseq.c's succ_index_table_create
 * lays them out (54 positions in 7-bit ranks, 9 a word; then blocks of 512
 * positions: a u32 rank, seven 9-bit small-block ranks, eight bitmaps), and
 * the check that rejects a copy that is not such an index (a freed iseq's
 * reused memory): no lines rather than wrong ones.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "interp/ruby/ruby.h"

#define IMM 54

/* The index of an iseq of max_pos positions whose entries start at pos[0..n). */
static uint8_t *make_index(uint32_t max_pos, const uint32_t *pos, uint32_t n, size_t *len)
{
	uint32_t imm = (max_pos < IMM ? max_pos + 8 : IMM) / 9;
	uint32_t blocks = max_pos < IMM ? 0 : (max_pos - IMM + 511) / 512, x, r = 0, k, j;
	uint8_t *t;

	*len = imm * 8 + blocks * 80;
	t = calloc(1, *len);
	assert_non_null(t);
	for (x = 0; x < imm * 9; x++) {
		uint64_t w;

		if (r < n && pos[r] == x)
			r++;
		memcpy(&w, t + (x / 9) * 8, 8);
		w |= (uint64_t)r << ((x % 9) * 7);
		memcpy(t + (x / 9) * 8, &w, 8);
	}
	for (k = 0; k < blocks; k++) {
		uint8_t *b = t + imm * 8 + k * 80;
		uint64_t small_ranks = 0;
		uint32_t small = 0;

		memcpy(b, &r, 4);
		for (j = 0; j < 8; j++) {
			uint64_t bits = 0;

			if (j)
				small_ranks |= (uint64_t)small << ((j - 1) * 9);
			for (x = 0; x < 64; x++) {
				if (r < n && pos[r] == IMM + k * 512 + j * 64 + x) {
					bits |= 1ULL << x;
					r++;
					small++;
				}
			}
			memcpy(b + 16 + j * 8, &bits, 8);
		}
		memcpy(b + 8, &small_ranks, 8);
	}
	return t;
}

/* Every position's rank is the number of entries starting at or before it. */
static void expect_ranks(const uint8_t *t, size_t len, uint32_t max_pos, const uint32_t *pos,
			 uint32_t n)
{
	uint32_t x, r, want = 0;

	for (x = 0; x < max_pos; x++) {
		while (want < n && pos[want] <= x)
			want++;
		assert_true(rb_succ_rank(t, len, x, &r));
		assert_int_equal(r, want);
	}
}

static void test_small_index(void **state)
{
	/* where burn's lines 43-46 start in 3.3's disasm of it (30 positions) */
	static const uint32_t pos[] = { 0, 3, 27, 29 };
	size_t len;
	uint8_t *t = make_index(30, pos, 4, &len);

	(void)state;
	assert_int_equal(len, 32);	/* (30 + 8) / 9 words: the allocation ends there */
	expect_ranks(t, len, 30, pos, 4);
	assert_true(rb_succ_check(t, len, 30, 4));
	free(t);
}

static void test_big_index(void **state)
{
	uint32_t pos[400], n = 0, x, r;
	size_t len;
	uint8_t *t;

	(void)state;
	/* 2,000 positions: the immediate part and four blocks, entries every 5th and at 1,999 */
	for (x = 0; x < 2000 && n < 400; x += 5)
		pos[n++] = x;
	pos[n - 1] = 1999;
	t = make_index(2000, pos, n, &len);
	assert_int_equal(len, 48 + 4 * 80);
	expect_ranks(t, len, 2000, pos, n);
	assert_true(rb_succ_check(t, len, 2000, n));
	/* Past the table: no rank. */
	assert_false(rb_succ_rank(t, len, 2000 + 512, &r));
	assert_false(rb_succ_rank(t, 8, 9, &r));
	free(t);
}

/* Memory that is not this iseq's index gives no lines. */
static void test_check_rejects(void **state)
{
	static const uint32_t pos[] = { 0, 3, 27, 29 };
	uint32_t big[100], n = 0, x;
	size_t len, blen;
	uint8_t *t = make_index(30, pos, 4, &len), *b;
	uint64_t w;

	(void)state;
	/* Another entry count, another size, a length that is not the iseq's. */
	assert_false(rb_succ_check(t, len, 30, 5));
	assert_false(rb_succ_check(t, len, 30, 3));
	assert_false(rb_succ_check(t, len, 40, 4));
	assert_false(rb_succ_check(t, len - 8, 30, 4));
	assert_false(rb_succ_check(t, len, 0, 4));
	/* No entry at position 0. */
	memcpy(&w, t, 8);
	memcpy(t, &(uint64_t){ w & ~0x7fULL }, 8);
	assert_false(rb_succ_check(t, len, 30, 4));
	memcpy(t, &w, 8);
	/* A rank that falls (position 9's below position 8's). */
	memcpy(&w, t + 8, 8);
	memcpy(t + 8, &(uint64_t){ w & ~0x7fULL }, 8);
	assert_false(rb_succ_check(t, len, 30, 4));
	free(t);

	for (x = 0; x < 700 && n < 100; x += 7)
		big[n++] = x;
	b = make_index(700, big, n, &blen);
	assert_true(rb_succ_check(b, blen, 700, n));
	/* A block whose rank is not where the immediate part left off... */
	memcpy(&x, b + 48, 4);
	x -= 2;
	memcpy(b + 48, &x, 4);
	assert_false(rb_succ_check(b, blen, 700, n));
	/* ...or counts more entries than the iseq has. */
	x += 2 + 200;
	memcpy(b + 48, &x, 4);
	assert_false(rb_succ_check(b, blen, 700, n));
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_index),
		cmocka_unit_test(test_big_index),
		cmocka_unit_test(test_check_rejects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
