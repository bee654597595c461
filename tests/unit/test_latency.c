// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for stitch latency's user side: the log-linear buckets (each
 * duration in its bucket, buckets back to back), percentiles read from
 * them, and a slow call claiming the stacks taken inside it (and only
 * those), with what they do not cover under its markers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "latency/lat_calls.h"
#include "latency/lat_hist.h"

static void test_buckets_hold_their_values(void **state)
{
	uint64_t v;
	uint32_t b;

	(void)state;
	for (b = 1; b < LAT_BUCKETS - LAT_SUB; b++)
		assert_int_equal(lat_bucket_low(b), lat_bucket_low(b - 1) + lat_bucket_width(b - 1));
	for (v = 0; v < 5000000; v = v * 5 / 4 + 1) {
		b = lat_bucket(v);
		assert_true(v >= lat_bucket_low(b));
		assert_true(v - lat_bucket_low(b) < lat_bucket_width(b));
		/* at most 1/16 of the value wide */
		assert_true(lat_bucket_width(b) == 1 || lat_bucket_width(b) * 16 <= v);
	}
	assert_true(lat_bucket(UINT64_MAX) < LAT_BUCKETS);
}

static void test_quantiles(void **state)
{
	struct lat_hist *h = calloc(1, sizeof(*h));
	uint64_t p50, p99, log2[64];

	(void)state;
	assert_non_null(h);
	assert_int_equal(lat_hist_quantile(h, 0.5), 0);
	/* 950 calls of 1 us, 50 of 5 ms: p50 1 us, p99 5 ms, each within 3.2% */
	h->counts[lat_bucket(1000)] = 950;
	h->counts[lat_bucket(5000000)] = 50;
	h->total = 1000;
	h->max_ns = 5000000;
	p50 = lat_hist_quantile(h, 0.50);
	p99 = lat_hist_quantile(h, 0.99);
	assert_true(p50 > 968 && p50 < 1032);
	assert_true(p99 > 4840000 && p99 <= 5000000);
	/* the 950th call is the last fast one, the 951st the first slow one */
	assert_true(lat_hist_quantile(h, 0.950) < 1032);
	assert_true(lat_hist_quantile(h, 0.951) > 4840000);
	lat_hist_log2(h, log2);
	assert_int_equal(log2[9], 950);		/* [512, 1024) */
	assert_int_equal(log2[22], 50);		/* [4194304, 8388608) */
	free(h);
}

/* A stack key with one user frame, to tell stacks apart by its address. */
static struct stack_key *key_with(uint64_t addr, uint32_t *bytes)
{
	struct stack_key *k = calloc(1, sizeof(*k) + sizeof(struct uframe));
	struct uframe *u = (struct uframe *)(k + 1);

	assert_non_null(k);
	k->pid = k->tid = 7;
	k->nuser = 1;
	u->kind = UFRAME_NAME;
	u->addr = (uint64_t)(uintptr_t)stacks_name(addr == 1 ? "one" : addr == 2 ? "two" :
						     "three");
	*bytes = sizeof(*k) + sizeof(struct uframe);
	return k;
}

static void test_slow_call_claims_its_stacks(void **state)
{
	struct lat_calls lc;
	struct lat_call c = { .start_ns = 1000, .dur_ns = 30000000, .on_cpu_ns = 10000000,
			      .pid = 7, .tid = 7 };
	struct stack_key *k1, *k2, *k3;
	uint32_t b1, b2, b3;
	size_t i;

	(void)state;
	assert_int_equal(lat_calls_init(&lc, "pread64", 1000000, 2), 0);
	k1 = key_with(1, &b1);
	k2 = key_with(2, &b2);
	k3 = key_with(3, &b3);
	/* before the call (a fast call's), 3 samples and one block inside, one after */
	assert_int_equal(lat_calls_stack(&lc, 7, 500, k1, b1, 4000000, false), 0);
	for (i = 0; i < 3; i++)
		assert_int_equal(lat_calls_stack(&lc, 7, 2000 + i, k2, b2, 1000000, true), 0);
	assert_int_equal(lat_calls_stack(&lc, 7, 5000, k3, b3, 15000000, false), 0);
	assert_int_equal(lat_calls_stack(&lc, 7, 40000000, k1, b1, 1000000, false), 0);
	assert_int_equal(lat_calls_slow(&lc, &c), 0);
	assert_int_equal(lc.slow, 1);
	assert_int_equal(lc.taken, 6);
	assert_int_equal(lc.claimed, 4);
	/* The breakdown is the call's time: 3 + 7 (not sampled) on, 15 + 5 (no stack) off. */
	assert_int_equal(lc.breakdown.total, 30000000);
	assert_int_equal(lc.on_cpu_ns, 10000000);
	assert_int_equal(lc.off_cpu_ns, 20000000);
	assert_int_equal(lc.nslowest, 1);
	assert_int_equal(lc.slowest[0].stacks.total, 30000000);
	assert_int_equal(lc.slowest[0].stacks.nsorted, 4);
	/* The stack after the call waits for a later one. */
	c.start_ns = 39000000;
	c.dur_ns = 2000000;
	c.on_cpu_ns = 0;
	assert_int_equal(lat_calls_slow(&lc, &c), 0);
	assert_int_equal(lc.claimed, 5);
	assert_int_equal(lc.breakdown.total, 32000000);
	/* More samples than CPU time: they share the exact CPU time. */
	for (i = 0; i < 4; i++)
		assert_int_equal(lat_calls_stack(&lc, 7, 50000000 + i, k2, b2, 1000000, true), 0);
	c.start_ns = 50000000;
	c.dur_ns = 3000000;
	c.on_cpu_ns = 3000000;
	assert_int_equal(lat_calls_slow(&lc, &c), 0);
	assert_int_equal(lc.breakdown.total, 35000000);
	/* The two slowest kept, slowest first. */
	assert_int_equal(lc.nslowest, 2);
	assert_int_equal(lc.slowest[0].call.dur_ns, 30000000);
	assert_int_equal(lc.slowest[1].call.dur_ns, 3000000);
	free(k1);
	free(k2);
	free(k3);
	lat_calls_free(&lc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buckets_hold_their_values),
		cmocka_unit_test(test_quantiles),
		cmocka_unit_test(test_slow_call_claims_its_stacks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
