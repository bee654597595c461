// SPDX-License-Identifier: GPL-2.0
/* A period's stacks, grouped into labelled pprof series (series.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/series.h"
#include "formats/pprof.h"
#include "record/wall.h"
#include "profile/resolve.h"
#include "profile/stacks.h"

enum series_type { SERIES_CPU, SERIES_OFFCPU, SERIES_WALL, SERIES_ALLOC };

/* The __name__ of each type, as Pyroscope's own eBPF collector names them. */
static const char *const type_names[] = {
	[SERIES_CPU] = "process_cpu",
	[SERIES_OFFCPU] = "off_cpu",
	[SERIES_WALL] = "wall",
	/* Go's heap profiles' (its SDKs' memory:alloc_space:bytes:space:bytes) */
	[SERIES_ALLOC] = "memory",
};

/* What a series is told apart by. */
struct group_key {
	int type;
	char service[256];
	struct cgroup_ids ids;
};

struct group {
	struct hmap_node node;
	struct group_key key;
	uint32_t pid;			/* its one process, 0 if several */
	char exe[64];
	struct stack_table st;
};

static bool group_eq(const struct hmap_node *n, const void *key)
{
	return !memcmp(&((const struct group *)n)->key, key, sizeof(struct group_key));
}

/* The group of stack s (made if new), or NULL: filtered out (--comm) or out of memory. */
static struct group *group_of(const struct series_config *c, struct hmap *groups,
			      const struct stack *s, int *err)
{
	const struct proc_labels *pl;
	struct group_key k;
	struct group *g;
	bool added;

	pl = proc_labels_get(c->procs, s->key.pid, s->key.comm);
	if (!pl) {
		*err = -ENOMEM;
		return NULL;
	}
	if (c->comm && strcmp(pl->name, c->comm))
		return NULL;
	memset(&k, 0, sizeof(k));
	k.type = c->wall ? SERIES_WALL : (int)s->key.event_idx == c->cpu_idx ? SERIES_CPU :
		 (int)s->key.event_idx == c->alloc_idx ? SERIES_ALLOC : SERIES_OFFCPU;
	snprintf(k.service, sizeof(k.service), "%s", c->service_name ? c->service_name :
		 pl->name);
	k.ids = pl->ids;
	g = (struct group *)hmap_find_or_add(groups, hash_bytes(&k, sizeof(k), 0), group_eq, &k,
					     sizeof(*g), &added);
	if (!g) {
		*err = -ENOMEM;
		return NULL;
	}
	if (added) {
		g->key = k;
		g->pid = pl->pid;
		snprintf(g->exe, sizeof(g->exe), "%s", pl->exe);
		if (stacks_init(&g->st)) {
			*err = -ENOMEM;
			return NULL;
		}
	} else if (g->pid != pl->pid) {
		g->pid = 0;
		if (strcmp(g->exe, pl->exe))
			g->exe[0] = '\0';
	}
	return g;
}

/* g's stacks as a profile p (initialised by the caller), as record -o x.pb.gz builds one. */
static int build_profile(const struct series_config *c, struct group *g, struct resolver *names,
			 uint64_t start_ns, uint64_t end_ns, struct profile *p)
{
	char title[64], threads[256];
	int err;

	if (g->key.type == SERIES_WALL)
		wall_weigh(&g->st, c->cpu_idx, 1000000000ULL / c->freq, threads, sizeof(threads));
	err = profile_from_stacks(p, &g->st, names, c->event_names, c->nevents);
	if (err)
		return err;
	if (g->key.type == SERIES_CPU)
		snprintf(title, sizeof(title), "cpu at %d Hz", c->freq);
	else
		snprintf(title, sizeof(title), "%s", type_names[g->key.type]);
	p->title = profile_str(p, title);
	p->time_ns = start_ns;
	p->duration_ns = end_ns - start_ns;
	if (g->key.type == SERIES_CPU) {
		p->period_ns = 1000000000ULL / c->freq;
	} else if (g->key.type == SERIES_ALLOC) {
		p->value_type = profile_str(p, c->inuse ? "inuse_space" : "alloc_space");
		p->value_unit = profile_str(p, "bytes");
		p->objects_type = profile_str(p, c->inuse ? "inuse_objects" : "alloc_objects");
		p->period_ns = 0;
	} else {
		p->value_type = profile_str(p, g->key.type == SERIES_WALL ? "wall" : "off_cpu");
		p->value_unit = profile_str(p, "nanoseconds");
		p->period_ns = 0;
	}
	return 0;
}

