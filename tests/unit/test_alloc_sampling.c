// SPDX-License-Identifier: GPL-2.0
/*
 * Allocations sampled by bytes (capture/alloc.h, alloc_sampling.h): the
 * tables, --alloc-sample's sizes, and on simulated allocation patterns,
 * with the BPF side's own arithmetic, that the weights add up to the bytes
 * allocated by each path.  The random bits come from a fixed-seed
 * generator: every run draws the same.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>

#include <cmocka.h>

#include "capture/alloc_sampling.h"

static uint32_t gap_tab[ALLOC_GAP_SLOTS + 1], weight_tab[ALLOC_WEIGHT_SLOTS + 1];
static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint32_t rand32(void)
{
	/* xorshift64* */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (uint32_t)((rng * 0x2545f4914f6cdd1dULL) >> 32);
}

/* alloc.bpf.h's alloc_gap, with this generator. */
static uint64_t gap(uint64_t period)
{
	__u64 sum = 0;
	int d;

	for (d = 0; d < ALLOC_GAP_DRAWS; d++)
		if (alloc_gap_draw(gap_tab, rand32(), &sum))
			break;
	return alloc_gap_bytes(period, sum);
}

/* One thread's sampling (alloc.bpf.h's alloc_sample): 0, or what the allocation weighs. */
static uint64_t sample(uint64_t period, uint64_t *left, uint64_t size)
{
	if (*left > size) {
		*left -= size;
		return 0;
	}
	*left = gap(period);
	return alloc_weight_of(weight_tab, period, size);
}

static int setup(void **state)
{
	(void)state;
	alloc_tables_fill(gap_tab, weight_tab);
	return 0;
}

static void test_tables(void **state)
{
	int i;

	(void)state;
	assert_int_equal(gap_tab[0], lround(log(ALLOC_GAP_SLOTS) * ALLOC_FIXED_ONE));
	assert_int_equal(gap_tab[ALLOC_GAP_SLOTS], 0);
	for (i = 2; i <= ALLOC_GAP_SLOTS; i++)
		assert_true(gap_tab[i] < gap_tab[i - 1]);
	assert_int_equal(weight_tab[0], ALLOC_FIXED_ONE);
	for (i = 1; i <= ALLOC_WEIGHT_SLOTS; i++)
		assert_true(weight_tab[i] > weight_tab[i - 1]);
	/* f(16) = 16 / (1 - e^-16): 16 within 2e-6 */
	assert_true(fabs(weight_tab[ALLOC_WEIGHT_SLOTS] / (double)ALLOC_FIXED_ONE - 16) < 1e-3);
}

static void test_gap_mean_is_the_period(void **state)
{
	const uint64_t period = 512 * 1024;
	double sum = 0;
	int i, n = 2000000;

	(void)state;
	for (i = 0; i < n; i++)
		sum += gap(period);
	/* 2M exponential draws: the mean's standard deviation is 0.07% */
	assert_true(fabs(sum / n / period - 1) < 0.005);
}

static void test_weights(void **state)
{
	const uint64_t p = 512 * 1024;

	(void)state;
	/* Every allocation recorded: its size. */
	assert_int_equal(alloc_weight_of(weight_tab, 1, 100), 100);
	/* Far past the period: its size. */
	assert_int_equal(alloc_weight_of(weight_tab, p, 64 * p), 64 * p);
	/* A tiny one stands for a period's worth: p * (1 + x/2). */
	assert_true(llabs((long long)alloc_weight_of(weight_tab, p, 100) - (long long)(p + 50)) <= 2);
	/* s = p: p / (1 - 1/e) */
	assert_true(fabs(alloc_weight_of(weight_tab, p, p) / (p / (1 - exp(-1))) - 1) < 1e-4);
	/* Between two points of the table (x = 0.5 + 1/128): within 1e-4 */
	assert_true(fabs(alloc_weight_of(weight_tab, p, p / 2 + p / 128) /
			 ((p / 2.0 + p / 128.0) / -expm1(-(0.5 + 1.0 / 128))) - 1) < 1e-4);
}

/*
 * Rounds of a 100-byte and two 300-byte allocations at 512K: each size's
 * bytes within 3% (~11,000 samples of the 100 bytes: a standard deviation
 * of 1%).  Gaps drawn from the table's 1024 points alone, without the
 * interpolation, put 89% of the 100 bytes there (alloc.h).
 */
