// SPDX-License-Identifier: GPL-2.0
/*
 * Unwinder tests: unwind_step() on each rule over a fake stack, then real
 * snapshots taken by a fixture program built here with
 * `gcc -O2 -fomit-frame-pointer -fno-inline -g` (no frame pointers), unwound
 * with tables built from the files in its /proc/self/maps.  Frames are
 * matched to functions by address ranges from the fixture's own symbol
 * table (and libc's dynamic one), not by any symbolizer.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "unwind/cfi.h"
#include "util/elf_util.h"
#include "unwind/unwind.h"

/* ---- unwind_step on synthetic rows --------------------------------------- */

#define FAKE_BASE	0x7ffff000ull

static uint64_t fake_words[64];

static struct unwind_stack fake_stack(void)
{
	struct unwind_stack s = { FAKE_BASE, (const uint8_t *)fake_words, sizeof(fake_words) };

	return s;
}

static uint64_t *word_at(uint64_t addr)
{
	return &fake_words[(addr - FAKE_BASE) / 8];
}

#ifdef __aarch64__
/*
 * arm64: the return address in x30 where the row says so (a leaf, a
 * prologue), trusted only while the registers are exact; saved ones and
 * x30 stripped of pointer-authentication signatures; the signal frame's
 * registers from arm64's rt_sigframe.
 */
static void test_step_arm64_link_register(void **state)
{
	struct unwind_stack s = fake_stack();
	struct stitch_unwind_row row = { .cfa_rule = STITCH_CFA_RSP, .cfa_offset = 0 };
	struct unwind_regs r = { 0xaaaaba360100, FAKE_BASE, 0x77, 0x54aaaaba360700 };
	bool exact = true;

	memset(fake_words, 0, sizeof(fake_words));
	assert_int_equal(unwind_step(&row, &r, &exact, unwind_stack_read, &s), 0);
	assert_int_equal(r.ip, 0xaaaaba360700);		/* signature gone */
	assert_int_equal(r.sp, FAKE_BASE);
	assert_int_equal(r.bp, 0x77);
	assert_false(exact);
	/* The caller's x30 is not known: a second x30 row must stop, not loop. */
	assert_int_equal(unwind_step(&row, &r, &exact, unwind_stack_read, &s),
			 UNWIND_STOP_NO_RULE);
	assert_int_equal(r.ip, 0xaaaaba360700);
}

static void test_step_arm64_saved(void **state)
{
	struct unwind_stack s = fake_stack();
	/* After stp x29, x30, [sp, #-32]!; mov x29, sp: CFA = x29 + 32. */
	struct stitch_unwind_row row = { .cfa_rule = STITCH_CFA_RBP, .cfa_offset = 32,
					 .rbp_rule = STITCH_RBP_AT_CFA, .rbp_offset = -32,
					 .ra_offset = -24 };
	struct unwind_regs r = { 0x400100, FAKE_BASE, FAKE_BASE + 16, 0x1234 };
	bool exact = true;

	memset(fake_words, 0, sizeof(fake_words));
	*word_at(FAKE_BASE + 16) = 0xbbbb;			/* x29 at CFA - 32 */
	*word_at(FAKE_BASE + 24) = 0x2a000000401000ull;	/* signed x30 at CFA - 24 */
	assert_int_equal(unwind_step(&row, &r, &exact, unwind_stack_read, &s), 0);
	assert_int_equal(r.ip, 0x401000);
	assert_int_equal(r.sp, FAKE_BASE + 48);
	assert_int_equal(r.bp, 0xbbbb);
	assert_int_equal(r.lr, 0);
}

static void test_step_arm64_signal(void **state)
{
	static uint8_t frame[1024];
	struct unwind_stack s = { FAKE_BASE, frame, sizeof(frame) };
	struct stitch_unwind_row row = { .cfa_rule = STITCH_CFA_SIGNAL };
	struct stitch_unwind_row leaf = { .cfa_rule = STITCH_CFA_RSP, .cfa_offset = 0 };
	struct unwind_regs r = { 0x7000, FAKE_BASE, 0 };
	uint64_t ip = 0x401234, sp = FAKE_BASE + 0x300, bp = 0x77, lr = 0x401500;
	bool exact = false;

	/* siginfo (128 bytes), then the ucontext: its sigcontext's regs at 176 + 8. */
	assert_int_equal(STITCH_UC_RIP, 128 + 176 + 8 + 32 * 8);
	memcpy(frame + STITCH_UC_RIP, &ip, 8);
	memcpy(frame + STITCH_UC_RSP, &sp, 8);
	memcpy(frame + STITCH_UC_RBP, &bp, 8);
	memcpy(frame + STITCH_UC_LR, &lr, 8);
	assert_int_equal(unwind_step(&row, &r, &exact, unwind_stack_read, &s), 0);
	assert_int_equal(r.ip, ip);
	assert_int_equal(r.sp, sp);
	assert_int_equal(r.bp, bp);
	assert_int_equal(r.lr, lr);
	assert_true(exact);
	/* The interrupted leaf returns through x30. */
	assert_int_equal(unwind_step(&leaf, &r, &exact, unwind_stack_read, &s), 0);
	assert_int_equal(r.ip, lr);
}

/* Code at 0x1000-0x3000, no load bias. */
static const struct unwind_table *low_lookup(void *ctx, uint64_t pc, uint64_t *bias)
{
	*bias = 0;
	return pc >= 0x1000 && pc < 0x3000 ? ctx : NULL;
}

