// SPDX-License-Identifier: GPL-2.0
/*
 * stitch snapshot, kernel side: a sleepable task iterator that writes one
 * struct snap_record per thread of the targets, without stopping any: the
 * scheduler's account (state, CPU time, when it last ran), the registers it
 * saved on entering the kernel, its kernel stack and a copy of its user
 * stack from sp up, and in a process user space marked as an interpreter,
 * the thread's interpreter frames, walked by record's walkers reading the
 * thread's memory.  Sleepable so that bpf_copy_from_user_task may fault in
 * another task's pages; user space unwinds the copy and stitches the
 * interpreter frames in.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "capture/user_regs.bpf.h"

#include "capture/uret.bpf.h"
#include "snapshot/snapshot.h"

/* The walkers read the iterated task, not the current one (interp_read()). */
#define INTERP_WALK_OTHER_TASKS
#include "interp/walk_thread.bpf.h"

#define PF_KTHREAD 0x00200000
#define PAGE_SIZE 4096

char LICENSE[] SEC("license") = "GPL";

/* Every thread (-a), or only those whose tgid is in targets. */
const volatile bool all_tasks;
const volatile bool skip_kthreads;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u8);
} targets SEC(".maps");

/*
 * One record per CPU at a time (sleepable programs run with migration
 * disabled).  A plain array indexed by CPU, sized by user space: a per-CPU
 * array's values are limited to 32 KiB and a record with its page of slack
 * is more.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u8[sizeof(struct snap_record) + SNAP_MAX_KSTACK * 8 + SNAP_MAX_USTACK +
			    PAGE_SIZE]);
} scratch SEC(".maps");

/*
 * Records the seq_file refused for another reason than a full buffer
 * (-EOVERFLOW: the iterator runs this task again after user space reads).
 */
__u64 write_errors;

struct vma_end_ctx {
	__u64 end;
};

static long vma_end_cb(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	struct vma_end_ctx *c = data;

	c->end = BPF_CORE_READ(vma, vm_end);
	return 0;
}

/*
 * Copy the user stack from sp up, a page at a time: a page that faults
 * (the end of the mapping, or memory the thread just unmapped) ends the
 * copy with what came before it instead of losing everything.
 */
static __always_inline __u32 copy_ustack(struct task_struct *task, __u8 *dst, __u64 sp,
					 __u64 end, __u32 cap, __u32 *flags)
{
	__u64 off = 0, addr, sz;
	int i;

	for (i = 0; i < SNAP_MAX_USTACK / PAGE_SIZE + 1; i++) {
		addr = sp + off;
		sz = PAGE_SIZE - (addr & (PAGE_SIZE - 1));
		if (addr >= end)
			break;
		if (sz > end - addr)
			sz = end - addr;
		if (off + sz > cap) {
			sz = cap - off;
			*flags |= SNAP_USTACK_CUT;
		}
		/* Spelled out for the verifier: dst has a page of slack past the cap. */
		barrier_var(sz);
		if (off >= cap || cap > SNAP_MAX_USTACK || sz == 0 || sz > PAGE_SIZE)
			break;
		if (bpf_copy_from_user_task(dst + off, sz, (void *)addr, task, 0))
			break;
		off += sz;
		if (*flags & SNAP_USTACK_CUT)
			break;
	}
	return off;
}

