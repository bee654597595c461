/* SPDX-License-Identifier: GPL-2.0 */
/*
 * In-kernel native unwinder, part of the capture program (capture.bpf.c): the table maps,
 * the bpf_loop() driver around the shared walk (unwind_in_kernel_step.h), and the
 * hooks that forget a process's mapping list when it execs or exits.
 *
 * Frames are written as frame words (unwind_in_kernel.h) at the start of the event's
 * ustack[] buffer; user space names them without needing the process.
 */
#ifndef STITCH_CAPTURE_UNWIND_IN_KERNEL_BPF_H
#define STITCH_CAPTURE_UNWIND_IN_KERNEL_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "capture/user_regs.bpf.h"

#include "capture/capture.h"
#include "capture/stats.bpf.h"
#include "capture/unwind_in_kernel.h"
#include "capture/uret.bpf.h"
#include "profile/stack_tag.h"

#define PF_KTHREAD 0x00200000	/* include/linux/sched.h: macros are not in BTF */

/* Set by user space before load: enum kunwind_mode. */
const volatile __u32 kunwind_mode = KUNWIND_MODE_COPY;
/*
 * --stats=walks: time each walk and count its frames.  Off by default: two
 * clock reads and three counter updates cost ~100 ns of a ~1.3 µs event.
 */
const volatile bool kunwind_time_walks;

static __always_inline __u64 ku_walk_clock(void)
{
	return kunwind_time_walks ? bpf_ktime_get_ns() : 0;
}

static __always_inline void ku_walk_stats(__u64 t0, __u32 n, __u32 remembered)
{
	if (!kunwind_time_walks)
		return;
	add_stat(STAT_KUNWIND_NS, bpf_ktime_get_ns() - t0);
	add_stat(STAT_KUNWIND_WALKS, 1);
	add_stat(STAT_KUNWIND_FRAMES, n);
	if (remembered)
		add_stat(STAT_KUNWIND_MEMO, 1);
}

/*
 * Every binary's table, one contiguous range of row ids each (unwind_in_kernel.h):
 * chunk id >> KUNWIND_CHUNK_BITS of kunwind_chunks, row id's low bits in
 * it.  User space creates a chunk when a table first needs it and deletes
 * it when its last table is freed: the kernel holds what is loaded, not
 * --max-table-mb (-a's 64 MiB array was 64 MiB from the start).  Every
 * chunk has the template's size, so the verifier inlines both lookups.
 */
struct ku_rows_chunk {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, KUNWIND_CHUNK_ROWS);
	/* Sizes, not types: bpftool's libbpf (1.1) cannot size a struct value here. */
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct stitch_unwind_row));
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);		/* chunks for --max-table-mb: set by user space */
	__type(key, __u32);
	__array(values, struct ku_rows_chunk);
} kunwind_chunks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct kunwind_proc);
} kunwind_procs SEC(".maps");

/*
 * The walk's registers and counters live in a map value, not on the BPF
 * stack: the verifier tracks stack values exactly, so a frame counter there
 * would make it verify the bpf_loop() callback once per possible count.
 * Per CPU: our programs do not nest on one CPU (see scratch in capture.bpf.c).
 */
/*
 * Stack words are read through a window: one bpf_probe_read_user() of
 * KU_WIN bytes serves the next several frames, instead of one call per
 * word (each call costs about as much as copying a few hundred bytes).
 */
/*
 * 4 KiB: ~100 frames of small functions in one read (the first read is
 * sized from the CPU's last walk, so a shallow stack reads little).  At
 * 1 KiB a 43-frame walk took three reads, ~170 ns each, where one 2 KiB read
 * takes ~250 ns; at 2 KiB a 105-frame walk took two, and could not be
 * remembered (ku_memo keeps the first window's words only): 2017 -> 818 ns
 * per event with 4 KiB.
 */
#define KU_WIN 4096

/*
 * The last walk on this CPU (into either of its output buffers), from its
 * second frame on, and every stack word it read from there.  A CPU keeps
 * sampling the same hot loop: the leaf's pc moves, its callers do not.  A walk that, after the leaf's
 * step, stands where the remembered one stood (same process and list
 * generation, same registers, same stack bounds) and finds every one of its
 * words unchanged in the window it has just read, would read the same words
 * and rows again and emit the same frames: it takes the remembered ending
 * instead of walking (~550 ns of ~1.3 us at 43 frames).  The frames
 * themselves are still in the output buffer: each buffer is this CPU's own,
 * written only by walks that keep memo up to date, or by the stack copy
 * that follows a fallback, which kunwind_user makes memo forget.  Exact, not a guess: any difference is a miss.
 */
#define KU_MEMO_WORDS 128

/* Output buffers a walk may write (kunwind_start.memo): */
#define KU_MEMO_COUNTED	1	/* counted_scratch's stack, counting */
#define KU_MEMO_EVENT	2	/* the event's ustack, sent as a record */

struct ku_memo {
	__u32 valid;		/* describes the frames after the first in buffer buf */
	__u32 buf;		/* KU_MEMO_* */
	__u32 tgid, gen;	/* process and kunwind_proc.gen */
	__u32 exact;
	__u32 bp_used;		/* the walk depended on bp (else any bp will do) */
	__u64 ip, sp, bp;	/* state at the second frame */
	__u64 stack_lo, stack_hi;
	__u32 n, stop;		/* how the walk ended */
	__u64 hash, hash2;	/* of the frames after the first */
	__u32 nr;		/* words read, each once per read (< KU_MEMO_WORDS) */
	__u64 val[KU_MEMO_WORDS];
	__u32 off[KU_MEMO_WORDS];	/* address - stack_lo */
};

