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
#include "latency/lat_children.h"
#include "latency/lat_hist.h"
#include "latency/lat_root.h"

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
		assert_int_equal(lat_calls_stack(&lc, 7, 1000 + (i + 1) * 1000000, k2, b2, 1000000,
						 true), 0);
	assert_int_equal(lat_calls_stack(&lc, 7, 4001000, k3, b3, 15000000, false), 0);
	assert_int_equal(lat_calls_stack(&lc, 7, 40000000, k1, b1, 1000000, false), 0);
	assert_int_equal(lat_calls_slow(&lc, &c, NULL, NULL), 0);
	assert_int_equal(lc.slow, 1);
	assert_int_equal(lc.taken, 6);
	assert_int_equal(lc.claimed, 4);
	/*
	 * The breakdown is the call's time: 3 sampled, 1 run before the block
	 * (its user frames), 6 not sampled on; 15 + 5 (no stack) off.
	 */
	assert_int_equal(lc.breakdown.total, 30000000);
	assert_int_equal(lc.on_cpu_ns, 10000000);
	assert_int_equal(lc.off_cpu_ns, 20000000);
	assert_int_equal(lc.nslowest, 1);
	assert_int_equal(lc.slowest[0].stacks.total, 30000000);
	assert_int_equal(lc.slowest[0].stacks.nsorted, 5);
	/* The stack after the call waits for a later one. */
	c.start_ns = 39000000;
	c.dur_ns = 2000000;
	c.on_cpu_ns = 0;
	assert_int_equal(lat_calls_slow(&lc, &c, NULL, NULL), 0);
	assert_int_equal(lc.claimed, 5);
	assert_int_equal(lc.breakdown.total, 32000000);
	/* More sampled time than CPU time: the samples share the exact CPU time. */
	for (i = 0; i < 3; i++)
		assert_int_equal(lat_calls_stack(&lc, 7, 50000000 + (i + 1) * 1000000, k2, b2,
						 1000000, true), 0);
	c.start_ns = 50000000;
	c.dur_ns = 3000000;
	c.on_cpu_ns = 2000000;
	assert_int_equal(lat_calls_slow(&lc, &c, NULL, NULL), 0);
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

/* The weight of stack `name' in lc's breakdown. */
static uint64_t weight_of(struct lat_calls *lc, const char *name)
{
	uint64_t ns = 0;
	size_t i;
	int j;

	assert_int_equal(stacks_sort(&lc->breakdown), 0);
	for (i = 0; i < lc->breakdown.nsorted; i++) {
		const struct stack *st = lc->breakdown.sorted[i];
		const struct uframe *u = stack_user(&st->key);

		for (j = 0; j < st->key.nuser; j++)
			if (u[j].kind == UFRAME_NAME && !strcmp((const char *)(uintptr_t)u[j].addr,
								 name))
				ns += st->count;
	}
	return ns;
}

/*
 * A sample weighs the time its thread ran since the last thing seen of it:
 * a vCPU stolen for 3 ms under a computing thread (no switch; the sampling
 * timer fires once when it is back) is that stack's, not "not sampled";
 * and a switch-out's user frames the time it ran before it left.
 */
static void test_sample_weighs_time_since_last_seen(void **state)
{
	struct lat_calls lc;
	struct lat_call c = { .start_ns = 1000000, .dur_ns = 12000000, .on_cpu_ns = 10000000,
			      .pid = 7, .tid = 7 };
	static const uint64_t two[] = { 2, 3 }, three[] = { 9, 10, 11 };
	struct stack_key *k2, *k3, *k1;
	uint32_t b1, b2, b3;
	size_t i;

	(void)state;
	assert_int_equal(lat_calls_init(&lc, "handle", 1000000, 1), 0);
	k1 = key_with(1, &b1);
	k2 = key_with(2, &b2);
	k3 = key_with(3, &b3);
	for (i = 0; i < 2; i++)
		assert_int_equal(lat_calls_stack(&lc, 7, two[i] * 1000000, k2, b2, 1000000, true),
				 0);
	/* off from 3.5 to 5.5 ms: the sample after it stands for the 0.5 ms since */
	assert_int_equal(lat_calls_stack(&lc, 7, 3500000, k1, b1, 2000000, false), 0);
	assert_int_equal(lat_calls_stack(&lc, 7, 6000000, k2, b2, 1000000, true), 0);
	/* then nothing for 3 ms: the host had the vCPU */
	for (i = 0; i < 3; i++)
		assert_int_equal(lat_calls_stack(&lc, 7, three[i] * 1000000, k3, b3, 1000000,
						 true), 0);
	assert_int_equal(lat_calls_slow(&lc, &c, NULL, NULL), 0);
	assert_int_equal(weight_of(&lc, "two"), 2500000);
	assert_int_equal(weight_of(&lc, "three"), 5000000);
	/* off 2 ms, and on CPU the 0.5 ms it ran before it left: its user frames' */
	assert_int_equal(weight_of(&lc, "one"), 2500000);
	/* what is left: the 2 ms after the last sample */
	assert_int_equal(weight_of(&lc, "[not sampled: between samples]"), 2000000);
	assert_int_equal(lc.breakdown.total, 12000000);
	free(k1);
	free(k2);
	free(k3);
	lat_calls_free(&lc);
}

/* One child event: at ns since the call began, child func, an entry or a return. */
static uint64_t ev(uint64_t ns, uint32_t func, bool exit)
{
	return ns << LAT_CHILD_TIME_SHIFT | (uint64_t)func << LAT_CHILD_IDX_SHIFT |
	       (exit ? LAT_CHILD_EXIT : 0);
}

