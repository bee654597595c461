// SPDX-License-Identifier: GPL-2.0
/*
 * DWARF CFI -> compact unwind table.
 *
 * One pass over a section interprets every FDE (its CIE's initial
 * instructions, then its own) into "pieces": per FDE, the rows it defines for
 * [pc_begin, pc_end).  Sections are processed in priority order (eh_frame
 * first); inside a section the FDE that starts first wins an overlap, and a
 * later section only fills addresses no earlier one covered.  Every covered
 * range is closed by a NO_FDE row so gaps never inherit a neighbour's rule.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "unwind/cfi.h"
#include "util/array.h"
#include "util/elf_util.h"

/*
 * DWARF register numbers of the frame pointer, the stack pointer and the
 * return address column (named after x86-64's registers throughout).
 */
#ifdef STITCH_ARCH_ARM64
#define REG_RBP		29	/* x29 */
#define REG_RSP		31	/* sp */
#define REG_RA		30	/* x30, the link register */
#else
#define REG_RBP		6
#define REG_RSP		7
#define REG_RA		16
#endif

/* Pointer encodings (LSB, .eh_frame). */
#define PE_OMIT		0xff
#define PE_FMT_MASK	0x0f
#define PE_APP_MASK	0x70
#define PE_INDIRECT	0x80
#define PE_ABSPTR	0x00
#define PE_ULEB128	0x01
#define PE_UDATA2	0x02
#define PE_UDATA4	0x03
#define PE_UDATA8	0x04
#define PE_SLEB128	0x09
#define PE_SDATA2	0x0a
#define PE_SDATA4	0x0b
#define PE_SDATA8	0x0c
#define PE_PCREL	0x10
#define PE_DATAREL	0x30

/* DW_CFA opcodes. */
#define CFA_ADVANCE_LOC		0x40
#define CFA_OFFSET		0x80
#define CFA_RESTORE		0xc0
#define CFA_NOP			0x00
#define CFA_SET_LOC		0x01
#define CFA_ADVANCE_LOC1	0x02
#define CFA_ADVANCE_LOC2	0x03
#define CFA_ADVANCE_LOC4	0x04
#define CFA_OFFSET_EXTENDED	0x05
#define CFA_RESTORE_EXTENDED	0x06
#define CFA_UNDEFINED		0x07
#define CFA_SAME_VALUE		0x08
#define CFA_REGISTER		0x09
#define CFA_REMEMBER_STATE	0x0a
#define CFA_RESTORE_STATE	0x0b
#define CFA_DEF_CFA		0x0c
#define CFA_DEF_CFA_REGISTER	0x0d
#define CFA_DEF_CFA_OFFSET	0x0e
#define CFA_DEF_CFA_EXPRESSION	0x0f
#define CFA_EXPRESSION		0x10
#define CFA_OFFSET_EXTENDED_SF	0x11
#define CFA_DEF_CFA_SF		0x12
#define CFA_DEF_CFA_OFFSET_SF	0x13
#define CFA_VAL_OFFSET		0x14
#define CFA_VAL_OFFSET_SF	0x15
#define CFA_VAL_EXPRESSION	0x16
/*
 * AArch64: the return address's signing state flips (pointer
 * authentication, paciasp/autiasp); the unwinder strips signatures anyway.
 * (SPARC's DW_CFA_GNU_window_save on that architecture.)
 */
#define CFA_AARCH64_NEGATE_RA_STATE 0x2d
#define CFA_GNU_ARGS_SIZE	0x2e
#define CFA_GNU_NEG_OFFSET_EXT	0x2f

/* DW_OP opcodes used by the two CFA expressions we recognize. */
#define OP_DEREF	0x06
#define OP_AND		0x1a
#define OP_PLUS		0x22
#define OP_SHL		0x24
#define OP_GE		0x2a
#define OP_LIT0		0x30
#define OP_LIT3		0x33
#define OP_LIT15	0x3f
#define OP_LIT31	0x4f
#define OP_BREG0	0x70

/* ---- bounded reader ---------------------------------------------------- */

struct reader {
	const uint8_t *p, *end;
};

static bool rd_bytes(struct reader *r, void *dst, size_t n)
{
	if ((size_t)(r->end - r->p) < n)
		return false;
	memcpy(dst, r->p, n);
	r->p += n;
	return true;
}

static bool rd_u8(struct reader *r, uint8_t *v)
{
	return rd_bytes(r, v, 1);
}

static bool rd_uint(struct reader *r, size_t n, uint64_t *v)
{
	uint8_t b[8];
	size_t i;

	if (n > 8 || !rd_bytes(r, b, n))
		return false;
	*v = 0;
	for (i = 0; i < n; i++)	/* little endian, whatever the host */
		*v |= (uint64_t)b[i] << (8 * i);
	return true;
}

static bool rd_sint(struct reader *r, size_t n, int64_t *v)
{
	uint64_t u;

	if (!rd_uint(r, n, &u))
		return false;
	if (n < 8 && (u >> (8 * n - 1)) & 1)
		u |= ~0ull << (8 * n);
	*v = (int64_t)u;
	return true;
}