struct ku_walk {
	struct ku_state s;
	__u32 stop;
	/*
	 * The frames' hash, built as they are found: hashing them afterwards
	 * in a loop of its own cost ~10 ns a frame, mostly the loop's calls.
	 */
	__u64 hash;
	__u64 hash2;		/* a second, independent one (counted_seen) */
	/*
	 * Every frame word written equals what the output held before: the
	 * same stack as the last walk into that buffer (see counted_scratch_val).
	 */
	__u32 same;
	/*
	 * Bytes the first window read of a walk asks for: what this CPU's last
	 * walk spanned, plus some.  A read costs ~90 ns plus 0.08 ns a byte:
	 * 2 KiB for a 600-byte stack wasted ~110 ns; a guess too short costs
	 * one more read.  KU_WIN or 0: KU_WIN.
	 */
	__u32 first_len;
	__u32 refills;		/* window reads in this walk */
	__u32 unreadable;	/* its first window read failed: nothing at sp to read */
	__u32 win_len;		/* valid bytes in win */
	__u64 win_start;	/* user address of win[0] */
	/*
	 * Words, not bytes: a __u64 load from a __u8 array is, for clang's BPF
	 * backend, unaligned, and became eight byte loads and fourteen shifts
	 * and ors at every read of every frame.
	 */
	__u64 win[KU_WIN / 8];
	__u32 rcache[KU_RCACHE];	/* row cache of this CPU (unwind_in_kernel_step.h) */
	__u32 tgid, gen;	/* the process walked, its list's generation */
	__u32 memo_on;		/* KU_MEMO_* of this walk's buffer, or 0: memo unused */
	__u32 recording;	/* reads go into memo (a miss, still in the first window) */
	__u32 memo_hit;
	/*
	 * A word of the heap (ku_read_heap) lands here, not in a variable:
	 * a stack slot for it took ku_loop_cb's frame from 96 bytes to 128,
	 * past the 512 of a whole chain (capture_alloc's).
	 */
	__u64 heap_word;
	struct ku_memo memo;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ku_walk);
} kunwind_walk SEC(".maps");

struct ku_bpf_ctx {
	struct ku_walk *w;
	const struct kunwind_proc *proc;
	__u64 *frames;		/* KUNWIND_MAX_FRAMES words */
};

/*
 * Refill this CPU's window from addr: 0, or KUNWIND_STOP_TRUNCATED if addr
 * cannot be read.  A global function, verified once and called once or twice
 * a walk, where inlined it was copied into every word read of every frame
 * step (six per frame).
 */
__noinline int ku_refill(__u64 addr)
{
	struct ku_walk *w;
	__u32 zero = 0, first;
	/*
	 * 64 bits: a __u32 length, bounded as such, went to the read as the
	 * untruncated 64-bit difference it came from, and a 6.1 verifier saw
	 * no bound on it.
	 */
	__u64 start = addr, below, len;

	w = bpf_map_lookup_elem(&kunwind_walk, &zero);
	if (!w)
		return KUNWIND_STOP_TRUNCATED;
	w->win_len = 0;
	/*
	 * The walk reads nothing at or past stack_hi: stop the window there.
	 * The main thread's frames end a few hundred bytes below it, and a
	 * read that runs off the stack mapping costs a fault and a second read.
	 */
	len = KU_WIN;
	if (!w->refills++) {
		/* Masked, so that the verifier sees the bound (KU_WIN is 0 here). */
		first = w->first_len & (KU_WIN - 1);
		if (first >= 64)
			len = first;
		/*
		 * The leaf's step reads its return address first, then what it
		 * saved below it (rbp at CFA-16): start up to 64 bytes lower,
		 * or that word takes a read of its own (~150 ns).  ku_read()
		 * refused anything below stack_lo.
		 */
		below = (addr - w->s.stack_lo) & ~7ull;
		if (below > 64)
			below = 64;
		if (len >= below + 8)
			start = addr - below;
	} else {
		/* ku_memo_try compares words of the first window only. */
		w->recording = 0;
	}
	if (w->s.stack_hi > start && w->s.stack_hi - start < len)
		len = w->s.stack_hi - start;
	if (len >= 8 && len <= KU_WIN) {
		/*
		 * Bounded again for the verifier: before 6.8 it learns no bound
		 * from a comparison with another unknown (len's clamp above),
		 * nor carries the test clang makes of the two above (on len - 8)
		 * back to len.  The mask keeps the read inside the walk's state.
		 */
		barrier_var(len);
		len &= 2 * KU_WIN - 1;
		if (!bpf_probe_read_user(w->win, len, (void *)start)) {
			w->win_start = start;
			w->win_len = len;
			return 0;
		}
	}
	/*
	 * Near the end of the stack mapping the whole window may not be
	 * readable: then from addr to the end of its page, so a word is
	 * readable here exactly when it is readable alone.  Stack pages are
	 * resident; a fault is the end of what we can see.
	 */
	len = 4096 - (addr & 4095);
	if (len > KU_WIN)
		len = KU_WIN;
	if (len < 8 || bpf_probe_read_user(w->win, len, (void *)addr)) {
		/*
		 * The leaf's step reads next to sp first: the stack's top page
		 * was not there at the event (a page not present in this
		 * context, or an sp pointing nowhere).  Said so, not [truncated].
		 */
		if (w->refills == 1)
			w->unreadable = 1;
		return KUNWIND_STOP_TRUNCATED;
	}
	w->win_start = addr;
	w->win_len = len;
	return 0;
}

static __always_inline int ku_read_word(void *ctx, __u64 addr, __u64 *val)
{
	struct ku_bpf_ctx *c = ctx;
	struct ku_walk *w = c->w;
	__u64 off;
	__u32 i;

	if (!w)
		return KUNWIND_STOP_TRUNCATED;
	off = addr - w->win_start;
	/* Refill also for a word not aligned like the window: the read below masks. */
	if (addr < w->win_start || off + 8 > w->win_len || (off & 7)) {
		if (ku_refill(addr))
			return KUNWIND_STOP_TRUNCATED;
		/* The window holds addr, aligned, maybe not at its start. */
		off = addr - w->win_start;
	}
	*val = w->win[(off / 8) & (KU_WIN / 8 - 1)];
	/*
	 * Remember the word (ku_memo), without a branch: this is inlined at
	 * every read of every frame step, and each branch there multiplies
	 * what the verifier explores (one here cost ~4 ms at every start).
	 * Not recording, the word lands past the entries in use, which is
	 * harmless.  Recording, the count may run past the end and the index
	 * wrap: no walk that read KU_MEMO_WORDS words or more is remembered
	 * (kunwind_user, ku_memo_try).  A recorded word lies in the first
	 * window, which starts at or above stack_lo: its offset fits.  Four
	 * stores and a stop flag per word were ~80 ns of a 40-frame walk.
	 */
	i = w->memo.nr;
	w->memo.off[i & (KU_MEMO_WORDS - 1)] = addr - w->s.stack_lo;
	w->memo.val[i & (KU_MEMO_WORDS - 1)] = *val;
	w->memo.nr = i + w->recording;
	return 0;
}

