// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for the Perl side of interpreter frames: each BPF layout table is the
 * one offsets-perl.c checks against that perl's own headers (perl5NN.h), walks
 * are cut into Perl_runops_standard groups as docs/interpreters.md says, and
 * hostile walks (strings out of bounds, odd bytes, random frames) give
 * marked stacks, never a crash.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "interp/perl/perl.h"
#include "perl_walks.h"
#include "../../tools/interp-walk/perl532.h"
#include "../../tools/interp-walk/perl536.h"
#include "../../tools/interp-walk/perl540.h"
#include "../../tools/interp-walk/perl542.h"
#include "../../tools/interp-walk/perl544.h"

static const struct perl_layout *const checked[] = { &perl_5_32, &perl_5_36, &perl_5_40,
						     &perl_5_42, &perl_5_44 };

static const struct interp_perl_layout *bpf_layout(const char *version)
{
	size_t i;

	for (i = 0; i < interp_version_count(); i++)
		if (interp_version_at(i)->lang == INTERP_PERL &&
		    strcmp(interp_version_at(i)->version, version) == 0)
			return &interp_version_at(i)->layout.pl;
	return NULL;
}

#define SAME(f) assert_int_equal(b->f, c->f)

static void layout_is_the_checked_table(const struct perl_layout *c)
{
	const struct interp_perl_layout *b = bpf_layout(c->version);

	assert_non_null(b);
	SAME(interp_curstackinfo); SAME(interp_curcop); SAME(interp_compiling);
	SAME(interp_phase); SAME(phase_destruct);
	SAME(si_cxstack); SAME(si_prev); SAME(si_cxix); SAME(si_cxsubix); SAME(si_type);
	SAME(cx_size); SAME(cx_type_byte); SAME(cx_u16); SAME(cx_oldcop); SAME(cx_retop);
	SAME(cx_old_cxsubix); SAME(cx_sub_cv);
	SAME(sv_any); SAME(sv_flags);
	SAME(xcv_stash); SAME(xcv_start); SAME(xcv_gv_or_hek); SAME(xcv_flags);
	SAME(xgv_namehek); SAME(xgv_stash); SAME(xhv_aux_name); SAME(xhv_aux_name_count);
	SAME(hv_aux_after_array); SAME(xhv_max);
	SAME(hek_len); SAME(hek_key);
	SAME(op_type_word); SAME(op_type_mask); SAME(cop_line); SAME(cop_file);
	SAME(cxtypemask); SAME(cxt_sub); SAME(cxt_format); SAME(cxt_eval); SAME(old_op_type_shift);
	SAME(perlsi_main);
	SAME(svtypemask); SAME(svt_pvgv); SAME(svt_pvhv); SAME(svt_pvcv); SAME(svt_pvfm);
	SAME(svf_ook); SAME(svp_pok); SAME(svpgv_gp); SAME(cvf_named); SAME(cvf_lexical);
	SAME(op_nextstate); SAME(op_dbstate); SAME(op_entersub);
	SAME(op_leavesub); SAME(op_leavesublv);
	SAME(interp_stack_sp); SAME(sv_u); SAME(gp_cv); SAME(svf_rok); SAME(cvf_isxsub);
	/* The walker reads a context, a CV body and a COP up to one field each. */
	assert_true(b->cx_type_byte < b->cx_sub_cv && b->cx_u16 < b->cx_sub_cv &&
		    b->cx_oldcop < b->cx_sub_cv && b->cx_retop < b->cx_sub_cv &&
		    b->cx_old_cxsubix < b->cx_sub_cv);
	assert_true(b->xcv_stash < b->xcv_flags && b->xcv_start < b->xcv_flags &&
		    b->xcv_gv_or_hek < b->xcv_flags);
	assert_true(b->op_type_word < b->cop_file && b->cop_line < b->cop_file);
	assert_true(b->cx_sub_cv + 8 <= INTERP_CHUNK - 8 && b->xcv_flags + 4 <= INTERP_CHUNK - 8 &&
		    b->cop_file + 8 <= INTERP_CHUNK - 8);
}

/* Every perl entry is one checked table, and every checked table an entry. */
static void test_layout_is_the_checked_table(void **state)
{
	size_t i, n = 0;

	(void)state;
	for (i = 0; i < sizeof(checked) / sizeof(checked[0]); i++) {
		char name[16];

		snprintf(name, sizeof(name), "%u.%u", checked[i]->revision, checked[i]->major);
		assert_string_equal(name, checked[i]->version);
		layout_is_the_checked_table(checked[i]);
	}
	for (i = 0; i < interp_version_count(); i++)
		n += interp_version_at(i)->lang == INTERP_PERL;
	assert_int_equal(n, sizeof(checked) / sizeof(checked[0]));
}