/* LEB128 values wider than 64 bits are refused rather than truncated. */
static bool rd_uleb(struct reader *r, uint64_t *v)
{
	unsigned int shift = 0;
	uint8_t b;

	*v = 0;
	do {
		if (!rd_u8(r, &b))
			return false;
		if (shift >= 64 || (shift == 63 && (b & 0x7e)))
			return false;
		*v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	return true;
}

static bool rd_sleb(struct reader *r, int64_t *v)
{
	unsigned int shift = 0;
	uint64_t u = 0;
	uint8_t b;

	do {
		if (!rd_u8(r, &b) || shift >= 64)
			return false;
		u |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (shift < 64 && (b & 0x40))
		u |= ~0ull << shift;
	*v = (int64_t)u;
	return true;
}

static bool rd_skip(struct reader *r, uint64_t n)
{
	if ((uint64_t)(r->end - r->p) < n)
		return false;
	r->p += n;
	return true;
}

/* ---- growable arrays ---------------------------------------------------- */

/* qsort() must not see NULL, even with n == 0. */
static void sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

/* ---- builder: rows of one section, then the merged table ---------------- */

/*
 * A row while building, its whole pc and whether it only closes a range
 * (an UNKNOWN row at an FDE's end), in 16 bytes: the pc's low 32 bits in
 * r.pc, the high ones in hi above BROW_CLOSING.  With the pc in a word of
 * its own and the flag beside it, 24: a large binary's section rows and
 * output rows are both alive while the output is made (libLLVM-14: 948,856
 * rows in the end).
 */
struct brow {
	struct stitch_unwind_row r;
	uint32_t hi;
};
#define BROW_CLOSING 1u
/* Highest pc held as itself; above, as this (past 4 GiB: dropped at the end anyway). */
#define BROW_PC_MAX ((1ull << 63) - 1)

static inline uint64_t brow_pc(const struct brow *x)
{
	return (uint64_t)(x->hi >> 1) << 32 | x->r.pc;
}

static inline bool brow_closing(const struct brow *x)
{
	return x->hi & BROW_CLOSING;
}

struct fde_span {
	uint64_t start, end;
	size_t first, nr;		/* rows in builder.rows */
	size_t seq;			/* order in the section: stable sort */
};

struct interval {
	uint64_t lo, hi;
};

struct builder {
	/* rows and spans of the section being parsed */
	struct brow *rows;
	size_t nr_rows, cap_rows;
	struct fde_span *spans;
	size_t nr_spans, cap_spans;
	/* output so far, and what earlier sections covered */
	struct brow *out;
	size_t nr_out, cap_out;
	struct interval *covered;
	size_t nr_covered, cap_covered;
	struct interval *fresh;		/* covered by the current section */
	size_t nr_fresh, cap_fresh;
	size_t total_rows;		/* work cap across all sections */
	struct cfi_stats stats;
};

static void builder_free(struct builder *b)
{
	free(b->rows);
	free(b->spans);
	free(b->out);
	free(b->covered);
	free(b->fresh);
	memset(b, 0, sizeof(*b));
}

/* One brow more at the end of *arr (*nr used, *cap room): 0 or -errno. */
static int push_brow(struct brow **arr, size_t *nr, size_t *cap, uint64_t pc,
		     const struct stitch_unwind_row *r, bool closing)
{
	int err = array_reserve((void **)arr, cap, *nr + 1, sizeof(**arr), 256);

	if (err)
		return err;
	if (pc > BROW_PC_MAX)
		pc = BROW_PC_MAX;
	(*arr)[*nr].r = *r;
	(*arr)[*nr].r.pc = (uint32_t)pc;
	(*arr)[*nr].hi = (uint32_t)(pc >> 32) << 1 | (closing ? BROW_CLOSING : 0);
	(*nr)++;
	return 0;
}

static int push_row(struct builder *b, uint64_t pc, const struct stitch_unwind_row *r)
{
	if (++b->total_rows > CFI_MAX_ROWS)
		return -E2BIG;
	return push_brow(&b->rows, &b->nr_rows, &b->cap_rows, pc, r, false);
}

static int push_out(struct builder *b, uint64_t pc, const struct stitch_unwind_row *r,
		    bool closing)
{
	if (b->nr_out >= CFI_MAX_ROWS)
		return -E2BIG;
	return push_brow(&b->out, &b->nr_out, &b->cap_out, pc, r, closing);
}

static int push_interval(struct interval **arr, size_t *nr, size_t *cap, uint64_t lo,
			 uint64_t hi)
{
	int err = array_reserve((void **)arr, cap, *nr + 1, sizeof(**arr), 256);

	if (err)
		return err;
	(*arr)[*nr].lo = lo;
	(*arr)[*nr].hi = hi;
	(*nr)++;
	return 0;
}

/* ---- CIE ---------------------------------------------------------------- */

enum reg_kind {
	REG_DEFAULT = 0,	/* no rule given: callee-saved, unchanged */
	REG_UNDEF,
	REG_SAME,
	REG_AT_CFA,		/* saved at CFA + off */
	REG_AT_RBP,		/* saved at rbp + off (DW_OP_breg6 off) */
	REG_OTHER,		/* anything the row format cannot express */
};

enum cfa_kind {
	CFA_NONE = 0,		/* not defined yet */
	CFA_REG,
	CFA_PLT,
	CFA_DEREF_RBP,
	CFA_OTHER,
};

struct reg_rule {
	uint8_t kind;
	int64_t off;
};

struct cfi_state {
	uint8_t cfa_kind;
	uint64_t cfa_reg;
	int64_t cfa_off;
	int64_t plt_threshold;
	struct reg_rule rbp, rsp, ra;
};

struct cie {
	size_t offset;			/* in the section: cache key */
	uint64_t code_align;
	int64_t data_align;
	uint64_t ra_col;
	uint8_t fde_enc;
	uint8_t addr_size;
	bool has_z;
	bool signal;
	bool init_ok;			/* initial instructions understood */
	struct cfi_state init;
};

/*
 * Recently parsed CIEs.  Most sections have one to three CIEs, so this makes
 * CIE parsing (and running its initial instructions) rare; a hostile section
 * that defeats it still costs at most CFI_MAX_CIE_OPS per FDE.
 */
#define CIE_CACHE_SIZE	8

struct section_ctx {
	const struct cfi_section *sec;
	struct builder *b;
	struct cie cies[CIE_CACHE_SIZE];
	bool cie_ok[CIE_CACHE_SIZE];	/* entry holds a usable CIE */
	size_t nr_cies;			/* entries filled so far (round robin) */
};

/* One length-prefixed entry (CIE or FDE) of the section. */
struct entry {
	size_t offset;			/* of the length field */
	size_t id_offset;		/* of the CIE id / CIE pointer field */
	bool dwarf64;
	uint64_t id;
	struct reader body;		/* after the id, up to the entry end */
	size_t next;			/* offset of the following entry */
	bool terminator;
	bool bad;			/* too short for its id: skip it */
};

/* -EINVAL when the entry's length does not fit in the section. */
static int read_entry(const struct cfi_section *sec, size_t off, struct entry *e)
{
	struct reader r = { sec->data + off, sec->data + sec->size };
	uint64_t len;
	size_t id_size;

	memset(e, 0, sizeof(*e));
	e->offset = off;
	if (!rd_uint(&r, 4, &len))
		return -EINVAL;
	if (len == 0) {
		e->terminator = true;
		e->next = off + 4;
		return 0;
	}
	if (len == 0xffffffffull) {
		if (!rd_uint(&r, 8, &len))
			return -EINVAL;
		e->dwarf64 = true;
	} else if (len >= 0xfffffff0ull) {
		return -EINVAL;		/* reserved initial-length values */
	}
	if (len > (uint64_t)(r.end - r.p))
		return -EINVAL;
	e->next = (size_t)(r.p - sec->data) + len;
	e->id_offset = (size_t)(r.p - sec->data);
	id_size = e->dwarf64 ? 8 : 4;
	r.end = r.p + len;
	if (!rd_uint(&r, id_size, &e->id))
		e->bad = true;
	e->body = r;
	return 0;
}

static bool entry_is_cie(const struct cfi_section *sec, const struct entry *e)
{
	if (sec->is_eh_frame)
		return e->id == 0;
	return e->dwarf64 ? e->id == ~0ull : e->id == 0xffffffffull;
}

/* Size in bytes of a pointer encoding's value format; 0 for LEB128, -1 bad. */
static int enc_size(uint8_t enc, uint8_t addr_size)
{
	switch (enc & PE_FMT_MASK) {
	case PE_ABSPTR:
		return addr_size;
	case PE_UDATA2:
	case PE_SDATA2:
		return 2;
	case PE_UDATA4:
	case PE_SDATA4:
		return 4;
	case PE_UDATA8:
	case PE_SDATA8:
		return 8;
	case PE_ULEB128:
	case PE_SLEB128:
		return 0;
	default:
		return -1;
	}
}

/* Read a value in the encoding's format only (no application). */
static bool rd_enc_value(struct reader *r, uint8_t enc, uint8_t addr_size, uint64_t *v)
{
	int size = enc_size(enc, addr_size);
	int64_t s;

	if (size < 0)
		return false;
	switch (enc & PE_FMT_MASK) {
	case PE_ULEB128:
		return rd_uleb(r, v);
	case PE_SLEB128:
		if (!rd_sleb(r, &s))
			return false;
		*v = (uint64_t)s;
		return true;
	case PE_SDATA2:
	case PE_SDATA4:
	case PE_SDATA8:
		if (!rd_sint(r, size, &s))
			return false;
		*v = (uint64_t)s;
		return true;
	default:
		return rd_uint(r, size, v);
	}
}

/*
 * Read an encoded pointer that must be a code address (FDE pc_begin,
 * DW_CFA_set_loc).  Only absolute, pcrel and (with a known base) datarel
 * are accepted: anything else would place rows at a guessed address.
 */
static bool rd_code_ptr(const struct cfi_section *sec, struct reader *r, uint8_t enc,
			uint8_t addr_size, uint64_t *v)
{
	uint64_t field = sec->vaddr + (uint64_t)(r->p - sec->data);

	if (enc == PE_OMIT || (enc & PE_INDIRECT))
		return false;
	if (!rd_enc_value(r, enc, addr_size, v))
		return false;
	switch (enc & PE_APP_MASK) {
	case 0:
		return true;
	case PE_PCREL:
		*v += field;
		return true;
	case PE_DATAREL:
		if (!sec->data_base)
			return false;
		*v += sec->data_base;
		return true;
	default:
		return false;
	}
}

/* Skip a personality pointer: any format, indirect allowed, never followed. */
static bool skip_enc_ptr(struct reader *r, uint8_t enc, uint8_t addr_size)
{
	uint64_t v;

	if (enc == PE_OMIT)
		return true;
	return rd_enc_value(r, enc, addr_size, &v);
}

/* Augmentation string and data.  false: CIE unusable. */
static bool parse_augmentation(struct reader *r, const char *aug, size_t aug_len,
			       struct cie *c)
{
	struct reader data;
	uint64_t len;
	size_t i;
	uint8_t enc;

	if (aug_len == 0)
		return true;
	/* "eh" (pre-"z" gcc) carries a pointer we cannot size; no other form either. */
	if (aug[0] != 'z')
		return false;
	c->has_z = true;
	if (!rd_uleb(r, &len) || (uint64_t)(r->end - r->p) < len)
		return false;
	data.p = r->p;
	data.end = r->p + len;
	r->p += len;
	for (i = 1; i < aug_len; i++) {
		switch (aug[i]) {
		case 'L':
			if (!rd_u8(&data, &enc))
				return false;
			break;
		case 'P':
			if (!rd_u8(&data, &enc) || !skip_enc_ptr(&data, enc, c->addr_size))
				return false;
			break;
		case 'R':
			if (!rd_u8(&data, &c->fde_enc))
				return false;
			break;
		case 'S':
			c->signal = true;
			break;
		default:
			/*
			 * Unknown letter: its data size is unknown, so later
			 * letters ('R'!) could not be trusted.  Refuse.
			 */
			return false;
		}
	}
	return true;
}

static void exec_cie_initial(struct cie *c, const uint8_t *p, const uint8_t *end);

/* Parse the CIE at `off`.  false: not a CIE or unusable. */
static bool parse_cie(const struct cfi_section *sec, size_t off, struct cie *c)
{
	struct entry e;
	struct reader *r = &e.body;
	const char *aug;
	size_t aug_len;
	uint8_t version, seg_size = 0, ra8;

	if (off >= sec->size || read_entry(sec, off, &e) || e.terminator || e.bad ||
	    !entry_is_cie(sec, &e))
		return false;
	memset(c, 0, sizeof(*c));
	c->offset = off;
	c->addr_size = 8;
	c->fde_enc = PE_ABSPTR;
	if (!rd_u8(r, &version))
		return false;
	if (version != 1 && version != 3 && version != 4)
		return false;
	if (sec->is_eh_frame && version == 4)
		return false;
	aug = (const char *)r->p;
	aug_len = strnlen(aug, r->end - r->p);
	if (aug_len == (size_t)(r->end - r->p))
		return false;	/* unterminated */
	r->p += aug_len + 1;
	if (version == 4) {
		if (!rd_u8(r, &c->addr_size) || !rd_u8(r, &seg_size))
			return false;
		if ((c->addr_size != 4 && c->addr_size != 8) || seg_size != 0)
			return false;
	}
	if (!rd_uleb(r, &c->code_align) || !rd_sleb(r, &c->data_align))
		return false;
	if (version == 1) {
		if (!rd_u8(r, &ra8))
			return false;
		c->ra_col = ra8;
	} else if (!rd_uleb(r, &c->ra_col)) {
		return false;
	}
	if (!parse_augmentation(r, aug, aug_len, c))
		return false;
	exec_cie_initial(c, r->p, r->end);
	return true;
}

/* ---- CFA program interpreter ------------------------------------------- */

struct interp {
	struct builder *b;
	const struct cfi_section *sec;
	const struct cie *cie;
	struct cfi_state cur;
	struct cfi_state stack[CFI_MAX_STATE_DEPTH];
	unsigned int depth;
	uint64_t loc, end;		/* current pc, FDE end */
	bool in_cie;			/* no rows, no restore while in the CIE */
	int err;			/* why STEP_FATAL */
};

enum step_result {
	STEP_OK,
	STEP_DONE,		/* advanced past the FDE end */
	STEP_UNKNOWN,		/* unsupported or malformed: UNKNOWN from loc on */
	STEP_FATAL,		/* out of memory or rows */
};

static bool fits_s16(int64_t v)
{
	return v >= INT16_MIN && v <= INT16_MAX;
}

/* What the compact row format can say about the current state. */
static struct stitch_unwind_row state_to_row(const struct cie *c, const struct cfi_state *s)
{
	struct stitch_unwind_row row = { 0 };
	struct stitch_unwind_row unknown = { 0 };

	if (c->ra_col != REG_RA)
		return unknown;
	if (s->ra.kind == REG_UNDEF) {
		row.cfa_rule = STITCH_CFA_END;
		return row;
	}
#ifdef STITCH_ARCH_ARM64
	/* In x30 (no rule: a leaf, a prologue), or saved in the frame. */
	if (s->ra.kind == REG_AT_CFA && s->ra.off != 0 && fits_s16(s->ra.off))
		row.ra_offset = (int16_t)s->ra.off;
	else if (s->ra.kind != REG_DEFAULT && s->ra.kind != REG_SAME)
		return unknown;
	if (s->rsp.kind != REG_DEFAULT)
		return unknown;
#else
	if (s->ra.kind != REG_AT_CFA || s->ra.off != -8 || s->rsp.kind != REG_DEFAULT)
		return unknown;
#endif
	switch (s->rbp.kind) {
	case REG_DEFAULT:
	case REG_SAME:
		row.rbp_rule = STITCH_RBP_SAME;
		break;
	case REG_AT_CFA:
	case REG_AT_RBP:
		if (!fits_s16(s->rbp.off))
			return unknown;
		row.rbp_rule = s->rbp.kind == REG_AT_CFA ? STITCH_RBP_AT_CFA : STITCH_RBP_AT_RBP;
		row.rbp_offset = (int16_t)s->rbp.off;
		break;
	default:
		return unknown;
	}
	if (!fits_s16(s->cfa_off))
		return unknown;
	row.cfa_offset = (int16_t)s->cfa_off;
	switch (s->cfa_kind) {
	case CFA_REG:
		if (s->cfa_reg == REG_RSP)
			row.cfa_rule = STITCH_CFA_RSP;
		else if (s->cfa_reg == REG_RBP)
			row.cfa_rule = STITCH_CFA_RBP;
		else
			return unknown;
		break;
	case CFA_PLT:
		/* rbp_offset holds the threshold: rbp must be untouched. */
		if (row.rbp_rule != STITCH_RBP_SAME)
			return unknown;
		row.cfa_rule = STITCH_CFA_PLT;
		row.rbp_offset = (int16_t)s->plt_threshold;
		break;
	case CFA_DEREF_RBP:
		row.cfa_rule = STITCH_CFA_DEREF_RBP;
		break;
	default:
		return unknown;
	}
	return row;
}

static int emit_state(struct interp *in)
{
	struct stitch_unwind_row row = state_to_row(in->cie, &in->cur);

	in->err = push_row(in->b, in->loc, &row);
	return in->err;
}

static int emit_unknown(struct interp *in)
{
	struct stitch_unwind_row row = { 0 };

	return push_row(in->b, in->loc, &row);
}

/* Close the row at loc and move to new_loc (> loc). */
static enum step_result advance_to(struct interp *in, uint64_t new_loc)
{
	if (in->in_cie)
		return STEP_UNKNOWN;	/* a CIE cannot advance */
	if (new_loc < in->loc)
		return STEP_UNKNOWN;
	if (new_loc == in->loc)
		return STEP_OK;
	if (emit_state(in))
		return STEP_FATAL;
	if (new_loc >= in->end)
		return STEP_DONE;
	in->loc = new_loc;
	return STEP_OK;
}

static enum step_result advance_by(struct interp *in, uint64_t delta)
{
	uint64_t bytes;

	if (__builtin_mul_overflow(delta, in->cie->code_align, &bytes) ||
	    bytes >= in->end - in->loc) {
		/* Past the end (or absurd): the current row runs to the end. */
		if (in->in_cie)
			return STEP_UNKNOWN;
		return emit_state(in) ? STEP_FATAL : STEP_DONE;
	}
	return advance_to(in, in->loc + bytes);
}

static struct reg_rule *tracked_reg(struct cfi_state *s, const struct cie *c, uint64_t reg)
{
	if (reg == REG_RBP)
		return &s->rbp;
	if (reg == REG_RSP)
		return &s->rsp;
	if (reg == c->ra_col)
		return &s->ra;
	return NULL;
}

static bool scale_data(const struct cie *c, int64_t factored, int64_t *off)
{
	return !__builtin_mul_overflow(factored, c->data_align, off);
}

static enum step_result set_reg(struct interp *in, uint64_t reg, uint8_t kind, int64_t off)
{
	struct reg_rule *rr = tracked_reg(&in->cur, in->cie, reg);

	if (rr) {
		rr->kind = kind;
		rr->off = off;
	}
	return STEP_OK;
}

static enum step_result restore_reg(struct interp *in, uint64_t reg)
{
	struct cfi_state init = in->cie->init;
	struct reg_rule *rr = tracked_reg(&in->cur, in->cie, reg);

	if (in->in_cie)
		return STEP_UNKNOWN;
	if (rr)
		*rr = *tracked_reg(&init, in->cie, reg);
	return STEP_OK;
}

static bool rd_block(struct reader *r, struct reader *block)
{
	uint64_t len;

	if (!rd_uleb(r, &len) || (uint64_t)(r->end - r->p) < len)
		return false;
	block->p = r->p;
	block->end = r->p + len;
	r->p += len;
	return true;
}

/* DW_OP_bregN off, nothing else: the register and offset. */
static bool match_breg(struct reader *e, unsigned int reg, int64_t *off)
{
	uint8_t op;

	return rd_u8(e, &op) && op == OP_BREG0 + reg && rd_sleb(e, off);
}

static bool match_op(struct reader *e, uint8_t want)
{
	uint8_t op;

	return rd_u8(e, &op) && op == want;
}

/* GNU ld's .plt: breg7 N; breg16 0; lit15; and; litK; ge; lit3; shl; plus */
static bool match_plt_expr(struct reader e, int64_t *n, int64_t *k)
{
	int64_t zero;
	uint8_t lit;

	if (!match_breg(&e, REG_RSP, n) || !match_breg(&e, REG_RA, &zero) || zero != 0)
		return false;
	if (!match_op(&e, OP_LIT15) || !match_op(&e, OP_AND) || !rd_u8(&e, &lit))
		return false;
	if (lit < OP_LIT0 || lit > OP_LIT31)
		return false;
	*k = lit - OP_LIT0;
	return match_op(&e, OP_GE) && match_op(&e, OP_LIT3) && match_op(&e, OP_SHL) &&
	       match_op(&e, OP_PLUS) && e.p == e.end;
}

/* gcc's stack realignment (DRAP): breg6 N; deref */
static bool match_deref_rbp_expr(struct reader e, int64_t *n)
{
	return match_breg(&e, REG_RBP, n) && match_op(&e, OP_DEREF) && e.p == e.end;
}

static enum step_result op_def_cfa_expression(struct interp *in, struct reader *r)
{
	struct reader block;
	int64_t n, k;

	if (!rd_block(r, &block))
		return STEP_UNKNOWN;
	if (match_plt_expr(block, &n, &k)) {
		in->cur.cfa_kind = CFA_PLT;
		in->cur.cfa_off = n;
		in->cur.plt_threshold = k;
	} else if (match_deref_rbp_expr(block, &n)) {
		in->cur.cfa_kind = CFA_DEREF_RBP;
		in->cur.cfa_off = n;
	} else {
		in->cur.cfa_kind = CFA_OTHER;
	}
	return STEP_OK;
}

static enum step_result op_expression(struct interp *in, struct reader *r, bool is_val)
{
	struct reader block, e;
	uint64_t reg;
	int64_t n;

	if (!rd_uleb(r, &reg) || !rd_block(r, &block))
		return STEP_UNKNOWN;
	e = block;
	/* rbp saved at rbp + N: the realignment prologue's one form. */
	if (!is_val && reg == REG_RBP && match_breg(&e, REG_RBP, &n) && e.p == e.end)
		return set_reg(in, reg, REG_AT_RBP, n);
	return set_reg(in, reg, REG_OTHER, 0);
}

static enum step_result op_def_cfa(struct interp *in, uint64_t reg, int64_t off)
{
	in->cur.cfa_kind = CFA_REG;
	in->cur.cfa_reg = reg;
	in->cur.cfa_off = off;
	return STEP_OK;
}

/* Opcodes with the operand in the low 6 bits. */
static enum step_result exec_primary(struct interp *in, struct reader *r, uint8_t op)
{
	uint64_t reg = op & 0x3f, u;
	int64_t off;

	switch (op & 0xc0) {
	case CFA_ADVANCE_LOC:
		return advance_by(in, reg);
	case CFA_OFFSET:
		if (!rd_uleb(r, &u) || u > INT64_MAX || !scale_data(in->cie, (int64_t)u, &off))
			return STEP_UNKNOWN;
		return set_reg(in, reg, REG_AT_CFA, off);
	default:	/* CFA_RESTORE */
		return restore_reg(in, reg);
	}
}

static enum step_result exec_state_op(struct interp *in, uint8_t op)
{
	if (in->in_cie)
		return STEP_UNKNOWN;
	if (op == CFA_REMEMBER_STATE) {
		if (in->depth >= CFI_MAX_STATE_DEPTH)
			return STEP_UNKNOWN;
		in->stack[in->depth++] = in->cur;
		return STEP_OK;
	}
	if (in->depth == 0)
		return STEP_UNKNOWN;
	/*
	 * DW_CFA_restore_state restores register rules but, per DWARF 5,
	 * not the CFA rule... except every producer relies on it restoring
	 * the CFA too (gcc emits it after epilogues that moved the CFA), and
	 * readers (libgcc, libunwind, elfutils) restore the whole row.
	 */
	in->cur = in->stack[--in->depth];
	return STEP_OK;
}

static enum step_result exec_offset_op(struct interp *in, struct reader *r, uint8_t op)
{
	uint64_t reg, u;
	int64_t s, off;

	if (!rd_uleb(r, &reg))
		return STEP_UNKNOWN;
	if (op == CFA_OFFSET_EXTENDED_SF || op == CFA_VAL_OFFSET_SF) {
		if (!rd_sleb(r, &s))
			return STEP_UNKNOWN;
	} else {
		if (!rd_uleb(r, &u) || u > INT64_MAX)
			return STEP_UNKNOWN;
		s = (int64_t)u;
		if (op == CFA_GNU_NEG_OFFSET_EXT)
			s = -s;
	}
	if (!scale_data(in->cie, s, &off))
		return STEP_UNKNOWN;
	if (op == CFA_VAL_OFFSET || op == CFA_VAL_OFFSET_SF)
		return set_reg(in, reg, REG_OTHER, 0);
	return set_reg(in, reg, REG_AT_CFA, off);
}

static enum step_result exec_cfa_op(struct interp *in, struct reader *r, uint8_t op)
{
	uint64_t reg, u;
	int64_t s, off;

	switch (op) {
	case CFA_DEF_CFA:
		if (!rd_uleb(r, &reg) || !rd_uleb(r, &u) || u > INT64_MAX)
			return STEP_UNKNOWN;
		return op_def_cfa(in, reg, (int64_t)u);
	case CFA_DEF_CFA_SF:
		if (!rd_uleb(r, &reg) || !rd_sleb(r, &s) || !scale_data(in->cie, s, &off))
			return STEP_UNKNOWN;
		return op_def_cfa(in, reg, off);
	case CFA_DEF_CFA_REGISTER:
		if (!rd_uleb(r, &reg) || in->cur.cfa_kind != CFA_REG)
			return STEP_UNKNOWN;
		in->cur.cfa_reg = reg;
		return STEP_OK;
	case CFA_DEF_CFA_OFFSET:
		if (!rd_uleb(r, &u) || u > INT64_MAX || in->cur.cfa_kind != CFA_REG)
			return STEP_UNKNOWN;
		in->cur.cfa_off = (int64_t)u;
		return STEP_OK;
	case CFA_DEF_CFA_OFFSET_SF:
		if (!rd_sleb(r, &s) || !scale_data(in->cie, s, &off) ||
		    in->cur.cfa_kind != CFA_REG)
			return STEP_UNKNOWN;
		in->cur.cfa_off = off;
		return STEP_OK;
	default:	/* CFA_DEF_CFA_EXPRESSION */
		return op_def_cfa_expression(in, r);
	}
}

static enum step_result exec_loc_op(struct interp *in, struct reader *r, uint8_t op)
{
	uint64_t v;

	switch (op) {
	case CFA_SET_LOC:
		if (in->in_cie)
			return STEP_UNKNOWN;
		if (!rd_code_ptr(in->sec, r, in->cie->fde_enc, in->cie->addr_size, &v))
			return STEP_UNKNOWN;
		if (v >= in->end && !in->in_cie && v >= in->loc)
			return emit_state(in) ? STEP_FATAL : STEP_DONE;
		return advance_to(in, v);
	case CFA_ADVANCE_LOC1:
		return rd_uint(r, 1, &v) ? advance_by(in, v) : STEP_UNKNOWN;
	case CFA_ADVANCE_LOC2:
		return rd_uint(r, 2, &v) ? advance_by(in, v) : STEP_UNKNOWN;
	default:	/* CFA_ADVANCE_LOC4 */
		return rd_uint(r, 4, &v) ? advance_by(in, v) : STEP_UNKNOWN;
	}
}

static enum step_result exec_op(struct interp *in, struct reader *r)
{
	uint64_t reg, u;
	uint8_t op;

	if (!rd_u8(r, &op))
		return STEP_UNKNOWN;
	if (op & 0xc0)
		return exec_primary(in, r, op);
	switch (op) {
	case CFA_NOP:
		return STEP_OK;
	case CFA_SET_LOC:
	case CFA_ADVANCE_LOC1:
	case CFA_ADVANCE_LOC2:
	case CFA_ADVANCE_LOC4:
		return exec_loc_op(in, r, op);
	case CFA_OFFSET_EXTENDED:
	case CFA_OFFSET_EXTENDED_SF:
	case CFA_VAL_OFFSET:
	case CFA_VAL_OFFSET_SF:
	case CFA_GNU_NEG_OFFSET_EXT:
		return exec_offset_op(in, r, op);
	case CFA_RESTORE_EXTENDED:
		return rd_uleb(r, &reg) ? restore_reg(in, reg) : STEP_UNKNOWN;
	case CFA_UNDEFINED:
		return rd_uleb(r, &reg) ? set_reg(in, reg, REG_UNDEF, 0) : STEP_UNKNOWN;
	case CFA_SAME_VALUE:
		return rd_uleb(r, &reg) ? set_reg(in, reg, REG_SAME, 0) : STEP_UNKNOWN;
	case CFA_REGISTER:
		if (!rd_uleb(r, &reg) || !rd_uleb(r, &u))
			return STEP_UNKNOWN;
		return set_reg(in, reg, reg == u ? REG_SAME : REG_OTHER, 0);
	case CFA_REMEMBER_STATE:
	case CFA_RESTORE_STATE:
		return exec_state_op(in, op);
	case CFA_DEF_CFA:
	case CFA_DEF_CFA_SF:
	case CFA_DEF_CFA_REGISTER:
	case CFA_DEF_CFA_OFFSET:
	case CFA_DEF_CFA_OFFSET_SF:
	case CFA_DEF_CFA_EXPRESSION:
		return exec_cfa_op(in, r, op);
	case CFA_EXPRESSION:
		return op_expression(in, r, false);
	case CFA_VAL_EXPRESSION:
		return op_expression(in, r, true);
	case CFA_GNU_ARGS_SIZE:
		return rd_uleb(r, &u) ? STEP_OK : STEP_UNKNOWN;
#ifdef STITCH_ARCH_ARM64
	case CFA_AARCH64_NEGATE_RA_STATE:
		return STEP_OK;
#endif
	default:
		return STEP_UNKNOWN;
	}
}

static void exec_cie_initial(struct cie *c, const uint8_t *p, const uint8_t *end)
{
	struct interp in = { .cie = c, .in_cie = true, .end = UINT64_MAX };
	struct reader r = { p, end };
	unsigned int ops = 0;

	c->init_ok = false;
	while (r.p < r.end) {
		if (++ops > CFI_MAX_CIE_OPS || exec_op(&in, &r) != STEP_OK)
			return;
	}
	c->init = in.cur;
	c->init_ok = true;
}

/* ---- FDE ---------------------------------------------------------------- */

static const struct cie *fde_cie(struct section_ctx *sc, const struct entry *e)
{
	size_t off, i;

	if (sc->sec->is_eh_frame) {
		/* CIE pointer: backwards distance from the pointer field itself. */
		if (e->id > e->id_offset)
			return NULL;
		off = e->id_offset - (size_t)e->id;
	} else {
		if (e->id >= sc->sec->size)
			return NULL;
		off = (size_t)e->id;
	}
	for (i = 0; i < CIE_CACHE_SIZE && i < sc->nr_cies; i++)
		if (sc->cies[i].offset == off)
			return sc->cie_ok[i] ? &sc->cies[i] : NULL;
	i = sc->nr_cies++ % CIE_CACHE_SIZE;
	sc->cie_ok[i] = parse_cie(sc->sec, off, &sc->cies[i]);
	sc->cies[i].offset = off;	/* remember failures too */
	if (sc->cie_ok[i])
		sc->b->stats.cies++;
	return sc->cie_ok[i] ? &sc->cies[i] : NULL;
}

/* Interpret one FDE's program into rows [start, end). */
static int interpret_fde(struct section_ctx *sc, const struct cie *c, struct reader *r,
			 uint64_t start, uint64_t end)
{
	struct interp in = {
		.b = sc->b, .sec = sc->sec, .cie = c, .cur = c->init,
		.loc = start, .end = end,
	};
	struct stitch_unwind_row signal = { .cfa_rule = STITCH_CFA_SIGNAL };
	enum step_result res = STEP_OK;

	/* The sigreturn trampoline's own CFA program is not needed. */
	if (c->signal)
		return push_row(sc->b, start, &signal);
	if (!c->init_ok) {
		sc->b->stats.fdes_cut++;
		return emit_unknown(&in);
	}
	while (r->p < r->end && res == STEP_OK)
		res = exec_op(&in, r);
	switch (res) {
	case STEP_OK:
		return emit_state(&in);
	case STEP_DONE:
		return 0;
	case STEP_UNKNOWN:
		sc->b->stats.fdes_cut++;
		return emit_unknown(&in);
	default:
		return in.err ? in.err : -E2BIG;
	}
}

static int parse_fde(struct section_ctx *sc, struct entry *e, size_t seq)
{
	struct builder *b = sc->b;
	const struct cie *c = fde_cie(sc, e);
	struct reader *r = &e->body;
	uint64_t start, range, aug_len;
	struct fde_span span;
	int err;

	if (!c || !rd_code_ptr(sc->sec, r, c->fde_enc, c->addr_size, &start) ||
	    !rd_enc_value(r, c->fde_enc & PE_FMT_MASK, c->addr_size, &range))
		goto skip;
	/* Zero starts are gc'ed functions in .debug_frame; no code lives at 0. */
	if (range == 0 || start == 0 || start + range < start)
		goto skip;
	if (c->has_z && (!rd_uleb(r, &aug_len) || !rd_skip(r, aug_len)))
		goto skip;
	span.start = start;
	span.end = start + range;
	span.first = b->nr_rows;
	span.seq = seq;
	err = interpret_fde(sc, c, r, start, span.end);
	if (err)
		return err;
	span.nr = b->nr_rows - span.first;
	err = array_reserve((void **)&b->spans, &b->cap_spans, b->nr_spans + 1, sizeof(*b->spans), 256);
	if (err)
		return err;
	b->spans[b->nr_spans++] = span;
	b->stats.fdes++;
	return 0;
skip:
	b->stats.fdes_skipped++;
	return 0;
}

static int parse_entries(struct section_ctx *sc)
{
	const struct cfi_section *sec = sc->sec;
	size_t off = 0, seq = 0;
	struct entry e;
	int err;

	while (off < sec->size) {
		err = read_entry(sec, off, &e);
		if (err)
			return err;
		if (e.terminator) {
			/* .eh_frame ends at a zero length; .debug_frame has none. */
			if (sec->is_eh_frame)
				return 0;
		} else if (e.bad) {
			sc->b->stats.fdes_skipped++;
		} else if (!entry_is_cie(sec, &e)) {
			err = parse_fde(sc, &e, seq++);
			if (err)
				return err;
		}
		off = e.next;
	}
	return 0;
}

/* ---- merging sections into the table ----------------------------------- */

static int cmp_span(const void *a, const void *b)
{
	const struct fde_span *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Copy a span's rows clipped to [lo, hi), then close it with NO_FDE at hi. */
static int emit_piece(struct builder *b, const struct fde_span *s, uint64_t lo, uint64_t hi)
{
	const struct brow *rows = b->rows + s->first;
	struct stitch_unwind_row unknown = { .cfa_rule = STITCH_CFA_NO_FDE };
	size_t i = 0;
	int err;

	while (i + 1 < s->nr && brow_pc(&rows[i + 1]) <= lo)
		i++;
	err = push_out(b, lo, &rows[i].r, false);
	for (i++; !err && i < s->nr && brow_pc(&rows[i]) < hi; i++)
		err = push_out(b, brow_pc(&rows[i]), &rows[i].r, false);
	if (!err)
		err = push_out(b, hi, &unknown, true);
	if (!err)
		err = push_interval(&b->fresh, &b->nr_fresh, &b->cap_fresh, lo, hi);
	return err;
}

/* First earlier-section interval ending after pc (covered is sorted, disjoint). */
static size_t first_covered_after(const struct builder *b, uint64_t pc)
{
	return array_first_above(b->covered, b->nr_covered, sizeof(*b->covered),
				 offsetof(struct interval, hi), pc);
}

/* Emit the parts of [lo, hi) that no earlier section covered. */
static int emit_uncovered(struct builder *b, const struct fde_span *s, uint64_t lo,
			  uint64_t hi)
{
	size_t i = first_covered_after(b, lo);
	int err;

	for (; lo < hi && i < b->nr_covered && b->covered[i].lo < hi; i++) {
		if (b->covered[i].lo > lo) {
			err = emit_piece(b, s, lo, b->covered[i].lo);
			if (err)
				return err;
		}
		if (b->covered[i].hi > lo)
			lo = b->covered[i].hi;
	}
	return lo < hi ? emit_piece(b, s, lo, hi) : 0;
}

static int cmp_interval(const void *a, const void *b)
{
	const struct interval *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Fold this section's coverage into `covered`, kept sorted and disjoint. */
static int merge_coverage(struct builder *b)
{
	size_t i, n = 0;
	int err;

	for (i = 0; i < b->nr_fresh; i++) {
		err = push_interval(&b->covered, &b->nr_covered, &b->cap_covered,
				    b->fresh[i].lo, b->fresh[i].hi);
		if (err)
			return err;
	}
	b->nr_fresh = 0;
	sort(b->covered, b->nr_covered, sizeof(*b->covered), cmp_interval);
	for (i = 0; i < b->nr_covered; i++) {
		if (n && b->covered[i].lo <= b->covered[n - 1].hi) {
			if (b->covered[i].hi > b->covered[n - 1].hi)
				b->covered[n - 1].hi = b->covered[i].hi;
		} else {
			b->covered[n++] = b->covered[i];
		}
	}
	b->nr_covered = n;
	return 0;
}

/* Resolve the parsed section's FDEs against each other and earlier sections. */
static int finish_section(struct builder *b)
{
	uint64_t until = 0;	/* this section covers everything below, once sorted */
	size_t i;
	int err = 0;

	sort(b->spans, b->nr_spans, sizeof(*b->spans), cmp_span);
	for (i = 0; i < b->nr_spans && !err; i++) {
		const struct fde_span *s = &b->spans[i];
		uint64_t lo = s->start > until ? s->start : until;

		if (lo < s->end)
			err = emit_uncovered(b, s, lo, s->end);
		if (s->end > until)
			until = s->end;
	}
	if (!err)
		err = merge_coverage(b);
	b->nr_rows = 0;
	b->nr_spans = 0;
	return err;
}

static int cmp_brow(const void *a, const void *b)
{
	const struct brow *x = a, *y = b;

	if (brow_pc(x) != brow_pc(y))
		return brow_pc(x) < brow_pc(y) ? -1 : 1;
	/* At one pc a real row beats the UNKNOWN closing a neighbour. */
	return (int)brow_closing(y) - (int)brow_closing(x);
}

bool unwind_row_same_rule(const struct stitch_unwind_row *a, const struct stitch_unwind_row *b)
{
	return a->cfa_rule == b->cfa_rule && a->cfa_offset == b->cfa_offset &&
	       a->rbp_rule == b->rbp_rule && a->rbp_offset == b->rbp_offset &&
	       a->ra_offset == b->ra_offset;
}

/*
 * Sort, keep one row per pc, drop rows above 4 GiB, merge equal neighbours.
 * The sorted rows are packed into the start of the builder's own array (a
 * row is 12 bytes, a builder row 16: row n is written where rows before the
 * i-th read lay, n <= i), which is then cut to size.  A second array of
 * every builder row's size, as before, raised a large binary's peak and kept
 * the dropped rows' room in the table for as long as it lived.  With the
 * sort below skipped and the sections' arrays freed first, `record --
 * bpftrace` (libLLVM-14's 948,856 rows, 2 million in all) peaked at 71.8 MB
 * of heap instead of 93.2, and the tables of 2,256 files of this machine
 * (every one the same, row for row) took 1.96 s instead of 4.18.  With
 * builder rows of 16 bytes instead of 24, libLLVM-14's table alone peaks at
 * 43.2 MB of resident set instead of 56.9, and the tables of 1,835 files
 * are the same, row for row.
 */
static int finish_table(struct builder *b, struct unwind_table *out)
{
	struct stitch_unwind_row *rows, row;
	size_t i, n = 0;

	if (!b->nr_out) {
		out->rows = calloc(1, sizeof(*out->rows));
		out->nr = 0;
		return out->rows ? 0 : -ENOMEM;
	}
	/*
	 * A section's rows come out in order (its FDEs sorted first), so a
	 * binary with one CFI section needs no sort; glibc's qsort is a merge
	 * sort with a copy of the whole array (+23 MB for libLLVM-14).
	 */
	for (i = 1; i < b->nr_out && cmp_brow(&b->out[i - 1], &b->out[i]) <= 0; i++)
		;
	if (i < b->nr_out)
		sort(b->out, b->nr_out, sizeof(*b->out), cmp_brow);
	rows = (struct stitch_unwind_row *)b->out;
	for (i = 0; i < b->nr_out; i++) {
		uint64_t pc = brow_pc(&b->out[i]);

		if (pc > UINT32_MAX)
			break;
		if (i + 1 < b->nr_out && brow_pc(&b->out[i + 1]) == pc)
			continue;	/* the later one wins (see cmp_brow) */
		memcpy(&row, &b->out[i].r, sizeof(row));
		if (n && unwind_row_same_rule(&rows[n - 1], &row))
			continue;
		row.pc = (uint32_t)pc;
		memcpy(&rows[n++], &row, sizeof(row));
	}
	out->rows = realloc(rows, (n ? n : 1) * sizeof(*rows));
	if (!out->rows)
		out->rows = rows;	/* as large as it was: still whole */
	out->nr = n;
	b->out = NULL;
	b->nr_out = b->cap_out = 0;
	return 0;
}

static int add_section(struct builder *b, const struct cfi_section *sec)
{
	struct section_ctx sc = { .sec = sec, .b = b };
	int err;

	if (!sec->data || sec->size == 0)
		return 0;
	err = parse_entries(&sc);
	if (!err)
		err = finish_section(b);
	return err;
}

int cfi_parse_section_ex(const struct cfi_section *sec, struct unwind_table *out,
			 struct cfi_stats *stats)
{
	return cfi_build_from_sections(sec, 1, out, stats);
}

int cfi_parse_section(const uint8_t *data, size_t size, uint64_t section_vaddr,
		      bool is_eh_frame, struct unwind_table *out)
{
	struct cfi_section sec = {
		.data = data, .size = size, .vaddr = section_vaddr,
		.is_eh_frame = is_eh_frame,
	};

	return cfi_parse_section_ex(&sec, out, NULL);
}

/*
 * Like elf_find_section(), but decompresses SHF_COMPRESSED sections (common
 * for .debug_frame in separate debug files).
 */
static int find_cfi_section(Elf *elf, const char *name, bool is_eh, struct cfi_section *out)
{
	struct elf_section es;
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	memset(out, 0, sizeof(*out));
	out->is_eh_frame = is_eh;
	if (elf_find_section(elf, name, &es) == 0) {
		if (es.type == SHT_NOBITS || !es.data)
			return 0;
		out->data = es.data;
		out->size = es.size;
		out->vaddr = es.addr;
	}
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *sname;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_COMPRESSED))
			continue;
		sname = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!sname || strcmp(sname, name) != 0)
			continue;
		memset(out, 0, sizeof(*out));
		out->is_eh_frame = is_eh;
		if (elf_compress(scn, 0, 0) < 0)
			return 0;	/* unreadable: treat as absent */
		d = elf_getdata(scn, NULL);
		if (d && d->d_buf) {
			out->data = d->d_buf;
			out->size = d->d_size;
			out->vaddr = sh.sh_addr;
		}
		return 0;
	}
	return 0;
}

