// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 code read as a frameless leaf or not (src/unwind/arm64_leaf.c): the
 * instructions of Debian 12's 6.1 vDSO __kernel_clock_gettime pass, every
 * way of moving sp, writing x30 or calling fails (words assembled by
 * aarch64-linux-gnu-as -march=armv8.5-a); and the rows such ranges get,
 * marked in one pass (src/unwind/table_edit.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "unwind/arm64_leaf.h"
#include "unwind/table_edit.h"

/* From 6.1.0's vDSO: the clock read, its syscall fallback, PAC around it. */
static const uint32_t leaf[] = {
	0xd503233f,	/* paciasp */
	0x540005e8,	/* b.hi */
	0x37000567,	/* tbnz w7, #0 */
	0x8b2463e4,	/* add x4, sp, x4 */
	0xa940a86b,	/* ldp x11, x10, [x3, #8] */
	0xa9000026,	/* stp x6, x0, [x1] */
	0xf100041f,	/* cmp x0, #1 (subs xzr) */
	0xf240001f,	/* tst x0, #1 (ands xzr) */
	0xf94007e0,	/* ldr x0, [sp, #8]: sp read, not moved */
	0x910003fd,	/* mov x29, sp */
	0xd4000001,	/* svc #0 */
	0xd50323bf,	/* autiasp */
	0xd65f03c0,	/* ret */
};

static void clock_gettime_is_a_frameless_leaf(void **state)
{
	assert_true(arm64_code_is_frameless_leaf(leaf, sizeof(leaf) / sizeof(leaf[0])));
	assert_false(arm64_code_is_frameless_leaf(leaf, 0));
}

static void frames_and_calls_are_not(void **state)
{
	static const uint32_t breaks[] = {
		0xa9bf7bfd,	/* stp x29, x30, [sp, #-16]! */
		0xd10083ff,	/* sub sp, sp, #0x20 */
		0x94000000,	/* bl */
		0xd63f0020,	/* blr x1 */
		0xd63f083f,	/* blraaz x1 */
		0xf81f0ffe,	/* str x30, [sp, #-16]! */
		0xa8c17bfd,	/* ldp x29, x30, [sp], #16 */
		0x9100003f,	/* mov sp, x1 */
		0x927cec1f,	/* and sp, x0, #~15 */
		0xf81f0fe1,	/* str x1, [sp, #-16]! */
		0xf84107e2,	/* ldr x2, [sp], #16 */
		0xaa0003fe,	/* mov x30, x0 */
		0x8b2163ff,	/* add sp, sp, x1 */
		0x6dbe27e8,	/* stp d8, d9, [sp, #-32]! */
	};
	uint32_t code[sizeof(leaf) / sizeof(leaf[0])];
	size_t i, n = sizeof(code) / sizeof(code[0]);

	for (i = 0; i < sizeof(breaks) / sizeof(breaks[0]); i++) {
		memcpy(code, leaf, sizeof(code));
		code[n / 2] = breaks[i];
		assert_false(arm64_code_is_frameless_leaf(code, n));
	}
}

/* Several ranges marked in one pass: adjacent ones merge, gaps get `after`. */
static void ranges_marked_at_once(void **state)
{
	static const struct stitch_unwind_row before[] = {
		{ .pc = 0x100, .cfa_rule = STITCH_CFA_RSP, .cfa_offset = 8 },
		{ .pc = 0x200, .cfa_rule = STITCH_CFA_NO_FDE },
		{ .pc = 0x400, .cfa_rule = STITCH_CFA_RSP, .cfa_offset = 16 },
	};
	static const struct table_range r[] = {
		{ 0x200, 0x210 }, { 0x210, 0x220 }, { 0x300, 0x310 }, { 0x3f0, 0x400 },
	};
	const struct stitch_unwind_row leaf = { .cfa_rule = STITCH_CFA_RSP };
	static const struct { uint32_t pc; uint8_t rule; int16_t off; } want[] = {
		{ 0x100, STITCH_CFA_RSP, 8 }, { 0x200, STITCH_CFA_RSP, 0 },
		{ 0x220, STITCH_CFA_NO_FDE, 0 }, { 0x300, STITCH_CFA_RSP, 0 },
		{ 0x310, STITCH_CFA_NO_FDE, 0 }, { 0x3f0, STITCH_CFA_RSP, 0 },
		{ 0x400, STITCH_CFA_RSP, 16 },
	};
	struct unwind_table t = { 0 };
	size_t i;

	t.rows = malloc(sizeof(before));
	assert_non_null(t.rows);
	memcpy(t.rows, before, sizeof(before));
	t.nr = sizeof(before) / sizeof(before[0]);
	assert_int_equal(unwind_table_mark_ranges(&t, r, sizeof(r) / sizeof(r[0]), &leaf,
						  STITCH_CFA_NO_FDE), 0);
	assert_int_equal(t.nr, sizeof(want) / sizeof(want[0]));
	for (i = 0; i < t.nr; i++) {
		assert_int_equal(t.rows[i].pc, want[i].pc);
		assert_int_equal(t.rows[i].cfa_rule, want[i].rule);
		assert_int_equal(t.rows[i].cfa_offset, want[i].off);
	}
	free(t.rows);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(clock_gettime_is_a_frameless_leaf),
		cmocka_unit_test(frames_and_calls_are_not),
		cmocka_unit_test(ranges_marked_at_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
