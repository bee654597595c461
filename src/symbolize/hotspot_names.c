// SPDX-License-Identifier: GPL-2.0
/* HotSpot's code cache and method names, read from the JVM: see hotspot_names.h. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/hotspot_names.h"
#include "symbolize/hotspot_stream.h"
#include "util/clock.h"
#include "util/hashmap.h"

/* Bounds on what one JVM can make us read or keep. */
#define HS_MAX_HEAPS		8
/*
 * Segment map steps back: 254 segments (128 bytes each) a step, and no
 * nmethod here is past 100 KiB (4 steps).
 */
#define HS_MAX_HOPS		64
#define HS_MAX_SYMBOL		512	/* bytes of a class or method name */
#define HS_MAX_LINE_TABLE	(8 * 1024)
#define HS_LINE_BYTES_ALL	(32 << 20)	/* all methods' tables kept */
#define HS_MAX_PCDESCS		(256 * 1024)
#define HS_MAX_INLINE		16	/* inlined scopes followed at one pc */
#define HS_METHODS_ALL		(256 * 1024)	/* methods named, all JVMs */

/* A method, as named once: its name, file, and line number table. */
struct hs_method {
	struct hmap_node node;
	uint32_t pid;
	uint64_t method;
	uint64_t cache;			/* its constant pool's cache: an interpreted frame's check */
	uint64_t code;			/* its bytecodes' address */
	uint32_t code_size;
	const char *name, *file;
	uint8_t *lines;			/* the compressed line number table, NULL: none */
	uint32_t lines_len;
	uint64_t epoch;			/* its JVM's, when read (hotspot_names_begin) */
};

static struct hmap methods;
static struct hmap strings;
static size_t nmethods_cached, line_bytes;

struct hs_string {
	struct hmap_node node;
	char s[];
};

static bool string_eq(const struct hmap_node *n, const void *key)
{
	return !strcmp(((const struct hs_string *)n)->s, key);
}

/* s, kept for the program's life: NULL on no memory. */
static const char *intern(const char *s)
{
	uint64_t h = hash_bytes(s, strlen(s), 0x4853);
	struct hs_string *e;

	if (!strings.buckets && hmap_init(&strings, 1024))
		return NULL;
	e = (struct hs_string *)hmap_find(&strings, h, string_eq, s);
	if (e)
		return e->s;
	e = malloc(sizeof(*e) + strlen(s) + 1);
	if (!e)
		return NULL;
	strcpy(e->s, s);
	hmap_insert(&strings, &e->node, h);
	return e->s;
}

static int get_u64(uint32_t pid, uint64_t obj, struct hotspot_field f, uint64_t *out)
{
	int64_t v;

	if (hotspot_get(pid, obj, f, false, &v))
		return -EFAULT;
	*out = (uint64_t)v;
	return 0;
}

static int get_s64(uint32_t pid, uint64_t obj, struct hotspot_field f, int64_t *out)
{
	return hotspot_get(pid, obj, f, true, out);
}

/* The blob holding pc, read from the code cache (~20 reads): 0, or -ENOENT. */
static int blob_read(uint32_t pid, const struct hotspot_meta *m, uint64_t pc,
		     struct hotspot_blob *b)
{
	uint64_t heaps, data, heap = 0, low = 0, high, segmap, used, size, name;
	uint64_t log2, idx, block, blob;
	int64_t len, v;
	uint8_t seg;
	int i, hops;

