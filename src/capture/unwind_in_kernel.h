/* SPDX-License-Identifier: GPL-2.0 */
/*
 * In-kernel native unwinding: what user space puts in BPF maps and what the
 * BPF unwinder hands back, shared by unwind_in_kernel.bpf.h (kernel) and unwind_in_kernel.c
 * (user space).  Includable from BPF C and from user space.
 *
 * Maps (see unwind_in_kernel.bpf.h):
 *   kunwind_chunks struct stitch_unwind_row by row id: an array of arrays
 *                  ("chunks") of KUNWIND_CHUNK_ROWS rows each, made as
 *                  tables need them; every binary's sorted table is one
 *                  contiguous range of ids [first, first + nr), inside one
 *                  chunk unless larger than a chunk, loaded once per binary
 *                  and shared by every process
 *   kunwind_procs  tgid -> struct kunwind_proc: the process's executable
 *                  mappings sorted by start, each naming its binary's range
 *
 * A user frame found in the kernel is sent as one 64-bit word: the binary
 * slot and ELF vaddr when the pc lies in a mapped binary, else the raw pc.
 * Sending (binary, vaddr) rather than the pc means user space never needs
 * the process's mappings as they were at the event to name the frame.
 */
#ifndef STITCH_CAPTURE_UNWIND_IN_KERNEL_H
#define STITCH_CAPTURE_UNWIND_IN_KERNEL_H

#ifndef __bpf__
#include <linux/types.h>
#endif

#include "unwind/unwind_table.h"

/* Mappings per process the BPF side can search (binary search, 9 steps). */
#define KUNWIND_MAX_MAPS 512
/* Native frames unwound per event before the stack shows [truncated]. */
#define KUNWIND_MAX_FRAMES 1024
#define KUNWIND_FRAMES_BYTES (KUNWIND_MAX_FRAMES * 8)
/*
 * Rows per chunk of kunwind_chunks: 1 MiB each (rows are stored at a stride
 * of 16 bytes).  A small program's tables fit in one or two; the unit in
 * which the kernel's memory follows what is loaded.
 */
#define KUNWIND_CHUNK_BITS 16
#define KUNWIND_CHUNK_ROWS (1u << KUNWIND_CHUNK_BITS)
/* Binary slots: frame words have 29 bits for them. */
#define KUNWIND_MAX_SLOTS (1u << 20)
#define KUNWIND_NO_SLOT 0xffffffffu

/* kunwind_map.flags */
#define KUNWIND_MAP_TABLE	(1u << 0)	/* binary with a loaded table (maybe empty) */
#define KUNWIND_MAP_NO_TABLE	(1u << 1)	/* binary whose table is not in the map (budget) */
#define KUNWIND_MAP_ANON	(1u << 2)	/* anonymous executable memory (JIT code) */

struct kunwind_map {
	__u64 start, end;	/* [start, end) */
	__u64 bias;		/* ELF vaddr = addr - bias */
	__u32 row_first;	/* row id of the first row of the binary's table */
	__u32 row_nr;		/* rows in it (0: no CFI) */
	__u32 slot;		/* binary slot, KUNWIND_NO_SLOT for anonymous/unreadable */
	__u32 flags;
};

struct kunwind_proc {
	__u32 nr;		/* valid entries in maps[] */
	/*
	 * Changes at every write of the list (never 0): a walk remembered under
	 * one generation is not reused under another (unwind_in_kernel.bpf.h, ku_memo).
	 */
	__u32 gen;
	/*
	 * A process running V8 (node): where its JavaScript frames keep their
	 * JSFunction and their context, from the frame pointer (the binary's
	 * v8dbg_off_fp_function and v8dbg_off_fp_context: -16 and -8 in every
	 * node checked).  0: not V8, no slot is read.
	 */
	__s32 v8_fp_function;
	__s32 v8_fp_context;
	/* A JSFunction's SharedFunctionInfo, from its start (v8dbg_class_JSFunction__shared__*) */
	__u32 v8_fn_shared;
	/* An interpreted frame's bytecode offset, from the frame pointer (-40); 0: not read */
	__s32 v8_fp_bytecode_offset;
	struct kunwind_map maps[KUNWIND_MAX_MAPS];
};

