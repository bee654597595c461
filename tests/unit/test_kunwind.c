// SPDX-License-Identifier: GPL-2.0
/*
 * The in-kernel unwinder's walk (unwind_in_kernel_step.h, the very code the BPF
 * program runs) compiled as plain C and replayed over the same snapshots as
 * the independent user-space unwinder (unwind.c): both must give the same
 * frames, frame for frame, and stop for the same reason.
 *
 * Snapshots: synthetic stacks for every rule and stop, and real ones taken
 * by tests/unit/fixtures/unwind_fixture.c (built here, -O2 without frame
 * pointers): a call chain, 600 recursive frames, a signal handler, a
 * stack-realigning frame, each also cut short at several lengths.  The rows
 * go through unwind_in_kernel.c into its row array as they would into the BPF map.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <linux/types.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <bpf/bpf.h>

#include "proc/binary.h"
#include "unwind/cfi.h"
#include "capture/unwind_in_kernel.h"
#include "proc/procs.h"
#include "unwind/unwind.h"

/*
 * Tests written for x86-64's rules and its libc's signal trampoline: run
 * there only (main()); arm64 replays the real snapshots.
 */
#ifdef __x86_64__
#define X86_TEST
#else
#define X86_TEST __attribute__((unused))
#endif

/* ---- the walk in plain C: memory is the snapshot, rows a plain array ---- */

struct replay {
	const uint8_t *stack;	/* bytes from stack_start up */
	uint64_t stack_start;
	size_t stack_len;
	const uint8_t *rows;
	size_t nrows, stride;
	uint64_t frames[KUNWIND_MAX_FRAMES];
	/* uretprobes' return instances: the slot each replaced, and what it held */
	uint64_t uret_tramp, uret_slot[4], uret_orig[4];
	int nuret;
	/* the leaf's code, for V8's prologue check (ku_read_code), and a call's */
	uint64_t code_addr, code2_addr;
	uint32_t code, code_len, code2;
	/* one word of V8's heap (ku_read_heap): a function's SharedFunctionInfo */
	uint64_t heap_addr, heap_word;
};

static int ku_read_word(void *ctx, __u64 addr, __u64 *val)
{
	struct replay *r = ctx;
	uint64_t off = addr - r->stack_start;

	if (addr < r->stack_start || r->stack_len < 8 || off > r->stack_len - 8)
		return KUNWIND_STOP_TRUNCATED;
	memcpy(val, r->stack + off, 8);
	return 0;
}

static const struct stitch_unwind_row *ku_row_at(void *ctx, __u32 idx)
{
	struct replay *r = ctx;

	return idx < r->nrows ? (const void *)(r->rows + idx * r->stride) : NULL;
}

/*
 * One row cache for every replay, never reset: entries left by other
 * snapshots' tables must be caught by its checks, as stale ones in BPF.
 */
static __u32 rcache[KU_RCACHE];

static __u32 *ku_rcache_slot(void *ctx, __u32 h)
{
	return &rcache[h % KU_RCACHE];
}

static void ku_emit(void *ctx, __u32 idx, __u64 word)
{
	((struct replay *)ctx)->frames[idx] = word;
}

static void ku_set_exact(void *ctx, __u32 idx)
{
	((struct replay *)ctx)->frames[idx] |= KFRAME_EXACT;
}

static int ku_uret_orig(void *ctx, __u64 ip, __u64 slot, __u64 *ra)
{
	struct replay *r = ctx;
	int i;

	if (!r->uret_tramp || ip != r->uret_tramp)
		return 0;
	for (i = 0; i < r->nuret; i++) {
		if (r->uret_slot[i] == slot) {
			*ra = r->uret_orig[i];
			return 1;
		}
	}
	return 0;
}

/* Code bytes: only what a test puts at code_addr and code2_addr (arm64's walk reads none). */
static __attribute__((unused)) int ku_read_code(void *ctx, __u64 addr, __u32 *val)
{
	struct replay *r = ctx;

	if (r->code2_addr && addr == r->code2_addr) {
		*val = r->code2;
		return 0;
	}
	if (!r->code_len || addr != r->code_addr)
		return 1;
	*val = r->code;
	return 0;
}

/* Heap words: only what a test puts at heap_addr. */
static __attribute__((unused)) int ku_read_heap(void *ctx, __u64 addr, __u64 *val)
{
	struct replay *r = ctx;

	if (!r->heap_addr || addr != r->heap_addr)
		return 1;
	*val = r->heap_word;
	return 0;
}

#include "capture/unwind_in_kernel_step.h"

/* The mapping hint a walk leaves for the next (tests set it to anything). */
static __u32 last_hint;

/* Walk on from s until a stop; returns it. */
static int walk_on(struct replay *r, const struct kunwind_proc *p, struct ku_state *s)
{
	int i, err;

	for (i = 0; i <= KUNWIND_MAX_FRAMES; i++) {
		err = ku_walk_frame(s, p, r);
		if (err)
			return err;
	}
	return KUNWIND_STOP_TRUNCATED;
}

/* Walks whose rest did not / did depend on bp after the leaf's step. */
static unsigned int bp_free_walks, bp_bound_walks;

/* What kunwind_user() in BPF does, over a replay; returns frames, sets *stop. */
static int walk(struct replay *r, const struct kunwind_proc *p, const struct unwind_regs *regs,
		int max, int *stop)
{
	struct ku_state s = { 0 }, s1;
	int err, leaf_err;

	/* As in BPF, the mapping hint is whatever the last walk left. */
	s.hint = last_hint;
	s.ip = regs->ip;
	s.sp = regs->sp;
	s.bp = regs->bp;
	s.lr = regs->lr;
	s.stack_lo = regs->sp;
	s.stack_hi = r->stack_start + r->stack_len;
	s.max = max;
	s.exact = 1;
	/* The leaf's step, then the rest, tracking its use of bp as ku_memo does. */
	err = leaf_err = ku_walk_frame(&s, p, r);
	s1 = s;
	s.bp_live = 1;
	s.bp_used = 0;
	if (!err)
		err = walk_on(r, p, &s);
	*stop = err;
	last_hint = s.hint;
	/*
	 * ku_memo reuses a walk for any bp when bp_used stayed 0: then the
	 * same walk from the same place with any other bp gives the same
	 * frames and the same stop.
	 */
	if (!leaf_err && !s.bp_used) {
		struct replay *r2 = malloc(sizeof(*r2));
		int err2;

		assert_non_null(r2);
		*r2 = *r;
		s1.bp ^= 0x5a5a5a5a5a5a5a5aull;
		s1.bp_live = 1;
		err2 = walk_on(r2, p, &s1);
		assert_int_equal(err2, err);
		assert_int_equal(s1.n, s.n);
		assert_memory_equal(r2->frames + 1, r->frames + 1, (s.n - 1) * sizeof(r->frames[0]));
		free(r2);
		bp_free_walks++;
	}
	if (!leaf_err && s.bp_used)
		bp_bound_walks++;
	return s.n;
}

/* ---- the oracle's view of the same process ------------------------------ */

struct module {
	uint64_t lo, hi, bias;
	const struct unwind_table *table;	/* NULL: anonymous */
	uint32_t slot;
	bool jit;				/* anonymous executable memory: JIT code */
};

struct world {
	struct module mods[64];
	int nr;
};

static const struct module *module_at(const struct world *w, uint64_t pc)
{
	int i;

	for (i = 0; i < w->nr; i++)
		if (pc >= w->mods[i].lo && pc < w->mods[i].hi)
			return &w->mods[i];
	return NULL;
}

static const struct unwind_table *world_lookup(void *ctx, uint64_t pc, uint64_t *bias)
{
	const struct module *m = module_at(ctx, pc);

	if (m && m->jit)
		return &unwind_table_jit;
	if (!m || !m->table)
		return NULL;
	*bias = m->bias;
	return m->table;
}

