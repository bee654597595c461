/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One thread's interpreter frames, walked into the per-CPU scratch's
 * interp_event: what the capture program sends before a sample
 * (interp.bpf.h) and what the snapshot iterator writes after a thread's
 * record (snapshot.bpf.c, which reads other tasks: see interp_read()).
 */
#ifndef STITCH_INTERP_WALK_BPF_H
#define STITCH_INTERP_WALK_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "interp/interp_common.bpf.h"
#include "interp/perl/perl.bpf.h"
#include "interp/python/python.bpf.h"
#include "interp/ruby/ruby.bpf.h"

/*
 * Walk thread tid of process tgid (task: that thread) if user space put
 * the process in interp_procs.  The scratch holding the event, *size the
 * bytes of it to send; NULL when there is nothing to send (no interpreter,
 * or a thread with no interpreter state and nothing to report).
 */
static __always_inline struct interp_scratch *interp_walk(struct task_struct *task, __u32 tgid,
							  __u32 tid, __u64 time_ns, __u64 *size)
{
	const struct interp_proc_cfg *cfg = bpf_map_lookup_elem(&interp_procs, &tgid);
	const struct interp_layout *layout;
	struct interp_scratch *s;
	__u32 zero = 0, idx;
	__u64 fs_base;

	if (!cfg)
		return NULL;
	idx = cfg->layout;
	layout = bpf_map_lookup_elem(&interp_layouts, &idx);
	s = bpf_map_lookup_elem(&interp_scratch, &zero);
	if (!layout || !s || layout->lang != cfg->lang)
		return NULL;
	s->ev.magic = INTERP_EVENT_MAGIC;
	s->ev.time_ns = time_ns;
	s->ev.pid = tgid;
	s->ev.tid = tid;
	s->ev.lang = cfg->lang;
	s->ev.nframes = 0;
	s->ev.flags = 0;
	s->ev.ihash = 0;
	s->str_used = 0;
	s->gen = cfg->gen;
	/* Never a window another walk read (test_python_forked_twins_never_mix). */
	s->win[0].len = 0;
	s->win[1].len = 0;
	fs_base = BPF_CORE_READ(task, thread.fsbase);
	if (cfg->lang == INTERP_PYTHON)
		interp_python_walk(task, &s->ev, s, cfg, &layout->py, fs_base);
	else if (cfg->lang == INTERP_RUBY)
		interp_ruby_walk(task, &s->ev, s, cfg, &layout->rb, fs_base);
	else if (cfg->lang == INTERP_PERL)
		interp_perl_walk(task, &s->ev, s, cfg, &layout->pl, fs_base);
	else
		return NULL;
	if (!s->ev.nframes && !s->ev.flags)
		return NULL;
	*size = INTERP_EVENT_HDR_BYTES + (__u64)(s->ev.nframes & (2 * INTERP_MAX_FRAMES - 1)) *
		sizeof(struct interp_frame);
	if (*size > sizeof(s->ev))
		*size = sizeof(s->ev);
	/* perl: the strings its frames point into follow the frames walked */
	if (cfg->lang == INTERP_PERL && !interp_perl_pack(s, size))
		return NULL;
	return s;
}

#endif /* STITCH_INTERP_WALK_BPF_H */