/* A frame-pointer step leaves sp a bound: the caller's sp-based row stops. */
static void test_unwind_arm64_fp_then_sp_row(void **state)
{
	static const struct stitch_unwind_row rows[] = {
		{ .pc = 0x1000, .cfa_rule = STITCH_CFA_RSP, .cfa_offset = 16, .ra_offset = -8 },
		{ .pc = 0x2000, .cfa_rule = STITCH_CFA_NO_FDE },
	};
	struct unwind_table t = { (struct stitch_unwind_row *)rows, 2 };
	struct unwind_stack s = fake_stack();
	struct unwind_regs r = { 0x2010, FAKE_BASE, FAKE_BASE + 32 };
	struct unwind_frame f[8];
	enum unwind_stop why;

	memset(fake_words, 0, sizeof(fake_words));
	/* 0x2010 has no CFI: by frame record {x29, x30} at x29, into 0x1000's code. */
	*word_at(FAKE_BASE + 32) = FAKE_BASE + 48;
	*word_at(FAKE_BASE + 40) = 0x1104;
	assert_int_equal(unwind_user(&r, &s, low_lookup, &t, f, 8, &why), 2);
	assert_int_equal(f[1].pc, 0x1104);
	assert_true(f[1].by_fp);
	assert_int_equal(why, UNWIND_STOP_NO_RULE);
}
#endif

#ifdef __x86_64__
static void test_step_rules(void **state)
{
	struct unwind_stack s = fake_stack();
	struct stitch_unwind_row row = { 0 };
	struct unwind_regs r;
	bool exact = true;

	memset(fake_words, 0, sizeof(fake_words));
	/* RSP + 16, rbp saved at CFA - 16. */
	*word_at(FAKE_BASE + 16 - 8) = 0x401000;	/* RA at CFA - 8 */
	*word_at(FAKE_BASE + 16 - 16) = 0xbbbb;		/* rbp at CFA - 16 */
	row.cfa_rule = STITCH_CFA_RSP;
	row.cfa_offset = 16;
	row.rbp_rule = STITCH_RBP_AT_CFA;
	row.rbp_offset = -16;
	r = (struct unwind_regs){ 0x400100, FAKE_BASE, 0xaaaa };
	assert_int_equal(unwind_step(&row, &r, &exact, unwind_stack_read, &s), 0);
	assert_int_equal(r.ip, 0x401000);
	assert_int_equal(r.sp, FAKE_BASE + 16);
	assert_int_equal(r.bp, 0xbbbb);
	assert_false(exact);

	/* RBP + 16, rbp unchanged by rule SAME. */
	*word_at(FAKE_BASE + 0x28) = 0x402000;
	row.cfa_rule = STITCH_CFA_RBP;
	row.rbp_rule = STITCH_RBP_SAME;
	r = (struct unwind_regs){ 0x400100, FAKE_BASE, FAKE_BASE + 0x20 };
	assert_int_equal(unwind_step(&row, &r, &exact, unwind_stack_read, &s), 0);
	assert_int_equal(r.ip, 0x402000);
	assert_int_equal(r.sp, FAKE_BASE + 0x30);
	assert_int_equal(r.bp, FAKE_BASE + 0x20);

	/* PLT: +8 once rip & 15 reaches the threshold (11). */
	*word_at(FAKE_BASE + 0) = 0x403000;
	*word_at(FAKE_BASE + 8) = 0x404000;
	row = (struct stitch_unwind_row){ .cfa_rule = STITCH_CFA_PLT, .cfa_offset = 8,
					  .rbp_offset = 11 };
	r = (struct unwind_regs){ 0x400a0a, FAKE_BASE, 1 };
	assert_int_equal(unwind_step(&row, &r, &exact, unwind_stack_read, &s), 0);
	assert_int_equal(r.ip, 0x403000);
	r = (struct unwind_regs){ 0x400a0b, FAKE_BASE, 1 };
	assert_int_equal(unwind_step(&row, &r, &exact, unwind_stack_read, &s), 0);
	assert_int_equal(r.ip, 0x404000);
	assert_int_equal(r.sp, FAKE_BASE + 16);

	/* DEREF_RBP: CFA = *(rbp - 8), rbp' = *(rbp + 0). */
	*word_at(FAKE_BASE + 0x40) = 0x5555;			/* saved rbp */
	*word_at(FAKE_BASE + 0x38) = FAKE_BASE + 0x100;		/* CFA */
	*word_at(FAKE_BASE + 0xf8) = 0x405000;			/* RA */
	row = (struct stitch_unwind_row){ .cfa_rule = STITCH_CFA_DEREF_RBP, .cfa_offset = -8,
					  .rbp_rule = STITCH_RBP_AT_RBP, .rbp_offset = 0 };
	r = (struct unwind_regs){ 0x400100, FAKE_BASE, FAKE_BASE + 0x40 };
	assert_int_equal(unwind_step(&row, &r, &exact, unwind_stack_read, &s), 0);
	assert_int_equal(r.ip, 0x405000);
	assert_int_equal(r.sp, FAKE_BASE + 0x100);
	assert_int_equal(r.bp, 0x5555);
}

