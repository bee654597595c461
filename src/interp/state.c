// SPDX-License-Identifier: GPL-2.0
/*
 * The recorder's interpreter state: made once per recording with every
 * language's caches and every version's layout in the BPF interp_layouts
 * map, and freed.  The one place, with detect.c and splice.c, that goes
 * from the state to the table of languages.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "interp/interp_internal.h"

int interp_init(struct interp_state *st, int procs_fd, int layouts_fd, bool no_lines)
{
	uint32_t i, n = interp_version_count();

	memset(st, 0, sizeof(*st));
	st->procs_fd = procs_fd;
	st->layouts_fd = layouts_fd;
	st->no_lines = no_lines;
	st->pending = calloc(INTERP_PENDING_SLOTS, sizeof(*st->pending));
	st->pending_strs = calloc(INTERP_PENDING_SLOTS, INTERP_STR_BYTES);
	st->pending_str_len = calloc(INTERP_PENDING_SLOTS, sizeof(*st->pending_str_len));
	st->langs = calloc(interp_nlanguages, sizeof(*st->langs));
	st->def_g = malloc(sizeof(*st->def_g));
	st->named_g = malloc(sizeof(*st->named_g));
	if (!st->pending || !st->pending_strs || !st->pending_str_len || !st->langs ||
	    !st->def_g || !st->named_g || hmap_init(&st->defs, 256) ||
	    hmap_init(&st->procs, 64) || hmap_init(&st->names, 1024) ||
	    hmap_init(&st->codes, 1024))
		return -ENOMEM;
	for (i = 0; i < interp_nlanguages; i++) {
		const struct interp_ops *ops = interp_languages[i];

		if (!ops->state_new)
			continue;
		st->langs[st->nlangs].state = ops->state_new();
		if (!st->langs[st->nlangs].state)
			return -ENOMEM;
		st->langs[st->nlangs++].ops = ops;
	}
	for (i = 0; i < n && i < INTERP_MAX_LAYOUTS; i++) {
		if (layouts_fd >= 0 &&
		    bpf_map_update_elem(layouts_fd, &i, &interp_version_at(i)->layout, BPF_ANY))
			return -errno;
	}
	return 0;
}

int interp_layout_slot(struct interp_state *st, const struct interp_layout *l)
{
	uint32_t base = interp_version_count(), i, slot;

	for (i = 0; i < st->nown_layouts; i++)
		if (memcmp(&st->own_layouts[i], l, sizeof(*l)) == 0)
			return base + i;
	slot = base + st->nown_layouts;
	if (slot >= INTERP_MAX_LAYOUTS)
		return -ENOSPC;
	if (st->layouts_fd >= 0 && bpf_map_update_elem(st->layouts_fd, &slot, l, BPF_ANY))
		return -errno;
	st->own_layouts[st->nown_layouts++] = *l;
	return slot;
}

static void code_release(struct hmap_node *n)
{
	interp_code_clear((struct interp_code *)n);
	free(n);
}

void interp_proc_forget(struct interp_state *st, uint32_t pid)
{
	struct interp_proc *ip = st->procs.buckets ? interp_proc_find(st, pid) : NULL;
	size_t i;

	/*
	 * Definitions come only from walks, which only a process with an
	 * entry has: any other exit (most of a machine's) skips the scan of
	 * every definition held (20,000 held: 0.42 ms an exit, 0.015 us now).
	 */
	if (ip || st->unowned_defs)
		interp_defs_forget(st, pid);
	if (!ip)
		return;
	if (st->procs_fd >= 0 && ip->published)
		bpf_map_delete_elem(st->procs_fd, &pid);
	hmap_remove(&st->procs, &ip->node);
	free(ip->priv);
	free(ip);
	/*
	 * Its named code and the languages' caches of it: kept, they grew
	 * with every interpreter that ran (an agent's hour of short scripts),
	 * and a later process given the same pid started from them.
	 */
	hmap_remove_pid(&st->codes, offsetof(struct interp_code, pid), pid, code_release);
	for (i = 0; i < st->nlangs; i++)
		if (st->langs[i].ops->proc_forget)
			st->langs[i].ops->proc_forget(st->langs[i].state, pid);
}

void interp_free(struct interp_state *st)
{
	struct hmap_node *n;
	size_t i;

	/* A map never initialized is empty (no buckets): nothing to free. */
	hmap_for_each(&st->codes, i, n)
		interp_code_clear((struct interp_code *)n);
	hmap_for_each(&st->names, i, n)
		free(((struct interp_name *)n)->file);
	hmap_for_each(&st->procs, i, n)
		free(((struct interp_proc *)n)->priv);
	for (i = 0; i < st->nlangs; i++)
		st->langs[i].ops->state_free(st->langs[i].state);
	free(st->langs);
	st->langs = NULL;
	st->nlangs = 0;
	hmap_free_all(&st->procs);
	hmap_free_all(&st->names);
	hmap_free_all(&st->codes);
	hmap_free_all(&st->defs);	/* each definition is one allocation */
	free(st->def_g);
	st->def_g = NULL;
	free(st->named_g);
	st->named_g = NULL;
	free(st->pending);
	st->pending = NULL;
	free(st->pending_strs);
	st->pending_strs = NULL;
	free(st->pending_str_len);
	st->pending_str_len = NULL;
}
