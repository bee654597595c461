// SPDX-License-Identifier: GPL-2.0
/* stitch record: the counted stacks, resolved, to every output. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "formats/output.h"
#include "offcpu/wall.h"
#include "profile/resolve.h"

#include "record/record_internal.h"

static void title_of(struct record_opts *o, char *buf, size_t len)
{
	size_t n = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < o->nevents && n < len; i++) {
		int w;

		if (o->events[i].kind == EVENT_CPU)
			w = snprintf(buf + n, len - n, "%scpu at %d Hz", i ? ", " : "", o->freq);
		else
			w = snprintf(buf + n, len - n, "%s%s", i ? ", " : "", o->events[i].text);
		if (w < 0)
			break;
		n += w;
	}
}

/* What was traced, for the flame graph's subtitle. */
static void target_of(struct recorder *r, char *buf, size_t len)
{
	struct record_opts *o = r->o;
	size_t n = 0;
	int i;

	if (o->all) {
		snprintf(buf, len, "whole system");
	} else if (o->command) {
		n = snprintf(buf, len, "command:");
		for (i = 0; o->command[i] && n < len; i++)
			n += snprintf(buf + n, len - n, " %s", o->command[i]);
	} else {
		n = snprintf(buf, len, "pid");
		for (i = 0; i < o->npids && n < len; i++)
			n += snprintf(buf + n, len - n, "%s%u", i ? "," : " ", o->pids[i]);
	}
	if (len > 80 && strlen(buf) > 80)
		strcpy(buf + 77, "...");
}

int write_output(struct recorder *r, double seconds, uint64_t start_unix_ns)
{
	struct record_opts *o = r->o;
	struct output_opts oo = { .top = o->top };
	struct resolver res;
	struct profile p;
	char title[512], sub[512], threads[8192], what[128], v[32];
	int rc;

	profile_init(&p);
	if (o->wall)
		oo.preamble = wall_weigh(&r->stacks, o->wall_cpu_idx, 1000000000ULL / o->freq,
					 threads, sizeof(threads));
	rc = resolver_init(&res, NULL);
	resolver_name_kernel_lazily(&res, "/proc/kallsyms");
	if (!rc)
		rc = profile_from_stacks(&p, &r->stacks, &res, o->event_names, o->nevents);
	if (!rc) {
		title_of(o, title, sizeof(title));
		p.title = profile_str(&p, title);
		p.duration_ns = seconds * 1e9;
		p.time_ns = start_unix_ns;
		/* Samples are time only when cpu sampling is all there is. */
		if (o->nevents == 1 && o->events[0].kind == EVENT_CPU)
			p.period_ns = 1000000000ULL / o->freq;
		/* Off-CPU stacks weigh nanoseconds (recorded alone, or as wall). */
		if (o->wall || o->events[0].kind == EVENT_OFFCPU) {
			p.value_type = profile_str(&p, o->wall ? "wall" : "off_cpu");
			p.value_unit = profile_str(&p, "nanoseconds");
			p.period_ns = 0;
		}
		target_of(r, sub, sizeof(sub));
		if (profile_unit_ns(&p))
			snprintf(sub + strlen(sub), sizeof(sub) - strlen(sub), ", %.1f s, %.3f s "
				 "%s", seconds, r->stacks.total / 1e9, o->wall ? "of threads' time" :
				 "off-CPU");
		else
			snprintf(sub + strlen(sub), sizeof(sub) - strlen(sub), ", %.1f s, %" PRIu64
				 " events", seconds, r->stacks.total);
		oo.subtitle = sub;
		profile_value_str(&p, r->stacks.total, v, sizeof(v));
		snprintf(what, sizeof(what), "%s%s, %zu distinct stacks", v,
			 !profile_unit_ns(&p) ? " events" : o->wall ? " of threads' time" :
			 " off-CPU", p.nsamples);
		oo.force = o->force;
		rc = output_write_all("record", o->outputs, o->formats, o->noutputs, &p, &oo, what);
	} else {
		fprintf(stderr, "stitch record: %s\n", strerror(-rc));
	}
	profile_free(&p);
	resolver_free(&res);
	return rc ? -1 : 0;
}