static const struct lat_child_node *node(const struct lat_child_tree *t, uint32_t parent,
					 uint32_t func)
{
	uint32_t i;

	for (i = t->v[parent].first; i; i = t->v[i].next)
		if (t->v[i].func == func)
			return &t->v[i];
	return NULL;
}

/*
 * Nesting comes from the order of entries and returns alone: a(b, b, c(b))
 * then a return of c whose entry came before the call, a return that skips
 * one (longjmp out of b), and one still open at the call's end.
 */
static void test_children_nest_by_order(void **state)
{
	struct lat_child_tree t = { 0 };
	const struct lat_child_node *a, *b, *c, *cb;
	uint64_t e1[] = {
		ev(5, 2, true),					/* c returns: entered before */
		ev(10, 0, false),				/* a */
		ev(20, 1, false), ev(30, 1, true),		/*   b 10 */
		ev(40, 1, false), ev(45, 1, true),		/*   b 5 */
		ev(50, 2, false),				/*   c */
		ev(60, 1, false), ev(80, 1, true),		/*     b 20 */
		ev(90, 2, true),				/*   c: 40 */
		ev(100, 0, true),				/* a: 90 */
		ev(110, 0, false), ev(120, 1, false),		/* a, b */
		ev(150, 0, true),				/* a returns, b never did: 40 */
		ev(160, 2, false),				/* c open at the end */
	};
	uint64_t e2[] = { ev(0, 0, false), ev(50, 0, true) };

	(void)state;
	assert_int_equal(lat_tree_add(&t, e1, sizeof(e1) / sizeof(e1[0]), 200, 0), 0);
	a = node(&t, 0, 0);
	assert_non_null(a);
	assert_int_equal(a->count, 2);
	assert_int_equal(a->total_ns, 90 + 40);
	b = node(&t, a - t.v, 1);
	assert_non_null(b);
	assert_int_equal(b->count, 3);		/* 10 + 5, and the one a's return closed */
	assert_int_equal(b->total_ns, 10 + 5 + 30);
	c = node(&t, a - t.v, 2);
	assert_non_null(c);
	assert_int_equal(c->count, 1);
	assert_int_equal(c->total_ns, 40);
	cb = node(&t, c - t.v, 1);
	assert_non_null(cb);
	assert_int_equal(cb->total_ns, 20);
	assert_int_equal(node(&t, 0, 2)->total_ns, 40);	/* open at the end: closed there */
	assert_int_equal(t.unmatched, 3);	/* c's early return, b skipped, c left open */
	assert_int_equal(t.v[0].count, 1);
	assert_int_equal(t.v[0].total_ns, 200);
	/* A second call adds up in the same nodes. */
	assert_int_equal(lat_tree_add(&t, e2, 2, 60, 4), 0);
	assert_int_equal(node(&t, 0, 0)->count, 3);
	assert_int_equal(node(&t, 0, 0)->total_ns, 180);
	assert_int_equal(t.v[0].count, 2);
	assert_int_equal(t.lost, 4);
	/* Times past the call's end are cut there. */
	lat_tree_free(&t);
	assert_int_equal(lat_tree_add(&t, (uint64_t[]){ ev(10, 3, false), ev(999, 3, true) }, 2,
				      100, 0), 0);
	assert_int_equal(node(&t, 0, 3)->total_ns, 90);
	lat_tree_free(&t);
}

/* Tracepoint formats: the fields after the common ones, with offsets and sizes. */
static void test_tracepoint_fields(void **state)
{
	static const char format[] =
		"name: block_rq_issue\n"
		"ID: 1181\n"
		"format:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
		"\n"
		"\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n"
		"\tfield:sector_t sector;\toffset:16;\tsize:8;\tsigned:0;\n"
		"\tfield:char rwbs[8];\toffset:28;\tsize:8;\tsigned:0;\n"
		"\tfield:__data_loc char[] cmd;\toffset:52;\tsize:4;\tsigned:0;\n"
		"\tfield:int error;\toffset:56;\tsize:4;\tsigned:1;\n"
		"\tfield:nonsense\n"
		"\n"
		"print fmt: \"%d,%d\", REC->dev, REC->sector\n";
	struct lat_field fl[8];
	FILE *f;
	int n;

	(void)state;
	f = fmemopen((void *)format, sizeof(format) - 1, "r");
	assert_non_null(f);
	n = lat_tp_fields_read(f, fl, 8);
	fclose(f);
	assert_int_equal(n, 3);
	assert_string_equal(fl[0].name, "dev");
	assert_int_equal(fl[0].off, 8);
	assert_int_equal(fl[0].size, 4);
	assert_false(fl[0].is_signed);
	assert_string_equal(fl[1].name, "sector");
	assert_int_equal(fl[1].off, 16);
	assert_int_equal(fl[1].size, 8);
	assert_string_equal(fl[2].name, "error");
	assert_true(fl[2].is_signed);
	/* at most max */
	f = fmemopen((void *)format, sizeof(format) - 1, "r");
	assert_int_equal(lat_tp_fields_read(f, fl, 1), 1);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buckets_hold_their_values),
		cmocka_unit_test(test_quantiles),
		cmocka_unit_test(test_slow_call_claims_its_stacks),
		cmocka_unit_test(test_sample_weighs_time_since_last_seen),
		cmocka_unit_test(test_children_nest_by_order),
		cmocka_unit_test(test_tracepoint_fields),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