SEC("iter.s/task")
int snapshot_tasks(struct bpf_iter__task *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct task_struct *task = ctx->task;
	struct interp_scratch *is = NULL;
	struct snap_record *r;
	struct pt_regs *regs;
	struct rq *rq;
	__u32 cpu = bpf_get_smp_processor_id(), pid, kbytes = 0, ubytes = 0, len, cap;
	__u64 ibytes = 0;
	__u8 *buf;
	long n;

	if (!task)
		return 0;
	pid = task->tgid;
	if (!all_tasks && !bpf_map_lookup_elem(&targets, &pid))
		return 0;
	if (skip_kthreads && (task->flags & PF_KTHREAD))
		return 0;
	buf = bpf_map_lookup_elem(&scratch, &cpu);
	if (!buf)
		return 0;
	r = (struct snap_record *)buf;
	__builtin_memset(r, 0, sizeof(*r));
	r->magic = SNAP_MAGIC;
	r->pid = pid;
	r->tid = task->pid;
	r->state = task->__state;
	r->exit_state = task->exit_state;
	r->cpu = task->thread_info.cpu;
	r->cpu_ns = task->se.sum_exec_runtime;
	r->exec_start = task->se.exec_start;
	/*
	 * se.exec_start is in its CPU's rq->clock_task, which leaves out
	 * steal and IRQ time, so two CPUs' clock_task drift apart (by 85-115
	 * ms after 90 minutes of this VM: measured as sleepers that seemed to
	 * have slept that much less).  Take "now" on the task's own CPU's
	 * clock_task, corrected by how long ago that CPU last updated it
	 * (an idle CPU stops updating), in rq->clock, which all CPUs share.
	 */
	rq = BPF_CORE_READ(task, se.cfs_rq, rq);
	if (rq) {
		r->task_clock_task = BPF_CORE_READ(rq, clock_task);
		r->task_clock = BPF_CORE_READ(rq, clock);
	}
	rq = BPF_CORE_READ(bpf_get_current_task_btf(), se.cfs_rq, rq);
	if (rq)
		r->clock_now = BPF_CORE_READ(rq, clock);
	/* An int, but a u8 in sid's 7.2: read at whatever size this kernel's is. */
	if (BPF_CORE_READ_BITFIELD(task, on_cpu))
		r->flags |= SNAP_ON_CPU;
	if (task == bpf_get_current_task_btf())
		r->flags |= SNAP_SELF;
	__builtin_memcpy(r->comm, task->comm, SNAP_COMM_LEN);

	n = bpf_get_task_stack(task, buf + sizeof(*r), SNAP_MAX_KSTACK * 8, 0);
	if (n > 0)
		kbytes = n > SNAP_MAX_KSTACK * 8 ? SNAP_MAX_KSTACK * 8 : n & ~7;
	r->nkernel = kbytes / 8;

	if (task->flags & PF_KTHREAD) {
		r->flags |= SNAP_KTHREAD;
	} else if (!task->mm) {
		r->flags |= SNAP_NO_MM;
	} else {
		struct vma_end_ctx vc = { 0 };

		regs = (struct pt_regs *)bpf_task_pt_regs(task);
		if (regs) {
			r->flags |= SNAP_USER_REGS;
			r->ip = UREG_IP_CORE(regs);
			r->sp = UREG_SP_CORE(regs);
			r->bp = UREG_FP_CORE(regs);
			r->lr = UREG_LR_CORE(regs);
			r->syscall_nr = UREG_SYSCALL_NR_CORE(regs);
			r->args[0] = UREG_ARG0_CORE(regs);
			r->args[1] = UREG_ARG1_CORE(regs);
			r->args[2] = UREG_ARG2_CORE(regs);
			r->args[3] = UREG_ARG3_CORE(regs);
			/* The stack's mapping end caps the copy; unknown: faults do. */
			if (bpf_find_vma(task, r->sp, vma_end_cb, &vc, 0) || !vc.end)
				vc.end = r->sp + SNAP_MAX_USTACK;
			/* What uretprobes hid: in the copy, or in the rest user space may read. */
			r->nuret = uret_collect(task, r->uret, &r->uret_tramp);
			if (interp_any)
				is = interp_walk(task, pid, r->tid, 0, &ibytes);
			/* Padded (perl's strings): the next record stays 8-byte aligned. */
			ibytes = (ibytes + 7) & ~7ULL;
			if (!is || ibytes > sizeof(*is))
				ibytes = 0;
			/* What the object's 32 KiB leave; the header and kernel stack fit. */
			cap = SNAP_OBJECT_BYTES - sizeof(*r) - SNAP_MAX_KSTACK * 8 - ibytes;
			if (cap > SNAP_MAX_USTACK)
				cap = SNAP_MAX_USTACK;
			if (kbytes <= SNAP_MAX_KSTACK * 8)
				ubytes = copy_ustack(task, buf + sizeof(*r) + kbytes, r->sp, vc.end,
						     cap, &r->flags);
		}
	}
	/* Whole words (an sp is 8-aligned anyway): records stay 8-byte aligned. */
	ubytes &= ~7U;
	r->ustack_bytes = ubytes;
	r->interp_bytes = ibytes;
	len = sizeof(*r) + kbytes + ubytes;
	if (len > sizeof(*r) + SNAP_MAX_KSTACK * 8 + SNAP_MAX_USTACK)
		return 0;
	r->bytes = len + ibytes;
	n = bpf_seq_write(seq, buf, len);
	if (!n && is && ibytes)
		n = bpf_seq_write(seq, &is->ev, ibytes);
	if (n && n != -75 /* EOVERFLOW */)
		__sync_fetch_and_add(&write_errors, 1);
	return 0;
}
