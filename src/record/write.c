// SPDX-License-Identifier: GPL-2.0
/* stitch record: the counted stacks, resolved, to every output. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "formats/output.h"
#include "record/wall.h"
#include "profile/resolve.h"

#include "profile/stacks.h"
#include "record/record_cmd.h"

static void title_of(const struct record_opts *o, char *buf, size_t len)
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
static void target_of(const struct target *t, char *buf, size_t len)
{
	size_t n = 0;
	int i;

	if (t->all) {
		snprintf(buf, len, "whole system");
	} else if (t->command) {
		n = snprintf(buf, len, "command:");
		for (i = 0; t->command[i] && n < len; i++)
			n += snprintf(buf + n, len - n, " %s", t->command[i]);
	} else {
		n = snprintf(buf, len, "pid");
		for (i = 0; i < t->npids && n < len; i++)
			n += snprintf(buf + n, len - n, "%s%u", i ? "," : " ", t->pids[i]);
	}
	if (len > 80 && strlen(buf) > 80)
		strcpy(buf + 77, "...");
}

int record_write(struct record_cmd *cmd, const struct record_result *res)
{
	const struct record_opts *o = &cmd->o;
	struct stack_table *stacks = res->stacks;
	double seconds = res->seconds;
	struct output_opts oo = { .top = cmd->top };
	struct resolver names;
	struct profile p;
	char title[512], sub[512], threads[8192], what[128], v[32];
	int err;

	profile_init(&p);
	if (cmd->wall)
		oo.preamble = wall_weigh(stacks, cmd->wall_cpu_idx, 1000000000ULL / o->freq,
					 threads, sizeof(threads));
	err = resolver_init(&names, NULL);
	resolver_name_kernel_lazily(&names, "/proc/kallsyms");
	if (res->bins)
		resolver_release_gone(&names, res->bins);
	if (!err)
		err = profile_from_stacks(&p, stacks, &names, o->event_names, o->nevents);
	if (!err) {
		title_of(o, title, sizeof(title));
		p.title = profile_str(&p, title);
		p.duration_ns = seconds * 1e9;
		p.time_ns = res->start_unix_ns;
		/* Samples are time only when cpu sampling is all there is. */
		if (o->nevents == 1 && o->events[0].kind == EVENT_CPU)
			p.period_ns = 1000000000ULL / o->freq;
		/* Off-CPU stacks weigh nanoseconds (recorded alone, or as wall). */
		if (cmd->wall || o->events[0].kind == EVENT_OFFCPU) {
			p.value_type = profile_str(&p, cmd->wall ? "wall" : "off_cpu");
			p.value_unit = profile_str(&p, "nanoseconds");
			p.period_ns = 0;
		}
		/* Allocations weigh bytes (alone: check_opts). */
		if (o->events[0].kind == EVENT_ALLOC) {
			p.value_type = profile_str(&p, o->inuse ? "inuse_space" : "alloc_space");
			p.value_unit = profile_str(&p, "bytes");
			p.objects_type = profile_str(&p, o->inuse ? "inuse_objects" :
							     "alloc_objects");
			p.period_ns = 0;
		}
		target_of(&o->target, sub, sizeof(sub));
		if (profile_unit_bytes(&p))
			snprintf(sub + strlen(sub), sizeof(sub) - strlen(sub), ", %.1f s, %s %s",
				 seconds, profile_value_str(&p, stacks->total, v, sizeof(v)),
				 o->inuse ? "in use" : "allocated");
		else if (profile_unit_ns(&p))
			snprintf(sub + strlen(sub), sizeof(sub) - strlen(sub), ", %.1f s, %.3f s "
				 "%s", seconds, stacks->total / 1e9,
				 cmd->wall ? "of threads' time" : "off-CPU");
		else
			snprintf(sub + strlen(sub), sizeof(sub) - strlen(sub), ", %.1f s, %" PRIu64
				 " events", seconds, stacks->total);
		oo.subtitle = sub;
		profile_value_str(&p, stacks->total, v, sizeof(v));
		snprintf(what, sizeof(what), "%s%s, %zu distinct stacks", v,
			 profile_unit_bytes(&p) ? (o->inuse ? " in use" : " allocated") :
			 !profile_unit_ns(&p) ? " events" : cmd->wall ? " of threads' time" :
			 " off-CPU", p.nsamples);
		oo.force = cmd->out.force;
		err = output_write_all("record", cmd->out.paths, cmd->out.formats, cmd->out.n, &p,
				       &oo, what);
	} else {
		fprintf(stderr, "stitch record: %s\n", strerror(-err));
	}
	profile_free(&p);
	resolver_free(&names);
	return err ? -1 : 0;
}
