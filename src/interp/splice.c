// SPDX-License-Identifier: GPL-2.0
/*
 * Splicing interpreter frames into the native stack, for any language: the
 * language names the frames and says where groups end (struct interp_ops).
 *
 * An interpreter runs several of its frames in one call of its loop (CPython
 * 3.11: _PyEval_EvalFrameDefault): the walk, innermost first, is cut into
 * groups, one per loop call (by default each ending at an entry frame, the
 * first frame of one eval call).  The i-th native eval
 * frame, counting from the innermost, is replaced by the i-th group; every
 * other native frame (builtins, C extensions, the C glue that calls back
 * into Python) stays where it is.  When both walks are complete and the
 * counts differ (a sample inside an eval call's prologue or epilogue), the
 * stack keeps its native frames and gets a marker: never a guess.  When the
 * native unwind stopped early, the groups it did not reach go outside its
 * end marker, still in order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/interp_internal.h"
#include "profile/profile.h"

/* The pending slot of thread tid. */
static size_t slot(uint32_t tid)
{
	return tid % INTERP_PENDING_SLOTS;
}

size_t interp_event_frames_bytes(const void *data, size_t size)
{
	const struct interp_event *ev = data;
	size_t hdr;

	if (size < INTERP_EVENT_HDR_BYTES || ev->nframes > INTERP_MAX_FRAMES)
		return 0;
	hdr = INTERP_EVENT_HDR_BYTES + ev->nframes * sizeof(struct interp_frame);
	return size < hdr ? 0 : hdr;
}

void interp_stash(struct interp_state *st, const void *data, size_t size)
{
	const struct interp_event *ev = data;
	const struct interp_ops *ops;
	size_t hdr = interp_event_frames_bytes(data, size);

	if (!hdr)
		return;
	memcpy(&st->pending[slot(ev->tid)], data, hdr);
	/* Walks with strings (perl): those its frames point into follow the frames. */
	ops = interp_ops_for_lang(ev->lang);
	st->pending_str_len[slot(ev->tid)] = 0;
	if (ops && ops->walk_strings && size > hdr && size - hdr <= INTERP_STR_BYTES) {
		memcpy(st->pending_strs + slot(ev->tid) * INTERP_STR_BYTES,
		       (const uint8_t *)data + hdr, size - hdr);
		st->pending_str_len[slot(ev->tid)] = size - hdr;
	}
}

void interp_loop_of(const struct interp_proc *ip, struct interp_loop *loop)
{
	loop->bin = ip->eval_bin;
	loop->start = ip->eval_start;
	loop->end = ip->eval_end;
	loop->part_start = ip->eval_part_start;
	loop->part_end = ip->eval_part_end;
	loop->lang_name = ip->ver ? ip->ver->lang_name : "interpreter";
	loop->entry_outside_loop = ip->ops->entry_outside_loop;
}

static bool is_eval_frame(const struct interp_loop *ip, const struct uframe *u)
{
	uint64_t a;

	if (u->kind != UFRAME_ELF || u->bin != ip->bin)
		return false;
	a = u->exact ? u->addr : u->addr - 1;	/* a return address is past the call */
	return (a >= ip->start && a < ip->end) || (a >= ip->part_start && a < ip->part_end);
}

static int put_name(struct uframe *out, int n, int cap, const struct interp_name *name)
{
	if (n >= cap || !name)
		return n;
	memset(&out[n], 0, sizeof(out[n]));
	out[n].kind = UFRAME_INTERP;
	out[n].addr = (uintptr_t)name;
	return n + 1;
}

/*
 * Cut the walk into groups, each ending at an entry frame (the first frame
 * of one interpreter loop call), naming each frame with the language's
 * name_frame.
 */
static void entry_groups(struct interp_state *st, struct interp_proc *ip,
			 const struct proc *proc, const struct interp_event *ev, struct groups *g)
{
	int i;

	g->n = g->ng = 0;
	g->start[0] = 0;
	for (i = 0; i < ev->nframes; i++) {
		const struct interp_frame *f = &ev->frames[i];

		g->func_addr[g->n] = 0;
		g->func_bin[g->n] = NULL;
		g->func_required[g->n] = false;
		ip->ops->name_frame(st, ip, proc, f, g);
		if (f->flags & INTERP_FRAME_ENTRY)
			g->start[++g->ng] = g->n;
	}
	g->last_partial = false;
	if (g->n > g->start[g->ng] || (ev->nframes && !(ev->frames[ev->nframes - 1].flags &
							   INTERP_FRAME_ENTRY))) {
		g->start[++g->ng] = g->n;
		g->last_partial = true;
	}
	if (ev->flags & (INTERP_EV_TRUNCATED | INTERP_EV_FAULT | INTERP_EV_CORRUPT))
		g->last_partial = true;
}

static int put_uf(struct uframe *out, int n, int cap, const struct uframe *u)
{
	if (n < cap)
		out[n++] = *u;
	return n;
}

