// SPDX-License-Identifier: GPL-2.0
/*
 * CPython 3.8 - 3.10 line tables (src/interp/python/python_lnotab.c), against
 * what those interpreters themselves say: fixtures/py3X_lines.txt were made
 * by fixtures/py_lines_dump.py run by pyenv's 3.8.18, 3.9.18 and 3.10.13
 * (Debian bullseye's 3.9.2 makes the same tables): each code object's
 * co_lnotab or co_linetable, and the line PyCode_Addr2Line() gives for
 * every instruction offset.  Then hostile tables.
 */
#include <libgen.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "interp/interp_api.h"
#include "interp/python/python_layout.h"
#include "interp/python/python_lnotab.h"

typedef int (*line_fn)(const uint8_t *t, size_t len, int firstlineno, int addr);

static size_t unhex(const char *s, uint8_t *out, size_t cap)
{
	size_t n = 0;
	unsigned int b;

	if (strcmp(s, "-") == 0)
		return 0;
	while (s[0] && s[1] && n < cap && sscanf(s, "%2x", &b) == 1) {
		out[n++] = b;
		s += 2;
	}
	assert_int_equal(s[0], '\0');
	return n;
}

/*
 * Every line of fixture name: each offset's line as the interpreter said,
 * through fn (byte offsets) and py_old_line (f_lasti in units of unit).
 * Returns the offsets checked.
 */
