// SPDX-License-Identifier: GPL-2.0
/*
 * CFI parser tests: hand-assembled .eh_frame/.debug_frame sections (one CIE
 * and FDE program per table entry), malformed inputs, then real binaries
 * (libc.so.6, this test) checked against facts found independently.
 */
#include <errno.h>
#include <link.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>

#include "unwind/cfi.h"
#include "util/elf_util.h"

#define SEC_VADDR	0x10000ull	/* where the fake .eh_frame lives */
#define FN		0x1000ull	/* fake function start */
#define FN_LEN		0x100ull

/* ---- a tiny assembler for CFI sections ---------------------------------- */

struct sec {
	uint8_t d[4096];
	size_t n;
};

static void put(struct sec *s, const void *p, size_t n)
{
	assert_true(s->n + n <= sizeof(s->d));
	if (!n)
		return;
	memcpy(s->d + s->n, p, n);
	s->n += n;
}

static void put_u8(struct sec *s, uint8_t v)
{
	put(s, &v, 1);
}

static void put_u32(struct sec *s, uint32_t v)
{
	put(s, &v, 4);	/* x86-64 is little endian like the format */
}

#ifdef __x86_64__
static void put_u64(struct sec *s, uint64_t v)
{
	put(s, &v, 8);
}
#endif

static void put_uleb(struct sec *s, uint64_t v)
{
	do {
		uint8_t b = v & 0x7f;

		v >>= 7;
		put_u8(s, b | (v ? 0x80 : 0));
	} while (v);
}

static void put_sleb(struct sec *s, int64_t v)
{
	bool more;

	do {
		uint8_t b = v & 0x7f;

		v >>= 7;
		more = !((v == 0 && !(b & 0x40)) || (v == -1 && (b & 0x40)));
		put_u8(s, b | (more ? 0x80 : 0));
	} while (more);
}

static void patch_u32(struct sec *s, size_t off, uint32_t v)
{
	memcpy(s->d + off, &v, 4);
}

#ifdef __x86_64__
/* Standard x86-64 CIE program: CFA = rsp + 8, RA at CFA - 8. */
static const uint8_t std_cie_prog[] = { 0x0c, 7, 8, 0x90, 1 };
#endif

/*
 * An .eh_frame CIE "zR" (or with extra letters), FDE pointers pcrel|sdata4;
 * instructions of code_align bytes (x86-64: 1, arm64: 4).
 */
static size_t eh_cie_aligned(struct sec *s, const char *aug, uint8_t code_align, uint8_t ra_col,
			     const uint8_t *prog, size_t len)
{
	size_t start = s->n;

	put_u32(s, 0);		/* length, patched */
	put_u32(s, 0);		/* CIE id */
	put_u8(s, 1);		/* version */
	put(s, aug, strlen(aug) + 1);
	put_uleb(s, code_align);
	put_sleb(s, -8);	/* data alignment */
	put_u8(s, ra_col);
	if (aug[0] == 'z') {
		put_uleb(s, 1);
		put_u8(s, 0x1b);	/* DW_EH_PE_pcrel | sdata4 */
	}
	put(s, prog, len);
	while ((s->n - start) % 8)
		put_u8(s, 0);	/* DW_CFA_nop */
	patch_u32(s, start, s->n - start - 4);
	return start;
}

#ifdef __x86_64__
static size_t eh_cie(struct sec *s, const char *aug, uint8_t ra_col, const uint8_t *prog,
		     size_t len)
{
	return eh_cie_aligned(s, aug, 1, ra_col, prog, len);
}
#endif

static void eh_fde(struct sec *s, size_t cie, uint64_t pc, uint64_t range, const uint8_t *prog,
		   size_t len)
{
	size_t start = s->n;

	put_u32(s, 0);
	put_u32(s, s->n - cie);				/* back to the CIE */
	put_u32(s, (uint32_t)(pc - (SEC_VADDR + s->n)));	/* pcrel */
	put_u32(s, range);
	put_uleb(s, 0);					/* augmentation data */
	put(s, prog, len);
	patch_u32(s, start, s->n - start - 4);
}

static void terminate(struct sec *s)
{
	put_u32(s, 0);
}

/* ---- expectations -------------------------------------------------------- */

struct exp_row {
	uint32_t pc;
	uint8_t rule;
	int16_t cfa_off;
	uint8_t rbp_rule;
	int16_t rbp_off;
};

#define U	STITCH_CFA_UNKNOWN
#define RSP	STITCH_CFA_RSP
#define RBP	STITCH_CFA_RBP
#define SAME	STITCH_RBP_SAME
#define ATCFA	STITCH_RBP_AT_CFA
#define NF	STITCH_CFA_NO_FDE
#define END_	{ FN + FN_LEN, NF, 0, SAME, 0 }

#ifdef __x86_64__
static void check_rows(const struct unwind_table *t, const struct exp_row *exp, size_t n,
		       const char *name)
{
	size_t i;

	if (t->nr != n) {
		for (i = 0; i < t->nr; i++)
			print_message("%s: row %zu: %#x rule %u cfa %d rbp %u %d\n", name, i,
				      t->rows[i].pc, t->rows[i].cfa_rule, t->rows[i].cfa_offset,
				      t->rows[i].rbp_rule, t->rows[i].rbp_offset);
		fail_msg("%s: %zu rows, expected %zu", name, t->nr, n);
	}
	for (i = 0; i < n; i++) {
		const struct stitch_unwind_row *r = &t->rows[i];

		if (r->pc != exp[i].pc || r->cfa_rule != exp[i].rule ||
		    r->cfa_offset != exp[i].cfa_off || r->rbp_rule != exp[i].rbp_rule ||
		    r->rbp_offset != exp[i].rbp_off || r->ra_offset)
			fail_msg("%s: row %zu is {%#x %u %d %u %d}, expected {%#x %u %d %u %d}",
				 name, i, r->pc, r->cfa_rule, r->cfa_offset, r->rbp_rule,
				 r->rbp_offset, exp[i].pc, exp[i].rule, exp[i].cfa_off,
				 exp[i].rbp_rule, exp[i].rbp_off);
	}
}
#endif

