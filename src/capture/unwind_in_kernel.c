// SPDX-License-Identifier: GPL-2.0
/*
 * In-kernel unwinding, user side: each binary's CFI table goes once into
 * the shared rows (kunwind_chunks: chunks made as tables need them, bounded
 * by --max-table-mb), and each process gets its sorted mapping list
 * pointing at those ranges.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "capture/unwind_in_kernel.h"
#include "symbolize/v8_names.h"
#include "profile/jit_frames.h"
#include "util/bpf_keys.h"
#include "util/clock.h"
#include "profile/stack_tag.h"
#include "profile/stacks.h"

struct kunwind_bin {
	struct hmap_node node;
	struct binary *bin;
	uint32_t slot;
	uint32_t row_first, row_nr;
	uint32_t refs;		/* kernel lists that map it */
	bool loaded;		/* false: did not fit the budget, or dropped */
	bool refused;		/* counted once in tables_refused */
	bool deferred;		/* counted in tables_deferred: no stack needed it yet */
	bool kept;		/* loaded, no list maps it: kept for its next process */
	uint64_t unmapped_ns;	/* when its last list let it go (kept) */
};

/* How often the processes with a list in the kernel are looked for (kunwind_refresh). */
#define KUNWIND_ALIVE_EVERY_NS 1000000000ull

static void live_drop(struct kunwind *kw, size_t i);

static bool bin_eq(const struct hmap_node *n, const void *key)
{
	return ((const struct kunwind_bin *)n)->bin == *(struct binary *const *)key;
}

size_t kunwind_rows_for_mb(double table_mb)
{
	/* The kernel stores array values at 8-byte strides. */
	size_t stride = (sizeof(struct stitch_unwind_row) + 7) & ~(size_t)7;
	size_t rows = table_mb * 1048576.0 / stride;

	/* Row ids are 32 bits: the last chunk's ids must fit. */
	if (rows > (size_t)UINT32_MAX + 1 - KUNWIND_CHUNK_ROWS)
		rows = (size_t)UINT32_MAX + 1 - KUNWIND_CHUNK_ROWS;
	return rows ? rows : 1;
}

size_t kunwind_chunks_for_rows(size_t rows_cap)
{
	return (rows_cap + KUNWIND_CHUNK_ROWS - 1) / KUNWIND_CHUNK_ROWS;
}

int kunwind_init(struct kunwind *kw, int chunks_fd, int procs_fd, size_t rows_cap,
		 double table_mb)
{
	size_t c;

	memset(kw, 0, sizeof(*kw));
	kw->chunks_fd = chunks_fd;
	kw->procs_fd = procs_fd;
	kw->rows_cap = rows_cap;
	kw->table_mb = table_mb;
	kw->row_stride = (sizeof(struct stitch_unwind_row) + 7) & ~(size_t)7;
	kw->nchunks = kunwind_chunks_for_rows(rows_cap);
	kw->chunk_fd = malloc(kw->nchunks * sizeof(*kw->chunk_fd));
	kw->chunk_rows = calloc(kw->nchunks, sizeof(*kw->chunk_rows));
	if (!kw->chunk_fd || !kw->chunk_rows)
		return -ENOMEM;
	for (c = 0; c < kw->nchunks; c++)
		kw->chunk_fd[c] = -1;
	/*
	 * With a kernel, the rows are written through a mapping of just the
	 * range being written (rows_write): a mapping of a whole chunk has
	 * every page resident at once (the kernel maps them all at mmap), so
	 * -a's old 64 MiB array was 64 MiB of our RSS over and above the
	 * kernel's own copy.
	 */
	if (chunks_fd < 0) {
		/* No kernel (tests): the rows live in plain memory. */
		kw->rows_mem = calloc(rows_cap ? rows_cap : 1, kw->row_stride);
		if (!kw->rows_mem)
			return -ENOMEM;
	}
	kw->scratch = calloc(1, sizeof(*kw->scratch));
	kw->check = calloc(1, sizeof(*kw->check));
	if (!kw->scratch || !kw->check || hmap_init(&kw->by_bin, 64))
		return -ENOMEM;
	return 0;
}

void kunwind_free(struct kunwind *kw)
{
	size_t c;

	free(kw->rows_mem);
	/* Lists first: dropping them looks their binaries up. */
	while (kw->nlive)
		live_drop(kw, kw->nlive - 1);
	hmap_free_all(&kw->by_bin);
	for (c = 0; kw->chunk_fd && c < kw->nchunks; c++)
		if (kw->chunk_fd[c] >= 0)
			close(kw->chunk_fd[c]);
	free(kw->chunk_fd);
	free(kw->chunk_rows);
	free(kw->slots);
	free(kw->dirty);
	free(kw->fresh);
	free(kw->live);
	free(kw->free);
	free(kw->retired);
	free(kw->scratch);
	free(kw->check);
	memset(kw, 0, sizeof(*kw));
}

struct binary *kunwind_slot_binary(const struct kunwind *kw, uint32_t slot)
{
	return slot < kw->nslots ? kw->slots[slot] : NULL;
}

/* ---- chunks: made when a table first needs one, gone with its last row ---- */

static int chunk_create(struct kunwind *kw, uint32_t c)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_MMAPABLE);
	int fd;

	if (kw->chunks_fd < 0)
		return 0;
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "ku_rows", sizeof(uint32_t),
			    sizeof(struct stitch_unwind_row), KUNWIND_CHUNK_ROWS, &opts);
	if (fd < 0)
		return -errno;
	if (bpf_map_update_elem(kw->chunks_fd, &c, &fd, BPF_ANY)) {
		int err = -errno;

		close(fd);
		return err;
	}
	kw->chunk_fd[c] = fd;
	return 0;
}