	memset(b, 0, sizeof(*b));
	if (hotspot_mem(pid, m->code_heaps, &heaps, sizeof(heaps)) ||
	    get_s64(pid, heaps, m->ga_len, &len) || get_u64(pid, heaps, m->ga_data, &data) ||
	    len <= 0 || len > HS_MAX_HEAPS)
		return -ENOENT;
	for (i = 0; i < len; i++) {
		if (hotspot_mem(pid, data + 8 * i, &heap, sizeof(heap)) ||
		    get_u64(pid, heap + m->heap_memory.off, m->vs_low, &low) ||
		    get_u64(pid, heap + m->heap_memory.off, m->vs_high, &high))
			continue;
		if (pc >= low && pc < high)
			break;
	}
	if (i == len || get_u64(pid, heap + m->heap_segmap.off, m->vs_low, &segmap) ||
	    get_u64(pid, heap, m->heap_log2, &log2) || log2 < 4 || log2 > 16)
		return -ENOENT;
	/*
	 * The segment map, a byte per segment: 0xff free, 0 a block's first
	 * segment, else how many segments back to go (memory/heap.hpp).
	 */
	idx = (pc - low) >> log2;
	for (hops = 0; hops < HS_MAX_HOPS; hops++) {
		if (hotspot_mem(pid, segmap + idx, &seg, 1) || seg == 0xff)
			return -ENOENT;
		if (!seg)
			break;
		if (seg > idx)
			return -ENOENT;
		idx -= seg;
	}
	if (hops == HS_MAX_HOPS)
		return -ENOENT;
	block = low + (idx << log2);
	blob = block + m->heap_block_size;
	if (get_u64(pid, block, m->hb_used, &used) || !used ||
	    get_s64(pid, blob, m->blob_size, &v) || v <= 0 || pc >= blob + (uint64_t)v)
		return -ENOENT;
	size = (uint64_t)v;
	b->addr = blob;
	if (m->blob_code_begin.width) {
		if (get_u64(pid, blob, m->blob_code_begin, &b->code_begin))
			return -ENOENT;
	} else {
		if (get_s64(pid, blob, m->blob_code_offset, &v) || v < 0 || (uint64_t)v >= size)
			return -ENOENT;
		b->code_begin = blob + v;
	}
	if (get_s64(pid, blob, m->blob_data_offset, &v) || v < 0 || (uint64_t)v > size)
		return -ENOENT;
	b->code_end = blob + v;
	if (b->code_begin < blob || b->code_begin > b->code_end || pc < b->code_begin ||
	    pc >= b->code_end)
		return -ENOENT;
	if (get_s64(pid, blob, m->blob_frame_size, &v) || v < 0 || v > 65536)
		return -ENOENT;
	b->frame_words = (uint32_t)v;
	if (get_s64(pid, blob, m->blob_frame_complete, &v))
		return -ENOENT;
	b->frame_complete = (int32_t)v;
	/* What kind: 25 says so; 17's nmethods are named "nmethod", "native nmethod". */
	if (m->blob_kind.width) {
		if (get_s64(pid, blob, m->blob_kind, &v))
			return -ENOENT;
		if (v == m->kind_nmethod)
			b->kind = HOTSPOT_BLOB_NMETHOD;
	}
	/* Names are static strings of libjvm: its page goes on past them. */
	if (!get_u64(pid, blob, m->blob_name, &name) &&
	    !hotspot_mem(pid, name, b->name, sizeof(b->name) - 1)) {
		size_t i;

		for (i = 0; b->name[i]; i++)
			if ((unsigned char)b->name[i] < 0x20 || (unsigned char)b->name[i] > 0x7e)
				b->name[i] = '?';
		if (!m->blob_kind.width &&
		    (!strcmp(b->name, "nmethod") || !strcmp(b->name, "native nmethod")))
			b->kind = HOTSPOT_BLOB_NMETHOD;
		else if (!strcmp(b->name, "Interpreter"))
			b->kind = HOTSPOT_BLOB_INTERPRETER;
	} else {
		b->name[0] = 0;
	}
	if (b->kind == HOTSPOT_BLOB_NMETHOD &&
	    (get_u64(pid, blob, m->nm_method, &b->method) ||
	     get_s64(pid, blob, m->nm_compile_id, &v)))
		return -ENOENT;
	b->compile_id = b->kind == HOTSPOT_BLOB_NMETHOD ? (int32_t)v : 0;
	return 0;
}

/*
 * Blobs found, by (pid, pc): return addresses recur from sample to sample.
 * A hit is checked by one read: an nmethod's compile id (unique in a JVM's
 * life: a block freed and reused by another nmethod has another), another
 * blob's first 16 bytes (stubs and the interpreter live as long as the JVM).
 */
struct blob_entry {
	struct hmap_node node;
	uint32_t pid;
	uint64_t pc;
	struct hotspot_blob b;
	uint8_t head[16];
};

#define HS_BLOBS_KEPT	(64 * 1024)

static struct hmap blobs;

static bool blob_eq(const struct hmap_node *n, const void *key)
{
	const struct blob_entry *a = (const struct blob_entry *)n, *k = key;

	return a->pid == k->pid && a->pc == k->pc;
}

static void reuse_seen(uint32_t pid);

