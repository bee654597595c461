// SPDX-License-Identifier: GPL-2.0
/*
 * stitch latency, kernel side: every call of the root (a system call from
 * its enter/exit tracepoints, or a user function from a uprobe and its
 * uretprobe) is timed per thread and counted in a histogram; a call at or
 * over the threshold is sent to user space at its end, with its CPU time.
 * While a thread is in a call, the capture program's gate (owned here,
 * capture/targets.bpf.h) lets its switch-outs through, and its cpu samples
 * once the call is threshold old: a call that ends under the threshold
 * without blocking costs only its two probes.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "latency/latency.h"

const volatile __u64 threshold_ns = 1000000;
const volatile bool filter_tgids = true;

/* traced_tgids and gate_threads: owned here, handed to the capture program by fd. */
#include "capture/targets.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LAT_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct lat_open);
} open_calls SEC(".maps");

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
	__uint(max_entries, 1 << 20);
} slow_calls SEC(".maps");

static __always_inline void stat_add(__u32 i, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&lat_stats, &i);

	if (v)
		*v += n;
}

static __always_inline void call_enter(__u64 a0, __u64 a1, __u64 a2)
{
	__u64 id = bpf_get_current_pid_tgid(), now;
	__u32 tgid = id >> 32, tid = (__u32)id;
	struct lat_open *o, v = {};

	if (filter_tgids && !bpf_map_lookup_elem(&traced_tgids, &tgid))
		return;
	o = bpf_map_lookup_elem(&open_calls, &tid);
	if (o) {
		/* A recursive call of a function root: the outermost one is timed. */
		o->depth++;
		stat_add(LAT_STAT_NESTED, 1);
		return;
	}
	now = bpf_ktime_get_ns();
	v.start_ns = now;
	v.start_cpu_ns = bpf_get_current_task_btf()->se.sum_exec_runtime;
	v.args[0] = a0;
	v.args[1] = a1;
	v.args[2] = a2;
	if (bpf_map_update_elem(&open_calls, &tid, &v, BPF_NOEXIST)) {
		stat_add(LAT_STAT_UNTRACKED, 1);
		return;
	}
	/* The gate opens last: a sample inside this program finds the call. */
	now += threshold_ns;
	if (bpf_map_update_elem(&gate_threads, &tid, &now, BPF_ANY))
		stat_add(LAT_STAT_UNTRACKED, 1);
}

static __always_inline void call_exit(__s64 ret)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), b, max_idx = LAT_STAT_NR;
	struct lat_open *o = bpf_map_lookup_elem(&open_calls, &tid);
	__u64 now, dur, *n, *max;
	struct lat_call *c;

	if (!o)
		return;
	if (o->depth) {
		o->depth--;
		return;
	}
	/* Close the gate before taking the end time: nothing after it is the call's. */
	bpf_map_delete_elem(&gate_threads, &tid);
	now = bpf_ktime_get_ns();
	dur = now - o->start_ns;
	b = lat_bucket(dur);
	n = bpf_map_lookup_elem(&histogram, &b);
	if (n)
		*n += 1;
	stat_add(LAT_STAT_CALLS, 1);
	max = bpf_map_lookup_elem(&lat_stats, &max_idx);
	if (max && dur > *max)
		*max = dur;
	if (dur >= threshold_ns) {
		stat_add(LAT_STAT_SLOW, 1);
		c = bpf_ringbuf_reserve(&slow_calls, sizeof(*c), 0);
		if (c) {
			c->start_ns = o->start_ns;
			c->dur_ns = dur;
			c->on_cpu_ns = bpf_get_current_task_btf()->se.sum_exec_runtime -
				       o->start_cpu_ns;
			c->args[0] = o->args[0];
			c->args[1] = o->args[1];
			c->args[2] = o->args[2];
			c->ret = ret;
			c->pid = bpf_get_current_pid_tgid() >> 32;
			c->tid = tid;
			bpf_ringbuf_submit(c, 0);
		} else {
			stat_add(LAT_STAT_SLOW_LOST, 1);
		}
	}
	bpf_map_delete_elem(&open_calls, &tid);
}

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

SEC("tracepoint")
int lat_sys_enter(struct syscall_enter_ctx *ctx)
{
	call_enter(ctx->args[0], ctx->args[1], ctx->args[2]);
	return 0;
}

SEC("tracepoint")
int lat_sys_exit(struct syscall_exit_ctx *ctx)
{
	call_exit(ctx->ret);
	return 0;
}

SEC("uprobe")
int lat_func_enter(struct pt_regs *ctx)
{
	call_enter(PT_REGS_PARM1(ctx), PT_REGS_PARM2(ctx), PT_REGS_PARM3(ctx));
	return 0;
}

SEC("uretprobe")
int lat_func_exit(struct pt_regs *ctx)
{
	call_exit((__s64)PT_REGS_RC(ctx));
	return 0;
}

/* A thread that dies in a call (exit_group inside it, a kill): forget it. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(lat_thread_exit, struct task_struct *task)
{
	__u32 tid = task->pid;

	bpf_map_delete_elem(&open_calls, &tid);
	bpf_map_delete_elem(&gate_threads, &tid);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
