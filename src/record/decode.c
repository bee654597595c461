// SPDX-License-Identifier: GPL-2.0
/*
 * stitch record: each record from the ring to its type's handler
 * (ring_record.h).  A sample into a counted stack: user frames the kernel
 * unwound or unwound here from the copied stack, against the process model
 * as it was at the event; interpreter frames spliced in; off-CPU stacks held
 * until their weight comes.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "capture/alloc_inuse.h"
#include "capture/alloc_live.h"
#include "capture/offcpu.h"
#include "profile/copy_unwind.h"

#include "record/record_internal.h"
#include "util/clock.h"

/* ---- sample processing ------------------------------------------------- */

static size_t key_bytes_for(uint16_t nk, uint16_t nu)
{
	return sizeof(struct stack_key) + nk * sizeof(uint64_t) + nu * sizeof(struct uframe);
}

/* Where the copied stack ends: the uretprobes' return addresses may follow it. */
static uint32_t copy_end(const struct sample_event *e)
{
	return e->nuret ? e->uret_off : e->ustack_bytes;
}

/* User frames from the copied stack, unwound here (JIT frames named, if name_jit); sets *why. */
static int frames_from_copy(struct recorder *r, const struct sample_event *e, struct proc *proc,
			    struct uframe *uf, enum unwind_stop *why, bool name_jit)
{
	struct unwind_regs regs = { e->ip, e->sp, e->bp, e->lr };
	struct unwind_stack stack = { e->sp, e->ustack + e->ucopy_off,
				      copy_end(e) - e->ucopy_off };
	struct unwind_uret uret[STITCH_URET_MAX];
	uint32_t i;
	int n;

	/* Checked by sample_sizes_ok(); copied out of the record, which is only 8-aligned. */
	for (i = 0; i < e->nuret; i++) {
		struct stitch_uret u;

		memcpy(&u, e->ustack + e->uret_off + i * sizeof(u), sizeof(u));
		uret[i].slot = u.slot;
		uret[i].orig = u.orig;
	}
	stack.uret = (struct unwind_urets){ e->uret_tramp, uret, e->nuret };
	n = copy_unwind(&r->bins, proc, &regs, &stack, r->uframes, MAX_UFRAMES, uf, why,
			name_jit ? e->time_ns : 0);
	/*
	 * The kernel could not read the stack's first page at the event (not
	 * present then; 3 of 7301 samples of a Python process in a busy CI
	 * guest): the stack says so where the walk stopped, its interpreter
	 * frames outside that mark as for any walk cut short.
	 */
	if ((e->flags & STITCH_SAMPLE_USTACK_FAULT) && n &&
	    (uf[n - 1].kind == UFRAME_TRUNCATED || uf[n - 1].kind == UFRAME_CUT)) {
		uf[n - 1].kind = UFRAME_UNREADABLE;
		*why = UNWIND_STOP_UNREADABLE;
	}
	return n;
}

/*
 * User frames the kernel unwound (kunwind frame words), V8's named in pid
 * (0: left as walked); -1 if malformed.
 */
static int frames_from_kernel(struct recorder *r, const struct sample_event *e, uint32_t pid,
			      struct uframe *uf, enum unwind_stop *why)
{
	*why = e->ustop;
	return kunwind_decode(&r->kw, pid, (const uint64_t *)e->ustack, e->nuframes, e->ustop, uf,
			      MAX_UFRAMES);
}

static bool uframe_eq(const struct uframe *a, const struct uframe *b)
{
	return a->kind == b->kind && a->bin == b->bin && a->addr == b->addr &&
	       a->exact == b->exact && a->by_fp == b->by_fp;
}

/*
 * --unwind=check: the kernel's frames must equal the user-space unwinder's
 * on the same stack, frame for frame.  Where the copy was cut at
 * --stack-bytes, the kernel (which reads on) must agree on the copied part.
 */
