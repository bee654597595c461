// SPDX-License-Identifier: GPL-2.0
/*
 * stitch stalls, kernel side: per thread of the target, the scheduler's
 * account of its CPU time when it last returned from its event loop's
 * waiting system call (epoll_wait, poll, ...), from the raw syscall
 * tracepoints only (no kprobes on this kernel).  A thread that enters the
 * loop syscall again after more than the threshold of CPU time ends a
 * stall: one record to user space.  The capture program samples only
 * threads stalled right now through its gate (capture/targets.bpf.h), which
 * this program keeps: closed while a thread waits in its loop, open from
 * the CPU time at which it would be stalled.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "capture/user_regs.bpf.h"

#include "stalls/stalls.h"

#define barrier() asm volatile("" ::: "memory")

const volatile __u64 threshold_ns = 50000000;
/* --loop-syscall, or STALLS_LOOP_UNKNOWN: each thread's first of candidates. */
const volatile __u32 loop_nr = STALLS_LOOP_UNKNOWN;
const volatile __u32 candidates[STALLS_MAX_LOOP_SYSCALLS];
const volatile __u32 ncandidates;

/* traced_tgids and gate_threads: owned here, handed to the capture program by fd. */
#include "capture/targets.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, STALLS_MAX_THREADS);
	__uint(map_flags, BPF_F_NO_PREALLOC);	/* memory per thread seen, not up front */
	__type(key, __u32);
	__type(value, struct stall_thread);
} stall_threads SEC(".maps");

/* The capture gate of a thread: open from CPU time open_at on; 0 closes it. */
static __always_inline void gate_set(__u32 tid, __u64 open_at)
{
	__u64 *g = bpf_map_lookup_elem(&gate_threads, &tid);

	if (g)
		*g = open_at;
	else if (open_at)
		bpf_map_update_elem(&gate_threads, &tid, &open_at, BPF_NOEXIST);
}

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} stall_events SEC(".maps");

/* Stalls lost because stall_events was full, or threads beyond the map. */
__u64 lost_stalls, untracked_threads;

static __always_inline bool is_candidate(__u32 nr)
{
	int i;

	for (i = 0; i < STALLS_MAX_LOOP_SYSCALLS; i++)
		if (i < ncandidates && candidates[i] == nr)
			return true;
	return false;
}

/* This thread's state; created on its first system call if its process is a target. */
static __always_inline struct stall_thread *thread_of(__u32 tgid, __u32 tid)
{
	struct stall_thread *t, fresh = {};

	/* Every system call of the machine comes here: one lookup for the others. */
	if (!bpf_map_lookup_elem(&traced_tgids, &tgid))
		return NULL;
	t = bpf_map_lookup_elem(&stall_threads, &tid);
	if (t)
		return t;
	fresh.loop_nr = loop_nr;
	if (bpf_map_update_elem(&stall_threads, &tid, &fresh, BPF_NOEXIST) &&
	    !bpf_map_lookup_elem(&stall_threads, &tid)) {
		__sync_fetch_and_add(&untracked_threads, 1);
		return NULL;
	}
	return bpf_map_lookup_elem(&stall_threads, &tid);
}

/* Is nr this thread's loop syscall?  Learns it from the first candidate seen. */
static __always_inline bool is_loop_syscall(struct stall_thread *t, __u32 nr)
{
	if (t->loop_nr == STALLS_LOOP_UNKNOWN && is_candidate(nr))
		t->loop_nr = nr;
	return t->loop_nr == nr;
}

/* The stall of thread t ended now: one record to user space. */
static __always_inline void send_stall(const struct stall_thread *t, __u32 tgid, __u32 tid,
				       __u64 oncpu, __u64 now, __u8 by_exit)
{
	struct stall_event *e = bpf_ringbuf_reserve(&stall_events, sizeof(*e), 0);

	if (!e) {
		__sync_fetch_and_add(&lost_stalls, 1);
		return;
	}
	e->start_ns = t->loop_exit_ns;
	e->end_ns = now;
	e->oncpu_ns = oncpu;
	e->pid = tgid;
	e->tid = tid;
	e->loop_nr = t->loop_nr;
	e->from_attach = t->from_attach;
	e->by_exit = by_exit;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	bpf_ringbuf_submit(e, 0);
}

/*
 * The current thread's CPU time.  Read through bpf_get_current_task() and a
 * probe read (~20 ns), not a typed task pointer, which kernels before 5.11
 * do not give (Debian 11's 5.10).
 */
static __always_inline __u64 current_runtime(void)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();

	return BPF_CORE_READ(task, se.sum_exec_runtime);
}

SEC("tp_btf/sys_enter")
int BPF_PROG(on_sys_enter, struct pt_regs *regs, long id)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid(), now, oncpu;
	__u32 tgid = pid_tgid >> 32, tid = (__u32)pid_tgid;
	struct stall_thread *t = thread_of(tgid, tid);
	bool stalled;

	if (!t || !is_loop_syscall(t, (__u32)id))
		return 0;
	oncpu = current_runtime() - t->runtime_at_exit;
	stalled = stall_gate_open(t, t->runtime_at_exit + oncpu, threshold_ns);
	/*
	 * Close the gate before taking the end time: the sampler can fire
	 * inside this program (a timer interrupt), and its sample, later than
	 * the end, would belong to no stall.
	 */
	t->in_wait = 1;
	gate_set(tid, 0);
	barrier();
	now = bpf_ktime_get_ns();
	if (stalled)
		send_stall(t, tgid, tid, oncpu, now, 0);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(on_sys_exit, struct pt_regs *regs, long ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid;
	struct stall_thread *t = thread_of(pid_tgid >> 32, tid);
	__u32 nr = (__u32)UREG_SYSCALL_NR_CORE(regs);

	if (!t || !is_loop_syscall(t, nr))
		return 0;
	/*
	 * Back from waiting: from here on the thread's CPU time counts.  The
	 * gate opens last, so that a sample fired inside this program sees
	 * the new start, never the last stall's.
	 */
	t->from_attach = 0;
	t->runtime_at_exit = current_runtime();
	t->loop_exit_ns = bpf_ktime_get_ns();
	barrier();
	t->in_wait = 0;
	gate_set(tid, t->runtime_at_exit + threshold_ns);
	return 0;
}

/*
 * A thread that exits stalled (the program ends, or a watchdog kills it in
 * a handler that never returned) ends its stall here: it would otherwise
 * never be told, its samples left unclaimed.  This runs in the exiting
 * thread, before its memory goes.
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_thread_exit, struct task_struct *task)
{
	__u32 tid = task->pid;
	struct stall_thread *t = bpf_map_lookup_elem(&stall_threads, &tid);
	__u64 runtime = task->se.sum_exec_runtime;

	if (t && stall_gate_open(t, runtime, threshold_ns)) {
		gate_set(tid, 0);
		barrier();
		send_stall(t, task->tgid, tid, runtime - t->runtime_at_exit, bpf_ktime_get_ns(), 1);
	}
	bpf_map_delete_elem(&stall_threads, &tid);
	bpf_map_delete_elem(&gate_threads, &tid);
	return 0;
}

/* A new program in this thread: its loop (and loop syscall) are yet to be seen. */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_thread_exec, struct task_struct *task, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 tid = task->pid;

	bpf_map_delete_elem(&stall_threads, &tid);
	bpf_map_delete_elem(&gate_threads, &tid);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