static bool blob_still(uint32_t pid, const struct hotspot_meta *m, const struct blob_entry *e)
{
	uint8_t head[16];
	int64_t id;

	if (e->b.kind == HOTSPOT_BLOB_NMETHOD)
		return !get_s64(pid, e->b.addr, m->nm_compile_id, &id) && id == e->b.compile_id;
	return !hotspot_mem(pid, e->b.addr, head, sizeof(head)) &&
	       !memcmp(head, e->head, sizeof(head));
}

int hotspot_blob_find(uint32_t pid, const struct hotspot_meta *m, uint64_t pc,
		      struct hotspot_blob *b)
{
	struct blob_entry key = { .pid = pid, .pc = pc }, *e;
	uint64_t h = hash_u64(pc ^ ((uint64_t)pid << 47));

	if (!blobs.buckets && hmap_init(&blobs, 4096))
		return blob_read(pid, m, pc, b);
	e = (struct blob_entry *)hmap_find(&blobs, h, blob_eq, &key);
	if (e && blob_still(pid, m, e)) {
		*b = e->b;
		return 0;
	}
	if (e) {
		/* Other code where code was: names read now may not be the sample's. */
		reuse_seen(pid);
		hmap_remove(&blobs, &e->node);
		free(e);
	}
	if (blob_read(pid, m, pc, b))
		return -ENOENT;
	if (blobs.count >= HS_BLOBS_KEPT)
		hmap_free_all(&blobs);
	if (!blobs.buckets && hmap_init(&blobs, 4096))
		return 0;
	e = malloc(sizeof(*e));
	if (e) {
		e->pid = pid;
		e->pc = pc;
		e->b = *b;
		if (b->kind != HOTSPOT_BLOB_NMETHOD &&
		    hotspot_mem(pid, b->addr, e->head, sizeof(e->head))) {
			free(e);
			return 0;
		}
		hmap_insert(&blobs, &e->node, h);
	}
	return 0;
}

/* A Symbol's text, as Java writes names ('/' as '.'): false if unreadable. */
static bool symbol_text(uint32_t pid, const struct hotspot_meta *m, uint64_t sym, char *out,
			size_t cap)
{
	uint64_t len;
	size_t i;

	if (!sym || get_u64(pid, sym, m->sym_length, &len) || !len || len >= cap ||
	    len > HS_MAX_SYMBOL || hotspot_mem(pid, sym + m->sym_body.off, out, len))
		return false;
	out[len] = 0;
	for (i = 0; i < len; i++) {
		if (out[i] == '/')
			out[i] = '.';
		else if ((unsigned char)out[i] < 0x20)
			return false;
	}
	return true;
}

/* The Symbol in slot index of constant pool cp: 0 if none. */
static uint64_t cp_symbol(uint32_t pid, const struct hotspot_meta *m, uint64_t cp, uint64_t index)
{
	uint64_t sym = 0;

	if (!index || index > 65535 || hotspot_mem(pid, cp + m->cp_size + 8 * index, &sym, 8))
		return 0;
	return sym;
}

static bool method_eq(const struct hmap_node *n, const void *key)
{
	const struct hs_method *a = (const struct hs_method *)n, *b = key;

	return a->pid == b->pid && a->method == b->method;
}

/*
 * Why a method named once is named again.  A Method's memory is freed
 * when its class is unloaded (or redefined, by an agent), and the next
 * class of the same shape goes where it was: two classes of one shape
 * loaded in turn by loaders thrown away had their Klass at one address
 * each time, and every sample of the second one's method was named as
 * the first's (tests/workloads/jit/Reload.java).  So a JVM's named
 * methods hold for an epoch: a stack's naming starts by reading the
 * JVM's count of unloaded classes, and when it moved, each method is read
 * again at its next use.
 *
 * Read again, a method is as it is now, not as it was at the sample: a
 * sample taken just before its class was unloaded and the next one put
 * there (all within the ~20 ms before record reads it) came out named as
 * the next one, 1 of ~620 samples in each of 5 runs of Reload.  The count
 * moves at the unloading, before the memory is freed and used again: a
 * stack taken after the count was last seen as it is now is named, one
 * taken before is not (its Java frames stay unknown), and the count is
 * read again once the stack is named.
 *
 * With no count to read (-XX:-UsePerfData, -XX:+PerfDisableSharedMem),
 * or with an agent that may redefine classes, every stack is its own
 * epoch, and what tells of a reuse is a method read again under another
 * name than before, or a pc seen in another nmethod than before (code
 * freed and compiled into again: that one with or without the count):
 * from then on, as if the count had moved.  Memory first read after its
 * reuse is not told so: without the count, 0 to 2 of Reload's ~870
 * samples named in a run were named as the class after theirs (6 runs).
 * With the count, none in 12 runs, and ~410 of its ~890 samples in spin
 * not named (a class is unloaded there every ~55 ms; Hot.java, whose
 * classes stay, loses none to this).
 */
