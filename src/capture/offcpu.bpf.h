/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Off-CPU time, kernel side, part of the capture program: the per-thread
 * intervals (offcpu_threads), their end (offcpu_in: the time since the
 * thread left goes to the stack it left with), and --wakers' sched_waking
 * hook.  The capture program's sched_switch (capture.bpf.c) takes the
 * leaving thread's stack with capture() and hands it to offcpu_left().
 * Attached only when an "offcpu" event is asked for (user space sets the
 * programs' autoload).
 */
#ifndef STITCH_CAPTURE_OFFCPU_BPF_H
#define STITCH_CAPTURE_OFFCPU_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "capture/busy.bpf.h"
#include "capture/filter.bpf.h"
#include "capture/samples.bpf.h"
#include "capture/stats.bpf.h"
#include "capture/unwind_in_kernel.bpf.h"
#include "capture/offcpu.h"

/* Set by user space before load. */
const volatile __u32 offcpu_event_idx;
const volatile __u64 offcpu_min_block_ns;	/* --min-block: shorter intervals count 0 */
const volatile bool offcpu_runnable = true;	/* preempted time too, as [runnable] */
const volatile bool offcpu_wakers;		/* --wakers: on_sched_waking is attached */

/*
 * Entries live while their thread is off the CPU: deleted when it runs
 * again (as it must, to exit).  One that never wakes is read by user space
 * at the end, with its time so far.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, OFFCPU_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct offcpu_thread);
} offcpu_threads SEC(".maps");

/* Blocked stack + waker -> ns (--wakers), read by user space like kernel_counts. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 65536);
	__type(key, struct offcpu_wake_key);
	__type(value, __u64);
} offcpu_wakes SEC(".maps");

/* task_struct.__state bits (include/linux/sched.h) */
#define OFFCPU_TASK_INTERRUPTIBLE	0x0001
#define OFFCPU_TASK_UNINTERRUPTIBLE	0x0002
#define OFFCPU_TASK_DEAD		0x0080
#define OFFCPU_TASK_NOLOAD		0x0400

static __always_inline __u32 offcpu_tag_of(bool preempt, unsigned int state)
{
	/* Preempted: still TASK_RUNNING, only waiting for a CPU. */
	if (preempt || !(state & 0xff))
		return OFFCPU_TAG_RUNNABLE;
	/* TASK_IDLE (D without load): a kernel thread's idle wait, not I/O. */
	if ((state & OFFCPU_TASK_UNINTERRUPTIBLE) && !(state & OFFCPU_TASK_NOLOAD))
		return OFFCPU_TAG_DISK;
	if (state & (OFFCPU_TASK_INTERRUPTIBLE | OFFCPU_TASK_UNINTERRUPTIBLE))
		return OFFCPU_TAG_SLEEP;
	return OFFCPU_TAG_OTHER;
}

/*
 * A traced thread leaves the CPU in state: is its stack to be taken (the
 * includer's sched_switch program does that, with capture()), and under
 * which tag?  The kernel stack it takes starts in our glue (the program,
 * bpf_trace_run4, __traceiter_sched_switch: how many varies with the kernel
 * and the JIT), left out by name when drawn (resolve.c, tracing_glue).
 */
static __always_inline bool offcpu_leaving(bool preempt, unsigned int state, __u32 *tag)
{
	if (state & OFFCPU_TASK_DEAD)
		return false;	/* its last switch: it never runs again */
	*tag = offcpu_tag_of(preempt, state);
	return *tag != OFFCPU_TAG_RUNNABLE || offcpu_runnable;
}

/* Its stack was taken: counted in the kernel under key, or sent.  run_ns: its CPU time now. */
static __noinline void offcpu_left(__u32 tid, bool counted, bool sent,
				   const struct counted_key *key, __u64 run_ns)
{
	struct offcpu_thread t = {};

	if (!counted && !sent)
		return;
	t.out_ns = bpf_ktime_get_ns();
	t.run_ns = run_ns;
	t.key = *key;
	t.counted = counted;
	t.sent = sent;
	if (bpf_map_update_elem(&offcpu_threads, &tid, &t, BPF_ANY))
		count(STAT_OFFCPU_UNTRACKED);
	else
		count(STAT_OFFCPU_OUT);
}

/* Add ns to (blocked stack, waker) under the current epoch; false if full. */
static __always_inline bool offcpu_wake_add(struct offcpu_thread *t, __u64 ns)
{
	struct offcpu_wake_key k;
	__u64 *cnt;
	long err;

	k.blocked = t->key;
	k.blocked.epoch = counted_epoch;
	k.waker = t->waker;
	cnt = bpf_map_lookup_elem(&offcpu_wakes, &k);
	if (cnt) {
		__sync_fetch_and_add(cnt, ns);
		return true;
	}
	err = bpf_map_update_elem(&offcpu_wakes, &k, &ns, BPF_NOEXIST);
	if (err == -EEXIST) {
		cnt = bpf_map_lookup_elem(&offcpu_wakes, &k);
		if (cnt) {
			__sync_fetch_and_add(cnt, ns);
			return true;
		}
	}
	return !err;
}

/* tid ran again at in_ns: the time since it left goes to the stack it left with. */
static __always_inline void offcpu_end(__u32 tid, struct offcpu_thread *t, __u64 in_ns)
{
	struct offcpu_weight w = { .hdr = { RING_OFFCPU_WEIGHT, sizeof(w) } };
	__u64 ns;

	/* Blocked across the recording's end: counted up to it. */
	if (capture_end_ns && in_ns > capture_end_ns)
		in_ns = capture_end_ns;
	ns = in_ns > t->out_ns ? in_ns - t->out_ns : 0;
	if (ns < offcpu_min_block_ns)
		ns = 0;
	if (t->counted && t->woken) {
		if (ns && !offcpu_wake_add(t, ns))
			count(STAT_OFFCPU_LOST);
	} else if (t->counted) {
		if (ns && !counted_add(&t->key, ns))
			count(STAT_OFFCPU_LOST);
	} else if (t->sent) {
		/* Sent even when 0: user space lets go of the sample it holds. */
		w.tid = tid;
		w.ns = ns;
		if (bpf_ringbuf_output(&samples, &w, sizeof(w), BPF_RB_NO_WAKEUP))
			count(STAT_OFFCPU_LOST);
	}
	bpf_map_delete_elem(&offcpu_threads, &tid);
}

/* next runs again, now. */
static __noinline void offcpu_in(struct task_struct *next)
{
	__u32 tid = next->pid;
	struct offcpu_thread *t;

	t = bpf_map_lookup_elem(&offcpu_threads, &tid);
	if (t)
		offcpu_end(tid, t, bpf_ktime_get_ns());
}

/*
 * prev leaves the CPU while its last interval is still open: it ran again
 * with no sched_switch to show it.  On our test VM (6.18) the switches from
 * some tasks (its pid 1's threads, and once the idle task) reach no program
 * on the tracepoint, ftrace's included: 0-10 of ~400 switch-outs of a
 * latency run had no switch-in before them.
 * It ran since then for the CPU time it gained (se.sum_exec_runtime, brought
 * up to date by the switch, ~us), so it came in that long before now: the
 * interval ends there.  Not counting stolen or interrupt time while it ran
 * (the kernel leaves those out of its CPU time), the end is a little late,
 * never early.  Called before its new stack is taken: the old interval's
 * weight comes first in the ring.
 */
static __noinline void offcpu_unseen_in(struct task_struct *prev)
{
	__u32 tid = prev->pid;
	struct offcpu_thread *t;
	__u64 now, ran, in;

	t = bpf_map_lookup_elem(&offcpu_threads, &tid);
	if (!t)
		return;
	now = bpf_ktime_get_ns();
	ran = prev->se.sum_exec_runtime - t->run_ns;
	in = now > ran ? now - ran : 0;
	count(STAT_OFFCPU_UNSEEN_IN);
	offcpu_end(tid, t, in);
}

/* The waker's key, per CPU: off the BPF stack (see kunwind_calls). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct counted_defer);
} offcpu_waker_keys SEC(".maps");

/*
 * The current thread's stacks as tid's waker, into *w: its kernel stack,
 * and its user stack when it is traced and walkable.  irq: we interrupted
 * one of our own programs (capture_busy): the per-CPU walk state is that
 * program's, and the current thread is not the waker.
 */
static __noinline void offcpu_waker_of(void *ctx, struct offcpu_waker *w, bool irq)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	__u32 ctgid = cur->tgid, zero = 0;
	struct counted_defer *wk = bpf_map_lookup_elem(&offcpu_waker_keys, &zero);
	__u64 stack_top;

	/* Its kernel stack starts in our glue too (see offcpu_out). */
	if (wk && !irq && cur->pid && (!filter_tgids || tgid_traced(ctgid)) &&
	    (stack_top = ku_user_stack_top()) &&
	    /* the waker's native frames only: 0, no interpreter walk */
	    kunwind_count_event(ctx, stack_top, offcpu_event_idx, wk, 0)) {
		w->kstack_id = wk->key.kstack_id;
		w->kgen = wk->key.kgen;
		w->uhash = wk->key.uhash;
	} else {
		w->kstack_id = counted_stackid(ctx, 0, &w->kgen);
	}
	if (!irq) {
		w->pid = ctgid;
		w->tid = cur->pid;
		__builtin_memcpy(w->comm, cur->comm, sizeof(w->comm));
	}
}