static __always_inline int ku_read_code(void *ctx, __u64 addr, __u32 *val)
{
	return bpf_probe_read_user(val, sizeof(*val), (void *)addr) ? 1 : 0;
}

/*
 * A word of the traced program's heap.  A walk that read one is not
 * remembered (ku_memo): the next walk's stack words may all be the same
 * while the heap is not (a function at the same address, another one
 * since: V8's young closures), and what it read there would be replayed.
 */
static __always_inline int ku_read_heap(void *ctx, __u64 addr, __u64 *val)
{
	struct ku_walk *w = ((struct ku_bpf_ctx *)ctx)->w;

	if (!w)
		return 1;
	w->recording = 0;
	if (bpf_probe_read_user(&w->heap_word, sizeof(w->heap_word), (void *)addr))
		return 1;
	*val = w->heap_word;
	return 0;
}

static __always_inline const struct stitch_unwind_row *ku_row_at(void *ctx, __u32 idx)
{
	__u32 chunk = idx >> KUNWIND_CHUNK_BITS, off = idx & (KUNWIND_CHUNK_ROWS - 1);
	void *rows = bpf_map_lookup_elem(&kunwind_chunks, &chunk);

	return rows ? bpf_map_lookup_elem(rows, &off) : 0;
}

static __always_inline __u32 *ku_rcache_slot(void *ctx, __u32 h)
{
	struct ku_bpf_ctx *c = ctx;

	return c->w ? &c->w->rcache[h & (KU_RCACHE - 1)] : 0;
}

static __always_inline void ku_emit(void *ctx, __u32 idx, __u64 word)
{
	struct ku_bpf_ctx *c = ctx;
	__u64 *slot = &c->frames[idx & (KUNWIND_MAX_FRAMES - 1)];

	if (c->w && *slot != word)
		c->w->same = 0;
	*slot = word;
}

static __always_inline void ku_set_exact(void *ctx, __u32 idx)
{
	struct ku_bpf_ctx *c = ctx;

	c->frames[idx & (KUNWIND_MAX_FRAMES - 1)] |= KFRAME_EXACT;
	/* Compared before the bit was set: no longer known to be the same. */
	if (c->w)
		c->w->same = 0;
}

#define KU_SEARCH_OUT_OF_LINE
int ku_search_map(const struct kunwind_proc *p, __u64 addr);
int ku_search_row(__u32 first, __u32 nr, __u32 vaddr);

/*
 * If ip is the process's uretprobe trampoline, the return address a
 * uretprobe replaced with it at stack address slot (uret.bpf.h), else 0.
 * Walks run on the current thread only.  Global: verified once, not in each
 * copy of the frame step, and run on a mapping miss only.
 */
__noinline __u64 ku_uret_lookup(__u64 ip, __u64 slot)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct return_instance *ri;
	int i;

	if (!ip || uret_trampoline(t) != ip)
		return 0;
	ri = uret_first(t);
	for (i = 0; i < URET_LIST_MAX && ri; i++) {
		if (BPF_CORE_READ(ri, stack) == slot)
			return BPF_CORE_READ(ri, orig_ret_vaddr);
		ri = BPF_CORE_READ(ri, next);
	}
	return 0;
}

static __always_inline int ku_uret_orig(void *ctx, __u64 ip, __u64 slot, __u64 *ra)
{
	*ra = ku_uret_lookup(ip, slot);
	return *ra != 0;
}

/*
 * The current thread's mm->start_stack + 8, the bound of the main thread's
 * stack for the walk and the copy, if its saved user registers describe its
 * current address space; else 0.  Inside execve they may not: from the point
 * where the new mm is installed until the new program's registers are set,
 * the saved registers are the old program's while task->mm is the new one,
 * so a walk would read the new image's memory with the old image's stack
 * pointer (seen as stacks that differ between the kernel and the copy
 * unwinder at exec).  Events in execve (after its syscall entry tracepoint)
 * get no user frames: unknown, never wrong.  Plain loads through the trusted
 * task pointer, not probe-read calls (~20 ns each), in a global function: the
 * verifier checks a pointer loaded that way (mm) with searches by name
 * through the kernel's BTF (btf_nested_type_is_trusted), ~1 ms each time it
 * checks the load, so once here rather than in every path that captures.
 */
__noinline __u64 ku_user_stack_top(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct mm_struct *mm;

	if (task->flags & PF_KTHREAD)
		return 0;
	mm = task->mm;
	if (!mm)
		return 0;
	if (bpf_core_field_exists(task->in_execve) && BPF_CORE_READ_BITFIELD(task, in_execve))
		return 0;
	return mm->start_stack + 8;
}

#include "capture/unwind_in_kernel_step.h"

/*
 * The binary searches as global functions: verified once, where inlined they
 * were verified in each of the walk's frame steps (ku_loop_cb).  A call on
 * a miss of the mapping hint or the row cache only.
 */
__noinline int ku_search_map(const struct kunwind_proc *p, __u64 addr)
{
	const struct kunwind_map *m;

	if (!p)
		return -1;
	m = ku_find_map(p, addr);
	return m ? (int)(m - p->maps) : -1;
}

/*
 * A table inside one chunk (all but those larger than a chunk: unwind_in_kernel.c
 * places them so) is searched with one lookup of its chunk, not one per
 * step; the same branch-free search as ku_find_row().
 */
