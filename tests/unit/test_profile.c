// SPDX-License-Identifier: GPL-2.0
/*
 * The profile model and its plain-text companions: interning, merging,
 * the folded reader (round trip with the folded writer), filters, and the
 * speedscope writer's escaping.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "profile/filter.h"
#include "formats/input.h"
#include "formats/output.h"
#include "profile/profile.h"

static char *folded_of(const struct profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(profile_write_folded(f, p), 0);
	fclose(f);
	return buf;
}

static void read_folded(struct profile *p, const char *text)
{
	char err[256] = "";

	profile_init(p);
	if (profile_read_folded(text, strlen(text), p, "t.folded", err, sizeof(err)) != 0)
		fail_msg("read_folded: %s", err);
}

static void test_interning(void **state)
{
	struct profile p;
	struct prof_frame f = { .kind = FRAME_USER };
	uint32_t a, b;

	profile_init(&p);
	assert_int_equal(profile_str(&p, ""), 0);
	assert_int_equal(profile_str(&p, NULL), 0);
	a = profile_str(&p, "main");
	assert_int_equal(profile_str(&p, "main"), a);
	assert_string_equal(profile_s(&p, a), "main");
	assert_string_equal(profile_s(&p, 999999), "");
	f.name = a;
	b = profile_frame(&p, &f);
	assert_int_equal(profile_frame(&p, &f), b);
	f.kind = FRAME_KERNEL;	/* same name, other kind: another frame */
	assert_int_not_equal(profile_frame(&p, &f), b);
	assert_int_equal(profile_module(&p, "/lib/libc.so.6", "abcd"), 0);
	assert_int_equal(profile_module(&p, "/lib/libc.so.6", "ffff"), 0);	/* first wins */
	assert_string_equal(profile_module_build_id(&p, profile_str(&p, "/lib/libc.so.6")), "abcd");
	assert_null(profile_module_build_id(&p, a));
	profile_free(&p);
}

static void test_folded_round_trip(void **state)
{
	static const char text[] =
		"app;[truncated];deep 2\n"
		"app;main;do_work;inlined_helper_[i];write;entry_SYSCALL_64_[k] 7\n"
		"other;main 1\n";
	struct profile p;
	char *out;

	read_folded(&p, text);
	assert_int_equal(p.total, 10);
	assert_int_equal(p.nsamples, 3);
	/* Samples are sorted by count: the 7 first.  Kinds come from suffixes and markers. */
	assert_int_equal(p.samples[0].count, 7);
	assert_int_equal(p.frames[p.samples[0].frames[2]].kind, FRAME_INLINED);
	assert_int_equal(p.frames[p.samples[0].frames[4]].kind, FRAME_KERNEL);
	assert_string_equal(profile_s(&p, p.frames[p.samples[0].frames[4]].name),
			    "entry_SYSCALL_64");
	assert_int_equal(p.frames[p.samples[1].frames[0]].kind, FRAME_MARK);
	out = folded_of(&p);
	assert_string_equal(out, text);	/* sorted input: the identity */
	free(out);
	profile_free(&p);
}

static void test_folded_merges_and_tolerates(void **state)
{
	/* CRLF, blank lines, comments, a name with spaces, duplicate stacks. */
	static const char text[] =
		"# produced by hand\r\n"
		"\n"
		"app;operator new[] (unsigned long);main 2\r\n"
		"app;operator new[] (unsigned long);main 3\n";
	struct profile p;
	char *out;

	read_folded(&p, text);
	assert_int_equal(p.nsamples, 1);
	assert_int_equal(p.samples[0].count, 5);
	out = folded_of(&p);
	assert_string_equal(out, "app;operator new[] (unsigned long);main 5\n");
	free(out);
	profile_free(&p);
}

static void test_folded_errors(void **state)
{
	static const char *const bad[] = {
		"app;main\n", "app;main x\n", "app;main -3\n", "app;main 1 2x\n", " 3\n",
		"app;main 99999999999999999999999\n",
	};
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct profile p;

		profile_init(&p);
		err[0] = '\0';
		assert_int_equal(profile_read_folded(bad[i], strlen(bad[i]), &p, "x.folded", err,
						     sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "x.folded:1: not a folded stack"));
		profile_free(&p);
	}
}

/*
 * Counts above 2^53 are refused with the line; sums saturate, never wrap:
 * 2^64-1 and 1 once read as a total of 0 (and a percentage of 1.8e21).
 */
