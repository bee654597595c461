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

#include "capture/user_regs.bpf.h"

#include "capture/capture.h"
#include "capture/filter.bpf.h"
#include "capture/samples.bpf.h"
#include "capture/stats.bpf.h"

/* Set by user space before load. */
const volatile bool follow_forks;	/* add children of traced tgids */
const volatile __u32 ustack_limit = STITCH_DEFAULT_USTACK;

#include "capture/busy.bpf.h"
#include "interp/capture_walk.bpf.h"
#include "capture/unwind_in_kernel.bpf.h"
#include "capture/uret.bpf.h"
#include "capture/offcpu.bpf.h"
#include "capture/alloc.bpf.h"
#include "capture/alloc_inuse.bpf.h"
#include "probe/fetch.bpf.h"

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
CAPTURE_WORKERS(raw_sys_enter_workers);
CAPTURE_WORKERS(alloc_workers);

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
static __noinline __u32 copy_user_stack(struct sample_event *e, __u32 base, __u64 sp,
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
 * After a copy of thread t's user stack (ustack[ucopy_off, ustack_bytes),
 * from sp up): the return addresses uretprobes hid in the thread's stack
 * (uret.bpf.h), appended 8-aligned (sample_event.uret_off, nuret,
 * uret_tramp).
 */
static __always_inline int uret_append(struct sample_event *e, struct task_struct *t)
{
	__u64 tramp;
	__u32 off, n;

	e->nuret = 0;
	off = e->ustack_bytes;
	if (off <= e->ucopy_off || off > STITCH_USTACK_ROOM + STITCH_MAX_USTACK)
		return 0;
	off = (off + 7) & ~7u;
	/* Within ustack's page of slack past the largest copy (5.10's verifier: in this register). */
	if (off > STITCH_USTACK_ROOM + STITCH_MAX_USTACK)
		return 0;
	off = verifier_at_most(off, STITCH_USTACK_ROOM + STITCH_MAX_USTACK);
	n = uret_collect(t, (struct stitch_uret *)(e->ustack + off), &tramp);
	if (!n)
		return 0;
	e->uret_tramp = tramp;
	e->uret_off = off;
	e->nuret = n;
	e->ustack_bytes = off + n * sizeof(struct stitch_uret);
	return n;
}

/* uret_append() of the current thread.  Global: verified once. */
__noinline int uret_capture(struct sample_event *e)
{
	if (!e)
		return 0;
	return uret_append(e, bpf_get_current_task_btf());
}

/*
 * Off-CPU switch-out (capture/offcpu.bpf.h): the stack is taken now and
 * weighed when the thread runs again.  Counted in the kernel, its key is
 * kept; else the sample is sent marked STITCH_SAMPLE_WEIGHT_LATER.
 */
struct capture_defer {
	struct counted_defer c;	/* its tag, and its key once counted */
	bool counted;		/* c.key is a stored stack's */
	bool sent;		/* a sample went to user space */
};

/* A switch-out's, per CPU: off the BPF stack (see kunwind_calls). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct capture_defer);
} capture_defers SEC(".maps");

/* The record into the ring (samples.bpf.h), counted lost if full. */
static __always_inline void send_sample(struct sample_event *e, struct capture_defer *defer)
{
	if (sample_send(e))
		count(STAT_RINGBUF_LOST);
	else if (defer)
		defer->sent = true;
}

/*
 * A record of the current thread's event, built in this CPU's slot: its
 * header, comm and kernel stack.  glue: the kernel frames start in ours
 * (STACK_TAG_GLUE).  defer: NULL, or an off-CPU switch-out.
 */
