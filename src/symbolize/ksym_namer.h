/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel addresses named by the kernel itself: a small BPF program formats
 * them with bpf_snprintf("%pS" / "%pB"), which use the kernel's own symbol
 * tables.  Reading /proc/kallsyms instead costs ~40 ms of kernel time for
 * every record (122k lines generated and parsed), while a profile needs a
 * few hundred addresses; the kernel also knows each symbol's size (so an
 * address past a function's end is never named after it), module, and the
 * BPF programs loaded right now.
 */
#ifndef STITCH_KSYM_NAMER_H
#define STITCH_KSYM_NAMER_H

/* Shared with ksym_namer.bpf.c: one batch of addresses, named in place. */
#define KSYM_BATCH 128		/* a power of two */
#define KSYM_TEXT_LEN 256	/* "name+0xoff/0xsize [module]" */

struct ksym_batch {
	unsigned int n;
	unsigned char exact[KSYM_BATCH];	/* 0: a return address (%pB) */
	unsigned long long addrs[KSYM_BATCH];
	char text[KSYM_BATCH][KSYM_TEXT_LEN];
};

#ifndef __bpf__
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

struct ksym_namer;

/* NULL (errno set) when the kernel cannot run the program: use kallsyms. */
struct ksym_namer *ksym_namer_open(void);
void ksym_namer_close(struct ksym_namer *kn);

/*
 * Name n <= KSYM_BATCH addresses.  exact[i]: addrs[i] is the address of an instruction
 * (an interrupted pc) rather than a return address, which is named after
 * the call before it.  For each, name[i] and module[i] point into
 * storage owned by kn until the next call ("" and NULL when the kernel
 * knows no symbol there).  0, or a negative errno.
 */
int ksym_namer_name(struct ksym_namer *kn, const uint64_t *addrs, const bool *exact, size_t n,
		    const char **name, const char **module);

/*
 * Parse the kernel's "name+0xoff/0xsize [module]" text: name and module
 * copied (NUL-terminated) into the buffers; false when it names nothing
 * (the kernel prints the bare address then).  For unit tests.
 */
bool ksym_parse_text(const char *text, char *name, size_t name_len, char *module,
		     size_t module_len);
#endif

#endif /* STITCH_KSYM_NAMER_H */
