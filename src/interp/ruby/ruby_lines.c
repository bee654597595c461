// SPDX-License-Identifier: GPL-2.0
/*
 * Exact lines of Ruby 2.7-3.4 frames: the insns_info entry of the
 * instruction a pc is in, found through the iseq's succinct index
 * (iseq.c, VM_INSN_INFO_TABLE_IMPL 2).  Both tables are copied when the
 * iseq is first named, while the process lives: a walk is named when user
 * space reads it, which can be after the process is gone (a walk defined
 * in its last turn, up to 100 ms before it exits), and a pc first seen
 * then would have no line if its tables were read only then: burn
 * without its line, the odd 1% of test_ruby33_cpu_samples, in 2 of 180
 * loaded runs (and some frame without its line in 4 of 80); 2 to 14 of
 * the last samples in each of 5 runs of rb_exit_lines.rb.
 * The copy is checked as a whole: a freed iseq's reused memory gives no
 * lines, never wrong ones.
 */
#include <stdlib.h>
#include <string.h>

#include "interp/ruby/ruby.h"

#define MAX_INSNS (1u << 22)
/* Bigger tables (a generated file's top level) are read from the target when a line is asked. */
#define MAX_COPY (256u << 10)

/* iseq.c: positions below 54 in 7-bit ranks, 9 per u64; then blocks of 512 positions. */
#define SUCC_IMM 54
#define SUCC_BLOCK 80		/* a u32 rank (padded), seven 9-bit small ranks, 8 bitmaps */

/*
 * The copy in interp_code.linetable: this header, the index, then the
 * entries' lines as runs, each the first entry (0-based) of a run of
 * entries on one line and that line.  3.3 gives most instructions an entry
 * of their own (node ids): Integer#times has 22 entries for its 43
 * positions, in 9 runs (its disasm's lines).
 */
struct rb_lines {
	uint32_t succ_len;	/* bytes of the index */
	uint32_t nlines;	/* entries; 0: the tables could not be read or failed the check */
	uint32_t nruns;
};

struct rb_line_run {
	uint32_t first;
	int32_t line;
};

/* Bytes of the succinct index of an iseq of max_pos positions (succ_index_table_create). */
static uint64_t succ_bytes(uint32_t max_pos)
{
	uint64_t imm = (max_pos < SUCC_IMM ? max_pos + 8 : SUCC_IMM) / 9;
	uint64_t blocks = max_pos < SUCC_IMM ? 0 : (max_pos - SUCC_IMM + 511) / 512;

	return imm * 8 + blocks * SUCC_BLOCK;
}

/* Where position x's rank is: the immediate part's word, or its block (512 positions). */
static uint64_t rank_off(uint32_t x)
{
	if (x < SUCC_IMM)
		return (x / 9) * 8;
	return 48 + (uint64_t)((x - SUCC_IMM) / 512) * SUCC_BLOCK;
}

/* succ_index_lookup() on the bytes at rank_off(x): 8 of them, or a block's 80. */
static uint32_t rank_at(const uint8_t *p, uint32_t x)
{
	uint32_t bit, sbi, r, small = 0;
	uint64_t v, bits;

	if (x < SUCC_IMM) {
		memcpy(&v, p, 8);
		return (v >> ((x % 9) * 7)) & 0x7f;
	}
	bit = (x - SUCC_IMM) % 512;
	sbi = bit / 64;
	memcpy(&r, p, 4);
	memcpy(&v, p + 8, 8);
	memcpy(&bits, p + 16 + sbi * 8, 8);
	if (sbi)
		small = (v >> ((sbi - 1) * 9)) & 0x1ff;
	return r + small + __builtin_popcountll(bits << (63 - bit % 64));
}

static uint32_t rank_bytes(uint32_t x)
{
	return x < SUCC_IMM ? 8 : SUCC_BLOCK;
}

bool rb_succ_rank(const uint8_t *t, size_t len, uint32_t x, uint32_t *rank)
{
	uint64_t off = rank_off(x);

	if (off + rank_bytes(x) > len)
		return false;
	*rank = rank_at(t + off, x);
	return true;
}

bool rb_succ_check(const uint8_t *t, size_t len, uint32_t max_pos, uint32_t nentries)
{
	uint32_t x, r, last = 0;

	if (!max_pos || len != succ_bytes(max_pos))
		return false;
	/*
	 * The first instruction always has an entry, every entry has a
	 * position below max_pos, and ranks never fall: the rank of the last
	 * position is the number of entries.  Positions past the immediate
	 * part are checked at each block's first and at the last.
	 */
	for (x = 0; x < max_pos; x = x + 1 < SUCC_IMM ? x + 1 : x < SUCC_IMM ? SUCC_IMM : x + 512) {
		if (!rb_succ_rank(t, len, x, &r) || r < last || r > nentries || (!x && r != 1))
			return false;
		last = r;
	}
	return rb_succ_rank(t, len, max_pos - 1, &r) && r >= last && r == nentries;
}