/*
 * The chunk's last rows were freed: no list names them, and every program
 * that could have been reading them has finished (rows_release).  A stale
 * row cache entry pointing in finds no chunk, or the rows of a later table,
 * which it never takes for its own (ku_find_row_cached).
 */
static void chunk_destroy(struct kunwind *kw, uint32_t c)
{
	if (kw->chunk_fd[c] < 0)
		return;
	bpf_map_delete_elem(kw->chunks_fd, &c);
	close(kw->chunk_fd[c]);
	kw->chunk_fd[c] = -1;
}

/* Rows of [first, first + nr) in chunk c. */
static uint32_t chunk_share(uint32_t c, uint64_t first, size_t nr)
{
	uint64_t lo = (uint64_t)c << KUNWIND_CHUNK_BITS, hi = lo + KUNWIND_CHUNK_ROWS;

	if (first > lo)
		lo = first;
	if (first + nr < hi)
		hi = first + nr;
	return hi > lo ? hi - lo : 0;
}

/* Rows [first, first + nr) go back: chunks left with none go. */
static void chunks_put(struct kunwind *kw, uint64_t first, size_t nr)
{
	uint32_t c;

	if (!nr)
		return;
	for (c = first >> KUNWIND_CHUNK_BITS; c <= (first + nr - 1) >> KUNWIND_CHUNK_BITS; c++) {
		kw->chunk_rows[c] -= chunk_share(c, first, nr);
		if (!kw->chunk_rows[c]) {
			chunk_destroy(kw, c);
			kw->chunks_live--;
		}
	}
}

/* Rows [first, first + nr) are taken: make the chunks they lie in.  0 or -errno. */
static int chunks_get(struct kunwind *kw, uint64_t first, size_t nr)
{
	uint64_t lo;
	uint32_t c;
	int err;

	if (!nr)
		return 0;
	for (c = first >> KUNWIND_CHUNK_BITS; c <= (first + nr - 1) >> KUNWIND_CHUNK_BITS; c++) {
		if (!kw->chunk_rows[c]) {
			err = chunk_create(kw, c);
			if (err) {
				lo = (uint64_t)c << KUNWIND_CHUNK_BITS;
				chunks_put(kw, first, lo > first ? lo - first : 0);
				return err;
			}
			kw->chunks_live++;
		}
		kw->chunk_rows[c] += chunk_share(c, first, nr);
	}
	return 0;
}

/* ---- row ranges: first fit from freed ranges, else past the high-water mark ---- */

/*
 * Where a table of nr rows goes at or after from: in one chunk, so that
 * the walk looks its chunk up once per search (ku_search_row), unless it
 * is larger than a chunk.
 */
static uint64_t rows_place(uint64_t from, size_t nr)
{
	if (nr <= KUNWIND_CHUNK_ROWS && from >> KUNWIND_CHUNK_BITS !=
	    (from + nr - 1) >> KUNWIND_CHUNK_BITS)
		return (from | (KUNWIND_CHUNK_ROWS - 1)) + 1;
	return from;
}

static void free_insert(struct kunwind *kw, uint32_t first, uint32_t nr);

static bool rows_alloc(struct kunwind *kw, size_t nr, uint32_t *first)
{
	uint64_t at, end;
	size_t i;

	for (i = 0; i < kw->nfree; i++) {
		struct kunwind_range f = kw->free[i];

		at = rows_place(f.first, nr);
		end = (uint64_t)f.first + f.nr;
		if (at + nr > end)
			continue;
		if (chunks_get(kw, at, nr))
			return false;
		memmove(&kw->free[i], &kw->free[i + 1], (--kw->nfree - i) * sizeof(kw->free[0]));
		/* What is left on either side stays free. */
		if (at > f.first)
			free_insert(kw, f.first, at - f.first);
		if (end > at + nr)
			free_insert(kw, at + nr, end - at - nr);
		*first = at;
		return true;
	}
	at = rows_place(kw->rows_used, nr);
	if (at + nr > kw->rows_cap || chunks_get(kw, at, nr))
		return false;
	/* Skipped to a chunk's start: the gap is free for smaller tables. */
	if (at > kw->rows_used)
		free_insert(kw, kw->rows_used, at - kw->rows_used);
	*first = at;
	kw->rows_used = at + nr;
	return true;
}

/* A range no list points at any more: reusable once running programs are done with it. */
static void rows_retire(struct kunwind *kw, uint32_t first, uint32_t nr)
{
	struct kunwind_range *r;

	if (!nr)
		return;
	if (kw->nretired == kw->retired_cap) {
		size_t cap = kw->retired_cap ? kw->retired_cap * 2 : 16;
		struct kunwind_range *n = realloc(kw->retired, cap * sizeof(*n));

		if (!n)
			return;	/* leaked to the budget, never reused: safe */
		kw->retired = n;
		kw->retired_cap = cap;
	}
	r = &kw->retired[kw->nretired++];
	r->first = first;
	r->nr = nr;
	r->gen = mono_ns();
	kw->rows_live -= nr;
}

/* Insert into the sorted free list, merging neighbours. */
static void free_insert(struct kunwind *kw, uint32_t first, uint32_t nr)
{
	size_t i = 0;

	while (i < kw->nfree && kw->free[i].first < first)
		i++;
	if (i > 0 && kw->free[i - 1].first + kw->free[i - 1].nr == first) {
		kw->free[i - 1].nr += nr;
		if (i < kw->nfree && first + nr == kw->free[i].first) {
			kw->free[i - 1].nr += kw->free[i].nr;
			memmove(&kw->free[i], &kw->free[i + 1], (--kw->nfree - i) * sizeof(kw->free[0]));
		}
		return;
	}
	if (i < kw->nfree && first + nr == kw->free[i].first) {
		kw->free[i].first = first;
		kw->free[i].nr += nr;
		return;
	}
	if (kw->nfree == kw->free_cap) {
		size_t cap = kw->free_cap ? kw->free_cap * 2 : 16;
		struct kunwind_range *n = realloc(kw->free, cap * sizeof(*n));

		if (!n)
			return;
		kw->free = n;
		kw->free_cap = cap;
	}
	memmove(&kw->free[i + 1], &kw->free[i], (kw->nfree - i) * sizeof(kw->free[0]));
	kw->free[i] = (struct kunwind_range){ first, nr, 0 };
	kw->nfree++;
}