/* The frame word the kernel should send for an oracle frame. */
static uint64_t word_of(const struct world *w, const struct unwind_frame *f)
{
	const struct module *m = module_at(w, f->pc);
	uint64_t word;

	if (m && m->table)
		word = KFRAME_IN_BINARY | ((uint64_t)m->slot << KFRAME_SLOT_SHIFT) |
		       (f->pc - m->bias);
	else
		word = f->pc;
	if (f->by_fp)
		word |= KFRAME_BY_FP;
	return f->exact ? word | KFRAME_EXACT : word;
}

/*
 * Unwind with both and compare.  The walk hands over to user space
 * (FALLBACK) where the oracle finds no module at all; expect_fallback says
 * the caller knows it will.  Returns the number of frames.
 */
static int compare(const struct world *w, struct replay *r, const struct kunwind_proc *p,
		   const struct unwind_regs *regs, int max, bool expect_fallback,
		   enum unwind_stop *why_out)
{
	struct unwind_stack st = { r->stack_start, r->stack, r->stack_len };
	struct unwind_frame *of = calloc(KUNWIND_MAX_FRAMES, sizeof(*of));
	enum unwind_stop why;
	int no, nk, stop, i;

	assert_non_null(of);
	no = unwind_user(regs, &st, world_lookup, (void *)w, of, max, &why);
	nk = walk(r, p, regs, max, &stop);
	if (expect_fallback) {
		assert_int_equal(stop, KUNWIND_STOP_FALLBACK);
		assert_int_equal(why, UNWIND_STOP_NO_MODULE);
	} else {
		assert_int_equal(stop, (int)why);
		assert_int_equal(nk, no);
	}
	for (i = 0; i < nk && i < no; i++) {
		if (r->frames[i] != word_of(w, &of[i]))
			fail_msg("frame %d: kernel walk %#llx, oracle %#llx (pc %#llx)", i,
				 (unsigned long long)r->frames[i],
				 (unsigned long long)word_of(w, &of[i]),
				 (unsigned long long)of[i].pc);
	}
	free(of);
	if (why_out)
		*why_out = why;
	return no;
}

/* Rows of every module's table, concatenated the way unwind_in_kernel.c lays them out. */
struct rowbuf {
	uint8_t *mem;
	size_t nr, stride;
};

static void add_table(struct rowbuf *rb, const struct unwind_table *t, uint32_t *first)
{
	size_t i;

	*first = rb->nr;
	rb->mem = realloc(rb->mem, (rb->nr + t->nr + 1) * rb->stride);
	assert_non_null(rb->mem);
	for (i = 0; i < t->nr; i++)
		memcpy(rb->mem + (rb->nr + i) * rb->stride, &t->rows[i], sizeof(t->rows[i]));
	rb->nr += t->nr;
}

/* ---- synthetic stacks ---------------------------------------------------- */

#define STACK_BASE 0x7ffff0000000ull
#define BIN_A 0x400000ull	/* bias 0: vaddr == pc */
#define BIN_B 0x7f0000000000ull	/* bias BIN_B - 0x1000 */
#define ANON 0x7e0000000000ull
#define JIT 0x7d0000000000ull

static uint64_t words[128];

static uint64_t *at(uint64_t addr)
{
	return &words[(addr - STACK_BASE) / 8];
}

static struct stitch_unwind_row row(uint32_t pc, int cfa_rule, int cfa_off, int rbp_rule,
				    int rbp_off)
{
	struct stitch_unwind_row r = { pc, cfa_off, rbp_off, cfa_rule, rbp_rule, 0 };

	return r;
}

struct synth {
	struct unwind_table ta, tb;
	struct stitch_unwind_row a[9], b[8];
	struct world w;
	struct kunwind_proc *p;
	struct rowbuf rb;
	struct replay *r;
};

/*
 * Binary A (0x400000..0x410000, vaddr == pc):
 *   0x401000 RSP+8 (leaf), 0x402000 RSP+16 rbp at CFA-16, 0x403000 RBP+16,
 *   0x404000 PLT (RSP+8, +8 from rip&15 >= 11), 0x405000 END, 0x406000 UNKNOWN,
 *   0x407000 SIGNAL, 0x408000 RSP+32 rbp at CFA-48 (an epilogue, three pops in),
 *   0x409000 NO_FDE (text without CFI)
 * Binary B (0x7f0000000000.., vaddr = pc - BIN_B + 0x1000):
 *   0x1000 RSP+8, 0x1800 NO_FDE
 * One anonymous executable mapping at ANON, as the kernel's list shows a
 * file it cannot read; one of JIT code at JIT.
 */
static void synth_init(struct synth *s)
{
	uint32_t first;
	int i;

	memset(s, 0, sizeof(*s));
	s->a[0] = row(0x401000, STITCH_CFA_RSP, 8, STITCH_RBP_SAME, 0);
	s->a[1] = row(0x402000, STITCH_CFA_RSP, 16, STITCH_RBP_AT_CFA, -16);
	s->a[2] = row(0x403000, STITCH_CFA_RBP, 16, STITCH_RBP_AT_CFA, -16);
	s->a[3] = row(0x404000, STITCH_CFA_PLT, 8, STITCH_RBP_SAME, 11);
	s->a[4] = row(0x405000, STITCH_CFA_END, 0, STITCH_RBP_SAME, 0);
	s->a[5] = row(0x406000, STITCH_CFA_UNKNOWN, 0, STITCH_RBP_SAME, 0);
	s->a[6] = row(0x407000, STITCH_CFA_SIGNAL, 0, STITCH_RBP_SAME, 0);
	s->a[7] = row(0x408000, STITCH_CFA_RSP, 32, STITCH_RBP_AT_CFA, -48);
	s->a[8] = row(0x409000, STITCH_CFA_NO_FDE, 0, STITCH_RBP_SAME, 0);
	s->ta = (struct unwind_table){ s->a, 9 };
	s->b[0] = row(0x1000, STITCH_CFA_RSP, 8, STITCH_RBP_SAME, 0);
	s->b[1] = row(0x1800, STITCH_CFA_NO_FDE, 0, STITCH_RBP_SAME, 0);
	s->tb = (struct unwind_table){ s->b, 2 };
	s->rb.stride = 16;
	s->p = calloc(1, sizeof(*s->p));
	s->r = calloc(1, sizeof(*s->r));
	assert_non_null(s->p);
	assert_non_null(s->r);

	s->w.mods[0] = (struct module){ BIN_A, BIN_A + 0x10000, 0, &s->ta, 0 };
	s->w.mods[1] = (struct module){ ANON, ANON + 0x1000, 0, NULL, KUNWIND_NO_SLOT };
	s->w.mods[2] = (struct module){ BIN_B, BIN_B + 0x1000, BIN_B - 0x1000, &s->tb, 1 };
	s->w.mods[3] = (struct module){ JIT, JIT + 0x1000, 0, NULL, KUNWIND_NO_SLOT, true };
	s->w.nr = 4;
	/* The kernel's list is sorted by start. */
	for (i = 0; i < s->w.nr; i++) {
		int j;

		for (j = i + 1; j < s->w.nr; j++) {
			if (s->w.mods[j].lo < s->w.mods[i].lo) {
				struct module t = s->w.mods[i];

				s->w.mods[i] = s->w.mods[j];
				s->w.mods[j] = t;
			}
		}
	}
	for (i = 0; i < s->w.nr; i++) {
		struct kunwind_map *km = &s->p->maps[i];
		const struct module *m = &s->w.mods[i];

		km->start = m->lo;
		km->end = m->hi;
		km->bias = m->bias;
		km->slot = m->slot;
		if (m->jit)
			km->flags = KUNWIND_MAP_ANON;
		if (m->table) {
			add_table(&s->rb, m->table, &first);
			km->row_first = first;
			km->row_nr = m->table->nr;
			km->flags = KUNWIND_MAP_TABLE;
		}
	}
	s->p->nr = s->w.nr;
	s->r->rows = s->rb.mem;
	s->r->nrows = s->rb.nr;
	s->r->stride = s->rb.stride;
	s->r->stack = (const uint8_t *)words;
	s->r->stack_start = STACK_BASE;
	s->r->stack_len = sizeof(words);
	memset(words, 0, sizeof(words));
}

