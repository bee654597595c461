// SPDX-License-Identifier: GPL-2.0
/*
 * Interpreter stacks counted in the kernel (capture_walk.bpf.h): each distinct
 * walk comes once, as a definition carrying the hash that the count keys
 * of its events hold.  It is named here at once, while the code objects it
 * points at still exist, and kept as names; a counted key read later is
 * spliced from them like a sent walk's.
 *
 * A steady Python loop 20 frames deep defines a few hundred walks (one per
 * bytecode position its leaves are seen at) and then sends nothing more.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "interp/interp_internal.h"

/* One definition: its groups, packed to their size (a struct groups is 3.6 KiB). */
struct interp_def {
	struct hmap_node node;
	uint32_t pid;
	uint64_t ihash;
	bool named;		/* false: the process was not an interpreter any more */
	struct interp_loop loop;
	int n, ng;
	bool last_partial;
	const struct interp_name **names;	/* n */
	int *start;				/* ng + 1 */
	struct binary **func_bin;		/* n, or NULL: no native function frames */
	uint64_t *func_addr;
	bool *func_required;
};

_Static_assert(INTERP_IHASH_NONE == 0 && INTERP_IHASH_LOST == 1,
	       "counted keys with no frames or lost frames are not definitions");

static uint64_t def_hash(uint32_t pid, uint64_t ihash)
{
	return hash_u64(ihash ^ (uint64_t)pid << 32);
}

struct def_id {
	uint32_t pid;
	uint64_t ihash;
};

static bool def_eq(const struct hmap_node *n, const void *key)
{
	const struct interp_def *d = (const struct interp_def *)n;
	const struct def_id *id = key;

	return d->pid == id->pid && d->ihash == id->ihash;
}

static struct interp_def *def_find(struct interp_state *st, uint32_t pid, uint64_t ihash)
{
	struct def_id id = { pid, ihash };

	return (struct interp_def *)hmap_find(&st->defs, def_hash(pid, ihash), def_eq, &id);
}

/* g packed into one allocation after the def. */
static struct interp_def *def_pack(const struct groups *g)
{
	bool funcs = false;
	struct interp_def *d;
	size_t bytes;
	uint8_t *p;
	int i;

	for (i = 0; i < g->n; i++)
		funcs |= g->func_addr[i] != 0;
	bytes = sizeof(*d) + g->n * sizeof(*d->names) + (g->ng + 1) * sizeof(int) +
		(funcs ? g->n * (sizeof(*d->func_bin) + sizeof(*d->func_addr) +
				 sizeof(*d->func_required)) : 0);
	d = calloc(1, bytes + 8);
	if (!d)
		return NULL;
	d->n = g->n;
	d->ng = g->ng;
	d->last_partial = g->last_partial;
	p = (uint8_t *)(d + 1);
	d->names = (const struct interp_name **)p;
	memcpy(d->names, g->names, g->n * sizeof(*d->names));
	p += g->n * sizeof(*d->names);
	if (funcs) {
		d->func_bin = (struct binary **)p;
		memcpy(d->func_bin, g->func_bin, g->n * sizeof(*d->func_bin));
		p += g->n * sizeof(*d->func_bin);
		d->func_addr = (uint64_t *)p;
		memcpy(d->func_addr, g->func_addr, g->n * sizeof(*d->func_addr));
		p += g->n * sizeof(*d->func_addr);
	}
	d->start = (int *)p;
	p += (g->ng + 1) * sizeof(int);
	if (funcs) {
		d->func_required = (bool *)p;
		memcpy(d->func_required, g->func_required, g->n * sizeof(*d->func_required));
	}
	memcpy(d->start, g->start, (g->ng + 1) * sizeof(int));
	return d;
}

static void def_unpack(const struct interp_def *d, struct groups *g)
{
	g->n = d->n;
	g->ng = d->ng;
	g->last_partial = d->last_partial;
	memcpy(g->names, d->names, d->n * sizeof(*d->names));
	memcpy(g->start, d->start, (d->ng + 1) * sizeof(int));
	if (d->func_bin) {
		memcpy(g->func_bin, d->func_bin, d->n * sizeof(*d->func_bin));
		memcpy(g->func_addr, d->func_addr, d->n * sizeof(*d->func_addr));
		memcpy(g->func_required, d->func_required, d->n * sizeof(*d->func_required));
	} else {
		memset(g->func_bin, 0, d->n * sizeof(*g->func_bin));
		memset(g->func_addr, 0, d->n * sizeof(*g->func_addr));
		memset(g->func_required, 0, d->n * sizeof(*g->func_required));
	}
}

void interp_defs_forget(struct interp_state *st, uint32_t pid)
{
	/* Each definition is one allocation (def_pack). */
	hmap_remove_pid(&st->defs, offsetof(struct interp_def, pid), pid, NULL);
}

void interp_define(struct interp_state *st, struct proc *proc, const void *data, size_t size)
{
	const struct interp_event *ev = data;
	const struct interp_ops *ops;
	struct interp_proc *ip;
	struct interp_def *d;
	size_t hdr = interp_event_frames_bytes(data, size);

	if (!hdr || ev->ihash <= INTERP_IHASH_LOST || !proc || proc->pid != ev->pid ||
	    def_find(st, ev->pid, ev->ihash) || !st->def_g)
		return;
	ip = interp_proc_find(st, ev->pid);
	ops = interp_ops_for_lang(ev->lang);
	if (ip && ip->ver && ev->lang == ip->ver->lang) {
		interp_groups_of(st, ip, proc, ev, (const uint8_t *)data + hdr,
				 ops && ops->walk_strings && size - hdr <= INTERP_STR_BYTES ?
				 size - hdr : 0, st->def_g);
		d = def_pack(st->def_g);
		if (d) {
			d->named = true;
			interp_loop_of(ip, &d->loop);
		}
	} else {
		d = calloc(1, sizeof(*d));
		if (d && !ip)
			st->unowned_defs++;
	}
	if (!d)
		return;
	d->pid = ev->pid;
	d->ihash = ev->ihash;
	hmap_insert(&st->defs, &d->node, def_hash(d->pid, d->ihash));
	st->defined++;
}

int interp_counted_frames(struct interp_state *st, uint32_t pid, uint64_t ihash,
			  struct uframe *uf, int nu, int cap, bool native_complete)
{
	struct interp_def *d;
	struct interp_proc *ip;
	struct interp_loop loop;

	if (ihash == INTERP_IHASH_NONE)
		return nu;
	if (ihash == INTERP_IHASH_LOST) {
		ip = interp_proc_find(st, pid);
		if (!ip || !ip->ver)
			return nu;
		interp_loop_of(ip, &loop);
		return interp_mark_lost(st, &loop, uf, nu, cap);
	}
	d = def_find(st, pid, ihash);
	if (!d)
		return -EAGAIN;
	if (!d->named)
		return nu;
	def_unpack(d, st->def_g);
	return interp_splice(st, &d->loop, st->def_g, uf, nu, cap, native_complete);
}
