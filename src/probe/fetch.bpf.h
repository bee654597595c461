/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The capture program's part of --fetch (probe/fetch.h): at a probe whose
 * address has fetches, their steps run on the registers the probe saved
 * and on bounded reads of the thread's memory, and their values go to the
 * ring just before the event's sample, which user space joins them to.
 * Such an event is always sent, never counted in the kernel: its values
 * are part of what it is.  A read that faults is a fault for that value,
 * not for the event.
 */
#ifndef STITCH_PROBE_FETCH_BPF_H
#define STITCH_PROBE_FETCH_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "capture/busy.bpf.h"
#include "capture/samples.bpf.h"
#include "capture/stats.bpf.h"
#include "probe/fetch_eval.bpf.h"
#include "probe/fetch.h"

/* Each probe address's fetches, by the site number its attachment's cookie carries. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FETCH_MAX_SITES);
	__type(key, __u32);
	__type(value, struct fetch_steps);
} fetch_progs SEC(".maps");

/* The site of the uprobe this CPU is capturing, + 1 (0: none): set around capture(). */
__u32 fetch_site_now[CAPTURE_MAX_CPUS];

/*
 * Whether any event has fetches: without them the verifier, which knows
 * this constant, never walks the evaluator.  It was 158,000 of the 243,000
 * instructions it processed to load the native worker for CPU samples
 * (6.18): 0.74 s of this machine's, 8 s of 6.1's under emulation, for
 * every record.
 */
const volatile bool fetch_wanted;

static __always_inline __u32 *fetch_site_here(void)
{
	return &fetch_site_now[bpf_get_smp_processor_id() & (CAPTURE_MAX_CPUS - 1)];
}

/* The fetches of the event being captured here, or NULL. */
static __always_inline struct fetch_steps *fetch_prog_now(void)
{
	__u32 site;

	if (!fetch_wanted)
		return NULL;
	site = *fetch_site_here();
	if (!site)
		return NULL;
	site--;
	return bpf_map_lookup_elem(&fetch_progs, &site);
}

/* The values of p at this event, into the ring before its sample. */
static __noinline void fetch_send(void *ctx, struct pt_regs *regs, struct fetch_steps *p,
				  __u32 tid, __u64 time_ns)
{
	struct fetch_values *v;
	__u32 i, site = *fetch_site_here() - 1;

	v = bpf_ringbuf_reserve(&samples, sizeof(*v), 0);
	if (!v) {
		count(STAT_RINGBUF_LOST);
		return;
	}
	v->hdr.type = RING_FETCH_VALUES;
	v->hdr.size = sizeof(*v);
	v->tid = tid;
	v->site = site;
	v->time_ns = time_ns;
	for (i = 0; i < FETCH_MAX_VARS; i++) {
		v->value[i] = 0;
		v->str[i][0] = '\0';
		v->status[i] = i < p->nvars ? fetch_one(ctx, regs, p, v, i) :
			       FETCH_VALUE_OPTIMIZED_OUT;
	}
	/* The sample right after it decides whether the reader is woken. */
	bpf_ringbuf_submit(v, BPF_RB_NO_WAKEUP);
}

#endif /* STITCH_PROBE_FETCH_BPF_H */
