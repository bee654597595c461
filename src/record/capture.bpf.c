// SPDX-License-Identifier: GPL-2.0
/*
 * The capture program, the kernel side of every command that records
 * stacks (record, stalls): on every event, the kernel stack and the user
 * registers of the *current* thread, its user stack walked here from CFI
 * tables (unwind_in_kernel.bpf.h) and counted in the kernel, or copied for user space
 * to unwind, and its interpreter frames (capture_walk.bpf.h).  One capture
 * routine serves every event kind; the event's index in the user-space event
 * list arrives as the BPF cookie of the attachment.  Off-CPU time
 * (offcpu.bpf.h) takes its stacks through the same routine at sched_switch.
 *
 * Its parts are headers that each include what they use: counters
 * (stats.bpf.h), the ring (samples.bpf.h), whose events are kept
 * (filter.bpf.h).  Another command hooks in through maps it owns and hands
 * over by fd (targets.bpf.h: the traced processes, and the gate that keeps
 * only some threads' events), never by code here knowing it.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "capture/capture.h"
#include "capture/filter.bpf.h"
#include "capture/samples.bpf.h"
#include "capture/stats.bpf.h"

/* Set by user space before load. */
const volatile bool follow_forks;	/* add children of traced tgids */
const volatile __u32 ustack_limit = STITCH_DEFAULT_USTACK;

/*
 * The event is far too big for the BPF stack: build it here, one slot per
 * CPU (per-CPU maps cap values at 32 KiB).  Sharing a slot is safe: the
 * kernel's bpf_prog_active guard keeps perf_event, tracepoint, kprobe and
 * uprobe programs from nesting on one CPU.  max_entries is set to the number
 * of possible CPUs by user space.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sample_event);
} scratch SEC(".maps");

#include "capture/busy.bpf.h"
#include "interp/capture_walk.bpf.h"
#include "capture/unwind_in_kernel.bpf.h"
#include "capture/uret.bpf.h"
#include "capture/offcpu.bpf.h"

/*
 * The interpreter walkers are half of what the verifier checks: loading
 * on_perf_event took ~34 ms with them, ~18 ms without, most of a short
 * profile's CPU.  So each entry point below only hands its event by tail
 * call to a worker program that captures it: the native worker, loaded with
 * interp_lazy set, whose walker code is unreachable and never verified, or
 * for an interpreter process's event, the walkers' worker: the same object
 * loaded again without interp_lazy, sharing every map, once user space
 * recognizes the first interpreter (record/walkers.c).  Until then, or if
 * it cannot be loaded, such events keep native frames.  When an
 * interpreter is traced from the start, one worker without interp_lazy
 * takes every event.  (The walk cannot tail-call from inside the worker:
 * a program that tail-calls loses its private stacks, and the walk's
 * frames need more than the 512 bytes the verifier then allows.)
 */
const volatile bool interp_lazy;

/* One pair of workers per entry point: a tail call needs the caller's program type and hook. */
#define CAPTURE_WORKERS(name)				\
	struct {					\
		__uint(type, BPF_MAP_TYPE_PROG_ARRAY);	\
		__uint(max_entries, 2);			\
		__type(key, __u32);			\
		__type(value, __u32);			\
	} name SEC(".maps")

CAPTURE_WORKERS(perf_event_workers);
CAPTURE_WORKERS(tracepoint_workers);
CAPTURE_WORKERS(uprobe_workers);
CAPTURE_WORKERS(kprobe_workers);
CAPTURE_WORKERS(sched_switch_workers);

/*
 * Hand the event to its worker.  Not from inside capture(): no counter nor
 * map has changed yet, so a failed tail call (no worker) drops the event
 * as if it had never come.  sched_switch runs at every switch of the
 * machine: only a traced thread's is looked up.
 */
static __always_inline int dispatch(void *ctx, void *workers)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (interp_lazy && interp_any && (!filter_tgids || tgid_traced(tgid)) &&
	    bpf_map_lookup_elem(&interp_procs, &tgid))
		bpf_tail_call(ctx, workers, CAPTURE_WORKER_WALKERS);
	bpf_tail_call(ctx, workers, CAPTURE_WORKER_NATIVE);
	count(STAT_NO_WORKER);
	return 0;
}

/*
 * An offset into e->ustack the verifier can bound: the mask survives the
 * optimizer (barrier_var), and ustack has a page of slack past the mask.
 */
static __always_inline __u32 ustack_off(__u32 base, __u32 off)
{
	barrier_var(off);
	barrier_var(base);
	return (base & STITCH_USTACK_ROOM) + (off & (STITCH_MAX_USTACK - 1));
}

