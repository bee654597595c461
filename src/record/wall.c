// SPDX-License-Identifier: GPL-2.0
/* Wall-clock profiles: see wall.h. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/output.h"
#include "capture/offcpu.h"
#include "record/wall.h"
#include "profile/profile.h"
#include "util/array.h"

/* A thread's wall time, split (wall_weigh). */
struct wall_thread {
	uint32_t pid, tid;
	/*
	 * The name of its heaviest stack: a COMMAND's thread has stitch's name
	 * until it execs, and which stack came first is the hash table's order
	 * (a CI run named the workload's thread "stitch-asan").
	 */
	char comm[STITCH_COMM_LEN];
	uint64_t comm_count;
	uint64_t oncpu, blocked, runnable;
};

static int cmp_wall_thread(const void *a, const void *b)
{
	const struct wall_thread *x = a, *y = b;
	uint64_t tx = x->oncpu + x->blocked + x->runnable, ty = y->oncpu + y->blocked + y->runnable;

	return tx < ty ? 1 : tx > ty ? -1 : (x->tid > y->tid) - (x->tid < y->tid);
}

const char *wall_weigh(struct stack_table *st, uint32_t cpu_idx, uint64_t period, char *buf,
		       size_t len)
{
	struct wall_thread *v = NULL, *t;
	size_t n = 0, cap = 0, i, used = 0;
	struct hmap_node *hn;
	size_t b;

	st->total = 0;
	hmap_for_each(&st->map, b, hn) {
		struct stack *s = (struct stack *)hn;
		const uint64_t *kern = stack_kernel(&s->key);
		bool cpu = s->key.event_idx == cpu_idx;

		if (cpu && s->count > PROFILE_MAX_COUNT / period)
			s->count = PROFILE_MAX_COUNT;
		else if (cpu)
			s->count *= period;
		st->total = count_add(st->total, s->count);
		for (i = 0; i < n && v[i].tid != s->key.tid; i++)
			;
		if (i == n) {
			if (array_reserve((void **)&v, &cap, n + 1, sizeof(*v), 64))
				continue;
			memset(&v[n], 0, sizeof(v[n]));
			v[n].pid = s->key.pid;
			v[n].tid = s->key.tid;
			n++;
		}
		t = &v[i];
		if (s->count >= t->comm_count) {
			memcpy(t->comm, s->key.comm, STITCH_COMM_LEN);
			t->comm_count = s->count;
		}
		if (cpu)
			t->oncpu += s->count;
		else if (s->key.nkernel && kern[0] == OFFCPU_TAG_RUNNABLE)
			t->runnable += s->count;
		else
			t->blocked += s->count;
	}
	if (!n)
		return NULL;
	qsort(v, n, sizeof(*v), cmp_wall_thread);
	buf[0] = '\0';
	for (i = 0; i < n && used + 1 < len; i++) {
		char comm[STITCH_COMM_LEN + 1];
		int w;

		folded_clean(comm, sizeof(comm), v[i].comm);
		w = snprintf(buf + used, len - used, "%-16s pid %-7u tid %-7u %9.1f ms on CPU, "
			     "%9.1f ms blocked, %9.1f ms runnable\n", comm, v[i].pid, v[i].tid,
			     v[i].oncpu / 1e6, v[i].blocked / 1e6, v[i].runnable / 1e6);
		if (w < 0)
			break;
		used += (size_t)w < len - used ? (size_t)w : len - used - 1;
	}
	free(v);
	return buf;
}