__noinline int ku_search_row(__u32 first, __u32 nr, __u32 vaddr)
{
	__u32 chunk = first >> KUNWIND_CHUNK_BITS, len = nr, base, i, idx = 0;
	const struct stitch_unwind_row *row;
	void *rows;

	if (!nr || nr > KUNWIND_CHUNK_ROWS || (first + nr - 1) >> KUNWIND_CHUNK_BITS != chunk)
		return ku_find_row(0, first, nr, vaddr, &idx) ? (int)idx : -1;
	rows = bpf_map_lookup_elem(&kunwind_chunks, &chunk);
	if (!rows)
		return -1;
	base = first & (KUNWIND_CHUNK_ROWS - 1);
	for (i = 0; i < KUNWIND_CHUNK_BITS + 1 && len > 1; i++) {
		__u32 half = len / 2, at = base + half;

		row = bpf_map_lookup_elem(rows, &at);
		if (!row)
			return -1;
		base += half & ku_le_mask(row->pc, vaddr);
		len -= half;
	}
	row = bpf_map_lookup_elem(rows, &base);
	if (!row || row->pc > vaddr)
		return -1;
	return (int)((chunk << KUNWIND_CHUNK_BITS) | base);
}

/* FNV-1a-like step, with a fold so that high bits reach the low ones. */
static __always_inline __u64 ku_hash_word(__u64 h, __u64 word)
{
	h = (h ^ word) * 0x100000001b3ull;
	return h ^ (h >> 29);
}

/*
 * The second hash (counted_seen): another multiplier, combined by addition,
 * so that what collides in one does not in the other.  Each step is a
 * bijection of the running hash.
 */
static __always_inline __u64 ku_hash2_word(__u64 h, __u64 word)
{
	h = (h + word) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 31);
}

/*
 * Called once a walk has taken the leaf's step: true if it stands
 * where ku_memo's walk stood and every word that walk read is unchanged
 * (then the walk is over: kunwind_user takes memo's ending).  Else memo
 * starts remembering this walk.  Global: verified once, with its loop
 * (~3,700 instructions; with a bpf_loop() callback instead, ~1,000 fewer
 * and ~30 ns slower).
 */
__noinline int ku_memo_try(void)
{
	struct ku_walk *w;
	struct ku_memo *m;
	__u32 zero = 0, i, nr;
	__u64 base, rel, off;

	w = bpf_map_lookup_elem(&kunwind_walk, &zero);
	if (!w)
		return 0;
	m = &w->memo;
	nr = m->nr;
	if (m->valid && m->buf == w->memo_on && m->tgid == w->tgid && m->gen == w->gen &&
	    m->ip == w->s.ip && m->sp == w->s.sp && (m->bp == w->s.bp || !m->bp_used) &&
	    m->exact == w->s.exact && m->stack_lo == w->s.stack_lo &&
	    m->stack_hi == w->s.stack_hi && w->refills == 1 && w->win_start >= w->s.stack_lo &&
	    nr < KU_MEMO_WORDS) {
		/* Where the window starts, from stack_lo: the leaf's step read there first. */
		base = w->win_start - w->s.stack_lo;
		/*
		 * Nothing but the loop uses i: leaving by goto, the verifier
		 * checks what follows once, not once per possible i.
		 */
		for (i = 0; i < KU_MEMO_WORDS && i < nr; i++) {
			rel = m->off[i];
			off = rel - base;
			/* Outside this window, or between its words: a miss. */
			if (rel < base || off + 8 > w->win_len || (off & 7) ||
			    w->win[(off / 8) & (KU_WIN / 8 - 1)] != m->val[i])
				goto miss;
		}
		w->memo_hit = 1;
		return 1;
	}
miss:
	m->valid = 0;
	m->buf = w->memo_on;
	m->tgid = w->tgid;
	m->gen = w->gen;
	m->ip = w->s.ip;
	m->sp = w->s.sp;
	m->bp = w->s.bp;
	m->exact = w->s.exact;
	m->stack_lo = w->s.stack_lo;
	m->stack_hi = w->s.stack_hi;
	m->nr = 0;
	w->s.bp_live = 1;
	w->s.bp_used = 0;
	/*
	 * Only words of the first window are remembered: the next walk has
	 * read that much when it gets here.  A CPU whose last walk needed all
	 * of it will likely need more: do not bother (~1 ns a frame).
	 */
	w->recording = w->refills == 1 && w->first_len < KU_WIN;
	return 0;
}

/* Fold the frame word at index i into both of the walk's hashes. */
static __always_inline void ku_hash_frame_word(struct ku_bpf_ctx *c, struct ku_walk *w, __u32 i)
{
	__u64 word = c->frames[i & (KUNWIND_MAX_FRAMES - 1)];

	w->hash = ku_hash_word(w->hash, word);
	w->hash2 = ku_hash2_word(w->hash2, word);
}

/* One frame of the walk; true when the walk is over (w->stop says why). */
static __always_inline bool ku_loop_frame(struct ku_bpf_ctx *c, const struct kunwind_proc *p,
					  struct ku_walk *w)
{
	__u32 n = w->s.n;
	int err = ku_walk_frame(&w->s, p, c);

	/*
	 * A frame emitted is final once its step is done (KFRAME_EXACT
	 * included).  The leaf's is hashed last (kunwind_user): the rest is
	 * what ku_memo remembers.
	 */
	if (w->s.n != n && n)
		ku_hash_frame_word(c, w, n);
	/*
	 * A V8 frame's second and third words (KFRAME_V8, KFRAME_V8_SFI), the
	 * leaf's too: they name the frame.  The third: a function's address
	 * the GC gave to another function since is another stack, and its
	 * bytecode offset another line.
	 */
	if (w->s.n > n + 1)
		ku_hash_frame_word(c, w, n + 1);
	if (w->s.n > n + 2)
		ku_hash_frame_word(c, w, n + 2);
	if (err)
		w->stop = err;
	return err != 0;
}

/*
 * Two frames per bpf_loop() callback: a call costs ~10 ns on our VM (its
 * return goes through the SRSO mitigation's thunk), about what a frame whose
 * row is cached costs.  Each frame step inlined here costs verification
 * time once per run: on_perf_event loads in ~20 ms with two, ~27 ms with
 * four (which saved at most ~40 ns of a ~1.4 us 43-frame event, within the
 * noise of our measurements).
 */
