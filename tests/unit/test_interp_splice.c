// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for splicing interpreter frame groups into a native stack
 * (interp_splice, src/interp/splice.c) where the counts differ by one.  A
 * language that pushes its entry frame before calling its loop and pops it
 * before the loop returns (Ruby) is paired from the outside: the innermost
 * group or eval frame in transition is left out, every other group lands on
 * its own eval frame.  Any other difference keeps the native frames and a
 * marker, as does a language without that property.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "interp/interp_internal.h"
#include "profile/profile.h"

#define EVAL_START 0x1000
#define EVAL_END 0x2000
#define CAP 64

static struct interp_state st;
static struct binary *eval_bin, *other_bin;	/* identities only */

static int setup(void **state)
{
	(void)state;
	eval_bin = calloc(1, 64);
	other_bin = calloc(1, 64);
	return !eval_bin || !other_bin || interp_init(&st, -1, -1, false);
}

static int teardown(void **state)
{
	(void)state;
	interp_free(&st);
	free(eval_bin);
	free(other_bin);
	return 0;
}

static struct interp_loop loop_of(bool entry_outside_loop)
{
	return (struct interp_loop){ .bin = eval_bin, .start = EVAL_START, .end = EVAL_END,
				     .lang_name = "ruby",
				     .entry_outside_loop = entry_outside_loop };
}

/*
 * A native stack from a spec, innermost first: 'E' an eval frame, 'n' any
 * other (addresses tell them apart; return addresses, one past the call).
 */
static int natives(struct uframe *uf, const char *spec)
{
	int n = 0;

	memset(uf, 0, CAP * sizeof(*uf));
	for (; *spec; spec++, n++)
		uf[n] = (struct uframe){ .bin = *spec == 'E' ? eval_bin : other_bin,
					 .addr = (*spec == 'E' ? EVAL_START : 0x500) + 0x10 * n + 1,
					 .kind = UFRAME_ELF };
	return n;
}

/* Groups from a spec, innermost first: names, '|' ends a group (at an entry frame). */
static void groups(struct groups *g, const char *const *names)
{
	memset(g, 0, sizeof(*g));
	for (; *names; names++) {
		if (!strcmp(*names, "|")) {
			g->start[++g->ng] = g->n;
			continue;
		}
		g->names[g->n++] = interp_intern(&st, FRAME_RUBY, *names, NULL, 0);
	}
}

/* The spliced stack as one string: names, 'n'/'E' with their index in the native stack. */
static void show(const struct uframe *uf, int n, char *out, size_t len)
{
	size_t used = 0;
	int i;

	out[0] = 0;
	for (i = 0; i < n && used < len; i++) {
		const struct uframe *u = &uf[i];

		if (u->kind == UFRAME_INTERP)
			used += snprintf(out + used, len - used, "%s%s", i ? ";" : "",
					 ((const struct interp_name *)(uintptr_t)u->addr)->name);
		else
			used += snprintf(out + used, len - used, "%s%c%d", i ? ";" : "",
					 u->bin == eval_bin ? 'E' : 'n',
					 (int)((u->addr & 0xff) / 0x10));
	}
}

static void check(bool entry_outside_loop, const char *stack, const char *const *names,
		  const char *want, uint64_t transitions, uint64_t unstitched)
{
	struct interp_loop loop = loop_of(entry_outside_loop);
	struct groups *g = malloc(sizeof(*g));
	uint64_t t0 = st.in_transition, u0 = st.unstitched;
	struct uframe uf[CAP];
	char got[1024];
	int n;

	assert_non_null(g);
	groups(g, names);
	n = interp_splice(&st, &loop, g, uf, natives(uf, stack), CAP, true);
	show(uf, n, got, sizeof(got));
	assert_string_equal(got, want);
	assert_int_equal(st.in_transition - t0, transitions);
	assert_int_equal(st.unstitched - u0, unstitched);
	free(g);
}

/* As many groups as eval frames: each on its own, innermost with innermost. */
static void test_counts_equal(void **state)
{
	static const char *const names[] = { "blk", "|", "leaf", "main", "|", NULL };

	(void)state;
	check(true, "nEnEn", names, "n0;blk;n2;leaf;main;n4", 0, 0);
}

/* An entry frame pushed, its loop not called yet: stitched without it. */
static void test_entry_pushed_loop_not_called(void **state)
{
	static const char *const names[] = { "blk", "|", "leaf", "times", "main", "|", NULL };

	(void)state;
	check(true, "nnEn", names, "n0;n1;leaf;times;main;n3", 1, 0);
}

/* An entry frame popped, its loop not returned yet: that eval frame stays native. */
static void test_entry_popped_loop_not_returned(void **state)
{
	static const char *const names[] = { "leaf", "times", "main", "|", NULL };

	(void)state;
	check(true, "nEnEn", names, "n0;E1;n2;leaf;times;main;n4", 1, 0);
}

/* A group of more than one frame more is not one entry frame in transition: marked. */
static void test_other_differences_marked(void **state)
{
	static const char *const two[] = { "a", "b", "|", "leaf", "main", "|", NULL };
	static const char *const three[] = { "x", "|", "leaf", "|", "main", "|", NULL };

	(void)state;
	check(true, "nEn", two, "n0;[ruby frames not stitched];E1;n2", 0, 1);
	/* Two groups more than eval frames. */
	check(true, "nEn", three, "n0;[ruby frames not stitched];E1;n2", 0, 1);
	/* Two eval frames more than groups. */
	check(true, "EnEnE", two + 3, "[ruby frames not stitched];E0;n1;E2;n3;E4", 0, 1);
}

/* A language that enters its loop before marking the frame: never paired from outside. */
static void test_other_languages_marked(void **state)
{
	static const char *const names[] = { "blk", "|", "leaf", "main", "|", NULL };

	(void)state;
	check(false, "nnEn", names, "n0;n1;[ruby frames not stitched];E2;n3", 0, 1);
}

/*
 * CPython 3.8 - 3.10: each frame its own loop call, linked (tstate->frame)
 * after the call's prologue, unlinked before its epilogue.  A sample there
 * has one loop frame more than groups, the innermost; so has one whose
 * prologue ran the GC and a finalizer's frame inside the unlinked call
 * (its f_back skips that call).  Pairing from the outside would be right
 * for the first and put the finalizer's name on the unlinked call's loop
 * frame in the second: both are marked.
 */
static void test_python_frame_per_loop_call(void **state)
{
	static const char *const names[] = { "fin", "|", "g", "|", "<module>", "|", NULL };

	(void)state;
	check(false, "EnEnEn", names, "fin;n1;g;n3;<module>;n5", 0, 0);
	/* g's loop called f, whose frame is not linked yet. */
	check(false, "EnEnEn", names + 2, "[ruby frames not stitched];E0;n1;E2;n3;E4;n5", 0, 1);
	/* f's prologue ran a finalizer: fin's loop frame innermost, f's unlinked. */
	check(false, "EnEnEnEn", names,
	      "[ruby frames not stitched];E0;n1;E2;n3;E4;n5;E6;n7", 0, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_equal),
		cmocka_unit_test(test_entry_pushed_loop_not_called),
		cmocka_unit_test(test_entry_popped_loop_not_returned),
		cmocka_unit_test(test_other_differences_marked),
		cmocka_unit_test(test_other_languages_marked),
		cmocka_unit_test(test_python_frame_per_loop_call),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
