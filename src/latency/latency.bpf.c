// SPDX-License-Identifier: GPL-2.0
/*
 * stitch latency, kernel side: every call of the root is timed and counted
 * in a histogram; a call at or over the threshold is sent to user space at
 * its end, with its CPU time.  A root is a system call (its enter/exit
 * tracepoints), a user or kernel function (uprobe/kprobe and the return
 * probe), a begin/end pair of USDT probes or tracepoints, or an interpreted
 * function (its language's call path).  Calls are
 * matched by thread, with our own nesting count (a begin inside an open
 * call of the thread is nested, its end is not the call's), or, for a
 * tracepoint pair whose end happens elsewhere (an I/O completing in an
 * interrupt), by key fields of the two events.
 *
 * While a thread is in a call, the capture program's gate (owned here,
 * capture/targets.bpf.h) lets its switch-outs and cpu samples through from
 * the call's first instant: a call that ends under the threshold without
 * blocking or being sampled costs only its two probes.  With --children, named
 * functions' entries and exits inside a call are written to the thread's
 * child buffer, sent with the call only if it is slow.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/usdt.bpf.h>

#include "interp/interp.h"
#include "latency/latency.h"
#include "probe/fetch_eval.bpf.h"

const volatile __u64 threshold_ns = 1000000;
const volatile bool filter_tgids = true;
const volatile bool children_on;
/*
 * Tracepoint pairs: the begin's fields kept as the call's arguments, the
 * end's field kept as its return value, and the key fields (nkeys > 0:
 * matched by key, not by thread), as offsets and sizes in the records.
 */
const volatile __u32 arg_off[LAT_NARGS], arg_size[LAT_NARGS];
const volatile __u32 ret_off, ret_size;
const volatile __u32 nkeys;
const volatile __u32 key_begin_off[LAT_NKEYS], key_end_off[LAT_NKEYS];
const volatile __u32 key_begin_size[LAT_NKEYS], key_end_size[LAT_NKEYS];

/* traced_tgids and gate_threads: owned here, handed to the capture program by fd. */
#include "capture/targets.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LAT_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct lat_open);
} open_calls SEC(".maps");

/* Keyed pairs: calls begun and not ended yet, by key. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LAT_MAX_THREADS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct lat_key);
	__type(value, struct lat_open);
} open_keyed SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, LAT_BUCKETS);
	__type(key, __u32);
	__type(value, __u64);
} histogram SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, LAT_STAT_NR + 1);	/* and the longest call, last */
	__type(key, __u32);
	__type(value, __u64);
} lat_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22);
} slow_calls SEC(".maps");

/* --children: per thread seen in a call (memory per thread, not up front). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LAT_MAX_THREADS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct lat_child_buf);
} child_bufs SEC(".maps");

/* A zeroed buffer to create a thread's first child buffer from. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lat_child_buf);
} child_zero SEC(".maps");

/*
 * --fetch (fetch_on): the root's entry's steps, and each thread's values
 * while it is in a call (memory per thread in a call, not up front).
 */
const volatile bool fetch_on;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fetch_steps);
} lat_fetch_prog SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LAT_MAX_THREADS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct lat_fetched);
} open_fetched SEC(".maps");

/* A zeroed record to create a thread's values from. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lat_fetched);
} fetched_zero SEC(".maps");

static __always_inline void stat_add(__u32 i, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&lat_stats, &i);

	if (v)
		*v += n;
}

/* A call began on this thread: child events start over. */
static __always_inline void children_reset(__u32 tid)
{
	struct lat_child_buf *b;
	__u32 zero = 0;

	b = bpf_map_lookup_elem(&child_bufs, &tid);
	if (!b) {
		b = bpf_map_lookup_elem(&child_zero, &zero);
		if (!b || bpf_map_update_elem(&child_bufs, &tid, b, BPF_NOEXIST))
			return;
		b = bpf_map_lookup_elem(&child_bufs, &tid);
		if (!b)
			return;
	}
	b->call.nchild = 0;
	b->call.child_lost = 0;
}

static __always_inline bool tgid_wanted(__u32 tgid)
{
	return !filter_tgids || bpf_map_lookup_elem(&traced_tgids, &tgid);
}

/*
 * Returns whether a call was opened (not nested, not lost); interp_si and
 * interp_ix: where an interpreter root's call is (0 otherwise).
 */
