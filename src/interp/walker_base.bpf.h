/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every interpreter walker shares, kernel side: which processes are
 * interpreters (interp_procs, set by user space), the per-version layouts,
 * the per-CPU scratch a walk builds its interp_event in, and loads from
 * chunks of the target's memory.  Included by each walker and by
 * capture_walk.bpf.h.
 */
#ifndef STITCH_INTERP_WALKER_BASE_BPF_H
#define STITCH_INTERP_WALKER_BASE_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "interp/interp.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);	/* written by user space only */
	__uint(max_entries, 8192);
	__type(key, __u32);			/* tgid */
	__type(value, struct interp_proc_cfg);
} interp_procs SEC(".maps");

/*
 * Set by user space before it puts the first process in interp_procs: until
 * then no event needs the lookup (a hash lookup per event, ~60 ns here).
 */
volatile __u32 interp_any;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, INTERP_MAX_LAYOUTS);
	__type(key, __u32);
	__type(value, struct interp_layout);
} interp_layouts SEC(".maps");

/*
 * A window: what a walker can expect to lie side by side (CPython 3.11's
 * frames in a thread's data stack, Ruby's control frames and their
 * environments, Perl's context stack) is read in one read of up to
 * INTERP_WINDOW - 8 bytes instead of one read each (~90 ns a read here;
 * ~10% of an interpreter event's BPF time saved).  The buffer has a chunk's
 * room past the window, so that chunk loads at a masked offset into it
 * stay inside.
 */
#define INTERP_WINDOW 4096

struct interp_window {
	__u64 base;		/* it holds [base, base + len) of the walked thread's memory */
	__u32 len;		/* 0: nothing yet */
	__u8 buf[INTERP_WINDOW + INTERP_CHUNK];
};

/* The event and the chunks read from the target: too big for the BPF stack. */
/*
 * A walk's two hashes, and where the words to hash are (capture_walk.bpf.h's
 * interp_hash_step): in the scratch, off the BPF stack.
 */
struct interp_hash_walk {
	__u32 from;		/* byte offset in the scratch of the first word */
	__u32 words;		/* whole words */
	__u32 tail;		/* bytes after them */
	__u64 h1, h2;
};

struct interp_scratch {
	struct interp_event ev;
	/* perl: names and files, moved to follow the frames walked; room for one more string */
	__u8 strs[INTERP_STR_BYTES + INTERP_STR_MAX];
	__u32 str_used;
	__u8 frame[INTERP_CHUNK];
	__u8 code[INTERP_CHUNK];
	/* python: frames; ruby: control frames, environments; perl: contexts */
	struct interp_window win[2];
	/*
	 * The walk's cursor lives here, not on the stack: values read from a
	 * map are unknown to the verifier, so the bpf_loop() callback converges
	 * at once instead of being explored iteration by iteration.
	 */
	__u64 cursor, end;
	__u32 n;
	/*
	 * The capture program's last walk here (capture_walk.bpf.h): its bytes,
	 * and whether it went out.
	 */
	__u32 sent;
	__u32 gen;		/* the walked process's interp_proc_cfg.gen */
	__u64 size;
	__u64 time_ns;		/* when it was taken */
	struct interp_hash_walk hash;
	/* ruby: the last method entry read in this walk, and its owner (rb_frame_owner) */
	__u64 last_me, last_owner;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct interp_scratch);
} interp_scratch SEC(".maps");

/*
 * Loads at a layout offset inside a chunk.  The mask keeps the verifier's
 * bound (and the alignment) whatever the offset in the map says; layouts
 * are checked to fit in user space.
 */
static __always_inline __u64 chunk_u64(const __u8 *c, __u32 off)
{
	barrier_var(off);
	off &= INTERP_CHUNK - 8;
	return *(const __u64 *)(c + off);
}

static __always_inline __u32 chunk_u32(const __u8 *c, __u32 off)
{
	barrier_var(off);
	off &= INTERP_CHUNK - 4;
	return *(const __u32 *)(c + off);
}

static __always_inline __u8 chunk_u8(const __u8 *c, __u32 off)
{
	barrier_var(off);
	off &= INTERP_CHUNK - 1;
	return c[off];
}

