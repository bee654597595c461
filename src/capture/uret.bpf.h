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
 * Task t's return instances whose slot lies in [lo, hi), innermost first,
 * up to STITCH_URET_MAX into out[]; how many, and *tramp, its trampoline.
 * Slots below sp belong to frames left by longjmp, which the kernel drops at
 * the next hijack.  out may be written up to STITCH_URET_MAX entries.
 */
static __always_inline __u32 uret_collect(struct task_struct *t, __u64 lo, __u64 hi,
					  struct stitch_uret *out, __u64 *tramp)
{
	struct return_instance *ri;
	__u64 slot;
	__u32 n = 0;
	int i;

	*tramp = uret_trampoline(t);
	if (!*tramp)
		return 0;
	ri = uret_first(t);
	for (i = 0; i < URET_LIST_MAX && ri && n < STITCH_URET_MAX; i++) {
		slot = BPF_CORE_READ(ri, stack);
		if (slot >= lo && slot < hi && hi - slot >= 8) {
			out[n].slot = slot;
			out[n].orig = BPF_CORE_READ(ri, orig_ret_vaddr);
			n++;
		}
		ri = BPF_CORE_READ(ri, next);
	}
	return n;
}

#endif /* STITCH_CAPTURE_URET_BPF_H */