static void test_module_names(void **state)
{
	char l[16], v[16];
	const struct interp_version *iv;

	(void)state;
	iv = interp_version_for_module("perl", l, sizeof(l), v, sizeof(v));
	assert_non_null(iv);
	assert_int_equal(iv->lang, INTERP_PERL);
	assert_string_equal(iv->version, "5.36");
	iv = interp_version_for_module("perl5.36.0", l, sizeof(l), v, sizeof(v));
	assert_non_null(iv);
	assert_int_equal(iv->lang, INTERP_PERL);
	/* a program embedding libperl.so: walked through the DTV */
	iv = interp_version_for_module("libperl.so.5.36.0", l, sizeof(l), v, sizeof(v));
	assert_non_null(iv);
	assert_int_equal(iv->lang, INTERP_PERL);
	assert_string_equal(iv->version, "5.36");
	iv = interp_version_for_module("libperl.so.5.40.1", l, sizeof(l), v, sizeof(v));
	assert_non_null(iv);
	assert_string_equal(iv->version, "5.40");
	iv = interp_version_for_module("perl5.32.1", l, sizeof(l), v, sizeof(v));
	assert_non_null(iv);
	assert_string_equal(iv->version, "5.32");
	iv = interp_version_for_module("libperl.so.5.44.0", l, sizeof(l), v, sizeof(v));
	assert_non_null(iv);
	assert_string_equal(iv->version, "5.44");
	/* another version: named in the one-line message, not walked */
	assert_null(interp_version_for_module("libperl.so.5.38.2", l, sizeof(l), v, sizeof(v)));
	assert_string_equal(l, "perl");
	assert_string_equal(v, "5.38");
}


#define FROM_C PERL_FRAME_FROM_C
#define CALLSV_EVAL (PERL_FRAME_EVAL | PERL_FRAME_FROM_C | PERL_FRAME_OLDOP0)

static struct interp_state st;

static int setup(void **state)
{
	(void)state;
	return interp_init(&st, -1, -1, false);
}

static int teardown(void **state)
{
	(void)state;
	interp_free(&st);
	return 0;
}

/* Group g as "name (file:line),..." */
static void expect_group(const struct groups *g, int k, const char *want)
{
	char got[1024] = "";
	int i;

	assert_true(k < g->ng);
	for (i = g->start[k]; i < g->start[k + 1]; i++) {
		char one[300];

		snprintf(one, sizeof(one), "%s%s (%s:%u)", i > g->start[k] ? "," : "",
			 g->names[i]->name, g->names[i]->file, g->names[i]->line);
		strcat(got, one);
	}
	assert_string_equal(got, want);
}

static void test_sort_block_calls_a_sub(void **state)
{
	struct perl_walk *w = calloc(1, sizeof(*w));
	struct groups g;

	(void)state;
	perl_walk_frame(w, "Work", "key_of", 0, 36);
	perl_walk_frame(w, NULL, NULL, PERL_FRAME_SI_END | 3 << PERL_FRAME_SI_SHIFT, 0);
	perl_walk_frame(w, "Work", "sorted", 0, 37);
	perl_walk_frame(w, "Work", "run", FROM_C, 45);
	perl_walk_frame(w, NULL, NULL, CALLSV_EVAL, 82);
	perl_groups(&st, &w->ev, w->strs, w->used, &g);
	assert_int_equal(g.ng, 2);
	expect_group(&g, 0, "Work::key_of (t.pl:36)");
	expect_group(&g, 1, "Work::sorted (t.pl:37),Work::run (t.pl:45),(eval) (t.pl:82)");
	assert_false(g.last_partial);
	free(w);
}

static void test_destroy_and_signal_handler(void **state)
{
	struct perl_walk *w = calloc(1, sizeof(*w));
	struct groups g;

	(void)state;
	/* DESTROY under call_sv(G_EVAL), in its stackinfo: the group ends once */
	perl_walk_frame(w, "Guard", "DESTROY", FROM_C, 24);
	perl_walk_frame(w, NULL, NULL, CALLSV_EVAL, 39);
	perl_walk_frame(w, NULL, NULL, PERL_FRAME_SI_END | 6 << PERL_FRAME_SI_SHIFT, 0);
	/* a string eval and an eval block run in their caller's runops */
	perl_walk_frame(w, "main", "spin", 0, 78);
	perl_walk_frame(w, NULL, NULL, PERL_FRAME_EVAL, 1);
	perl_walk_frame(w, NULL, "scoped", PERL_FRAME_NO_PKG, 79);
	perl_walk_frame(w, NULL, NULL, PERL_FRAME_MAIN, 94);
	perl_groups(&st, &w->ev, w->strs, w->used, &g);
	assert_int_equal(g.ng, 2);
	expect_group(&g, 0, "Guard::DESTROY (t.pl:24),(eval) (t.pl:39)");
	expect_group(&g, 1, "main::spin (t.pl:78),(eval) (t.pl:1),scoped (t.pl:79),<main> (t.pl:94)");
	free(w);
}

