// SPDX-License-Identifier: GPL-2.0
/*
 * record --fetch's values in user space: the record the capture program
 * sends just before a line probe's sample (probe/fetch.bpf.h), kept until
 * that sample (same thread, same time), then made the innermost frame of
 * its stack, "[r->len=10 weight=70]" (profile/values_frame.h), so that
 * stacks split by value, and pprof's samples carry them as labels; and
 * with --print, a line per event as perf script prints one.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"
#include "probe/fetch_compile.h"
#include "profile/resolve.h"
#include "profile/stacks.h"
#include "record/record_internal.h"

void fetched_keep(struct recorder *r, const void *rec, size_t size)
{
	const struct fetch_values *v = rec;

	(void)size;
	if (v->site >= r->att.nfetch_sites) {
		r->bad_records++;
		return;
	}
	memcpy(&r->fetched, v, sizeof(*v));
	r->fetched_pending = true;
}

int fetched_frame(struct recorder *r, const struct sample_event *e, struct uframe *uf, int nu,
		  int max)
{
	const struct fetch_values *v = &r->fetched;
	const struct fetch_site *site;
	char text[FETCH_MAX_VARS * (FETCH_STR_MAX * 4 + 112)], label[sizeof(text) + 2];

	if (!r->fetched_pending)
		return nu;
	r->fetched_pending = false;
	if (v->tid != e->tid || v->time_ns != e->time_ns || v->site >= r->att.nfetch_sites)
		return nu;
	site = &r->att.fetch_sites[v->site];
	fetch_format_values(site, v, text, sizeof(text));
	r->fetched_printed = r->o->print_values;
	if (r->o->print_values)
		printf("%16.16s %7u/%-7u %llu.%06llu: %s: %s\n", e->comm, e->pid, e->tid,
		       (unsigned long long)e->time_ns / 1000000000,
		       (unsigned long long)e->time_ns % 1000000000 / 1000,
		       site->event_idx < (uint32_t)r->o->nevents ?
		       r->o->events[site->event_idx].text : "?", text);
	if (nu < 0 || nu >= max)
		return nu;
	snprintf(label, sizeof(label), "[%s]", text);
	memmove(uf + 1, uf, nu * sizeof(*uf));
	memset(&uf[0], 0, sizeof(uf[0]));
	uf[0].kind = UFRAME_VALUES;
	uf[0].addr = (uint64_t)(uintptr_t)stacks_name(label);
	return nu + 1;
}

void fetched_print_stack(struct recorder *r, const struct stack_key *key)
{
	struct named_frame nf[256];
	int n, i;

	if (!r->fetched_printed)
		return;
	r->fetched_printed = false;
	if (!r->o->print_stacks)
		return;
	if (!r->print_names) {
		r->print_names = calloc(1, sizeof(*r->print_names));
		if (!r->print_names || resolver_init(r->print_names, NULL)) {
			free(r->print_names);
			r->print_names = NULL;
			return;
		}
		resolver_name_kernel_lazily(r->print_names, "/proc/kallsyms");
	}
	/* Outermost first: printed innermost first, as perf script does. */
	n = resolve_stack(r->print_names, key, nf, sizeof(nf) / sizeof(nf[0]));
	for (i = n - 1; i >= 0; i--) {
		fputs("\t", stdout);
		resolve_frame_line(stdout, &nf[i], nf[i].name ? nf[i].name : "?", "  ");
		fputc('\n', stdout);
	}
	fputc('\n', stdout);
}

void fetched_free(struct recorder *r)
{
	if (r->print_names) {
		resolver_free(r->print_names);
		free(r->print_names);
		r->print_names = NULL;
	}
}
