// SPDX-License-Identifier: GPL-2.0
/* Functions inlined into V8's optimized frames: see v8_inlined.h. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/v8_heap.h"
#include "symbolize/v8_inlined.h"
#include "util/hashmap.h"

/*
 * Bytes of instructions looked back over from a pc for the start of its
 * code, where the frame's function does not point to that code (V8 13
 * keeps a dispatch handle there; 11 and 12 after a deoptimization):
 * larger optimized functions are left alone.
 */
#define CODE_SCAN_MAX (256u << 10)
/* Bytes of a source position table read, at most (~4 bytes an instruction). */
#define POSITIONS_MAX (256u << 10)
/*
 * Candidates the scan checks, at most: a process's code is its own to
 * fill with words that look like pointers to Code, each costing reads.
 */
#define SCAN_TRIES_MAX 32
/* Inlinings and literals of one function, at most. */
#define INLININGS_MAX 65536
/* Chains remembered before the cache starts again. */
#define CHAINS_MAX 65536
/* Codes found by the scan remembered, the oldest replaced. */
#define RANGES_MAX 64

/* A Code's header as read: its instructions, kind and tables. */
struct code {
	uint64_t obj, start, end, positions, deopt;
	bool opt;		/* TurboFan's or Maglev's (else baseline code, a builtin's, ...) */
};

/* A pc's chain, by what it was read from: a freed Code's reuse changes one of these. */
struct chain {
	struct hmap_node node;
	uint32_t pid;
	bool leaf;
	uint64_t code, positions, deopt, sfi, pc;
	int n;
	const struct v8_name *f[];
};

static struct {
	bool ready;
	struct hmap chains;
	size_t nchains;
	struct {
		uint32_t pid;
		uint64_t start, end, obj;
		uint64_t deopt, sfi;	/* the code's function, once read (v8_code_sfi) */
	} ranges[RANGES_MAX];
	unsigned next_range;
} reg;

static bool chain_eq(const struct hmap_node *n, const void *key)
{
	const struct chain *a = (const struct chain *)n, *b = key;

	return a->pid == b->pid && a->leaf == b->leaf && a->code == b->code &&
	       a->positions == b->positions && a->deopt == b->deopt && a->sfi == b->sfi &&
	       a->pc == b->pc;
}

static uint64_t chain_hash(const struct chain *k)
{
	return hash_u64(k->code ^ (k->pc * 31) ^ (k->sfi * 17) ^ ((uint64_t)k->pid << 48) ^ k->leaf);
}

/* Whether a Code's flags say TurboFan's or Maglev's (optimized) code. */
static bool flags_optimized(const struct v8_meta *m, uint32_t flags)
{
	uint32_t kind = (flags >> m->code_kind_shift) & m->code_kind_mask;

	return kind == m->kind_turbofan || kind == m->kind_maglev;
}

/*
 * obj (tagged) read as a Code whose instructions hold pc, of any kind
 * (c->opt: optimized); false if it is not.
 */
static bool code_read(uint32_t pid, const struct v8_meta *m, uint64_t obj, uint64_t pc,
		      struct code *c)
{
	uint8_t h[64];
	uint64_t start, map;
	uint32_t flags;
	int32_t size;
	uint16_t type;
	uint32_t need = m->code_positions;

	if (m->code_deopt > need)
		need = m->code_deopt;
	if (m->code_isize > need)
		need = m->code_isize;
	if (m->code_flags > need)
		need = m->code_flags;
	if (m->stream_header && m->code_istart > need)
		need = m->code_istart;
	need += 8;
	if (!v8_is_heap(obj) || need > sizeof(h) || v8_rd(pid, obj - 1, h, need))
		return false;
	memcpy(&map, h + m->obj_map, 8);
	if (!v8_is_heap(map) || v8_rd(pid, map - 1 + m->map_type, &type, sizeof(type)) ||
	    type != m->type_code)
		return false;
	memcpy(&size, h + m->code_isize, 4);
	memcpy(&flags, h + m->code_flags, 4);
	if (m->stream_header)
		memcpy(&start, h + m->code_istart, 8);
	else
		start = obj - 1 + m->code_istart;
	if (size <= 0 || pc < start || pc - start >= (uint64_t)size)
		return false;
	c->opt = flags_optimized(m, flags);
	c->obj = obj;
	c->start = start;
	c->end = start + (uint64_t)size;
	memcpy(&c->positions, h + m->code_positions, 8);
	memcpy(&c->deopt, h + m->code_deopt, 8);
	return true;
}

