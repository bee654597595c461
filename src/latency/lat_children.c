// SPDX-License-Identifier: GPL-2.0
/* stitch latency --children: attaching the child probes, rebuilding nesting: see lat_children.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "formats/json.h"
#include "latency/lat_children.h"
#include "latency/lat_hist.h"
#include "latency/lat_root.h"
#include "util/array.h"
#include "util/cli.h"
#include "interp/interp.h"	/* the skeleton's root_L */
#include "latency.skel.h"

#define KPROBE_PMU "/sys/bus/event_source/devices/kprobe"
/* Deeper nesting than this inside one call is counted as unmatched. */
#define MAX_NEST 128

int lat_children_parse(struct lat_children *c, const char *list, const struct lat_root *r)
{
	char *buf = strdup(list), *save = NULL, *tok;
	int rc = 0;

	if (!buf)
		return 1;
	for (tok = strtok_r(buf, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strrchr(tok, ':');
		const char *bin = NULL, *fn = tok;

		if (c->n == LAT_MAX_CHILDREN) {
			rc = cli_usage_error("latency", "--children: at most 64 functions ('%s')", list);
			break;
		}
		if (colon) {
			*colon = '\0';
			bin = tok;
			fn = colon + 1;
			if (!*bin || access(bin, R_OK)) {
				rc = cli_usage_error("latency", "--children: cannot read the binary '%s'",
						     bin);
				break;
			}
		} else if (r->kind == ROOT_FUNCTION) {
			bin = r->binary;
		} else if (r->kind == ROOT_USDT_PAIR || r->kind == ROOT_INTERP) {
			rc = cli_usage_error("latency", "--children: '%s': name its binary, as "
					     "BINARY:FUNCTION", fn);
			break;
		}
		if (!*fn) {
			rc = cli_usage_error("latency", "--children: '%s' names no function", list);
			break;
		}
		c->names[c->n] = strdup(fn);
		c->binaries[c->n] = bin ? strdup(bin) : NULL;
		if (!c->names[c->n] || (bin && !c->binaries[c->n])) {
			rc = 1;
			break;
		}
		c->n++;
	}
	free(buf);
	return rc;
}

static int attach_one(struct lat_children *c, struct latency_bpf *skel, int i)
{
	struct bpf_link *l[2] = { NULL, NULL };
	int k;

	for (k = 0; k < 2; k++) {
		struct bpf_program *p = k ? skel->progs.lat_child_exit : skel->progs.lat_child_enter;

		if (c->binaries[i]) {
			LIBBPF_OPTS(bpf_uprobe_opts, uo, .func_name = c->names[i], .retprobe = k,
				    .bpf_cookie = i);

			l[k] = bpf_program__attach_uprobe_opts(p, -1, c->binaries[i], 0, &uo);
		} else {
			LIBBPF_OPTS(bpf_kprobe_opts, ko, .retprobe = k, .bpf_cookie = i);

			l[k] = bpf_program__attach_kprobe_opts(p, c->names[i], &ko);
		}
		if (!l[k])
			break;
		c->links[c->nlinks++] = l[k];
	}
	if (k == 2)
		return 0;
	fprintf(stderr, "stitch latency: --children: cannot attach to %s%s%s: %s%s\n",
		c->binaries[i] ? c->binaries[i] : "", c->binaries[i] ? ":" : "", c->names[i],
		strerror(errno), c->binaries[i] ? " (is it in the binary's symbol table?)" : "");
	return -1;
}

int lat_children_attach(struct lat_children *c, struct latency_bpf *skel)
{
	struct stat st;
	int i;

	for (i = 0; i < c->n; i++) {
		if (!c->binaries[i] && stat(KPROBE_PMU, &st)) {
			fprintf(stderr, "stitch latency: --children %s: kernel functions need kprobes, "
				"and this kernel has none (CONFIG_KPROBES is off: " KPROBE_PMU
				" is missing); name user functions as BINARY:FUNCTION\n", c->names[i]);
			return -1;
		}
		if (attach_one(c, skel, i))
			return -1;
	}
	return 0;
}

void lat_children_detach(struct lat_children *c)
{
	int i;

	for (i = 0; i < c->nlinks; i++)
		bpf_link__destroy(c->links[i]);
	c->nlinks = 0;
}

void lat_children_free(struct lat_children *c)
{
	int i;

	lat_children_detach(c);
	for (i = 0; i < c->n; i++) {
		free(c->names[i]);
		free(c->binaries[i]);
	}
	memset(c, 0, sizeof(*c));
}

/* ---- the tree -------------------------------------------------------------- */

static int child_of(struct lat_child_tree *t, uint32_t parent, uint32_t func, uint32_t *out)
{
	uint32_t i;

	for (i = t->v[parent].first; i; i = t->v[i].next) {
		if (t->v[i].func == func) {
			*out = i;
			return 0;
		}
	}
	if (array_reserve((void **)&t->v, &t->cap, t->n + 1, sizeof(*t->v), 16))
		return -ENOMEM;
	i = t->n++;
	memset(&t->v[i], 0, sizeof(t->v[i]));
	t->v[i].func = func;
	t->v[i].next = t->v[parent].first;
	t->v[parent].first = i;
	*out = i;
	return 0;
}

int lat_tree_add(struct lat_child_tree *t, const uint64_t *ev, uint32_t nev, uint64_t dur_ns,
		 uint32_t lost)
{
	uint32_t stack[MAX_NEST], k;
	uint64_t start[MAX_NEST];
	int sp = 1, j;

	if (!t->n) {
		if (array_reserve((void **)&t->v, &t->cap, 1, sizeof(*t->v), 16))
			return -ENOMEM;
		memset(&t->v[0], 0, sizeof(t->v[0]));
		t->n = 1;
	}
	stack[0] = 0;
	start[0] = 0;
	for (k = 0; k < nev; k++) {
		uint64_t when = ev[k] >> LAT_CHILD_TIME_SHIFT;
		uint32_t func = (ev[k] >> LAT_CHILD_IDX_SHIFT) & (LAT_MAX_CHILDREN - 1);

		if (when > dur_ns)
			when = dur_ns;
		if (!(ev[k] & LAT_CHILD_EXIT)) {
			if (sp == MAX_NEST) {
				t->unmatched++;
				continue;
			}
			if (child_of(t, stack[sp - 1], func, &stack[sp]))
				return -ENOMEM;
			start[sp++] = when;
			continue;
		}
		/* A return closes the innermost open call of its function, and all inside it. */
		for (j = sp - 1; j >= 1 && t->v[stack[j]].func != func; j--)
			;
		if (j < 1) {
			t->unmatched++;	/* entered before the call began */
			continue;
		}
		while (sp > j) {
			sp--;
			t->v[stack[sp]].count++;
			t->v[stack[sp]].total_ns += when - start[sp];
			if (sp > j)
				t->unmatched++;
		}
	}
	/* Still inside at the call's end: closed there. */
	while (sp > 1) {
		sp--;
		t->v[stack[sp]].count++;
		t->v[stack[sp]].total_ns += dur_ns - start[sp];
		t->unmatched++;
	}
	t->v[0].count++;
	t->v[0].total_ns += dur_ns;
	t->lost += lost;
	return 0;
}

void lat_tree_free(struct lat_child_tree *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}

/* Children of node i, biggest total first. */
static uint32_t sorted_children(const struct lat_child_tree *t, uint32_t i, uint32_t *out,
				uint32_t max)
{
	uint32_t n = 0, c, a, b;

	for (c = t->v[i].first; c && n < max; c = t->v[c].next)
		out[n++] = c;
	for (a = 1; a < n; a++)
		for (b = a; b > 0 && t->v[out[b]].total_ns > t->v[out[b - 1]].total_ns; b--) {
			c = out[b];
			out[b] = out[b - 1];
			out[b - 1] = c;
		}
	return n;
}

static const char *child_name(const struct lat_children *c, uint32_t func)
{
	return (int)func < c->n ? c->names[func] : "?";
}

static void print_node(FILE *f, const struct lat_child_tree *t, const struct lat_children *c,
		       uint32_t i, const char *indent, int depth)
{
	uint32_t kids[LAT_MAX_CHILDREN], n, k;
	const struct lat_child_node *nd = &t->v[i];
	char tm[32];

	lat_format_ns(tm, sizeof(tm), nd->total_ns);
	fprintf(f, "%s%*s%-*s %6" PRIu64 "x %10s  %5.1f%%\n", indent, 2 * depth, "",
		30 - 2 * (depth < 12 ? depth : 12), child_name(c, nd->func), nd->count, tm,
		t->v[0].total_ns ? 100.0 * nd->total_ns / t->v[0].total_ns : 0.0);
	if (depth >= 32)
		return;
	n = sorted_children(t, i, kids, LAT_MAX_CHILDREN);
	for (k = 0; k < n; k++)
		print_node(f, t, c, kids[k], indent, depth + 1);
}

void lat_tree_print(FILE *f, const struct lat_child_tree *t, const struct lat_children *c,
		    const char *root, const char *indent)
{
	uint32_t kids[LAT_MAX_CHILDREN], n, k;
	char tm[32];

	if (!t->n)
		return;
	lat_format_ns(tm, sizeof(tm), t->v[0].total_ns);
	fprintf(f, "%s%-30s %6" PRIu64 "x %10s  100.0%%\n", indent, root, t->v[0].count, tm);
	n = sorted_children(t, 0, kids, LAT_MAX_CHILDREN);
	for (k = 0; k < n; k++)
		print_node(f, t, c, kids[k], indent, 1);
	if (t->lost || t->unmatched)
		fprintf(f, "%s(%" PRIu64 " entries or returns lost: more than %d in a call; %" PRIu64
			" without their other half)\n", indent, t->lost, LAT_MAX_CHILD_EVENTS,
			t->unmatched);
}

static void json_node(FILE *f, const struct lat_child_tree *t, const struct lat_children *c,
		      uint32_t i, const char *name, int depth)
{
	uint32_t kids[LAT_MAX_CHILDREN], n, k;

	fputs("{\"name\": ", f);
	json_string(f, name);
	fprintf(f, ", \"calls\": %" PRIu64 ", \"total_ns\": %" PRIu64 ", \"children\": [",
		t->v[i].count, t->v[i].total_ns);
	n = depth < 32 ? sorted_children(t, i, kids, LAT_MAX_CHILDREN) : 0;
	for (k = 0; k < n; k++) {
		if (k)
			fputs(", ", f);
		json_node(f, t, c, kids[k], child_name(c, t->v[kids[k]].func), depth + 1);
	}
	fputs("]}", f);
}

void lat_tree_json(FILE *f, const struct lat_child_tree *t, const struct lat_children *c,
		   const char *root)
{
	if (!t->n) {
		fputs("null", f);
		return;
	}
	json_node(f, t, c, 0, root, 0);
}