/* Past an epilogue's pop: the rbp save slot is below sp, rbp is the caller's again. */
static void test_step_epilogue(void **state)
{
	struct unwind_stack s = fake_stack();
	struct stitch_unwind_row row = { .cfa_rule = STITCH_CFA_RSP, .cfa_offset = 32,
					 .rbp_rule = STITCH_RBP_AT_CFA, .rbp_offset = -48 };
	struct unwind_regs r = { 0x400100, FAKE_BASE + 16, 0xcafe };
	bool exact = true;

	memset(fake_words, 0, sizeof(fake_words));
	*word_at(FAKE_BASE) = 0xdead;			/* stale, below sp */
	*word_at(FAKE_BASE + 16 + 24) = 0x401000;	/* RA at CFA - 8 */
	assert_int_equal(unwind_step(&row, &r, &exact, unwind_stack_read, &s), 0);
	assert_int_equal(r.ip, 0x401000);
	assert_int_equal(r.sp, FAKE_BASE + 48);
	assert_int_equal(r.bp, 0xcafe);
	/* One slot above sp: still saved there. */
	row.rbp_offset = -24;
	*word_at(FAKE_BASE + 16 + 8) = 0xbbbb;
	r = (struct unwind_regs){ 0x400100, FAKE_BASE + 16, 0xcafe };
	assert_int_equal(unwind_step(&row, &r, &exact, unwind_stack_read, &s), 0);
	assert_int_equal(r.bp, 0xbbbb);
}

static void test_step_signal(void **state)
{
	static uint8_t uc[512];
	struct unwind_stack s = { FAKE_BASE, uc, sizeof(uc) };
	struct stitch_unwind_row row = { .cfa_rule = STITCH_CFA_SIGNAL };
	struct unwind_regs r = { 0x7000, FAKE_BASE, 0 };
	uint64_t ip = 0x401234, sp = FAKE_BASE + 0x300, bp = 0x77;
	bool exact = false;

	memcpy(uc + STITCH_UC_RIP, &ip, 8);
	memcpy(uc + STITCH_UC_RSP, &sp, 8);
	memcpy(uc + STITCH_UC_RBP, &bp, 8);
	assert_int_equal(unwind_step(&row, &r, &exact, unwind_stack_read, &s), 0);
	assert_int_equal(r.ip, ip);
	assert_int_equal(r.sp, sp);
	assert_int_equal(r.bp, bp);
	assert_true(exact);
	/* An interrupted sp below the frame is garbage. */
	sp = FAKE_BASE - 8;
	memcpy(uc + STITCH_UC_RSP, &sp, 8);
	r = (struct unwind_regs){ 0x7000, FAKE_BASE, 0 };
	assert_int_equal(unwind_step(&row, &r, &exact, unwind_stack_read, &s), UNWIND_STOP_BAD);
	assert_int_equal(r.ip, 0x7000);
}

static void test_step_stops(void **state)
{
	struct unwind_stack s = fake_stack();
	struct stitch_unwind_row row = { .cfa_rule = STITCH_CFA_RSP, .cfa_offset = 8 };
	struct unwind_regs r = { 0x400100, FAKE_BASE, 0 };
	bool exact = true;

	memset(fake_words, 0, sizeof(fake_words));
	/* RA of zero is not an end marker. */
	assert_int_equal(unwind_step(&row, &r, &exact, unwind_stack_read, &s), UNWIND_STOP_BAD);
	/* sp must move up. */
	row.cfa_offset = 0;
	assert_int_equal(unwind_step(&row, &r, &exact, unwind_stack_read, &s), UNWIND_STOP_BAD);
	/* Beyond the copied bytes. */
	row.cfa_offset = sizeof(fake_words) + 8;
	assert_int_equal(unwind_step(&row, &r, &exact, unwind_stack_read, &s),
			 UNWIND_STOP_TRUNCATED);
	/* (A save slot below them is an epilogue's, popped: test_step_epilogue.) */
	row = (struct stitch_unwind_row){ .cfa_rule = STITCH_CFA_END };
	assert_int_equal(unwind_step(&row, &r, &exact, unwind_stack_read, &s), UNWIND_STOP_END);
	row.cfa_rule = STITCH_CFA_UNKNOWN;
	assert_int_equal(unwind_step(&row, &r, &exact, unwind_stack_read, &s),
			 UNWIND_STOP_NO_RULE);
	assert_int_equal(unwind_step(NULL, &r, &exact, unwind_stack_read, &s),
			 UNWIND_STOP_NO_RULE);
	assert_int_equal(r.ip, 0x400100);
	assert_int_equal(r.sp, FAKE_BASE);
}

/* One table for the whole fake address space, bias 0x1000. */
static const struct unwind_table *fake_lookup(void *ctx, uint64_t pc, uint64_t *bias)
{
	*bias = 0x1000;
	return pc >= 0x401000 && pc < 0x500000 ? ctx : NULL;
}