/* ---- table-driven FDE programs ------------------------------------------- */

struct prog_case {
	const char *name;
	uint8_t prog[64];
	size_t len;
	struct exp_row exp[8];
	size_t nexp;
};

#define P(...)		{ __VA_ARGS__ }, sizeof((uint8_t[]){ __VA_ARGS__ })
#define E(...)		{ __VA_ARGS__ },					\
			sizeof((struct exp_row[]){ __VA_ARGS__ }) / sizeof(struct exp_row)

#ifdef __x86_64__
static const struct prog_case prog_cases[] = {
	{ "push rbp; mov rsp,rbp; leave",
	  P(0x41, 0x0e, 16, 0x86, 2, 0x43, 0x0d, 6, 0x4a, 0x0c, 7, 8),
	  E({ FN, RSP, 8, SAME, 0 }, { FN + 1, RSP, 16, ATCFA, -16 },
	    { FN + 4, RBP, 16, ATCFA, -16 }, { FN + 14, RSP, 8, ATCFA, -16 }, END_) },
	{ "advance_loc1/2/4",
	  P(0x02, 0x10, 0x0e, 16, 0x03, 0x20, 0x00, 0x0e, 24, 0x04, 0x10, 0, 0, 0, 0x0e, 32),
	  E({ FN, RSP, 8, SAME, 0 }, { FN + 0x10, RSP, 16, SAME, 0 },
	    { FN + 0x30, RSP, 24, SAME, 0 }, { FN + 0x40, RSP, 32, SAME, 0 }, END_) },
	{ "remember/restore_state around an epilogue",
	  P(0x41, 0x0e, 16, 0x86, 2, 0x44, 0x0a, 0x0e, 8, 0xc6, 0x41, 0x0b),
	  E({ FN, RSP, 8, SAME, 0 }, { FN + 1, RSP, 16, ATCFA, -16 },
	    { FN + 5, RSP, 8, SAME, 0 }, { FN + 6, RSP, 16, ATCFA, -16 }, END_) },
	{ "restore_extended",
	  P(0x41, 0x0e, 16, 0x86, 2, 0x41, 0x06, 6),
	  E({ FN, RSP, 8, SAME, 0 }, { FN + 1, RSP, 16, ATCFA, -16 },
	    { FN + 2, RSP, 16, SAME, 0 }, END_) },
	{ "def_cfa_sf and def_cfa_offset_sf are factored",
	  P(0x41, 0x12, 7, 0x7e, 0x41, 0x13, 0x7d),
	  E({ FN, RSP, 8, SAME, 0 }, { FN + 1, RSP, 16, SAME, 0 },
	    { FN + 2, RSP, 24, SAME, 0 }, END_) },
	{ "offset_extended(_sf), GNU_negative_offset_extended",
	  P(0x41, 0x05, 6, 3, 0x41, 0x11, 6, 0x04, 0x41, 0x2f, 6, 1),
	  E({ FN, RSP, 8, SAME, 0 }, { FN + 1, RSP, 8, ATCFA, -24 },
	    { FN + 2, RSP, 8, ATCFA, -32 }, { FN + 3, RSP, 8, ATCFA, 8 }, END_) },
	{ "undefined rip is the outermost frame",
	  P(0x07, 16),
	  E({ FN, STITCH_CFA_END, 0, SAME, 0 }, END_) },
	{ "same_value rbp after a save",
	  P(0x86, 2, 0x41, 0x08, 6),
	  E({ FN, RSP, 8, ATCFA, -16 }, { FN + 1, RSP, 8, SAME, 0 }, END_) },
	{ "rbp in another register is not expressible",
	  P(0x41, 0x09, 6, 3),
	  E({ FN, RSP, 8, SAME, 0 }, { FN + 1, U, 0, SAME, 0 }, END_) },
	{ "rip in a register (longjmp) is not expressible",
	  P(0x41, 0x09, 16, 1),
	  E({ FN, RSP, 8, SAME, 0 }, { FN + 1, U, 0, SAME, 0 }, END_) },
	{ "val_offset rbp", P(0x41, 0x14, 6, 2),
	  E({ FN, RSP, 8, SAME, 0 }, { FN + 1, U, 0, SAME, 0 }, END_) },
	{ "val_expression rip", P(0x41, 0x16, 16, 2, 0x77, 0),
	  E({ FN, RSP, 8, SAME, 0 }, { FN + 1, U, 0, SAME, 0 }, END_) },
	{ "expression on other registers is harmless",
	  P(0x41, 0x10, 3, 2, 0x76, 0x50, 0x41, 0x14, 12, 2),
	  E({ FN, RSP, 8, SAME, 0 }, END_) },
	{ "CFA in rbx, then a CFA offset beyond s16",
	  P(0x41, 0x0c, 3, 8, 0x41, 0x0c, 7, 0x80, 0x80, 0x04),
	  E({ FN, RSP, 8, SAME, 0 }, { FN + 1, U, 0, SAME, 0 }, END_) },
	{ "RA not at CFA-8",
	  P(0x41, 0x90, 2), E({ FN, RSP, 8, SAME, 0 }, { FN + 1, U, 0, SAME, 0 }, END_) },
	{ "GNU ld .plt expression",
	  P(0x0f, 11, 0x77, 8, 0x80, 0, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22),
	  E({ FN, STITCH_CFA_PLT, 8, SAME, 11 }, END_) },
	{ "gcc realignment: CFA = *(rbp-24), rbp at *(rbp)",
	  P(0x41, 0x10, 6, 2, 0x76, 0, 0x41, 0x0f, 3, 0x76, 0x68, 0x06),
	  E({ FN, RSP, 8, SAME, 0 }, { FN + 1, RSP, 8, STITCH_RBP_AT_RBP, 0 },
	    { FN + 2, STITCH_CFA_DEREF_RBP, -24, STITCH_RBP_AT_RBP, 0 }, END_) },
	{ "other CFA expression (breg7 -8; deref; plus_uconst 8)",
	  P(0x41, 0x0f, 5, 0x77, 0x78, 0x06, 0x23, 8),
	  E({ FN, RSP, 8, SAME, 0 }, { FN + 1, U, 0, SAME, 0 }, END_) },
	{ "def_cfa_offset after a CFA expression is invalid",
	  P(0x41, 0x0f, 3, 0x76, 0x68, 0x06, 0x41, 0x0e, 16),
	  E({ FN, RSP, 8, SAME, 0 }, { FN + 1, STITCH_CFA_DEREF_RBP, -24, SAME, 0 },
	    { FN + 2, U, 0, SAME, 0 }, END_) },
	{ "unknown opcode cuts the rest",
	  P(0x41, 0x0e, 16, 0x42, 0x3c, 0x41, 0x0e, 8),
	  E({ FN, RSP, 8, SAME, 0 }, { FN + 1, RSP, 16, SAME, 0 }, { FN + 3, U, 0, SAME, 0 }, END_) },
	{ "nop and GNU_args_size are ignored",
	  P(0x00, 0x2e, 16, 0x41, 0x00, 0x0e, 16),
	  E({ FN, RSP, 8, SAME, 0 }, { FN + 1, RSP, 16, SAME, 0 }, END_) },
	{ "huge advance: the row runs to the FDE end",
	  P(0x41, 0x0e, 16, 0x04, 0xff, 0xff, 0xff, 0xff, 0x0e, 24),
	  E({ FN, RSP, 8, SAME, 0 }, { FN + 1, RSP, 16, SAME, 0 }, END_) },
	{ "restore_state with nothing remembered",
	  P(0x41, 0x0b), E({ FN, RSP, 8, SAME, 0 }, { FN + 1, U, 0, SAME, 0 }, END_) },
	{ "truncated operand",
	  P(0x41, 0x0e, 16, 0x41, 0x0c, 7),
	  E({ FN, RSP, 8, SAME, 0 }, { FN + 1, RSP, 16, SAME, 0 }, { FN + 2, U, 0, SAME, 0 }, END_) },
	{ "advance of zero and restore of an untracked register",
	  P(0x40, 0xc3, 0x41, 0x0e, 16),
	  E({ FN, RSP, 8, SAME, 0 }, { FN + 1, RSP, 16, SAME, 0 }, END_) },
	{ "set_loc forward, then backward",
	  P(0x01, 0x10, 0, 0, 0, 0x0e, 16, 0x01, 0x08, 0, 0, 0),
	  E({ FN, RSP, 8, SAME, 0 }, { FN + 0x10, U, 0, SAME, 0 }, END_) },
};

