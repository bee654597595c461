// SPDX-License-Identifier: GPL-2.0
/*
 * The interpreter walk of capture.bpf.c's legacy workers, on kernels without
 * bpf_loop (Debian 11's 5.10): the walkers of src/interp/ compiled with their
 * steps in bounded loops (INTERP_WALK_BOUNDED, walker_base.bpf.h), which the
 * verifier checks step by step, so 32 steps a walk (a deeper one is marked
 * truncated).  A program per type the workers have, tail-called by one with
 * its sample built in the CPU's slot: the walk goes out first, then the
 * sample, as the capture program sends them.  Loaded by user space once an
 * interpreter is seen (record/walkers.c); its maps are the capture
 * program's, by fd.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#define INTERP_WALK_BOUNDED
#include "capture/capture.h"
#include "capture/alloc_pending.bpf.h"	/* an allocation's bytes, sent after its sample */
#include "capture/samples.bpf.h"	/* scratch: where the sample waits */
#include "capture/stats.bpf.h"
#include "capture/verifier.bpf.h"
#include "interp/walk_thread.bpf.h"

static __always_inline int walk_then_send(void)
{
	__u64 id = bpf_get_current_pid_tgid(), size = 0;
	struct alloc_pended a;
	__u32 cpu = bpf_get_smp_processor_id();
	struct sample_event *e = bpf_map_lookup_elem(&scratch, &cpu);
	struct interp_scratch *s;

	if (!e)
		return 0;
	/* A task pointer for the walkers' signatures: they read the current thread's memory. */
	s = interp_walk((struct task_struct *)bpf_get_current_task(), id >> 32, (__u32)id,
			e->time_ns, &size);
	if (s && size >= INTERP_EVENT_HDR_BYTES && size <= sizeof(*s)) {
		size = verifier_at_most(size, sizeof(*s));
		s->ev.ihash = 0;
		if (bpf_ringbuf_output(&samples, &s->ev, size, BPF_RB_NO_WAKEUP)) {
			count(STAT_INTERP_LOST);
			e->flags |= STITCH_SAMPLE_INTERP_LOST;
		}
	}
	if (sample_send(e)) {
		count(STAT_RINGBUF_LOST);
		alloc_take(&a);
		return 0;
	}
	/* Only an allocation's sample waits for its weight here (capture.bpf.c's alloc_entry). */
	if ((e->flags & STITCH_SAMPLE_WEIGHT_LATER) && alloc_take(&a))
		alloc_send_weight((__u32)id, &a);
	return 0;
}

SEC("perf_event")
int legacy_walk_perf_event(void *ctx)
{
	return walk_then_send();
}

SEC("tracepoint")
int legacy_walk_tracepoint(void *ctx)
{
	return walk_then_send();
}

SEC("kprobe")
int legacy_walk_kprobe(void *ctx)
{
	return walk_then_send();
}

SEC("raw_tp")
int legacy_walk_raw_tp(void *ctx)
{
	return walk_then_send();
}

char LICENSE[] SEC("license") = "GPL";