static void test_unwind_user_small(void **state)
{
	struct stitch_unwind_row rows[] = {
		{ .pc = 0x400000, .cfa_rule = STITCH_CFA_RSP, .cfa_offset = 16 },
		{ .pc = 0x400100, .cfa_rule = STITCH_CFA_END },
		{ .pc = 0x400200, .cfa_rule = STITCH_CFA_UNKNOWN },
	};
	struct unwind_table t = { rows, 3 };
	struct unwind_stack s = fake_stack();
	struct unwind_regs r = { 0x401010, FAKE_BASE, 0 };
	struct unwind_frame f[8];
	enum unwind_stop why;

	memset(fake_words, 0, sizeof(fake_words));
	/* frame 0 -> return to 0x401101 (row at 0x401100 - bias: END) */
	*word_at(FAKE_BASE + 8) = 0x401101;
	assert_int_equal(unwind_user(&r, &s, fake_lookup, &t, f, 8, &why), 2);
	assert_int_equal(why, UNWIND_STOP_END);
	assert_true(f[0].exact);
	assert_false(f[1].exact);
	assert_int_equal(f[1].pc, 0x401101);
	/* Full exactly at the last frame: still complete. */
	assert_int_equal(unwind_user(&r, &s, fake_lookup, &t, f, 2, &why), 2);
	assert_int_equal(why, UNWIND_STOP_END);
	assert_int_equal(unwind_user(&r, &s, fake_lookup, &t, f, 1, &why), 1);
	assert_int_equal(why, UNWIND_STOP_TRUNCATED);
	/*
	 * A return address right after the function (noreturn call as its last
	 * instruction): looked up at ra - 1, still in the first row.
	 */
	*word_at(FAKE_BASE + 8) = 0x401100;
	*word_at(FAKE_BASE + 24) = 0x401101;
	assert_int_equal(unwind_user(&r, &s, fake_lookup, &t, f, 8, &why), 3);
	assert_int_equal(why, UNWIND_STOP_END);
	/* Unknown rule, and no module. */
	*word_at(FAKE_BASE + 8) = 0x401201;
	assert_int_equal(unwind_user(&r, &s, fake_lookup, &t, f, 8, &why), 2);
	assert_int_equal(why, UNWIND_STOP_NO_RULE);
	*word_at(FAKE_BASE + 8) = 0x600000;
	assert_int_equal(unwind_user(&r, &s, fake_lookup, &t, f, 8, &why), 2);
	assert_int_equal(why, UNWIND_STOP_NO_MODULE);
	assert_int_equal(unwind_user(&r, &s, fake_lookup, &t, f, 0, &why), 0);
}

/* C code 0x401000-0x500000 (bias 0x1000), JIT code (no table) 0x700000-0x710000. */
static const struct unwind_table *jit_lookup(void *ctx, uint64_t pc, uint64_t *bias)
{
	*bias = 0x1000;
	if (pc >= 0x700000 && pc < 0x710000)
		return &unwind_table_jit;
	return pc >= 0x401000 && pc < 0x500000 ? ctx : NULL;
}

/*
 * Code without CFI is stepped by frame pointer: JIT code (anonymous), and
 * text in a gap between FDEs; back in code with CFI, its rows resume.  A
 * frame pointer below sp or misaligned, or a return address in no code,
 * cuts the stack there.
 */
static void test_unwind_user_jit(void **state)
{
	struct stitch_unwind_row rows[] = {
		{ .pc = 0x400000, .cfa_rule = STITCH_CFA_RSP, .cfa_offset = 16 },
		{ .pc = 0x400100, .cfa_rule = STITCH_CFA_END },
		{ .pc = 0x400200, .cfa_rule = STITCH_CFA_UNKNOWN },
		{ .pc = 0x400300, .cfa_rule = STITCH_CFA_NO_FDE },
	};
	struct unwind_table t = { rows, 4 };
	struct unwind_stack s = fake_stack();
	struct unwind_regs r = { 0x401010, FAKE_BASE, FAKE_BASE + 32 };
	struct unwind_frame f[8];
	enum unwind_stop why;

	memset(fake_words, 0, sizeof(fake_words));
	*word_at(FAKE_BASE + 8) = 0x700101;		/* C returns into JIT code */
	*word_at(FAKE_BASE + 32) = FAKE_BASE + 64;	/* its frame: saved rbp, */
	*word_at(FAKE_BASE + 40) = 0x700201;		/* return address: JIT again */
	*word_at(FAKE_BASE + 64) = 0x1234;		/* outer frame: caller's rbp (none) */
	*word_at(FAKE_BASE + 72) = 0x401101;		/* back in C: END row */
	assert_int_equal(unwind_user(&r, &s, jit_lookup, &t, f, 8, &why), 4);
	assert_int_equal(why, UNWIND_STOP_END);
	assert_int_equal(f[1].pc, 0x700101);
	assert_false(f[1].by_fp);
	assert_int_equal(f[2].pc, 0x700201);
	assert_true(f[2].by_fp);
	assert_int_equal(f[3].pc, 0x401101);
	assert_true(f[3].by_fp);
	/* Full at a frame-pointer step: truncated. */
	assert_int_equal(unwind_user(&r, &s, jit_lookup, &t, f, 2, &why), 2);
	assert_int_equal(why, UNWIND_STOP_TRUNCATED);

	/* Return address in no code: cut after the JIT frame. */
	*word_at(FAKE_BASE + 40) = 0x600000;
	assert_int_equal(unwind_user(&r, &s, jit_lookup, &t, f, 8, &why), 2);
	assert_int_equal(why, UNWIND_STOP_NO_RULE);
	*word_at(FAKE_BASE + 40) = 0;
	assert_int_equal(unwind_user(&r, &s, jit_lookup, &t, f, 8, &why), 2);
	assert_int_equal(why, UNWIND_STOP_NO_RULE);
	*word_at(FAKE_BASE + 40) = 0x700201;
	/* JIT code without a frame pointer: rbp below sp, misaligned, past the stack. */
	r.bp = FAKE_BASE + 8;
	assert_int_equal(unwind_user(&r, &s, jit_lookup, &t, f, 8, &why), 2);
	assert_int_equal(why, UNWIND_STOP_NO_RULE);
	r.bp = FAKE_BASE + 33;
	assert_int_equal(unwind_user(&r, &s, jit_lookup, &t, f, 8, &why), 2);
	assert_int_equal(why, UNWIND_STOP_NO_RULE);
	r.bp = FAKE_BASE + sizeof(fake_words);
	assert_int_equal(unwind_user(&r, &s, jit_lookup, &t, f, 8, &why), 2);
	assert_int_equal(why, UNWIND_STOP_TRUNCATED);

	/* Text no FDE covers (a NO_FDE row) is stepped by frame pointer too. */
	r = (struct unwind_regs){ 0x401310, FAKE_BASE, FAKE_BASE + 32 };
	*word_at(FAKE_BASE + 40) = 0x401101;
	assert_int_equal(unwind_user(&r, &s, jit_lookup, &t, f, 8, &why), 2);
	assert_int_equal(why, UNWIND_STOP_END);
	assert_true(f[1].by_fp);
	/* Not an UNKNOWN row: an FDE says something the format cannot hold. */
	r.ip = 0x401210;
	assert_int_equal(unwind_user(&r, &s, jit_lookup, &t, f, 8, &why), 1);
	assert_int_equal(why, UNWIND_STOP_NO_RULE);
}

