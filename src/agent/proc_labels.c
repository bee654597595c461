// SPDX-License-Identifier: GPL-2.0
/* Per-process labels, cached while the process lives (proc_labels.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/proc_labels.h"

int proc_labels_init(struct proc_labels_cache *c)
{
	c->proc = "/proc";
	return hmap_init(&c->map, 256);
}

void proc_labels_free(struct proc_labels_cache *c)
{
	hmap_free_all(&c->map);
}

/* A small /proc file's text, NUL-terminated; its length, or -1. */
static ssize_t read_small(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	return (ssize_t)n;
}

/*
 * The process's start, in clock ticks since boot (field 22 of stat), and
 * its name (field 2, what /proc/PID/comm says); 0 if gone.
 */
static uint64_t start_ticks(const struct proc_labels_cache *c, uint32_t pid, char *name,
			    size_t namelen)
{
	char path[64], buf[1024], *p, *open;
	unsigned long long v;
	int field;

	snprintf(path, sizeof(path), "%s/%u/stat", c->proc, pid);
	if (read_small(path, buf, sizeof(buf)) <= 0)
		return 0;
	/* The name in parentheses may hold anything: count fields after its last ')'. */
	p = strrchr(buf, ')');
	open = strchr(buf, '(');
	if (!p || !open || open > p)
		return 0;
	snprintf(name, namelen, "%.*s", (int)(p - open - 1), open + 1);
	/* Each step moves p to the blank before the next field: field 22 after 20. */
	for (field = 2; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", &v) != 1)
		return 0;
	return v;
}

static void read_labels(const struct proc_labels_cache *c, struct proc_labels *pl,
			const char *comm)
{
	char path[64], buf[4096];
	ssize_t n;

	char stat_name[sizeof(pl->name)];

	pl->start_ticks = start_ticks(c, pl->pid, stat_name, sizeof(stat_name));
	snprintf(pl->name, sizeof(pl->name), "%s", comm);
	/*
	 * Gone (a build's cc1, named at the period's end): its other files are
	 * gone too, and asking for each was three failed opens per process.
	 */
	if (!pl->start_ticks)
		return;
	snprintf(path, sizeof(path), "%s/%u/comm", c->proc, pl->pid);
	if (read_small(path, buf, sizeof(pl->name) + 1) > 0) {
		buf[strcspn(buf, "\n")] = '\0';
		if (buf[0])
			snprintf(pl->name, sizeof(pl->name), "%.*s", (int)sizeof(pl->name) - 1, buf);
	}
	snprintf(path, sizeof(path), "%s/%u/exe", c->proc, pl->pid);
	n = readlink(path, buf, sizeof(buf) - 1);
	if (n > 0) {
		const char *base;

		buf[n] = '\0';
		base = strrchr(buf, '/');
		snprintf(pl->exe, sizeof(pl->exe), "%.*s", (int)sizeof(pl->exe) - 1,
			 base ? base + 1 : buf);
	}
	snprintf(path, sizeof(path), "%s/%u/cgroup", c->proc, pl->pid);
	if (read_small(path, buf, sizeof(buf)) > 0)
		cgroup_ids_from_file_text(buf, &pl->ids);
}

static bool pid_eq(const struct hmap_node *n, const void *key)
{
	return ((const struct proc_labels *)n)->pid == *(const uint32_t *)key;
}

const struct proc_labels *proc_labels_get(struct proc_labels_cache *c, uint32_t pid,
					  const char *comm)
{
	struct proc_labels *pl;
	bool added;

	pl = (struct proc_labels *)hmap_find_or_add(&c->map, hash_u64(pid), pid_eq, &pid,
						    sizeof(*pl), &added);
	if (!pl)
		return NULL;
	if (added) {
		memset((char *)pl + sizeof(pl->node), 0, sizeof(*pl) - sizeof(pl->node));
		pl->pid = pid;
		read_labels(c, pl, comm);
	}
	return pl;
}

void proc_labels_sweep(struct proc_labels_cache *c)
{
	struct hmap_node *n, *next;
	size_t b;

	for (b = 0; b < c->map.nbuckets; b++) {
		for (n = c->map.buckets[b]; n; n = next) {
			struct proc_labels *pl = (struct proc_labels *)n;
			char name[sizeof(pl->name)];

			next = n->next;
			/* Gone, its pid reused, or an exec gave it another name: read again. */
			if (pl->start_ticks &&
			    start_ticks(c, pl->pid, name, sizeof(name)) == pl->start_ticks &&
			    !strcmp(name, pl->name))
				continue;
			hmap_remove(&c->map, n);
			free(pl);
		}
	}
}