/*
 * Frame word: bit 63 exact (pc is not a return address), bit 62 set when
 * bits 32..60 hold a binary slot and bits 0..31 the ELF vaddr; clear when
 * bits 0..60 hold a raw user pc (in no readable binary).  Bit 61: the pc
 * was found by a frame-pointer step (code without CFI called from here),
 * which the user-space walk marks too (--unwind=check compares it).
 */
#define KFRAME_EXACT		(1ull << 63)
#define KFRAME_IN_BINARY	(1ull << 62)
#define KFRAME_BY_FP		(1ull << 61)
/*
 * Not a frame but what the frame before it is in V8 (a process with
 * kunwind_proc.v8_fp_function): bits 0..47 hold the JSFunction (a tagged
 * pointer) its frame keeps, read at the frame-pointer step out of it.
 * Exact and found by a frame-pointer step at once: no real frame is both
 * (only the leaf is exact, and it is never found by a step) unless a
 * signal trampoline was, which lies in a binary (IN_BINARY is set).
 */
#define KFRAME_V8		(KFRAME_EXACT | KFRAME_BY_FP)
#define KFRAME_KIND_MASK	(KFRAME_EXACT | KFRAME_IN_BINARY | KFRAME_BY_FP)
#define KFRAME_V8_FUNC_MASK	((1ull << 48) - 1)
/*
 * A second V8 word after the first, bit 48 set: the function's
 * SharedFunctionInfo, read from the JSFunction at the event
 * (kunwind_proc.v8_fn_shared).  A young JSFunction moves at the next
 * scavenge, which rewrites the frame's slot but not the words already
 * sent: read when the stack is named (a counted stack: seconds later), its
 * address held another object, or another function.  A
 * SharedFunctionInfo is made in the old generation, where objects move
 * only when a page is compacted.
 */
#define KFRAME_V8_SFI		(1ull << 48)
/*
 * In the SFI word's bits 49..60, the bytecode offset an interpreted frame
 * kept (its slot's word >> 32: a Smi) + 1, 0: none, read where the frame
 * was left by a return address in node's binary (the interpreter's), so
 * that user space names it at the line of its call
 * (symbolize/v8_bytecode.h).  A word of the stack, not of the heap: the
 * walk may still be remembered.  An offset past 4,094 bytes (counted
 * from the BytecodeArray's tagged start: its header is ~55 of them) is
 * not sent: its frame keeps its function's line.
 */
#define KFRAME_V8_BCO_SHIFT	49
#define KFRAME_V8_BCO_MAX	((1ull << 12) - 1)
#define KFRAME_SLOT_SHIFT	32
#define KFRAME_SLOT_MASK	((1ull << 29) - 1)
#define KFRAME_ADDR_MASK	((1ull << 61) - 1)

/*
 * Stop reasons of the walk: the enum unwind_stop values of unwind.h
 * (1 = end .. 6 = unreadable), plus the cases where the kernel gives up and copies
 * the stack for user space instead: its mapping list is missing or may be
 * stale (a pc in no known mapping), a table is not loaded, or an address
 * does not fit the frame word.
 */
#define KUNWIND_STOP_END	1
#define KUNWIND_STOP_TRUNCATED	2
#define KUNWIND_STOP_NO_MODULE	3
#define KUNWIND_STOP_NO_RULE	4
#define KUNWIND_STOP_BAD	5
#define KUNWIND_STOP_UNREADABLE	6
#define KUNWIND_STOP_FALLBACK	7

/* The walk's state (unwind_in_kernel_step.h), in the includer's context struct. */
/* Entries of the walk's row cache (unwind_in_kernel_step.h: ku_find_row_cached). */
#define KU_RCACHE_BITS 10
#define KU_RCACHE (1u << KU_RCACHE_BITS)