/* ---- return addresses a uretprobe hid ------------------------------------- */

#define TRAMP 0x7fffffffe000ull

static void test_uret_restore(void **state)
{
	const struct unwind_uret v[] = {
		{ FAKE_BASE + 0x18, 0x401234 },	/* a tail call's instance: the real address */
		{ FAKE_BASE + 0x18, TRAMP },	/* the probed caller's, at the same slot */
		{ FAKE_BASE + 0x40, 0x405678 },
		{ FAKE_BASE + 0x60, 0 },
	};
	struct unwind_urets u = { TRAMP, v, 4 };
	struct unwind_urets none = { 0, NULL, 0 };
	uint64_t ra;

	/* Not the trampoline: as read, wherever it was. */
	ra = 0x409999;
	assert_true(unwind_uret_restore(&u, FAKE_BASE + 0x40, &ra));
	assert_int_equal(ra, 0x409999);
	/* The trampoline at a known slot: the address it hid, the slot's first. */
	ra = TRAMP;
	assert_true(unwind_uret_restore(&u, FAKE_BASE + 0x40, &ra));
	assert_int_equal(ra, 0x405678);
	ra = TRAMP;
	assert_true(unwind_uret_restore(&u, FAKE_BASE + 0x18, &ra));
	assert_int_equal(ra, 0x401234);
	/* At a slot none was brought for, or with nothing usable: no caller. */
	ra = TRAMP;
	assert_false(unwind_uret_restore(&u, FAKE_BASE + 0x20, &ra));
	assert_false(unwind_uret_restore(&u, FAKE_BASE + 0x60, &ra));
	u.n = 2;
	assert_false(unwind_uret_restore(&u, FAKE_BASE + 0x40, &ra));
	/* No trampoline known: nothing to put back. */
	assert_true(unwind_uret_restore(&none, FAKE_BASE + 0x40, &ra));
	assert_int_equal(ra, TRAMP);
}

/*
 * A stack whose return addresses a uretprobe replaced: each is put back
 * where the trampoline stands in its slot, stepping by CFI or by frame
 * pointer; a trampoline with none known ends the stack before it.
 */
