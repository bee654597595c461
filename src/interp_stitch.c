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
#include <stdlib.h>
#include <string.h>

#include "interp_internal.h"
#include "profile.h"

#define PENDING_SLOTS 256	/* as in interp_detect.c */

void interp_stash(struct interp_state *st, const void *data, size_t size)
{
	const struct interp_event *ev = data;

	if (size < INTERP_EVENT_HDR_BYTES || ev->nframes > INTERP_MAX_FRAMES ||
	    size < INTERP_EVENT_HDR_BYTES + ev->nframes * sizeof(struct interp_frame))
		return;
	memcpy(&st->pending[ev->tid % PENDING_SLOTS], data,
	       INTERP_EVENT_HDR_BYTES + ev->nframes * sizeof(struct interp_frame));
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

/* The walked frames as names, innermost first, and where each group starts. */
struct groups {
	const struct interp_name *names[INTERP_MAX_FRAMES];
	int start[INTERP_MAX_FRAMES + 2];	/* group g: names[start[g] .. start[g+1]) */
	int n, ng;
	bool last_partial;		/* the outermost group was cut short */
};

static void python_groups(struct interp_state *st, const struct interp_proc *ip,
			  const struct interp_event *ev, struct groups *g)
{
	const struct interp_python_layout *L = &ip->ver->layout.py;
	int i;

	g->n = g->ng = 0;
	g->start[0] = 0;
	for (i = 0; i < ev->nframes; i++) {
		const struct interp_frame *f = &ev->frames[i];
		struct interp_code *c = py_code_get(st, ip, f);
		unsigned int owner = (f->flags >> INTERP_FRAME_OWNER_SHIFT) & 0xff;

		if (!c || !c->valid) {
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

int interp_stitch(struct interp_state *st, struct proc *proc, uint32_t tid, uint64_t time_ns,
		  struct uframe *uf, int nu, int cap, bool native_complete)
{
	struct interp_event *ev = &st->pending[tid % PENDING_SLOTS];
	struct interp_proc *ip;
	struct groups *g;
	struct uframe *out;
	int i, j, k, n = 0, neval = 0;

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
	python_groups(st, ip, ev, g);
	for (i = 0; i < nu; i++)
		neval += is_eval_frame(ip, &uf[i]);
	if (native_complete && !g->last_partial && g->ng != neval) {
		/* Both walks complete, counts differ: keep native, say so. */
		st->unstitched++;
		for (i = 0; i < nu; i++) {
			if (is_eval_frame(ip, &uf[i]) && neval >= 0) {
				n = put_name(out, n, cap, intern(st, FRAME_MARK,
						"[python frames not stitched]", NULL, 0));
				neval = -1;
			}
			if (n < cap)
				out[n++] = uf[i];
		}
	} else {
		for (i = 0, k = 0; i < nu; i++) {
			if (!is_eval_frame(ip, &uf[i]) || k >= g->ng) {
				if (n < cap)
					out[n++] = uf[i];
				continue;
			}
			for (j = g->start[k]; j < g->start[k + 1]; j++)
				n = put_name(out, n, cap, g->names[j]);
			if (k == g->ng - 1 && g->last_partial)
				n = put_name(out, n, cap, intern(st, FRAME_MARK, "[truncated]",
								 NULL, 0));
			k++;
		}
		/*
		 * The native unwind stopped early (its last frame is a marker):
		 * the groups left all run outside the point where it stopped,
		 * in this order, so they go beyond the marker.
		 */
		for (; k < g->ng && !native_complete; k++) {
			for (j = g->start[k]; j < g->start[k + 1]; j++)
				n = put_name(out, n, cap, g->names[j]);
			if (k == g->ng - 1 && g->last_partial)
				n = put_name(out, n, cap, intern(st, FRAME_MARK, "[truncated]",
								 NULL, 0));
		}
	}
	memcpy(uf, out, n * sizeof(*uf));
	nu = n;
out:
	free(g);
	free(out);
	return nu;
}