static void check_frames(struct recorder *r, const struct sample_event *e,
			 const struct uframe *kuf, int nk, const struct uframe *cuf, int nc)
{
	bool capped = (e->flags & STITCH_SAMPLE_USTACK_CAPPED) && nc &&
		      cuf[nc - 1].kind == UFRAME_TRUNCATED;
	int i, n = capped ? nc - 1 : nc;
	bool same = capped ? nk >= n : nk == nc;

	for (i = 0; same && i < n; i++)
		same = uframe_eq(&kuf[i], &cuf[i]);
	r->check_compared++;
	if (capped)
		r->check_prefix++;
	if (same)
		return;
	if (r->check_mismatched++ < 5) {
		fprintf(stderr, "stitch: check: pid %u tid %u: kernel %d frames (stop %u), "
			"copy %d frames differ:\n", e->pid, e->tid, nk, e->ustop, nc);
		for (i = 0; i < nk || i < nc; i++)
			fprintf(stderr, "  %3d  kernel %s+0x%" PRIx64 "%s  copy %s+0x%" PRIx64 "%s\n", i,
				i < nk && kuf[i].bin ? kuf[i].bin->name : "-",
				i < nk ? kuf[i].addr : 0, i < nk && kuf[i].exact ? "!" : "",
				i < nc && cuf[i].bin ? cuf[i].bin->name : "-",
				i < nc ? cuf[i].addr : 0, i < nc && cuf[i].exact ? "!" : "");
	}
}

/* Bring the process model up to the moment of a record (the turn's last). */
static void model_at(struct recorder *r, uint64_t time_ns)
{
	perf_tracker_drain(&r->ptrack);
	perf_tracker_apply(&r->ptrack, &r->procs, time_ns);
	r->turn_last_ns = time_ns;
}

/* ---- each record type's handler ---------------------------------------- */

/*
 * Interpreter frames: a walk sent once for the events counted in the kernel
 * under its hash (ihash), named now against the process as it was at the
 * walk; and every walk kept for the sample that follows it (same tid and time).
 */
static void on_interp_walk(struct recorder *r, const void *rec, size_t size)
{
	const struct interp_event *ev = rec;
	struct proc *proc;

	interp_stash(&r->interp, rec, size);
	if (!ev->ihash)
		return;
	model_at(r, ev->time_ns);
	proc = procs_get(&r->procs, ev->pid);
	interp_proc_update(&r->interp, proc);
	interp_define(&r->interp, proc, ev, size);
}

/* --wakers: who woke a thread whose stack was sent. */
static void on_offcpu_woken(struct recorder *r, const void *rec, size_t size)
{
	const struct offcpu_woken *w = rec;

	(void)size;
	offcpu_woken(&r->offcpu, w->tid, &w->waker);
}

/* An off-CPU interval ended: what the thread's sent stack weighs. */
static void on_offcpu_weight(struct recorder *r, const void *rec, size_t size)
{
	const struct offcpu_weight *w = rec;

	(void)size;
	offcpu_weigh(&r->offcpu, w->tid, w->ns, &r->stacks);
}

/*
 * A sampled allocation's sent stack: what it weighs, or under --inuse,
 * the block it is (weighed at the end if it is still held).
 */
static void on_alloc_weight(struct recorder *r, const void *rec, size_t size)
{
	const struct alloc_weight *w = rec;
	const struct stack_key *key;
	uint32_t kb;

	(void)size;
	key = offcpu_held(&r->offcpu, w->tid, &kb);
	if (!key)
		return;
	if (!r->alloc_live) {
		struct stack *s = stacks_find_add(&r->stacks, key, kb, w->bytes);

		if (s)
			stack_add_objects(s, w->objects);
		else
			r->bad_records++;
	} else if (w->block && alloc_live_hold(r->alloc_live, w->block, w->objects, key, kb)) {
		r->bad_records++;
	}
	/*
	 * --inuse, block 0: not tracked (its map full, STAT_INUSE_LOST says
	 * so).  Whether it is still held is unknown: it is left out, and the
	 * bytes in use are said to be a lower bound.
	 */
	offcpu_drop(&r->offcpu, w->tid);
}

/* --inuse: a tracked block was freed. */
static void on_alloc_freed(struct recorder *r, const void *rec, size_t size)
{
	const struct alloc_freed *f = rec;

	(void)size;
	if (r->alloc_live)
		alloc_live_freed(r->alloc_live, f->block);
}

static void on_alloc_unmapped(struct recorder *r, const void *rec, size_t size)
{
	const struct alloc_unmapped *u = rec;

	(void)size;
	if (r->alloc_live)
		alloc_unmaps_add(&r->alloc_live->unmaps, u->tgid, u->addr, u->len, u->time_ns);
}