static void test_unwind_user_uret(void **state)
{
	struct stitch_unwind_row rows[] = {
		{ .pc = 0x400000, .cfa_rule = STITCH_CFA_RSP, .cfa_offset = 16 },
		{ .pc = 0x400100, .cfa_rule = STITCH_CFA_END },
		{ .pc = 0x400300, .cfa_rule = STITCH_CFA_NO_FDE },
	};
	struct unwind_table t = { rows, 3 };
	struct unwind_uret v[] = {
		{ FAKE_BASE + 8, 0x401020 },
		{ FAKE_BASE + 24, 0x401101 },
	};
	struct unwind_stack s = fake_stack();
	struct unwind_regs r = { 0x401010, FAKE_BASE, 0 };
	struct unwind_frame f[8];
	enum unwind_stop why;

	memset(fake_words, 0, sizeof(fake_words));
	*word_at(FAKE_BASE + 8) = TRAMP;	/* the leaf's return address, hijacked */
	*word_at(FAKE_BASE + 24) = TRAMP;	/* and its caller's */
	/* Without the return instances: the trampoline is no caller. */
	s.uret = (struct unwind_urets){ TRAMP, v, 0 };
	assert_int_equal(unwind_user(&r, &s, jit_lookup, &t, f, 8, &why), 1);
	assert_int_equal(why, UNWIND_STOP_NO_MODULE);
	/* With them: leaf, its caller, its caller's caller (END). */
	s.uret.n = 2;
	assert_int_equal(unwind_user(&r, &s, jit_lookup, &t, f, 8, &why), 3);
	assert_int_equal(why, UNWIND_STOP_END);
	assert_int_equal(f[1].pc, 0x401020);
	assert_false(f[1].exact);
	assert_int_equal(f[2].pc, 0x401101);
	/* The outer one missing: cut after the caller, not at a trampoline frame. */
	s.uret.n = 1;
	assert_int_equal(unwind_user(&r, &s, jit_lookup, &t, f, 8, &why), 2);
	assert_int_equal(why, UNWIND_STOP_NO_MODULE);
	assert_int_equal(f[1].pc, 0x401020);
	/* A real return address at a slot an instance names (left by longjmp): kept. */
	*word_at(FAKE_BASE + 8) = 0x401030;
	s.uret.n = 2;
	assert_int_equal(unwind_user(&r, &s, jit_lookup, &t, f, 8, &why), 3);
	assert_int_equal(f[1].pc, 0x401030);

	/* By frame pointer (code without CFI): [rbp + 8] hijacked. */
	memset(fake_words, 0, sizeof(fake_words));
	r = (struct unwind_regs){ 0x401310, FAKE_BASE, FAKE_BASE + 32 };
	*word_at(FAKE_BASE + 40) = TRAMP;
	v[0] = (struct unwind_uret){ FAKE_BASE + 40, 0x401101 };
	s.uret.n = 1;
	assert_int_equal(unwind_user(&r, &s, jit_lookup, &t, f, 8, &why), 2);
	assert_int_equal(why, UNWIND_STOP_END);
	assert_int_equal(f[1].pc, 0x401101);
	assert_true(f[1].by_fp);
	s.uret.n = 0;
	assert_int_equal(unwind_user(&r, &s, jit_lookup, &t, f, 8, &why), 1);
	assert_int_equal(why, UNWIND_STOP_NO_MODULE);
}

#endif /* __x86_64__ */

/* ---- real snapshots from the fixture -------------------------------------- */

struct module {
	char path[512];
	uint64_t lo, hi;	/* executable mapping */
	uint64_t bias;
	struct unwind_table *table;
	Elf *elf;
};

struct fixture {
	char dir[256];
	char bin[300];
	struct module mods[64];
	int nr_mods;
	struct unwind_table tables[64];
	Elf *elfs[64];
	int fds[64];
	char paths[64][512];
	int nr_files;
};

static struct fixture fx;

static const struct unwind_table *maps_lookup(void *ctx, uint64_t pc, uint64_t *bias)
{
	struct fixture *f = ctx;
	int i;

	for (i = 0; i < f->nr_mods; i++) {
		if (pc >= f->mods[i].lo && pc < f->mods[i].hi) {
			*bias = f->mods[i].bias;
			return f->mods[i].table;
		}
	}
	return NULL;
}

static int open_file(struct fixture *f, const char *path)
{
	int i, fd;

	for (i = 0; i < f->nr_files; i++)
		if (strcmp(f->paths[i], path) == 0)
			return i;
	assert_true(f->nr_files < 64);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	i = f->nr_files++;
	f->fds[i] = fd;
	snprintf(f->paths[i], sizeof(f->paths[i]), "%s", path);
	f->elfs[i] = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	assert_non_null(f->elfs[i]);
	assert_int_equal(cfi_build_table(f->elfs[i], NULL, &f->tables[i]), 0);
	return i;
}

static void load_maps(struct fixture *f)
{
	char path[600], line[1024], perms[8], file[512];
	unsigned long lo, hi, off;
	FILE *m;

	snprintf(path, sizeof(path), "%s/maps", f->dir);
	m = fopen(path, "r");
	assert_non_null(m);
	while (fgets(line, sizeof(line), m)) {
		struct module *mod;
		uint64_t vaddr;
		int i;

		file[0] = '\0';
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*u %511s", &lo, &hi, perms, &off, file) < 4)
			continue;
		if (file[0] != '/' || !strchr(perms, 'x'))
			continue;
		i = open_file(f, file);
		assert_int_equal(elf_offset_to_vaddr(f->elfs[i], off, &vaddr), 0);
		assert_true(f->nr_mods < 64);
		mod = &f->mods[f->nr_mods++];
		snprintf(mod->path, sizeof(mod->path), "%s", file);
		mod->lo = lo;
		mod->hi = hi;
		mod->bias = lo - vaddr;
		mod->table = &f->tables[i];
		mod->elf = f->elfs[i];
	}
	fclose(m);
}

/* Fail loudly if the fixture cannot be built: never skip. */
static int fixture_setup(void **state)
{
	char src[512], cmd[2048];
	char *here = strdup(__FILE__);

	elf_util_init();
	snprintf(src, sizeof(src), "%s/fixtures/unwind_fixture.c", dirname(here));
	free(here);
	snprintf(fx.dir, sizeof(fx.dir), "/tmp/stitch-unwind-XXXXXX");
	if (!mkdtemp(fx.dir))
		return -1;
	snprintf(fx.bin, sizeof(fx.bin), "%s/fixture", fx.dir);
	/* UNIT_CC: the compiler of this test, a cross one for ARCH=arm64 (Makefile). */
	snprintf(cmd, sizeof(cmd), UNIT_CC " -O2 -fomit-frame-pointer -fno-inline -g -o %s %s && %s %s",
		 fx.bin, src, fx.bin, fx.dir);
	if (system(cmd) != 0) {
		fprintf(stderr, "cannot build or run the fixture: %s\n", cmd);
		return -1;
	}
	load_maps(&fx);
	return 0;
}