/* Remembers c, found for pid: the entry it is at. */
static unsigned range_note(uint32_t pid, const struct code *c)
{
	unsigned i = reg.next_range++ % RANGES_MAX;

	reg.ranges[i].pid = pid;
	reg.ranges[i].start = c->start;
	reg.ranges[i].end = c->end;
	reg.ranges[i].obj = c->obj;
	reg.ranges[i].deopt = c->deopt;
	reg.ranges[i].sfi = 0;
	return i;
}

/*
 * A remembered Code holding pc, read again (freed code's place may hold
 * another since): its entry, c filled; -1 if none.
 */
static int range_find(uint32_t pid, const struct v8_meta *m, uint64_t pc, struct code *c)
{
	unsigned i;

	for (i = 0; i < RANGES_MAX; i++)
		if (reg.ranges[i].pid == pid && pc >= reg.ranges[i].start &&
		    pc < reg.ranges[i].end && code_read(pid, m, reg.ranges[i].obj, pc, c))
			return (int)i;
	return -1;
}

/*
 * The Code whose instructions hold pc, found from the pc alone: its
 * instructions start 64-byte aligned, right after an InstructionStream
 * header whose second word points to the Code (V8 11 on), or inside the
 * Code, code_istart bytes after its map, which is code_map, every Code's
 * (V8 10).  From the aligned address below pc back, a page at a time.  A
 * candidate is believed once code_read() finds a Code holding pc there, of
 * any kind: baseline code's pcs (Sparkplug's) end the scan at once, not
 * after SCAN_TRIES_MAX reads (~85% of copied node stacks' reads before).
 */
static bool code_scan(uint32_t pid, const struct v8_meta *m, uint64_t pc, uint64_t code_map,
		      struct code *c)
{
	uint64_t a = pc & ~63ull, lo = pc > CODE_SCAN_MAX ? pc - CODE_SCAN_MAX : 0;
	uint64_t back = m->stream_header ? m->stream_header - 8 : m->code_istart;
	uint64_t words[512];
	unsigned tries = 0;

	if (!m->stream_header && !code_map)
		return false;
	while (a > lo && a > back) {
		/*
		 * The words from candidate a's down to the start of their page
		 * (a Code at a space's start must not fail for the page below).
		 */
		uint64_t top = a - back + 8, base = (top - 8) & ~4095ull;

		if (v8_rd(pid, base, words, top - base))
			return false;
		for (; a > lo && a - back >= base; a -= 64) {
			uint64_t w = words[(a - back - base) / 8];

			if (m->stream_header ? !v8_is_heap(w) : w != code_map)
				continue;
			if (++tries > SCAN_TRIES_MAX)
				return false;
			if (!code_read(pid, m, m->stream_header ? w : a - back + 1, pc, c))
				continue;
			return c->start == a;
		}
	}
	return false;
}

/*
 * The Code whose instructions hold pc (any kind), remembered (its entry in
 * reg.ranges), or fn's own (a tagged JSFunction, 0: not looked at), or
 * found by code_scan(): its entry, or -1 if none.
 */
static int code_at(uint32_t pid, const struct v8_meta *m, uint64_t fn, uint64_t pc,
		   struct code *c)
{
	uint64_t obj = 0, code_map = 0;
	int i = range_find(pid, m, pc, c);

	if (i >= 0)
		return i;
	/* V8 10: the scan knows a Code by its map, the function's Code's. */
	if (fn && m->fn_code && !v8_field(pid, fn, m->fn_code, &obj) && !m->stream_header &&
	    v8_type_of(pid, m, obj) == m->type_code)
		v8_field(pid, obj, m->obj_map, &code_map);
	if (fn && m->fn_code && obj && code_read(pid, m, obj, pc, c))
		return (int)range_note(pid, c);
	return code_scan(pid, m, pc, code_map, c) ? (int)range_note(pid, c) : -1;
}

/* An unsigned LEB128-style varint, zigzag-decoded; false past the end. */
static bool varint(const uint8_t *p, size_t len, size_t *at, int64_t *v)
{
	uint64_t u = 0;
	unsigned shift = 0;

	do {
		if (*at >= len || shift > 63)
			return false;
		u |= (uint64_t)(p[*at] & 0x7f) << shift;
		shift += 7;
	} while (p[(*at)++] & 0x80);
	*v = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
	return true;
}