/* Rows given back: free for other tables, and their chunks go when emptied. */
static void rows_free(struct kunwind *kw, uint32_t first, uint32_t nr)
{
	free_insert(kw, first, nr);
	chunks_put(kw, first, nr);
}

/*
 * Ranges retired 100 ms ago: every program that could have been walking
 * them when their last list went has finished (a walk takes at most
 * ~100 us: KUNWIND_MAX_FRAMES steps).
 */
static void rows_release(struct kunwind *kw)
{
	uint64_t now = mono_ns();
	size_t i, keep = 0;

	for (i = 0; i < kw->nretired; i++) {
		if (now - kw->retired[i].gen >= 100000000ull)
			rows_free(kw, kw->retired[i].first, kw->retired[i].nr);
		else
			kw->retired[keep++] = kw->retired[i];
	}
	kw->nretired = keep;
}

/* Rows [first, first + n) of table t (from its row i) into chunk c: 0 or -errno. */
static int chunk_write(struct kunwind *kw, uint32_t c, uint32_t off, const struct unwind_table *t,
		       size_t i, size_t n)
{
	size_t page = sysconf(_SC_PAGESIZE), j;
	size_t lo = off * kw->row_stride, hi = (off + n) * kw->row_stride;
	size_t map_lo = lo & ~(page - 1), map_len = ((hi + page - 1) & ~(page - 1)) - map_lo;
	uint8_t *mem;

	mem = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_SHARED, kw->chunk_fd[c], map_lo);
	if (mem == MAP_FAILED)
		return -errno;
	for (j = 0; j < n; j++)
		memcpy(mem + lo - map_lo + j * kw->row_stride, &t->rows[i + j], sizeof(t->rows[0]));
	munmap(mem, map_len);
	return 0;
}

/* t's rows from row id first: 0 or -errno. */
static int rows_write(struct kunwind *kw, uint32_t first, const struct unwind_table *t)
{
	size_t i, n;
	uint64_t id;
	int err;

	if (!t->nr)
		return 0;
	if (kw->chunks_fd < 0) {
		for (i = 0; i < t->nr; i++)
			memcpy(kw->rows_mem + (first + i) * kw->row_stride, &t->rows[i],
			       sizeof(t->rows[i]));
		return 0;
	}
	for (i = 0; i < t->nr; i += n) {
		id = (uint64_t)first + i;
		n = KUNWIND_CHUNK_ROWS - (id & (KUNWIND_CHUNK_ROWS - 1));
		if (n > t->nr - i)
			n = t->nr - i;
		err = chunk_write(kw, id >> KUNWIND_CHUNK_BITS, id & (KUNWIND_CHUNK_ROWS - 1), t, i, n);
		if (err)
			return err;
	}
	return 0;
}

/* Its rows leave the kernel (reusable once running walks are done). */
static void bin_drop_rows(struct kunwind *kw, struct kunwind_bin *kb)
{
	rows_retire(kw, kb->row_first, kb->row_nr);
	kb->loaded = false;
	kb->row_first = kb->row_nr = 0;
	kw->tables_dropped++;
}

/* A kept table mapped again, or dropped: no longer counted as kept. */
static void kept_take(struct kunwind *kw, struct kunwind_bin *kb)
{
	if (!kb->kept)
		return;
	kb->kept = false;
	kw->rows_kept -= kb->row_nr;
}

/* Drop the kept table unmapped longest ago: false if none is kept. */
static bool kept_evict_oldest(struct kunwind *kw)
{
	struct kunwind_bin *old = NULL, *kb;
	struct hmap_node *n;
	size_t i;

	hmap_for_each(&kw->by_bin, i, n) {
		kb = (struct kunwind_bin *)n;
		if (kb->kept && (!old || kb->unmapped_ns < old->unmapped_ns))
			old = kb;
	}
	if (!old)
		return false;
	kept_take(kw, old);
	bin_drop_rows(kw, old);
	return true;
}

/* Put the binary's table in the row array; false if it does not fit. */
static bool bin_load(struct kunwind *kw, struct binary_cache *bins, struct kunwind_bin *kb)
{
	const struct unwind_table *t = binary_table(bins, kb->bin);
	uint32_t first;

	if (!rows_alloc(kw, t->nr, &first)) {
		/*
		 * Kept tables make room, once running walks are done with
		 * them (rows_release): until then stacks through this binary
		 * are copied, and its next process list tries again.
		 */
		size_t freed = 0, before = kw->rows_kept;

		while (freed < t->nr && kept_evict_oldest(kw)) {
			freed += before - kw->rows_kept;
			before = kw->rows_kept;
		}
		if (freed)
			return false;
		if (!kb->refused)
			kw->tables_refused++;
		kb->refused = true;
		if (!kw->over_budget_warned) {
			kw->over_budget_warned = true;
			fprintf(stderr, "stitch: unwind tables need more than --max-table-mb %g "
				"(%s has %zu rows): stacks through it are copied and unwound in "
				"user space; raise --max-table-mb to keep them in the kernel\n",
				kw->table_mb, kb->bin->name ? kb->bin->name : kb->bin->path, t->nr);
		}
		return false;
	}
	if (rows_write(kw, first, t) != 0) {
		kw->rows_live += t->nr;	/* never live: rows_retire takes them off again */
		rows_retire(kw, first, t->nr);
		return false;
	}
	kb->row_first = first;
	kb->row_nr = t->nr;
	kb->loaded = true;
	kw->rows_live += t->nr;
	kw->tables_loaded++;
	if (kw->verbose)
		fprintf(stderr, "stitch: unwind table of %s in the kernel (%zu rows)\n",
			kb->bin->path, t->nr);
	return true;
}