/* A sample's sizes, from the traced side of the ring: false if they do not add up. */
static bool sample_sizes_ok(const struct sample_event *e, size_t size)
{
	bool kframes = (e->flags & STITCH_SAMPLE_USER_REGS) && (e->flags & STITCH_SAMPLE_KFRAMES);

	if (e->kstack_bytes > sizeof(e->kstack) ||
	    e->ustack_bytes > size - STITCH_SAMPLE_HDR_BYTES ||
	    e->ustack_bytes > sizeof(e->ustack) ||
	    copy_end(e) > STITCH_USTACK_ROOM + STITCH_MAX_USTACK ||
	    e->ucopy_off > copy_end(e) || e->nuframes > KUNWIND_MAX_FRAMES ||
	    e->nuframes * 8u > e->ustack_bytes)
		return false;
	/* The uretprobes' return addresses: 8-aligned after the copy, the record's last bytes. */
	if (e->nuret && (e->nuret > STITCH_URET_MAX || e->uret_off % 8 ||
			 e->ustack_bytes - e->uret_off != e->nuret * sizeof(struct stitch_uret)))
		return false;
	return !(kframes && e->ucopy_off && e->ucopy_off < e->nuframes * 8u);
}

/* The key's kernel part: the off-CPU tag, then the kernel frames; their count. */
static int key_kernel_frames(const struct sample_event *e, struct stack_key *key)
{
	uint64_t *kips = (uint64_t *)(key + 1);
	int nk = 0, i;

	memset(key, 0, sizeof(*key));
	key->pid = e->pid;
	key->tid = e->tid;
	key->event_idx = e->event_idx;
	memcpy(key->comm, e->comm, STITCH_COMM_LEN);
	/* An off-CPU stack's thread state, or glue to leave out: its innermost frame (stack_tag.h). */
	if ((e->tag && e->tag < OFFCPU_TAG_NR) || e->tag == STACK_TAG_GLUE)
		kips[nk++] = e->tag;
	for (i = 0; i < (int)(e->kstack_bytes / 8) && e->kstack[i]; i++)
		kips[nk++] = e->kstack[i];
	key->nkernel = nk;
	return nk;
}

/* A sample: its stack, kernel, native and interpreter frames, counted or held. */
static void on_sample(struct recorder *r, const void *rec, size_t size)
{
	const struct sample_event *e = rec;
	struct stack_key *key = (struct stack_key *)r->key_buf;
	struct uframe *uf;
	struct proc *proc = NULL, *iproc;
	enum unwind_stop why = UNWIND_STOP_END;
	bool kframes, copied;
	int nk, nu = 0;

	if (!sample_sizes_ok(e, size)) {
		r->bad_records++;
		return;
	}
	kframes = (e->flags & STITCH_SAMPLE_USER_REGS) && (e->flags & STITCH_SAMPLE_KFRAMES);
	copied = (e->flags & STITCH_SAMPLE_USER_REGS) &&
		 (!kframes || r->o->unwind_mode == KUNWIND_MODE_CHECK);
	model_at(r, e->time_ns);

	nk = key_kernel_frames(e, key);
	uf = (struct uframe *)((uint64_t *)(key + 1) + nk);

	/* kunwind: the kernel could not walk this one; give it the process's tables. */
	if (copied && !kframes && r->kw_ready)
		kunwind_mark_dirty(&r->kw, e->pid);
	if (copied)
		proc = procs_get(&r->procs, e->pid);
	/* Interpreters: look at the process (new mappings), and splice its frames below. */
	iproc = proc ? proc : (e->flags & STITCH_SAMPLE_USER_REGS) ?
		procs_get(&r->procs, e->pid) : NULL;
	interp_proc_update(&r->interp, iproc);
	/* Its walk named from the live process, before the unwind (interp_name_walk). */
	if (iproc)
		interp_name_walk(&r->interp, iproc, e->tid, e->time_ns,
				 e->flags & STITCH_SAMPLE_INTERP_LOST);
	if (kframes) {
		nu = frames_from_kernel(r, e, e->pid, uf, &why);
		if (nu < 0) {
			r->bad_records++;
			return;
		}
		/*
		 * The walks compared as walked: V8's frames named by neither.
		 * A JIT leaf's name rests on its code's bytes, which the kernel
		 * read at the event and the copy's naming reads later (7 of
		 * 669 node stacks differed by that alone, in a busy CI run).
		 */
		if (proc) {
			int nk = frames_from_kernel(r, e, 0, r->check_kuf, &why);
			int nc = frames_from_copy(r, e, proc, r->check_uf, &why, false);

			check_frames(r, e, r->check_kuf, nk, r->check_uf, nc);
			why = e->ustop;
		}
	} else if (proc) {
		nu = frames_from_copy(r, e, proc, uf, &why, true);
	}
	/* Named at the end: kept past their processes (binary_cache_sweep), spliced or not. */
	uframes_mark_sampled(uf, nu);
	if (iproc)
		nu = interp_stitch(&r->interp, iproc, e->tid, e->time_ns, uf, nu,
				   MAX_UFRAMES + 1 + INTERP_MAX_FRAMES, why == UNWIND_STOP_END,
				   e->flags & STITCH_SAMPLE_INTERP_LOST);
	uframes_mark_sampled(uf, nu);
	nu = fetched_frame(r, e, uf, nu, MAX_UFRAMES + 2 + INTERP_MAX_FRAMES);
	if (kframes || proc)
		r->unwind_stops[why]++;
	key->nuser = nu;
	fetched_print_stack(r, key);
	if (e->flags & STITCH_SAMPLE_WEIGHT_LATER)
		offcpu_hold(&r->offcpu, e->tid, e->time_ns, key, key_bytes_for(nk, nu));
	else if (r->hooks && r->hooks->sample)
		r->hooks->sample(r->hooks->ctx, e, key, key_bytes_for(nk, nu));
	else
		stacks_add(&r->stacks, key, key_bytes_for(nk, nu));
}