struct hs_jvm {
	struct hmap_node node;
	uint32_t pid;
	bool counted;			/* the count is read (else: every stack an epoch) */
	bool reused;			/* memory seen holding another method or code than before */
	uint64_t unloaded;		/* the count, as last read */
	uint64_t since_ns;		/* since when names hold (0: since the first reading) */
	uint64_t epoch;
};

static struct hmap jvms;

static bool jvm_eq(const struct hmap_node *n, const void *key)
{
	return ((const struct hs_jvm *)n)->pid == *(const uint32_t *)key;
}

static struct hs_jvm *jvm_of(uint32_t pid)
{
	if (!jvms.buckets)
		return NULL;
	return (struct hs_jvm *)hmap_find(&jvms, hash_u64(pid), jvm_eq, &pid);
}

static void reuse_seen(uint32_t pid)
{
	struct hs_jvm *j = jvm_of(pid);

	if (j)
		j->reused = true;
}

/* Whether j's count moved since it was last read (false: it could not be read). */
static bool count_moved(uint32_t pid, const struct hotspot_meta *m, struct hs_jvm *j,
			bool *readable)
{
	uint64_t count;

	*readable = !hotspot_mem(pid, m->unloaded_count, &count, sizeof(count));
	if (!*readable || count == j->unloaded)
		return false;
	j->unloaded = count;
	return true;
}

/*
 * The JVM's count of unloaded classes and its flag that classes may be
 * redefined, in one read (two were ~10% of a Java stack's naming): 0, or
 * -EFAULT.
 */
static int state_read(uint32_t pid, const struct hotspot_meta *m, uint64_t *count,
		      uint8_t *redefine)
{
	struct hotspot_piece p[2] = { { m->unloaded_count, count, sizeof(*count) },
				      { m->can_redefine, redefine, sizeof(*redefine) } };

	return hotspot_mem_v(pid, p, 2);
}

bool hotspot_names_begin(uint32_t pid, const struct hotspot_meta *m, uint64_t taken_ns)
{
	struct hs_jvm *j = jvm_of(pid);
	uint64_t count = 0;
	uint8_t redefine = 1;
	bool first = !j;

	if (!j) {
		if (!jvms.buckets && hmap_init(&jvms, 64))
			return false;
		j = calloc(1, sizeof(*j));
		if (!j)
			return false;
		j->pid = pid;
		j->epoch = 1;
		hmap_insert(&jvms, &j->node, hash_u64(pid));
	}
	if (m->unloaded_count && m->can_redefine && state_read(pid, m, &count, &redefine))
		return false;
	j->counted = m->unloaded_count && m->can_redefine && !redefine;
	if (!j->counted) {
		j->epoch++;
	} else if (first) {
		/* What moved before it was first seen is not known: taken as not. */
		j->unloaded = count;
	} else if (count != j->unloaded) {
		j->unloaded = count;
		j->since_ns = mono_ns();
		j->epoch++;
	}
	return taken_ns >= j->since_ns;
}

bool hotspot_names_end(uint32_t pid, const struct hotspot_meta *m)
{
	struct hs_jvm *j = jvm_of(pid);
	bool readable, moved;

	if (!j)
		return false;
	readable = true;
	moved = (j->counted && count_moved(pid, m, j, &readable)) || j->reused;
	j->reused = false;
	if (!moved)
		return readable;
	j->since_ns = mono_ns();
	j->epoch++;
	return false;
}

/*
 * The method at address method of pid, read into e (its name, file, line
 * table): 0, or -ENOENT (it reads as no method; nothing kept).
 */
static int method_read(uint32_t pid, const struct hotspot_meta *m, uint64_t method,
		       struct hs_method *e)
{
	uint64_t cm, cp, holder, kname, idx, flags, code_size, sfile;
	char cls[HS_MAX_SYMBOL + 1], meth[HS_MAX_SYMBOL + 1], buf[2 * HS_MAX_SYMBOL + 4];