bool v8_position_find(const uint8_t *table, size_t len, uint64_t off, uint64_t *pos)
{
	int64_t d, code = -1;
	uint64_t p = 0;
	bool found = false;
	size_t at = 0;

	while (at < len) {
		/* Code offsets fit 32 bits: a larger delta is not V8's. */
		if (!varint(table, len, &at, &d) || d > INT32_MAX || d < INT32_MIN)
			break;
		code += d >= 0 ? d : -d - 1;
		if (!varint(table, len, &at, &d))
			break;
		p += (uint64_t)d;
		/* -1: a bytecode table's function entry, before every offset. */
		if (code >= 0 && (uint64_t)code > off)
			break;
		*pos = p;
		found = true;
	}
	return found;
}

bool v8_position_at(uint32_t pid, const struct v8_meta *m, uint64_t table, uint64_t off,
		    uint64_t *pos)
{
	int64_t len;
	uint64_t w;
	uint8_t *buf;
	bool found;
	int t = v8_type_of(pid, m, table);

	if ((t != m->type_byte_array && t != m->type_trusted_byte_array) ||
	    v8_field(pid, table, m->fixed_array_length, &w) || !v8_smi(m, w, &len) || len <= 0 ||
	    len > POSITIONS_MAX)
		return false;
	buf = malloc((size_t)len);
	if (!buf || v8_rd(pid, table - 1 + m->fixed_array_data, buf, (size_t)len)) {
		free(buf);
		return false;
	}
	found = v8_position_find(buf, (size_t)len, off, pos);
	free(buf);
	return found;
}


/* Element i of a fixed array (its length checked), a weak reference made strong. */
static bool element(uint32_t pid, const struct v8_meta *m, uint64_t arr, int64_t i, uint64_t *v)
{
	int64_t len;
	uint64_t w;

	if (!v8_is_heap(arr) || v8_field(pid, arr, m->fixed_array_length, &w) ||
	    !v8_smi(m, w, &len) || i < 0 || i >= len || len > INLININGS_MAX ||
	    v8_field(pid, arr, m->fixed_array_data + 8 * (uint32_t)i, v))
		return false;
	if ((*v & 3) == 3)
		*v &= ~2ull;
	return true;
}

/*
 * The chain at c's pc offset off for the function whose SharedFunctionInfo
 * is sfi: the functions inlined there, innermost first, then sfi's own,
 * each at its line there (the innermost's from the position at off, each
 * caller's from the position of its call, which the inlining keeps).
 */
static int chain_read(uint32_t pid, const struct v8_meta *m, const struct code *c, uint64_t sfi,
		      uint64_t off, const struct v8_name *out[V8_INLINED_MAX + 1])
{
	uint64_t pos, own, literals = 0, inlinings = 0, w;
	int64_t bytes = 0;
	int id, n = 0;

	/* The deoptimization data's function must be the frame's, or it is not this code. */
	if (!v8_position_at(pid, m, c->positions, off, &pos) ||
	    !element(pid, m, c->deopt, m->di_sfi, &own) ||
	    (m->sfi_wrapped && v8_field(pid, own, m->sfi_wrapped, &own)) || own != sfi)
		return 0;
	if (v8_position_inlining(pos) >= 0 &&
	    (!element(pid, m, c->deopt, m->di_literals, &literals) ||
	     !element(pid, m, c->deopt, m->di_inlining, &inlinings) ||
	     v8_field(pid, inlinings, m->fixed_array_length, &w) || !v8_smi(m, w, &bytes) ||
	     bytes <= 0 || bytes / 16 > INLININGS_MAX))
		return 0;
	/* Each InliningPosition: the call's SourcePosition (8 bytes), the function's literal id (4). */
	while ((id = v8_position_inlining(pos)) >= 0) {
		uint8_t ip[12];
		int32_t fid;
		uint64_t fsfi;

		if (n == V8_INLINED_MAX || (int64_t)id >= bytes / 16 ||
		    v8_rd(pid, inlinings - 1 + m->fixed_array_data + 16 * (uint64_t)id, ip,
			  sizeof(ip)))
			return 0;
		memcpy(&fid, ip + 8, 4);
		if (!element(pid, m, literals, fid, &fsfi))
			return 0;
		out[n] = v8_names_sfi_at(pid, fsfi, v8_position_offset(pos));
		if (!out[n])
			return 0;
		n++;
		memcpy(&pos, ip, 8);
	}
	out[n] = v8_names_sfi_at(pid, sfi, v8_position_offset(pos));
	return out[n] ? n + 1 : 0;
}