/*
 * A walk's steps: bpf_loop() calls the step (a walker's callback) n times at
 * most, and the verifier checks it once (5.17).  Kernels without it (5.10)
 * walk in the legacy workers' program of their own (record/legacy_walk.bpf.c,
 * which defines INTERP_WALK_BOUNDED): a loop the verifier checks step by
 * step, so of fewer steps (a deeper walk ends marked truncated).  Both give
 * the steps taken.
 */
#ifdef INTERP_WALK_BOUNDED
#define INTERP_WALK_STEPS 32
#define interp_loop(n, step, ctx) ({						\
	__u32 __i, __n = (n) < INTERP_WALK_STEPS ? (n) : INTERP_WALK_STEPS;	\
										\
	for (__i = 0; __i < __n; __i++)						\
		if (step(__i, ctx)) {						\
			__i++;							\
			break;							\
		}								\
	(long)__i;								\
})
#define interp_loop_cap(n) ((n) < INTERP_WALK_STEPS ? (n) : INTERP_WALK_STEPS)
#else
#define interp_loop(n, step, ctx) bpf_loop(n, step, ctx, 0)
#define interp_loop_cap(n) (n)
#endif

/*
 * How a walker reads the target's memory.  The capture program walks the
 * thread its event fired on, in that thread's own address space:
 * bpf_probe_read_user, task unused.  The snapshot iterator walks other
 * tasks from a sleepable program (it defines INTERP_WALK_OTHER_TASKS before
 * including the walkers): bpf_copy_from_user_task, which may also fault
 * in a page the target has swapped out.  0 or a negative error, as the
 * helpers; the _str variants return the bytes copied with the NUL.
 */
#ifdef INTERP_WALK_OTHER_TASKS
extern int bpf_copy_from_user_task_str(void *dst, __u32 dst__sz, const void *unsafe_ptr__ign,
				       struct task_struct *tsk, __u64 flags) __ksym __weak;

/*
 * Set by user space before load: the kernel has the kfunc above (6.15 and
 * later; not 6.1's nor 6.12's).  Without it, the call is dead code, which
 * the verifier drops unseen.
 */
const volatile bool interp_have_copy_str;

static __always_inline long interp_read(struct task_struct *task, void *dst, __u32 size,
					__u64 addr)
{
	return bpf_copy_from_user_task(dst, size, (void *)addr, task, 0);
}

/* Where the string's NUL is in what interp_read_str_copied() read (interp_nul_step). */
struct interp_nul_find {
	const __u8 *s;
	__u32 len;		/* bytes read */
	__u32 nul;		/* its index; len: none */
};

static long interp_nul_step(__u64 i, void *ctx)
{
	struct interp_nul_find *f = ctx;

	if (i >= f->len)
		return 1;
	if (f->s[i & (INTERP_STR_MAX - 1)])
		return 0;
	f->nul = i;
	return 1;
}

/*
 * bpf_copy_from_user_task_str without the kfunc: INTERP_STR_MAX bytes, or
 * up to the end of the string's page when the next one is unreadable, and
 * the NUL found in them.  The bytes copied with the NUL, or -1.
 */
static __always_inline long interp_read_str_copied(struct task_struct *task, __u8 *dst,
						   __u64 addr)
{
	struct interp_nul_find f = { .s = dst, .len = INTERP_STR_MAX };

	if (bpf_copy_from_user_task(dst, INTERP_STR_MAX, (void *)addr, task, 0)) {
		f.len = 4096 - (addr & 4095);
		if (f.len >= INTERP_STR_MAX ||
		    bpf_copy_from_user_task(dst, f.len & (INTERP_STR_MAX - 1), (void *)addr,
					    task, 0))
			return -1;
	}
	f.nul = f.len;
	bpf_loop(INTERP_STR_MAX, interp_nul_step, &f, 0);
	return f.nul < f.len ? f.nul + 1 : -1;
}