	if (!method || get_u64(pid, method, m->method_const, &cm) || !cm ||
	    get_u64(pid, cm, m->cm_constants, &cp) || !cp ||
	    get_u64(pid, cp, m->cp_holder, &holder) || !holder ||
	    get_u64(pid, holder, m->klass_name, &kname) ||
	    !symbol_text(pid, m, kname, cls, sizeof(cls)) ||
	    get_u64(pid, cm, m->cm_name_index, &idx) ||
	    !symbol_text(pid, m, cp_symbol(pid, m, cp, idx), meth, sizeof(meth)))
		return -ENOENT;
	snprintf(buf, sizeof(buf), "%s.%s", cls, meth);
	e->name = intern(buf);
	if (!e->name)
		return -ENOENT;
	e->file = NULL;
	if (!get_u64(pid, m->source_in_klass ? holder : cp, m->cp_source_file, &sfile) &&
	    symbol_text(pid, m, cp_symbol(pid, m, cp, sfile), buf, sizeof(buf)))
		e->file = intern(buf);
	e->cache = 0;
	if (m->cp_cache.width)
		get_u64(pid, cp, m->cp_cache, &e->cache);
	e->code = cm + m->cm_size;
	e->code_size = 0;
	if (!get_u64(pid, cm, m->cm_code_size, &code_size))
		e->code_size = (uint32_t)code_size;
	e->lines = NULL;
	e->lines_len = 0;
	/*
	 * The line number table follows the bytecodes (constMethod.hpp); it
	 * ends at a 0 byte, read up to the bound.
	 */
	if (!get_u64(pid, cm, m->cm_flags, &flags) && (flags & (uint64_t)m->cm_has_lines) &&
	    e->code_size && line_bytes < HS_LINE_BYTES_ALL) {
		uint8_t *t = malloc(HS_MAX_LINE_TABLE);
		uint32_t len = 0, chunk = 256;

		while (t && len < HS_MAX_LINE_TABLE) {
			if (chunk > HS_MAX_LINE_TABLE - len)
				chunk = HS_MAX_LINE_TABLE - len;
			if (hotspot_mem(pid, e->code + e->code_size + len, t + len, chunk)) {
				/* The table's end may be near its page's end: bytes one by one. */
				if (chunk == 1)
					break;
				chunk = 1;
				continue;
			}
			len += chunk;
			if (memchr(t + len - chunk, 0, chunk))
				break;
		}
		if (t && len) {
			e->lines = realloc(t, len);
			e->lines_len = len;
			if (!e->lines)
				e->lines = t;
			line_bytes += len;
		} else {
			free(t);
		}
	}
	return 0;
}

static void method_release(struct hmap_node *node)
{
	struct hs_method *e = (struct hs_method *)node;

	line_bytes -= e->lines ? e->lines_len : 0;
	free(e->lines);
	free(e);
	nmethods_cached--;
}

/*
 * The method at address method of pid, named, as of this stack's epoch
 * (hotspot_names_begin): NULL if it reads as no method.  An entry read in
 * an earlier epoch is read again in place: a pointer returned stays good
 * through the stack.
 */
static const struct hs_method *method_get(uint32_t pid, const struct hotspot_meta *m,
					  uint64_t method)
{
	struct hs_method key = { .pid = pid, .method = method }, *e;
	uint64_t h = hash_u64(method ^ ((uint64_t)pid << 48));
	struct hs_jvm *j = jvm_of(pid);
	uint64_t epoch = j ? j->epoch : 0;

	if (!methods.buckets && hmap_init(&methods, 1024))
		return NULL;
	e = (struct hs_method *)hmap_find(&methods, h, method_eq, &key);
	if (e && epoch && e->epoch == epoch)
		return e;
	if (e) {
		const char *name = e->name, *file = e->file;

		line_bytes -= e->lines ? e->lines_len : 0;
		free(e->lines);
		e->lines = NULL;
		if (method_read(pid, m, method, e)) {
			hmap_remove(&methods, &e->node);
			method_release(&e->node);
			return NULL;
		}
		/* Names are interned: one name, one pointer. */
		if (j && (e->name != name || e->file != file))
			j->reused = true;
		e->epoch = epoch;
		return e;
	}
	if (nmethods_cached >= HS_METHODS_ALL)
		return NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	if (method_read(pid, m, method, e)) {
		free(e);
		return NULL;
	}
	e->pid = pid;
	e->method = method;
	e->epoch = epoch;
	hmap_insert(&methods, &e->node, h);
	nmethods_cached++;
	return e;
}