/*
 * Copy the user stack from sp upwards: up to the byte limit, the end of the
 * stack mapping, or, on the main thread, mm->start_stack, above which lie
 * only argv/envp/auxv and never a frame (_start's frame is below it).
 * Reading page-aligned chunks means a read fails exactly at the end of the
 * stack mapping instead of losing a partial chunk.
 */
static __always_inline __u32 copy_user_stack(struct sample_event *e, __u32 base, __u64 sp,
					     __u64 stack_top)
{
	__u32 first = STITCH_PAGE_SIZE - (sp & (STITCH_PAGE_SIZE - 1));
	__u32 limit = ustack_limit, tail;
	__u32 done;
	int i;

	if (limit > STITCH_MAX_USTACK)
		limit = STITCH_MAX_USTACK;
	if (stack_top > sp && stack_top - sp < limit)
		limit = stack_top - sp;
	if (first > limit)
		first = limit;
	if (first == 0 || first > STITCH_PAGE_SIZE)
		return 0;
	if (bpf_probe_read_user(e->ustack + ustack_off(base, 0), first, (void *)sp)) {
		e->flags |= STITCH_SAMPLE_USTACK_FAULT;
		count(STAT_USTACK_FAULT);
		return 0;
	}
	done = first;
	for (i = 0; i < STITCH_MAX_USTACK_PAGES; i++) {
		if (done >= limit || done > STITCH_MAX_USTACK - STITCH_PAGE_SIZE)
			return done;
		if (done + STITCH_PAGE_SIZE > limit)
			break;
		if (bpf_probe_read_user(e->ustack + ustack_off(base, done), STITCH_PAGE_SIZE,
					(void *)(sp + done)))
			return done;	/* end of the stack mapping */
		done += STITCH_PAGE_SIZE;
	}
	/* The last partial page up to the limit. */
	tail = (limit - done) & (STITCH_PAGE_SIZE - 1);
	if (tail && done <= STITCH_MAX_USTACK - STITCH_PAGE_SIZE &&
	    !bpf_probe_read_user(e->ustack + ustack_off(base, done), tail, (void *)(sp + done)))
		done += tail;
	if (done < limit || limit < stack_top - sp)
		e->flags |= STITCH_SAMPLE_USTACK_CAPPED;
	return done;
}

/*
 * After a copy of the current thread's user stack (ustack[ucopy_off,
 * ustack_bytes), from sp up): the return addresses uretprobes hid in the
 * thread's stack (uret.bpf.h), appended 8-aligned (sample_event.uret_off, nuret,
 * uret_tramp).  Global: verified once.
 */
__noinline int uret_capture(struct sample_event *e)
{
	__u64 tramp;
	__u32 off, n;

	if (!e)
		return 0;
	e->nuret = 0;
	off = e->ustack_bytes;
	if (off <= e->ucopy_off || off > STITCH_USTACK_ROOM + STITCH_MAX_USTACK)
		return 0;
	off = (off + 7) & ~7u;
	/* Within ustack's page of slack past the largest copy. */
	if (off > STITCH_USTACK_ROOM + STITCH_MAX_USTACK)
		return 0;
	n = uret_collect(bpf_get_current_task_btf(), (struct stitch_uret *)(e->ustack + off),
			 &tramp);
	if (!n)
		return 0;
	e->uret_tramp = tramp;
	e->uret_off = off;
	e->nuret = n;
	e->ustack_bytes = off + n * sizeof(struct stitch_uret);
	return n;
}

/*
 * Off-CPU switch-out (capture/offcpu.bpf.h): the stack is taken now and
 * weighed when the thread runs again.  Counted in the kernel, its key is
 * kept; else the sample is sent marked STITCH_SAMPLE_WEIGHT_LATER.
 */
struct capture_defer {
	struct counted_key key;
	__u32 tag;		/* enum offcpu_tag */
	__u32 kskip;		/* innermost kernel frames that are ours (the BPF glue) */
	bool counted;		/* key is a stored stack's */
	bool sent;		/* a sample went to user space */
};

/* The record, cut to what it holds, into the ring. */
static __always_inline void send_sample(struct sample_event *e, struct capture_defer *defer)
{
	__u64 size = STITCH_SAMPLE_HDR_BYTES + e->ustack_bytes, wake;

	if (size > sizeof(*e))
		size = sizeof(*e);
	e->hdr.type = RING_SAMPLE;
	e->hdr.size = size;
	/*
	 * Wake the reader only once the ring is a quarter full: a wakeup per
	 * event costs an IPI and may preempt the traced thread; the reader
	 * polls with a timeout anyway.
	 */
	wake = bpf_ringbuf_query(&samples, BPF_RB_AVAIL_DATA) >
	       bpf_ringbuf_query(&samples, BPF_RB_RING_SIZE) / 4 ?
	       BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
	if (bpf_ringbuf_output(&samples, e, size, wake))
		count(STAT_RINGBUF_LOST);
	else if (defer)
		defer->sent = true;
}

