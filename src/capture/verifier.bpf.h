/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bounds the verifier must see for itself.  clang drops a test it can prove
 * from earlier ones, merges two tests of a value into one of an expression
 * (lo <= v && v <= hi becomes v - lo <= hi - lo), and reloads a value from
 * the stack; verifiers before 6.8 learn no bound from a comparison of two
 * unknowns nor carry one back through such an expression or a reload
 * (Debian 12's 6.1 refused the unwinder and the walkers over each of these).
 * A bound made here is tested on the very register that is used after it.
 */
#ifndef STITCH_CAPTURE_VERIFIER_BPF_H
#define STITCH_CAPTURE_VERIFIER_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

/* v, known to C to be at most max, at most max for the verifier too. */
static __always_inline __u64 verifier_at_most(__u64 v, __u64 max)
{
	barrier_var(v);
	if (v > max)
		v = max;
	return v;
}

#endif /* STITCH_CAPTURE_VERIFIER_BPF_H */