/* set_loc's operand is pcrel like pc_begin: fix up the two in that case. */
static void fixup_set_loc(struct sec *s, size_t prog_off, const struct prog_case *c)
{
	size_t i;

	if (strncmp(c->name, "set_loc", 7) != 0)
		return;
	for (i = 0; i < c->len; i += 5) {
		uint32_t target;

		while (i < c->len && c->prog[i] != 0x01)
			i++;
		if (i >= c->len)
			break;
		memcpy(&target, c->prog + i + 1, 4);
		patch_u32(s, prog_off + i + 1,
			  (uint32_t)(FN + target - (SEC_VADDR + prog_off + i + 1)));
	}
}

static void test_programs(void **state)
{
	size_t i;

	for (i = 0; i < sizeof(prog_cases) / sizeof(prog_cases[0]); i++) {
		const struct prog_case *c = &prog_cases[i];
		struct unwind_table t;
		struct sec s = { 0 };
		size_t cie, fde_prog;

		cie = eh_cie(&s, "zR", 16, std_cie_prog, sizeof(std_cie_prog));
		fde_prog = s.n + 4 + 4 + 4 + 4 + 1;
		eh_fde(&s, cie, FN, FN_LEN, c->prog, c->len);
		fixup_set_loc(&s, fde_prog, c);
		terminate(&s);
		assert_int_equal(cfi_parse_section(s.d, s.n, SEC_VADDR, true, &t), 0);
		check_rows(&t, c->exp, c->nexp, c->name);
		unwind_table_free(&t);
	}
}

static void test_deep_remember_state(void **state)
{
	struct exp_row exp[] = { { FN, RSP, 8, SAME, 0 }, { FN + 1, U, 0, SAME, 0 }, END_ };
	uint8_t prog[CFI_MAX_STATE_DEPTH + 8];
	struct unwind_table t;
	struct sec s = { 0 };
	size_t cie;

	prog[0] = 0x41;
	memset(prog + 1, 0x0a, sizeof(prog) - 1);
	cie = eh_cie(&s, "zR", 16, std_cie_prog, sizeof(std_cie_prog));
	eh_fde(&s, cie, FN, FN_LEN, prog, sizeof(prog));
	assert_int_equal(cfi_parse_section(s.d, s.n, SEC_VADDR, true, &t), 0);
	check_rows(&t, exp, 3, "deep remember_state");
	unwind_table_free(&t);
}

static void test_signal_frame(void **state)
{
	struct exp_row exp[] = { { FN - 1, STITCH_CFA_SIGNAL, 0, SAME, 0 },
				 { FN + 9, NF, 0, SAME, 0 } };
	/* glibc's __restore_rt FDE: a CFA expression we would otherwise refuse. */
	uint8_t prog[] = { 0x0f, 4, 0x77, 0xa0, 0x01, 0x06 };
	struct unwind_table t;
	struct sec s = { 0 };
	size_t cie;

	cie = eh_cie(&s, "zRS", 16, NULL, 0);
	eh_fde(&s, cie, FN - 1, 10, prog, sizeof(prog));
	terminate(&s);
	assert_int_equal(cfi_parse_section(s.d, s.n, SEC_VADDR, true, &t), 0);
	check_rows(&t, exp, 2, "signal");
	unwind_table_free(&t);
}