/*
 * user_sample: a perf sample that interrupted user code (no kernel stack).
 * defer: NULL, or an off-CPU switch-out (capture_defer).
 */
static __always_inline int capture_event(void *ctx, __u32 event_idx, bool user_sample,
					 struct capture_defer *defer)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id;
	struct task_struct *task;
	struct sample_event *e;
	struct pt_regs *regs;
	__u32 cpu;
	long kbytes;
	__u64 stack_top, now = 0, ikey = INTERP_KEY_NONE;
	int ubase, walked = 0;
	bool user_ok, interp;

	if (tid == 0)		/* the idle task: nothing to attribute */
		return 0;
	if (filter_tgids && !tgid_traced(tgid))
		return 0;
	if (gate_closed(tid, defer != NULL))
		return 0;
	task = bpf_get_current_task_btf();
	stack_top = ku_user_stack_top();
	user_ok = stack_top != 0;
	/* The native worker has no walkers (dispatch()). */
	interp = !interp_lazy && user_ok && interp_any &&
		 bpf_map_lookup_elem(&interp_procs, &tgid);
	count(STAT_EVENTS);
	/*
	 * An interpreter's event: its frames are part of its key, as a hash of
	 * the walk (capture_walk.bpf.h), the walk sent once for user space to name.
	 * Off-CPU switch-outs of interpreter threads are still sent whole.
	 */
	if (interp && kunwind_count_in_kernel && !defer) {
		now = bpf_ktime_get_ns();
		ikey = interp_count_key(tgid, tid, now);
		walked = 1;
	}
	/* kunwind: counted in the kernel, nothing to send. */
	if (kunwind_count_in_kernel && user_ok && (!interp || (walked && ikey != INTERP_KEY_SEND)) &&
	    kunwind_count_event(ctx, task, stack_top, tgid, tid, event_idx, user_sample,
				defer ? defer->tag : 0, defer ? defer->kskip : 0,
				defer ? &defer->key : NULL,
				ikey == INTERP_KEY_NONE ? INTERP_IHASH_NONE :
				ikey == INTERP_KEY_LOST ? INTERP_IHASH_LOST : ikey)) {
		if (defer)
			defer->counted = true;
		count(STAT_COUNTED_IN_KERNEL);
		return 0;
	}

	/* A record to send: built in this CPU's slot. */
	cpu = bpf_get_smp_processor_id();
	e = bpf_map_lookup_elem(&scratch, &cpu);
	if (!e)
		return 0;
	/* A walk sent as a definition already carries this time: its sample must match. */
	e->time_ns = walked ? now : bpf_ktime_get_ns();
	e->pid = tgid;
	e->tid = tid;
	e->event_idx = event_idx;
	e->flags = 0;
	e->ustack_bytes = 0;
	e->nuframes = 0;
	e->ustop = 0;
	e->ucopy_off = 0;
	e->nuret = 0;
	e->tag = defer ? defer->tag : 0;
	if (defer)
		e->flags |= STITCH_SAMPLE_WEIGHT_LATER;
	e->ip = e->sp = e->bp = 0;
	bpf_get_current_comm(e->comm, sizeof(e->comm));

	kbytes = bpf_get_stack(ctx, e->kstack, sizeof(e->kstack), defer ? defer->kskip : 0);
	if (kbytes < 0) {
		e->flags |= STITCH_SAMPLE_KSTACK_FAULT;
		count(STAT_KSTACK_FAULT);
		kbytes = 0;
	}
	e->kstack_bytes = kbytes;

	/*
	 * The user registers saved at kernel entry of the current thread:
	 * valid whatever context the event fired in, and always the thread
	 * that triggered it.
	 */
	if (user_ok) {
		regs = (struct pt_regs *)bpf_task_pt_regs(task);
		if (regs) {
			/* trusted BTF pointers: plain loads, not probe-read calls */
			e->ip = regs->ip;
			e->sp = regs->sp;
			e->bp = regs->bp;
			e->flags |= STITCH_SAMPLE_USER_REGS;
			/* kunwind: unwind here; copy only if asked to or if we cannot */
			ubase = kunwind_capture(e, tgid, stack_top);
			if (ubase >= 0) {
				e->ucopy_off = ubase;
				e->ustack_bytes = ubase + copy_user_stack(e, ubase, e->sp, stack_top);
				/* Return addresses uretprobes hid in the copy (uret.bpf.h). */
				uret_capture(e);
			}
		}
	}

	/* Interpreter frames go first: user space pairs them with this sample. */
	if (interp && interp_capture(tgid, tid, e->time_ns, walked))
		e->flags |= STITCH_SAMPLE_INTERP_LOST;

	send_sample(e, defer);
	return 0;
}