static void frame_of(const struct hs_method *e, uint32_t line, struct hotspot_frame *f)
{
	f->name = e->name;
	f->file = e->file;
	f->line = line;
}

int hotspot_interpreted_frame(uint32_t pid, const struct hotspot_meta *m, uint64_t method,
			      uint64_t cache, uint64_t bcp, bool with_line,
			      struct hotspot_frame *out)
{
	const struct hs_method *e = method_get(pid, m, method);
	uint32_t line = 0;

	if (!e || !e->cache || e->cache != cache)
		return -ENOENT;
	if (with_line && bcp >= e->code && bcp < e->code + e->code_size)
		line = hotspot_line_of(e->lines, e->lines_len, m->stream_x, (int64_t)(bcp - e->code));
	frame_of(e, line, out);
	return 0;
}

/*
 * The PcDesc of a return address pc: the one whose pc_offset is pc's own
 * (nmethod.cpp, find_pc_desc): its scope's offset in the scopes data, or
 * -1.  The descriptors are sorted by offset: binary search, in chunks read
 * as needed.
 */
static int64_t pc_scope(uint32_t pid, const struct hotspot_meta *m, uint64_t pcs, uint64_t n,
			uint64_t off)
{
	uint64_t lo = 0, hi = n;
	uint8_t d[64];

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		int32_t at, scope;

		if (hotspot_mem(pid, pcs + mid * m->pcd_size, d, m->pcd_size))
			return -1;
		memcpy(&at, d + m->pcd_pc.off, 4);
		if ((uint64_t)(int64_t)at == off) {
			memcpy(&scope, d + m->pcd_scope.off, 4);
			return scope;
		}
		if ((int64_t)at < (int64_t)off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static int compiled_frames(uint32_t pid, const struct hotspot_meta *m,
			   const struct hotspot_blob *b, uint64_t pc, bool exact,
			   struct hotspot_frame *out, int max)
{
	const struct hs_method *own = method_get(pid, m, b->method);
	uint64_t pcs, pcs_end, scopes, metadata;
	int64_t scope, sv;
	int n = 0, depth;

	if (!own || max <= 0)
		return 0;
	if (exact)
		goto own_only;
	/* Where the descriptors and the scopes are: in the nmethod (17), or beside it (25). */
	if (m->nm_immutable.width) {
		uint64_t imm, reloc;

		if (get_u64(pid, b->addr, m->nm_immutable, &imm) ||
		    get_s64(pid, b->addr, m->nm_pcs_offset, &sv) || sv < 0)
			goto own_only;
		pcs = imm + sv;
		if (get_s64(pid, b->addr, m->nm_scopes_offset, &sv) || sv < 0)
			goto own_only;
		pcs_end = imm + sv;
		scopes = pcs_end;
		if (get_u64(pid, b->addr, m->blob_mutable, &metadata) ||
		    get_u64(pid, b->addr, m->blob_reloc_size, &reloc))
			goto own_only;
		metadata += reloc;
	} else {
		if (get_s64(pid, b->addr, m->nm_pcs_offset, &sv) || sv < 0)
			goto own_only;
		pcs = b->addr + sv;
		if (get_s64(pid, b->addr, m->nm_pcs_end_offset, &sv) || sv < 0)
			goto own_only;
		pcs_end = b->addr + sv;
		if (get_u64(pid, b->addr, m->nm_scopes_begin, &scopes) ||
		    get_s64(pid, b->addr, m->nm_metadata_offset, &sv) || sv < 0)
			goto own_only;
		metadata = b->addr + sv;
	}
	if (pcs_end < pcs || (pcs_end - pcs) / m->pcd_size > HS_MAX_PCDESCS)
		goto own_only;
	scope = pc_scope(pid, m, pcs, (pcs_end - pcs) / m->pcd_size, pc - b->code_begin);
	/* 0: serialized null, no scope recorded */
	if (scope <= 0)
		goto own_only;
	/*
	 * Each scope: its sender's offset, its method (an index into the
	 * metadata table, 1-based), its bci + 1, then what the debugger
	 * needs (debugInfoRec.cpp, scopeDesc.cpp).  Innermost first.
	 */
	for (depth = 0; scope > 0 && depth < HS_MAX_INLINE && n < max; depth++) {
		uint8_t rec[32];
		size_t pos = 0, got = sizeof(rec);
		uint32_t sender, midx, bci1;
		const struct hs_method *e;
		uint64_t method;

		/* A record may end near its page's end: shorter reads then. */
		while (got >= 4 && hotspot_mem(pid, scopes + scope, rec, got))
			got /= 2;
		if (got < 4 || !hotspot_u5_read(rec, got, &pos, m->stream_x, &sender) ||
		    !hotspot_u5_read(rec, got, &pos, m->stream_x, &midx) ||
		    !hotspot_u5_read(rec, got, &pos, m->stream_x, &bci1) || !midx || midx > 65536 ||
		    hotspot_mem(pid, metadata + 8 * (uint64_t)(midx - 1), &method, 8))
			break;
		e = method_get(pid, m, method);
		if (!e)
			break;
		frame_of(e, hotspot_line_of(e->lines, e->lines_len, m->stream_x, (int64_t)bci1 - 1),
			 &out[n++]);
		/* The outermost scope is the nmethod's own method. */
		if (!sender) {
			if (e != own)
				break;
			return n;
		}
		if ((int64_t)sender >= scope)
			break;
		scope = sender;
	}
	n = 0;
own_only:
	frame_of(own, 0, &out[0]);
	return 1;
}

/* The frames of a compiled frame's pc, by (pid, compile id, pc): the same calls recur. */
struct frames_entry {
	struct hmap_node node;
	uint32_t pid;
	int32_t compile_id;
	uint64_t pc;
	bool exact;
	int n;
	struct hotspot_frame f[HS_MAX_INLINE];
};

static struct hmap frames_kept;

static bool frames_eq(const struct hmap_node *n, const void *key)
{
	const struct frames_entry *a = (const struct frames_entry *)n, *k = key;

	return a->pid == k->pid && a->pc == k->pc && a->compile_id == k->compile_id &&
	       a->exact == k->exact;
}

int hotspot_compiled_frames(uint32_t pid, const struct hotspot_meta *m,
			    const struct hotspot_blob *b, uint64_t pc, bool exact,
			    struct hotspot_frame *out, int max)
{
	struct frames_entry key = { .pid = pid, .compile_id = b->compile_id, .pc = pc,
				    .exact = exact }, *e;
	uint64_t h = hash_u64(pc ^ ((uint64_t)pid << 47) ^ ((uint64_t)(uint32_t)b->compile_id << 13));
	int n;

	if (max > HS_MAX_INLINE)
		max = HS_MAX_INLINE;
	if (!frames_kept.buckets && hmap_init(&frames_kept, 4096))
		return compiled_frames(pid, m, b, pc, exact, out, max);
	e = (struct frames_entry *)hmap_find(&frames_kept, h, frames_eq, &key);
	if (e) {
		n = e->n < max ? e->n : max;
		memcpy(out, e->f, n * sizeof(*out));
		return n;
	}
	n = compiled_frames(pid, m, b, pc, exact, out, max);
	if (!n)
		return 0;
	if (frames_kept.count >= HS_BLOBS_KEPT)
		hmap_free_all(&frames_kept);
	if (!frames_kept.buckets && hmap_init(&frames_kept, 4096))
		return n;
	e = malloc(sizeof(*e));
	if (e) {
		*e = key;
		e->n = n;
		memcpy(e->f, out, n * sizeof(*out));
		hmap_insert(&frames_kept, &e->node, h);
	}
	return n;
}

void hotspot_names_forget(uint32_t pid)
{
	if (methods.buckets)
		hmap_remove_pid(&methods, offsetof(struct hs_method, pid), pid, method_release);
	if (blobs.buckets)
		hmap_remove_pid(&blobs, offsetof(struct blob_entry, pid), pid, NULL);
	if (frames_kept.buckets)
		hmap_remove_pid(&frames_kept, offsetof(struct frames_entry, pid), pid, NULL);
	if (jvms.buckets)
		hmap_remove_pid(&jvms, offsetof(struct hs_jvm, pid), pid, NULL);
}