static void test_folded_count_range(void **state)
{
	static const char *const too_big[] = {
		"app;main 18446744073709551615\napp;other 1\n",
		"app;main 1\napp;main 9007199254740993\n",
	};
	struct profile p;
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(too_big) / sizeof(too_big[0]); i++) {
		profile_init(&p);
		err[0] = '\0';
		assert_int_equal(profile_read_folded(too_big[i], strlen(too_big[i]), &p, "x.folded",
						     err, sizeof(err)), -ERANGE);
		assert_non_null(strstr(err, "count out of range"));
		assert_non_null(strstr(err, i == 0 ? "x.folded:1:" : "x.folded:2:"));
		profile_free(&p);
	}
	/* 2^53 is allowed; many of them saturate the total instead of wrapping. */
	read_folded(&p, "app;main 9007199254740992\n");
	assert_int_equal(p.total, PROFILE_MAX_COUNT);
	profile_free(&p);
	assert_int_equal(count_add(UINT64_MAX - 1, 5), PROFILE_MAX_COUNT);
	assert_int_equal(count_add(UINT64_MAX, UINT64_MAX), PROFILE_MAX_COUNT);
	assert_int_equal(count_add(PROFILE_MAX_COUNT - 1, 1), PROFILE_MAX_COUNT);
	assert_int_equal(count_add(PROFILE_MAX_COUNT - 2, 1), PROFILE_MAX_COUNT - 1);
	assert_int_equal(count_add(2, 3), 5);
	/*
	 * Two lines of one stack at 2^53 merge into one sample at 2^53: what
	 * the folded writer prints then reads back (found by fuzz_folded).
	 */
	read_folded(&p, "app;main 9007199254740992\napp;main 9007199254740992\n");
	assert_int_equal(p.nsamples, 1);
	assert_int_equal(p.samples[0].count, PROFILE_MAX_COUNT);
	assert_true(p.saturated);
	profile_free(&p);
	/* A sum of exactly 2^53 is exact: not saturated. */
	read_folded(&p, "app;main 9007199254740991\napp;other 1\n");
	assert_int_equal(p.total, PROFILE_MAX_COUNT);
	assert_false(p.saturated);
	profile_free(&p);
}

/*
 * Two stacks of 2^53 each: the total saturates at 2^53.  The text says so
 * on its second line and gives each stack half, never both 100%.
 */
static void test_saturated_text(void **state)
{
	struct profile p, f;
	struct profile_filter none;
	char *buf = NULL;
	size_t len = 0;
	FILE *out;

	read_folded(&p, "main;a 9007199254740992\nmain;b 9007199254740992\n");
	assert_true(p.saturated);
	out = open_memstream(&buf, &len);
	assert_int_equal(profile_write_text(out, &p, 10), 0);
	fclose(out);
	assert_non_null(strstr(buf, "stitch: 9007199254740992 events, 2 distinct stacks\n"
				    "stitch: counts added up past 2^53 and the totals saturated "
				    "there: shares are not exact\n"));
	assert_non_null(strstr(buf, "\n 50.00% 9007199254740992  main\n        a\n"));
	assert_non_null(strstr(buf, "\n 50.00% 9007199254740992  main\n        b\n"));
	assert_null(strstr(buf, "100.00%"));
	free(buf);
	/* A part of a saturated profile stays inexact. */
	filter_init(&none);
	assert_int_equal(filter_set_regex(&none, true, "^a$", NULL, 0), 0);
	assert_int_equal(profile_filter(&p, &f, &none), 0);
	assert_true(f.saturated);
	filter_free(&none);
	profile_free(&f);
	profile_free(&p);
}

/* A NUL byte or a name over 4 KiB: cut, marked "...", counted; never silent. */
static void test_folded_names_cut(void **state)
{
	static char text[6000];
	struct profile p;
	size_t n;

	n = snprintf(text, sizeof(text), "app;ma");
	text[n++] = '\0';
	n += snprintf(text + n, sizeof(text) - n, "in;leaf 3\napp;");
	memset(text + n, 'x', 5000);
	n += 5000;
	n += snprintf(text + n, sizeof(text) - n, " 2\napp;whole 1\n");
	profile_init(&p);
	assert_int_equal(profile_read_folded(text, n, &p, "t.folded", NULL, 0), 0);
	assert_int_equal(p.names_cut, 2);
	assert_int_equal(p.nsamples, 3);
	assert_string_equal(profile_s(&p, p.frames[p.samples[0].frames[0]].name), "ma...");
	assert_int_equal(strlen(profile_s(&p, p.frames[p.samples[1].frames[0]].name)), 4095);
	assert_string_equal(profile_s(&p, p.frames[p.samples[1].frames[0]].name) + 4092, "...");
	assert_string_equal(profile_s(&p, p.frames[p.samples[2].frames[0]].name), "whole");
	profile_free(&p);
}

/*
 * Time profiles (off-CPU, wall): counts are nanoseconds.  Folded output
 * writes microseconds (FlameGraph wants integers; never 0 for time that
 * was there), text and speedscope say the unit.
 */
