// SPDX-License-Identifier: GPL-2.0
/*
 * Splicing interpreter frames into the native stack.
 *
 * CPython 3.11 runs several Python frames in one _PyEval_EvalFrameDefault
 * call: the walk, innermost first, is cut into groups, each ending at an
 * entry frame (the first frame of one eval call).  The i-th native eval
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


#include "interp/common.h"
#include "profile/profile.h"
#include "unwind/cfi.h"

#define PENDING_SLOTS 256	/* as in interp_detect.c */

void interp_stash(struct interp_state *st, const void *data, size_t size)
{
	const struct interp_event *ev = data;
	size_t hdr;

	if (size < INTERP_EVENT_HDR_BYTES || ev->nframes > INTERP_MAX_FRAMES ||
	    size < INTERP_EVENT_HDR_BYTES + ev->nframes * sizeof(struct interp_frame))
		return;
	memcpy(&st->pending[ev->tid % PENDING_SLOTS], data,
	       INTERP_EVENT_HDR_BYTES + ev->nframes * sizeof(struct interp_frame));
	/* perl: the strings its frames point into follow the frames */
	hdr = INTERP_EVENT_HDR_BYTES + ev->nframes * sizeof(struct interp_frame);
	st->pending_str_len[ev->tid % PENDING_SLOTS] = 0;
	if (ev->lang == INTERP_PERL && size > hdr && size - hdr <= INTERP_STR_BYTES) {
		memcpy(st->pending_strs + (size_t)(ev->tid % PENDING_SLOTS) * INTERP_STR_BYTES,
		       (const uint8_t *)data + hdr, size - hdr);
		st->pending_str_len[ev->tid % PENDING_SLOTS] = size - hdr;
	}
}

struct name_key {
	uint8_t kind;
	uint32_t line;
	const char *name, *file;
};

static bool name_eq(const struct hmap_node *n, const void *key)
{
	const struct interp_name *a = (const struct interp_name *)n;
	const struct name_key *k = key;

	return a->kind == k->kind && a->line == k->line && strcmp(a->name, k->name) == 0 &&
	       (a->file && k->file ? strcmp(a->file, k->file) == 0 : a->file == k->file);
}

static const struct interp_name *intern(struct interp_state *st, uint8_t kind, const char *name,
					const char *file, int line)
{
	struct name_key k = { kind, line > 0 && !st->no_lines ? line : 0, name, file };
	uint64_t h = hash_bytes(name, strlen(name), kind ^ ((uint64_t)k.line << 8));
	struct interp_name *n;

	if (file)
		h = hash_bytes(file, strlen(file), h);
	n = (struct interp_name *)hmap_find(&st->names, h, name_eq, &k);
	if (n)
		return n;
	n = malloc(sizeof(*n) + strlen(name) + 1);
	if (!n)
		return NULL;
	n->kind = kind;
	n->line = k.line;
	n->file = file ? strdup(file) : NULL;
	strcpy(n->name, name);
	hmap_insert(&st->names, &n->node, h);
	return n;
}

/* For the perl decoder (interp_perl.c). */
const struct interp_name *interp_intern(struct interp_state *st, uint8_t kind, const char *name,
					const char *file, int line)
{
	return intern(st, kind, name, file, line);
}

static bool pid_eq(const struct hmap_node *n, const void *key)
{
	return ((const struct interp_proc *)n)->pid == *(const uint32_t *)key;
}