static __always_inline bool call_enter_at(__u64 a0, __u64 a1, __u64 a2, __u64 interp_si,
					  __s32 interp_ix)
{
	__u64 id = bpf_get_current_pid_tgid(), now;
	__u32 tgid = id >> 32, tid = (__u32)id;
	struct lat_open *o, v = {};

	if (!tgid_wanted(tgid))
		return false;
	o = bpf_map_lookup_elem(&open_calls, &tid);
	if (o) {
		/* A recursive call of a function root, or a nested pair: the outermost is timed. */
		o->depth++;
		stat_add(LAT_STAT_NESTED, 1);
		return false;
	}
	if (children_on)
		children_reset(tid);
	now = bpf_ktime_get_ns();
	v.start_ns = now;
	v.args[0] = a0;
	v.args[1] = a1;
	v.args[2] = a2;
	v.interp_si = interp_si;
	v.interp_ix = interp_ix;
	if (bpf_map_update_elem(&open_calls, &tid, &v, BPF_NOEXIST)) {
		stat_add(LAT_STAT_UNTRACKED, 1);
		return false;
	}
	/*
	 * The gate opens last: a sample inside this program finds the call.
	 * Open from the call's start: its samples wait in user space and are
	 * kept only if it ends slow (lat_calls.c), so a computing call's time
	 * before the threshold has its stacks too.
	 */
	if (bpf_map_update_elem(&gate_threads, &tid, &now, BPF_ANY))
		stat_add(LAT_STAT_UNTRACKED, 1);
	return true;
}

static __always_inline bool call_enter(__u64 a0, __u64 a1, __u64 a2)
{
	return call_enter_at(a0, a1, a2, 0, 0);
}

/*
 * --fetch at the entry of the call the thread just opened: ctx the probe's,
 * regs the registers the steps name (a function's at its entry, a system
 * call's user registers).  Out of line: its frame beside the caller's.
 */
static __noinline void fetch_at_entry(void *ctx, struct pt_regs *regs)
{
	__u32 zero = 0, tid = (__u32)bpf_get_current_pid_tgid(), i;
	struct fetch_steps *p = bpf_map_lookup_elem(&lat_fetch_prog, &zero);
	struct lat_fetched *z = bpf_map_lookup_elem(&fetched_zero, &zero), *f;
	struct lat_open *o = bpf_map_lookup_elem(&open_calls, &tid);

	if (!p || !z || !o || !regs || bpf_map_update_elem(&open_fetched, &tid, z, BPF_ANY))
		return;
	f = bpf_map_lookup_elem(&open_fetched, &tid);
	if (!f)
		return;
	f->tag = LAT_FETCHED_TAG;
	f->v.hdr.type = RING_FETCH_VALUES;
	f->v.hdr.size = sizeof(f->v);
	f->v.tid = tid;
	/* Its call's start: user space joins the values to that call's record only */
	f->v.time_ns = o->start_ns;
	for (i = 0; i < FETCH_MAX_VARS; i++)
		f->v.status[i] = i < p->nvars ? fetch_one(ctx, regs, p, &f->v, i) :
				 FETCH_VALUE_OPTIMIZED_OUT;
}

/* A slow call's values, on the ring before its record; a call's end lets them go. */
static __always_inline void fetch_at_exit(__u32 tid, bool slow)
{
	struct lat_fetched *f;

	if (!fetch_on)
		return;
	f = bpf_map_lookup_elem(&open_fetched, &tid);
	if (!f)
		return;
	if (slow && bpf_ringbuf_output(&slow_calls, f, sizeof(*f), 0))
		stat_add(LAT_STAT_SLOW_LOST, 1);
	bpf_map_delete_elem(&open_fetched, &tid);
}

/* Counts a call that took dur ns; returns whether it is slow. */
static __always_inline bool count_call(__u64 dur)
{
	__u32 b = lat_bucket(dur), max_idx = LAT_STAT_NR;
	__u64 *n, *max;

	n = bpf_map_lookup_elem(&histogram, &b);
	if (n)
		*n += 1;
	stat_add(LAT_STAT_CALLS, 1);
	max = bpf_map_lookup_elem(&lat_stats, &max_idx);
	if (max && dur > *max)
		*max = dur;
	if (dur < threshold_ns)
		return false;
	stat_add(LAT_STAT_SLOW, 1);
	return true;
}