static void test_time_units(void **state)
{
	struct profile p;
	char *out, *buf = NULL, v[32];
	size_t len = 0;
	FILE *f;

	read_folded(&p, "app;main;sleep 2500000\napp;main;tiny 7\n");
	p.value_type = profile_str(&p, "off_cpu");
	p.value_unit = profile_str(&p, "nanoseconds");
	assert_true(profile_unit_ns(&p));
	out = folded_of(&p);
	assert_string_equal(out, "app;main;sleep 2500\napp;main;tiny 1\n");
	free(out);
	assert_string_equal(profile_value_str(&p, 2500000, v, sizeof(v)), "2.5 ms");
	assert_string_equal(profile_value_str(&p, 7, v, sizeof(v)), "7 ns");
	assert_string_equal(profile_value_str(&p, 3210000000ULL, v, sizeof(v)), "3.21 s");
	f = open_memstream(&buf, &len);
	assert_int_equal(profile_write_text(f, &p, 10), 0);
	fclose(f);
	assert_non_null(strstr(buf, "stitch: 2.5 ms of off_cpu"));
	assert_non_null(strstr(buf, " 2.5 ms  app"));
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_int_equal(profile_write_speedscope(f, &p), 0);
	fclose(f);
	assert_non_null(strstr(buf, "\"unit\":\"nanoseconds\""));
	free(buf);
	profile_free(&p);
}

static void test_filters(void **state)
{
	static const char text[] =
		"app;main;read;vfs_read_[k] 5\n"
		"app;main;compute 3\n"
		"db;main;read 2\n";
	struct profile_filter f;
	struct profile in, out;
	char err[256], *s;

	read_folded(&in, text);

	filter_init(&f);
	f.comm = "app";
	assert_int_equal(profile_filter(&in, &out, &f), 0);
	s = folded_of(&out);
	assert_string_equal(s, "app;main;compute 3\napp;main;read;vfs_read_[k] 5\n");
	free(s);
	profile_free(&out);

	filter_init(&f);
	assert_int_equal(filter_set_regex(&f, true, "^read$", err, sizeof(err)), 0);
	assert_int_equal(profile_filter(&in, &out, &f), 0);
	s = folded_of(&out);
	assert_string_equal(s, "app;main;read;vfs_read_[k] 5\ndb;main;read 2\n");
	free(s);
	profile_free(&out);
	filter_free(&f);

	/* --hide drops frames; stacks that become equal merge. */
	filter_init(&f);
	assert_int_equal(filter_set_regex(&f, false, "^(read|compute)$", err, sizeof(err)), 0);
	f.reverse = true;
	assert_int_equal(profile_filter(&in, &out, &f), 0);
	s = folded_of(&out);
	assert_string_equal(s, "app;main 3\napp;vfs_read_[k];main 5\ndb;main 2\n");
	free(s);
	assert_int_equal(out.total, 10);
	profile_free(&out);
	filter_free(&f);

	filter_init(&f);
	assert_int_equal(filter_set_regex(&f, true, "(", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "--focus '('"));
	filter_free(&f);
	profile_free(&in);
}

static void test_speedscope_escaping(void **state)
{
	struct profile p;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	/* A hostile comm, a quote, a backslash, control bytes and invalid UTF-8. */
	read_folded(&p, "<script>x;a\"b\\c;caf\xc3\xa9;bad\xff\x01 4\n");
	p.title = profile_str(&p, "cpu & more");
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(profile_write_speedscope(f, &p), 0);
	fclose(f);
	assert_null(strstr(buf, "<script>"));
	assert_non_null(strstr(buf, "\"\\u003cscript\\u003ex\""));
	assert_non_null(strstr(buf, "\"a\\\"b\\\\c\""));
	assert_non_null(strstr(buf, "\"caf\xc3\xa9\""));	/* valid UTF-8 kept */
	assert_non_null(strstr(buf, "\"bad\\ufffd?\""));	/* \x01 was cleaned to '?' */
	assert_non_null(strstr(buf, "\"cpu \\u0026 more\""));
	/* The root frame (the comm) comes first in the one sample. */
	assert_non_null(strstr(buf, "\"samples\":[[3,0,1,2]]"));
	assert_non_null(strstr(buf, "\"weights\":[4]"));
	free(buf);
	profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interning),
		cmocka_unit_test(test_folded_round_trip),
		cmocka_unit_test(test_folded_merges_and_tolerates),
		cmocka_unit_test(test_folded_errors),
		cmocka_unit_test(test_folded_count_range),
		cmocka_unit_test(test_folded_names_cut),
		cmocka_unit_test(test_time_units),
		cmocka_unit_test(test_saturated_text),
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_speedscope_escaping),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