/* capture_event, with this CPU marked busy (busy.bpf.h) while it runs. */
static __always_inline int capture(void *ctx, __u32 event_idx, bool user_sample,
				   struct capture_defer *defer)
{
	__u8 *busy = capture_busy_here();
	int rc;

	*busy = 1;
	rc = capture_event(ctx, event_idx, user_sample, defer);
	*busy = 0;
	return rc;
}

/* The entry points, attached: each hands its event to a worker (dispatch()). */

SEC("tp_btf/sched_switch")
int BPF_PROG(on_sched_switch)
{
	return dispatch(ctx, &sched_switch_workers);
}

SEC("perf_event")
int on_perf_event(struct bpf_perf_event_data *ctx)
{
	return dispatch(ctx, &perf_event_workers);
}

SEC("tracepoint")
int on_tracepoint(void *ctx)
{
	return dispatch(ctx, &tracepoint_workers);
}

SEC("uprobe")
int on_uprobe(struct pt_regs *ctx)
{
	return dispatch(ctx, &uprobe_workers);
}

SEC("kprobe")
int on_kprobe(struct pt_regs *ctx)
{
	return dispatch(ctx, &kprobe_workers);
}

/*
 * The workers.  Off-CPU time (capture/offcpu.bpf.h): the thread leaving the
 * CPU is still current here, so capture() takes its stack as for any event;
 * its weight comes when it runs again.
 */
SEC("tp_btf/sched_switch")
int BPF_PROG(capture_sched_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	struct capture_defer d = {};

	/* Filter first: the traced threads' switches are the only ones that cost. */
	if (prev->pid && (!filter_tgids || tgid_traced(prev->tgid))) {
		offcpu_unseen_in(prev);
		if (offcpu_leaving(preempt, prev_state, &d.tag)) {
			capture(ctx, offcpu_event_idx, false, &d);
			offcpu_left(prev->pid, d.counted, d.sent, &d.key,
				    prev->se.sum_exec_runtime);
		}
	}
	if (next->pid && (!filter_tgids || tgid_traced(next->tgid)))
		offcpu_in(next);
	return 0;
}

SEC("perf_event")
int capture_perf_event(struct bpf_perf_event_data *ctx)
{
	/* Whole-word read: the verifier refuses narrower loads of the regs. */
	__u64 cs = *(volatile __u64 *)&ctx->regs.cs;

	/* x86: CPL 3 in the interrupted cs is user mode */
	return capture(ctx, bpf_get_attach_cookie(ctx), (cs & 3) == 3, NULL);
}

SEC("tracepoint")
int capture_tracepoint(void *ctx)
{
	return capture(ctx, bpf_get_attach_cookie(ctx), false, NULL);
}

SEC("uprobe")
int capture_uprobe(struct pt_regs *ctx)
{
	return capture(ctx, bpf_get_attach_cookie(ctx), false, NULL);
}

SEC("kprobe")
int capture_kprobe(struct pt_regs *ctx)
{
	return capture(ctx, bpf_get_attach_cookie(ctx), false, NULL);
}

/*
 * Follow processes created by traced ones (-- COMMAND, -p).  This and the
 * other process events are raw tracepoints, not tp_btf: those need libbpf
 * to read the kernel's whole BTF for their attach points (~9 ms a run, see
 * util/core_btf.h), and these few probe reads per fork or exit cost nothing.
 */
SEC("raw_tp/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid), ctgid = BPF_CORE_READ(child, tgid);
	__u8 one = 1;

	if (!filter_tgids || !follow_forks || ptgid == ctgid)
		return 0;
	if (bpf_map_lookup_elem(&traced_tgids, &ptgid))
		bpf_map_update_elem(&traced_tgids, &ctgid, &one, BPF_ANY);
	return 0;
}

/* Forget a process when its last thread is gone, so a reused pid is not traced. */
SEC("raw_tp/sched_process_exit")
int BPF_PROG(on_exit, struct task_struct *task)
{
	__u32 tgid = BPF_CORE_READ(task, tgid);

	if (!filter_tgids || !follow_forks || BPF_CORE_READ(task, pid) != tgid)
		return 0;
	if (BPF_CORE_READ(task, signal, live.counter) == 0)
		bpf_map_delete_elem(&traced_tgids, &tgid);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