static int check_fixture(const char *name, line_fn fn, unsigned int kind, unsigned int unit)
{
	char path[4096], *here = strdup(__FILE__), *line = NULL;
	static char hex[1 << 16], pairs[1 << 17];
	static uint8_t table[1 << 15];
	size_t cap = 0;
	int checked = 0, codes = 0;
	FILE *f;

	assert_non_null(here);
	snprintf(path, sizeof(path), "%s/fixtures/%s", dirname(here), name);
	free(here);
	f = fopen(path, "r");
	if (!f)
		fail_msg("cannot read %s", path);
	while (getline(&line, &cap, f) > 0) {
		int first, addr, want;
		size_t len;
		char *p, *save = NULL;

		assert_int_equal(sscanf(line, "%d %65535s %131071s", &first, hex, pairs), 3);
		len = unhex(hex, table, sizeof(table));
		codes++;
		for (p = strtok_r(pairs, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
			assert_int_equal(sscanf(p, "%d:%d", &addr, &want), 2);
			if (fn(table, len, first, addr) != want)
				fail_msg("%s: code at line %d, offset %d: got %d, want %d", name,
					 first, addr, fn(table, len, first, addr), want);
			/* A frame's f_lasti: offsets that are whole units. */
			if (addr < 0 || addr % (int)unit == 0) {
				int lasti = addr < 0 ? -1 : addr / (int)unit;

				assert_int_equal(py_old_line(kind, unit, table, len, first, lasti),
						 want);
			}
			checked++;
		}
	}
	free(line);
	fclose(f);
	assert_true(codes >= 30);	/* the generated, dump and workload code objects */
	return checked;
}

static void test_py38_lnotab(void **state)
{
	assert_true(check_fixture("py38_lines.txt", py38_lnotab_line, PYTHON_LNOTAB_38, 1) > 1000);
}

static void test_py39_lnotab(void **state)
{
	assert_true(check_fixture("py39_lines.txt", py38_lnotab_line, PYTHON_LNOTAB_38, 1) > 1000);
}

static void test_py310_linetable(void **state)
{
	assert_true(check_fixture("py310_lines.txt", py310_linetable_line, PYTHON_LINETABLE_310,
				  2) > 1000);
}

/* The fixtures hold no line above 127 apart in one pair: these do, by hand from the formats. */
static void test_pyold_by_hand(void **state)
{
	/* 3.8: +300 lines at offset 0 is (0, 127), (0, 127), (0, 46); then 6 bytes on. */
	static const uint8_t jump[] = { 0, 127, 0, 127, 0, 46, 6, 0xff };
	/* 3.10: 4 bytes on line 1, 2 bytes with no line, 2 bytes back on line 1 - 1 + 2. */
	static const uint8_t nol[] = { 4, 0, 2, 0x80, 2, 0xff, 0, 2, 2, 0 };

	assert_int_equal(py38_lnotab_line(jump, sizeof(jump), 10, 0), 310);
	assert_int_equal(py38_lnotab_line(jump, sizeof(jump), 10, 5), 310);
	assert_int_equal(py38_lnotab_line(jump, sizeof(jump), 10, 6), 309);
	assert_int_equal(py38_lnotab_line(jump, sizeof(jump), 10, -1), 10);
	assert_int_equal(py310_linetable_line(nol, sizeof(nol), 1, 0), 1);
	assert_int_equal(py310_linetable_line(nol, sizeof(nol), 1, 3), 1);
	assert_int_equal(py310_linetable_line(nol, sizeof(nol), 1, 4), -1);
	assert_int_equal(py310_linetable_line(nol, sizeof(nol), 1, 6), -1);	/* line 0 */
	assert_int_equal(py310_linetable_line(nol, sizeof(nol), 5, 6), 4);
	assert_int_equal(py310_linetable_line(nol, sizeof(nol), 5, 8), 6);
	/* past the end */
	assert_int_equal(py310_linetable_line(nol, sizeof(nol), 5, 10), -1);
	assert_int_equal(py310_linetable_line(nol, sizeof(nol), 5, -1), 5);
	/* f_lasti in units: 3.10's counts 2-byte code units. */
	assert_int_equal(py_old_line(PYTHON_LINETABLE_310, 2, nol, sizeof(nol), 5, 4), 6);
	assert_int_equal(py_old_line(PYTHON_LNOTAB_38, 1, jump, sizeof(jump), 10, 6), 309);
}

/* Hostile input: never a read outside the table, never a line <= 0. */
static void test_pyold_hostile(void **state)
{
	static const uint8_t down[] = { 0, 0x80, 0, 0x80 };	/* -256 lines */
	static const uint8_t odd[] = { 2, 1, 7 };
	unsigned int seed = 1;
	int i;

	assert_int_equal(py38_lnotab_line(down, sizeof(down), 3, 0), -1);
	assert_int_equal(py38_lnotab_line(odd, sizeof(odd), 3, 100), 4);
	/* An empty table: every instruction on the first line; none read: no line. */
	assert_int_equal(py38_lnotab_line(down, 0, 3, 0), 3);
	assert_int_equal(py38_lnotab_line(NULL, 0, 3, 0), -1);
	assert_int_equal(py310_linetable_line(NULL, 0, 3, 0), -1);
	assert_int_equal(py310_linetable_line(NULL, 0, 3, -1), -1);
	assert_int_equal(py310_linetable_line(odd, sizeof(odd), 3, 2), -1);
	assert_int_equal(py_old_line(PYTHON_LNOTAB_38, 1, odd, sizeof(odd), 3, -2), -1);
	assert_int_equal(py_old_line(PYTHON_LNOTAB_38, 3, odd, sizeof(odd), 3, 0), -1);
	assert_int_equal(py_old_line(PYTHON_LINETABLE_311, 1, odd, sizeof(odd), 3, 0), -1);
	assert_int_equal(py_old_line(PYTHON_LINETABLE_310, 2, odd, sizeof(odd), 3,
				     (int64_t)1 << 40), -1);
	for (i = 0; i < 2000; i++) {
		size_t len = rand_r(&seed) % 24, j;
		uint8_t *buf = malloc(len ? len : 1);
		int k;

		assert_non_null(buf);
		for (j = 0; j < len; j++)
			buf[j] = rand_r(&seed);
		for (k = -1; k < 60; k++) {
			int a = py38_lnotab_line(buf, len, rand_r(&seed) % 1000, k);
			int b = py310_linetable_line(buf, len, rand_r(&seed) % 1000, k);

			assert_true(a == -1 || a > 0);
			assert_true(b == -1 || b > 0);
		}
		free(buf);
	}
}

/* Each old version by its own name: 3.10 is not 3.1 nor 3.11, and each has its own walk. */
static void test_pyold_modules(void **state)
{
	static const struct { const char *base, *ver; unsigned int unit; } known[] = {
		{ "python3.8", "3.8", 1 }, { "libpython3.8.so.1.0", "3.8", 1 },
		{ "python3.9", "3.9", 1 }, { "libpython3.9.so.1.0", "3.9", 1 },
		{ "libpython3.9.so.1", "3.9", 1 },	/* Debian bullseye's */
		{ "python3.10", "3.10", 2 }, { "libpython3.10.so.1.0", "3.10", 2 },
	};
	const struct interp_version *v;
	char l[16], ver[16];
	size_t i;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		v = interp_version_for_module(known[i].base, l, sizeof(l), ver, sizeof(ver));
		assert_non_null(v);
		assert_string_equal(v->version, known[i].ver);
		assert_int_equal(v->layout.py.frameobject, 1);
		assert_int_equal(v->layout.py.lasti_unit, known[i].unit);
		assert_int_equal(v->layout.py.lnotab, known[i].unit == 2 ? PYTHON_LINETABLE_310 :
							     PYTHON_LNOTAB_38);
	}
	v = interp_version_for_module("python3.11", l, sizeof(l), ver, sizeof(ver));
	assert_non_null(v);
	assert_int_equal(v->layout.py.frameobject, 0);
	assert_null(interp_version_for_module("libpython3.7m.so.1.0", l, sizeof(l), ver,
					      sizeof(ver)));
	assert_string_equal(ver, "3.7");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_py38_lnotab),
		cmocka_unit_test(test_py39_lnotab),
		cmocka_unit_test(test_py310_linetable),
		cmocka_unit_test(test_pyold_by_hand),
		cmocka_unit_test(test_pyold_hostile),
		cmocka_unit_test(test_pyold_modules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