/*
 * Emit group k outermost first.  A Ruby C method goes just before the
 * native frame of its own C function (found by the function's CFI entry)
 * in seg[0..nseg) (outermost first), so the VM's call machinery stays
 * outside it; *anchor gets, per C method, the segment index it goes before
 * (-1: right after the group's Ruby frames, when its function is not seen).
 */
static int emit_group(const struct groups *g, int k,
		      const struct uframe *seg, int nseg, int *anchor,
		      struct uframe *out, int n, int cap)
{
	int j, from = 0, s, last = -1;

	for (j = g->start[k + 1] - 1; j >= g->start[k]; j--) {
		anchor[j] = -1;
		if (!g->func_addr[j]) {
			n = put_name(out, n, cap, g->names[j]);
			continue;
		}
		for (s = from; s < nseg; s++) {
			const struct uframe *u = &seg[s];

			if (u->kind == UFRAME_ELF && u->bin == g->func_bin[j] &&
			    binary_func_start(u->bin, u->exact ? u->addr : u->addr - 1) ==
			    g->func_addr[j]) {
				anchor[j] = last = s;
				from = s + 1;
				break;
			}
		}
		/* Not seen: keep the order, just after what came before it. */
		if (anchor[j] < 0 && g->func_required[j])
			continue;	/* its frame may not be whole: left out */
		if (anchor[j] < 0 && last >= 0)
			anchor[j] = last;
		else if (anchor[j] < 0)
			n = put_name(out, n, cap, g->names[j]);
	}
	return n;
}

/*
 * Splice the groups over the eval frames; builds the stack outermost first,
 * then flips it.  The innermost skip_groups groups and skip_evals eval
 * frames take no part (interp_splice): such a frame stays native.
 */
static int stitch_groups(struct interp_state *st, const struct interp_loop *ip,
			 const struct groups *g, int skip_groups, int skip_evals,
			 const struct uframe *uf, int nu, struct uframe *out, int cap,
			 bool native_complete)
{
	int evpos[INTERP_MAX_FRAMES + 2], neval = 0, n = 0, i, j, k, seen = 0;
	int ng = g->ng - skip_groups;
	int *anchor = calloc(INTERP_MAX_FRAMES, sizeof(int));
	struct uframe *seg = malloc((nu + 1) * sizeof(*seg));
	const struct interp_name *trunc = interp_intern(st, FRAME_MARK, "[truncated]", NULL, 0);

	if (!anchor || !seg) {
		free(anchor);
		free(seg);
		memcpy(out, uf, (nu < cap ? nu : cap) * sizeof(*out));
		return nu < cap ? nu : cap;
	}
	for (i = 0; i < nu && neval < INTERP_MAX_FRAMES; i++)
		if (is_eval_frame(ip, &uf[i]) && seen++ >= skip_evals)
			evpos[neval++] = i;
	/*
	 * The native unwind stopped early (its last frame is a marker): the
	 * groups it did not reach all run outside that point, in this order.
	 */
	for (k = ng - 1; k >= neval && !native_complete; k--) {
		if (k == ng - 1 && g->last_partial)
			n = put_name(out, n, cap, trunc);
		for (j = g->start[k + skip_groups + 1] - 1; j >= g->start[k + skip_groups]; j--)
			if (!g->func_required[j])
				n = put_name(out, n, cap, g->names[j]);
	}
	k = neval < ng ? neval : ng;	/* groups matched to eval frames */
	for (i = nu - 1; i >= 0; i--) {
		int e, nseg, gi = -1, s;

		for (e = 0; e < k; e++)
			if (evpos[e] == i)
				gi = e;
		if (gi < 0) {
			n = put_uf(out, n, cap, &uf[i]);
			continue;
		}
		if (gi == ng - 1 && g->last_partial)
			n = put_name(out, n, cap, trunc);
		/* The natives this group's C methods may call, outermost first. */
		for (nseg = 0, s = i - 1; s >= (gi ? evpos[gi - 1] + 1 : 0); s--)
			seg[nseg++] = uf[s];
		n = emit_group(g, gi + skip_groups, seg, nseg, anchor, out, n, cap);
		/* Then those natives, each after the C methods anchored to it. */
		for (s = 0; s < nseg; s++) {
			for (j = g->start[gi + skip_groups + 1] - 1;
			     j >= g->start[gi + skip_groups]; j--)
				if (g->func_addr[j] && anchor[j] == s)
					n = put_name(out, n, cap, g->names[j]);
			n = put_uf(out, n, cap, &seg[s]);
		}
		i -= nseg;
	}
	/* Innermost first, like the rest of the pipeline. */
	for (i = 0; i < n / 2; i++) {
		struct uframe t = out[i];

		out[i] = out[n - 1 - i];
		out[n - 1 - i] = t;
	}
	free(anchor);
	free(seg);
	return n;
}

int interp_mark_lost(struct interp_state *st, const struct interp_loop *loop, struct uframe *uf,
		     int nu, int cap)
{
	int i;

	if (nu >= cap)
		return nu;
	for (i = 0; i < nu; i++) {
		if (is_eval_frame(loop, &uf[i])) {
			memmove(&uf[i + 1], &uf[i], (nu - i) * sizeof(*uf));
			put_name(uf, i, cap, interp_intern(st, FRAME_MARK,
							   "[interpreter frames lost]", NULL, 0));
			return nu + 1;
		}
	}
	return nu;
}