static int fixture_teardown(void **state)
{
	char cmd[512];
	int i;

	for (i = 0; i < fx.nr_files; i++) {
		unwind_table_free(&fx.tables[i]);
		elf_end(fx.elfs[i]);
		close(fx.fds[i]);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", fx.dir);
	return system(cmd) == 0 ? 0 : -1;
}

struct snapshot {
	struct unwind_regs regs;
	struct unwind_stack stack;
	uint8_t *buf;
};

static void load_snapshot(const char *name, struct snapshot *s)
{
	uint64_t hdr[5];
	char path[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.snap", fx.dir, name);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(fread(hdr, sizeof(hdr), 1, f), 1);
	s->regs = (struct unwind_regs){ hdr[0], hdr[1], hdr[2], hdr[3] };
	assert_true(hdr[4] > 0 && hdr[4] < (64 << 20));
	s->buf = malloc(hdr[4]);
	assert_non_null(s->buf);
	assert_int_equal(fread(s->buf, hdr[4], 1, f), 1);
	fclose(f);
	s->stack = (struct unwind_stack){ hdr[1], s->buf, hdr[4] };
}

/* [lo, hi) of a function: runtime address from the fixture, size from a symbol table. */
struct range {
	uint64_t lo, hi;
};

static bool symbol_by(Elf *elf, uint32_t type, const char *name, uint64_t value, GElf_Sym *out)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			const char *n;

			if (!gelf_getsym(d, i, out) || GELF_ST_TYPE(out->st_info) != STT_FUNC)
				continue;
			n = elf_strptr(elf, sh.sh_link, out->st_name);
			if (name ? (n && strcmp(n, name) == 0) : out->st_value == value)
				return true;
		}
	}
	return false;
}

static const struct module *module_of(uint64_t pc)
{
	int i;

	for (i = 0; i < fx.nr_mods; i++)
		if (pc >= fx.mods[i].lo && pc < fx.mods[i].hi)
			return &fx.mods[i];
	return NULL;
}

/* A fixture function, by the runtime address it printed. */
static struct range fixture_fn(const char *name)
{
	char path[600], n[64];
	unsigned long long addr;
	const struct module *m;
	struct range r = { 0, 0 };
	GElf_Sym sym;
	FILE *f;

	snprintf(path, sizeof(path), "%s/funcs", fx.dir);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fscanf(f, "%63s %llx", n, &addr) == 2) {
		if (strcmp(n, name) != 0)
			continue;
		m = module_of(addr);
		assert_non_null(m);
		assert_true(symbol_by(m->elf, SHT_SYMTAB, NULL, addr - m->bias, &sym));
		assert_true(sym.st_size > 0);
		r.lo = addr;
		r.hi = addr + sym.st_size;
	}
	fclose(f);
	assert_true(r.lo != 0);
	return r;
}

/* A named symbol of the module whose path contains `file`. */
static struct range module_fn(const char *file, uint32_t type, const char *name)
{
	struct range r = { 0, 0 };
	GElf_Sym sym;
	int i;

	for (i = 0; i < fx.nr_mods; i++) {
		if (!strstr(fx.mods[i].path, file))
			continue;
		assert_true(symbol_by(fx.mods[i].elf, type, name, 0, &sym));
		r.lo = sym.st_value + fx.mods[i].bias;
		r.hi = r.lo + sym.st_size;
		return r;
	}
	fail_msg("no module %s", file);
	return r;
}

static uint64_t frame_addr(const struct unwind_frame *f)
{
	return f->exact ? f->pc : f->pc - 1;
}

static bool in_range(const struct unwind_frame *f, struct range r)
{
	uint64_t a = frame_addr(f);

	return a >= r.lo && a < r.hi;
}

static void dump_frames(const struct unwind_frame *f, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		const struct module *m = module_of(f[i].pc);

		print_message("  #%d %#lx%s %s+%#lx\n", i, (unsigned long)f[i].pc,
			      f[i].exact ? " (exact)" : "", m ? m->path : "?",
			      m ? (unsigned long)(frame_addr(&f[i]) - m->bias) : 0ul);
	}
}

/* The libc frames under main, then _start: main's caller, __libc_start_main, _start. */
static void check_outer_frames(const struct unwind_frame *f, int n, int main_idx)
{
	struct range start_main = module_fn("/libc.so.6", SHT_DYNSYM, "__libc_start_main");
	struct range start = module_fn(fx.bin, SHT_SYMTAB, "_start");
	const struct module *m;

	assert_int_equal(n, main_idx + 4);
	assert_true(in_range(&f[main_idx], fixture_fn("main")));
	/* __libc_start_call_main: a local libc function, not in .dynsym. */
	m = module_of(f[main_idx + 1].pc);
	assert_non_null(m);
	assert_non_null(strstr(m->path, "/libc.so.6"));
	assert_false(in_range(&f[main_idx + 1], start_main));
	assert_true(in_range(&f[main_idx + 2], start_main));
	assert_true(in_range(&f[main_idx + 3], start));
}

static int unwind_snapshot(struct snapshot *s, struct unwind_frame *f, int max,
			   enum unwind_stop *why)
{
	int n = unwind_user(&s->regs, &s->stack, maps_lookup, &fx, f, max, why);