/* Two FDEs with a gap, two adjacent identical ones, and an overlap. */
static void test_gaps_merge_overlap(void **state)
{
	static const uint8_t push[] = { 0x41, 0x0e, 16 };
	struct exp_row exp[] = {
		{ 0x1000, RSP, 8, SAME, 0 },	/* A, then B adjacent and merged */
		{ 0x1020, NF, 0, SAME, 0 },	/* gap */
		{ 0x1030, RSP, 8, SAME, 0 },	/* C */
		{ 0x1031, RSP, 16, SAME, 0 },
		{ 0x1040, RBP, 16, SAME, 0 },	/* D's tail past C's end */
		{ 0x1050, NF, 0, SAME, 0 },
	};
	static const uint8_t rbp_cfa[] = { 0x0c, 6, 16 };
	struct unwind_table t;
	struct sec s = { 0 };
	size_t cie;

	cie = eh_cie(&s, "zR", 16, std_cie_prog, sizeof(std_cie_prog));
	eh_fde(&s, cie, 0x1038, 0x18, rbp_cfa, sizeof(rbp_cfa));	/* D */
	eh_fde(&s, cie, 0x1010, 0x10, NULL, 0);				/* B */
	eh_fde(&s, cie, 0x1000, 0x10, NULL, 0);				/* A */
	eh_fde(&s, cie, 0x1030, 0x10, push, sizeof(push));		/* C */
	terminate(&s);
	assert_int_equal(cfi_parse_section(s.d, s.n, SEC_VADDR, true, &t), 0);
	check_rows(&t, exp, 6, "gaps");
	assert_null(unwind_table_lookup(&t, 0xfff));
	assert_int_equal(unwind_table_lookup(&t, 0x1000)->cfa_rule, RSP);
	assert_int_equal(unwind_table_lookup(&t, 0x1025)->cfa_rule, NF);
	assert_int_equal(unwind_table_lookup(&t, 0x1045)->cfa_offset, 16);
	assert_int_equal(unwind_table_lookup(&t, 0x100000)->cfa_rule, NF);
	assert_null(unwind_table_lookup(&t, 1ull << 33));
	unwind_table_free(&t);
}

/* .debug_frame CIE (32- or 64-bit DWARF), absptr addresses. */
static size_t dbg_cie(struct sec *s, bool dwarf64, uint8_t version, const uint8_t *prog,
		      size_t len)
{
	size_t start = s->n, hdr = dwarf64 ? 12 : 4;

	if (dwarf64) {
		put_u32(s, 0xffffffff);
		put_u64(s, 0);
		put_u64(s, ~0ull);
	} else {
		put_u32(s, 0);
		put_u32(s, 0xffffffff);
	}
	put_u8(s, version);
	put_u8(s, 0);		/* augmentation "" */
	if (version == 4) {
		put_u8(s, 8);	/* address size */
		put_u8(s, 0);	/* segment selector size */
	}
	put_uleb(s, 1);
	put_sleb(s, -8);
	if (version == 1)
		put_u8(s, 16);
	else
		put_uleb(s, 16);
	put(s, prog, len);
	if (dwarf64)
		memcpy(s->d + start + 4, &(uint64_t){ s->n - start - hdr }, 8);
	else
		patch_u32(s, start, s->n - start - hdr);
	return start;
}

static void dbg_fde(struct sec *s, bool dwarf64, size_t cie, uint64_t pc, uint64_t range,
		    const uint8_t *prog, size_t len)
{
	size_t start = s->n, hdr = dwarf64 ? 12 : 4;

	if (dwarf64) {
		put_u32(s, 0xffffffff);
		put_u64(s, 0);
		put_u64(s, cie);	/* offset from the section start */
	} else {
		put_u32(s, 0);
		put_u32(s, cie);
	}
	put_u64(s, pc);
	put_u64(s, range);
	put(s, prog, len);
	if (dwarf64)
		memcpy(s->d + start + 4, &(uint64_t){ s->n - start - hdr }, 8);
	else
		patch_u32(s, start, s->n - start - hdr);
}

static void test_debug_frame(void **state)
{
	static const uint8_t push[] = { 0x41, 0x0e, 16, 0x86, 2 };
	struct exp_row exp[] = { { FN, RSP, 8, SAME, 0 }, { FN + 1, RSP, 16, ATCFA, -16 }, END_ };
	int width;

	for (width = 0; width < 2; width++) {
		struct unwind_table t;
		struct sec s = { 0 };
		struct cfi_stats st;
		struct cfi_section sec = { .data = s.d, .vaddr = 0 };
		size_t cie;

		put_u32(&s, 0);	/* zero padding is skipped in .debug_frame */
		cie = dbg_cie(&s, width, width ? 4 : 1, std_cie_prog, sizeof(std_cie_prog));
		dbg_fde(&s, width, cie, FN, FN_LEN, push, sizeof(push));
		dbg_fde(&s, width, cie, 0, 0x10, push, sizeof(push));	/* gc'ed */
		sec.size = s.n;
		assert_int_equal(cfi_parse_section_ex(&sec, &t, &st), 0);
		check_rows(&t, exp, 3, width ? "debug_frame64" : "debug_frame32");
		assert_int_equal(st.fdes, 1);
		assert_int_equal(st.fdes_skipped, 1);
		unwind_table_free(&t);
		/* The same bytes read with .eh_frame conventions find no CIE. */
		assert_int_equal(cfi_parse_section(s.d, s.n, 0, true, &t), 0);
		assert_int_equal(t.nr, 0);
		unwind_table_free(&t);
	}
}