int cfi_build_from_sections(const struct cfi_section *secs, size_t n,
			    struct unwind_table *out, struct cfi_stats *stats)
{
	struct builder b = { 0 };
	size_t i;
	int err = 0;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < n && !err; i++)
		err = add_section(&b, &secs[i]);
	/* What the sections needed goes before the rows are sorted and packed. */
	free(b.rows);
	free(b.spans);
	b.rows = NULL;
	b.spans = NULL;
	b.nr_rows = b.cap_rows = b.nr_spans = b.cap_spans = 0;
	if (!err)
		err = finish_table(&b, out);
	if (stats)
		*stats = b.stats;
	builder_free(&b);
	return err;
}

int cfi_build_table(Elf *elf, Elf *debug, struct unwind_table *out)
{
	struct cfi_section secs[3];

	memset(out, 0, sizeof(*out));
	if (!elf)
		return -EINVAL;
	elf_util_init();
	find_cfi_section(elf, ".eh_frame", true, &secs[0]);
	find_cfi_section(elf, ".debug_frame", false, &secs[1]);
	memset(&secs[2], 0, sizeof(secs[2]));
	if (debug)
		find_cfi_section(debug, ".debug_frame", false, &secs[2]);
	return cfi_build_from_sections(secs, 3, out, NULL);
}