void interp_groups_of(struct interp_state *st, struct interp_proc *ip, const struct proc *proc,
		      const struct interp_event *ev, const uint8_t *strs, size_t str_len,
		      struct groups *g)
{
	if (ev->flags & (INTERP_EV_FAULT | INTERP_EV_CORRUPT | INTERP_EV_BAD_KEY))
		st->walk_errors++;
	memset(g->func_required, 0, sizeof(g->func_required));
	if (ip->ops->groups)
		ip->ops->groups(st, ip, ev, strs, str_len, g);
	else
		entry_groups(st, ip, proc, ev, g);
}

int interp_splice(struct interp_state *st, const struct interp_loop *loop, const struct groups *g,
		  struct uframe *uf, int nu, int cap, bool native_complete)
{
	struct uframe *out = malloc(cap * sizeof(*out));
	int i, n = 0, neval = 0, skip_groups = 0, skip_evals = 0;

	if (!out)
		return nu;
	for (i = 0; i < nu; i++)
		neval += is_eval_frame(loop, &uf[i]);
	/*
	 * A language whose entry frame is pushed before its loop is called
	 * and popped before the call returns (Ruby: VM_FRAME_FLAG_FINISH) has
	 * two windows where the counts differ by one, both innermost: an
	 * entry frame pushed, its loop not called yet (a group of that one
	 * frame more), and an entry frame popped, its loop not returned yet
	 * (an eval frame more).  Paired from the outside, every other group
	 * is on its own eval frame; the one in between is left out (the frame
	 * runs no code yet, or no longer), the eval frame stays native.
	 */
	if (native_complete && !g->last_partial && loop->entry_outside_loop) {
		if (g->ng == neval + 1 && g->ng >= 2 && g->start[1] <= 1)
			skip_groups = 1;
		else if (neval == g->ng + 1)
			skip_evals = 1;
		st->in_transition += skip_groups + skip_evals;
	}
	if (native_complete && !g->last_partial && g->ng - skip_groups != neval - skip_evals) {
		/* Both walks complete, counts differ: keep native, say so. */
		st->unstitched++;
		for (i = 0; i < nu; i++) {
			if (is_eval_frame(loop, &uf[i]) && neval >= 0) {
				char mark[64];

				snprintf(mark, sizeof(mark), "[%s frames not stitched]",
					 loop->lang_name);
				n = put_name(out, n, cap,
					     interp_intern(st, FRAME_MARK, mark, NULL, 0));
				neval = -1;
			}
			if (n < cap)
				out[n++] = uf[i];
		}
	} else {
		n = stitch_groups(st, loop, g, skip_groups, skip_evals, uf, nu, out, cap,
				  native_complete);
	}
	memcpy(uf, out, n * sizeof(*uf));
	free(out);
	return n;
}

/* The walk kept for (tid, time_ns), named into st->named_g once; NULL: none to splice. */
static const struct groups *named_walk(struct interp_state *st, struct proc *proc, uint32_t tid,
				       uint64_t time_ns)
{
	struct interp_event *ev = &st->pending[slot(tid)];
	struct interp_proc *ip;

	if (st->named && st->named_tid == tid && st->named_time_ns == time_ns)
		return st->named_g;
	if (!proc || ev->hdr.type != RING_INTERP_WALK || ev->tid != tid || ev->time_ns != time_ns)
		return NULL;
	ev->hdr.type = RING_RECORD_NONE;	/* used */
	ip = interp_proc_find(st, proc->pid);
	if (!ip || !ip->ver || ev->lang != ip->ver->lang)
		return NULL;
	interp_groups_of(st, ip, proc, ev, st->pending_strs + slot(tid) * INTERP_STR_BYTES,
			 st->pending_str_len[slot(tid)], st->named_g);
	st->named = true;
	st->named_tid = tid;
	st->named_time_ns = time_ns;
	return st->named_g;
}

void interp_name_walk(struct interp_state *st, struct proc *proc, uint32_t tid, uint64_t time_ns,
		      bool lost)
{
	st->named = false;
	if (!lost)
		named_walk(st, proc, tid, time_ns);
}

int interp_stitch(struct interp_state *st, struct proc *proc, uint32_t tid, uint64_t time_ns,
		  struct uframe *uf, int nu, int cap, bool native_complete, bool lost)
{
	const struct groups *g;
	struct interp_loop loop;
	struct interp_proc *ip;

	ip = proc ? interp_proc_find(st, proc->pid) : NULL;
	if (ip && ip->ver)
		interp_loop_of(ip, &loop);
	if (ip && ip->ver && lost)
		return interp_mark_lost(st, &loop, uf, nu, cap);
	g = lost ? NULL : named_walk(st, proc, tid, time_ns);
	st->named = false;
	if (!g || !ip || !ip->ver)
		return nu;
	return interp_splice(st, &loop, g, uf, nu, cap, native_complete);
}