static void test_pattern_unbiased(void **state)
{
	const uint64_t p = 512 * 1024, rounds = 30000000;
	uint64_t left = 0, got100 = 0, got300 = 0, r;

	(void)state;
	left = gap(p);
	for (r = 0; r < rounds; r++) {
		got100 += sample(p, &left, 100);
		got300 += sample(p, &left, 300);
		got300 += sample(p, &left, 300);
	}
	assert_true(fabs((double)got100 / (rounds * 100) - 1) < 0.03);
	assert_true(fabs((double)got300 / (rounds * 600) - 1) < 0.03);
}

/*
 * The allocations a sample stands for (alloc_objects_of, pprof's
 * alloc_objects): unbiased too, for sizes far below the period and near
 * it, within 3% of the calls made; 1 each when every call is recorded.
 */
static void test_objects_unbiased(void **state)
{
	const uint64_t p = 64 * 1024, rounds = 2000000;
	uint64_t left, small = 0, near = 0, r, w;

	(void)state;
	left = gap(p);
	for (r = 0; r < rounds; r++) {
		w = sample(p, &left, 100);
		small += w ? alloc_objects_of(w, 100) : 0;
		w = sample(p, &left, 50000);
		near += w ? alloc_objects_of(w, 50000) : 0;
	}
	assert_true(fabs((double)small / ((double)rounds * ALLOC_OBJECT_ONE) - 1) < 0.03);
	assert_true(fabs((double)near / ((double)rounds * ALLOC_OBJECT_ONE) - 1) < 0.03);
	assert_int_equal(alloc_objects_of(alloc_weight_of(weight_tab, 1, 300), 300), ALLOC_OBJECT_ONE);
}

/* Allocations near and past the period: weighed close to their size, and unbiased. */
static void test_large_unbiased(void **state)
{
	const uint64_t p = 16 * 1024, n = 200000;
	uint64_t left = 0, got_big = 0, got_mid = 0, i;

	(void)state;
	left = gap(p);
	for (i = 0; i < n; i++) {
		got_big += sample(p, &left, 4 * 1024 * 1024);
		got_mid += sample(p, &left, 20000);
	}
	/* 4 MiB at 16K: always sampled, x = 256 past the table: exactly its size */
	assert_int_equal(got_big, n * 4 * 1024 * 1024);
	/* 20000 bytes (x = 1.2, sampled 70% of the time): within 1% */
	assert_true(fabs((double)got_mid / (n * 20000) - 1) < 0.01);
}

static void test_parse_period(void **state)
{
	uint64_t b = 0;

	(void)state;
	assert_true(alloc_parse_period("512K", &b));
	assert_int_equal(b, 512 * 1024);
	assert_true(alloc_parse_period("16k", &b));
	assert_int_equal(b, 16384);
	assert_true(alloc_parse_period("1M", &b));
	assert_int_equal(b, 1 << 20);
	assert_true(alloc_parse_period("512KiB", &b));
	assert_int_equal(b, 512 * 1024);
	assert_true(alloc_parse_period("1G", &b));
	assert_int_equal(b, ALLOC_MAX_PERIOD);
	assert_true(alloc_parse_period("1", &b));
	assert_int_equal(b, 1);
	assert_true(alloc_parse_period("4096", &b));
	assert_int_equal(b, 4096);
	assert_false(alloc_parse_period("0", &b));
	assert_false(alloc_parse_period("2G", &b));
	assert_false(alloc_parse_period("", &b));
	assert_false(alloc_parse_period("K", &b));
	assert_false(alloc_parse_period("-1", &b));
	assert_false(alloc_parse_period("1x", &b));
	assert_false(alloc_parse_period("16KX", &b));
	assert_false(alloc_parse_period("99999999999999999999999", &b));
	assert_false(alloc_parse_period(NULL, &b));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables),
		cmocka_unit_test(test_gap_mean_is_the_period),
		cmocka_unit_test(test_weights),
		cmocka_unit_test(test_pattern_unbiased),
		cmocka_unit_test(test_large_unbiased),
		cmocka_unit_test(test_objects_unbiased),
		cmocka_unit_test(test_parse_period),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