static __always_inline long interp_read_str(struct task_struct *task, void *dst, __u32 size,
					    __u64 addr)
{
	if (interp_have_copy_str)
		return bpf_copy_from_user_task_str(dst, size, (void *)addr, task, 0);
	if (size != INTERP_STR_MAX)
		return -1;
	return interp_read_str_copied(task, dst, addr);
}
#else
static __always_inline long interp_read(struct task_struct *task, void *dst, __u32 size,
					__u64 addr)
{
	return bpf_probe_read_user(dst, size, (void *)addr);
}

static __always_inline long interp_read_str(struct task_struct *task, void *dst, __u32 size,
					    __u64 addr)
{
	return bpf_probe_read_user_str(dst, size, (void *)addr);
}
#endif

/*
 * The len bytes at addr (len < INTERP_CHUNK), from window w if it holds
 * them; else w is read anew as [lo, hi) (which holds them, and spans less
 * than INTERP_WINDOW bytes).  If that read fails (a page in it not mapped
 * or not present: the range reached past the frames' mapping), the window
 * is cut to start at addr's page, then to the bytes alone.  NULL if even
 * those cannot be read.  interp_walk() empties the windows before every
 * walk: a window is never used across walks, threads or processes.
 */
static __always_inline const __u8 *interp_window(struct task_struct *task,
						 struct interp_window *w, __u64 addr, __u32 len,
						 __u64 lo, __u64 hi)
{
	__u64 off = addr - w->base, size;

	if (w->len && addr >= w->base && off + len <= w->len)
		goto hit;
	if (lo > addr || hi < addr + len || hi - lo >= INTERP_WINDOW)
		lo = addr, hi = addr + len;
	size = hi - lo;
	barrier_var(size);
	size &= INTERP_WINDOW - 1;
	if (size && !interp_read(task, w->buf, size, lo))
		goto got;
	if (lo < (addr & ~4095ULL)) {
		lo = addr & ~4095ULL;
		size = hi - lo;
		barrier_var(size);
		size &= INTERP_WINDOW - 1;
		if (size && !interp_read(task, w->buf, size, lo))
			goto got;
	}
	lo = addr;
	size = len;
	barrier_var(size);
	size &= INTERP_CHUNK - 1;
	if (!size || interp_read(task, w->buf, size, lo)) {
		w->len = 0;
		return NULL;
	}
got:
	w->base = lo;
	w->len = size;
	off = addr - lo;
hit:
	barrier_var(off);
	off &= INTERP_WINDOW - 1;
	return w->buf + off;
}

/* A window ending with the len bytes at addr: for what grows down from there. */
static __always_inline const __u8 *interp_window_below(struct task_struct *task,
						       struct interp_window *w, __u64 addr,
						       __u32 len)
{
	return interp_window(task, w, addr, len, addr + len - (INTERP_WINDOW - 8), addr + len);
}

/*
 * Where the thread control block keeps the DTV pointer, from the thread
 * pointer: glibc's tcbhead_t { tcb, dtv, self, ... } at fsbase on x86-64;
 * the ABI's 16-byte TCB { dtv, private } at tpidr_el0 on arm64.
 */
#if defined(__TARGET_ARCH_arm64)
#define TCB_DTV_OFF 0
#else
#define TCB_DTV_OFF 8
#endif

/*
 * A shared library's TLS variable of the walked thread, read as
 * __tls_get_addr would: dtv = tcb->dtv; block = dtv[modid].val; then the
 * variable at block + off.  0 with *val set; 1 when this thread has no
 * block for the library (it never touched its TLS: *val = 0); -1 on a
 * fault.
 */
static __always_inline int interp_tls_var(struct task_struct *task, __u64 fs_base, __u64 modid,
					  __u64 off, __u64 *val)
{
	__u64 dtv = 0, block = 0;

	*val = 0;
	if (interp_read(task, &dtv, 8, fs_base + TCB_DTV_OFF) ||
	    interp_read(task, &block, 8, dtv + modid * 16))
		return -1;
	if (!block || block == (__u64)-1)
		return 1;
	return interp_read(task, val, 8, block + off) ? -1 : 0;
}

#endif /* STITCH_INTERP_WALKER_BASE_BPF_H */