static void synth_free(struct synth *s)
{
	free(s->p);
	free(s->r);
	free(s->rb.mem);
}

X86_TEST static void test_synthetic_rules(void **state)
{
	struct synth s;
	struct unwind_regs regs;
	enum unwind_stop why;

	synth_init(&s);
	/*
	 * leaf (RSP+8) -> rbp-saving frame -> frame-pointer frame -> B -> PLT
	 * stub (exact pc: +8 applies) -> END.
	 */
	*at(STACK_BASE + 0) = 0x402010;			/* leaf's RA */
	*at(STACK_BASE + 8) = STACK_BASE + 0x40;	/* saved rbp (CFA-16) */
	*at(STACK_BASE + 16) = 0x403010;		/* RA */
	/* frame-pointer frame: CFA = rbp + 16 = STACK_BASE + 0x50 */
	*at(STACK_BASE + 0x40) = STACK_BASE + 0x300;	/* its saved rbp */
	*at(STACK_BASE + 0x48) = BIN_B + 0x10;		/* RA into B */
	*at(STACK_BASE + 0x50) = 0x40400c;		/* B's RA: a PLT pc, 0xc >= 11 */
	/* PLT: CFA = sp + 8 + 8 */
	*at(STACK_BASE + 0x60) = 0x405010;		/* RA into END */
	regs = (struct unwind_regs){ 0x401004, STACK_BASE, 0x1234 };
	assert_int_equal(compare(&s.w, s.r, s.p, &regs, KUNWIND_MAX_FRAMES, false, &why), 6);
	assert_int_equal(why, UNWIND_STOP_END);

	/*
	 * The leaf returns into the frame-pointer frame, whose CFA is the
	 * leaf's rbp: the rest of this walk depends on bp (test_bp_use_tracked).
	 */
	*at(STACK_BASE + 0x38) = 0x403010;
	regs = (struct unwind_regs){ 0x401004, STACK_BASE + 0x38, STACK_BASE + 0x40 };
	assert_int_equal(compare(&s.w, s.r, s.p, &regs, KUNWIND_MAX_FRAMES, false, &why), 5);
	assert_int_equal(why, UNWIND_STOP_END);
	regs = (struct unwind_regs){ 0x401004, STACK_BASE, 0x1234 };

	/* The same, cut at 0x58 bytes: both say truncated after the same frames. */
	s.r->stack_len = 0x58;
	compare(&s.w, s.r, s.p, &regs, KUNWIND_MAX_FRAMES, false, &why);
	assert_int_equal(why, UNWIND_STOP_TRUNCATED);
	s.r->stack_len = sizeof(words);

	/* At most 3 frames: truncated, unless the last one is the outermost. */
	compare(&s.w, s.r, s.p, &regs, 3, false, &why);
	assert_int_equal(why, UNWIND_STOP_TRUNCATED);
	regs = (struct unwind_regs){ 0x405004, STACK_BASE, 0 };
	compare(&s.w, s.r, s.p, &regs, 1, false, &why);
	assert_int_equal(why, UNWIND_STOP_END);

	/* No rule; an anonymous mapping; a zero return address. */
	regs = (struct unwind_regs){ 0x406004, STACK_BASE, 0 };
	compare(&s.w, s.r, s.p, &regs, KUNWIND_MAX_FRAMES, false, &why);
	assert_int_equal(why, UNWIND_STOP_NO_RULE);
	*at(STACK_BASE) = ANON + 0x10;
	regs = (struct unwind_regs){ 0x401004, STACK_BASE, 0 };
	assert_int_equal(compare(&s.w, s.r, s.p, &regs, KUNWIND_MAX_FRAMES, false, &why), 2);
	assert_int_equal(why, UNWIND_STOP_NO_MODULE);
	*at(STACK_BASE) = 0;
	compare(&s.w, s.r, s.p, &regs, KUNWIND_MAX_FRAMES, false, &why);
	assert_int_equal(why, UNWIND_STOP_BAD);

	/* A pc in no mapping at all: the kernel hands the stack to user space. */
	*at(STACK_BASE) = 0x300000;
	compare(&s.w, s.r, s.p, &regs, KUNWIND_MAX_FRAMES, true, NULL);
	synth_free(&s);
}

/*
 * Code without CFI, stepped by frame pointer in both walks alike, the
 * frames so found marked: JIT code, then text no FDE covers, then back to
 * a row (END).  rbp below sp, or misaligned, or a return address of zero
 * or in no code cuts the stack there (NO_RULE).
 */
X86_TEST static void test_synthetic_frame_pointer(void **state)
{
	struct unwind_regs regs;
	enum unwind_stop why;
	struct synth s;

	synth_init(&s);
	*at(STACK_BASE) = JIT + 0x10;			/* leaf (RSP+8) returns into JIT code */
	*at(STACK_BASE + 0x20) = STACK_BASE + 0x40;	/* its frame: saved rbp, */
	*at(STACK_BASE + 0x28) = 0x409010;		/* return address: text without CFI */
	*at(STACK_BASE + 0x40) = 0x777;			/* whose frame: a caller's rbp (none), */
	*at(STACK_BASE + 0x48) = 0x405010;		/* and return address: END */
	regs = (struct unwind_regs){ 0x401004, STACK_BASE, STACK_BASE + 0x20 };
	assert_int_equal(compare(&s.w, s.r, s.p, &regs, KUNWIND_MAX_FRAMES, false, &why), 4);
	assert_int_equal(why, UNWIND_STOP_END);
	assert_true(s.r->frames[2] & KFRAME_BY_FP);
	assert_true(s.r->frames[3] & KFRAME_BY_FP);
	assert_false(s.r->frames[1] & KFRAME_BY_FP);
	/* Full at a frame-pointer step. */
	compare(&s.w, s.r, s.p, &regs, 2, false, &why);
	assert_int_equal(why, UNWIND_STOP_TRUNCATED);
	/* Return address zero, or in code the list cannot read. */
	*at(STACK_BASE + 0x48) = 0;
	assert_int_equal(compare(&s.w, s.r, s.p, &regs, KUNWIND_MAX_FRAMES, false, &why), 3);
	assert_int_equal(why, UNWIND_STOP_NO_RULE);
	*at(STACK_BASE + 0x48) = ANON + 0x10;
	assert_int_equal(compare(&s.w, s.r, s.p, &regs, KUNWIND_MAX_FRAMES, false, &why), 3);
	assert_int_equal(why, UNWIND_STOP_NO_RULE);
	/* JIT code without a frame pointer: rbp a counter, below sp, misaligned. */
	regs.bp = 12345;
	assert_int_equal(compare(&s.w, s.r, s.p, &regs, KUNWIND_MAX_FRAMES, false, &why), 2);
	assert_int_equal(why, UNWIND_STOP_NO_RULE);
	regs.bp = STACK_BASE;
	compare(&s.w, s.r, s.p, &regs, KUNWIND_MAX_FRAMES, false, &why);
	assert_int_equal(why, UNWIND_STOP_NO_RULE);
	regs.bp = STACK_BASE + 0x21;
	compare(&s.w, s.r, s.p, &regs, KUNWIND_MAX_FRAMES, false, &why);
	assert_int_equal(why, UNWIND_STOP_NO_RULE);
	/* Past the stack: truncated, as any read there. */
	regs.bp = STACK_BASE + sizeof(words);
	compare(&s.w, s.r, s.p, &regs, KUNWIND_MAX_FRAMES, false, &why);
	assert_int_equal(why, UNWIND_STOP_TRUNCATED);
	synth_free(&s);
}

/*
 * V8 (kunwind_proc.v8_fp_*): a frame left by a frame-pointer step whose
 * context slot holds a heap object (tagged 1) and whose function slot a
 * heap object pointer gets a KFRAME_V8 word after it; a typed frame (a Smi
 * marker, tagged 0, in the context slot) or a function slot that is no
 * pointer gets none.  A leaf in JIT code gets one only past V8's prologue
 * (ku_v8_leaf_framed), whose bytes it reads at the pc.
 */
