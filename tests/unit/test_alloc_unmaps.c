// SPDX-License-Identifier: GPL-2.0
/*
 * --inuse's munmaps of parts of mappings (capture/alloc_unmaps.h): what
 * they leave of a block, only those of its process made after it, overlaps
 * counted once, and the bound on how many are kept.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cuts),
		cmocka_unit_test(test_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
