// SPDX-License-Identifier: GPL-2.0
/*
 * A probe of kernel/features.c: does a program on a syscall tracepoint get a
 * kernel stack?  The kernel hands such programs the registers of its
 * tracepoint call on 6.12, but the user's on 6.1, where every stack comes
 * back without a kernel frame.  Attached to sys_enter_getppid for one call
 * of ours; the answer is how many bytes of stack bpf_get_stack gave.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

const volatile __u32 probe_tid;	/* the thread that calls getppid() */
long probe_bytes = -1;

SEC("tracepoint/syscalls/sys_enter_getppid")
int syscall_stack_probe(void *ctx)
{
	__u64 stack[8];

	if ((__u32)bpf_get_current_pid_tgid() != probe_tid)
		return 0;
	probe_bytes = bpf_get_stack(ctx, stack, sizeof(stack), 0);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