static __always_inline struct sample_event *sample_begin(void *ctx, __u32 event_idx, bool glue,
							 struct capture_defer *defer,
							 __u64 time_ns)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 cpu = bpf_get_smp_processor_id();
	struct sample_event *e = bpf_map_lookup_elem(&scratch, &cpu);
	long kbytes;

	if (!e)
		return NULL;
	e->time_ns = time_ns;
	e->pid = id >> 32;
	e->tid = (__u32)id;
	e->event_idx = event_idx;
	e->flags = 0;
	e->ustack_bytes = 0;
	e->nuframes = 0;
	e->ustop = 0;
	e->ucopy_off = 0;
	e->nuret = 0;
	e->tag = defer ? defer->c.tag : glue ? STACK_TAG_GLUE : 0;
	if (defer)
		e->flags |= STITCH_SAMPLE_WEIGHT_LATER;
	e->ip = e->sp = e->bp = e->lr = 0;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	kbytes = bpf_get_stack(ctx, e->kstack, sizeof(e->kstack), defer ? defer->c.kskip : 0);
	if (kbytes < 0) {
		e->flags |= STITCH_SAMPLE_KSTACK_FAULT;
		count(STAT_KSTACK_FAULT);
		kbytes = 0;
	}
	e->kstack_bytes = kbytes;
	return e;
}

/* capture_event's flags, beside the event's index (as COUNTED_USER_SAMPLE). */
#define CAPTURE_INTERP	(1u << 30)	/* the thread's walk is in the interpreter scratch */

/*
 * The event of the current thread, whose interpreter frames, if any, were
 * walked already (capture()): counted in the kernel, or sent as a record.
 * idx: the event's index, with COUNTED_USER_SAMPLE for a perf sample that
 * interrupted user code (no kernel stack), CAPTURE_INTERP for an
 * interpreter's thread, whose walk was stamped now.  ikey: interp_walk_event's
 * answer.  defer: NULL, or an off-CPU switch-out (capture_defer).
 *
 * Out of line: its frame and the walk's are side by side under capture(),
 * not one on top of the other (see kunwind_calls).
 */
