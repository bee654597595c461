/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The current thread's uretprobe return instances, read for both ways a
 * user stack is unwound (capture.bpf.c).  A uretprobe replaces the return
 * address of the function it probes, on the user stack, with the address of
 * its trampoline ([uprobes], uprobe_get_trampoline_vaddr()); the kernel keeps
 * what it replaced in current->utask->return_instances, newest (innermost)
 * first, each instance with the slot it hijacked (ri->stack: the sp at the
 * probed function's entry, where its return address lies) and what was there
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

#include "capture/capture.h"

/* Return instances looked at per stack (nested uretprobes): all sent (capture.h). */
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
 * After a copy of the current thread's user stack (e->ustack[e->ucopy_off,
 * e->ustack_bytes), from e->sp up): the return instances whose slot lies in
 * the copy, innermost first, up to STITCH_URET_MAX, appended 8-aligned
 * (sample_event.uret_off, nuret, uret_tramp).  Slots below sp belong to
 * frames left by longjmp, which the kernel drops at the next hijack.
 * Returns how many.  Global: verified once, not in every worker's copy.
 */
__noinline int uret_capture(struct sample_event *e)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct return_instance *ri;
	struct stitch_uret *u;
	__u64 tramp, lo, hi, slot;
	__u32 off, n = 0;
	int i;

	if (!e)
		return 0;
	e->nuret = 0;
	off = e->ustack_bytes;
	if (off <= e->ucopy_off || off > STITCH_USTACK_ROOM + STITCH_MAX_USTACK)
		return 0;
	lo = e->sp;
	hi = e->sp + (off - e->ucopy_off);
	tramp = uret_trampoline(t);
	if (!tramp)
		return 0;
	off = (off + 7) & ~7u;
	if (off > STITCH_USTACK_ROOM + STITCH_MAX_USTACK)
		return 0;
	ri = uret_first(t);
	for (i = 0; i < URET_LIST_MAX && ri && n < STITCH_URET_MAX; i++) {
		slot = BPF_CORE_READ(ri, stack);
		if (slot >= lo && slot < hi && hi - slot >= 8) {
			/* Within ustack's page of slack past the largest copy. */
			u = (struct stitch_uret *)(e->ustack + off + n * sizeof(*u));
			u->slot = slot;
			u->orig = BPF_CORE_READ(ri, orig_ret_vaddr);
			n++;
		}
		ri = BPF_CORE_READ(ri, next);
	}
	if (!n)
		return 0;
	e->uret_tramp = tramp;
	e->uret_off = off;
	e->nuret = n;
	e->ustack_bytes = off + n * sizeof(*u);
	return n;
}

#endif /* STITCH_CAPTURE_URET_BPF_H */