/* eh_frame wins; debug_frame fills only what eh_frame leaves uncovered. */
static void test_section_priority(void **state)
{
	static const uint8_t rbp_cfa[] = { 0x0c, 6, 16 };
	struct exp_row exp[] = {
		{ 0x800, RBP, 16, SAME, 0 }, { 0x1000, RSP, 8, SAME, 0 },
		{ 0x1100, RBP, 16, SAME, 0 }, { 0x1200, NF, 0, SAME, 0 },
	};
	struct sec eh = { 0 }, dbg = { 0 };
	struct cfi_section secs[2] = {
		{ .data = eh.d, .vaddr = SEC_VADDR, .is_eh_frame = true },
		{ .data = dbg.d },
	};
	struct unwind_table t;
	size_t cie;

	cie = eh_cie(&eh, "zR", 16, std_cie_prog, sizeof(std_cie_prog));
	eh_fde(&eh, cie, FN, FN_LEN, NULL, 0);
	terminate(&eh);
	cie = dbg_cie(&dbg, false, 3, std_cie_prog, sizeof(std_cie_prog));
	dbg_fde(&dbg, false, cie, 0x800, 0xa00, rbp_cfa, sizeof(rbp_cfa));
	secs[0].size = eh.n;
	secs[1].size = dbg.n;
	assert_int_equal(cfi_build_from_sections(secs, 2, &t, NULL), 0);
	check_rows(&t, exp, 4, "priority");
	unwind_table_free(&t);
}

static void test_high_addresses_dropped(void **state)
{
	struct sec s = { 0 };
	struct unwind_table t;
	size_t cie;

	cie = dbg_cie(&s, false, 1, std_cie_prog, sizeof(std_cie_prog));
	dbg_fde(&s, false, cie, 1ull << 32, 0x10, NULL, 0);
	dbg_fde(&s, false, cie, 0xfffffff0, 0x20, NULL, 0);	/* crosses 4 GiB */
	/* Past 2^63 (the builder holds 63 bits of a pc): dropped, never wrapped to a low pc. */
	dbg_fde(&s, false, cie, (1ull << 63) + 0x1000, 0x10, NULL, 0);
	dbg_fde(&s, false, cie, ~0ull - 0x100, 0x20, NULL, 0);
	assert_int_equal(cfi_parse_section(s.d, s.n, 0, false, &t), 0);
	assert_int_equal(t.nr, 1);
	assert_int_equal(t.rows[0].pc, 0xfffffff0);
	assert_null(unwind_table_lookup(&t, 1ull << 32));
	unwind_table_free(&t);
}

/* ---- malformed input ----------------------------------------------------- */

static void expect_parse(const struct sec *s, bool eh, int err, size_t rows, size_t skipped)
{
	struct cfi_section sec = { .data = s->d, .size = s->n, .vaddr = SEC_VADDR,
				   .is_eh_frame = eh };
	struct unwind_table t = { (void *)1, 1 };
	struct cfi_stats st;

	assert_int_equal(cfi_parse_section_ex(&sec, &t, &st), err);
	assert_int_equal(t.nr, rows);
	if (err)
		assert_null(t.rows);
	else
		assert_int_equal(st.fdes_skipped, skipped);
	unwind_table_free(&t);
}

static void test_malformed(void **state)
{
	struct sec s;
	size_t cie;

	/* Length runs past the section end. */
	memset(&s, 0, sizeof(s));
	cie = eh_cie(&s, "zR", 16, std_cie_prog, sizeof(std_cie_prog));
	eh_fde(&s, cie, FN, FN_LEN, NULL, 0);
	s.n -= 2;
	expect_parse(&s, true, -EINVAL, 0, 0);

	/* Reserved initial length, and a 64-bit length cut short. */
	memset(&s, 0, sizeof(s));
	put_u32(&s, 0xfffffff0);
	expect_parse(&s, true, -EINVAL, 0, 0);
	memset(&s, 0, sizeof(s));
	put_u32(&s, 0xffffffff);
	put_u32(&s, 8);
	expect_parse(&s, true, -EINVAL, 0, 0);

	/* An entry too short for its id is skipped; the walk goes on. */
	memset(&s, 0, sizeof(s));
	put_u32(&s, 2);
	put_u8(&s, 0);
	put_u8(&s, 0);
	cie = eh_cie(&s, "zR", 16, std_cie_prog, sizeof(std_cie_prog));
	eh_fde(&s, cie, FN, FN_LEN, NULL, 0);
	expect_parse(&s, true, 0, 2, 1);

	/* CIE pointer past the section start, and one to an FDE. */
	memset(&s, 0, sizeof(s));
	cie = eh_cie(&s, "zR", 16, std_cie_prog, sizeof(std_cie_prog));
	eh_fde(&s, cie, FN, FN_LEN, NULL, 0);
	patch_u32(&s, cie + 0x18 + 4, 0x1000);
	expect_parse(&s, true, 0, 0, 1);
	eh_fde(&s, cie + 0x18, FN, FN_LEN, NULL, 0);	/* points at the bad FDE */
	expect_parse(&s, true, 0, 0, 2);

	/* Old "eh" augmentation, unknown letters, unterminated string. */
	memset(&s, 0, sizeof(s));
	cie = eh_cie(&s, "eh", 16, std_cie_prog, sizeof(std_cie_prog));
	eh_fde(&s, cie, FN, FN_LEN, NULL, 0);
	expect_parse(&s, true, 0, 0, 1);
	memset(&s, 0, sizeof(s));
	cie = eh_cie(&s, "zRX", 16, std_cie_prog, sizeof(std_cie_prog));
	eh_fde(&s, cie, FN, FN_LEN, NULL, 0);
	expect_parse(&s, true, 0, 0, 1);
	memset(&s, 0, sizeof(s));
	put_u32(&s, 6);
	put_u32(&s, 0);
	put_u8(&s, 1);
	put_u8(&s, 'z');
	expect_parse(&s, true, 0, 0, 0);

	/* Return address column other than rip: rows, but UNKNOWN (then NO_FDE at its end). */
	memset(&s, 0, sizeof(s));
	cie = eh_cie(&s, "zR", 15, std_cie_prog, sizeof(std_cie_prog));
	eh_fde(&s, cie, FN, FN_LEN, NULL, 0);
	expect_parse(&s, true, 0, 2, 0);

	/* A CIE program that advances: every FDE using it is UNKNOWN. */
	memset(&s, 0, sizeof(s));
	cie = eh_cie(&s, "zR", 16, (const uint8_t[]){ 0x0c, 7, 8, 0x41 }, 4);
	eh_fde(&s, cie, FN, FN_LEN, NULL, 0);
	expect_parse(&s, true, 0, 2, 0);

	/* Range wrapping around, zero range. */
	memset(&s, 0, sizeof(s));
	cie = dbg_cie(&s, false, 1, std_cie_prog, sizeof(std_cie_prog));
	dbg_fde(&s, false, cie, FN, ~0ull, NULL, 0);
	dbg_fde(&s, false, cie, FN, 0, NULL, 0);
	expect_parse(&s, false, 0, 0, 2);

	/* A LEB128 longer than 64 bits in the FDE program. */
	memset(&s, 0, sizeof(s));
	cie = eh_cie(&s, "zR", 16, std_cie_prog, sizeof(std_cie_prog));
	eh_fde(&s, cie, FN, FN_LEN, (const uint8_t[]){ 0x41, 0x0e, 0xff, 0xff, 0xff, 0xff,
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 }, 13);
	expect_parse(&s, true, 0, 3, 0);

	/* Nothing at all, or only a terminator. */
	memset(&s, 0, sizeof(s));
	expect_parse(&s, true, 0, 0, 0);
	terminate(&s);
	expect_parse(&s, true, 0, 0, 0);
}