X86_TEST static void test_synthetic_v8_frames(void **state)
{
	const uint64_t fn = 0x3f9865310811ull, cx = 0x3f9865300a01ull;
	struct unwind_regs regs;
	struct synth s;
	int stop;

	synth_init(&s);
	s.p->v8_fp_function = -16;
	s.p->v8_fp_context = -8;
	*at(STACK_BASE) = JIT + 0x10;			/* leaf (RSP+8) returns into JIT code */
	*at(STACK_BASE + 0x10) = fn;			/* the JIT frame's function, */
	*at(STACK_BASE + 0x18) = cx;			/* its context, */
	*at(STACK_BASE + 0x20) = STACK_BASE + 0x40;	/* its saved rbp, */
	*at(STACK_BASE + 0x28) = 0x409010;		/* return address: text without CFI */
	*at(STACK_BASE + 0x38) = 2 << 1;		/* a typed frame's marker: no function */
	*at(STACK_BASE + 0x40) = 0x777;
	*at(STACK_BASE + 0x48) = 0x405010;		/* END */
	regs = (struct unwind_regs){ 0x401004, STACK_BASE, STACK_BASE + 0x20 };
	assert_int_equal(walk(s.r, s.p, &regs, KUNWIND_MAX_FRAMES, &stop), 5);
	assert_int_equal(stop, KUNWIND_STOP_END);
	assert_int_equal(s.r->frames[1] & KFRAME_ADDR_MASK, JIT + 0x10);
	assert_int_equal(s.r->frames[2], KFRAME_V8 | fn);
	assert_int_equal(s.r->frames[2] & KFRAME_KIND_MASK, KFRAME_V8);
	assert_int_equal(s.r->frames[3] & KFRAME_KIND_MASK, KFRAME_IN_BINARY | KFRAME_BY_FP);

	/* Not V8's: no word. */
	s.p->v8_fp_function = 0;
	assert_int_equal(walk(s.r, s.p, &regs, KUNWIND_MAX_FRAMES, &stop), 4);
	s.p->v8_fp_function = -16;
	/* A marker where the context is, or a function slot holding a Smi: no word. */
	*at(STACK_BASE + 0x18) = 12 << 1;
	assert_int_equal(walk(s.r, s.p, &regs, KUNWIND_MAX_FRAMES, &stop), 4);
	*at(STACK_BASE + 0x18) = cx;
	*at(STACK_BASE + 0x10) = 7ull << 32;
	assert_int_equal(walk(s.r, s.p, &regs, KUNWIND_MAX_FRAMES, &stop), 4);
	*at(STACK_BASE + 0x10) = fn;
	/* No room for the word: the frames come first. */
	walk(s.r, s.p, &regs, 2, &stop);
	assert_int_equal(stop, KUNWIND_STOP_TRUNCATED);

	/* The function's SharedFunctionInfo, read from its heap object: a third word. */
	s.p->v8_fn_shared = 0x18;
	s.r->heap_addr = fn - 1 + 0x18;
	s.r->heap_word = 0x3f9865200c41ull;
	assert_int_equal(walk(s.r, s.p, &regs, KUNWIND_MAX_FRAMES, &stop), 6);
	assert_int_equal(stop, KUNWIND_STOP_END);
	assert_int_equal(s.r->frames[2], KFRAME_V8 | fn);
	assert_int_equal(s.r->frames[3], KFRAME_V8 | KFRAME_V8_SFI | 0x3f9865200c41ull);
	assert_int_equal(s.r->frames[4] & KFRAME_KIND_MASK, KFRAME_IN_BINARY | KFRAME_BY_FP);
	/* No heap object there, none past 48 bits, none unreadable: no third word. */
	s.r->heap_word = 0x3f9865200c40ull;
	assert_int_equal(walk(s.r, s.p, &regs, KUNWIND_MAX_FRAMES, &stop), 5);
	s.r->heap_word = 1ull << 48 | 1;
	assert_int_equal(walk(s.r, s.p, &regs, KUNWIND_MAX_FRAMES, &stop), 5);
	s.r->heap_addr = 0;
	assert_int_equal(walk(s.r, s.p, &regs, KUNWIND_MAX_FRAMES, &stop), 5);
	/* Room for the function's word, not for its SharedFunctionInfo's. */
	s.r->heap_addr = fn - 1 + 0x18;
	s.r->heap_word = 0x3f9865200c41ull;
	walk(s.r, s.p, &regs, 3, &stop);
	assert_int_equal(stop, KUNWIND_STOP_TRUNCATED);
	assert_int_equal(s.r->frames[2], KFRAME_V8 | fn);
	s.p->v8_fn_shared = 0;
	s.r->heap_addr = 0;

	/* The leaf in JIT code, its frame built: its word right after it. */
	regs = (struct unwind_regs){ JIT + 0x40, STACK_BASE + 0x8, STACK_BASE + 0x20 };
	s.r->code_addr = JIT + 0x40;
	s.r->code_len = 4;
	s.r->code = 0x08458b48;				/* mov rax, [rbp + 8] */
	assert_int_equal(walk(s.r, s.p, &regs, KUNWIND_MAX_FRAMES, &stop), 4);
	assert_int_equal(s.r->frames[1], KFRAME_V8 | fn);
	/* At push rbp, mov rbp, rsp, push rdi, ret: rbp is not its own yet (or any more). */
	s.r->code = 0x00e58948;
	assert_int_equal(walk(s.r, s.p, &regs, KUNWIND_MAX_FRAMES, &stop), 3);
	s.r->code = 0x55;
	assert_int_equal(walk(s.r, s.p, &regs, KUNWIND_MAX_FRAMES, &stop), 3);
	s.r->code = 0x57;
	assert_int_equal(walk(s.r, s.p, &regs, KUNWIND_MAX_FRAMES, &stop), 3);
	s.r->code = 0xc3;
	assert_int_equal(walk(s.r, s.p, &regs, KUNWIND_MAX_FRAMES, &stop), 3);
	/* Code it cannot read: no word. */
	s.r->code_len = 0;
	assert_int_equal(walk(s.r, s.p, &regs, KUNWIND_MAX_FRAMES, &stop), 3);
	synth_free(&s);
}

/*
 * An interpreted frame (left by a return address in text without CFI, the
 * interpreter's) carries in its SharedFunctionInfo's word the bytecode
 * offset its frame keeps at v8_fp_bytecode_offset, a Smi's value + 1
 * (KFRAME_V8_BCO_SHIFT).  None for a word that is no Smi, a negative one
 * (the function's entry), one past KFRAME_V8_BCO_MAX, nor where the
 * process's offset slot is not known.
 */