/*
 * p as gzipped pprof, in memory (*out malloc'd).  0, or -errno.  zlib's
 * fastest level: on a busy host's 165 KB profile 2.5 ms instead of 6.0 ms
 * at the default level, for 7% more bytes (67 KB, not 63 KB): an always-on
 * agent's CPU is dearer than a push's few KB.
 */
static int pprof_bytes(const struct profile *p, uint8_t **out, size_t *len)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	int err;

	if (!f)
		return -ENOMEM;
	err = pprof_write_level(f, p, 1);
	if (fclose(f) && !err)
		err = -ENOMEM;
	if (err) {
		free(buf);
		return err;
	}
	*out = (uint8_t *)buf;
	*len = size;
	return 0;
}

/* g's labels into l (SERIES_MAX_LABELS): the count. */
static int labels_of(const struct series_config *c, const struct group *g, struct push_label *l)
{
	int n = 0, i;

	l[n++] = (struct push_label){ "__name__", type_names[g->key.type] };
	l[n++] = (struct push_label){ "service_name", g->key.service };
	l[n++] = (struct push_label){ "host_name", c->host_name };
	if (g->key.ids.container_id[0])
		l[n++] = (struct push_label){ "container_id", g->key.ids.container_id };
	if (g->key.ids.pod_uid[0])
		l[n++] = (struct push_label){ "pod_uid", g->key.ids.pod_uid };
	for (i = 0; i < c->nextra && n < SERIES_MAX_LABELS; i++)
		l[n++] = c->extra[i];
	return n;
}

static int push_group(const struct series_config *c, struct group *g, struct resolver *names,
		      uint64_t start_ns, uint64_t end_ns, series_fn fn, void *ctx, uint32_t index)
{
	struct push_label labels[SERIES_MAX_LABELS];
	struct push_series s = { 0 };
	struct profile p;
	uint8_t *pprof = NULL;
	size_t len = 0;
	int err;

	profile_init(&p);
	err = build_profile(c, g, names, start_ns, end_ns, &p);
	if (!err)
		err = pprof_bytes(&p, &pprof, &len);
	if (!err) {
		s.prof = &p;
		s.pprof = pprof;
		s.pprof_len = len;
		s.labels = labels;
		s.nlabels = labels_of(c, g, labels);
		s.start_ns = start_ns;
		s.end_ns = end_ns;
		s.pid = g->pid;
		s.exe_name = g->pid && g->exe[0] ? g->exe : NULL;
		fn(ctx, &s, index);
	}
	free(pprof);
	profile_free(&p);
	return err;
}

int series_of_period(struct series_config *c, struct stack_table *stacks,
		     struct binary_cache *bins, uint64_t start_ns, uint64_t end_ns,
		     series_fn fn, void *ctx)
{
	struct hmap groups;
	struct hmap_node *n;
	struct resolver names;
	uint32_t index = 0;
	int err = 0;
	size_t b;

	if (hmap_init(&groups, 64))
		return -ENOMEM;
	hmap_for_each(&stacks->map, b, n) {
		const struct stack *s = (const struct stack *)n;
		struct group *g = group_of(c, &groups, s, &err);

		struct stack *gs = g ? stacks_find_add(&g->st, &s->key, s->key_bytes, s->count) :
				       NULL;

		if (g && !gs)
			err = -ENOMEM;
		else if (gs)
			stack_add_objects(gs, s->objects);
		if (err)
			break;
	}
	if (!err)
		err = resolver_init(&names, NULL);
	if (!err) {
		/*
		 * The kernel namer's program, loaded every period before, was
		 * most of a small period's naming: 1.1 -> 0.45 ms (a chain
		 * workload's cpu and offcpu stacks), and a BPF program fewer
		 * loaded and unloaded every period.
		 */
		resolver_name_kernel_shared(&names, "/proc/kallsyms", &c->kn, &c->kn_tried);
		if (bins)
			resolver_release_gone(&names, bins);
		/* The whole period's frames first: a binary two groups share is read once. */
		resolver_name_all(&names, stacks);
		hmap_for_each(&groups, b, n)
			if (!err)
				err = push_group(c, (struct group *)n, &names, start_ns, end_ns, fn,
						 ctx, index++);
		resolver_free(&names);
	}
	hmap_for_each(&groups, b, n)
		stacks_free(&((struct group *)n)->st);
	hmap_free_all(&groups);
	return err;
}
