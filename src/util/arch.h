/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The architecture stitch is built for, as user space needs to name it:
 * the ELF machine of the binaries it unwinds (those of another are named,
 * not unwound), Debian's multiarch directory, and the kernel's names for
 * its system call entry, which frames and waits are told apart by.
 * (The BPF side has capture/user_regs.bpf.h; the unwind tables
 * unwind/unwind_table.h.)
 */
#ifndef STITCH_UTIL_ARCH_H
#define STITCH_UTIL_ARCH_H

#include <elf.h>
#include <stdbool.h>
#include <string.h>

#if defined(__aarch64__)
#define STITCH_ARCH_NAME "arm64"
#define STITCH_ELF_MACHINE EM_AARCH64
#define STITCH_MULTIARCH "aarch64-linux-gnu"
/*
 * A system call enters at el0t_64_sync, then el0t_64_sync_handler,
 * el0_svc, do_el0_svc, el0_svc_common, invoke_syscall and the call's
 * __arm64_sys_NAME wrapper.
 */
#define STITCH_KSYSCALL_ENTRY { "el0t_64_sync", "el0_svc", "do_el0_svc", "invoke_syscall" }
#define STITCH_KSYSCALL_WRAPPER "__arm64_sys_"
/* Interrupts: the vectors (el1h_64_irq, el0t_64_irq, ...) and the irq stack. */
#define STITCH_KIRQ_ENTRY { "el1h_64_irq", "el0t_64_irq", "call_on_irq_stack" }
#elif defined(__x86_64__)
#define STITCH_ARCH_NAME "x86-64"
#define STITCH_ELF_MACHINE EM_X86_64
#define STITCH_MULTIARCH "x86_64-linux-gnu"
/* A system call enters at entry_SYSCALL_64, then do_syscall_64 (x64_sys_call on 6.9+). */
#define STITCH_KSYSCALL_ENTRY { "entry_SYSCALL_64", "do_syscall_64", "x64_sys_call" }
#define STITCH_KSYSCALL_WRAPPER "__x64_sys_"
/* x86-64 enters interrupts through asm_* stubs (asm_sysvec_*, asm_common_interrupt). */
#define STITCH_KIRQ_ENTRY { "asm_" }
#else
#error "stitch is built for x86-64 or arm64"
#endif

static inline bool stitch_name_starts_any(const char *name, const char *const *prefixes,
					  unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/* A kernel frame of the system call entry (what a thread in a call has below it). */
static inline bool stitch_kframe_syscall_entry(const char *name)
{
	static const char *const entry[] = STITCH_KSYSCALL_ENTRY;

	return stitch_name_starts_any(name, entry, sizeof(entry) / sizeof(entry[0]));
}

/* A kernel frame of an interrupt's entry. */
static inline bool stitch_kframe_irq_entry(const char *name)
{
	static const char *const entry[] = STITCH_KIRQ_ENTRY;

	return stitch_name_starts_any(name, entry, sizeof(entry) / sizeof(entry[0]));
}

/* The other architecture's name, for a binary of that machine: NULL if neither. */
static inline const char *stitch_machine_name(int machine)
{
	switch (machine) {
	case EM_X86_64:
		return "x86-64";
	case EM_AARCH64:
		return "arm64";
	case EM_386:
		return "i386";
	case EM_ARM:
		return "arm";
	case EM_RISCV:
		return "riscv";
	default:
		return NULL;
	}
}

#endif /* STITCH_UTIL_ARCH_H */
