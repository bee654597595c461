// SPDX-License-Identifier: GPL-2.0
/*
 * The samples ring's records go to their type's handler, and only with the
 * sizes their type has (record/decode.c): a record of an unknown type, or
 * whose header's size is not what the ring holds, or whose size is not its
 * type's, is counted as bad and reaches no handler.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "record/record_internal.h"

#define TID 4242

static struct recorder r;
static uint32_t sunk_tid;
static uint64_t sunk_ns, sunk_calls;
static struct stack_key *held_key;

static void sink(void *ctx, uint32_t tid, uint64_t time_ns, const struct stack_key *key,
		 uint32_t key_bytes, uint64_t ns)
{
	sunk_tid = tid;
	sunk_ns = ns;
	sunk_calls++;
}

static int setup(void **state)
{
	memset(&r, 0, sizeof(r));
	if (offcpu_pending_init(&r.offcpu))
		return -1;
	r.offcpu.sink = sink;
	held_key = calloc(1, sizeof(*held_key));
	if (!held_key)
		return -1;
	held_key->pid = held_key->tid = TID;
	sunk_calls = sunk_ns = sunk_tid = 0;
	/* A thread's off-CPU stack, sent as a sample: held until its weight comes. */
	return offcpu_hold(&r.offcpu, TID, 1000, held_key, sizeof(*held_key));
}

static int teardown(void **state)
{
	offcpu_pending_free(&r.offcpu);
	free(held_key);
	return 0;
}

static struct offcpu_weight weight_of(uint32_t tid, uint64_t ns)
{
	struct offcpu_weight w = { .hdr = { RING_OFFCPU_WEIGHT, sizeof(w) }, .tid = tid, .ns = ns };

	return w;
}

static void test_weight_reaches_offcpu(void **state)
{
	struct offcpu_weight w = weight_of(TID, 5000);

	assert_int_equal(handle_record(&r, &w, sizeof(w)), 0);
	assert_int_equal(r.bad_records, 0);
	assert_int_equal(sunk_calls, 1);
	assert_int_equal(sunk_tid, TID);
	assert_int_equal(sunk_ns, 5000);
	assert_int_equal(r.bytes_received, sizeof(w));
}

static void test_woken_then_weight(void **state)
{
	struct offcpu_woken k = { .hdr = { RING_OFFCPU_WOKEN, sizeof(k) }, .tid = TID };
	struct offcpu_weight w = weight_of(TID, 7000);

	k.waker.pid = k.waker.tid = 77;
	assert_int_equal(handle_record(&r, &k, sizeof(k)), 0);
	assert_int_equal(sunk_calls, 0);
	assert_int_equal(handle_record(&r, &w, sizeof(w)), 0);
	assert_int_equal(r.bad_records, 0);
	assert_int_equal(sunk_calls, 1);
	assert_int_equal(sunk_ns, 7000);
}

/* Each malformed record is counted once, and the held stack waits for a real weight. */
static void test_malformed_reach_no_handler(void **state)
{
	uint8_t buf[256] = { 0 };
	struct ring_record_header *h = (struct ring_record_header *)buf;
	struct offcpu_weight w = weight_of(TID, 9000);
	uint64_t bad = 0;

	/* too short for a header */
	assert_int_equal(handle_record(&r, buf, 4), 0);
	assert_int_equal(r.bad_records, ++bad);
	/* unknown types, and the type no record is sent with */
	*h = (struct ring_record_header){ RING_RECORD_TYPES, 64 };
	handle_record(&r, buf, 64);
	assert_int_equal(r.bad_records, ++bad);
	*h = (struct ring_record_header){ 0xffffffffu, 64 };
	handle_record(&r, buf, 64);
	assert_int_equal(r.bad_records, ++bad);
	*h = (struct ring_record_header){ RING_RECORD_NONE, 64 };
	handle_record(&r, buf, 64);
	assert_int_equal(r.bad_records, ++bad);
	/* a weight whose header says other bytes than the ring holds */
	memcpy(buf, &w, sizeof(w));
	handle_record(&r, buf, sizeof(w) + 8);
	assert_int_equal(r.bad_records, ++bad);
	/* a weight with another type's size (a woken record's), header agreeing */
	h->size = sizeof(struct offcpu_woken);
	handle_record(&r, buf, sizeof(struct offcpu_woken));
	assert_int_equal(r.bad_records, ++bad);
	/* a woken record cut short */
	*h = (struct ring_record_header){ RING_OFFCPU_WOKEN, sizeof(struct offcpu_woken) - 8 };
	handle_record(&r, buf, h->size);
	assert_int_equal(r.bad_records, ++bad);
	/* interpreter frames shorter than their fixed part */
	*h = (struct ring_record_header){ RING_INTERP_WALK, INTERP_EVENT_HDR_BYTES - 8 };
	handle_record(&r, buf, h->size);
	assert_int_equal(r.bad_records, ++bad);
	/* a sample shorter than its fixed part */
	*h = (struct ring_record_header){ RING_SAMPLE, sizeof(buf) };
	handle_record(&r, buf, sizeof(buf));
	assert_int_equal(r.bad_records, ++bad);
	assert_int_equal(sunk_calls, 0);

	/* the stack is still held: the real weight finds it */
	handle_record(&r, &w, sizeof(w));
	assert_int_equal(r.bad_records, bad);
	assert_int_equal(sunk_calls, 1);
	assert_int_equal(sunk_ns, 9000);
}

/* A sample whose counts say more bytes than it has: bad before any field is used. */
static void test_sample_sizes_checked(void **state)
{
	size_t size = STITCH_SAMPLE_HDR_BYTES + 64;
	struct sample_event *e = calloc(1, sizeof(*e));	/* as sent: 64 stack bytes */

	assert_non_null(e);
	e->hdr = (struct ring_record_header){ RING_SAMPLE, size };
	e->ustack_bytes = 128;
	handle_record(&r, e, size);
	assert_int_equal(r.bad_records, 1);
	e->ustack_bytes = 64;
	e->kstack_bytes = sizeof(e->kstack) + 8;
	handle_record(&r, e, size);
	assert_int_equal(r.bad_records, 2);
	e->kstack_bytes = 0;
	e->ucopy_off = 72;
	handle_record(&r, e, size);
	assert_int_equal(r.bad_records, 3);
	e->ucopy_off = 0;
	/* The uretprobes' return addresses: 8-aligned, the record's last bytes, a few. */
	e->nuret = 2;
	e->uret_off = 40;
	handle_record(&r, e, size);
	assert_int_equal(r.bad_records, 4);
	e->uret_off = 28;
	e->ustack_bytes = 28 + 2 * sizeof(struct stitch_uret);
	handle_record(&r, e, size);
	assert_int_equal(r.bad_records, 5);
	e->uret_off = 8;
	e->ustack_bytes = 8 + 2 * sizeof(struct stitch_uret);
	e->ucopy_off = 16;
	handle_record(&r, e, size);
	assert_int_equal(r.bad_records, 6);
	e->ucopy_off = 0;
	e->nuret = STITCH_URET_MAX + 1;
	e->ustack_bytes = 8 + e->nuret * sizeof(struct stitch_uret);
	handle_record(&r, e, STITCH_SAMPLE_HDR_BYTES + e->ustack_bytes);
	assert_int_equal(r.bad_records, 7);
	free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_weight_reaches_offcpu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_woken_then_weight, setup, teardown),
		cmocka_unit_test_setup_teardown(test_malformed_reach_no_handler, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sample_sizes_checked, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