	print_message("%d frames, stop %d\n", n, *why);
	if (*why != UNWIND_STOP_END)
		dump_frames(f, n < 8 ? n : 8);	/* enough to see where it went */
	return n;
}

static void test_chain(void **state)
{
	struct unwind_frame f[64];
	enum unwind_stop why;
	struct snapshot s;
	int n;

	load_snapshot("chain", &s);
	n = unwind_snapshot(&s, f, 64, &why);
	assert_int_equal(why, UNWIND_STOP_END);
	assert_true(f[0].exact);
	assert_true(in_range(&f[0], fixture_fn("c")));
	assert_true(in_range(&f[1], fixture_fn("b")));
	assert_true(in_range(&f[2], fixture_fn("a")));
	assert_false(f[1].exact || f[2].exact);
	check_outer_frames(f, n, 3);
	free(s.buf);
}

static void test_deep(void **state)
{
	struct range rec = fixture_fn("recurse");
	struct unwind_frame f[1024];
	enum unwind_stop why;
	struct snapshot s;
	int n, i;

	load_snapshot("deep", &s);
	n = unwind_snapshot(&s, f, 1024, &why);
	assert_int_equal(why, UNWIND_STOP_END);
	for (i = 0; i <= 600; i++)
		assert_true(in_range(&f[i], rec));
	check_outer_frames(f, n, 601);

	/* The bottom 4 KiB of the stack only: cut, never wrong. */
	s.stack.len = 4096;
	n = unwind_snapshot(&s, f, 1024, &why);
	assert_int_equal(why, UNWIND_STOP_TRUNCATED);
	assert_true(n > 10 && n < 601);
	for (i = 0; i < n; i++)
		assert_true(in_range(&f[i], rec));

	/* Frame budget. */
	free(s.buf);
	load_snapshot("deep", &s);
	n = unwind_snapshot(&s, f, 100, &why);
	assert_int_equal(n, 100);
	assert_int_equal(why, UNWIND_STOP_TRUNCATED);
	free(s.buf);
}

#ifdef __x86_64__
static void test_signal(void **state)
{
	const struct stitch_unwind_row *row;
	const struct module *m;
	struct unwind_frame f[64];
	enum unwind_stop why;
	struct snapshot s;
	int n;

	load_snapshot("signal", &s);
	n = unwind_snapshot(&s, f, 64, &why);
	assert_int_equal(why, UNWIND_STOP_END);
	assert_true(in_range(&f[0], fixture_fn("handler")));
	/* Frame 1: the return address is __restore_rt, in libc, under a SIGNAL row. */
	m = module_of(f[1].pc);
	assert_non_null(m);
	assert_non_null(strstr(m->path, "/libc.so.6"));
	row = unwind_table_lookup(m->table, frame_addr(&f[1]) - m->bias);
	assert_non_null(row);
	assert_int_equal(row->cfa_rule, STITCH_CFA_SIGNAL);
	/* Frame 2: where spin() was interrupted, an exact pc. */
	assert_true(f[2].exact);
	assert_true(in_range(&f[2], fixture_fn("spin")));
	check_outer_frames(f, n, 3);
	free(s.buf);
}

static void test_realign(void **state)
{
	const struct stitch_unwind_row *row;
	const struct module *m;
	struct unwind_frame f[64];
	enum unwind_stop why;
	struct snapshot s;
	int n;

	load_snapshot("realign", &s);
	m = module_of(s.regs.ip);
	assert_non_null(m);
	/* gcc realigns through DRAP here: make sure that is what we test. */
	row = unwind_table_lookup(m->table, s.regs.ip - m->bias);
	assert_non_null(row);
	assert_int_equal(row->cfa_rule, STITCH_CFA_DEREF_RBP);
	assert_int_equal(row->rbp_rule, STITCH_RBP_AT_RBP);
	n = unwind_snapshot(&s, f, 64, &why);
	assert_int_equal(why, UNWIND_STOP_END);
	assert_true(in_range(&f[0], fixture_fn("realign")));
	check_outer_frames(f, n, 1);
	free(s.buf);
}
#endif

int main(void)
{
	/* One group (the snapshots need the fixture) so run.sh counts them all. */
	const struct CMUnitTest tests[] = {
#ifdef __aarch64__
		cmocka_unit_test(test_step_arm64_link_register),
		cmocka_unit_test(test_step_arm64_saved),
		cmocka_unit_test(test_step_arm64_signal),
		cmocka_unit_test(test_unwind_arm64_fp_then_sp_row),
#else
		cmocka_unit_test(test_step_rules),
		cmocka_unit_test(test_step_epilogue),
		cmocka_unit_test(test_step_signal),
		cmocka_unit_test(test_step_stops),
		cmocka_unit_test(test_unwind_user_small),
		cmocka_unit_test(test_unwind_user_jit),
		cmocka_unit_test(test_uret_restore),
		cmocka_unit_test(test_unwind_user_uret),
		/*
		 * x86-64 only: the signal frame's trampoline is libc's there;
		 * arm64's is the kernel's vDSO (QEMU's user mode has its own,
		 * without CFI): the kernel matrix checks it on arm64.  gcc
		 * realigns with DRAP on x86-64 only.
		 */
		cmocka_unit_test(test_signal),
		cmocka_unit_test(test_realign),
#endif
		cmocka_unit_test(test_chain),
		cmocka_unit_test(test_deep),
	};

	return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