static void test_pointer_encodings(void **state)
{
	static const struct { uint8_t enc; int size; bool ok; } encs[] = {
		{ 0x00, 8, true }, { 0x02, 2, true }, { 0x03, 4, true }, { 0x04, 8, true },
		{ 0x0a, 2, true }, { 0x0b, 4, true }, { 0x0c, 8, true }, { 0x01, 0, true },
		{ 0x09, 0, true }, { 0x30 | 0x03, 4, false },	/* datarel, no base */
		{ 0x80 | 0x1b, 4, false },			/* indirect */
		{ 0x20 | 0x03, 4, false },			/* textrel */
		{ 0xff, 0, false },
	};
	size_t i;

	for (i = 0; i < sizeof(encs) / sizeof(encs[0]); i++) {
		struct unwind_table t;
		struct sec s = { 0 };
		size_t start;

		/* CIE "zPLR": personality pointer (indirect, never followed), lsda, fde enc. */
		start = s.n;
		put_u32(&s, 0);
		put_u32(&s, 0);
		put_u8(&s, 1);
		put(&s, "zPLR", 5);
		put_uleb(&s, 1);
		put_sleb(&s, -8);
		put_u8(&s, 16);
		put_uleb(&s, 7);
		put_u8(&s, 0x9b);
		put_u32(&s, 0x12345678);
		put_u8(&s, 0x1b);
		put_u8(&s, encs[i].enc);
		put(&s, std_cie_prog, sizeof(std_cie_prog));
		patch_u32(&s, start, s.n - start - 4);

		start = s.n;
		put_u32(&s, 0);
		put_u32(&s, s.n - 0);
		if (encs[i].size == 0) {
			put_uleb(&s, FN);
			put_uleb(&s, FN_LEN);
		} else if (encs[i].ok) {
			put(&s, &(uint64_t){ FN }, encs[i].size);
			put(&s, &(uint64_t){ FN_LEN }, encs[i].size);
		} else {
			put_u32(&s, 0);
			put_u32(&s, FN_LEN);
		}
		put_uleb(&s, 4);
		put_u32(&s, 0);	/* lsda */
		patch_u32(&s, start, s.n - start - 4);

		assert_int_equal(cfi_parse_section(s.d, s.n, SEC_VADDR, true, &t), 0);
		if (encs[i].ok) {
			assert_int_equal(t.nr, 2);
			assert_int_equal(t.rows[0].pc, FN);
			assert_int_equal(t.rows[1].pc, FN + FN_LEN);
		} else {
			assert_int_equal(t.nr, 0);
		}
		unwind_table_free(&t);
	}
}

#endif /* __x86_64__ */

/* ---- real binaries ------------------------------------------------------- */

#ifdef __aarch64__
#define LIBC_PATH "/lib/aarch64-linux-gnu/libc.so.6"
#else
#define LIBC_PATH "/lib/x86_64-linux-gnu/libc.so.6"
#endif

static int build_for_file(const char *path, struct unwind_table *t, Elf **elfp, int *fdp)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;

	assert_true(fd >= 0);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	assert_non_null(elf);
	*elfp = elf;
	*fdp = fd;
	return cfi_build_table(elf, NULL, t);
}

static void check_well_formed(const struct unwind_table *t)
{
	size_t i;

	assert_true(t->nr > 100);
	for (i = 1; i < t->nr; i++) {
		const struct stitch_unwind_row *a = &t->rows[i - 1], *b = &t->rows[i];

		assert_true(a->pc < b->pc);
		assert_false(a->cfa_rule == b->cfa_rule && a->cfa_offset == b->cfa_offset &&
			     a->rbp_rule == b->rbp_rule && a->rbp_offset == b->rbp_offset);
		assert_true(b->cfa_rule <= STITCH_CFA_NO_FDE);
	}
}

/* st_value of a symbol in .symtab, 0 if absent. */
static uint64_t symbol_value(Elf *elf, const char *name)
{
	uint64_t v = 0;

	elf_sym_find(elf, SHT_SYMTAB, name, &v, NULL);
	return v;
}

/* Kernel's view of our SIGUSR1 action: sa_restorer is glibc's __restore_rt. */
#ifdef __x86_64__
struct kernel_sigaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	uint64_t mask;
};