/* ---- dispatch by type ---------------------------------------------------- */

/*
 * Each type's handler and the sizes its record may have.  A record's counts
 * come from what the kernel read of traced processes, so its size is checked
 * against its type before its handler reads a field, and each handler checks
 * the counts inside against the size (sample_sizes_ok, interp_stash).
 */
static const struct ring_record_handler {
	size_t min_size, max_size;
	void (*handle)(struct recorder *r, const void *rec, size_t size);
} ring_handlers[RING_RECORD_TYPES] = {
	[RING_SAMPLE] = { STITCH_SAMPLE_HDR_BYTES, sizeof(struct sample_event), on_sample },
	/* the frames walked, then the strings they point into (perl's) */
	[RING_INTERP_WALK] = { INTERP_EVENT_HDR_BYTES,
			       sizeof(struct interp_event) + INTERP_STR_BYTES, on_interp_walk },
	[RING_OFFCPU_WOKEN] = { sizeof(struct offcpu_woken), sizeof(struct offcpu_woken),
				on_offcpu_woken },
	[RING_OFFCPU_WEIGHT] = { sizeof(struct offcpu_weight), sizeof(struct offcpu_weight),
				 on_offcpu_weight },
	[RING_ALLOC_WEIGHT] = { sizeof(struct alloc_weight), sizeof(struct alloc_weight),
				on_alloc_weight },
	[RING_ALLOC_FREED] = { sizeof(struct alloc_freed), sizeof(struct alloc_freed),
			       on_alloc_freed },
	[RING_FETCH_VALUES] = { sizeof(struct fetch_values), sizeof(struct fetch_values),
				fetched_keep },
	[RING_ALLOC_UNMAPPED] = { sizeof(struct alloc_unmapped), sizeof(struct alloc_unmapped),
				  on_alloc_unmapped },
};

int handle_record(void *ctx, void *data, size_t size)
{
	struct recorder *r = ctx;
	const struct ring_record_header *h = data;
	const struct ring_record_handler *rh;

	r->bytes_received += size;
	if (size < sizeof(*h) || h->size != size || h->type >= RING_RECORD_TYPES) {
		r->bad_records++;
		return 0;
	}
	rh = &ring_handlers[h->type];
	if (!rh->handle || size < rh->min_size || size > rh->max_size) {
		r->bad_records++;
		return 0;
	}
	rh->handle(r, data, size);
	return 0;
}

int handle_record_in_turn(void *ctx, void *data, size_t size)
{
	struct recorder *r = ctx;
	int rc = handle_record(ctx, data, size);
	uint64_t now;

	/* A clock read every 256 records: ~1 ns a record. */
	if (rc || ++r->turn_records % 256)
		return rc;
	now = mono_ns();
	if (!r->turn_start)
		r->turn_start = now;
	else if (now - r->turn_start >= RECORD_TURN_NS)
		return RECORD_TURN_OVER;
	return 0;
}