/*
 * Whether the binary's table goes in now.  Lazy (kw->lazy), only once a
 * stack needed it: its table was built for a copied stack's unwind
 * (profile/copy_unwind.c), whose process decode.c marked for a rewrite.
 * Until then the list names the binary without a table, and the kernel
 * hands over the stacks that enter it, copied: their first samples are
 * whole, only dearer.
 */
static bool bin_wanted(const struct kunwind *kw, const struct kunwind_bin *kb)
{
	return !kw->lazy || kb->bin->table_built;
}

/* The binary's slot and row range, loading its table when it is not in. */
static struct kunwind_bin *bin_entry(struct kunwind *kw, struct binary_cache *bins,
				     struct binary *b)
{
	uint64_t h = hash_u64((uintptr_t)b);
	struct kunwind_bin *kb = (struct kunwind_bin *)hmap_find(&kw->by_bin, h, bin_eq, &b);

	if (kb) {
		if (!kb->loaded && bin_wanted(kw, kb) && bin_load(kw, bins, kb) && kb->deferred) {
			kb->deferred = false;
			kw->tables_deferred--;
		}
		return kb;
	}
	/* Slots are never reused: records in flight may still name them. */
	if (kw->nslots >= KUNWIND_MAX_SLOTS)
		return NULL;
	if (kw->nslots == kw->slots_cap) {
		size_t cap = kw->slots_cap ? kw->slots_cap * 2 : 64;
		struct binary **s = realloc(kw->slots, cap * sizeof(*s));

		if (!s)
			return NULL;
		kw->slots = s;
		kw->slots_cap = cap;
	}
	kb = calloc(1, sizeof(*kb));
	if (!kb)
		return NULL;
	kb->bin = b;
	kb->slot = kw->nslots;
	kw->slots[kw->nslots++] = b;
	if (bin_wanted(kw, kb)) {
		bin_load(kw, bins, kb);
	} else {
		kb->deferred = true;
		kw->tables_deferred++;
	}
	hmap_insert(&kw->by_bin, &kb->node, h);
	return kb;
}

static struct kunwind_bin *bin_of_slot(struct kunwind *kw, uint32_t slot)
{
	struct binary *b = kunwind_slot_binary(kw, slot);

	return b ? (struct kunwind_bin *)hmap_find(&kw->by_bin, hash_u64((uintptr_t)b), bin_eq,
						   &b) : NULL;
}

/* Tables referenced by the kernel's lists: a table nobody maps any more goes. */
static void bin_unref(struct kunwind *kw, uint32_t slot)
{
	struct kunwind_bin *kb = bin_of_slot(kw, slot);

	if (!kb || !kb->refs || --kb->refs || !kb->loaded)
		return;
	/*
	 * The whole host (-a): what a build runs again and again (cc1, as,
	 * python3) keeps its rows for its next process, up to rows_kept_cap.
	 * Loading cc1's 478,579 rows at each of its starts, and dropping them
	 * at each exit, was 47% of the agent's CPU over a gcc/python3 churn.
	 */
	if (kw->rows_kept_cap && kb->row_nr <= kw->rows_kept_cap) {
		kb->kept = true;
		kb->unmapped_ns = mono_ns();
		kw->rows_kept += kb->row_nr;
		while (kw->rows_kept > kw->rows_kept_cap && kept_evict_oldest(kw))
			;
		return;
	}
	bin_drop_rows(kw, kb);
}

bool kunwind_release_binary(struct kunwind *kw, struct binary *b)
{
	uint64_t h = hash_u64((uintptr_t)b);
	struct kunwind_bin *kb = (struct kunwind_bin *)hmap_find(&kw->by_bin, h, bin_eq, &b);

	if (!kb)
		return true;
	if (kb->refs || kb->loaded)
		return false;
	/* Its slot names nothing from now on: a stale word is refused, never misnamed. */
	kw->slots[kb->slot] = NULL;
	hmap_remove(&kw->by_bin, &kb->node);
	free(kb);
	return true;
}

int kunwind_build_proc(struct kunwind *kw, struct binary_cache *bins, const struct proc *p,
		       struct kunwind_proc *out)
{
	const struct v8_meta *v8 = NULL;
	bool jvm = procs_maps_jvm(p);
	size_t i;

