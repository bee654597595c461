// SPDX-License-Identifier: GPL-2.0
/*
 * Naming Ruby 3.1 frames from the target's memory: iseq labels and paths
 * (RString, or an RArray [path, realpath]), C method names through the
 * global symbol table, and exact lines from the iseq's succinct index table
 * (the naive "last entry" is wrong for any multi-line method).  Untrusted
 * input: every object's type checked, every length capped.
 */
#include <stdlib.h>
#include <string.h>

#include "interp_internal.h"

#define MAX_NAME 1024
#define MAX_INSNS (1u << 22)

static bool rd64(pid_t pid, uint64_t addr, uint64_t *v)
{
	return interp_read(pid, addr, v, 8) == 0;
}

static bool is_type(const struct interp_ruby_layout *L, uint64_t flags, uint32_t t)
{
	return (flags & L->t_mask) == t;
}

/* A String VALUE as a C string (malloc'd; NUL and control bytes replaced), or NULL. */
static char *rb_str(pid_t pid, const struct interp_ruby_layout *L, uint64_t v)
{
	uint64_t flags, len, ptr;
	char *s;
	size_t i;

	if (!v || (v & 7) || !rd64(pid, v, &flags) || !is_type(L, flags, L->t_string))
		return NULL;
	if (flags & L->str_noembed) {
		if (!rd64(pid, v + L->str_len, &len) || !rd64(pid, v + L->str_ptr, &ptr))
			return NULL;
	} else {
		len = (flags >> L->str_embed_len_shift) & L->str_embed_len_mask;
		ptr = v + L->str_embed;
	}
	if (len > MAX_NAME)
		len = MAX_NAME;
	s = malloc(len + 1);
	if (!s || (len && interp_read(pid, ptr, s, len))) {
		free(s);
		return NULL;
	}
	for (i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			s[i] = '?';
	s[len] = '\0';
	return s;
}

/* Array VALUE [i]; false unless an Array with i < length. */
static bool rb_aref(pid_t pid, const struct interp_ruby_layout *L, uint64_t v, uint64_t i,
		    uint64_t *out)
{
	uint64_t flags, len, ptr;

	if (!v || (v & 7) || !rd64(pid, v, &flags) || !is_type(L, flags, L->t_array))
		return false;
	if (flags & L->ary_embed_flag) {
		len = (flags >> L->ary_embed_len_shift) & L->ary_embed_len_mask;
		ptr = v + L->ary_embed;
	} else if (!rd64(pid, v + L->ary_len, &len) || !rd64(pid, v + L->ary_ptr, &ptr)) {
		return false;
	}
	return i < len && rd64(pid, ptr + i * 8, out);
}

/* An ID's name through ruby_global_symbols.ids (what rb_id2str does). */
static char *rb_id_name(const struct interp_proc *ip, uint64_t id)
{
	const struct interp_ruby_layout *L = &ip->ver->layout.rb;
	uint64_t serial = id > L->tlast_op_id ? id >> L->id_scope_shift : id, ids, ary, str;
	uint32_t last;

	if (!ip->rb_symbols || !serial ||
	    interp_read(ip->pid, ip->rb_symbols + L->symbols_last_id, &last, 4) || serial > last ||
	    !rd64(ip->pid, ip->rb_symbols + L->symbols_ids, &ids) ||
	    !rb_aref(ip->pid, L, ids, serial / L->id_entry_unit, &ary) ||
	    !rb_aref(ip->pid, L, ary, (serial % L->id_entry_unit) * L->id_entry_size, &str))
		return NULL;
	return rb_str(ip->pid, L, str);
}

static void load_cfunc(struct interp_code *c, const struct interp_proc *ip,
		       const struct interp_frame *f)
{
	const struct interp_ruby_layout *L = &ip->ver->layout.rb;
	uint64_t flags, def, id;

	/* Still the method entry the walker saw, with the same definition and ID? */
	if (!rd64(c->pid, c->addr, &flags) || (flags & L->t_mask) != L->t_imemo ||
	    ((flags >> L->imemo_shift) & L->imemo_mask) != L->imemo_ment ||
	    !rd64(c->pid, c->addr + L->me_def, &def) || def != f->id2 ||
	    !rd64(c->pid, def + L->def_original_id, &id) || id != f->id1)
		return;
	c->name = rb_id_name(ip, id);
	c->valid = c->name != NULL;
}

static void load_iseq(struct interp_code *c, const struct interp_proc *ip,
		      const struct interp_frame *f)
{
	const struct interp_ruby_layout *L = &ip->ver->layout.rb;
	uint64_t flags, body, pathobj, label;

	if (!rd64(c->pid, c->addr, &flags) || (flags & L->t_mask) != L->t_imemo ||
	    ((flags >> L->imemo_shift) & L->imemo_mask) != L->imemo_iseq ||
	    !rd64(c->pid, c->addr + L->iseq_body, &body) || body != f->id1 ||
	    L->body_read > 512)
		return;
	c->body = malloc(L->body_read);
	if (!c->body || interp_read(c->pid, body, c->body, L->body_read))
		return;
	memcpy(&pathobj, c->body + L->body_pathobj, 8);
	memcpy(&label, c->body + L->body_label, 8);
	c->file = rb_str(c->pid, L, pathobj);
	if (!c->file && rb_aref(c->pid, L, pathobj, 0, &pathobj))	/* [path, realpath] */
		c->file = rb_str(c->pid, L, pathobj);
	c->name = rb_str(c->pid, L, label);
	c->valid = c->name && c->file;
}

struct interp_code *rb_code_get(struct interp_state *st, const struct interp_proc *ip,
				const struct interp_frame *f)
{
	bool fresh;
	struct interp_code *c = interp_code_slot(st, ip->pid, f->addr, &fresh, f);

	if (c && fresh) {
		if (f->flags & INTERP_FRAME_CFUNC)
			load_cfunc(c, ip, f);
		else
			load_iseq(c, ip, f);
	}
	return c;
}

/*
 * iseq.c succ_index_lookup(): how many insns_info entries start at or
 * before position x.  The first 54 positions: 7-bit ranks, 9 per u64;
 * then blocks of 512 positions: a u32 rank, seven 9-bit small-block ranks
 * and eight 64-bit bitmaps (80 bytes).
 */
static bool succ_rank(pid_t pid, uint64_t table, uint32_t x, uint32_t *rank)
{
	if (x < 54) {
		uint64_t imm;

		if (!rd64(pid, table + (x / 9) * 8, &imm))
			return false;
		*rank = (imm >> ((x % 9) * 7)) & 0x7f;
		return true;
	} else {
		uint8_t blk[80];
		uint32_t bit = (x - 54) % 512, sbi = bit / 64, r, small = 0;
		uint64_t small_ranks, bits;

		if (interp_read(pid, table + 48 + (uint64_t)((x - 54) / 512) * sizeof(blk), blk,
				sizeof(blk)))
			return false;
		memcpy(&r, blk, 4);
		memcpy(&small_ranks, blk + 8, 8);
		memcpy(&bits, blk + 16 + sbi * 8, 8);
		if (sbi)
			small = (small_ranks >> ((sbi - 1) * 9)) & 0x1ff;
		*rank = r + small + __builtin_popcountll(bits << (63 - bit % 64));
		return true;
	}
}

static bool line_eq(const struct hmap_node *n, const void *key)
{
	const struct interp_line *a = (const struct interp_line *)n, *k = key;

	return a->pid == k->pid && a->iseq == k->iseq && a->body == k->body && a->pc == k->pc;
}

/* calc_lineno(): the position of the instruction being run is one before pc. */
static int compute_line(const struct interp_proc *ip, const struct interp_code *c, uint64_t pc)
{
	const struct interp_ruby_layout *L = &ip->ver->layout.rb;
	uint64_t enc, info, succ;
	uint32_t iseq_size, size, idx = 1;
	int64_t pos;
	int32_t line;

	memcpy(&enc, c->body + L->body_iseq_encoded, 8);
	memcpy(&iseq_size, c->body + L->body_iseq_size, 4);
	memcpy(&info, c->body + L->body_insns_info, 8);
	memcpy(&size, c->body + L->body_insns_info_size, 4);
	memcpy(&succ, c->body + L->body_succ_index, 8);
	if (pc < enc || (pc - enc) % 8 || iseq_size > MAX_INSNS || size == 0 || size > MAX_INSNS)
		return -1;
	pos = (int64_t)(pc - enc) / 8;
	if (pos > iseq_size)
		return -1;
	if (pos)
		pos--;
	if (size > 1 && (!succ_rank(c->pid, succ, pos, &idx) || idx < 1 || idx > size))
		return -1;
	if (interp_read(c->pid, info + (uint64_t)(idx - 1) * L->insn_info_entry_size, &line, 4))
		return -1;
	return line > 0 ? line : -1;
}

int rb_frame_line(struct interp_state *st, const struct interp_proc *ip,
		  const struct interp_code *c, const struct interp_frame *f)
{
	struct interp_line key = { .pid = ip->pid, .iseq = f->addr, .body = f->id1, .pc = f->pc }, *l;
	uint64_t h = hash_u64(f->pc ^ hash_u64(f->addr ^ ip->pid));

	if (!c->body)
		return -1;
	/* Cached per (iseq, pc) of a code entry that passed its identity checks. */
	l = (struct interp_line *)hmap_find(&st->lines, h, line_eq, &key);
	if (l)
		return l->line;
	l = malloc(sizeof(*l));
	if (!l)
		return -1;
	*l = key;
	l->line = compute_line(ip, c, f->pc);
	hmap_insert(&st->lines, &l->node, h);
	return l->line;
}