X86_TEST static void test_synthetic_v8_bytecode_offset(void **state)
{
	const uint64_t fn = 0x3f9865310811ull, fn2 = 0x3f9865310c91ull, cx = 0x3f9865300a01ull;
	const uint64_t sfi = 0x3f9865200c41ull;
	struct unwind_regs regs;
	struct synth s;
	int stop;

	synth_init(&s);
	s.p->v8_fp_function = -16;
	s.p->v8_fp_context = -8;
	s.p->v8_fn_shared = 0x18;
	s.p->v8_fp_bytecode_offset = -40;
	*at(STACK_BASE) = JIT + 0x10;			/* leaf (RSP+8) returns into JIT code */
	*at(STACK_BASE + 0x10) = fn;			/* the JIT frame's function, */
	*at(STACK_BASE + 0x18) = cx;			/* its context, */
	*at(STACK_BASE + 0x20) = STACK_BASE + 0x80;	/* its saved rbp, */
	*at(STACK_BASE + 0x28) = 0x409010;		/* return address: text without CFI */
	*at(STACK_BASE + 0x58) = 0x99ull << 32;		/* the interpreted frame's offset, */
	*at(STACK_BASE + 0x70) = fn2;			/* its function, */
	*at(STACK_BASE + 0x78) = cx;			/* its context */
	*at(STACK_BASE + 0x80) = 0x777;
	*at(STACK_BASE + 0x88) = 0x405010;		/* END */
	s.r->heap_addr = fn2 - 1 + 0x18;
	s.r->heap_word = sfi;
	regs = (struct unwind_regs){ 0x401004, STACK_BASE, STACK_BASE + 0x20 };
	assert_int_equal(walk(s.r, s.p, &regs, KUNWIND_MAX_FRAMES, &stop), 7);
	assert_int_equal(stop, KUNWIND_STOP_END);
	assert_int_equal(s.r->frames[2], KFRAME_V8 | fn);
	assert_int_equal(s.r->frames[3] & KFRAME_KIND_MASK, KFRAME_IN_BINARY | KFRAME_BY_FP);
	assert_int_equal(s.r->frames[4], KFRAME_V8 | fn2);
	assert_int_equal(s.r->frames[5], KFRAME_V8 | KFRAME_V8_SFI | sfi |
					 (0x9aull << KFRAME_V8_BCO_SHIFT));
	/* No Smi, a negative one, one too large, or no slot known: none. */
	*at(STACK_BASE + 0x58) = (0x99ull << 32) | 1;
	walk(s.r, s.p, &regs, KUNWIND_MAX_FRAMES, &stop);
	assert_int_equal(s.r->frames[5], KFRAME_V8 | KFRAME_V8_SFI | sfi);
	*at(STACK_BASE + 0x58) = (uint64_t)-1 << 32;
	walk(s.r, s.p, &regs, KUNWIND_MAX_FRAMES, &stop);
	assert_int_equal(s.r->frames[5], KFRAME_V8 | KFRAME_V8_SFI | sfi);
	*at(STACK_BASE + 0x58) = KFRAME_V8_BCO_MAX << 32;
	walk(s.r, s.p, &regs, KUNWIND_MAX_FRAMES, &stop);
	assert_int_equal(s.r->frames[5], KFRAME_V8 | KFRAME_V8_SFI | sfi);
	*at(STACK_BASE + 0x58) = (KFRAME_V8_BCO_MAX - 1) << 32;
	walk(s.r, s.p, &regs, KUNWIND_MAX_FRAMES, &stop);
	assert_int_equal(s.r->frames[5], KFRAME_V8 | KFRAME_V8_SFI | sfi |
					 (KFRAME_V8_BCO_MAX << KFRAME_V8_BCO_SHIFT));
	*at(STACK_BASE + 0x58) = 0x99ull << 32;
	s.p->v8_fp_bytecode_offset = 0;
	walk(s.r, s.p, &regs, KUNWIND_MAX_FRAMES, &stop);
	assert_int_equal(s.r->frames[5], KFRAME_V8 | KFRAME_V8_SFI | sfi);
	synth_free(&s);
}

/*
 * A leaf in V8's builtins (text without CFI) that built no frame: rbp is
 * still its caller's, whose return address the call left at sp.  Stepped
 * to it where it lies in JIT code right after a call (e8 rel32) to at most
 * STITCH_V8_BUILTIN_MAX below the leaf's pc, the caller's V8 word after
 * the caller; anything else is the frame-pointer step, which skips it.
 */
X86_TEST static void test_synthetic_v8_frameless_leaf(void **state)
{
	/* JIT code within a call's reach of B's text without CFI (its pc BIN_B + 0x800 on) */
	const uint64_t jit = BIN_B - 0x10000, ra = jit + 0x40, leaf = BIN_B + 0x900;
	const uint64_t fn = 0x3f9865310811ull, cx = 0x3f9865300a01ull;
	const uint32_t rel = (uint32_t)(BIN_B + 0x800 - ra);
	struct unwind_regs regs;
	struct synth s;
	int stop, i;

	synth_init(&s);
	/* Moved there, past ANON: the list stays sorted by start. */
	for (i = 0; i + 1 < (int)s.p->nr; i++) {
		if (s.p->maps[i].start == JIT) {
			struct kunwind_map t = s.p->maps[i];

			t.start = jit;
			t.end = jit + 0x1000;
			s.p->maps[i] = s.p->maps[i + 1];
			s.p->maps[i + 1] = t;
			assert_true(s.p->maps[i].start < jit && jit + 0x1000 <= s.p->maps[i + 2].start);
			break;
		}
	}
	s.p->v8_fp_function = -16;
	s.p->v8_fp_context = -8;
	*at(STACK_BASE) = ra;				/* the builtin's return address, */
	*at(STACK_BASE + 0x10) = fn;			/* the caller's function, */
	*at(STACK_BASE + 0x18) = cx;			/* its context, */
	*at(STACK_BASE + 0x20) = STACK_BASE + 0x40;	/* its saved rbp, */
	*at(STACK_BASE + 0x28) = 0x405010;		/* its return address: END */
	regs = (struct unwind_regs){ leaf, STACK_BASE, STACK_BASE + 0x20 };
	s.r->code_addr = ra - 8;			/* ... e8 <- ra - 5 */
	s.r->code_len = 4;
	s.r->code = 0xe8000000;
	s.r->code2_addr = ra - 4;			/* its rel32 */
	s.r->code2 = rel;				/* to BIN_B + 0x800 */
	assert_int_equal(walk(s.r, s.p, &regs, KUNWIND_MAX_FRAMES, &stop), 4);
	assert_int_equal(stop, KUNWIND_STOP_END);
	assert_int_equal(s.r->frames[0] & KFRAME_KIND_MASK, KFRAME_IN_BINARY | KFRAME_EXACT);
	assert_int_equal(s.r->frames[1], (ra & KFRAME_ADDR_MASK) | KFRAME_BY_FP);
	assert_int_equal(s.r->frames[2], KFRAME_V8 | fn);
	assert_int_equal(s.r->frames[3] & KFRAME_ADDR_MASK, 0x405010);

	/* No call right before it, or one to elsewhere: the frame-pointer step, as before. */
	s.r->code = 0xe9000000;
	assert_int_equal(walk(s.r, s.p, &regs, KUNWIND_MAX_FRAMES, &stop), 3);
	assert_int_equal(s.r->frames[1], KFRAME_V8 | fn);
	assert_int_equal(s.r->frames[2] & KFRAME_ADDR_MASK, 0x405010);
	s.r->code = 0xe8000000;
	s.r->code2 = rel + 0x200;			/* to past the leaf's pc */
	assert_int_equal(walk(s.r, s.p, &regs, KUNWIND_MAX_FRAMES, &stop), 3);
	s.r->code2 = rel - STITCH_V8_BUILTIN_MAX;	/* too far below it */
	assert_int_equal(walk(s.r, s.p, &regs, KUNWIND_MAX_FRAMES, &stop), 3);
	s.r->code2 = rel;
	/* A word at sp that is no return address into JIT code (a push since). */
	*at(STACK_BASE) = 0x401010;
	assert_int_equal(walk(s.r, s.p, &regs, KUNWIND_MAX_FRAMES, &stop), 3);
	*at(STACK_BASE) = ra;
	/* Not V8's: no such step. */
	s.p->v8_fp_function = 0;
	assert_int_equal(walk(s.r, s.p, &regs, KUNWIND_MAX_FRAMES, &stop), 2);
	synth_free(&s);
}

/*
 * A leaf in its epilogue, past `pop %rbp`: the save rule still names the
 * slot, now below sp (a stale word there), and rbp holds the caller's
 * value again, which the frame-pointer frame above needs.  Both unwinders
 * keep rbp (they used to stop: 2% of a Ruby profile's samples).
 */