	if (p->nr > KUNWIND_MAX_MAPS)
		return -E2BIG;
	out->nr = 0;
	out->gen = 0;	/* set when written, outside the list's hash */
	out->v8_fp_function = 0;
	out->v8_fp_context = 0;
	out->v8_fn_shared = 0;
	out->v8_fp_bytecode_offset = 0;
	for (i = 0; i < p->nr; i++) {
		const struct map *m = &p->maps[i];
		struct kunwind_map *km;
		struct kunwind_bin *kb;

		/*
		 * [vsyscall] (0xffffffffff600000): the walk's branch-free search
		 * compares addresses below 2^63 only (ku_le_mask), and with this
		 * page last it missed the mapping before it, often ld.so's
		 * (__tls_get_addr: 3% of a Ruby profile's samples were copied).
		 * No code runs there; a pc in it goes to user space, as any
		 * pc in no mapping.
		 */
		if ((m->start | (m->end - 1)) >> 63)
			continue;
		/*
		 * [uprobes], where a uretprobe's trampoline runs: the walk
		 * looks a return address through the thread's return instances
		 * (ku_uret_orig) only when it lies in no mapping of the list.
		 * The page appears at the first uretprobe hit, so a list written
		 * after that (its mmap event, any rewrite) had every trampoline
		 * stop the walk as code without a table: [unknown] above each
		 * function stitch latency times (0-90% of a run's slow time in
		 * test_latency_function_lock_breakdown, one run in ~8).
		 */
		if (m->uprobes)
			continue;
		km = &out->maps[out->nr++];
		kb = m->bin ? bin_entry(kw, bins, m->bin) : NULL;
		memset(km, 0, sizeof(*km));
		km->start = m->start;
		km->end = m->end;
		km->slot = KUNWIND_NO_SLOT;
		if (m->bin && !kb) {
			/* No slot for it: make the kernel hand this stack over. */
			out->nr--;
			continue;
		}
		/*
		 * A JVM's code cache: its compiled frames keep no frame pointer
		 * and have no CFI, only their size in their nmethod, which the
		 * user-space walk reads (profile/hotspot_frames.h).  Left out,
		 * a pc in it makes the kernel hand the stack over.
		 */
		if (!kb && m->anon && jvm) {
			out->nr--;
			continue;
		}
		if (!kb) {
			if (m->anon)
				km->flags = KUNWIND_MAP_ANON;
			continue;
		}
		if (!v8)
			v8 = binary_v8(m->bin);
		km->bias = m->bias;
		km->slot = kb->slot;
		if (kb->loaded) {
			km->flags = KUNWIND_MAP_TABLE;
			km->row_first = kb->row_first;
			km->row_nr = kb->row_nr;
		} else {
			km->flags = KUNWIND_MAP_NO_TABLE;
		}
	}
	if (v8) {
		out->v8_fp_function = v8->fp_function;
		out->v8_fp_context = v8->fp_context;
		out->v8_fn_shared = v8->fn_shared;
		out->v8_fp_bytecode_offset = v8->bc_known ? v8->fp_bytecode_offset : 0;
		v8_names_watch(p->pid, v8);
	}
	return out->nr;
}

/* Index of pid in the live set, or -1. */
static ssize_t live_index(const struct kunwind *kw, uint32_t pid)
{
	size_t i;

	for (i = 0; i < kw->nlive; i++)
		if (kw->live[i].pid == pid)
			return i;
	return -1;
}

/* Drop live entry i: its list is gone from the kernel; release its tables. */
static void live_drop(struct kunwind *kw, size_t i)
{
	struct kunwind_live *l = &kw->live[i];
	uint32_t j;

	for (j = 0; j < l->nslots; j++)
		bin_unref(kw, l->slots[j]);
	free(l->slots);
	kw->live[i] = kw->live[--kw->nlive];
}

/* Record what pid's list in the kernel now references (slots of list). */
static void live_set(struct kunwind *kw, uint32_t pid, uint64_t hash,
		     const struct kunwind_proc *list)
{
	ssize_t i = live_index(kw, pid);
	struct kunwind_live *l;
	uint32_t j, *slots = malloc((list->nr + 1) * sizeof(*slots)), n = 0;
	struct kunwind_bin *kb;

	/* Take the new references before dropping the old: shared tables stay. */
	for (j = 0; slots && j < list->nr; j++) {
		if (list->maps[j].slot == KUNWIND_NO_SLOT)
			continue;
		kb = bin_of_slot(kw, list->maps[j].slot);
		if (kb) {
			if (kb->kept)
				kw->tables_reused++;
			kept_take(kw, kb);
			kb->refs++;
			slots[n++] = list->maps[j].slot;
		}
	}
	if (i >= 0)
		live_drop(kw, i);
	if (kw->nlive == kw->live_cap) {
		size_t cap = kw->live_cap ? kw->live_cap * 2 : 64;
		struct kunwind_live *nl = realloc(kw->live, cap * sizeof(*nl));

		if (!nl) {
			/* Cannot track it: keep its references forever rather than free early. */
			free(slots);
			return;
		}
		kw->live = nl;
		kw->live_cap = cap;
	}
	l = &kw->live[kw->nlive++];
	l->pid = pid;
	l->hash = hash;
	l->slots = slots;
	l->nslots = slots ? n : 0;
}

int kunwind_sync_proc(struct kunwind *kw, struct binary_cache *bins, const struct proc *p)
{
	int n = kunwind_build_proc(kw, bins, p, kw->scratch);
	uint64_t hash;
	ssize_t i;

	if (n < 0) {
		/* Too many mappings to search: this process's stacks are copied. */
		kunwind_forget(kw, p->pid);
		return n;
	}
	/* Events that fall back for good (a table over budget) must not rewrite it each time. */
	hash = hash_bytes(kw->scratch, offsetof(struct kunwind_proc, maps) +
			  n * sizeof(struct kunwind_map), 0);
	i = live_index(kw, p->pid);
	/* Unchanged, and still there (exec and exit remove it in the kernel). */
	if (i >= 0 && kw->live[i].hash == hash &&
	    (kw->procs_fd < 0 || bpf_map_lookup_elem(kw->procs_fd, &p->pid, kw->check) == 0))
		return 0;
	if (++kw->proc_gen == 0)
		kw->proc_gen = 1;
	kw->scratch->gen = kw->proc_gen;
	if (kw->procs_fd >= 0 && bpf_map_update_elem(kw->procs_fd, &p->pid, kw->scratch, BPF_ANY))
		return -errno;
	kw->procs_written++;
	live_set(kw, p->pid, hash, kw->scratch);
	return 0;
}