void rb_lines_copy(struct interp_code *c, const struct interp_ruby_layout *L)
{
	uint64_t info, succ, succ_len, entries;
	uint32_t iseq_size, size, i, n = 0;
	struct rb_line_run *runs;
	struct rb_lines *h;
	uint8_t *raw, *p;
	int32_t line;

	memcpy(&iseq_size, c->body + L->body_iseq_size, 4);
	memcpy(&info, c->body + L->body_insns_info, 8);
	memcpy(&size, c->body + L->body_insns_info_size, 4);
	memcpy(&succ, c->body + L->body_succ_index, 8);
	/* One entry needs no index (rb_lines_find does not look at it). */
	succ_len = size > 1 ? succ_bytes(iseq_size) : 0;
	entries = (uint64_t)size * L->insn_info_entry_size;
	if (iseq_size > MAX_INSNS || size > MAX_INSNS || succ_len + entries > MAX_COPY ||
	    L->insn_info_entry_size < 4)
		return;		/* left to rb_lines_find's reads of the target */
	h = calloc(1, sizeof(*h) + succ_len + (uint64_t)size * sizeof(*runs));
	raw = malloc(entries ? entries : 1);
	c->linetable = (uint8_t *)h;
	if (!h || !raw) {
		free(raw);
		return;
	}
	c->linetable_len = sizeof(*h);
	if (!size || interp_read(c->pid, info, raw, entries) ||
	    (succ_len && (interp_read(c->pid, succ, h + 1, succ_len) ||
			  !rb_succ_check((uint8_t *)(h + 1), succ_len, iseq_size, size)))) {
		free(raw);
		return;		/* nlines 0: no lines */
	}
	runs = (struct rb_line_run *)((uint8_t *)(h + 1) + succ_len);
	for (i = 0; i < size; i++) {
		memcpy(&line, raw + (uint64_t)i * L->insn_info_entry_size, 4);
		if (!n || runs[n - 1].line != line)
			runs[n++] = (struct rb_line_run){ .first = i, .line = line };
	}
	free(raw);
	h->succ_len = succ_len;
	h->nlines = size;
	h->nruns = n;
	c->linetable_len = sizeof(*h) + succ_len + (uint64_t)n * sizeof(*runs);
	p = realloc(h, c->linetable_len);
	if (p)
		c->linetable = p;
}

/* Entry idx's line (1-based), from the copy (its run) or the target. */
static bool entry_line(const struct interp_code *c, const struct interp_ruby_layout *L,
		       uint64_t info, uint32_t idx, int32_t *line)
{
	const struct rb_lines *h = (const struct rb_lines *)c->linetable;
	const struct rb_line_run *runs;
	uint32_t lo = 0, hi;

	if (!h)
		return !interp_read(c->pid, info + (uint64_t)(idx - 1) * L->insn_info_entry_size,
				    line, 4);
	runs = (const struct rb_line_run *)((const uint8_t *)(h + 1) + h->succ_len);
	hi = h->nruns;
	if (!hi)
		return false;
	/* The last run starting at or before the entry (the first starts at 0). */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (runs[mid].first <= idx - 1)
			lo = mid;
		else
			hi = mid;
	}
	*line = runs[lo].line;
	return true;
}

/* Rank of position x: from the copy, or from the target's index when it was too big. */
static bool rank_of(const struct interp_code *c, uint64_t succ, uint32_t x, uint32_t *rank)
{
	const struct rb_lines *h = (const struct rb_lines *)c->linetable;
	uint8_t buf[SUCC_BLOCK];

	if (h)
		return rb_succ_rank((const uint8_t *)(h + 1), h->succ_len, x, rank);
	if (interp_read(c->pid, succ + rank_off(x), buf, rank_bytes(x)))
		return false;
	*rank = rank_at(buf, x);
	return true;
}

int rb_lines_find(const struct interp_code *c, const struct interp_ruby_layout *L, uint64_t pc)
{
	const struct rb_lines *h = (const struct rb_lines *)c->linetable;
	uint64_t enc, info, succ;
	uint32_t iseq_size, size, idx = 1;
	int64_t pos;
	int32_t line;

	memcpy(&enc, c->body + L->body_iseq_encoded, 8);
	memcpy(&iseq_size, c->body + L->body_iseq_size, 4);
	memcpy(&info, c->body + L->body_insns_info, 8);
	memcpy(&size, c->body + L->body_insns_info_size, 4);
	memcpy(&succ, c->body + L->body_succ_index, 8);
	if (pc < enc || (pc - enc) % 8 || iseq_size > MAX_INSNS || size == 0 || size > MAX_INSNS ||
	    (h && h->nlines != size))
		return -1;
	/* calc_lineno(): the position of the instruction being run is one before pc. */
	pos = (int64_t)(pc - enc) / 8;
	if (pos > iseq_size)
		return -1;
	if (pos)
		pos--;
	if (size > 1 && (!rank_of(c, succ, pos, &idx) || idx < 1 || idx > size))
		return -1;
	if (!entry_line(c, L, info, idx, &line))
		return -1;
	return line > 0 ? line : -1;
}