X86_TEST static void test_synthetic_epilogue(void **state)
{
	struct synth s;
	struct unwind_regs regs;
	enum unwind_stop why;

	synth_init(&s);
	*at(STACK_BASE + 0) = 0xdead;			/* the popped slot, below sp */
	*at(STACK_BASE + 0x28) = 0x403010;		/* RA at CFA - 8 (CFA = sp + 32) */
	*at(STACK_BASE + 0x40) = STACK_BASE + 0x300;	/* the frame-pointer frame's saved rbp */
	*at(STACK_BASE + 0x48) = 0x405010;		/* its RA, into END */
	regs = (struct unwind_regs){ 0x408004, STACK_BASE + 0x10, STACK_BASE + 0x40 };
	assert_int_equal(compare(&s.w, s.r, s.p, &regs, KUNWIND_MAX_FRAMES, false, &why), 3);
	assert_int_equal(why, UNWIND_STOP_END);
	synth_free(&s);
}

/*
 * Return addresses a uretprobe replaced with its trampoline: the walk takes
 * the real ones from the thread's return instances and gives the frames of
 * the walk without probes; an instance it cannot find leaves the trampoline,
 * which stops the walk there.
 */
X86_TEST static void test_synthetic_uretprobe(void **state)
{
	uint64_t want[KUNWIND_MAX_FRAMES], tramp = 0x7fffff000000ull;
	struct synth s;
	struct ku_state st = { 0 };
	int n, err;

	synth_init(&s);
	*at(STACK_BASE + 0) = 0x402010;
	*at(STACK_BASE + 8) = STACK_BASE + 0x40;
	*at(STACK_BASE + 16) = 0x403010;
	*at(STACK_BASE + 0x40) = STACK_BASE + 0x300;
	*at(STACK_BASE + 0x48) = BIN_B + 0x10;
	*at(STACK_BASE + 0x50) = 0x40400c;
	*at(STACK_BASE + 0x60) = 0x405010;
	st = (struct ku_state){ .ip = 0x401004, .sp = STACK_BASE, .bp = 0x1234,
				.stack_lo = STACK_BASE, .max = KUNWIND_MAX_FRAMES, .exact = 1 };
	st.stack_hi = STACK_BASE + sizeof(words);
	err = walk_on(s.r, s.p, &st);
	assert_int_equal(err, KUNWIND_STOP_END);
	n = st.n;
	assert_int_equal(n, 6);
	memcpy(want, s.r->frames, n * sizeof(want[0]));

	/* Two of them hijacked, both known. */
	*at(STACK_BASE + 16) = tramp;
	*at(STACK_BASE + 0x48) = tramp;
	s.r->uret_slot[0] = STACK_BASE + 0x48;
	s.r->uret_orig[0] = BIN_B + 0x10;
	s.r->uret_slot[1] = STACK_BASE + 16;
	s.r->uret_orig[1] = 0x403010;
	s.r->nuret = 2;
	s.r->uret_tramp = tramp;
	memset(s.r->frames, 0, sizeof(s.r->frames));
	st = (struct ku_state){ .ip = 0x401004, .sp = STACK_BASE, .bp = 0x1234,
				.stack_lo = STACK_BASE, .max = KUNWIND_MAX_FRAMES, .exact = 1 };
	st.stack_hi = STACK_BASE + sizeof(words);
	err = walk_on(s.r, s.p, &st);
	assert_int_equal(err, KUNWIND_STOP_END);
	assert_int_equal(st.n, n);
	assert_true(st.uret_fixed);
	assert_memory_equal(s.r->frames, want, n * sizeof(want[0]));

	/* One instance unknown: the trampoline is the last frame, in no mapping. */
	s.r->nuret = 1;
	st = (struct ku_state){ .ip = 0x401004, .sp = STACK_BASE, .bp = 0x1234,
				.stack_lo = STACK_BASE, .max = KUNWIND_MAX_FRAMES, .exact = 1 };
	st.stack_hi = STACK_BASE + sizeof(words);
	err = walk_on(s.r, s.p, &st);
	assert_int_equal(err, KUNWIND_STOP_FALLBACK);
	assert_int_equal(st.n, 2);
	synth_free(&s);
}

X86_TEST static void test_synthetic_signal(void **state)
{
	struct synth s;
	struct unwind_regs regs;
	enum unwind_stop why;

	synth_init(&s);
	/* Handler (RSP+8) returns into the trampoline; ucontext at its sp. */
	*at(STACK_BASE) = 0x407001;	/* RA: after the nop that starts its FDE */
	*at(STACK_BASE + 8 + STITCH_UC_RIP) = 0x405020;	/* interrupted: exact pc in END */
	*at(STACK_BASE + 8 + STITCH_UC_RSP) = STACK_BASE + 0x300;
	*at(STACK_BASE + 8 + STITCH_UC_RBP) = 0x77;
	regs = (struct unwind_regs){ 0x401004, STACK_BASE, 0 };
	assert_int_equal(compare(&s.w, s.r, s.p, &regs, KUNWIND_MAX_FRAMES, false, &why), 3);
	assert_int_equal(why, UNWIND_STOP_END);
	/* Both the trampoline and the interrupted pc are exact. */
	assert_true(s.r->frames[1] & KFRAME_EXACT);
	assert_true(s.r->frames[2] & KFRAME_EXACT);
	synth_free(&s);
}

/* Map searches over many mappings agree with a linear scan. */
static void test_find_map(void **state)
{
	struct kunwind_proc *p = calloc(1, sizeof(*p));
	uint32_t n, i;
	uint64_t addr;

	assert_non_null(p);
	for (n = 0; n <= KUNWIND_MAX_MAPS; n += (n < 20 ? 1 : 61)) {
		p->nr = n;
		for (i = 0; i < n; i++) {
			p->maps[i].start = 0x10000 + i * 0x3000;
			p->maps[i].end = p->maps[i].start + 0x2000;	/* holes between */
		}
		for (addr = 0x8000; addr < 0x10000 + n * 0x3000 + 0x4000; addr += 0x800) {
			const struct kunwind_map *want = NULL, *got = ku_find_map(p, addr);

			for (i = 0; i < n; i++)
				if (addr >= p->maps[i].start && addr < p->maps[i].end)
					want = &p->maps[i];
			assert_ptr_equal(got, want);
		}
	}
	free(p);
}

/* ---- real snapshots -------------------------------------------------------- */

static struct {
	char dir[256];
	struct binary_cache bins;
	struct procs procs;
	struct proc *proc;
	struct kunwind kw;
	struct kunwind_proc *kp;
	struct world w;
} fx;

/*
 * The fixture's mappings as procs.c would have them: parse its maps file
 * into a struct proc (binaries opened by path, tables through unwind_in_kernel.c).
 */
static void load_world(void)
{
	char path[600], line[1024], perms[8], file[512];
	unsigned long lo, hi, off;
	FILE *m;
	int n, i;

	snprintf(path, sizeof(path), "%s/maps", fx.dir);
	m = fopen(path, "r");
	assert_non_null(m);
	fx.proc = calloc(1, sizeof(*fx.proc));
	fx.proc->maps = calloc(64, sizeof(struct map));
	assert_non_null(fx.proc->maps);
	while (fgets(line, sizeof(line), m)) {
		struct map *mp;
		struct binary *b;
		uint64_t vaddr;
		int fd;

		file[0] = '\0';
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*u %511s", &lo, &hi, perms, &off, file) < 4)
			continue;
		/* [vsyscall] is left out of the kernel's list (test_build_proc_vsyscall). */
		if (!strchr(perms, 'x') || strcmp(file, "[vdso]") == 0 || fx.proc->nr == 64 ||
		    lo >> 63)
			continue;
		mp = &fx.proc->maps[fx.proc->nr++];
		mp->start = lo;
		mp->end = hi;
		if (file[0] != '/')
			continue;	/* anonymous executable memory */
		fd = open(file, O_RDONLY | O_CLOEXEC);
		assert_true(fd >= 0);
		b = binary_get_fd(&fx.bins, fd, file, "");
		assert_non_null(b);
		assert_int_equal(elf_offset_to_vaddr(b->elf, off, &vaddr), 0);
		mp->bin = b;
		mp->bias = lo - vaddr;
	}
	fclose(m);
	fx.kp = calloc(1, sizeof(*fx.kp));
	assert_non_null(fx.kp);
	n = kunwind_build_proc(&fx.kw, &fx.bins, fx.proc, fx.kp);
	assert_int_equal(n, (int)fx.proc->nr);
	/* The oracle sees the same binaries through their own tables. */
	for (i = 0; i < n; i++) {
		const struct map *mp = &fx.proc->maps[i];
		struct module *mod = &fx.w.mods[fx.w.nr++];

		mod->lo = mp->start;
		mod->hi = mp->end;
		mod->bias = mp->bias;
		mod->table = mp->bin ? binary_table(&fx.bins, mp->bin) : NULL;
		mod->slot = fx.kp->maps[i].slot;
		if (mp->bin)
			assert_ptr_equal(kunwind_slot_binary(&fx.kw, mod->slot), mp->bin);
	}
}

