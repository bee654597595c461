/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Return addresses a uretprobe hid under its trampoline in a copied user
 * stack, sent with the copy (capture.h's sample_event, snapshot.h's
 * snap_record; read by capture/uret.bpf.h) for the user-space unwinder to put
 * back (unwind/uret.h): the innermost ones, as many as the in-kernel walk
 * looks through, so both reach equally far up a stack of nested probed
 * calls (stitch latency's root and its children; bpftrace on a recursive
 * function).  The unwinder stops at a trampoline it has no address for.
 * Includable from BPF C and from user space.
 */
#ifndef STITCH_CAPTURE_URET_H
#define STITCH_CAPTURE_URET_H

#ifndef __bpf__
#include <linux/types.h>
#endif

#define STITCH_URET_MAX 16

struct stitch_uret {
	__u64 slot;		/* stack address the trampoline's address was written to */
	__u64 orig;		/* the return address that was there */
};

#endif /* STITCH_CAPTURE_URET_H */
