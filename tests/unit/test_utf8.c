// SPDX-License-Identifier: GPL-2.0
/* UTF-8 from untrusted bytes (util/utf8.h), and protobuf's string fields over it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "formats/protobuf.h"
#include "util/utf8.h"

static void test_char_len(void **state)
{
	static const struct {
		const char *s;
		size_t len;
	} cases[] = {
		{ "a", 1 },
		{ "\xc3\xa9", 2 },		/* é */
		{ "\xe2\x82\xac", 3 },		/* € */
		{ "\xf0\x9f\x94\xa5", 4 },	/* an emoji */
		{ "\xef\xbf\xbd", 3 },		/* U+FFFD itself */
		{ "\xff", 0 },
		{ "\x80", 0 },			/* a continuation byte alone */
		{ "\xc3", 0 },			/* a lead byte cut (a comm's 15th byte) */
		{ "\xc0\xaf", 0 },		/* overlong '/' */
		{ "\xe0\x80\xaf", 0 },		/* overlong, 3 bytes */
		{ "\xed\xa0\x80", 0 },		/* a surrogate */
		{ "\xf4\x90\x80\x80", 0 },	/* past U+10FFFF */
		{ "\xe2\x28\xa1", 0 },		/* a bad continuation */
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(utf8_char_len((const unsigned char *)cases[i].s,
					       strlen(cases[i].s)), cases[i].len);
	/* A sequence longer than what is left is cut. */
	assert_int_equal(utf8_char_len((const unsigned char *)"\xe2\x82\xac", 2), 0);
}

static void test_valid_and_clean(void **state)
{
	size_t n;
	char *c;

	(void)state;
	assert_true(utf8_valid("", 0));
	assert_true(utf8_valid("python3.11", 10));
	assert_true(utf8_valid("caf\xc3\xa9", 5));
	assert_false(utf8_valid("ch\xff" "ain", 6));
	assert_false(utf8_valid("nginx: wor\xc3", 11));
	/* The bytes given, not the string: a NUL inside is valid UTF-8. */
	assert_true(utf8_valid("a\0b", 3));

	c = utf8_clean("ch\xff" "ai\xc3", 6, &n);
	assert_non_null(c);
	assert_string_equal(c, "ch\xef\xbf\xbd" "ai\xef\xbf\xbd");
	assert_int_equal(n, 10);
	assert_true(utf8_valid(c, n));
	free(c);

	/* Valid input comes back the same. */
	c = utf8_clean("caf\xc3\xa9", 5, &n);
	assert_non_null(c);
	assert_string_equal(c, "caf\xc3\xa9");
	assert_int_equal(n, 5);
	free(c);

	/* Every byte bad: three bytes out for each. */
	c = utf8_clean("\x80\x80\xff", 3, &n);
	assert_non_null(c);
	assert_int_equal(n, 9);
	assert_true(utf8_valid(c, n));
	free(c);
}

/* A string field always carries valid UTF-8; bytes fields are left as they are. */
static void test_pb_string(void **state)
{
	struct pb_buf b = { 0 };
	struct pb_reader r;
	struct pb_field f;

	(void)state;
	pb_put_string(&b, 6, "ch\xff", 3);
	pb_put_string(&b, 6, "ok", 2);
	pb_put_bytes(&b, 7, "\xff", 1);
	assert_false(b.oom);
	pb_reader_init(&r, b.data, b.len);
	assert_int_equal(pb_next(&r, &f), 1);
	assert_int_equal(f.num, 6);
	assert_int_equal(f.len, 5);
	assert_memory_equal(f.data, "ch\xef\xbf\xbd", 5);
	assert_int_equal(pb_next(&r, &f), 1);
	assert_int_equal(f.len, 2);
	assert_memory_equal(f.data, "ok", 2);
	assert_int_equal(pb_next(&r, &f), 1);
	assert_int_equal(f.num, 7);
	assert_int_equal(f.len, 1);
	assert_int_equal(pb_next(&r, &f), 0);
	pb_buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_char_len),
		cmocka_unit_test(test_valid_and_clean),
		cmocka_unit_test(test_pb_string),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
