/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Interpreter frames, kernel side, part of the capture program (capture.bpf.c).
 * interp_capture() runs on every event of a process user space marked as an
 * interpreter, walks the current thread's interpreter frames and sends them
 * as an interp_event just before the sample (see interp.h).
 */
#ifndef STITCH_INTERP_BPF_H
#define STITCH_INTERP_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "capture/samples.bpf.h"
#include "capture/stats.bpf.h"
#include "interp/interp_walk.bpf.h"

/*
 * A global function: the verifier checks it once on its own, instead of
 * once per path through the caller (which made loading take seconds).
 */
__noinline int interp_capture(__u32 tgid, __u32 tid, __u64 time_ns)
{
	struct interp_scratch *s;
	__u64 size = 0;

	s = interp_walk(bpf_get_current_task_btf(), tgid, tid, time_ns, &size);
	if (!s)
		return 0;
	if (bpf_ringbuf_output(&samples, &s->ev, size, BPF_RB_NO_WAKEUP)) {
		count(STAT_INTERP_LOST);
		return 1;
	}
	return 0;
}

#endif /* STITCH_INTERP_BPF_H */
