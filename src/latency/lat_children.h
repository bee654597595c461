/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stitch latency --children: named functions timed exactly inside slow
 * calls.  Each child's entry and return probe appends one event to the
 * thread's buffer while it is in a call (latency.bpf.c); a slow call
 * brings its events, in the order they happened on its thread, and the
 * nesting is rebuilt here from that order alone: an entry opens a node
 * under the innermost open one, a return closes the innermost open node of
 * its function (and any opened inside it and never returned from: a
 * longjmp, an exception).  No depth field from anywhere else, so CPU
 * migrations and interrupts cannot disturb it; uprobes fire only in the
 * thread's own user context.
 */
#ifndef STITCH_LATENCY_CHILDREN_H
#define STITCH_LATENCY_CHILDREN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "latency/latency.h"

struct latency_bpf;
struct bpf_link;
struct lat_root;

struct lat_children {
	int n;
	char *names[LAT_MAX_CHILDREN];		/* as shown: FUNCTION */
	char *binaries[LAT_MAX_CHILDREN];	/* the file; NULL: a kernel function */
	struct bpf_link *links[2 * LAT_MAX_CHILDREN];
	int nlinks;
};

/*
 * Parse --children FUNC[,BINARY:FUNC...]: a bare name is in the root's
 * binary for a function root, a kernel function for a system call or
 * tracepoint root.  On error prints one line and returns 2.
 */
int lat_children_parse(struct lat_children *c, const char *list, const struct lat_root *r);
int lat_children_attach(struct lat_children *c, struct latency_bpf *skel);
/* Take the probes away (the names stay, for the reports). */
void lat_children_detach(struct lat_children *c);
void lat_children_free(struct lat_children *c);

/* A tree of child calls: node 0 is the root call; counts and times add up over calls. */
struct lat_child_node {
	uint32_t func;			/* child index; node 0: unused */
	uint32_t first, next;		/* first child, next sibling (0: none) */
	uint64_t count, total_ns;
};

struct lat_child_tree {
	struct lat_child_node *v;
	size_t n, cap;
	uint64_t lost;			/* events the kernel could not keep */
	uint64_t unmatched;		/* returns without their entry, entries never returned from */
};

/* Add one call of dur_ns with its nev events; returns 0 or -ENOMEM. */
int lat_tree_add(struct lat_child_tree *t, const uint64_t *ev, uint32_t nev, uint64_t dur_ns,
		 uint32_t lost);
void lat_tree_free(struct lat_child_tree *t);

/* Text: root, then each child indented, biggest first. */
void lat_tree_print(FILE *f, const struct lat_child_tree *t, const struct lat_children *c,
		    const char *root, const char *indent);
/* JSON: {"name": ..., "calls": N, "total_ns": N, "children": [...]}. */
void lat_tree_json(FILE *f, const struct lat_child_tree *t, const struct lat_children *c,
		   const char *root);

#endif /* STITCH_LATENCY_CHILDREN_H */
