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
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "capture/samples.bpf.h"
#include "capture/stats.bpf.h"
#include "interp/interp_common.bpf.h"
#include "interp/perl/perl.bpf.h"
#include "interp/python/python.bpf.h"
#include "interp/ruby/ruby.bpf.h"

/*
 * A global function: the verifier checks it once on its own, instead of
 * once per path through the caller (which made loading take seconds).
 */
__noinline int interp_capture(__u32 tgid, __u32 tid, __u64 time_ns)
{
	struct task_struct *task = bpf_get_current_task_btf();
	const struct interp_proc_cfg *cfg = bpf_map_lookup_elem(&interp_procs, &tgid);
	const struct interp_layout *layout;
	struct interp_scratch *s;
	__u32 zero = 0, idx;
	__u64 size;

	if (!cfg)
		return 0;
	idx = cfg->layout;
	layout = bpf_map_lookup_elem(&interp_layouts, &idx);
	s = bpf_map_lookup_elem(&interp_scratch, &zero);
	if (!layout || !s || layout->lang != cfg->lang)
		return 0;
	s->ev.magic = INTERP_EVENT_MAGIC;
	s->ev.time_ns = time_ns;
	s->ev.pid = tgid;
	s->ev.tid = tid;
	s->ev.lang = cfg->lang;
	s->ev.nframes = 0;
	s->ev.flags = 0;
	s->str_used = 0;
	if (cfg->lang == INTERP_PYTHON)
		interp_python_walk(&s->ev, s, cfg, &layout->py, BPF_CORE_READ(task, thread.fsbase));
	else if (cfg->lang == INTERP_RUBY)
		interp_ruby_walk(&s->ev, s, cfg, &layout->rb, BPF_CORE_READ(task, thread.fsbase));
	else if (cfg->lang == INTERP_PERL)
		interp_perl_walk(&s->ev, s, cfg, &layout->pl, BPF_CORE_READ(task, thread.fsbase));
	else
		return 0;
	/* A thread with no interpreter state and nothing to report sends nothing. */
	if (!s->ev.nframes && !s->ev.flags)
		return 0;
	size = INTERP_EVENT_HDR_BYTES + (__u64)(s->ev.nframes & (2 * INTERP_MAX_FRAMES - 1)) *
	       sizeof(struct interp_frame);
	if (size > sizeof(s->ev))
		size = sizeof(s->ev);
	/* perl: the strings its frames point into follow the frames walked */
	if (cfg->lang == INTERP_PERL && !interp_perl_pack(s, &size))
		return 0;
	if (bpf_ringbuf_output(&samples, &s->ev, size, BPF_RB_NO_WAKEUP)) {
		count(STAT_INTERP_LOST);
		return 1;
	}
	return 0;
}

#endif /* STITCH_INTERP_BPF_H */
