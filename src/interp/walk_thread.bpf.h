/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One thread's interpreter frames, walked into the per-CPU scratch's
 * interp_event: what the capture program sends before a sample
 * (capture_walk.bpf.h) and what the snapshot iterator writes after a thread's
 * record (snapshot.bpf.c, which reads other tasks: see interp_read()).
 */
#ifndef STITCH_INTERP_WALK_THREAD_BPF_H
#define STITCH_INTERP_WALK_THREAD_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "capture/user_regs.bpf.h"
#include "interp/walker_base.bpf.h"
/*
 * Each language's walker, src/interp/<name>/<name>.bpf.h, one per line of
 * languages.def (the Makefile writes the list: a macro cannot #include).
 * It defines interp_<name>_walk(), called below with the language's part
 * of the layout and the process's config.
 */
#include "interp_walkers.bpf.h"

/*
 * Move the strings a walker copied (s->str_used bytes) right after the
 * frames walked (strs follows ev in the scratch value, so this copies
 * downwards) and give the bytes to send.
 */
static __always_inline bool interp_pack_strings(struct interp_scratch *s, __u64 *size)
{
	__u32 n = s->ev.nframes, len = s->str_used;

	if (n > INTERP_MAX_FRAMES || len >= INTERP_STR_BYTES)
		return false;
	len &= INTERP_STR_BYTES - 1;
	if (len && bpf_probe_read_kernel((__u8 *)s->ev.frames + n * sizeof(struct interp_frame),
					 len, s->strs))
		return false;
	*size = INTERP_EVENT_HDR_BYTES + n * sizeof(struct interp_frame) + len;
	return true;
}

/*
 * Each language's walk out of line: a frame of its own, not one shared
 * frame as deep as the deepest of them under every walker's steps.
 */
#define INTERP_LANG(ID, name, member, ...)						\
static __noinline void interp_##name##_walk_out(struct task_struct *task,		\
						struct interp_scratch *s,		\
						const struct interp_proc_cfg *cfg,	\
						const struct interp_layout *layout,	\
						__u64 fs_base)				\
{											\
	interp_##name##_walk(task, &s->ev, s, cfg, &layout->member, fs_base);		\
}
#include "interp/languages.def"
#undef INTERP_LANG

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
	s->ev.hdr.type = RING_INTERP_WALK;
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
	fs_base = TASK_THREAD_POINTER(task);
	/* One "if (lang) walk; else" per line of languages.def, the last else: */
#define INTERP_LANG(ID, name, member, ...)						\
	if (cfg->lang == INTERP_##ID)							\
		interp_##name##_walk_out(task, s, cfg, layout, fs_base);		\
	else
#include "interp/languages.def"
#undef INTERP_LANG
		return NULL;
	if (!s->ev.nframes && !s->ev.flags)
		return NULL;
	*size = INTERP_EVENT_HDR_BYTES + (__u64)(s->ev.nframes & (2 * INTERP_MAX_FRAMES - 1)) *
		sizeof(struct interp_frame);
	if (*size > sizeof(s->ev))
		*size = sizeof(s->ev);
	/* The strings its frames point into (perl's) follow the frames walked. */
	if (s->str_used && !interp_pack_strings(s, size))
		return NULL;
	s->ev.hdr.size = *size;
	return s;
}

#endif /* STITCH_INTERP_WALK_THREAD_BPF_H */