#define KU_FRAMES_PER_CALL 2

static long ku_loop_cb(__u64 i, void *ctx)
{
	struct ku_bpf_ctx *c = ctx;
	const struct kunwind_proc *p = c->proc;
	struct ku_walk *w = c->w;

	if (!p || !w || ku_loop_frame(c, p, w))
		return 1;
	/* Past the leaf's step: where this CPU's remembered walk stood? */
	if (w->s.n == 1 && w->memo_on && ku_memo_try())
		return 1;
	return ku_loop_frame(c, p, w) ? 1 : 0;
}

/* What a walk starts from: the thread's user registers and its stack's top. */
struct kunwind_start {
	__u64 ip, sp, bp, lr;
	__u64 stack_top;	/* mm->start_stack + 8: a bound when above sp (main thread) */
	__u32 tgid;
	__u32 memo;		/* KU_MEMO_* of the frames' buffer (ku_memo), or 0 */
};

struct kunwind_frames {
	__u64 words[KUNWIND_MAX_FRAMES];
};

struct kunwind_result {
	__u64 hash;		/* of the frame words, the count and the stop */
	__u64 hash2;		/* the same, by another hash (counted_seen) */
	__u32 n;		/* frame words written */
	__u32 stop;		/* KUNWIND_STOP_*; FALLBACK: copy the stack instead */
	__u32 same;		/* the n words are those frames held before the walk */
	__u32 remembered;	/* ended as ku_memo's walk */
};

/*
 * A walk's arguments and answer, per CPU, off the BPF stack: where the
 * kernel gives a program no private stack (every kernel before 6.13, and
 * uprobes on 6.18), the verifier allows 512 bytes for its deepest chain of
 * calls, and an event's chain runs through the interpreter walkers too.
 */
struct kunwind_call {
	struct kunwind_start start;
	struct kunwind_result res;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kunwind_call);
} kunwind_calls SEC(".maps");

/*
 * Unwind the current thread's user stack into frames.  KUNWIND_STOP_FALLBACK
 * means: copy the stack instead, user space knows more than we do.
 *
 * A global function: the verifier checks it once, on its own.  Inlined, it
 * was checked at both of its call sites (counting, and records), ~17 ms of
 * the program's ~47 ms of verification at every start.
 */
__noinline int kunwind_user(const struct kunwind_start *start, struct kunwind_frames *frames,
			    struct kunwind_result *res)
{
	struct ku_bpf_ctx c = {};
	__u32 zero = 0, tgid;
	struct ku_memo *m;
	__u64 span;
	struct ku_walk *w;

	if (!start || !frames || !res)
		return 0;
	res->n = 0;
	res->hash = 0;
	res->hash2 = 0;
	res->same = 0;
	res->remembered = 0;
	res->stop = KUNWIND_STOP_FALLBACK;
	tgid = start->tgid;
	w = bpf_map_lookup_elem(&kunwind_walk, &zero);
	if (!w)
		return 0;
	m = &w->memo;
	c.proc = bpf_map_lookup_elem(&kunwind_procs, &tgid);
	if (!c.proc) {
		/* A fallback: its caller copies the stack into the frames' buffer. */
		if (m->buf == start->memo)
			m->valid = 0;
		return 0;
	}
	w->s.ip = start->ip;
	w->s.sp = start->sp;
	w->s.bp = start->bp;
	w->s.lr = start->lr;
	w->s.sp_bound = 0;
	w->s.stack_lo = start->sp;
	/* The copy stops at the main thread's start_stack: so do we. */
	w->s.stack_hi = start->stack_top > start->sp ? start->stack_top : 0;
	w->s.n = 0;
	w->s.max = KUNWIND_MAX_FRAMES;
	w->s.exact = 1;
	/*
	 * s.hint is kept from this CPU's last walk: the next event is often the
	 * same thread in the same code.  It is only a guess, checked against
	 * this process's list (ku_find_map_hint).  last_pc is not: rows change
	 * between walks.
	 */
	w->s.last_pc = 0;
	w->s.bp_live = 0;
	w->s.bp_used = 0;
	w->s.uret_fixed = 0;
	w->s.by_fp = 0;
	w->stop = KUNWIND_STOP_TRUNCATED;
	w->win_len = 0;
	w->refills = 0;
	w->unreadable = 0;
	w->same = 1;
	w->hash = 0xcbf29ce484222325ull;
	w->hash2 = 0x6a09e667f3bcc908ull;
	w->tgid = tgid;
	w->gen = c.proc->gen;
	w->memo_on = start->memo;
	w->recording = 0;
	w->memo_hit = 0;
	c.w = w;
	c.frames = frames->words;
	bpf_loop(KUNWIND_MAX_FRAMES / KU_FRAMES_PER_CALL + 1, ku_loop_cb, &c, 0);
	if (w->stop == KUNWIND_STOP_TRUNCATED && w->unreadable && !w->memo_hit)
		w->stop = KUNWIND_STOP_UNREADABLE;
	if (w->memo_hit) {
		/* Frames 1..n-1 are in the buffer as that walk left them. */
		w->s.n = m->n;
		w->stop = m->stop;
		w->hash = m->hash;
		w->hash2 = m->hash2;
	} else {
		/*
		 * A walk that took a return address from a uretprobe's return
		 * instance is not remembered: the same trampoline word in the
		 * same slot can stand for another caller next time.
		 */
		if (w->recording && m->nr < KU_MEMO_WORDS && !w->s.uret_fixed) {
			m->n = w->s.n;
			m->stop = w->stop;
			m->hash = w->hash;
			m->hash2 = w->hash2;
			m->bp_used = w->s.bp_used;
			m->valid = 1;
		}
		/* A fallback's buffer gets a stack copy: nothing to remember. */
		if (w->stop == KUNWIND_STOP_FALLBACK && m->buf == w->memo_on)
			m->valid = 0;
		/* The next walk's first read: this one's span, rounded up, with room to grow. */
		span = w->s.sp - start->sp;
		w->first_len = span < KU_WIN - 320 ? ((__u32)span + 256 + 63) & ~63u : KU_WIN;
	}
	w->recording = 0;
	res->stop = w->stop;
	res->n = w->s.n;
	res->same = w->same;
	res->remembered = w->memo_hit;
	res->hash = ku_hash_word(ku_hash_word(w->hash, w->s.n ? frames->words[0] : 0),
				 w->s.n ^ ((__u64)w->stop << 32));
	res->hash2 = ku_hash2_word(ku_hash2_word(w->hash2, w->s.n ? frames->words[0] : 0),
				   w->s.n ^ ((__u64)w->stop << 32));
	return 0;
}