struct ku_state {
	__u64 ip, sp, bp;	/* registers of the frame being unwound */
	__u64 lr;		/* arm64's x30: meaningful while exact */
	__u64 stack_lo;		/* sp at the event: reading below it is garbage */
	__u64 stack_hi;		/* reads reaching it are past the stack (0: no bound) */
	__u32 n;		/* frames emitted */
	__u32 max;		/* frames allowed (<= KUNWIND_MAX_FRAMES) */
	__u32 exact;		/* ip is exact, not a return address */
	__u32 hint;		/* index of the last mapping found: callers often share it */
	__u32 last_row;		/* row found for last_pc */
	__u64 last_pc;		/* 0, or the last pc whose row was searched */
	/*
	 * Whether the rest of the walk depends on bp as it was when bp_live
	 * was last set: bp_live until a step takes bp from memory, bp_used once
	 * a step reads it while live.  Code without frame pointers keeps
	 * anything in rbp; a walk that never uses it can be remembered without
	 * it (unwind_in_kernel.bpf.h, ku_memo).
	 */
	__u32 bp_live, bp_used;
	/*
	 * A return address a uretprobe replaced with its trampoline was
	 * looked up in the thread's return instances (ku_uret_orig): the walk
	 * is not remembered.
	 */
	__u32 uret_fixed;
	__u32 by_fp;		/* s->ip was found by a frame-pointer step (KFRAME_BY_FP) */
	/* arm64: sp is a bound below the truth, after a frame-pointer step (ku_step_fp) */
	__u32 sp_bound;
};

/*
 * In-kernel counting (counted_* maps): identical events are counted under one
 * key; the stacks themselves are stored once.  A key names its user stack
 * by a 64-bit hash, so the kernel compares every stored stack with the one
 * it hashed before counting: a collision sends the event to user space
 * rather than count it under another stack.
 */
#define COUNTED_KSTACK_DEPTH 127	/* perf_event_max_stack's default */

struct counted_key {
	__u32 pid, tid, event_idx;
	__s32 kstack_id;	/* in counted_kstk0; < 0: none */
	__u64 uhash;		/* in counted_ustk */
	/*
	 * An interpreter's frames (capture_walk.bpf.h): the hash of a walk sent once
	 * as a definition, or INTERP_IHASH_NONE (0) / INTERP_IHASH_LOST.
	 */
	__u64 ihash;
	char comm[16];
	/*
	 * counted_epoch when counted: user space moves the epoch on, lets the
	 * programs still counting under the old one finish, then reads and
	 * deletes the old epoch's keys without racing an increment.
	 */
	__u32 epoch;
	__u32 tag;		/* enum offcpu_tag: an off-CPU stack's thread state */
	/*
	 * counted_kgen when kstack_id was taken: which of the two kernel stack
	 * maps holds it (kgen & 1), and whether it still does (user space
	 * clears a map before it takes new stacks again: counted_kstacks_flip).
	 */
	__u32 kgen;
	__u32 pad;		/* zero: the key is hashed whole */
};

struct counted_ustack {
	__u32 n;		/* frame words */
	__u32 stop;		/* KUNWIND_STOP_* */
	__u64 words[KUNWIND_MAX_FRAMES];
};

/*
 * Stacks of up to COUNTED_SHORT_FRAMES frames (nearly all) are stored in
 * counted_ustk as this prefix of a counted_ustack, longer ones in
 * counted_ustk_xl: storing a new stack copies its map's whole value, and
 * with 8 KiB values (and their 8 KiB allocations) each first-seen stack cost
 * ~10 us, ~1 us of every event of a short profile whose stacks change.
 */
#define COUNTED_SHORT_FRAMES 128
/* Set in the hash of a long stack: the hash says which map holds it. */
#define COUNTED_LONG_BIT (1ULL << 63)

struct counted_ustack_short {
	__u32 n;
	__u32 stop;
	__u64 words[COUNTED_SHORT_FRAMES];
};

/* The kernel's maps of counted stacks, as user space reads them. */
struct counted_fds {
	/*
	 * counted_kstk0 (even kgen), counted_kstk1 (odd), and the generation
	 * whose stacks each holds: a kstack_id of another generation names a
	 * stack that was cleared (its frames are unknown, never another's).
	 */
	int kstacks[2];
	uint32_t kstacks_gen[2];
	/*
	 * Stacks of older generations each map was left holding when it was
	 * emptied, because keys still named them (an off-CPU thread blocked
	 * across periods): (kgen << 32 | id), sorted.
	 */
	const uint64_t *kstacks_kept[2];
	size_t nkstacks_kept[2];
	int ustacks;		/* counted_ustk: up to COUNTED_SHORT_FRAMES frames */
	int ustacks_long;	/* counted_ustk_xl: longer */
};