int v8_inlined_at(uint32_t pid, uint64_t fn, uint64_t sfi, uint64_t pc, bool leaf,
		  const struct v8_name *out[V8_INLINED_MAX + 1])
{
	const struct v8_meta *m = v8_names_meta(pid);
	struct chain key = { .pid = pid, .leaf = leaf, .pc = pc }, *e;
	struct code c;
	uint64_t h;
	bool same_fn;

	if (!m || !m->code_known || !v8_is_heap(fn) || v8_field(pid, fn, m->fn_shared, &key.sfi))
		return 0;
	/*
	 * The function the event saw, if its SharedFunctionInfo came with it:
	 * fn may have moved since, its address another function's now; then
	 * its Code is not looked at, the code at pc is found by its own.
	 */
	same_fn = !sfi || key.sfi == sfi;
	if (sfi)
		key.sfi = sfi;
	if (code_at(pid, m, same_fn ? fn : 0, pc, &c) < 0 || !c.opt)
		return 0;
	key.code = c.obj;
	key.positions = c.positions;
	key.deopt = c.deopt;
	if (!reg.ready) {
		if (hmap_init(&reg.chains, 1024))
			return 0;
		reg.ready = true;
	}
	h = chain_hash(&key);
	e = (struct chain *)hmap_find(&reg.chains, h, chain_eq, &key);
	if (!e) {
		if (reg.nchains >= CHAINS_MAX) {
			hmap_free_all(&reg.chains);
			hmap_init(&reg.chains, 1024);
			reg.nchains = 0;
		}
		/* A return address is the instruction after its call: the call's entry. */
		key.n = chain_read(pid, m, &c, key.sfi, pc - c.start - (leaf ? 0 : 1), out);
		e = malloc(sizeof(*e) + sizeof(e->f[0]) * (size_t)key.n);
		if (!e)
			return 0;
		*e = key;
		memcpy(e->f, out, sizeof(e->f[0]) * (size_t)key.n);
		hmap_insert(&reg.chains, &e->node, h);
		reg.nchains++;
	}
	memcpy(out, e->f, sizeof(e->f[0]) * (size_t)e->n);
	return e->n;
}

uint64_t v8_code_sfi(uint32_t pid, uint64_t fn, uint64_t pc, bool leaf)
{
	const struct v8_meta *m = v8_names_meta(pid);
	struct code c;
	uint64_t sfi;
	int i;

	if (!m || !m->code_known || !pc)
		return 0;
	/* A return address may end its code: the call before it is in it. */
	i = code_at(pid, m, v8_is_heap(fn) ? fn : 0, pc - (leaf ? 0 : 1), &c);
	if (i < 0 || !c.opt)
		return 0;
	/* The same Code object with the same deoptimization data: the same function. */
	if (reg.ranges[i].sfi && reg.ranges[i].obj == c.obj && reg.ranges[i].deopt == c.deopt)
		return reg.ranges[i].sfi;
	if (!element(pid, m, c.deopt, m->di_sfi, &sfi) ||
	    (m->sfi_wrapped && v8_field(pid, sfi, m->sfi_wrapped, &sfi)) ||
	    v8_type_of(pid, m, sfi) != m->type_sfi)
		return 0;
	reg.ranges[i].deopt = c.deopt;
	reg.ranges[i].sfi = sfi;
	return sfi;
}

bool v8_fn_optimized(uint32_t pid, uint64_t fn)
{
	const struct v8_meta *m = v8_names_meta(pid);
	uint64_t obj;
	uint32_t flags;

	if (!m || !m->code_known || !m->fn_code || !v8_is_heap(fn) ||
	    v8_field(pid, fn, m->fn_code, &obj) || v8_type_of(pid, m, obj) != m->type_code ||
	    v8_rd(pid, obj - 1 + m->code_flags, &flags, sizeof(flags)))
		return false;
	return flags_optimized(m, flags);
}