static __always_inline void fill_call(struct lat_call *c, const struct lat_open *o, __u64 dur,
				      __s64 ret, __u32 pid, __u32 tid, __u64 on_cpu)
{
	c->start_ns = o->start_ns;
	c->dur_ns = dur;
	c->on_cpu_ns = on_cpu;
	c->args[0] = o->args[0];
	c->args[1] = o->args[1];
	c->args[2] = o->args[2];
	c->ret = ret;
	c->pid = pid;
	c->tid = tid;
}

/* A slow call with its child events: the thread's buffer, sent as it is. */
static __always_inline bool send_with_children(const struct lat_open *o, __u64 dur, __s64 ret,
					       __u32 pid, __u32 tid, __u64 on_cpu)
{
	struct lat_child_buf *b = bpf_map_lookup_elem(&child_bufs, &tid);
	__u32 n;

	if (!b)
		return false;
	fill_call(&b->call, o, dur, ret, pid, tid, on_cpu);
	n = b->call.nchild;
	if (n > LAT_MAX_CHILD_EVENTS)
		n = LAT_MAX_CHILD_EVENTS;
	return bpf_ringbuf_output(&slow_calls, b, sizeof(b->call) + n * sizeof(__u64), 0) == 0;
}

/*
 * The thread runs at now with CPU time run, and its last switch-out is still
 * open: it came back in with no sched_switch to show it (offcpu.bpf.h,
 * offcpu_unseen_in, says when that happens).  It came in as long before now
 * as the CPU time it gained since: that interval is the call's off-CPU time,
 * ended exactly as the capture program ends it at a switch-out.  At a call's
 * end (a probe), run is stale by up to a tick: the interval ends up to a
 * tick late, never early.
 */
static __always_inline void lat_unseen_in(struct lat_open *o, __u64 now, __u64 run)
{
	__u64 ran, in;

	if (!o->out_ns)
		return;
	ran = run - o->out_run_ns;
	in = now > ran ? now - ran : 0;
	if (in > o->out_ns)
		o->off_ns += in - o->out_ns;
	o->out_ns = 0;
}

/* The thread's call ends at end_ns (0: now). */
static __always_inline void call_exit_at(__s64 ret, __u64 end_ns)
{
	__u64 id = bpf_get_current_pid_tgid(), now, dur, on_cpu;
	__u32 tid = (__u32)id, pid = id >> 32;
	struct lat_open *o = bpf_map_lookup_elem(&open_calls, &tid);
	struct lat_call *c;
	bool sent, slow;

	if (!o)
		return;
	if (o->depth) {
		o->depth--;
		return;
	}
	/* Close the gate before taking the end time: nothing after it is the call's. */
	bpf_map_delete_elem(&gate_threads, &tid);
	now = end_ns ? end_ns : bpf_ktime_get_ns();
	lat_unseen_in(o, now, BPF_CORE_READ((struct task_struct *)bpf_get_current_task(),
					    se.sum_exec_runtime));
	dur = now > o->start_ns ? now - o->start_ns : 0;
	slow = count_call(dur);
	fetch_at_exit(tid, slow);
	if (slow) {
		on_cpu = dur > o->off_ns ? dur - o->off_ns : 0;
		if (children_on) {
			sent = send_with_children(o, dur, ret, pid, tid, on_cpu);
		} else {
			c = bpf_ringbuf_reserve(&slow_calls, sizeof(*c), 0);
			sent = c != NULL;
			if (c) {
				__builtin_memset(c, 0, sizeof(*c));
				fill_call(c, o, dur, ret, pid, tid, on_cpu);
				bpf_ringbuf_submit(c, 0);
			}
		}
		if (!sent)
			stat_add(LAT_STAT_SLOW_LOST, 1);
	}
	bpf_map_delete_elem(&open_calls, &tid);
}

static __always_inline void call_exit(__s64 ret)
{
	call_exit_at(ret, 0);
}

/* ---- system calls ------------------------------------------------------ */

/* syscalls:sys_enter_NAME / sys_exit_NAME, as their format files lay them out. */
struct syscall_enter_ctx {
	__u64 common;
	__s32 nr;
	__u32 pad;
	__u64 args[6];
};

struct syscall_exit_ctx {
	__u64 common;
	__s32 nr;
	__u32 pad;
	__s64 ret;
};