static void test_xs_callback_and_bare_sort_block(void **state)
{
	struct perl_walk *w = calloc(1, sizeof(*w));
	struct groups g;

	(void)state;
	/* a sample in a sort block: its stackinfo has no frame, its runops is empty */
	perl_walk_frame(w, NULL, NULL, PERL_FRAME_SI_END | 3 << PERL_FRAME_SI_SHIFT, 0);
	/* List::Util::first's block: MULTICALL, entered from C with no eval */
	perl_walk_frame(w, "L", "__ANON__", FROM_C, 69);
	perl_walk_frame(w, "L", "start", FROM_C, 69);
	perl_walk_frame(w, NULL, NULL, CALLSV_EVAL, 87);
	perl_groups(&st, &w->ev, w->strs, w->used, &g);
	assert_int_equal(g.ng, 3);
	expect_group(&g, 0, "");
	expect_group(&g, 1, "L::__ANON__ (t.pl:69)");
	expect_group(&g, 2, "L::start (t.pl:69),(eval) (t.pl:87)");
	free(w);
}

static void test_marked_walks(void **state)
{
	struct perl_walk *w = calloc(1, sizeof(*w));
	struct groups g;

	(void)state;
	/* a walk that failed before any frame: one empty, marked group */
	w->ev.flags = INTERP_EV_CORRUPT;
	perl_groups(&st, &w->ev, w->strs, w->used, &g);
	assert_int_equal(g.ng, 1);
	assert_int_equal(g.n, 0);
	assert_true(g.last_partial);
	/* a string beyond the area ends the walk there, marked */
	memset(w, 0, sizeof(*w));
	perl_walk_frame(w, "A", "ok", 0, 1);
	perl_walk_frame(w, "A", "bad", 0, 2);
	w->ev.frames[1].id2 = PERL_STR(w->used - 2, 200);
	perl_walk_frame(w, "A", "never", 0, 3);
	perl_groups(&st, &w->ev, w->strs, w->used, &g);
	assert_int_equal(g.n, 1);
	assert_true(g.last_partial);
	expect_group(&g, 0, "A::ok (t.pl:1)");
	/* ';' and control bytes never reach folded output */
	memset(w, 0, sizeof(*w));
	perl_walk_frame(w, "A;B", "x\ny", 0, 5);
	perl_groups(&st, &w->ev, w->strs, w->used, &g);
	expect_group(&g, 0, "A?B::x?y (t.pl:5)");
	free(w);
}

static void test_random_walks(void **state)
{
	struct perl_walk *w = calloc(1, sizeof(*w));
	unsigned int seed = 7;
	struct groups g;
	int i, j;

	(void)state;
	for (i = 0; i < 3000; i++) {
		uint8_t *p = (uint8_t *)&w->ev.frames;

		w->ev.nframes = rand_r(&seed) % (INTERP_MAX_FRAMES + 1);
		w->ev.flags = rand_r(&seed) % 16;
		for (j = 0; j < (int)sizeof(w->ev.frames); j++)
			p[j] = rand_r(&seed);
		for (j = 0; j < (int)sizeof(w->strs); j++)
			w->strs[j] = rand_r(&seed);
		w->used = rand_r(&seed) % (INTERP_STR_BYTES + 1);
		perl_groups(&st, &w->ev, w->strs, w->used, &g);
		assert_true(g.ng >= 0 && g.ng <= INTERP_MAX_FRAMES + 1);
		assert_true(g.n <= w->ev.nframes);
	}
	free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_is_the_checked_table),
		cmocka_unit_test(test_module_names),
		cmocka_unit_test(test_sort_block_calls_a_sub),
		cmocka_unit_test(test_destroy_and_signal_handler),
		cmocka_unit_test(test_xs_callback_and_bare_sort_block),
		cmocka_unit_test(test_marked_walks),
		cmocka_unit_test(test_random_walks),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