/* --unwind */
enum kunwind_mode {
	KUNWIND_MODE_COPY = 0,	/* copy stack bytes, unwind in user space */
	KUNWIND_MODE_KERNEL = 1,	/* unwind in the kernel */
	KUNWIND_MODE_CHECK = 2,	/* both, compared frame for frame by user space */
};

#ifndef __bpf__
/* ---- user space: filling the maps (unwind_in_kernel.c) ---- */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proc/binary.h"
#include "util/hashmap.h"
#include "proc/procs.h"

struct kunwind_range {
	uint32_t first, nr;
	uint64_t gen;		/* retired: when (CLOCK_MONOTONIC ns) */
};

struct kunwind_live {		/* a process list in the kernel */
	uint32_t pid;
	uint64_t hash;		/* of the list, to skip rewriting it */
	uint32_t *slots;	/* binaries it references */
	uint32_t nslots;
};

/*
 * Frames another layer splices into the user frames of a key counted in the
 * kernel: an interpreter's, named by the key's ihash.  frames() returns the
 * new count (at most cap), or -EAGAIN when it cannot yet (the key is read
 * again later).  complete: the native unwind reached the end of the stack.
 */
struct uframe;

struct counted_splice {
	int (*frames)(void *ctx, const struct counted_key *key, struct uframe *uf, int nu, int cap,
		      bool complete);
	void *ctx;
};

struct kunwind {
	struct counted_splice splice;	/* keys with an ihash; frames NULL: none */
	int chunks_fd, procs_fd;	/* chunks_fd: kunwind_chunks */
	uint8_t *rows_mem;		/* no kernel (tests): the rows, else NULL */
	size_t rows_cap, rows_used;	/* in rows: the budget, the highest id used + 1 */
	size_t row_stride;		/* bytes per row in a chunk (value size rounded to 8) */
	/*
	 * Chunk c (rows_cap / KUNWIND_CHUNK_ROWS of them, rounded up): the fd
	 * of its map (-1: none in the kernel), and its rows allocated to
	 * tables, live or retired; it goes when that count drops to 0.
	 */
	int *chunk_fd;
	uint32_t *chunk_rows;
	size_t nchunks, chunks_live;
	struct hmap by_bin;		/* struct binary * -> struct kunwind_bin */
	struct binary **slots;		/* slot -> binary */
	size_t nslots, slots_cap;
	uint32_t *dirty;		/* pids whose list must be (re)written */
	size_t ndirty, dirty_cap;
	uint32_t *fresh;		/* lazy: pids that mapped code, written if all held */
	size_t nfresh, fresh_cap;
	struct kunwind_live *live;	/* processes with a list in the kernel */
	size_t nlive, live_cap;
	uint64_t alive_checked_ns;	/* when the live pids were last looked for */
	size_t rows_live;		/* rows of tables currently loaded */
	struct kunwind_range *free;	/* reusable row ranges, sorted */
	size_t nfree, free_cap;
	struct kunwind_range *retired;	/* unreferenced, not yet safe to reuse */
	size_t nretired, retired_cap;
	struct kunwind_proc *scratch, *check;
	double table_mb;		/* --max-table-mb, for messages */
	bool over_budget_warned;
	uint32_t proc_gen;		/* the last kunwind_proc.gen written */
	/*
	 * A binary's table goes in only once a stack needed it: the user-space
	 * unwind of a copied stack (the kernel hands over a stack that enters a
	 * binary without one) built it.  -a: most of a host's processes come
	 * and go unsampled.
	 */
	bool lazy;
	bool verbose;			/* STITCH_DEBUG: say each table loaded */
	uint64_t procs_written, tables_loaded, tables_refused, tables_dropped;
	uint64_t procs_written_early;	/* lazy: lists written before any stack was copied */
	uint64_t tables_deferred;	/* mapped binaries whose table no stack needed yet */
	/*
	 * Rows of loaded tables no list maps (kept for their binary's next
	 * process), and at most how many: 0, none kept.
	 */
	size_t rows_kept, rows_kept_cap;
	uint64_t tables_reused;		/* kept tables mapped again */
};