/*
 * The system call's first sys_nargs (<= 3) arguments.  Not read as
 * ctx->args[i]: a program reading past a tracepoint's record may not attach
 * to it (EACCES), and getppid's record ends before args[0].
 */
const volatile __u32 sys_nargs;

SEC("tracepoint")
int lat_sys_enter(struct syscall_enter_ctx *ctx)
{
	__u64 a[LAT_NARGS] = {};
	__u32 n = sys_nargs;

	if (n > LAT_NARGS)
		n = LAT_NARGS;
	if (n)
		bpf_probe_read_kernel(a, n * sizeof(a[0]), ctx->args);
	/* --fetch needs bpf_task_pt_regs (5.15): latency.c asks it only where it is */
	if (call_enter(a[0], a[1], a[2]) && fetch_on)
		fetch_at_entry(ctx, (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf()));
	return 0;
}

SEC("tracepoint")
int lat_sys_exit(struct syscall_exit_ctx *ctx)
{
	call_exit(ctx->ret);
	return 0;
}

/* ---- user and kernel functions (uprobe or kprobe, and the return probe) --- */

SEC("uprobe")
int lat_func_enter(struct pt_regs *ctx)
{
	if (call_enter(PT_REGS_PARM1(ctx), PT_REGS_PARM2(ctx), PT_REGS_PARM3(ctx)) && fetch_on)
		fetch_at_entry(ctx, ctx);
	return 0;
}

SEC("uretprobe")
int lat_func_exit(struct pt_regs *ctx)
{
	call_exit((__s64)PT_REGS_RC(ctx));
	return 0;
}

/* ---- USDT pairs ------------------------------------------------------------ */

SEC("usdt")
int lat_usdt_begin(struct pt_regs *ctx)
{
	long a[LAT_NARGS] = {};
	int i;

	for (i = 0; i < LAT_NARGS; i++)
		bpf_usdt_arg(ctx, i, &a[i]);
	call_enter(a[0], a[1], a[2]);
	return 0;
}

/* A USDT pair has no return value (lat_root_has_ret): none is read. */
SEC("usdt")
int lat_usdt_end(struct pt_regs *ctx)
{
	call_exit(0);
	return 0;
}

/* ---- tracepoint pairs ----------------------------------------------------- */

/* A field of a tracepoint record, zero-extended (size 0: absent). */
static __always_inline __u64 tp_field(void *ctx, __u32 off, __u32 size)
{
	__u64 v = 0;

	if (size == 0 || size > 8 || off > 4096)
		return 0;
	bpf_probe_read_kernel(&v, size & 15, (char *)ctx + off);
	return v;
}

static __always_inline void keyed_begin(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct lat_open v = {};
	struct lat_key k = {};
	int i;

	if (!tgid_wanted(id >> 32))
		return;
	for (i = 0; i < LAT_NKEYS; i++)
		if (i < nkeys)
			k.k[i] = tp_field(ctx, key_begin_off[i], key_begin_size[i]);
	for (i = 0; i < LAT_NARGS; i++)
		v.args[i] = tp_field(ctx, arg_off[i], arg_size[i]);
	v.start_ns = bpf_ktime_get_ns();
	v.pid = id >> 32;
	v.tid = (__u32)id;
	/* A key begun again before its end: the newer begin is the call. */
	if (bpf_map_update_elem(&open_keyed, &k, &v, BPF_ANY))
		stat_add(LAT_STAT_UNTRACKED, 1);
}

static __always_inline void keyed_end(void *ctx)
{
	struct lat_open *o;
	struct lat_key k = {};
	struct lat_call *c;
	__u64 dur;
	int i;

	for (i = 0; i < LAT_NKEYS; i++)
		if (i < nkeys)
			k.k[i] = tp_field(ctx, key_end_off[i], key_end_size[i]);
	o = bpf_map_lookup_elem(&open_keyed, &k);
	if (!o)
		return;
	dur = bpf_ktime_get_ns() - o->start_ns;
	if (count_call(dur)) {
		c = bpf_ringbuf_reserve(&slow_calls, sizeof(*c), 0);
		if (c) {
			__builtin_memset(c, 0, sizeof(*c));
			fill_call(c, o, dur, (__s64)tp_field(ctx, ret_off, ret_size), o->pid, o->tid,
				  0);
			c->key = k;
			bpf_ringbuf_submit(c, 0);
		} else {
			stat_add(LAT_STAT_SLOW_LOST, 1);
		}
	}
	bpf_map_delete_elem(&open_keyed, &k);
}