const struct stitch_unwind_row *unwind_table_lookup(const struct unwind_table *t, uint64_t vaddr)
{
	size_t lo = 0, hi;

	if (!t || !t->nr || vaddr > UINT32_MAX || vaddr < t->rows[0].pc)
		return NULL;
	hi = t->nr;
	if (t->first) {
		uint64_t k = (vaddr - t->rows[0].pc) >> t->shift;

		if (k >= t->nbuckets)
			return &t->rows[t->nr - 1];
		lo = t->first[k];
		hi = (size_t)t->first[k + 1] + 1;
	}
	/* Invariant: rows[lo].pc <= vaddr; find the last such row. */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].pc <= vaddr)
			lo = mid;
		else
			hi = mid;
	}
	return &t->rows[lo];
}

void unwind_table_free(struct unwind_table *t)
{
	if (!t)
		return;
	free(t->rows);
	t->rows = NULL;
	t->nr = 0;
	unwind_table_unindex(t);
}

/* Here, not in table_index.c: table_edit.c drops it, and libstitch-stall links that without the index. */
void unwind_table_unindex(struct unwind_table *t)
{
	free(t->first);
	t->first = NULL;
	t->nbuckets = 0;
	t->shift = 0;
}

int cfi_hdr_index_read(Elf *elf, struct cfi_hdr_index *out)
{
	struct elf_section sec;
	const uint8_t *d;
	uint32_t count;

	memset(out, 0, sizeof(*out));
	if (!elf || elf_find_section(elf, ".eh_frame_hdr", &sec) || !sec.data || sec.size < 12)
		return -ENOENT;
	d = sec.data;
	/* version 1; eh_frame_ptr: pcrel|sdata4; fde_count: udata4; table: datarel|sdata4 */
	if (d[0] != 1 || d[1] != 0x1b || d[2] != 0x03 || d[3] != 0x3b)
		return -ENOENT;
	memcpy(&count, d + 8, 4);
	if (count > (sec.size - 12) / 8)
		return -ENOENT;
	out->table = (const int32_t *)(d + 12);
	out->count = count;
	out->base = sec.addr;
	return 0;
}

/* Initial location of entry i; memcpy: the table need not be aligned in the image. */
static uint64_t hdr_start(const struct cfi_hdr_index *ix, size_t i)
{
	int32_t v;

	memcpy(&v, &ix->table[2 * i], 4);
	return ix->base + (int64_t)v;
}

uint64_t cfi_hdr_func_start(const struct cfi_hdr_index *ix, uint64_t vaddr)
{
	size_t lo = 0, hi;

	if (!ix || !ix->count)
		return 0;
	hi = ix->count;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (hdr_start(ix, mid) <= vaddr)
			lo = mid;
		else
			hi = mid;
	}
	return hdr_start(ix, lo) <= vaddr ? hdr_start(ix, lo) : 0;
}

uint64_t cfi_hdr_next_start(const struct cfi_hdr_index *ix, uint64_t start)
{
	size_t lo = 0, hi;

	if (!ix || !ix->count)
		return 0;
	hi = ix->count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (hdr_start(ix, mid) <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ix->count ? hdr_start(ix, lo) : 0;
}