static void dummy_handler(int sig)
{
}

static int find_libc(struct dl_phdr_info *info, size_t size, void *data)
{
	if (strstr(info->dlpi_name, "/libc.so.6")) {
		*(uint64_t *)data = info->dlpi_addr;
		return 1;
	}
	return 0;
}

/* libc's load bias (not via /proc/self/maps: libelf's mmap of it shows there too). */
static uint64_t libc_bias(void)
{
	uint64_t bias = 0;

	dl_iterate_phdr(find_libc, &bias);
	assert_true(bias != 0);
	return bias;
}

static void test_libc(void **state)
{
	struct kernel_sigaction ks = { 0 };
	const struct stitch_unwind_row *r;
	struct unwind_table t;
	uint64_t restore_rt;
	Elf *elf;
	int fd;

	elf_util_init();
	assert_int_equal(build_for_file("/lib/x86_64-linux-gnu/libc.so.6", &t, &elf, &fd), 0);
	check_well_formed(&t);

	signal(SIGUSR1, dummy_handler);
	assert_int_equal(syscall(SYS_rt_sigaction, SIGUSR1, NULL, &ks, 8), 0);
	assert_non_null(ks.restorer);
	restore_rt = (uint64_t)ks.restorer - libc_bias();
	r = unwind_table_lookup(&t, restore_rt);
	assert_non_null(r);
	assert_int_equal(r->cfa_rule, STITCH_CFA_SIGNAL);
	/* Covered from one byte before, where return address - 1 lands. */
	assert_int_equal(unwind_table_lookup(&t, restore_rt - 1)->cfa_rule, STITCH_CFA_SIGNAL);
	/* And that FDE does not spill into its neighbours. */
	assert_int_not_equal(unwind_table_lookup(&t, restore_rt - 2)->cfa_rule, STITCH_CFA_SIGNAL);
	assert_int_not_equal(unwind_table_lookup(&t, restore_rt + 16)->cfa_rule, STITCH_CFA_SIGNAL);

	unwind_table_free(&t);
	elf_end(elf);
	close(fd);
}


#endif /* __x86_64__ */

/*
 * The index by address gives the row the whole search gives, for every
 * row's first address, the byte before it, the one after, past the last
 * row and before the first; and a table of a few rows is left unindexed.
 */
static void test_index_same_rows(void **state)
{
	static const char *const files[] = { "/proc/self/exe", LIBC_PATH };
	struct unwind_table t;
	size_t f, i;
	Elf *elf;
	int fd;

	elf_util_init();
	for (f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		struct unwind_table whole;

		assert_int_equal(build_for_file(files[f], &t, &elf, &fd), 0);
		whole = t;
		assert_int_equal(unwind_table_index(&t), 0);
		assert_non_null(t.first);
		assert_true(t.nbuckets <= t.nr / 8 && t.shift >= 12);
		for (i = 0; i < t.nr; i++) {
			uint64_t pc = t.rows[i].pc, d;

			for (d = 0; d < 3; d++) {
				uint64_t a = pc + d - 1;

				assert_ptr_equal(unwind_table_lookup(&t, a),
						 unwind_table_lookup(&whole, a));
			}
		}
		assert_ptr_equal(unwind_table_lookup(&t, t.rows[t.nr - 1].pc + 100000),
				 &t.rows[t.nr - 1]);
		assert_null(unwind_table_lookup(&t, t.rows[0].pc - 1));
		unwind_table_free(&t);
		assert_null(t.first);
		elf_end(elf);
		close(fd);
	}
	t.rows = calloc(4, sizeof(*t.rows));
	assert_non_null(t.rows);
	t.nr = 4;
	for (i = 0; i < 4; i++)
		t.rows[i].pc = 0x1000 + 0x100 * i;
	assert_int_equal(unwind_table_index(&t), 0);
	assert_null(t.first);
	assert_ptr_equal(unwind_table_lookup(&t, 0x1250), &t.rows[2]);
	unwind_table_free(&t);
}

static void test_self(void **state)
{
	const struct stitch_unwind_row *r;
	struct unwind_table t;
	uint64_t start, fn;
	Elf *elf;
	int fd;

	elf_util_init();
	assert_int_equal(build_for_file("/proc/self/exe", &t, &elf, &fd), 0);
	check_well_formed(&t);
	start = symbol_value(elf, "_start");
	assert_true(start != 0);
	r = unwind_table_lookup(&t, start + 4);
	assert_non_null(r);
	assert_int_equal(r->cfa_rule, STITCH_CFA_END);

#ifdef __aarch64__
	/*
	 * An ordinary C function: this very test (called through a pointer,
	 * never inlined) starts with its return address in x30, CFA = sp, and
	 * keeps it in its frame past its stp x29, x30, [sp, #-N]!.
	 */
	fn = symbol_value(elf, "test_self");
	assert_true(fn != 0);
	r = unwind_table_lookup(&t, fn);
	assert_int_equal(r->cfa_rule, STITCH_CFA_RSP);
	assert_int_equal(r->cfa_offset, 0);
	assert_int_equal(r->ra_offset, 0);
	while (r < t.rows + t.nr - 1 && !r->ra_offset && r->pc < fn + 64)
		r++;
	assert_true(r->ra_offset < 0);
	assert_int_equal(r->rbp_rule, STITCH_RBP_AT_CFA);
	assert_int_equal(r->ra_offset, r->rbp_offset + 8);
#else
	/* An ordinary C function: CFA from rsp (or rbp) at its entry. */
	fn = symbol_value(elf, "check_well_formed");
	assert_true(fn != 0);
	r = unwind_table_lookup(&t, fn);
	assert_int_equal(r->cfa_rule, STITCH_CFA_RSP);
	assert_int_equal(r->cfa_offset, 8);
#endif
	unwind_table_free(&t);
	elf_end(elf);
	close(fd);
}