SEC("tracepoint")
int lat_tp_begin(void *ctx)
{
	if (nkeys) {
		keyed_begin(ctx);
		return 0;
	}
	call_enter(tp_field(ctx, arg_off[0], arg_size[0]), tp_field(ctx, arg_off[1], arg_size[1]),
		   tp_field(ctx, arg_off[2], arg_size[2]));
	return 0;
}

SEC("tracepoint")
int lat_tp_end(void *ctx)
{
	if (nkeys)
		keyed_end(ctx);
	else
		call_exit((__s64)tp_field(ctx, ret_off, ret_size));
	return 0;
}

/* ---- interpreted functions (LANG:NAME), on the language's own call path -- */

/*
 * The root's language and its interpreter's layout, and the function's
 * name, from user space (lat_root.c).  A call is the function's context:
 * pushed at index interp_ix of stack interp_si just after the ENTER probe,
 * popped at a LEAVE (every return) or an UNWIND (an exception, a loop
 * exit out of the function).  Where the context is, not a count of entries
 * and returns, tells the end (interp.h "Roots").  Each language's side is
 * its interp/<name>/<name>_root.bpf.h.
 */
const volatile struct interp_layout root_L;
const volatile char root_fn[INTERP_ROOT_NAME_MAX];
const volatile __u32 root_fn_len;

/* Every <name>_root.bpf.h, and INTERP_ROOTS(X): X(ID, name, member) for each. */
#include "interp_roots.bpf.h"

/* The thread's stack of contexts and its innermost context's index; -1 if unreadable. */
static __always_inline int root_where(struct pt_regs *ctx, __u64 *si, __s32 *ix)
{
#define ROOT_WHERE(ID, name, member)						\
	if (root_L.lang == INTERP_##ID)						\
		return name##_root_where(ctx, &root_L.member, si, ix);
	INTERP_ROOTS(ROOT_WHERE)
#undef ROOT_WHERE
	return -1;
}

/* At the ENTER probe: is the function about to be called the root? */
static __always_inline bool root_is_callee(struct pt_regs *ctx)
{
#define ROOT_IS_CALLEE(ID, name, member)					\
	if (root_L.lang == INTERP_##ID)						\
		return name##_root_is_callee(ctx, &root_L.member, root_fn, root_fn_len);
	INTERP_ROOTS(ROOT_IS_CALLEE)
#undef ROOT_IS_CALLEE
	return false;
}

/* At the UNWIND probe: every context above this index is popped now. */
static __always_inline __s32 root_unwound_to(struct pt_regs *ctx)
{
#define ROOT_UNWOUND_TO(ID, name, member)					\
	if (root_L.lang == INTERP_##ID)						\
		return name##_root_unwound_to(ctx);
	INTERP_ROOTS(ROOT_UNWOUND_TO)
#undef ROOT_UNWOUND_TO
	return 0x7fffffff;
}

/*
 * The thread's call, popped already if the context index is below it:
 * ended by an exception, whose start was its end (perl: the unwinding
 * itself, dounwind, is inlined into die_unwind, so no probe sees it).
 * True if the call is still open.
 */
static __always_inline bool root_still_open(struct lat_open *o, __u64 si, __s32 ix)
{
	if (si != o->interp_si || ix >= o->interp_ix)
		return true;
	call_exit_at(0, o->raise_ns);
	return false;
}

/* ENTER (perl: Perl_pp_entersub(my_perl)): a function is about to be called. */
SEC("uprobe")
int lat_interp_enter(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), si;
	__u32 tid = (__u32)id;
	struct lat_open *o;
	__s32 ix;

	if (!tgid_wanted(id >> 32) || root_where(ctx, &si, &ix))
		return 0;
	o = bpf_map_lookup_elem(&open_calls, &tid);
	/* A call inside the root's: where the root's context is says when it ends. */
	if (o && root_still_open(o, si, ix))
		return 0;
	if (root_is_callee(ctx))
		call_enter_at(0, 0, 0, si, ix + 1);
	return 0;
}

/* LEAVE (perl: Perl_pp_leavesub(my_perl), Perl_pp_leavesublv): the innermost context returns. */
SEC("uprobe")
int lat_interp_leave(struct pt_regs *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct lat_open *o = bpf_map_lookup_elem(&open_calls, &tid);
	__u64 si;
	__s32 ix;

	if (!o || !o->interp_si || root_where(ctx, &si, &ix))
		return 0;
	if (root_still_open(o, si, ix) && si == o->interp_si && ix == o->interp_ix)
		call_exit(0);
	return 0;
}

/* RAISE (perl: Perl_die_unwind(my_perl, msv)): an exception starts unwinding; its time is kept. */
SEC("uprobe")
int lat_interp_raise(struct pt_regs *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct lat_open *o = bpf_map_lookup_elem(&open_calls, &tid);

	if (o && o->interp_si)
		o->raise_ns = bpf_ktime_get_ns();
	return 0;
}

/* UNWIND (perl: Perl_dounwind(my_perl, cxix)): every context above an index is popped now. */
SEC("uprobe")
int lat_interp_unwind(struct pt_regs *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct lat_open *o = bpf_map_lookup_elem(&open_calls, &tid);
	__s32 ix;
	__u64 si;

	if (!o || !o->interp_si || root_where(ctx, &si, &ix))
		return 0;
	if (si == o->interp_si && o->interp_ix > root_unwound_to(ctx))
		call_exit(0);
	return 0;
}

/* ---- --children: named functions inside a call ---------------------------- */

static __always_inline void child_event(void *ctx, __u64 exit)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), n;
	__u64 idx = bpf_get_attach_cookie(ctx);
	struct lat_child_buf *b;
	struct lat_open *o;

	o = bpf_map_lookup_elem(&open_calls, &tid);
	if (!o)
		return;
	b = bpf_map_lookup_elem(&child_bufs, &tid);
	if (!b)
		return;
	n = b->call.nchild;
	if (n >= LAT_MAX_CHILD_EVENTS) {
		b->call.child_lost++;
		stat_add(LAT_STAT_CHILD_LOST, 1);
		return;
	}
	b->ev[n] = (bpf_ktime_get_ns() - o->start_ns) << LAT_CHILD_TIME_SHIFT |
		   (idx & (LAT_MAX_CHILDREN - 1)) << LAT_CHILD_IDX_SHIFT | exit;
	b->call.nchild = n + 1;
}