static int fixture_setup(void **state)
{
	char src[512], cmd[2048], bin[300];
	char *here = strdup(__FILE__);

	elf_util_init();
	snprintf(src, sizeof(src), "%s/fixtures/unwind_fixture.c", dirname(here));
	free(here);
	snprintf(fx.dir, sizeof(fx.dir), "/tmp/stitch-kunwind-XXXXXX");
	if (!mkdtemp(fx.dir))
		return -1;
	snprintf(bin, sizeof(bin), "%s/fixture", fx.dir);
	/* UNIT_CC: the compiler of this test, a cross one for ARCH=arm64 (Makefile). */
	snprintf(cmd, sizeof(cmd), UNIT_CC " -O2 -fomit-frame-pointer -fno-inline -g -o %s %s && %s %s",
		 bin, src, bin, fx.dir);
	if (system(cmd) != 0) {
		fprintf(stderr, "cannot build or run the fixture: %s\n", cmd);
		return -1;
	}
	if (binary_cache_init(&fx.bins) || procs_init(&fx.procs, &fx.bins) ||
	    kunwind_init(&fx.kw, -1, -1, 1 << 20, 16))
		return -1;
	return 0;
}

static int fixture_teardown(void **state)
{
	char cmd[512];

	if (fx.proc) {
		free(fx.proc->maps);
		free(fx.proc);
	}
	free(fx.kp);
	kunwind_free(&fx.kw);
	procs_free(&fx.procs);
	binary_cache_free(&fx.bins);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", fx.dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Replay one snapshot whole and cut at several lengths; returns frames of the whole. */
static int replay_snapshot(const char *name, enum unwind_stop *why)
{
	static const size_t cuts[] = { 0, 8, 100, 4096, 5000, 32768 };
	struct replay *r = calloc(1, sizeof(*r));
	uint64_t hdr[5];
	uint8_t *buf;
	char path[600];
	struct unwind_regs regs;
	size_t i;
	int n;
	FILE *f;

	if (!fx.w.nr)
		load_world();
	snprintf(path, sizeof(path), "%s/%s.snap", fx.dir, name);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(fread(hdr, sizeof(hdr), 1, f), 1);
	assert_true(hdr[4] > 0 && hdr[4] < (64 << 20));
	buf = malloc(hdr[4]);
	assert_non_null(buf);
	assert_int_equal(fread(buf, hdr[4], 1, f), 1);
	fclose(f);
	regs = (struct unwind_regs){ hdr[0], hdr[1], hdr[2], hdr[3] };

	r->rows = fx.kw.rows_mem;
	r->nrows = fx.kw.rows_used;
	r->stride = fx.kw.row_stride;
	r->stack = buf;
	r->stack_start = hdr[1];
	r->stack_len = hdr[4];
	n = compare(&fx.w, r, fx.kp, &regs, KUNWIND_MAX_FRAMES, false, why);
	for (i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		if (cuts[i] >= hdr[4])
			continue;
		r->stack_len = cuts[i];
		compare(&fx.w, r, fx.kp, &regs, KUNWIND_MAX_FRAMES, false, NULL);
	}
	free(buf);
	free(r);
	return n;
}

static void test_real_chain(void **state)
{
	enum unwind_stop why;

	assert_true(replay_snapshot("chain", &why) >= 6);	/* c b a main libc... _start */
	assert_int_equal(why, UNWIND_STOP_END);
}

static void test_real_deep(void **state)
{
	enum unwind_stop why;

	assert_true(replay_snapshot("deep", &why) >= 600);
	assert_int_equal(why, UNWIND_STOP_END);
}

X86_TEST static void test_real_signal(void **state)
{
	enum unwind_stop why;

	assert_true(replay_snapshot("signal", &why) >= 5);
	assert_int_equal(why, UNWIND_STOP_END);
}

static void test_real_realign(void **state)
{
	enum unwind_stop why;

	assert_true(replay_snapshot("realign", &why) >= 4);
	assert_int_equal(why, UNWIND_STOP_END);
}

/* Runs last: both kinds of walk were met (synthetic rules, realign, frame pointers). */
X86_TEST static void test_bp_use_tracked(void **state)
{
	assert_true(bp_free_walks >= 10);
	assert_true(bp_bound_walks >= 1);
}

static bool never_behind(void *ctx, uint32_t pid)
{
	return false;
}

/* The row array is bounded: a table that does not fit is refused, visibly. */
/*
 * The row cache and the mapping hint only guess: filled with every kind of
 * wrong index (0, one past a table, near the end, random), the walks still
 * equal the oracle's.
 */
static void test_row_cache_poisoned(void **state)
{
#ifdef __x86_64__
	const char *snaps[] = { "chain", "deep", "signal", "realign" };
#else
	const char *snaps[] = { "chain", "deep", "realign", "chain" };
#endif
	enum unwind_stop why;
	unsigned int seed = 1;
	size_t s, i;

	for (s = 0; s < sizeof(snaps) / sizeof(snaps[0]); s++) {
		for (i = 0; i < KU_RCACHE; i++) {
			seed = seed * 1103515245u + 12345u;
			rcache[i] = s == 0 ? 0 : s == 1 ? i : s == 2 ? UINT32_MAX - i : seed >> 8;
		}
		last_hint = s == 0 ? 0 : s == 1 ? 1 : s == 2 ? UINT32_MAX : seed;
		assert_true(replay_snapshot(snaps[s], &why) >= 4);
		assert_int_equal(why, UNWIND_STOP_END);
	}
}

/*
 * The walk's search compares addresses below 2^63: [vsyscall], last in
 * every process's mappings, stays out of the kernel's list, or the mapping
 * before it (ld.so's, in most processes) was never found.
 */
static void test_build_proc_vsyscall(void **state)
{
	struct map maps[3] = {
		{ .start = 0x400000, .end = 0x401000 },
		{ .start = 0x7f0000000000, .end = 0x7f0000010000 },
		{ .start = 0xffffffffff600000, .end = 0xffffffffff601000 },
	};
	struct proc p = { .pid = 1, .maps = maps, .nr = 3, .cap = 3 };
	struct kunwind_proc *kp = calloc(1, sizeof(*kp));
	struct kunwind kw;

	assert_non_null(kp);
	assert_int_equal(kunwind_init(&kw, -1, -1, 16, 1), 0);
	assert_int_equal(kunwind_build_proc(&kw, &fx.bins, &p, kp), 2);
	assert_ptr_equal(ku_find_map(kp, 0x7f0000000010), &kp->maps[1]);
	assert_ptr_equal(ku_find_map(kp, 0x400010), &kp->maps[0]);
	assert_null(ku_find_map(kp, 0xffffffffff600400));
	kunwind_free(&kw);
	free(kp);
}

/*
 * The [uprobes] page is left out too: a uretprobe's trampoline there must be
 * in no mapping, for the walk to look it up in the return instances.
 */
static void test_build_proc_uprobes_page(void **state)
{
	struct map maps[3] = {
		{ .start = 0x400000, .end = 0x401000 },
		{ .start = 0x7f0000000000, .end = 0x7f0000001000, .uprobes = true },
		{ .start = 0x7f0000010000, .end = 0x7f0000020000 },
	};
	struct proc p = { .pid = 1, .maps = maps, .nr = 3, .cap = 3 };
	struct kunwind_proc *kp = calloc(1, sizeof(*kp));
	struct kunwind kw;

	(void)state;
	assert_non_null(kp);
	assert_int_equal(kunwind_init(&kw, -1, -1, 16, 1), 0);
	assert_int_equal(kunwind_build_proc(&kw, &fx.bins, &p, kp), 2);
	assert_null(ku_find_map(kp, 0x7f0000000000));
	assert_ptr_equal(ku_find_map(kp, 0x7f0000010010), &kp->maps[1]);
	kunwind_free(&kw);
	free(kp);
}

static void test_table_budget(void **state)
{
	struct kunwind kw;
	struct kunwind_proc *kp = calloc(1, sizeof(*kp));
	int i;

	assert_non_null(kp);
	if (!fx.w.nr)
		load_world();
	assert_int_equal(kunwind_init(&kw, -1, -1, 16, 1), 0);	/* 16 rows: libc cannot fit */
	assert_int_equal(kunwind_build_proc(&kw, &fx.bins, fx.proc, kp), (int)fx.proc->nr);
	assert_true(kw.tables_refused >= 1);
	for (i = 0; i < (int)kp->nr; i++)
		if (kp->maps[i].slot != KUNWIND_NO_SLOT && !(kp->maps[i].flags & KUNWIND_MAP_TABLE))
			assert_true(kp->maps[i].flags & KUNWIND_MAP_NO_TABLE);
	assert_true(kw.rows_used <= 16);
	kunwind_free(&kw);
	free(kp);
}

/*
 * Tables are dropped when no list in the kernel maps their binary any more,
 * and their rows are reused only after running programs are done (100 ms).
 */
static void test_tables_dropped_and_reused(void **state)
{
	struct kunwind kw;
	struct procs ps;
	size_t loaded, live;
	uint32_t self = getpid();

	if (!fx.w.nr)
		load_world();
	assert_int_equal(kunwind_init(&kw, -1, -1, 1 << 20, 16), 0);
	/* Two "processes" mapping the same binaries: one table each, shared. */
	fx.proc->pid = self;
	assert_int_equal(kunwind_sync_proc(&kw, &fx.bins, fx.proc), 0);
	loaded = kw.tables_loaded;
	live = kw.rows_live;
	assert_true(loaded >= 2);
	assert_true(live > 0);
	fx.proc->pid = self + 1000000;	/* not a real pid: refresh would drop it */
	assert_int_equal(kunwind_sync_proc(&kw, &fx.bins, fx.proc), 0);
	assert_int_equal(kw.tables_loaded, loaded);
	assert_int_equal(kw.rows_live, live);
	/* One goes: the tables stay for the other. */
	kunwind_forget(&kw, self + 1000000);
	assert_int_equal(kw.tables_dropped, 0);
	assert_int_equal(kw.rows_live, live);
	/* The last goes: dropped, rows retired, not yet reusable. */
	kunwind_forget(&kw, self);
	assert_int_equal(kw.tables_dropped, loaded);
	assert_int_equal(kw.rows_live, 0);
	assert_int_equal(kw.nfree, 0);
	/* Mapped again right away: loaded into fresh rows, never the retired ones. */
	fx.proc->pid = self;
	assert_int_equal(kunwind_sync_proc(&kw, &fx.bins, fx.proc), 0);
	assert_int_equal(kw.rows_used, 2 * live);
	kunwind_forget(&kw, self);
	/* 100 ms later the retired rows are free and reused. */
	usleep(120 * 1000);
	assert_int_equal(procs_init(&ps, &fx.bins), 0);
	kunwind_refresh(&kw, &fx.bins, &ps, never_behind, NULL);
	assert_true(kw.nfree >= 1);
	assert_int_equal(kunwind_sync_proc(&kw, &fx.bins, fx.proc), 0);
	assert_int_equal(kw.rows_used, 2 * live);	/* no growth */
	assert_int_equal(kw.rows_live, live);
	procs_free(&ps);
	kunwind_free(&kw);
}

/*
 * Rows live in chunks made as tables need them: a table no larger than a
 * chunk lies inside one (the walk looks its chunk up once per search), and
 * a chunk goes when its last table is freed, 100 ms after its last list.
 */
static void test_tables_in_chunks_freed_with_them(void **state)
{
	struct kunwind kw;
	struct procs ps;
	struct kunwind_proc *kp = calloc(1, sizeof(*kp));
	uint32_t self = getpid(), first, nr;
	size_t chunks;
	int i, n, big = 0;

	(void)state;
	assert_non_null(kp);
	if (!fx.w.nr)
		load_world();
	/* 64 chunks' worth of ids; start 100 rows short of a chunk's end. */
	assert_int_equal(kunwind_init(&kw, -1, -1, 64 * KUNWIND_CHUNK_ROWS, 64), 0);
	kw.rows_used = KUNWIND_CHUNK_ROWS - 100;
	fx.proc->pid = self;
	n = kunwind_build_proc(&kw, &fx.bins, fx.proc, kp);
	assert_true(n > 0);
	assert_int_equal(kunwind_sync_proc(&kw, &fx.bins, fx.proc), 0);
	for (i = 0; i < n; i++) {
		if (!(kp->maps[i].flags & KUNWIND_MAP_TABLE) || !kp->maps[i].row_nr)
			continue;
		first = kp->maps[i].row_first;
		nr = kp->maps[i].row_nr;
		big += nr > 100;
		if (nr <= KUNWIND_CHUNK_ROWS)
			assert_int_equal(first >> KUNWIND_CHUNK_BITS,
					 (first + nr - 1) >> KUNWIND_CHUNK_BITS);
	}
	/* One table at least did not fit before the first chunk's end. */
	assert_true(big >= 1);
	chunks = kw.chunks_live;
	assert_true(chunks >= 1 && chunks <= 4);
	/* Gone, and 100 ms later their chunks with them. */
	kunwind_forget(&kw, self);
	assert_int_equal(kw.chunks_live, chunks);
	usleep(120 * 1000);
	assert_int_equal(procs_init(&ps, &fx.bins), 0);
	kunwind_refresh(&kw, &fx.bins, &ps, never_behind, NULL);
	assert_int_equal(kw.chunks_live, 0);
	/* Loaded again: the chunks come back, no new row ids needed. */
	first = kw.rows_used;
	assert_int_equal(kunwind_sync_proc(&kw, &fx.bins, fx.proc), 0);
	assert_int_equal(kw.chunks_live, chunks);
	assert_int_equal(kw.rows_used, first);
	procs_free(&ps);
	kunwind_free(&kw);
	free(kp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#ifdef __x86_64__
		/* Rows written for x86-64's rules (arm64's: test_unwind.c, and real ones below). */
		cmocka_unit_test(test_synthetic_rules),
		cmocka_unit_test(test_synthetic_signal),
		cmocka_unit_test(test_synthetic_epilogue),
		cmocka_unit_test(test_synthetic_frame_pointer),
		cmocka_unit_test(test_synthetic_v8_frames),
		cmocka_unit_test(test_synthetic_v8_bytecode_offset),
		cmocka_unit_test(test_synthetic_v8_frameless_leaf),
#endif
		cmocka_unit_test(test_build_proc_vsyscall),
		cmocka_unit_test(test_build_proc_uprobes_page),
#ifdef __x86_64__
		cmocka_unit_test(test_synthetic_uretprobe),
#endif
		cmocka_unit_test(test_find_map),
		cmocka_unit_test(test_real_chain),
		cmocka_unit_test(test_real_deep),
#ifdef __x86_64__
		/* arm64's signal trampoline is the vDSO's: the kernel matrix checks it. */
		cmocka_unit_test(test_real_signal),
#endif
		cmocka_unit_test(test_real_realign),
		cmocka_unit_test(test_row_cache_poisoned),
		cmocka_unit_test(test_table_budget),
		cmocka_unit_test(test_tables_dropped_and_reused),
		cmocka_unit_test(test_tables_in_chunks_freed_with_them),
#ifdef __x86_64__
		cmocka_unit_test(test_bp_use_tracked),
#endif
	};

	return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
