// SPDX-License-Identifier: GPL-2.0
/*
 * --inuse's munmaps of parts of mappings (capture/alloc_unmaps.h): what
 * they leave of a block, only those of its process made after it, overlaps
 * counted once, and the bound on how many are kept.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "capture/alloc_unmaps.h"

#define MIB (1ull << 20)
#define A 0x7f0000000000ull

static void test_cuts(void **state)
{
	struct alloc_unmaps u = { 0 };

	(void)state;
	assert_int_equal(alloc_unmaps_left(&u, 1, A, MIB, 10), MIB);
	alloc_unmaps_add(&u, 1, A, MIB / 4, 20);			/* head */
	assert_int_equal(alloc_unmaps_left(&u, 1, A, MIB, 10), MIB / 4 * 3);
	/* Not its process's, made before it, or beside it: nothing. */
	assert_int_equal(alloc_unmaps_left(&u, 2, A, MIB, 10), MIB);
	assert_int_equal(alloc_unmaps_left(&u, 1, A, MIB, 30), MIB);
	assert_int_equal(alloc_unmaps_left(&u, 1, A + MIB / 4, MIB, 10), MIB);
	assert_int_equal(alloc_unmaps_left(&u, 1, A - MIB, MIB, 10), MIB);
	alloc_unmaps_add(&u, 1, A + MIB / 8, MIB / 4, 21);		/* overlaps the head */
	assert_int_equal(alloc_unmaps_left(&u, 1, A, MIB, 10), MIB - MIB / 8 * 3);
	alloc_unmaps_add(&u, 1, A + MIB / 2, 4096, 22);		/* a page inside */
	alloc_unmaps_add(&u, 1, A + MIB / 2, 4096, 23);		/* again */
	assert_int_equal(alloc_unmaps_left(&u, 1, A, MIB, 10), MIB - MIB / 8 * 3 - 4096);
	alloc_unmaps_add(&u, 1, A - MIB, 3 * MIB, 24);		/* all, and more */
	assert_int_equal(alloc_unmaps_left(&u, 1, A, MIB, 10), 0);
	/* A length past the end of the address space (a hostile one): clipped, not wrapped. */
	alloc_unmaps_add(&u, 3, A + MIB / 2, UINT64_MAX, 25);
	assert_int_equal(alloc_unmaps_left(&u, 3, A, MIB, 10), MIB / 2);
	alloc_unmaps_add(&u, 3, A, 0, 26);				/* nothing */
	assert_int_equal(u.n, 6);
	alloc_unmaps_prune(&u, 22);
	assert_int_equal(u.n, 4);
	assert_int_equal(alloc_unmaps_left(&u, 1, A, MIB, 10), 0);
	alloc_unmaps_free(&u);
}

static void test_bounded(void **state)
{
	struct alloc_unmaps u = { 0 };
	uint64_t i;

	(void)state;
	for (i = 0; i < ALLOC_UNMAPS_MAX + 10; i++)
		alloc_unmaps_add(&u, 1, A + i * 4096, 4096, i);
	assert_true(u.n <= ALLOC_UNMAPS_MAX);
	assert_int_equal(u.n + u.dropped, ALLOC_UNMAPS_MAX + 10);
	/* The newest kept, the oldest gone. */
	assert_int_equal(alloc_unmaps_left(&u, 1, A + (ALLOC_UNMAPS_MAX + 9) * 4096, 4096, 0), 0);
	assert_int_equal(alloc_unmaps_left(&u, 1, A, 4096, 0), 4096);
	alloc_unmaps_free(&u);
}

/*
 * Unmaps of three processes in random order, pages of a 64-page range,
 * looked up between adds (the index built again after each): what is left
 * of random blocks, against each page marked by hand.
 */
static void test_against_pages(void **state)
{
	struct alloc_unmaps u = { 0 };
	struct { uint32_t tgid; uint64_t start, len, time; } m[300];
	int i, j, round, p;

	(void)state;
	srand(40);
	for (i = 0; i < 300; i++) {
		m[i].tgid = 1 + rand() % 3;
		m[i].start = rand() % 64;
		m[i].len = 1 + rand() % 8;
		m[i].time = 1 + rand() % 1000;
		alloc_unmaps_add(&u, m[i].tgid, A + m[i].start * 4096, m[i].len * 4096, m[i].time);
		for (round = 0; round < 3; round++) {
			uint32_t tgid = 1 + rand() % 3;
			uint64_t start = rand() % 64, len = 1 + rand() % 16, time = rand() % 1000;
			bool gone[96] = { false };
			uint64_t left = 0;

			for (j = 0; j <= i; j++) {
				if (m[j].tgid != tgid || m[j].time < time)
					continue;
				for (p = 0; p < (int)m[j].len; p++)
					gone[m[j].start + p] = true;
			}
			for (p = 0; p < (int)len; p++)
				left += gone[start + p] ? 0 : 4096;
			assert_int_equal(alloc_unmaps_left(&u, tgid, A + start * 4096, len * 4096, time),
					 left);
		}
	}
	alloc_unmaps_free(&u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cuts),
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_against_pages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
