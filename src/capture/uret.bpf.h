/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A thread's uretprobe return instances, read for every way a user stack
 * is unwound: the in-kernel walk (unwind_in_kernel.bpf.h), and the copies
 * that go to user space (capture.bpf.c, snapshot.bpf.c; capture/uret.h).
 * A uretprobe replaces the return address of the function it probes, on the
 * user stack, with the address of its trampoline ([uprobes],
 * uprobe_get_trampoline_vaddr()); the kernel keeps what it replaced in
 * task->utask->return_instances, newest (innermost) first, each instance
 * with the slot it hijacked (ri->stack: the sp at the probed function's
 * entry, where its return address lies) and what was there
 * (ri->orig_ret_vaddr).  A tail call's instance ("chained") has the same slot
 * and already holds the real address, so the first instance of a slot is the
 * one that counts.  Fields by CO-RE from the kernel's BTF (this machine's
 * 6.18: struct return_instance { hprobe; func; stack; orig_ret_vaddr;
 * chained; ...; next; ... }, checked in build/vmlinux.h).
 *
 * Probe reads, not plain loads through the trusted task pointer: the
 * verifier checks each pointer loaded that way with searches by name
 * through the kernel's BTF (btf_nested_type_is_trusted), ~1 ms each here.
 */
#ifndef STITCH_CAPTURE_URET_BPF_H
#define STITCH_CAPTURE_URET_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "capture/uret.h"

/* Return instances looked at per stack (nested uretprobes): all sent (uret.h). */
#define URET_LIST_MAX STITCH_URET_MAX

/* The process's uretprobe trampoline, or 0 if it has none (no uretprobe ever hit). */
static __always_inline __u64 uret_trampoline(struct task_struct *t)
{
	struct xol_area *area = BPF_CORE_READ(t, mm, uprobes_state.xol_area);

	return area ? BPF_CORE_READ(area, vaddr) : 0;
}

static __always_inline struct return_instance *uret_first(struct task_struct *t)
{
	return BPF_CORE_READ(t, utask, return_instances);
}

/*
 * Task t's first STITCH_URET_MAX return instances, innermost first, into
 * out[]: how many, and *tramp, its trampoline.  All of them, those the
 * in-kernel walk looks through, whether their slot lies in the copy or not:
 * the unwinder matches slots it reads (at or above sp), so one below it (a
 * frame left by longjmp, dropped by the kernel at the next hijack) or past
 * the copy is never used.  No test of the slot here: with one, the count
 * differed from path to path and the verifier walked each (capture_perf_event
 * verified 79,424 instructions instead of 21,360; without it, 22,134).
 */
static __always_inline __u32 uret_collect(struct task_struct *t, struct stitch_uret *out,
					  __u64 *tramp)
{
	struct return_instance *ri;
	__u32 i;

	*tramp = uret_trampoline(t);
	if (!*tramp)
		return 0;
	ri = uret_first(t);
	for (i = 0; i < STITCH_URET_MAX; i++) {
		if (!ri)
			break;
		out[i].slot = BPF_CORE_READ(ri, stack);
		out[i].orig = BPF_CORE_READ(ri, orig_ret_vaddr);
		ri = BPF_CORE_READ(ri, next);
	}
	return i;
}

#endif /* STITCH_CAPTURE_URET_BPF_H */