static __noinline int capture_event(void *ctx, __u32 idx, __u64 stack_top, __u64 ikey,
				    struct capture_defer *defer)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	__u32 event_idx = idx & ~(COUNTED_FLAGS | CAPTURE_INTERP);
	bool interp = idx & CAPTURE_INTERP, user_ok = stack_top != 0;
	struct fetch_steps *fetch = fetch_prog_now();
	struct pt_regs *regs = NULL;
	struct task_struct *task;
	struct sample_event *e;
	__u64 now = 0;
	int ubase;

	count(STAT_EVENTS);
	/* kunwind: counted in the kernel, nothing to send (but values to fetch). */
	if (kunwind_count_in_kernel && user_ok && !fetch && (!interp || ikey != INTERP_KEY_SEND) &&
	    kunwind_count_event(ctx, stack_top, idx & ~CAPTURE_INTERP,
				defer ? &defer->c : NULL,
				ikey == INTERP_KEY_NONE ? INTERP_IHASH_NONE :
				ikey == INTERP_KEY_LOST ? INTERP_IHASH_LOST : ikey)) {
		if (defer)
			defer->counted = true;
		count(STAT_COUNTED_IN_KERNEL);
		return 0;
	}
	if (interp)
		now = interp_walk_time();
	task = bpf_get_current_task_btf();

	/* A walk carries this time: its sample must match. */
	e = sample_begin(ctx, event_idx, idx & COUNTED_GLUE, defer, interp ? now : bpf_ktime_get_ns());
	if (!e)
		return 0;

	/*
	 * The user registers saved at kernel entry of the current thread:
	 * valid whatever context the event fired in, and always the thread
	 * that triggered it.
	 */
	if (user_ok) {
		regs = (struct pt_regs *)bpf_task_pt_regs(task);
		if (regs) {
			/* trusted BTF pointers: plain loads, not probe-read calls */
			e->ip = UREG_IP(regs);
			e->sp = UREG_SP(regs);
			e->bp = UREG_FP(regs);
			e->lr = UREG_LR(regs);
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

	/* Fetched values and interpreter frames go first: user space pairs them with this sample. */
	if (fetch) {
		/* A tracepoint's fields need no user stack (an exec's has none yet). */
		if (!regs)
			regs = (struct pt_regs *)bpf_task_pt_regs(task);
		if (regs)
			fetch_send(ctx, regs, fetch, e->tid, e->time_ns);
	}
	if (interp && interp_capture())
		e->flags |= STITCH_SAMPLE_INTERP_LOST;

	send_sample(e, defer);
	return 0;
}

/*
 * An event of the current thread: filtered, then its interpreter frames
 * walked (an interpreter's thread), then the rest of it (capture_event),
 * with this CPU marked busy (busy.bpf.h) meanwhile.  An event that finds the
 * CPU busy is one of ours interrupted by another (a perf sample's NMI
 * during -e wall's sched_switch): the per-CPU slots are the first one's, so
 * it is counted lost, not taken.
 */
static __always_inline int capture(void *ctx, __u32 event_idx, bool user_sample,
				   struct capture_defer *defer)
{
	__u64 id = bpf_get_current_pid_tgid(), stack_top, ikey = INTERP_KEY_NONE;
	/* event_idx may carry COUNTED_GLUE */
	__u32 tgid = id >> 32, tid = (__u32)id, idx = event_idx;
	__u8 *busy;

	if (tid == 0)		/* the idle task: nothing to attribute */
		return 0;
	if (filter_tgids && !tgid_traced(tgid))
		return 0;
	if (gate_closed(tid, defer != NULL) || capture_ended())
		return 0;
	busy = capture_busy_here();
	if (*busy) {
		count(STAT_NESTED);
		return 0;
	}
	*busy = 1;
	stack_top = ku_user_stack_top();
	if (user_sample)
		idx |= COUNTED_USER_SAMPLE;
	/*
	 * An interpreter's event: its frames are walked first, and part of its
	 * key when it is counted (a hash of the walk, capture_walk.bpf.h, the
	 * walk sent once for user space to name).  Off-CPU switch-outs of
	 * interpreter threads are sent whole.  The native worker has no
	 * walkers (dispatch()).
	 */
	if (!interp_lazy && stack_top && interp_any && bpf_map_lookup_elem(&interp_procs, &tgid)) {
		ikey = interp_walk_event(tgid, tid, kunwind_count_in_kernel && !defer);
		idx |= CAPTURE_INTERP;
	}
	capture_event(ctx, idx, stack_top, ikey, defer);
	*busy = 0;
	return 0;
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
 * Syscall events where the kernel's syscall tracepoints give BPF the user's
 * registers, and so a kernel stack with no frame (6.1's; 6.12's give the
 * tracepoint's caller): the raw tracepoint sys_enter, at the same point of
 * the syscall's entry, for the syscalls user space put here: number ->
 * event index.  Its kernel stacks start in our glue (STACK_TAG_GLUE).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u32);
} raw_syscall_events SEC(".maps");

/* And their --fetch (probe/fetch.bpf.h): number -> its site + 1. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u32);
} raw_syscall_sites SEC(".maps");

SEC("raw_tp/sys_enter")
int on_raw_sys_enter(struct bpf_raw_tracepoint_args *ctx)
{
	__u32 nr = ctx->args[1];

	if (!bpf_map_lookup_elem(&raw_syscall_events, &nr))
		return 0;
	return dispatch(ctx, &raw_sys_enter_workers);
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
	struct capture_defer *d;
	__u32 zero = 0;

	/* Filter first: the traced threads' switches are the only ones that cost. */
	if (prev->pid && (!filter_tgids || tgid_traced(prev->tgid))) {
		offcpu_unseen_in(prev);
		d = bpf_map_lookup_elem(&capture_defers, &zero);
		if (d && offcpu_leaving(preempt, prev_state, &d->c.tag)) {
			d->c.kskip = 0;
			d->counted = false;
			d->sent = false;
			capture(ctx, offcpu_event_idx, false, d);
			offcpu_left(prev->pid, d->counted, d->sent, &d->c.key,
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
	/*
	 * Interrupted in user mode: its pc is a user address (the kernel's lie
	 * in the upper half).  Not cs's privilege bits: cs is a u16 in 6.1's
	 * pt_regs and a union in 6.18's, and the context allows only whole-word
	 * loads of the registers.
	 */
	__s64 ip = UREG_IP(&ctx->regs);

	return capture(ctx, bpf_get_attach_cookie(ctx), ip >= 0, NULL);
}

/*
 * An event whose cookie carries, above its index, its address's fetches + 1
 * (probe/fetch.bpf.h; 0: none): they are this CPU's while it is captured.
 */
static __always_inline int capture_site(void *ctx, __u64 cookie)
{
	__u32 *site = fetch_site_here();

	*site = cookie >> 32;
	capture(ctx, (__u32)cookie, false, NULL);
	*site = 0;
	return 0;
}

SEC("tracepoint")
int capture_tracepoint(void *ctx)
{
	return capture_site(ctx, bpf_get_attach_cookie(ctx));
}

SEC("uprobe")
int capture_uprobe(struct pt_regs *ctx)
{
	return capture_site(ctx, bpf_get_attach_cookie(ctx));
}

SEC("kprobe")
int capture_kprobe(struct pt_regs *ctx)
{
	return capture_site(ctx, bpf_get_attach_cookie(ctx));
}

SEC("raw_tp/sys_enter")
int capture_raw_sys_enter(struct bpf_raw_tracepoint_args *ctx)
{
	__u32 nr = ctx->args[1], *idx = bpf_map_lookup_elem(&raw_syscall_events, &nr);
	__u32 *site1 = bpf_map_lookup_elem(&raw_syscall_sites, &nr);

	if (!idx)
		return 0;
	return capture_site(ctx, (__u64)(site1 ? *site1 : 0) << 32 | (*idx | COUNTED_GLUE));
}

/* This CPU's defer, ready for an allocation's stack: no tag, nothing taken yet. */
static __always_inline struct capture_defer *alloc_defer(void)
{
	__u32 zero = 0;
	struct capture_defer *d = bpf_map_lookup_elem(&capture_defers, &zero);

	if (d) {
		d->c.tag = 0;
		d->c.kskip = 0;
		d->counted = false;
		d->sent = false;
	}
	return d;
}

/*
 * -e alloc (capture/alloc.bpf.h): an allocation its entry point sampled.
 * Its stack is taken as any event's, stored as an off-CPU switch-out's
 * is (a defer), and weighed at once with the bytes the entry point left.
 */
SEC("uprobe")
int capture_alloc(struct pt_regs *ctx)
{
	struct alloc_pended a;
	struct capture_defer *d;

	if (!alloc_take(&a))
		return 0;
	d = alloc_defer();
	if (!d)
		return 0;
	capture(ctx, alloc_event_idx, false, d);
	alloc_weigh((__u32)bpf_get_current_pid_tgid(), d->counted ? &d->c.key : NULL, d->sent, &a);
	return 0;
}

/* ---- kernels before 5.17 ---------------------------------------------- */

/*
 * Kernels without bpf_loop, typed task pointers, bpf_task_pt_regs or BPF
 * cookies (Debian 11's 5.10): user space loads these workers instead of the
 * ones above, attached directly (record/setup.c).  They call none of what
 * those kernels lack, nor anything that does (a global function is verified
 * whether it is called or not): each event's user stack is copied for user
 * space to unwind (--unwind=copy), without interpreter frames (their
 * walkers need bpf_loop) nor the return addresses uretprobes hid.
 *
 * Which event it is, without cookies: by kind (legacy_idx, one event of a
 * kind per run: a tracepoint's record starts with no field of its own for
 * BPF, the kernel puts a pointer there), a syscall's by its number
 * (raw_syscall_events).
 */
const volatile __u32 legacy_idx[LEGACY_KINDS];
/*
 * x86-64's kernel stacks (THREAD_SIZE, 4 pages without KASAN): a thread's
 * user registers are saved at the top of its own (task_pt_regs()).
 */
const volatile __u32 legacy_thread_size = 4 * 4096;
/*
 * Where the kernel says (bpf_task_pt_regs), when it can: the legacy
 * workers also run on new kernels told to (STITCH_KFEAT_OFF), whose stack
 * tops may be padded (FRED); user stacks read at 4 pages were all
 * unreadable on sid's 7.2.
 */
const volatile bool legacy_have_task_pt_regs;

/* -e alloc on these kernels: its entry points call capture_legacy (see alloc_entry). */
const volatile bool alloc_legacy;

/* task->__state was task->state, a long, before 5.14. */
struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

static __always_inline unsigned int legacy_task_state(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	return BPF_CORE_READ((struct task_struct___pre514 *)t, state);
}

/* Where the current thread's user registers are: saved on its kernel stack, or the event's own. */
enum legacy_regs { LEGACY_REGS_TASK, LEGACY_REGS_KPROBE_CTX, LEGACY_REGS_PERF_CTX };

/*
 * An interpreter thread's event: its walk is the legacy walkers' program
 * (record/legacy_walk.bpf.c, loaded once an interpreter is seen), tail
 * called with the sample built in this CPU's slot; it sends the walk, then
 * the sample.  One program array per program type: a tail call keeps it.
 */
CAPTURE_WORKERS(legacy_walk_perf_event);
CAPTURE_WORKERS(legacy_walk_tracepoint);
CAPTURE_WORKERS(legacy_walk_kprobe);
CAPTURE_WORKERS(legacy_walk_raw_tp);

/* capture_legacy()'s answers. */
#define LEGACY_DONE	0	/* taken and sent, or not taken */
#define LEGACY_WALK	1	/* an interpreter's: built in the slot, to walk and send */

/*
 * The current thread's event as a record with its user stack copied:
 * capture() and capture_event() without what these kernels lack.  regs:
 * where its user registers are (a constant at each call).
 */
static __noinline int capture_legacy(void *ctx, __u32 event_idx, int regs,
				     struct capture_defer *defer)
{
	__u64 id = bpf_get_current_pid_tgid(), stack_top = 0;
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u32 tgid = id >> 32, tid = (__u32)id;
	struct pt_regs *uregs;
	struct sample_event *e;
	struct mm_struct *mm;
	__u8 *busy;

	if (tid == 0 || (filter_tgids && !tgid_traced(tgid)) || gate_closed(tid, defer != NULL) ||
	    capture_ended())
		return 0;
	busy = capture_busy_here();
	if (*busy) {
		count(STAT_NESTED);
		return 0;
	}
	*busy = 1;
	count(STAT_EVENTS);
	e = sample_begin(ctx, event_idx & ~COUNTED_FLAGS, event_idx & COUNTED_GLUE, defer,
			 bpf_ktime_get_ns());
	if (!e)
		goto out;
	/* As ku_user_stack_top(): none in a kernel thread, nor inside execve. */
	mm = BPF_CORE_READ(task, mm);
	if (!(BPF_CORE_READ(task, flags) & PF_KTHREAD) && mm &&
	    !(bpf_core_field_exists(task->in_execve) && BPF_CORE_READ_BITFIELD_PROBED(task, in_execve)))
		stack_top = BPF_CORE_READ(mm, start_stack) + 8;
	if (stack_top) {
		/* The contexts by plain loads: the verifier rewrites a perf event's. */
		if (regs == LEGACY_REGS_KPROBE_CTX) {
			e->ip = UREG_IP((struct pt_regs *)ctx);
			e->sp = UREG_SP((struct pt_regs *)ctx);
			e->bp = UREG_FP((struct pt_regs *)ctx);
			e->lr = UREG_LR((struct pt_regs *)ctx);
		} else if (regs == LEGACY_REGS_PERF_CTX) {
			e->ip = UREG_IP(&((struct bpf_perf_event_data *)ctx)->regs);
			e->sp = UREG_SP(&((struct bpf_perf_event_data *)ctx)->regs);
			e->bp = UREG_FP(&((struct bpf_perf_event_data *)ctx)->regs);
			e->lr = UREG_LR(&((struct bpf_perf_event_data *)ctx)->regs);
		} else {
			if (legacy_have_task_pt_regs)
				uregs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
			else
				uregs = (struct pt_regs *)((__u8 *)BPF_CORE_READ(task, stack) +
							   legacy_thread_size) - 1;
			e->ip = UREG_IP_CORE(uregs);
			e->sp = UREG_SP_CORE(uregs);
			e->bp = UREG_FP_CORE(uregs);
			e->lr = UREG_LR_CORE(uregs);
		}
		e->flags |= STITCH_SAMPLE_USER_REGS;
		e->ustack_bytes = copy_user_stack(e, 0, e->sp, stack_top);
		/* A latency root's uretprobe hides its caller: put back in user space. */
		uret_append(e, task);
		/*
		 * An interpreter's (not an off-CPU switch-out's: its
		 * sched_switch program type has no walker; an allocation's, whose
		 * walker sends its weight): the walk comes first, in the program
		 * the caller tail-calls.  The slot stays this event's: nothing that
		 * could nest here (a perf NMI, a tracepoint) runs while a
		 * program of these types runs on this CPU (bpf_prog_active).
		 */
		if ((!defer || alloc_legacy) && interp_any &&
		    bpf_map_lookup_elem(&interp_procs, &tgid)) {
			*busy = 0;
			return LEGACY_WALK;
		}
	}
	send_sample(e, defer);
out:
	*busy = 0;
	return LEGACY_DONE;
}

/* After capture_legacy(): an interpreter's walk, then its sample; the sample alone without walkers. */
static __always_inline int legacy_walk(void *ctx, int rc, void *walkers)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct sample_event *e;

	if (rc != LEGACY_WALK)
		return 0;
	bpf_tail_call(ctx, walkers, 0);
	e = bpf_map_lookup_elem(&scratch, &cpu);
	if (e)
		send_sample(e, NULL);
	return 0;
}

SEC("perf_event")
int capture_legacy_perf_event(struct bpf_perf_event_data *ctx)
{
	/* In user mode the event's registers are the user's (see capture_perf_event). */
	__s64 ip = UREG_IP(&ctx->regs);

	return legacy_walk(ctx, capture_legacy(ctx, legacy_idx[LEGACY_CPU],
					       ip >= 0 ? LEGACY_REGS_PERF_CTX : LEGACY_REGS_TASK,
					       NULL), &legacy_walk_perf_event);
}

SEC("tracepoint")
int capture_legacy_tracepoint(void *ctx)
{
	return legacy_walk(ctx, capture_legacy(ctx, legacy_idx[LEGACY_TRACEPOINT], LEGACY_REGS_TASK,
					       NULL), &legacy_walk_tracepoint);
}

SEC("uprobe")
int capture_legacy_uprobe(struct pt_regs *ctx)
{
	return legacy_walk(ctx, capture_legacy(ctx, legacy_idx[LEGACY_UPROBE],
					       LEGACY_REGS_KPROBE_CTX, NULL), &legacy_walk_kprobe);
}

SEC("kprobe")
int capture_legacy_kprobe(struct pt_regs *ctx)
{
	return legacy_walk(ctx, capture_legacy(ctx, legacy_idx[LEGACY_KPROBE], LEGACY_REGS_TASK,
					       NULL), &legacy_walk_kprobe);
}

SEC("raw_tp/sys_enter")
int capture_legacy_raw_sys_enter(struct bpf_raw_tracepoint_args *ctx)
{
	__u32 nr = ctx->args[1], *idx = bpf_map_lookup_elem(&raw_syscall_events, &nr);

	if (!idx)
		return 0;
	return legacy_walk(ctx, capture_legacy(ctx, *idx | COUNTED_GLUE, LEGACY_REGS_TASK, NULL),
			   &legacy_walk_raw_tp);
}

/* As capture_sched_switch, the thread's state read from it: no prev_state before 5.18. */
SEC("tp_btf/sched_switch")
int BPF_PROG(capture_legacy_sched_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	struct capture_defer *d;
	__u32 zero = 0;

	if (prev->pid && (!filter_tgids || tgid_traced(prev->tgid))) {
		offcpu_unseen_in(prev);
		d = bpf_map_lookup_elem(&capture_defers, &zero);
		if (d && offcpu_leaving(preempt, legacy_task_state(prev), &d->c.tag)) {
			d->c.kskip = 0;
			d->counted = false;
			d->sent = false;
			capture_legacy(ctx, offcpu_event_idx, LEGACY_REGS_TASK, d);
			offcpu_left(prev->pid, d->counted, d->sent, &d->c.key,
				    prev->se.sum_exec_runtime);
		}
	}
	if (next->pid && (!filter_tgids || tgid_traced(next->tgid)))
		offcpu_in(next);
	return 0;
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

/* ---- allocations -------------------------------------------------------- */

/*
 * -e alloc's entry points, a uprobe on each allocator function, by where
 * the function takes its size.  A sampled call goes to capture_alloc, or
 * on kernels before 5.17 to capture_legacy, its stack copied (and an
 * interpreter's walk tail-called: the walker sends the sample's weight).
 * alloc_legacy is known at load: the verifier drops the other path.
 */
static __always_inline int alloc_entry_of(struct pt_regs *ctx, __u64 size, __u64 memptr,
					  bool mapped)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 cpu = bpf_get_smp_processor_id();
	struct capture_defer *d;
	struct sample_event *e;
	struct alloc_pended a;

	if (filter_tgids && !tgid_traced(id >> 32))
		return 0;
	a.bytes = alloc_sample((__u32)id, size);
	if (!a.bytes)
		return 0;
	a.objects = alloc_objects_of(a.bytes, size);
	a.block = alloc_block_begin(ctx, a.bytes, size, memptr, mapped);
	if (!alloc_legacy) {
		alloc_pend(&a);
		return dispatch(ctx, &alloc_workers);
	}
	d = alloc_defer();
	if (!d)
		return 0;
	alloc_pend(&a);
	if (capture_legacy(ctx, alloc_event_idx, LEGACY_REGS_KPROBE_CTX, d) == LEGACY_WALK) {
		/* The walker sends the walk, the sample and its weight; without one, the sample. */
		bpf_tail_call(ctx, &legacy_walk_kprobe, 0);
		e = bpf_map_lookup_elem(&scratch, &cpu);
		if (e)
			send_sample(e, d);
	}
	if (alloc_take(&a))
		alloc_weigh((__u32)id, NULL, d->sent, &a);
	return 0;
}

static __always_inline int alloc_entry(struct pt_regs *ctx, __u64 size, __u64 memptr)
{
	return alloc_entry_of(ctx, size, memptr, false);
}

/* malloc(size), valloc(size), pvalloc(size) */
SEC("uprobe")
int on_alloc_size1(struct pt_regs *ctx)
{
	return alloc_entry(ctx, PT_REGS_PARM1(ctx), 0);
}

/*
 * realloc(ptr, size).  glibc's realloc(NULL, size) is its malloc, called
 * by address: counted there, not twice.
 */
SEC("uprobe")
int on_alloc_realloc(struct pt_regs *ctx)
{
	if (!PT_REGS_PARM1(ctx))
		return 0;
	/* --inuse: the old block waits for the call's return (on_alloc_realloc_return). */
	if (alloc_inuse)
		alloc_realloc_begin(ctx, PT_REGS_PARM1(ctx), PT_REGS_PARM2(ctx));
	return alloc_entry(ctx, PT_REGS_PARM2(ctx), 0);
}

/* calloc(n, size): a product past ALLOC_MAX_SIZE fails, and weighs nothing. */
SEC("uprobe")
int on_alloc_calloc(struct pt_regs *ctx)
{
	__u64 n = PT_REGS_PARM1(ctx), size = PT_REGS_PARM2(ctx);

	if (n && size > ALLOC_MAX_SIZE / n)
		return 0;
	return alloc_entry(ctx, n * size, 0);
}

/*
 * memalign(align, size), aligned_alloc(align, size), and through alloc_aligned,
 * posix_memalign(&ptr, align, size).  glibc serves an alignment it gives
 * anyway (16: MALLOC_ALIGNMENT, x86-64's and arm64's) with its malloc,
 * called by address: counted there (small_is_malloc).  jemalloc and
 * tcmalloc serve every alignment themselves: their _all entry points.
 */
#define ALLOC_MALLOC_ALIGNMENT 16

static __always_inline int alloc_aligned(struct pt_regs *ctx, __u64 align, __u64 size,
					 __u64 memptr, bool small_is_malloc)
{
	if (small_is_malloc && align <= ALLOC_MALLOC_ALIGNMENT)
		return 0;
	return alloc_entry(ctx, size, memptr);
}

SEC("uprobe")
int on_alloc_memalign(struct pt_regs *ctx)
{
	return alloc_aligned(ctx, PT_REGS_PARM1(ctx), PT_REGS_PARM2(ctx), 0, true);
}

SEC("uprobe")
int on_alloc_posix_memalign(struct pt_regs *ctx)
{
	return alloc_aligned(ctx, PT_REGS_PARM2(ctx), PT_REGS_PARM3(ctx),
			     PT_REGS_PARM1(ctx), true);
}

SEC("uprobe")
int on_alloc_memalign_all(struct pt_regs *ctx)
{
	return alloc_aligned(ctx, PT_REGS_PARM1(ctx), PT_REGS_PARM2(ctx), 0, false);
}

SEC("uprobe")
int on_alloc_posix_memalign_all(struct pt_regs *ctx)
{
	return alloc_aligned(ctx, PT_REGS_PARM2(ctx), PT_REGS_PARM3(ctx),
			     PT_REGS_PARM1(ctx), false);
}

/*
 * Memory asked of the kernel as leaves of their own: mmap(addr, len,
 * prot, flags, fd, off) of anonymous memory (sbrk(increment) is
 * on_alloc_size1's: a negative one is past ALLOC_MAX_SIZE).  glibc's
 * malloc and the other allocators call both themselves: user space drops
 * the stacks whose caller is an allocator's file (capture/alloc_leaves.h).
 */
#define ALLOC_MAP_ANONYMOUS 0x20	/* x86-64's and arm64's (asm-generic) */

SEC("uprobe")
int on_alloc_mmap(struct pt_regs *ctx)
{
	if (!(PT_REGS_PARM4(ctx) & ALLOC_MAP_ANONYMOUS))
		return 0;
	return alloc_entry_of(ctx, PT_REGS_PARM2(ctx), 0, true);
}

/*
 * mremap(addr, old_len, new_len, flags, ...) is a realloc of a mapping:
 * new_len bytes mapped, on its stack, and with --inuse its old range
 * unmapped once it returns (MREMAP_DONTUNMAP leaves it mapped).  glibc's
 * realloc of a block it mapped calls it: a leaf user space drops.
 */
#define ALLOC_MREMAP_DONTUNMAP 4	/* x86-64's and arm64's */

SEC("uprobe")
int on_alloc_mremap(struct pt_regs *ctx)
{
	if (alloc_inuse && !(PT_REGS_PARM4(ctx) & ALLOC_MREMAP_DONTUNMAP))
		alloc_remap_begin(ctx, PT_REGS_PARM1(ctx), PT_REGS_PARM2(ctx));
	return alloc_entry_of(ctx, PT_REGS_PARM3(ctx), 0, true);
}

/*
 * --inuse (capture/alloc_inuse.bpf.h): the allocator's returns, where a
 * sampled block gets its address, and free, where it loses it.
 */
SEC("uretprobe")
int on_alloc_return(struct pt_regs *ctx)
{
	alloc_block_returned(ctx, PT_REGS_RC(ctx));
	return 0;
}

SEC("uprobe")
int on_alloc_free(struct pt_regs *ctx)
{
	alloc_block_freed(PT_REGS_PARM1(ctx));
	return 0;
}

/* munmap(addr, len): a mapping's whole, or part of one (alloc_unmapped). */
SEC("uprobe")
int on_alloc_munmap(struct pt_regs *ctx)
{
	alloc_block_unmapped(PT_REGS_PARM1(ctx), PT_REGS_PARM2(ctx));
	return 0;
}

/* realloc's return: its old block first, then its new one. */
SEC("uretprobe")
int on_alloc_realloc_return(struct pt_regs *ctx)
{
	alloc_realloc_returned(ctx, PT_REGS_RC(ctx));
	alloc_block_returned(ctx, PT_REGS_RC(ctx));
	return 0;
}

/* mremap's return: its old range first, then its new mapping. */
SEC("uretprobe")
int on_alloc_mremap_return(struct pt_regs *ctx)
{
	alloc_remap_returned(ctx, PT_REGS_RC(ctx));
	alloc_block_returned(ctx, PT_REGS_RC(ctx));
	return 0;
}

/*
 * A process's memory goes at its exec and at its exit, with no free: its
 * blocks filed before then are not in use (alloc_gone).  Exit: its last
 * thread's (signal->live has counted it out by the tracepoint).
 */
SEC("raw_tp/sched_process_exec")
int BPF_PROG(alloc_on_exec, struct task_struct *task)
{
	alloc_process_gone(BPF_CORE_READ(task, tgid), true);
	return 0;
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(alloc_on_exit, struct task_struct *task)
{
	if (BPF_CORE_READ(task, signal, live.counter) == 0)
		alloc_process_gone(BPF_CORE_READ(task, tgid), false);
	return 0;
}