void kunwind_forget(struct kunwind *kw, uint32_t pid)
{
	ssize_t i = live_index(kw, pid);

	if (kw->procs_fd >= 0)
		bpf_map_delete_elem(kw->procs_fd, &pid);
	if (i >= 0)
		live_drop(kw, i);
}

void kunwind_forget_all(struct kunwind *kw)
{
	while (kw->nlive)
		kunwind_forget(kw, kw->live[kw->nlive - 1].pid);
}

static bool pid_set_has(const uint32_t *set, size_t n, uint32_t pid)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (set[i] == pid)
			return true;
	return false;
}

/* Add pid to a small set kept as an array. */
static void pid_set_add(uint32_t **set, size_t *n, size_t *cap, uint32_t pid)
{
	if (pid_set_has(*set, *n, pid))
		return;
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		uint32_t *d = realloc(*set, c * sizeof(*d));

		if (!d)
			return;
		*set = d;
		*cap = c;
	}
	(*set)[(*n)++] = pid;
}

void kunwind_mark_dirty(struct kunwind *kw, uint32_t pid)
{
	pid_set_add(&kw->dirty, &kw->ndirty, &kw->dirty_cap, pid);
}

void kunwind_mark_new(struct kunwind *kw, uint32_t pid)
{
	pid_set_add(&kw->fresh, &kw->nfresh, &kw->fresh_cap, pid);
}

/* The fresh pids whose model is current, written if their binaries are all held. */
static void write_fresh(struct kunwind *kw, struct binary_cache *bins, struct procs *ps,
			kunwind_behind_fn is_behind, void *ctx)
{
	uint64_t written;
	size_t i, keep = 0;

	for (i = 0; i < kw->nfresh; i++) {
		uint32_t pid = kw->fresh[i];
		struct proc *p;

		if (is_behind(ctx, pid)) {
			kw->fresh[keep++] = pid;
			continue;
		}
		/* A copied stack asked for it: written below, files opened as needed. */
		if (pid_set_has(kw->dirty, kw->ndirty, pid))
			continue;
		/* A file not held yet: its first stacks are copied, as before. */
		p = procs_find_held(ps, pid);
		if (!p)
			continue;
		written = kw->procs_written;
		kunwind_sync_proc(kw, bins, p);
		kw->procs_written_early += kw->procs_written - written;
		if (kw->verbose && kw->procs_written != written)
			fprintf(stderr, "stitch: the list of process %u in the kernel before its "
				"first stack (its binaries known)\n", pid);
	}
	kw->nfresh = keep;
}

void kunwind_refresh(struct kunwind *kw, struct binary_cache *bins, struct procs *ps,
		     kunwind_behind_fn is_behind, void *ctx)
{
	size_t i, keep = 0;
	bool alive_check = true;

	rows_release(kw);
	write_fresh(kw, bins, ps, is_behind, ctx);
	for (i = 0; i < kw->ndirty; i++) {
		uint32_t pid = kw->dirty[i];
		struct proc *p = procs_find(ps, pid);

		if (is_behind(ctx, pid)) {
			kw->dirty[keep++] = pid;	/* next time, once the model caught up */
			continue;
		}
		/* Gone: its list would only wait for the alive check to go again. */
		if (p && !p->exited_ns)
			kunwind_sync_proc(kw, bins, p);
	}
	kw->ndirty = keep;
	/*
	 * Mappings may have changed while we wrote: anything behind goes.
	 * So do processes that are gone (their tables may go with them),
	 * looked for once a second: the kernel drops an exited process's list
	 * itself, and a kill() for each of a host's sampled processes at every
	 * turn (20 to 100 ms) was 1% of the agent's CPU.
	 */
	if (mono_ns() - kw->alive_checked_ns >= KUNWIND_ALIVE_EVERY_NS)
		kw->alive_checked_ns = mono_ns();
	else
		alive_check = false;
	for (i = 0; i < kw->nlive;) {
		uint32_t pid = kw->live[i].pid;

		if (is_behind(ctx, pid) || (alive_check && kill(pid, 0) != 0 && errno == ESRCH))
			kunwind_forget(kw, pid);	/* moves the last entry to i */
		else
			i++;
	}
}

int kunwind_decode(const struct kunwind *kw, uint32_t pid, const uint64_t *words, int n, int stop,
		   struct uframe *uf, int max)
{
	int i, at = 0;