/* Rows that fit in table_mb MiB of chunks. */
size_t kunwind_rows_for_mb(double table_mb);
/* Chunks (kunwind_chunks' max_entries) for rows_cap rows. */
size_t kunwind_chunks_for_rows(size_t rows_cap);
/*
 * After the BPF object is loaded.  chunks_fd < 0 (tests): the rows live in
 * plain memory.  0 or -errno.
 */
int kunwind_init(struct kunwind *kw, int chunks_fd, int procs_fd, size_t rows_cap,
		 double table_mb);
void kunwind_free(struct kunwind *kw);

/* Write the process's current mapping list (and load tables it needs). 0 or -errno. */
int kunwind_sync_proc(struct kunwind *kw, struct binary_cache *bins, const struct proc *p);
/* Drop a process's list: the kernel copies its stacks until it is written again. */
void kunwind_forget(struct kunwind *kw, uint32_t pid);
/* ... every process's (their models may be wrong: process-tracking records were lost). */
void kunwind_forget_all(struct kunwind *kw);
/* Remember that pid needs its list written (deduplicated). */
void kunwind_mark_dirty(struct kunwind *kw, uint32_t pid);
/*
 * Lazy: pid mapped code.  Its list is written once its model is current if
 * every binary it maps is held already (procs_find_held), so the kernel
 * walks its first stacks: a build's cc1 or a script's python3, each
 * sampled once or twice in its life, had nearly every stack copied.
 * Otherwise it waits for a copied stack, as before.
 */
void kunwind_mark_new(struct kunwind *kw, uint32_t pid);

/*
 * Keep the kernel's lists true: write the dirty ones whose model is
 * current (is_behind(ctx, pid) false), and drop the written ones whose
 * model is behind (mappings changed since), so the kernel copies their
 * stacks rather than walk them with a stale list.
 */
typedef bool (*kunwind_behind_fn)(void *ctx, uint32_t pid);
void kunwind_refresh(struct kunwind *kw, struct binary_cache *bins, struct procs *ps,
		     kunwind_behind_fn is_behind, void *ctx);

/*
 * b is about to be freed (no process maps it, no stack names it): forget
 * it, its slot naming nothing from then on.  False, and nothing changed,
 * while a list in the kernel still maps it.
 */
bool kunwind_release_binary(struct kunwind *kw, struct binary *b);

/* The binary behind a frame word's slot, or NULL. */
struct binary *kunwind_slot_binary(const struct kunwind *kw, uint32_t slot);

struct uframe;
struct stack_table;
struct stack_key;
/*
 * Frame words -> user frames, with the [truncated] or cut marker the stop
 * reason calls for (uf needs max + 1 entries, max >= n: the functions V8
 * inlined into a frame take the room beyond n).  pid: whose JavaScript
 * frames KFRAME_V8 words name (0: they are dropped, their frames kept as
 * they are).  Returns the count, or -1 if a word names no binary we gave out.
 */
int kunwind_decode(const struct kunwind *kw, uint32_t pid, const uint64_t *words, int n, int stop,
		   struct uframe *uf, int max);
/*
 * Add the kernel's counts (counted_* maps) to stacks: those of one epoch,
 * deleted once read (epoch >= 0), or all of them, left in place (-1).
 * stops[] (indexed by stop reason, 1..5) and *bytes (read from the
 * kernel) are accumulated.  Returns the number of events counted, or -errno.
 */
int64_t kunwind_read_counts(const struct kunwind *kw, int counts_fd, const struct counted_fds *fds,
			    int64_t epoch, struct stack_table *stacks, uint64_t *stops,
			    uint64_t *bytes);
/*
 * The same for -e alloc's objects (alloc_object_counts, keyed as the bytes
 * are): added to the stacks' objects.  Returns the sum read, or -errno.
 */
int64_t kunwind_read_objects(const struct kunwind *kw, int objects_fd,
			     const struct counted_fds *fds, int64_t epoch,
			     struct stack_table *stacks);

/*
 * The kernel stack kstack_id of generation kgen into kips
 * (COUNTED_KSTACK_DEPTH words): 0, or -ENOENT if none or cleared since.
 */
int counted_kstack_get(const struct counted_fds *fds, int32_t kstack_id, uint32_t kgen,
		    uint64_t *kips);