/*
 * The event's user stack, unwound here unless --unwind=copy: returns where
 * in e->ustack a copy of the stack must go, or -1 when none is needed
 * (the frames are in e->ustack already).
 */
static __always_inline int kunwind_capture(struct sample_event *e, __u32 tgid, __u64 stack_top)
{
	struct kunwind_call *call;
	__u32 zero = 0;
	__u64 t0;

	if (kunwind_mode == KUNWIND_MODE_COPY)
		return 0;
	call = bpf_map_lookup_elem(&kunwind_calls, &zero);
	if (!call)
		return 0;
	call->start.ip = e->ip;
	call->start.sp = e->sp;
	call->start.bp = e->bp;
	call->start.lr = e->lr;
	call->start.stack_top = stack_top;
	call->start.tgid = tgid;
	call->start.memo = KU_MEMO_EVENT;
	t0 = ku_walk_clock();
	kunwind_user(&call->start, (struct kunwind_frames *)e->ustack, &call->res);
	/* What the walk costs, apart from the rest of the event (--stats=walks). */
	ku_walk_stats(t0, call->res.n, call->res.remembered);
	if (call->res.stop == KUNWIND_STOP_FALLBACK || call->res.n > KUNWIND_MAX_FRAMES) {
		/* The copy goes where the frames were (kunwind_user forgot them). */
		count(STAT_KUNWIND_FALLBACK);
		return 0;
	}
	e->flags |= STITCH_SAMPLE_KFRAMES;
	if (call->res.stop == KUNWIND_STOP_UNREADABLE) {
		e->flags |= STITCH_SAMPLE_USTACK_FAULT;
		count(STAT_USTACK_FAULT);
	}
	e->nuframes = call->res.n;
	e->ustop = call->res.stop;
	e->ustack_bytes = call->res.n * 8;
	/* check: the copy goes after the frames, for user space to compare */
	return kunwind_mode == KUNWIND_MODE_CHECK ? STITCH_USTACK_ROOM : -1;
}

/* ---- counting in the kernel (--unwind=kernel without per-event records) ---- */

const volatile bool kunwind_count_in_kernel;
/*
 * Test hook (STITCH_TEST_HASH_MASK): bits of the user stack hash kept.  With
 * few bits different stacks share a hash, and the tests check that they are
 * sent to user space rather than counted under one another.
 */
const volatile __u64 counted_hash_mask = ~0ull;
/* Written by user space while running (see counted_key.epoch). */
volatile __u32 counted_epoch;

#ifndef EFAULT
#define EFAULT 14
#endif
#ifndef EEXIST
#define EEXIST 17
#endif

/*
 * Kernel stacks, in two maps: the one of counted_kgen's parity takes new
 * stacks.  A stack map's ids are never freed by the kernel, and a long run
 * fills it, after which every event with a new kernel stack goes to user
 * space.  `stitch agent` flips counted_kgen at each period, once the map it
 * moves to has been emptied but for the stacks keys still name
 * (counted_kstacks_flip, record/kstacks_flip.c): a map holds two periods'
 * stacks and those of threads blocked since.  `stitch record` never flips:
 * counted_kstk1 has one entry.
 */
struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 16384);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, COUNTED_KSTACK_DEPTH * sizeof(__u64));
} counted_kstk0 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 16384);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, COUNTED_KSTACK_DEPTH * sizeof(__u64));
} counted_kstk1 SEC(".maps");

/* Written by user space while running (counted_kstacks_flip). */
volatile __u32 counted_kgen;

/* The current kernel stack's id in the map of generation *kgen (set). */
static __always_inline long counted_stackid(void *ctx, __u64 flags, __u32 *kgen)
{
	__u32 g = counted_kgen;

	*kgen = g;
	if (g & 1)
		return bpf_get_stackid(ctx, &counted_kstk1, flags);
	return bpf_get_stackid(ctx, &counted_kstk0, flags);
}

/* User stacks by hash, up to COUNTED_SHORT_FRAMES frames (unwind_in_kernel.h), and longer. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct counted_ustack_short);
} counted_ustk SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct counted_ustack);
} counted_ustk_xl SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 65536);
	__type(key, struct counted_key);
	__type(value, __u64);
} kernel_counts SEC(".maps");

/*
 * Where a user stack is built before it is hashed and stored; per CPU.  It
 * keeps the last stack walked here: a CPU often samples the same stack
 * again (a hot loop), and a walk that rewrote every word with its old value
 * (kunwind_result.same) has the stack that is stored already.
 */
/* Entries of counted_scratch_val.seen, direct-mapped by hash: 16 KiB a CPU. */
#define COUNTED_SEEN 1024

struct counted_scratch_val {
	struct counted_ustack u;
	/*
	 * u, as it is, was found stored in counted_ustk (or stored there) under
	 * hash.  counted_ustk entries are never changed or deleted while we
	 * run, so it still is.
	 */
	__u32 stored;
	__u64 hash;
	/*
	 * Stacks this CPU found stored (or stored) lately, by both of their
	 * hashes: a walk whose pair is here has a stack that is stored, and
	 * skips the lookup and the word-by-word compare (~300 ns of a ~2 us
	 * event whose stack changes; most of it cache misses on the stored
	 * stacks).  The pair is a 128-bit identity, as for interpreter walks
	 * (interp_known): a stack that shares the first hash with another but
	 * not the second misses, and goes through counted_store's compare.
	 */
	struct { __u64 hash, hash2; } seen[COUNTED_SEEN];
	struct counted_key key;	/* the event's, built here: off the BPF stack */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct counted_scratch_val);
} counted_scratch SEC(".maps");