static bool is_eval_frame(const struct interp_proc *ip, const struct uframe *u)
{
	uint64_t a;

	if (u->kind != UFRAME_ELF || u->bin != ip->eval_bin)
		return false;
	a = u->exact ? u->addr : u->addr - 1;	/* a return address is past the call */
	return a >= ip->eval_start && a < ip->eval_end;
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

/* A Ruby frame's name; addr 0 is only a group boundary. */
static const struct interp_name *ruby_name(struct interp_state *st, struct interp_proc *ip,
					   const struct interp_frame *f)
{
	struct interp_code *c;
	char buf[2 * 1024 + 64];
	const char *name;

	if (!f->addr)
		return NULL;
	c = rb_code_get(st, ip, f);
	if (!c || !c->valid)
		return intern(st, FRAME_MARK, "[unknown ruby frame]", NULL, 0);
	name = rb_frame_name(st, ip, c, f, buf, sizeof(buf));
	if (f->flags & INTERP_FRAME_CFUNC)	/* a C method: no file or line of its own */
		return intern(st, FRAME_RUBY, name, NULL, 0);
	return intern(st, FRAME_RUBY, name, c->file, rb_frame_line(st, ip, c, f));
}

static void frame_groups(struct interp_state *st, struct interp_proc *ip,
			 const struct proc *proc, const struct interp_event *ev, struct groups *g)
{
	const struct interp_python_layout *L = &ip->ver->layout.py;
	int i;

	g->n = g->ng = 0;
	g->start[0] = 0;
	for (i = 0; i < ev->nframes; i++) {
		const struct interp_frame *f = &ev->frames[i];
		struct interp_code *c;
		unsigned int owner = (f->flags >> INTERP_FRAME_OWNER_SHIFT) & 0xff;

		g->func_addr[g->n] = 0;
		g->func_bin[g->n] = NULL;
		if (ip->ver->lang == INTERP_RUBY) {
			const struct interp_name *name = ruby_name(st, ip, f);
			const struct map *m;

			if (name && (f->flags & INTERP_FRAME_CFUNC) && name->kind == FRAME_RUBY &&
			    (m = proc_find_map(proc, f->pc)) && m->bin) {
				g->func_bin[g->n] = m->bin;
				g->func_addr[g->n] = f->pc - m->bias;
			}
			if (name)
				g->names[g->n++] = name;
		} else if (!(c = py_code_get(st, ip, f)) || !c->valid) {
			g->names[g->n++] = intern(st, FRAME_MARK, "[unknown python frame]", NULL, 0);
		} else {
			int64_t lasti = ((int64_t)f->pc - (int64_t)(f->addr + L->code_bytecode)) /
					(int64_t)L->codeunit;

			/* Not started yet (before RESUME): CPython hides these too. */
			if (owner == L->owner_generator || lasti >= c->firsttraceable) {
				int line = lasti < 0 || lasti > 0x7fffffff ? -1 :
					   py311_line_for(c->linetable, c->linetable_len,
							  c->firstlineno, (int)lasti);

				g->names[g->n++] = intern(st, FRAME_PYTHON, c->name, c->file, line);
			}
		}
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

static bool cfi_eq(const struct hmap_node *n, const void *key)
{
	return ((const struct interp_cfi *)n)->bin == key;
}

/*
 * The binary's .eh_frame_hdr index, read on first sight: a C method's C
 * function is recognized by its start.  An unusual encoding leaves the
 * index empty, and C methods unplaced.
 */
static struct interp_cfi *cfi_of(struct interp_state *st, struct binary *b)
{
	uint64_t h = hash_u64((uintptr_t)b);
	struct interp_cfi *c = (struct interp_cfi *)hmap_find(&st->cfis, h, cfi_eq, b);

	if (c)
		return c;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->bin = b;
	hmap_insert(&st->cfis, &c->node, h);
	cfi_hdr_index_read(b->elf, &c->index);
	return c;
}

/* Start of the function holding vaddr in b (its FDE), 0 if unknown. */
static uint64_t fde_start(struct interp_state *st, struct binary *b, uint64_t addr)
{
	struct interp_cfi *c = cfi_of(st, b);

	return c ? cfi_hdr_func_start(&c->index, addr) : 0;
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
static int emit_group(struct interp_state *st, const struct groups *g, int k,
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
			    fde_start(st, u->bin, u->exact ? u->addr : u->addr - 1) ==
			    g->func_addr[j]) {
				anchor[j] = last = s;
				from = s + 1;
				break;
			}
		}
		/* Not seen: keep the order, just after what came before it. */
		if (anchor[j] < 0 && last >= 0)
			anchor[j] = last;
		else if (anchor[j] < 0)
			n = put_name(out, n, cap, g->names[j]);
	}
	return n;
}

/* Splice the groups over the eval frames; builds the stack outermost first, then flips it. */
static int stitch_groups(struct interp_state *st, const struct interp_proc *ip,
			 const struct groups *g, const struct uframe *uf, int nu,
			 struct uframe *out, int cap, bool native_complete)
{
	int evpos[INTERP_MAX_FRAMES + 2], neval = 0, n = 0, i, j, k;
	int *anchor = calloc(INTERP_MAX_FRAMES, sizeof(int));
	struct uframe *seg = malloc((nu + 1) * sizeof(*seg));
	const struct interp_name *trunc = intern(st, FRAME_MARK, "[truncated]", NULL, 0);

	if (!anchor || !seg) {
		free(anchor);
		free(seg);
		memcpy(out, uf, (nu < cap ? nu : cap) * sizeof(*out));
		return nu < cap ? nu : cap;
	}
	for (i = 0; i < nu && neval < INTERP_MAX_FRAMES; i++)
		if (is_eval_frame(ip, &uf[i]))
			evpos[neval++] = i;
	/*
	 * The native unwind stopped early (its last frame is a marker): the
	 * groups it did not reach all run outside that point, in this order.
	 */
	for (k = g->ng - 1; k >= neval && !native_complete; k--) {
		if (k == g->ng - 1 && g->last_partial)
			n = put_name(out, n, cap, trunc);
		for (j = g->start[k + 1] - 1; j >= g->start[k]; j--)
			n = put_name(out, n, cap, g->names[j]);
	}
	k = neval < g->ng ? neval : g->ng;	/* groups matched to eval frames */
	for (i = nu - 1; i >= 0; i--) {
		int e, nseg, gi = -1, s;

		for (e = 0; e < k; e++)
			if (evpos[e] == i)
				gi = e;
		if (gi < 0) {
			n = put_uf(out, n, cap, &uf[i]);
			continue;
		}
		if (gi == g->ng - 1 && g->last_partial)
			n = put_name(out, n, cap, trunc);
		/* The natives this group's C methods may call, outermost first. */
		for (nseg = 0, s = i - 1; s >= (gi ? evpos[gi - 1] + 1 : 0); s--)
			seg[nseg++] = uf[s];
		n = emit_group(st, g, gi, seg, nseg, anchor, out, n, cap);
		/* Then those natives, each after the C methods anchored to it. */
		for (s = 0; s < nseg; s++) {
			for (j = g->start[gi + 1] - 1; j >= g->start[gi]; j--)
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

/* The walk's record was dropped: say so above the innermost interpreter loop frame. */
static int mark_lost(struct interp_state *st, struct proc *proc, struct uframe *uf, int nu,
		     int cap)
{
	struct interp_proc *ip = (struct interp_proc *)hmap_find(&st->procs, hash_u64(proc->pid),
								 pid_eq, &proc->pid);
	int i;

	if (!ip || !ip->ver || nu >= cap)
		return nu;
	for (i = 0; i < nu; i++) {
		if (is_eval_frame(ip, &uf[i])) {
			memmove(&uf[i + 1], &uf[i], (nu - i) * sizeof(*uf));
			put_name(uf, i, cap, intern(st, FRAME_MARK, "[interpreter frames lost]",
						    NULL, 0));
			return nu + 1;
		}
	}
	return nu;
}

int interp_stitch(struct interp_state *st, struct proc *proc, uint32_t tid, uint64_t time_ns,
		  struct uframe *uf, int nu, int cap, bool native_complete, bool lost)
{
	struct interp_event *ev = &st->pending[tid % PENDING_SLOTS];
	struct interp_proc *ip;
	struct groups *g;
	struct uframe *out;
	int i, n = 0, neval = 0;

	if (proc && lost)
		return mark_lost(st, proc, uf, nu, cap);
	if (!proc || ev->magic != INTERP_EVENT_MAGIC || ev->tid != tid || ev->time_ns != time_ns)
		return nu;
	ev->magic = 0;		/* used */
	if (ev->flags & (INTERP_EV_FAULT | INTERP_EV_CORRUPT | INTERP_EV_BAD_KEY))
		st->walk_errors++;
	ip = (struct interp_proc *)hmap_find(&st->procs, hash_u64(proc->pid), pid_eq, &proc->pid);
	if (!ip || !ip->ver || ev->lang != ip->ver->lang)
		return nu;
	g = malloc(sizeof(*g));
	out = malloc(cap * sizeof(*out));
	if (!g || !out)
		goto out;
	if (ip->ver->lang == INTERP_PERL)
		perl_groups(st, ev, st->pending_strs + (size_t)(tid % PENDING_SLOTS) * INTERP_STR_BYTES,
			    st->pending_str_len[tid % PENDING_SLOTS], g);
	else
		frame_groups(st, ip, proc, ev, g);
	for (i = 0; i < nu; i++)
		neval += is_eval_frame(ip, &uf[i]);
	if (native_complete && !g->last_partial && g->ng != neval) {
		/* Both walks complete, counts differ: keep native, say so. */
		st->unstitched++;
		for (i = 0; i < nu; i++) {
			if (is_eval_frame(ip, &uf[i]) && neval >= 0) {
				char mark[64];

				snprintf(mark, sizeof(mark), "[%s frames not stitched]",
					 ip->ver->lang_name);
				n = put_name(out, n, cap, intern(st, FRAME_MARK, mark, NULL, 0));
				neval = -1;
			}
			if (n < cap)
				out[n++] = uf[i];
		}
	} else {
		n = stitch_groups(st, ip, g, uf, nu, out, cap, native_complete);
	}
	memcpy(uf, out, n * sizeof(*uf));
	nu = n;
out:
	free(g);
	free(out);
	return nu;
}