	if (stop < KUNWIND_STOP_END || stop > KUNWIND_STOP_UNREADABLE || n < 0 ||
	    n > KUNWIND_MAX_FRAMES || n > max)
		return -1;
	for (i = 0; i < n; i++) {
		uint64_t w = words[i];
		struct uframe *f = &uf[at];

		if ((w & KFRAME_KIND_MASK) == KFRAME_V8) {
			uint64_t sfi = 0, bco = 0;

			/* Alone, an SFI word has lost its function's: dropped. */
			if (w & KFRAME_V8_SFI)
				continue;
			if (i + 1 < n && (words[i + 1] & KFRAME_KIND_MASK) == KFRAME_V8 &&
			    (words[i + 1] & KFRAME_V8_SFI)) {
				sfi = words[++i] & KFRAME_V8_FUNC_MASK;
				/* The offset's Smi, as the frame held it (jit_frames_v8()). */
				bco = (words[i] >> KFRAME_V8_BCO_SHIFT) & KFRAME_V8_BCO_MAX;
				bco = bco ? (bco - 1) << 32 : 0;
			}
			if (pid)
				/* Inlined functions too, as long as the words after keep their room. */
				at = jit_frames_v8(pid, w & KFRAME_V8_FUNC_MASK, sfi, bco, uf, at,
						   max - (n - 1 - i));
			continue;
		}
		memset(f, 0, sizeof(*f));
		f->exact = !!(w & KFRAME_EXACT);
		f->by_fp = !!(w & KFRAME_BY_FP);
		if (w & KFRAME_IN_BINARY) {
			f->kind = UFRAME_ELF;
			f->bin = kunwind_slot_binary(kw, (w >> KFRAME_SLOT_SHIFT) &
							 KFRAME_SLOT_MASK);
			f->addr = (uint32_t)w;
			if (!f->bin)
				return -1;
			/* Named at the end: kept past its processes (binary_cache_sweep). */
			f->bin->sampled = true;
		} else {
			f->kind = UFRAME_UNKNOWN;
			f->addr = w & KFRAME_ADDR_MASK;
		}
		at++;
	}
	n = at;
	/* As the user-space unwinder marks it: the stack goes on, or was cut. */
	if (stop != KUNWIND_STOP_END && !(n && uf[n - 1].kind == UFRAME_UNKNOWN)) {
		memset(&uf[n], 0, sizeof(uf[n]));
		uf[n].kind = stop == KUNWIND_STOP_TRUNCATED ? UFRAME_TRUNCATED :
			     stop == KUNWIND_STOP_UNREADABLE ? UFRAME_UNREADABLE : UFRAME_CUT;
		n++;
	}
	return n;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

bool counted_kstack_valid(const struct counted_fds *fds, int32_t kstack_id, uint32_t kgen)
{
	uint64_t pair = (uint64_t)kgen << 32 | (uint32_t)kstack_id;

	if (kstack_id < 0)
		return false;
	if (fds->kstacks_gen[kgen & 1] == kgen)
		return true;
	return fds->nkstacks_kept[kgen & 1] &&
	       bsearch(&pair, fds->kstacks_kept[kgen & 1], fds->nkstacks_kept[kgen & 1],
		       sizeof(pair), u64_cmp);
}

int counted_kstack_get(const struct counted_fds *fds, int32_t kstack_id, uint32_t kgen,
		    uint64_t *kips)
{
	if (!counted_kstack_valid(fds, kstack_id, kgen))
		return -ENOENT;
	return bpf_map_lookup_elem(fds->kstacks[kgen & 1], &kstack_id, kips) ? -ENOENT : 0;
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

uint32_t counted_kstacks_flip(const int fds[2], uint32_t gen_of[2], volatile uint32_t *kgen,
			   const uint32_t *keep, size_t nkeep)
{
	uint32_t next = *kgen + 1, id, prev;
	int fd = fds[next & 1];
	bool first = true;

	/*
	 * It holds the stacks of next - 2, taken a whole period ago or more:
	 * no program still writes them, and keys still naming them (an off-CPU
	 * thread blocked since) are told apart by their kgen.  Marked first,
	 * then emptied: a key read meanwhile gets no frames, never a new one's.
	 */
	gen_of[next & 1] = next;
	for (;;) {
		if (bpf_map_get_next_key(fd, first ? NULL : &prev, &id))
			break;
		/*
		 * A kept stack stays where it is: the kernel never stores
		 * another in its place (a stack hashed there is refused, and
		 * sent to user space as a collision; the same stack gets the
		 * same id).
		 */
		if (!nkeep || !bsearch(&id, keep, nkeep, sizeof(id), u32_cmp))
			bpf_map_delete_elem(fd, &id);
		prev = id;
		first = false;
	}
	__atomic_store_n(kgen, next, __ATOMIC_RELEASE);
	return next;
}

int counted_ustack_get(const struct counted_fds *fds, uint64_t hash, struct counted_ustack *u)
{
	/* The hash says which map; the short map's value is a counted_ustack's prefix. */
	if (!(hash & COUNTED_LONG_BIT))
		return bpf_map_lookup_elem(fds->ustacks, &hash, u) == 0 &&
		       u->n <= COUNTED_SHORT_FRAMES ? 0 : -ENOENT;
	return bpf_map_lookup_elem(fds->ustacks_long, &hash, u) == 0 &&
	       u->n <= KUNWIND_MAX_FRAMES ? 0 : -ENOENT;
}

int kunwind_key_build(const struct kunwind *kw, const struct counted_fds *fds,
		      const struct counted_key *key, struct stack_key *sk, struct counted_ustack *u,
		      uint64_t *bytes)
{
	uint64_t kips[COUNTED_KSTACK_DEPTH];
	int nk = 0, nu;

	if (counted_ustack_get(fds, key->uhash, u) != 0)
		return -ENOENT;
	*bytes += sizeof(*key) + sizeof(uint64_t) + 8 + u->n * 8ull;
	memset(sk, 0, sizeof(*sk));
	sk->pid = key->pid;
	sk->tid = key->tid;
	sk->event_idx = key->event_idx;
	memcpy(sk->comm, key->comm, sizeof(sk->comm));
	/* An off-CPU stack's thread state: its innermost frame (stack_tag_frame). */
	if (key->tag)
		((uint64_t *)(sk + 1))[nk++] = key->tag;
	if (counted_kstack_get(fds, key->kstack_id, key->kgen, kips) == 0) {
		int i;

		*bytes += sizeof(kips);
		for (i = 0; i < COUNTED_KSTACK_DEPTH && kips[i]; i++)
			((uint64_t *)(sk + 1))[nk++] = kips[i];
	}
	sk->nkernel = nk;
	nu = kunwind_decode(kw, key->pid, (const uint64_t *)u->words, u->n, u->stop,
			    (struct uframe *)((uint64_t *)(sk + 1) + nk), KUNWIND_MAX_FRAMES);
	if (nu < 0)
		return -EINVAL;
	if (key->ihash && kw->splice.frames) {
		nu = kw->splice.frames(kw->splice.ctx, key,
				       (struct uframe *)((uint64_t *)(sk + 1) + nk), nu,
				       KUNWIND_KEY_UFRAMES, u->stop == KUNWIND_STOP_END);
		if (nu < 0)
			return nu;
	}
	sk->nuser = nu;
	return sizeof(*sk) + nk * sizeof(uint64_t) + nu * sizeof(struct uframe);
}

/*
 * One count key into stacks (objects: into its stack's objects, stops
 * untouched: the same key's events were counted): 0, -EAGAIN if a splice
 * cannot name it yet, or another -errno if its stacks are gone or malformed.
 */
static int add_count(const struct kunwind *kw, const struct counted_fds *fds,
		     const struct counted_key *key, uint64_t count, struct stack_key *sk,
		     struct counted_ustack *u, struct stack_table *stacks, uint64_t *stops,
		     uint64_t *bytes, bool objects)
{
	int kb = kunwind_key_build(kw, fds, key, sk, u, bytes);
	struct stack *s;

	if (kb < 0)
		return kb;
	if (objects) {
		s = stacks_find_add(stacks, sk, kb, 0);
		if (s)
			stack_add_objects(s, count);
		return 0;
	}
	/* Outcomes count walks: an off-CPU key's count is time, one walk. */
	stops[u->stop] += key->tag && key->tag < OFFCPU_TAG_NR ? 1 : count;
	stacks_add_n(stacks, sk, kb, count);
	return 0;
}

int kunwind_count_key(const struct kunwind *kw, const struct counted_fds *fds,
		      const struct counted_key *key, uint64_t count, struct stack_table *stacks,
		      uint64_t *stops, uint64_t *bytes)
{
	struct stack_key *sk = malloc(KUNWIND_KEY_BYTES);
	struct counted_ustack *u = malloc(sizeof(*u));
	int rc = -ENOMEM;

	if (sk && u)
		rc = add_count(kw, fds, key, count, sk, u, stacks, stops, bytes, false) ? -ENOENT :
									      0;
	free(sk);
	free(u);
	return rc;
}

int counted_reading_start(struct counted_reading *rd, int fd, size_t key_size, size_t key_bytes,
		       int64_t epoch)
{
	*rd = (struct counted_reading){ .key_size = key_size, .fd = fd, .epoch = epoch };
	rd->sk = malloc(key_bytes);
	rd->u = malloc(sizeof(*rd->u));
	if (!rd->sk || !rd->u ||
	    bpf_map_entries(fd, key_size, sizeof(*rd->counts), &rd->keys, (void **)&rd->counts,
			    &rd->n)) {
		counted_reading_end(rd);
		return -ENOMEM;
	}
	return 0;
}

bool counted_take(const struct counted_reading *rd, size_t i)
{
	const struct counted_key *k = (const void *)((const char *)rd->keys + i * rd->key_size);

	return rd->epoch < 0 || k->epoch == (uint32_t)rd->epoch;
}

void counted_done(struct counted_reading *rd, size_t i)
{
	char *keys = rd->keys;

	/* Gathered at the front (i >= ndone): the keys to delete at the end. */
	if (rd->epoch >= 0 && rd->ndone != i)
		memcpy(keys + rd->ndone * rd->key_size, keys + i * rd->key_size, rd->key_size);
	rd->ndone += rd->epoch >= 0;
}

void counted_reading_end(struct counted_reading *rd)
{
	if (rd->keys && rd->epoch >= 0)
		bpf_map_delete_keys(rd->fd, rd->keys, rd->key_size, rd->ndone);
	free(rd->keys);
	free(rd->counts);
	free(rd->sk);
	free(rd->u);
	rd->keys = NULL;
	rd->counts = NULL;
	rd->sk = NULL;
	rd->u = NULL;
}

static int64_t read_counts(const struct kunwind *kw, int counts_fd, const struct counted_fds *fds,
			   int64_t epoch, struct stack_table *stacks, uint64_t *stops,
			   uint64_t *bytes, bool objects)
{
	struct counted_reading rd;
	struct counted_key *keys;
	int64_t total = 0;
	int err = 0;
	size_t i;

	if (counted_reading_start(&rd, counts_fd, sizeof(*keys), KUNWIND_KEY_BYTES, epoch))
		return -ENOMEM;
	keys = rd.keys;
	for (i = 0; i < rd.n; i++) {
		uint64_t count = rd.counts[i];
		int rc;

		if (!counted_take(&rd, i))
			continue;
		rc = add_count(kw, fds, &keys[i], count, rd.sk, rd.u, stacks, stops, bytes,
			       objects);
		/*
		 * Its interpreter frames' definition is still in the ring: the
		 * key stays for the last read, after the ring is drained, which
		 * counts it marked lost if the definition never came.
		 */
		if (rc == -EAGAIN && epoch >= 0)
			continue;
		if (rc == -EAGAIN) {
			struct counted_key lost = keys[i];

			lost.ihash = COUNTED_IHASH_LOST;
			rc = add_count(kw, fds, &lost, count, rd.sk, rd.u, stacks, stops, bytes,
				       objects);
		}
		counted_done(&rd, i);
		if (rc == 0)
			total += count;
		else
			err = -EINVAL;
	}
	counted_reading_end(&rd);
	return err && !total ? err : total;
}

int64_t kunwind_read_counts(const struct kunwind *kw, int counts_fd, const struct counted_fds *fds,
			    int64_t epoch, struct stack_table *stacks, uint64_t *stops,
			    uint64_t *bytes)
{
	return read_counts(kw, counts_fd, fds, epoch, stacks, stops, bytes, false);
}

int64_t kunwind_read_objects(const struct kunwind *kw, int objects_fd,
			     const struct counted_fds *fds, int64_t epoch,
			     struct stack_table *stacks)
{
	uint64_t bytes = 0;

	return read_counts(kw, objects_fd, fds, epoch, stacks, NULL, &bytes, true);
}
