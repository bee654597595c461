// SPDX-License-Identifier: GPL-2.0
/* The attacher's links: kept as each event is attached, destroyed together (attach.h). */
#include <errno.h>
#include <stdlib.h>

#include <bpf/libbpf.h>

#include "record/attach.h"
#include "record/attach_internal.h"

/* A cookie, where the kernel has them; the legacy workers know the event otherwise. */
uint64_t attach_cookie(struct attacher *a, uint32_t idx)
{
	return a->legacy ? 0 : idx;
}

int attach_add_link(struct attacher *a, struct bpf_link *link)
{
	if (a->nlinks == a->cap) {
		int cap = a->cap ? a->cap * 2 : 16;
		struct bpf_link **l = realloc(a->links, cap * sizeof(*l));

		if (!l) {
			bpf_link__destroy(link);
			return -ENOMEM;
		}
		a->links = l;
		a->cap = cap;
	}
	a->links[a->nlinks++] = link;
	return 0;
}

void attach_destroy(struct attacher *a)
{
	int i;

	for (i = 0; i < a->nlinks; i++)
		bpf_link__destroy(a->links[i]);
	free(a->links);
	a->links = NULL;
	a->nlinks = a->cap = 0;
	a->raw_attached = false;
}