/* offcpu_waker_of() on kernels without bpf_loop (capture.bpf.c's legacy workers): no user stack. */
static __noinline void offcpu_waker_of_kernel(void *ctx, struct offcpu_waker *w, bool irq)
{
	struct task_struct *cur = (struct task_struct *)bpf_get_current_task();

	w->kstack_id = counted_stackid(ctx, 0, &w->kgen);
	if (!irq) {
		w->pid = BPF_CORE_READ(cur, tgid);
		w->tid = BPF_CORE_READ(cur, pid);
		BPF_CORE_READ_STR_INTO(&w->comm, cur, comm);
	}
}

/* A sent stack (an interpreter's, or per event): its waker follows it to user space. */
static __noinline void offcpu_send_woken(__u32 tid, const struct offcpu_waker *w)
{
	struct offcpu_woken r = { .hdr = { RING_OFFCPU_WOKEN, sizeof(r) }, .tid = tid,
				  .waker = *w };

	if (bpf_ringbuf_output(&samples, &r, sizeof(r), BPF_RB_NO_WAKEUP))
		count(STAT_OFFCPU_LOST);
}

/*
 * --wakers: p is being woken.  If it is a traced thread whose blocked stack
 * is stored (or was sent: then as an offcpu_woken record), remember who woke it: the current thread (its kernel stack,
 * and its user stack if it is traced too).  In an interrupt that stopped
 * one of our programs (capture_busy), the kernel stack only: the per-CPU
 * walk state is that program's.  Other interrupts look like the thread they
 * stopped; resolve.c cuts a waker's stack at the interrupt's entry frame,
 * so no frame or thread of the interrupted one is shown as the waker.
 */