/*
 * Agent periods: the kernel stack map of generation kgen + 1 is emptied
 * (it held kgen - 1's, whose period was read before) but for the ids in
 * keep (sorted: stacks keys still name, see counted_fds.kstacks_kept), and the
 * kernel moves to it.  Stacks of kgen stay readable until the next flip.
 * Returns the new generation; gen_of[] says which generation each map now
 * holds.
 */
uint32_t counted_kstacks_flip(const int fds[2], uint32_t gen_of[2], volatile uint32_t *kgen,
			   const uint32_t *keep, size_t nkeep);
/* Whether (kgen, kstack_id) is a stack its map still holds (counted_kstack_get's test). */
bool counted_kstack_valid(const struct counted_fds *fds, int32_t kstack_id, uint32_t kgen);

/* The user stack stored under hash into u: 0, or -ENOENT. */
int counted_ustack_get(const struct counted_fds *fds, uint64_t hash, struct counted_ustack *u);

/*
 * The stack_key of a stored counted_key into sk (room: KUNWIND_KEY_BYTES; u is
 * scratch for its user stack).  Returns the key's bytes, or -errno if its
 * stacks are gone or malformed.
 */
int kunwind_key_build(const struct kunwind *kw, const struct counted_fds *fds,
		      const struct counted_key *key, struct stack_key *sk, struct counted_ustack *u,
		      uint64_t *bytes);

/*
 * Every key of a counts map (key_size bytes each, each beginning with a
 * struct counted_key) and its count, read by batches (util/bpf_keys.h), and
 * room to build each one's stack_key (key_bytes) and user stack in, for
 * kunwind_key_build.  Reading an epoch deletes its keys once read (see
 * counted_key.epoch): the ones counted_done() was given, at once, at the end.
 */
struct counted_reading {
	void *keys;
	uint64_t *counts;
	size_t n, key_size, ndone;
	int fd;
	int64_t epoch;
	struct stack_key *sk;
	struct counted_ustack *u;
};

/* 0, or -ENOMEM with nothing left to free.  epoch < 0: every key, none deleted. */
int counted_reading_start(struct counted_reading *rd, int fd, size_t key_size, size_t key_bytes,
		       int64_t epoch);
/* Key i (rd->keys), if it belongs to the epoch read; false to skip it. */
bool counted_take(const struct counted_reading *rd, size_t i);
/* Key i is read: delete it at the end (if an epoch is read). */
void counted_done(struct counted_reading *rd, size_t i);
void counted_reading_end(struct counted_reading *rd);

/*
 * One key, not from the counts map, counted count times: an off-CPU thread
 * still blocked when recording ends.  0, or -ENOENT if its stack is gone.
 */
int kunwind_count_key(const struct kunwind *kw, const struct counted_fds *fds,
		      const struct counted_key *key, uint64_t count, struct stack_table *stacks,
		      uint64_t *stops, uint64_t *bytes);

/* INTERP_IHASH_LOST (interp.h): the key's interpreter frames are lost. */
#define COUNTED_IHASH_LOST 1
/* Frames a splice may add to a counted key's user frames (an interpreter's, and markers). */
#define COUNTED_SPLICE_FRAMES 132
/* User frames of a stack_key built from a counted_key, at most. */
#define KUNWIND_KEY_UFRAMES (KUNWIND_MAX_FRAMES + 1 + COUNTED_SPLICE_FRAMES)
/* Room for one stack_key built from a counted_key: a tag, kernel and user frames. */
#define KUNWIND_KEY_BYTES (sizeof(struct stack_key) + \
			   (1 + COUNTED_KSTACK_DEPTH) * sizeof(uint64_t) + \
			   KUNWIND_KEY_UFRAMES * sizeof(struct uframe))

/*
 * Build a kunwind_proc from a process's mappings, giving binaries slots and
 * rows through the callbacks-free path kunwind_sync_proc uses; exposed for
 * the replay test.  Returns the number of mappings, or -E2BIG.
 */
int kunwind_build_proc(struct kunwind *kw, struct binary_cache *bins, const struct proc *p,
		       struct kunwind_proc *out);
#endif

#endif /* STITCH_CAPTURE_UNWIND_IN_KERNEL_H */
