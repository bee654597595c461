// SPDX-License-Identifier: GPL-2.0
/* HotSpot's compressed streams (symbolize/hotspot_stream.h): values, tables, bounds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "symbolize/hotspot_stream.h"

/* An UNSIGNED5 writer, as HotSpot's: bytes >= L carry on; each stored plus x. */
static size_t put_u5(uint8_t *p, uint32_t v, uint8_t x)
{
	uint32_t l = 192 - x;
	size_t n = 0;

	while (n < 4 && v >= l) {
		uint32_t b = l + (v - l) % 64;

		p[n++] = (uint8_t)(b + x);
		v = (v - b) >> 6;
	}
	p[n++] = (uint8_t)(v + x);
	return n;
}

static size_t put_s5(uint8_t *p, int32_t v, uint8_t x)
{
	return put_u5(p, ((uint32_t)v << 1) ^ (uint32_t)(v >> 31), x);
}

/* Values round-trip in both encodings; 17's single bytes are 0..191, 25's 1..191. */
static void test_u5_values(void **state)
{
	static const uint32_t vals[] = { 0, 1, 190, 191, 192, 255, 1000, 12345, 1u << 20,
					 0x7fffffff };
	uint8_t buf[8];
	uint8_t x;
	size_t i;

	(void)state;
	for (x = 0; x <= 1; x++)
		for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
			size_t n = put_u5(buf, vals[i], x), pos = 0;
			uint32_t got;

			assert_true(n <= 5);
			assert_true(hotspot_u5_read(buf, n, &pos, x, &got));
			assert_int_equal(got, vals[i]);
			assert_int_equal(pos, n);
		}
	/*
	 * One byte: 17's 191 is a value; 25 stores its 190 as 191, and its
	 * 191 (stored 192) says more follows.
	 */
	{
		size_t pos = 0;
		uint32_t got;

		buf[0] = 191;
		assert_true(hotspot_u5_read(buf, 1, &pos, 0, &got));
		assert_int_equal(got, 191);
		pos = 0;
		assert_true(hotspot_u5_read(buf, 1, &pos, 1, &got));
		assert_int_equal(got, 190);
		buf[0] = 192;
		pos = 0;
		assert_false(hotspot_u5_read(buf, 1, &pos, 1, &got));
	}
}

/* Signed values, a zero byte in 25's stream, and a value cut by the buffer's end. */
static void test_s5_and_bounds(void **state)
{
	uint8_t buf[16];
	size_t n, pos = 0;
	int32_t s;
	uint32_t u;

	(void)state;
	n = put_s5(buf, -5, 1);
	n += put_s5(buf + n, 70000, 1);
	assert_true(hotspot_s5_read(buf, n, &pos, 1, &s));
	assert_int_equal(s, -5);
	assert_true(hotspot_s5_read(buf, n, &pos, 1, &s));
	assert_int_equal(s, 70000);
	assert_false(hotspot_s5_read(buf, n, &pos, 1, &s));
	buf[0] = 0;
	pos = 0;
	assert_false(hotspot_u5_read(buf, 1, &pos, 1, &u));
	/* 200 says more follows: with nothing after it, no value. */
	buf[0] = 200;
	pos = 0;
	assert_false(hotspot_u5_read(buf, 1, &pos, 0, &u));
}

/*
 * A table as javac's line numbers make it: bci 0 line 10, bci 4 line 11,
 * bci 9 line 13 (small steps, a byte each), bci 300 line 2 (a 0xff entry:
 * a big bci step, a line going back), then the end.
 */
static size_t table(uint8_t *t, uint8_t x)
{
	size_t n = 0;

	t[n++] = 0xff;
	n += put_s5(t + n, 0, x);
	n += put_s5(t + n, 10, x);
	t[n++] = 4 << 3 | 1;
	t[n++] = 5 << 3 | 2;
	t[n++] = 0xff;
	n += put_s5(t + n, 291, x);
	n += put_s5(t + n, -11, x);
	t[n++] = 0;
	return n;
}

static void test_line_table(void **state)
{
	uint8_t t[64];
	uint8_t x;

	(void)state;
	for (x = 0; x <= 1; x++) {
		size_t n = table(t, x);

		assert_int_equal(hotspot_line_of(t, n, x, 0), 10);
		assert_int_equal(hotspot_line_of(t, n, x, 3), 10);
		assert_int_equal(hotspot_line_of(t, n, x, 4), 11);
		assert_int_equal(hotspot_line_of(t, n, x, 8), 11);
		assert_int_equal(hotspot_line_of(t, n, x, 9), 13);
		assert_int_equal(hotspot_line_of(t, n, x, 299), 13);
		assert_int_equal(hotspot_line_of(t, n, x, 300), 2);
		assert_int_equal(hotspot_line_of(t, n, x, 5000), 2);
		assert_int_equal(hotspot_line_of(t, n, x, -1), 0);
		/* Cut inside the 0xff entry: what was read before it, nothing after. */
		assert_int_equal(hotspot_line_of(t, n - 3, x, 300), 0);
	}
	assert_int_equal(hotspot_line_of(NULL, 0, 0, 3), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_u5_values),
		cmocka_unit_test(test_s5_and_bounds),
		cmocka_unit_test(test_line_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