SEC("uprobe")
int lat_child_enter(struct pt_regs *ctx)
{
	child_event(ctx, 0);
	return 0;
}

SEC("uretprobe")
int lat_child_exit(struct pt_regs *ctx)
{
	child_event(ctx, LAT_CHILD_EXIT);
	return 0;
}

/*
 * A call's CPU time is its duration less the time it spent switched out,
 * from the switches themselves, on the clock that times the call and that
 * weighs its off-CPU stacks: the two add up.  se.sum_exec_runtime, which
 * this replaced, is only brought up to date at a tick or a switch: read in
 * a probe, it missed up to a tick (4 ms at HZ=250) of the running thread's
 * time, and a lock test's calls read 0.3-0.7 ms "on CPU" they had spent
 * blocked (their off-CPU stacks weighed more than their off-CPU time).
 */
SEC("raw_tp/sched_switch")
int BPF_PROG(lat_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u32 out_tid = BPF_CORE_READ(prev, pid), in_tid = BPF_CORE_READ(next, pid);
	__u64 now = bpf_ktime_get_ns();
	struct lat_open *o;

	o = bpf_map_lookup_elem(&open_calls, &out_tid);
	if (o) {
		__u64 run = BPF_CORE_READ(prev, se.sum_exec_runtime);

		lat_unseen_in(o, now, run);
		o->out_ns = now;
		o->out_run_ns = run;
	}
	o = bpf_map_lookup_elem(&open_calls, &in_tid);
	if (o && o->out_ns) {
		o->off_ns += now - o->out_ns;
		o->out_ns = 0;
	}
	return 0;
}

/*
 * A thread that dies in a call (exit_group inside it, a kill): forget it.
 * A raw tracepoint, not tp_btf: libbpf would read the kernel's whole BTF
 * to attach one (see util/core_btf.h).
 */
SEC("raw_tp/sched_process_exit")
int BPF_PROG(lat_thread_exit, struct task_struct *task)
{
	__u32 tid = BPF_CORE_READ(task, pid);

	bpf_map_delete_elem(&open_calls, &tid);
	bpf_map_delete_elem(&gate_threads, &tid);
	if (children_on)
		bpf_map_delete_elem(&child_bufs, &tid);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
