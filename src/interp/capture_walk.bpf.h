/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Interpreter frames, kernel side, part of the capture program (capture.bpf.c).
 * On every event of a process user space marked as an interpreter, the
 * current thread's interpreter frames are walked (walk_thread.bpf.h) and
 * either sent as an interp_event just before the sample (see interp.h), or,
 * when the event is counted in the kernel, reduced to a hash that goes into
 * its count key (interp_count_key): a walk is sent once, as a definition,
 * the first time its hash is seen, and user space names it then.
 */
#ifndef STITCH_INTERP_CAPTURE_WALK_BPF_H
#define STITCH_INTERP_CAPTURE_WALK_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "capture/samples.bpf.h"
#include "capture/stats.bpf.h"
#include "capture/verifier.bpf.h"
#include "interp/walk_thread.bpf.h"

/*
 * Walks sent as definitions: their hash -> a second, independent hash of
 * the same bytes.  The pair is a 128-bit identity: two walks that share
 * the first hash but not the second are a collision, and the later one is
 * sent with its sample instead of being counted under the other's frames.
 * Full: walks not seen yet are sent with their samples.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);	/* memory per walk seen, not 1.3 MB up front */
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, __u64);
} interp_known SEC(".maps");

/* Set by user space before load: a mask on the first hash (tests force collisions). */
const volatile __u64 interp_hash_mask = ~0ull;

#define INTERP_HASH_K1 0x9e3779b97f4a7c15ULL
#define INTERP_HASH_K2 0xc2b2ae3d27d4eb4fULL

/*
 * Two multiply chains with different combining steps: each step is a
 * bijection of the running hash, so walks that differ in one word always
 * differ; the pair is checked together (interp_known), and the first is
 * finished with a mix before it is used as a key.
 */
static __always_inline void interp_hash_mix(struct interp_hash_walk *w, __u64 v)
{
	w->h1 = (w->h1 ^ v) * INTERP_HASH_K1;
	w->h2 = (w->h2 + v) * INTERP_HASH_K2;
}

/* interp_hash_step's context: bpf_loop() takes it on the stack only. */
struct interp_hash_ctx {
	struct interp_scratch *s;	/* the hash is s->hash */
};

/* One word of the strings after the frames (perl). */
static long interp_hash_step(__u64 i, void *ctx)
{
	struct interp_scratch *s = ((struct interp_hash_ctx *)ctx)->s;
	struct interp_hash_walk *w = &s->hash;
	__u64 off = w->from + i * 8, v;

	if (i > w->words || off > sizeof(struct interp_scratch) - 8)
		return 1;
	v = *(__u64 *)((__u8 *)s + off);
	if (i == w->words) {
		if (!w->tail)
			return 1;
		/* Only the bytes sent: what lies past them is an older walk's. */
		v &= (1ULL << ((w->tail & 7) * 8)) - 1;
	}
	interp_hash_mix(w, v);
	return 0;
}

/*
 * Hash the walk in s (size bytes as sent): its frames in a plain loop (a
 * bpf_loop() callback per word cost ~10 ns a word, ~1 us for 20 Python
 * frames), then any strings after them.
 */
static __always_inline void interp_hash_walk(struct interp_scratch *s, __u64 size)
{
	struct interp_hash_walk *w = &s->hash;
	/* In registers: every mix through w was a load and a store. */
	struct interp_hash_walk h = { .h1 = w->h1, .h2 = w->h2 };
	__u32 n = s->ev.nframes, i;
	__u64 strs;

	for (i = 0; i < INTERP_MAX_FRAMES; i++) {
		const struct interp_frame *f;

		if (i >= n)
			break;
		f = &s->ev.frames[i];
		interp_hash_mix(&h, f->addr);
		interp_hash_mix(&h, f->pc);
		interp_hash_mix(&h, f->id1);
		interp_hash_mix(&h, f->id2);
		interp_hash_mix(&h, (__u64)f->id3 | (__u64)f->flags << 32);
	}
	w->h1 = h.h1;
	w->h2 = h.h2;
	strs = INTERP_EVENT_HDR_BYTES + (__u64)n * sizeof(struct interp_frame);
	if (n <= INTERP_MAX_FRAMES && size > strs) {
		struct interp_hash_ctx c = { .s = s };

		w->from = strs;
		w->words = (size - strs) / 8;
		w->tail = (size - strs) & 7;
		bpf_loop(INTERP_STR_BYTES / 8 + 1, interp_hash_step, &c, 0);
	}
	w->h1 ^= w->h1 >> 31;
	w->h1 *= INTERP_HASH_K2;
	w->h1 ^= w->h1 >> 29;
}

/*
 * What the capture program does with an interpreter process's event it
 * would count in the kernel (interp_count_key's return value).
 */
#define INTERP_KEY_SEND	0	/* send the event with its walk: not counted here */
#define INTERP_KEY_NONE	1	/* no interpreter frames: count as a native stack */
#define INTERP_KEY_LOST	2	/* count, marked lost: the definition found no room */

/*
 * The current thread's interpreter frames walked into the scratch: the
 * bytes to send, 0 if there are none.  A global function, so the verifier
 * checks the three walkers once instead of once per caller: loading
 * on_perf_event took 57 ms with them inlined twice (18 ms without
 * interpreters).
 */
