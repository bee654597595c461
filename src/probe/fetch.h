/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Variables read at a probe (record --fetch): what user space compiles
 * from DWARF for each address a probe goes to (fetch_compile.c), or from
 * a tracepoint's format for its fields (fetch_tp.c), what the
 * capture program runs there (fetch.bpf.h), and the record it sends before
 * the event's sample.  A fetch is a few steps from a register, an address
 * in the binary or a constant, through offsets and loads of the traced
 * thread's memory, to a number or a string.  Includable from BPF C and
 * from user space.
 */
#ifndef STITCH_PROBE_FETCH_H
#define STITCH_PROBE_FETCH_H

#ifndef __bpf__
#include <linux/types.h>
#endif

#include "capture/ring_record.h"

#define FETCH_MAX_VARS 8	/* --fetch per event */
#define FETCH_MAX_STEPS 12	/* steps of one: r->in->name[2] is 6 */
#define FETCH_STR_MAX 64	/* a string's bytes, its NUL included */
#define FETCH_MAX_SITES 1024	/* addresses of probes with fetches */

enum fetch_step_kind {
	FETCH_STEP_END,
	FETCH_STEP_REG,		/* x = DWARF's register number arg, as the probe saved it */
	FETCH_STEP_CONST,		/* x = imm */
	FETCH_STEP_ADD,		/* x += imm */
	FETCH_STEP_BIAS,		/* x += where the binary is loaded (the probe's pc - its vaddr) */
	FETCH_STEP_LOAD,		/* x = the arg (1, 2, 4, 8) bytes of user memory at x */
	FETCH_STEP_STR,		/* the string at x, up to FETCH_STR_MAX - 1 bytes */
	FETCH_STEP_OPTOUT,	/* the variable is not there: <optimized out> */
	FETCH_STEP_SYSARG,	/* x = the system call's argument number arg */
	FETCH_STEP_CTX,		/* x = the arg bytes of the tracepoint's record at imm */
	FETCH_STEP_CTX_STR,	/* the string in the record at imm (a char array) */
	FETCH_STEP_DATA_LOC_STR,/* the string in the record at (x & 0xffff): a __data_loc's */
	FETCH_STEP_KSTR,	/* the kernel's string at x, up to FETCH_STR_MAX - 1 bytes */
	/* A kprobe's: the kernel function's arguments, and pointers either side holds */
	FETCH_STEP_KARG,	/* x = the probed function's argument number arg */
	FETCH_STEP_LOAD_ANY,	/* LOAD, from the thread's memory or the kernel's by x */
	FETCH_STEP_STR_ANY,	/* STR, from the thread's memory or the kernel's by x */
	FETCH_STEP_KREG,	/* x = DWARF's register arg of the kprobe's own (the kernel's) */
};

struct fetch_step {
	__u8 kind;		/* enum fetch_step_kind */
	__u8 pad;
	__u16 arg;		/* FETCH_STEP_REG: DWARF's number; FETCH_STEP_LOAD: size */
	__u32 pad2;
	__s64 imm;
};

/* One address's fetches, in --fetch order. */
struct fetch_steps {
	__u64 vaddr;		/* the probe's address in the binary (FETCH_STEP_BIAS) */
	__u32 nvars;
	__u32 pad;
	struct fetch_step steps[FETCH_MAX_VARS][FETCH_MAX_STEPS];
};

enum fetch_value_status {
	FETCH_VALUE_OK,
	FETCH_VALUE_FAULT,		/* a load failed: the address was not mapped */
	FETCH_VALUE_OPTIMIZED_OUT,
	FETCH_VALUE_STR,		/* the value is str[i] */
};

/* Sent just before the event's sample (same thread, same time). */
struct fetch_values {
	struct ring_record_header hdr;	/* RING_FETCH_VALUES */
	__u32 tid;
	__u32 site;
	__u64 time_ns;
	__u8 status[FETCH_MAX_VARS];
	__u64 value[FETCH_MAX_VARS];
	char str[FETCH_MAX_VARS][FETCH_STR_MAX];
};

#endif /* STITCH_PROBE_FETCH_H */