static void test_no_cfi(void **state)
{
	struct unwind_table t;
	char *img;
	Elf *elf;
	Elf64_Ehdr eh = {
		.e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB,
			     EV_CURRENT },
		.e_type = ET_EXEC, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
		.e_ehsize = sizeof(Elf64_Ehdr),
	};

	elf_util_init();
	img = malloc(sizeof(eh));
	memcpy(img, &eh, sizeof(eh));
	elf = elf_memory(img, sizeof(eh));
	assert_non_null(elf);
	assert_int_equal(cfi_build_table(elf, NULL, &t), 0);
	assert_int_equal(t.nr, 0);
	assert_null(unwind_table_lookup(&t, FN));
	unwind_table_free(&t);
	elf_end(elf);
	free(img);
}

#ifdef __aarch64__
/*
 * arm64: the CIE gcc emits (code alignment 4, RA column x30, CFA = sp + 0,
 * the return address in x30), and what its prologues and epilogues say.
 */
static const uint8_t arm64_cie_prog[] = { 0x0c, 31, 0 };

struct arm64_row {
	uint32_t pc;
	uint8_t rule;
	int16_t cfa_off;
	uint8_t fp_rule;
	int16_t fp_off;
	int16_t ra_off;		/* 0: in x30 */
};

static const struct {
	const char *name;
	uint8_t prog[32];
	size_t len;
	struct arm64_row exp[6];
	size_t nexp;
} arm64_cases[] = {
	/*
	 * stp x29, x30, [sp, #-32]!; mov x29, sp; ...; ldp x29, x30, [sp], #32;
	 * ret.  Rows: entry, after the stp, after the mov, after the ldp.
	 */
	{ "frame record, then CFA from x29, epilogue",
	  P(0x41, 0x0e, 32, 0x9d, 4, 0x9e, 3, 0x41, 0x0d, 29, 0x44, 0xde, 0xdd, 0x0c, 31, 0),
	  { { 0x1000, RSP, 0, SAME, 0, 0 }, { 0x1004, RSP, 32, ATCFA, -32, -24 },
	    { 0x1008, RBP, 32, ATCFA, -32, -24 }, { 0x1018, RSP, 0, SAME, 0, 0 },
	    { 0x1100, NF, 0, SAME, 0, 0 } }, 5 },
	/* paciasp first: DW_CFA_AARCH64_negate_ra_state changes no row. */
	{ "pointer authentication",
	  P(0x2d, 0x41, 0x0e, 16, 0x9d, 2, 0x9e, 1),
	  { { 0x1000, RSP, 0, SAME, 0, 0 }, { 0x1004, RSP, 16, ATCFA, -16, -8 },
	    { 0x1100, NF, 0, SAME, 0, 0 } }, 3 },
	/* A leaf that saves nothing: x30 holds its return address throughout. */
	{ "leaf", P(0x00),
	  { { 0x1000, RSP, 0, SAME, 0, 0 }, { 0x1100, NF, 0, SAME, 0, 0 } }, 2 },
	/* _start and thread entries: .cfi_undefined x30. */
	{ "undefined x30 is the outermost frame", P(0x07, 30),
	  { { 0x1000, STITCH_CFA_END, 0, SAME, 0, 0 }, { 0x1100, NF, 0, SAME, 0, 0 } }, 2 },
	/* x30 kept in another register: no row can say where. */
	{ "x30 in a register", P(0x41, 0x09, 30, 19),
	  { { 0x1000, RSP, 0, SAME, 0, 0 }, { 0x1004, U, 0, SAME, 0, 0 },
	    { 0x1100, NF, 0, SAME, 0, 0 } }, 3 },
};

static void test_arm64_programs(void **state)
{
	size_t i, j;

	for (i = 0; i < sizeof(arm64_cases) / sizeof(arm64_cases[0]); i++) {
		struct unwind_table t;
		struct sec s = { 0 };
		size_t cie;

		cie = eh_cie_aligned(&s, "zR", 4, 30, arm64_cie_prog, sizeof(arm64_cie_prog));
		eh_fde(&s, cie, FN, FN_LEN, arm64_cases[i].prog, arm64_cases[i].len);
		terminate(&s);
		assert_int_equal(cfi_parse_section(s.d, s.n, SEC_VADDR, true, &t), 0);
		if (t.nr != arm64_cases[i].nexp)
			fail_msg("%s: %zu rows, expected %zu", arm64_cases[i].name, t.nr,
				 arm64_cases[i].nexp);
		for (j = 0; j < t.nr; j++) {
			const struct stitch_unwind_row *r = &t.rows[j];
			const struct arm64_row *e = &arm64_cases[i].exp[j];

			if (r->pc != e->pc || r->cfa_rule != e->rule || r->cfa_offset != e->cfa_off ||
			    r->rbp_rule != e->fp_rule || r->rbp_offset != e->fp_off ||
			    r->ra_offset != e->ra_off)
				fail_msg("%s: row %zu is {%#x %u %d %u %d %d}", arm64_cases[i].name,
					 j, r->pc, r->cfa_rule, r->cfa_offset, r->rbp_rule,
					 r->rbp_offset, r->ra_offset);
		}
		unwind_table_free(&t);
	}
}

#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
#ifdef __aarch64__
		cmocka_unit_test(test_arm64_programs),
		cmocka_unit_test(test_self),
		cmocka_unit_test(test_no_cfi),
		cmocka_unit_test(test_index_same_rows),
#else
		cmocka_unit_test(test_programs),
		cmocka_unit_test(test_deep_remember_state),
		cmocka_unit_test(test_signal_frame),
		cmocka_unit_test(test_gaps_merge_overlap),
		cmocka_unit_test(test_debug_frame),
		cmocka_unit_test(test_section_priority),
		cmocka_unit_test(test_high_addresses_dropped),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_pointer_encodings),
		cmocka_unit_test(test_libc),
		cmocka_unit_test(test_self),
		cmocka_unit_test(test_no_cfi),
		cmocka_unit_test(test_index_same_rows),
#endif
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