struct counted_cmp {
	const struct counted_ustack *a;
	const __u64 *b;		/* a stored stack's words: a short or a long one */
	__u32 n;
	int differ;
};

/*
 * Compares COUNTED_CMP_CHUNK words per call: the loop's call per iteration,
 * not the comparison, is what costs.  Words past n are not compared (they
 * are whatever an earlier, longer stack left there).  One callback per
 * size of stored stack: the mask bounds the read in that map's value.
 */
#define COUNTED_CMP_CHUNK 32

#define COUNTED_CMP_CB(name, nwords)						\
static long name(__u64 i, void *ctx)						\
{										\
	struct counted_cmp *c = ctx;						\
	__u32 base = i * COUNTED_CMP_CHUNK, j, k;					\
										\
	for (j = 0; j < COUNTED_CMP_CHUNK; j++) {					\
		if (base + j >= c->n)						\
			return 1;						\
		k = (base + j) & ((nwords) - 1);				\
		if (c->a->words[k] != c->b[k]) {				\
			c->differ = 1;						\
			return 1;						\
		}								\
	}									\
	return 0;								\
}

COUNTED_CMP_CB(counted_cmp_short_cb, COUNTED_SHORT_FRAMES)
COUNTED_CMP_CB(counted_cmp_long_cb, KUNWIND_MAX_FRAMES)

/*
 * Store stack u (n words) under hash once; an equal hash must be an equal
 * stack.  0 stored (or found equal), 1 a collision, -1 the map is full.
 * Out of line: its frame is beside the walk's, not on top of it.
 */
static __noinline int counted_store(struct counted_ustack *u, __u64 hash, __u32 n, __u32 stop)
{
	struct counted_cmp c = { .a = u, .n = n };
	struct counted_ustack_short *s = 0;
	struct counted_ustack *l = 0;
	bool is_short = !(hash & COUNTED_LONG_BIT);
	__u32 on, ostop;
	long err;

	/* Look first: most stacks are stored already, and a lookup takes no lock. */
	if (is_short)
		s = bpf_map_lookup_elem(&counted_ustk, &hash);
	else
		l = bpf_map_lookup_elem(&counted_ustk_xl, &hash);
	if (!s && !l) {
		/* The short map's value is u's prefix: only what n needs is copied. */
		err = is_short ? bpf_map_update_elem(&counted_ustk, &hash, u, BPF_NOEXIST) :
				 bpf_map_update_elem(&counted_ustk_xl, &hash, u, BPF_NOEXIST);
		if (!err)
			return 0;
		if (err != -EEXIST)
			return -1;
		/* Another CPU stored it since: compare with that one. */
		if (is_short)
			s = bpf_map_lookup_elem(&counted_ustk, &hash);
		else
			l = bpf_map_lookup_elem(&counted_ustk_xl, &hash);
		if (!s && !l)
			return 1;
	}
	on = s ? s->n : l ? l->n : 0;
	ostop = s ? s->stop : l ? l->stop : 0;
	if (on != n || ostop != stop)
		return 1;
	if (s) {
		c.b = s->words;
		bpf_loop((n + COUNTED_CMP_CHUNK - 1) / COUNTED_CMP_CHUNK,
			 counted_cmp_short_cb, &c, 0);
	} else if (l) {
		c.b = l->words;
		bpf_loop((n + COUNTED_CMP_CHUNK - 1) / COUNTED_CMP_CHUNK,
			 counted_cmp_long_cb, &c, 0);
	}
	return c.differ ? 1 : 0;
}

/* An off-CPU switch-out's part in counting: what it is, and where its key goes. */
struct counted_defer {
	struct counted_key key;	/* out: the stored stack's key, weighed later (counted_add) */
	__u32 tag;		/* enum offcpu_tag: the thread's state */
	__u32 kskip;		/* innermost kernel frames that are ours (the BPF glue) */
};

/* kunwind_count_event's flags, beside the event's index. */
#define COUNTED_USER_SAMPLE	(1u << 31)
#define COUNTED_GLUE		(1u << 29)	/* kernel frames start in our glue (STACK_TAG_GLUE) */
#define COUNTED_FLAGS		(COUNTED_USER_SAMPLE | COUNTED_GLUE)

/*
 * Count this event under (pid, tid, comm, event, kernel stack, user stack)
 * if the kernel can walk its user stack and has room: returns true when
 * counted, false when the event must go to user space as a record.
 *
 * Called for the current task once its user registers are known usable
 * (stack_top, from ku_user_stack_top(), not 0) and kunwind_count_in_kernel
 * is set.  idx: the event's index, with COUNTED_USER_SAMPLE for a perf
 * sample that interrupted user code.  Its kernel stack is empty (perf
 * takes kernel frames only from kernel-mode registers), so counting it need
 * not ask for one: bpf_get_stackid() would spend ~200 ns to find nothing
 * and return -EFAULT.  defer: an off-CPU switch-out, weighed later
 * (counted_add), or NULL.  ihash: the interpreter frames' part of the key
 * (capture_walk.bpf.h), 0 for none.
 *
 * Out of line, its state in per-CPU maps: a frame of its own, beside (not
 * under) the interpreter walk's in the event's chain of calls.
 */