__noinline __u64 interp_walk_current(__u32 tgid, __u32 tid, __u64 time_ns)
{
	__u64 size = 0;

	if (!interp_walk(bpf_get_current_task_btf(), tgid, tid, time_ns, &size))
		return 0;
	return size;
}

/*
 * Give the hash the count key of the walk in the scratch s (size bytes)
 * carries (a value > INTERP_KEY_LOST), or one of the INTERP_KEY_* above.
 * A walk whose hash is new is sent now, as a definition (interp_event.ihash
 * set): if the event then cannot be counted after all, its sample follows
 * and user space pairs them as for any walk.  The scratch says whether the
 * walk went out.
 *
 * The hash is registered before its definition is sent: another CPU that
 * finds it registered counts under it at once, and its count may be read
 * before the definition (user space keeps such counts for later).  A
 * definition that finds no room unregisters its hash.
 *
 * A definition wakes the reader: it names its frames from the code objects
 * it points at, which must still exist then.  Left to the reader's idle
 * turns (up to 100 ms), a script's last function (30 ms at 999 Hz, then
 * exit) was "[unknown python frame]" in 8 of 10 runs on an idle machine,
 * named in 8 of 8 with the wakeup.  Definitions are rare (a steady loop's
 * few hundred, then none), and so are their wakeups.
 */
static __always_inline __u64 interp_count_key(struct interp_scratch *s, __u32 tgid, __u64 size)
{
	struct interp_hash_walk *w = &s->hash;
	__u64 h1, *known;

	if (size < INTERP_EVENT_HDR_BYTES || size > sizeof(*s))
		return INTERP_KEY_SEND;
	size = verifier_at_most(size, sizeof(*s));
	w->h1 = 0;
	w->h2 = 0;
	/* Where the walk is from (process, config) and how it ended, then its frames. */
	interp_hash_mix(w, (__u64)tgid << 32 | s->gen);
	interp_hash_mix(w, (__u64)s->ev.lang | (__u64)s->ev.nframes << 16 |
			   (__u64)s->ev.flags << 32);
	interp_hash_walk(s, size);
	h1 = w->h1 & interp_hash_mask;
	if (h1 <= INTERP_KEY_LOST)
		h1 += INTERP_KEY_LOST + 1;
	known = bpf_map_lookup_elem(&interp_known, &h1);
	if (!known && bpf_map_update_elem(&interp_known, &h1, &w->h2, BPF_NOEXIST) == 0) {
		s->ev.ihash = h1;
		if (bpf_ringbuf_output(&samples, &s->ev, size, BPF_RB_FORCE_WAKEUP)) {
			bpf_map_delete_elem(&interp_known, &h1);
			count(STAT_INTERP_LOST);
			return INTERP_KEY_LOST;
		}
		s->sent = 1;
		count(STAT_INTERP_DEFINED);
		return h1;
	}
	/* Registered, by this CPU before or by another just now. */
	if (!known)
		known = bpf_map_lookup_elem(&interp_known, &h1);
	if (known && *known == w->h2)
		return h1;
	count(STAT_INTERP_NOT_KEPT);
	return INTERP_KEY_SEND;
}

/*
 * Walk the current thread's interpreter frames into the scratch, stamped
 * now, first of all its event's work.  count: the event may be counted in
 * the kernel: the answer is then interp_count_key's, else INTERP_KEY_SEND
 * (or INTERP_KEY_NONE: no frames).  The walk's chain of calls is the
 * deepest of the event's: it starts here, beside the rest of the event
 * (capture.bpf.c), not under it.
 */
__noinline __u64 interp_walk_event(__u32 tgid, __u32 tid, int count)
{
	struct interp_scratch *s;
	__u32 zero = 0;
	__u64 size;

	s = bpf_map_lookup_elem(&interp_scratch, &zero);
	if (!s)
		return INTERP_KEY_NONE;
	/* Nothing walked yet: a sample that follows sends no older walk. */
	s->size = 0;
	s->sent = 0;
	s->time_ns = bpf_ktime_get_ns();
	size = interp_walk_current(tgid, tid, s->time_ns);
	if (!size)
		return INTERP_KEY_NONE;
	s->size = size;
	return count ? interp_count_key(s, tgid, size) : INTERP_KEY_SEND;
}

/* When the walk in the scratch was taken: its sample must carry that time. */
static __always_inline __u64 interp_walk_time(void)
{
	__u32 zero = 0;
	struct interp_scratch *s = bpf_map_lookup_elem(&interp_scratch, &zero);

	return s ? s->time_ns : bpf_ktime_get_ns();
}

/*
 * Send the walk interp_walk_event left in the scratch before its sample,
 * unless it went out as a definition already.  1 if it was dropped.
 */
__noinline int interp_capture(void)
{
	struct interp_scratch *s;
	__u32 zero = 0;
	__u64 size;

	s = bpf_map_lookup_elem(&interp_scratch, &zero);
	if (!s || s->sent || !s->size || s->size > sizeof(s->ev) + INTERP_STR_BYTES)
		return 0;
	size = s->size;
	if (size < INTERP_EVENT_HDR_BYTES || size > sizeof(*s))
		return 0;
	size = verifier_at_most(size, sizeof(*s));
	s->ev.ihash = 0;
	if (bpf_ringbuf_output(&samples, &s->ev, size, BPF_RB_NO_WAKEUP)) {
		count(STAT_INTERP_LOST);
		return 1;
	}
	return 0;
}

#endif /* STITCH_INTERP_CAPTURE_WALK_BPF_H */