static __always_inline int offcpu_woken(void *ctx, struct task_struct *p, bool user_stacks)
{
	struct offcpu_waker w = { .kstack_id = -1 };
	__u32 tid = p->pid;
	struct offcpu_thread *t;

	if (filter_tgids && !tgid_traced(p->tgid))
		return 0;
	t = bpf_map_lookup_elem(&offcpu_threads, &tid);
	if (!t || !(t->counted || t->sent) || t->woken)
		return 0;
	if (user_stacks)
		offcpu_waker_of(ctx, &w, *capture_busy_here());
	else
		offcpu_waker_of_kernel(ctx, &w, *capture_busy_here());
	t->woken = 1;
	if (t->counted)
		t->waker = w;
	else
		offcpu_send_woken(tid, &w);
	return 0;
}

SEC("tp_btf/sched_waking")
int BPF_PROG(on_sched_waking, struct task_struct *p)
{
	return offcpu_woken(ctx, p, true);
}

/* The legacy workers' (capture.bpf.c): the waker's kernel stack and thread. */
SEC("tp_btf/sched_waking")
int BPF_PROG(on_sched_waking_legacy, struct task_struct *p)
{
	return offcpu_woken(ctx, p, false);
}

#endif /* STITCH_CAPTURE_OFFCPU_BPF_H */