static __noinline bool kunwind_count_event(void *ctx, __u64 stack_top, __u32 idx,
					   struct counted_defer *defer, __u64 ihash)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 id = bpf_get_current_pid_tgid();
	struct counted_scratch_val *sv;
	struct kunwind_call *call;
	struct counted_ustack *u;
	typeof(sv->seen[0]) *seen;
	struct counted_key *key;
	struct pt_regs *regs;
	__u32 zero = 0, n, was_stored;
	__u64 one = 1, *cnt, t0, hash;
	__u32 stop;
	int kept;
	long err;

	sv = bpf_map_lookup_elem(&counted_scratch, &zero);
	call = bpf_map_lookup_elem(&kunwind_calls, &zero);
	regs = (struct pt_regs *)bpf_task_pt_regs(task);
	if (!sv || !call || !regs)
		return false;
	u = &sv->u;
	key = &sv->key;
	/* The walk rewrites u: what it held is known stored only until then. */
	was_stored = sv->stored;
	sv->stored = 0;
	t0 = ku_walk_clock();
	/*
	 * Trusted BTF pointers: plain loads, not bpf_probe_read_kernel() calls
	 * (~20 ns each, as BPF_CORE_READ would make them).
	 */
	call->start.ip = UREG_IP(regs);
	call->start.sp = UREG_SP(regs);
	call->start.bp = UREG_FP(regs);
	call->start.lr = UREG_LR(regs);
	call->start.stack_top = stack_top;
	call->start.tgid = id >> 32;
	call->start.memo = KU_MEMO_COUNTED;
	kunwind_user(&call->start, (struct kunwind_frames *)u->words, &call->res);
	ku_walk_stats(t0, call->res.n, call->res.remembered);
	n = call->res.n;
	stop = call->res.stop;
	hash = (call->res.hash & counted_hash_mask & ~COUNTED_LONG_BIT) |
	       (n > COUNTED_SHORT_FRAMES ? COUNTED_LONG_BIT : 0);
	if (stop == KUNWIND_STOP_FALLBACK || n > KUNWIND_MAX_FRAMES)
		return false;
	if (stop == KUNWIND_STOP_UNREADABLE)
		count(STAT_USTACK_FAULT);
	/* The same words, count and stop as the stack stored last time: stored. */
	if (was_stored && call->res.same && u->n == n && u->stop == stop && sv->hash == hash)
		goto stored;
	u->n = n;
	u->stop = stop;
	seen = &sv->seen[hash & (COUNTED_SEEN - 1)];
	if (seen->hash == hash && seen->hash2 == call->res.hash2 && call->res.hash2)
		goto stored;
	kept = counted_store(u, hash, n, stop);
	if (kept < 0) {
		count(STAT_COUNTED_FULL);
		return false;
	}
	if (kept > 0)
		goto collision;
	seen->hash = hash;
	seen->hash2 = call->res.hash2;
stored:
	sv->hash = hash;
	sv->stored = 1;
	__builtin_memset(key, 0, sizeof(*key));
	/* The kernel stack map compares stacks too: a collision is -EEXIST. */
	key->kstack_id = idx & COUNTED_USER_SAMPLE ? -EFAULT :
			 counted_stackid(ctx, defer ? defer->kskip : 0, &key->kgen);
	if (key->kstack_id == -EEXIST)
		goto collision;
	if (key->kstack_id < 0 && key->kstack_id != -EFAULT) {
		count(STAT_COUNTED_FULL);
		return false;
	}
	key->pid = id >> 32;
	key->tid = (__u32)id;
	key->event_idx = idx & ~COUNTED_FLAGS;
	key->uhash = hash;
	key->ihash = ihash;
	key->epoch = counted_epoch;
	key->tag = defer ? defer->tag : idx & COUNTED_GLUE ? STACK_TAG_GLUE : 0;
	/* Two loads through the trusted task pointer instead of a helper's strscpy. */
	__builtin_memcpy(key->comm, task->comm, sizeof(key->comm));
	/* Off-CPU: the stack is stored; its weight comes at switch-in (counted_add). */
	if (defer) {
		defer->key = *key;
		return true;
	}
	cnt = bpf_map_lookup_elem(&kernel_counts, key);
	if (cnt) {
		__sync_fetch_and_add(cnt, 1);
		return true;
	}
	err = bpf_map_update_elem(&kernel_counts, key, &one, BPF_NOEXIST);
	if (err == -EEXIST) {
		cnt = bpf_map_lookup_elem(&kernel_counts, key);
		if (cnt) {
			__sync_fetch_and_add(cnt, 1);
			return true;
		}
	}
	if (err) {
		count(STAT_COUNTED_FULL);
		return false;
	}
	return true;
collision:
	count(STAT_COUNTED_COLLISION);
	return false;
}

/*
 * Add n to the count of a stack stored before (kunwind_count_event with
 * defer), under the current epoch: the one it was stored under may have been
 * read and deleted since.  False if the map is full.
 */
static __always_inline bool counted_add_in(void *counts, struct counted_key *key, __u64 n)
{
	__u64 *cnt;
	long err;

	key->epoch = counted_epoch;
	cnt = bpf_map_lookup_elem(counts, key);
	if (cnt) {
		__sync_fetch_and_add(cnt, n);
		return true;
	}
	err = bpf_map_update_elem(counts, key, &n, BPF_NOEXIST);
	if (err == -EEXIST) {
		cnt = bpf_map_lookup_elem(counts, key);
		if (cnt) {
			__sync_fetch_and_add(cnt, n);
			return true;
		}
	}
	return !err;
}

/* counted_add_in the events' counts (another map: alloc's objects, alloc.bpf.h). */
static __always_inline bool counted_add(struct counted_key *key, __u64 n)
{
	return counted_add_in(&kernel_counts, key, n);
}

/*
 * A process that execs keeps its pid but not its mappings: forget the list.
 * Raw tracepoints, as capture.bpf.c's process events.
 */
SEC("raw_tp/sched_process_exec")
int BPF_PROG(kunwind_on_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 tgid = BPF_CORE_READ(p, tgid);

	bpf_map_delete_elem(&kunwind_procs, &tgid);
	return 0;
}

/* Forget a process when its leader exits, so a reused pid is never walked with it. */
SEC("raw_tp/sched_process_exit")
int BPF_PROG(kunwind_on_exit, struct task_struct *task)
{
	__u32 tgid = BPF_CORE_READ(task, tgid);

	if (BPF_CORE_READ(task, pid) == tgid)
		bpf_map_delete_elem(&kunwind_procs, &tgid);
	return 0;
}

#endif /* STITCH_CAPTURE_UNWIND_IN_KERNEL_BPF_H */
